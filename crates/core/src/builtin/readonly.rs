//! Read-only programs: what each reads, and when an option makes it do more.

use super::getopt::Opts;
use super::git::git_readonly;
use super::reach::{files_reach, operand_reach, unknown_option, ReadOnly};
use super::secrets::glob_may_name_secret;
use super::Walker;
use crate::builtin::programs::{self, Effect};
use crate::rule_id::RuleId;
use crate::shell::{Span, Word};
use crate::verdict::Tier;

pub(super) fn readonly<'w>(name: &str, args: &[&'w Word], w: &Walker, prog: Span) -> ReadOnly<'w> {
    let flag = |rule: RuleId, why: &str, span: Span| ReadOnly::Flag(rule, why.to_string(), span);
    let entry = programs::lookup(name);
    let result = match name {
        "printf" => match args.first().filter(|a| a.text.starts_with("-v")) {
            Some(a) => flag(
                RuleId::ShellPrintfV,
                "printf -v assigns a shell variable, which can change what later commands run",
                a.span,
            ),
            None => ReadOnly::Yes,
        },
        "tail" => tail_flag(args),
        "rg" => {
            let o = Opts::parse(args, "ABCEefgjMmrTtd", RG_LONG_TAKES);
            match o
                .has_long("pre")
                .or_else(|| o.has_long("hostname-bin"))
                .or_else(|| o.has_long("search-zip"))
                .or_else(|| o.has_short('z'))
            {
                Some(x) => flag(
                    RuleId::ShellRgPre,
                    "rg --pre / --hostname-bin / -z run other programs",
                    x.span,
                ),
                None => ReadOnly::Yes,
            }
        }
        "date" => date_flag(args),
        "hostname" => match args.first() {
            Some(a) => flag(
                RuleId::ShellHostnameArgs,
                "hostname with arguments can rename the host",
                a.span,
            ),
            None => ReadOnly::Yes,
        },
        "tree" => {
            let o = Opts::parse(args, "LPIoHT", &["filelimit", "timefmt", "charset", "sort"]);
            // `-R` (with `-H`) writes a 00Tree.html into every directory it lists.
            match o.has_short('o').or_else(|| o.has_short('R')) {
                Some(x) => flag(RuleId::ShellTreeO, "tree -o / -R writes files", x.span),
                None => ReadOnly::Yes,
            }
        }
        "sort" => sort_flag(args),
        "uniq" => {
            let o = Opts::parse(args, "fsw", &["skip-fields", "skip-chars", "check-chars"]);
            match o.operands.get(1) {
                Some(out) => flag(
                    RuleId::ShellUniq2,
                    "uniq with two file arguments writes the second",
                    out.span,
                ),
                None => ReadOnly::Yes,
            }
        }
        "git" => git_readonly(args, w),
        "jq" => jq_env(args, entry),
        "sed" => sed_readonly(args, w),
        // GNU binutils read more arguments from the file an `@FILE` operand names.
        "strings" => match args.iter().find(|a| a.text.starts_with('@') || a.dynamic) {
            Some(a) => flag(
                RuleId::ShellOptionEffect,
                "strings reads more arguments from the file an @FILE operand names",
                a.span,
            ),
            None => ReadOnly::Yes,
        },
        // The rest of the list: a table entry each, read below.
        _ if entry.is_some() => ReadOnly::Yes,
        _ => ReadOnly::No,
    };
    if let ReadOnly::Yes = result {
        if let Some(span) = recursive_read(name, args, w, prog) {
            return ReadOnly::Flag(
                RuleId::ShellRecursiveRead,
                format!("{name} reads every file under a directory, secret files too if there are any; only a host with a file system can check what it reaches"),
                span,
            );
        }
    }
    if let ReadOnly::Yes = result {
        if let Some(p) = entry {
            return table_readonly(p, args, w);
        }
    }
    result
}

/// `jq`'s program may read the environment (`env`, `$ENV`, an imported module), where
/// an agent host keeps its keys; a program from a file (`-f`) could too.
fn jq_env<'w>(args: &[&'w Word], entry: Option<&programs::Program>) -> ReadOnly<'w> {
    let Some(p) = entry else {
        return ReadOnly::No;
    };
    let scan = p.scan(args);
    let flag =
        |why: &str, span: Span| ReadOnly::Flag(RuleId::ShellSecretEnv, why.to_string(), span);
    if let Some(f) = scan
        .options
        .iter()
        .find(|f| f.option.is("-f") || f.option.is("--from-file"))
    {
        return flag(
            "jq runs a program from a file, which may read the environment (env, $ENV)",
            f.word.span,
        );
    }
    match scan.operands.first() {
        Some(prog) if super::secrets::jq_reads_env(&prog.text) => flag(
            "jq reads the environment (env, $ENV), where an agent host keeps its keys",
            prog.span,
        ),
        _ => ReadOnly::Yes,
    }
}

/// `tail -f`/`-F`/`--follow`/`--retry` and the obsolete `+1f`: it never ends.
fn tail_flag<'w>(args: &[&'w Word]) -> ReadOnly<'w> {
    let flag = |rule: RuleId, why: &str, span: Span| ReadOnly::Flag(rule, why.to_string(), span);
    let o = Opts::parse(
        args,
        "ncs",
        &[
            "lines",
            "bytes",
            "sleep-interval",
            "pid",
            "max-unchanged-stats",
        ],
    );
    match o
        .has_short('f')
        .or_else(|| o.has_short('F'))
        .or_else(|| o.has_long("follow"))
        .or_else(|| o.has_long("retry"))
        .or_else(|| {
            // The obsolete `tail +1f FILE` / `tail +10lf`: follow as well.
            args.first().copied().filter(|a| {
                a.text.strip_prefix('+').is_some_and(|n| {
                    let n = n.trim_end_matches('f');
                    n.len() < a.text.len() - 1
                        && n.trim_end_matches(['b', 'c', 'l'])
                            .chars()
                            .all(|c| c.is_ascii_digit())
                })
            })
        }) {
        Some(x) => flag(
            RuleId::ShellTailFollow,
            "tail -f follows the file forever",
            x.span,
        ),
        None => ReadOnly::Yes,
    }
}

/// `date -s` or a `MMDDhhmm` operand sets the clock; `date -f FILE` prints its lines.
fn date_flag<'w>(args: &[&'w Word]) -> ReadOnly<'w> {
    let flag = |rule: RuleId, why: &str, span: Span| ReadOnly::Flag(rule, why.to_string(), span);
    let o = Opts::parse(args, "dfrsI", &["date", "file", "reference"]);
    // `date MMDDhhmm[[CC]YY][.ss]` (an operand not starting with `+`) sets it too.
    let set_operand = o
        .operands
        .iter()
        .copied()
        .find(|a| !a.text.starts_with('+'));
    match o
        .has_short('s')
        .or_else(|| o.has_long("set"))
        .or(set_operand)
    {
        Some(x) => flag(
            RuleId::ShellDateSet,
            "date -s sets the system clock",
            x.span,
        ),
        // `date -f FILE` parses each line of FILE and prints the ones it cannot
        // read in its errors: any file, a secret included.
        None => match o.has_short('f').or_else(|| o.has_long("file")) {
            Some(x) => flag(
                RuleId::ShellDateFile,
                "date -f prints the lines of the file it reads",
                x.span,
            ),
            None => ReadOnly::Yes,
        },
    }
}

/// `sort -o`/`--output` writes a file, `--compress-program` runs one.
fn sort_flag<'w>(args: &[&'w Word]) -> ReadOnly<'w> {
    let flag = |rule: RuleId, why: &str, span: Span| ReadOnly::Flag(rule, why.to_string(), span);
    let o = Opts::parse(
        args,
        "ktSTo",
        &[
            "key",
            "field-separator",
            "buffer-size",
            "temporary-directory",
            "output",
            "compress-program",
            "files0-from",
            "parallel",
            "batch-size",
        ],
    );
    match o
        .has_short('o')
        .or_else(|| o.has_long("output"))
        .or_else(|| o.has_long("compress-program"))
    {
        Some(x) => flag(
            RuleId::ShellSortO,
            "sort -o / --compress-program write files or run programs",
            x.span,
        ),
        None => ReadOnly::Yes,
    }
}

/// `sed`'s scripts ([`crate::sed`]): each `-e`/`--expression` value, else the first
/// operand, must only read and print; a script from a file (`-f`) or known only at run
/// time asks. Without `-i` its options and files are then read with its table entry.
/// With `-i` (`--in-place`) a script may also add text (`a`, `i`, `c`), and each file,
/// and its backup with a suffix (`-i.bak`), gets the verdict an edit tool gets for it.
pub(super) fn sed_readonly<'w>(args: &[&'w Word], w: &Walker) -> ReadOnly<'w> {
    let Some(p) = programs::lookup("sed") else {
        return ReadOnly::No;
    };
    let scan = p.scan(args);
    if let Some((word, why)) = scan.unknown {
        return unknown_option(word, &why);
    }
    let mut scripts: Vec<(&str, &Word)> = Vec::new();
    let mut in_place: Option<&programs::Found> = None;
    for f in &scan.options {
        match p.effect(f) {
            Some(Effect::PatternFile) => {
                return ReadOnly::Flag(
                    RuleId::ShellSedScript,
                    format!(
                        "sed {} runs a script from a file, which is not read here",
                        f.option
                    ),
                    f.word.span,
                )
            }
            Some(Effect::Pattern) => scripts.extend(f.value),
            Some(Effect::Writes) => in_place = in_place.or(Some(f)),
            _ => {}
        }
    }
    let pattern_given = !scripts.is_empty();
    if !pattern_given {
        scripts.extend(scan.operands.first().map(|w| (w.text.as_str(), *w)));
    }
    for (text, word) in scripts {
        if word.dynamic {
            return ReadOnly::Flag(
                RuleId::ShellDynamic,
                "a sed script known only at run time".to_string(),
                word.span,
            );
        }
        let checked = if in_place.is_some() {
            crate::sed::edits_only(text)
        } else {
            crate::sed::reads_only(text)
        };
        match checked {
            Ok(()) => {}
            Err(crate::sed::NotReadOnly::Effect(why)) => {
                return ReadOnly::Flag(RuleId::ShellSedScript, format!("sed: {why}"), word.span)
            }
            Err(crate::sed::NotReadOnly::Unknown(why)) => {
                return ReadOnly::Flag(
                    RuleId::ShellSedScript,
                    format!("a sed script that is not read-only, or not understood: {why}"),
                    word.span,
                )
            }
        }
    }
    let Some(inp) = in_place else {
        return ReadOnly::Yes;
    };
    let files: &[&Word] = if pattern_given {
        &scan.operands
    } else {
        scan.operands.get(1..).unwrap_or(&[])
    };
    // `-i.bak` / `--in-place=.bak` also writes FILE.bak; a suffix with `*` or `/`
    // names another place.
    let suffix = inp.value.map(|(v, _)| v).unwrap_or("");
    if suffix.contains(['*', '/']) || inp.value.is_some_and(|(_, vw)| vw.dynamic) {
        return ReadOnly::Flag(
            RuleId::ShellDynamic,
            format!(
                "sed {} writes backups to a place its suffix names: {suffix}",
                inp.option
            ),
            inp.word.span,
        );
    }
    // What it reads is judged like `cat`'s operands first (a secret asks).
    match files_reach(files.iter().copied(), w) {
        ReadOnly::Yes | ReadOnly::No => {}
        other => return other,
    }
    let backups: Vec<Word> = if suffix.is_empty() {
        Vec::new()
    } else {
        files
            .iter()
            .map(|f| {
                let mut b = (*f).clone();
                b.text.push_str(suffix);
                b
            })
            .collect()
    };
    match w.edits_of(files.iter().copied().chain(backups.iter())) {
        Some((tier, rule, why, span)) => ReadOnly::Edit(tier, rule, why, span),
        None => ReadOnly::Yes,
    }
}

/// A read-only program read with its table entry ([`programs`]): an option the entry
/// does not know asks; an option value that names a file, and every operand the program
/// opens, are judged like `cat`'s operands; a recursive option asks.
pub(super) fn table_readonly<'w>(
    p: &programs::Program,
    args: &[&'w Word],
    w: &Walker,
) -> ReadOnly<'w> {
    let scan = p.scan(args);
    if let Some((word, why)) = scan.unknown {
        return unknown_option(word, &why);
    }
    let mut pattern_given = false;
    let mut opens_operands = false;
    // What a recursive option walks: the file operands (none: the working directory).
    let roots: &[&Word] = match p.operands {
        programs::Operands::PatternThenFiles
            if !scan
                .options
                .iter()
                .any(|f| matches!(p.effect(f), Some(Effect::Pattern | Effect::PatternFile))) =>
        {
            scan.operands.get(1..).unwrap_or(&[])
        }
        _ => &scan.operands,
    };
    // `-R` follows every link below its roots: no walk can vouch for that.
    let walked = |f: &programs::Found| {
        let follows = f.option.is("-R") || f.option.is("--dereference-recursive");
        if follows {
            // Links below the roots lead anywhere: not a tree the sandbox vouches for.
            w.tree_outside.set(true);
        }
        !follows && !w.tree_may_hold_secret(roots, true, false)
    };
    for f in &scan.options {
        let effect = p.effect(f);
        pattern_given |= matches!(effect, Some(Effect::Pattern | Effect::PatternFile));
        opens_operands |= effect == Some(Effect::OpensOperands);
        let list_secret = effect == Some(Effect::ReadsFileList)
            && f.value.as_ref().is_some_and(|(v, vw)| {
                !vw.dynamic && w.path_secret(v, v.starts_with('~')) == Some(true)
            });
        if list_secret {
            return ReadOnly::Secret(f.word);
        }
        if effect == Some(Effect::ReadsFileList) && p.operands == programs::Operands::Files {
            return ReadOnly::Flag(
                RuleId::ShellDynamic,
                format!(
                    "{} {} opens the files its value lists, named only at run time",
                    p.name, f.option
                ),
                f.word.span,
            );
        }
        if let Some(flagged) = option_effect(p, f, effect, &walked, w) {
            return flagged;
        }
    }
    use programs::Operands;
    if p.operands == Operands::SourcesThenDestination {
        return copy_move(p, &scan, w);
    }
    if p.operands == Operands::Written {
        return match w.edits_of(scan.operands.iter().copied()) {
            Some((tier, rule, why, span)) => ReadOnly::Edit(tier, rule, why, span),
            None => ReadOnly::Yes,
        };
    }
    if p.operands == Operands::InputThenOutput {
        // `uniq IN OUT` writes OUT; `uniq *.txt` or `uniq $f` may be two files.
        let second = scan.operands.get(1).copied().or_else(|| {
            scan.operands
                .iter()
                .copied()
                .find(|a| a.glob || a.dynamic || a.braces.is_some())
        });
        if let Some(out) = second {
            return ReadOnly::Flag(
                RuleId::ShellOptionEffect,
                format!(
                    "{} writes its second operand, and {} is or may be one",
                    p.name, out.text
                ),
                out.span,
            );
        }
    }
    let files: &[&Word] = match p.operands {
        _ if opens_operands => &scan.operands,
        Operands::Files | Operands::InputThenOutput => &scan.operands,
        Operands::PatternThenFiles if pattern_given => &scan.operands,
        Operands::PatternThenFiles => scan.operands.get(1..).unwrap_or(&[]),
        Operands::Names
        | Operands::Data
        | Operands::Printed
        | Operands::Dir
        | Operands::Written
        | Operands::SourcesThenDestination => &[],
    };
    files_reach(files.iter().copied(), w)
}

/// What one option of a table entry does: opens a file (a secret, or one named only at
/// run time), walks a tree, writes, runs or never ends.
fn option_effect<'w>(
    p: &programs::Program,
    f: &programs::Found<'w>,
    effect: Option<Effect>,
    walked: &dyn Fn(&programs::Found) -> bool,
    w: &Walker,
) -> Option<ReadOnly<'w>> {
    match effect {
        Some(Effect::ReadsFile | Effect::ReadsFileList | Effect::PatternFile) => {
            let Some((value, vw)) = &f.value else {
                return None;
            };
            if vw.dynamic {
                return Some(ReadOnly::Flag(
                    RuleId::ShellDynamic,
                    format!("{} opens a file named only at run time", f.option),
                    vw.span,
                ));
            }
            // A glob in the value's word is expanded by bash first (`grep -f .e?v`,
            // `grep -f .[[:lower:]]nv`: the value is `.env`), also where it is attached
            // (a file named `--file=.env` matches `--file=.e?v`).
            if vw.glob {
                let probe = Word {
                    span: vw.span,
                    text: (*value).to_string(),
                    glob: true,
                    tilde: vw.tilde && std::ptr::eq(*value, vw.text.as_str()),
                    ..Word::default()
                };
                if glob_may_name_secret(&probe, w) {
                    return Some(ReadOnly::Secret(f.word));
                }
            }
            match w.path_secret(value, value.starts_with('~')) {
                Some(false) => {}
                Some(true) => return Some(ReadOnly::Secret(f.word)),
                None => {
                    return Some(ReadOnly::Flag(
                        RuleId::ShellDynamic,
                        format!("{} opens {value} relative to a working directory known only at run time", f.option),
                        vw.span,
                    ));
                }
            }
        }
        Some(Effect::Recursive) if walked(f) => {}
        Some(Effect::Recursive) => {
            return Some(ReadOnly::Flag(
                RuleId::ShellRecursiveRead,
                format!("{} {} reads every file under a directory, secret files too if there are any; only a host with a file system can check what it reaches", p.name, f.option),
                f.word.span,
            ));
        }
        Some(Effect::Writes | Effect::Runs | Effect::Follows) => {
            let what = match effect {
                Some(Effect::Writes) => "writes a file",
                Some(Effect::Runs) => "runs another program",
                _ => "never ends by itself",
            };
            return Some(ReadOnly::Flag(
                RuleId::ShellOptionEffect,
                format!("{} {} {what}", p.name, f.option),
                f.word.span,
            ));
        }
        // `-d recurse` (any abbreviation `grep` accepts: `rec`, `recu`, …).
        Some(Effect::RecurseValue)
            if f.value
                .as_ref()
                .is_some_and(|(v, _)| v.len() >= 3 && "recurse".starts_with(*v))
                && !walked(f) =>
        {
            return Some(ReadOnly::Flag(
                RuleId::ShellRecursiveRead,
                format!("{} {} recurse reads every file under a directory, secret files too if there are any; only a host with a file system can check what it reaches", p.name, f.option),
                f.word.span,
            ));
        }
        Some(Effect::RecurseValue | Effect::Pattern | Effect::OpensOperands) | None => {}
    }
    None
}

/// `cp` and `mv` (without the options that copy trees, link or back up, which the
/// table asks on): every source must be a workspace file an edit may touch — read, and
/// for `mv` removed — and not a secret; the destination, and the destination joined
/// with each source's name (it may be a directory), get the edit verdict. A source of
/// `mv` without an extension may be a directory carrying protected files into place
/// (`mv staged/.github .`): it asks, as a run-time name or a glob does.
pub(super) fn copy_move<'w>(
    p: &programs::Program,
    scan: &programs::Scan<'w>,
    w: &Walker,
) -> ReadOnly<'w> {
    let ops = &scan.operands;
    let Some((dest, sources)) = ops.split_last() else {
        return ReadOnly::Yes; // `cp` alone: an error, nothing copied
    };
    if sources.is_empty() {
        return ReadOnly::Yes; // `cp a`: a missing destination, an error
    }
    let is_mv = p.name == "mv";
    let mut targets: Vec<Word> = vec![(*dest).clone()];
    for s in sources {
        if s.dynamic || s.glob || s.braces.is_some() {
            return ReadOnly::Flag(
                RuleId::ShellDynamic,
                format!("{} of files named only at run time: {}", p.name, s.text),
                s.span,
            );
        }
        // Read like `cat`'s operands: a secret asks.
        match operand_reach(s, w) {
            ReadOnly::Yes | ReadOnly::No => {}
            other => return other,
        }
        let name = s.text.trim_end_matches('/');
        let last = name.rsplit('/').next().unwrap_or(name);
        if is_mv && last.find('.').is_none_or(|i| i == 0) {
            return ReadOnly::Flag(
                RuleId::ShellDynamic,
                format!("mv {}: a name without an extension may be a directory, which may carry protected or secret files into place", s.text),
                s.span,
            );
        }
        let mut joined = (*dest).clone();
        joined.text = format!("{}/{last}", dest.text.trim_end_matches('/'));
        targets.push(joined);
    }
    // Every source stays inside the workspace (`mv` removes it: an edit too).
    let sources_edit = w.edits_of(sources.iter().copied());
    // (`cp` only reads them: a system file is not denied, it asks as outside.)
    if let Some((tier, rule, why, span)) = sources_edit {
        if tier != Tier::Auto {
            if is_mv {
                return ReadOnly::Edit(tier, rule, why, span);
            }
            return ReadOnly::Edit(
                Tier::Ask,
                rule,
                format!("cp copies from a file an edit may not touch ({why})"),
                span,
            );
        }
    }
    match w.edits_of(targets.iter()) {
        Some((tier, rule, why, _)) => ReadOnly::Edit(tier, rule, why, dest.span),
        None => ReadOnly::Yes,
    }
}

pub(super) const RG_LONG_TAKES: &[&str] = &[
    "regexp",
    "file",
    "glob",
    "iglob",
    "type",
    "type-not",
    "max-count",
    "context",
    "before-context",
    "after-context",
    "replace",
    "max-depth",
    "encoding",
    "pre-glob",
    "threads",
    "sort",
    "sortr",
];

/// Does `rg` open every file under a directory? It does on anything but a pipe or
/// `--files`. (`grep -r`, `diff -r` are effects in their table entries.) The span of
/// what makes it recursive.
pub(super) fn recursive_read(name: &str, args: &[&Word], w: &Walker, prog: Span) -> Option<Span> {
    match name {
        "rg" => {
            let o = Opts::parse(args, "ABCEefgjMmrTtd", RG_LONG_TAKES);
            // `--files` and `--type-list` print names only.
            if o.has_long("files").is_some() || o.has_long("type-list").is_some() {
                return None;
            }
            let pattern_given = o.has_short('e').is_some()
                || o.has_short('f').is_some()
                || o.has_long("regexp").is_some()
                || o.has_long("file").is_some();
            let paths = o.operands.len().saturating_sub(usize::from(!pattern_given));
            if paths == 0 && w.piped_in {
                return None;
            }
            // A named path may be a directory: rg searches everything under it.
            let roots = o
                .operands
                .get(usize::from(!pattern_given).min(o.operands.len())..)
                .unwrap_or_default();
            let span = roots.first().map_or(prog, |a| a.span);
            // `-L` follows links anywhere: no walk can vouch for that.
            if o.has_short('L').is_some() || o.has_long("follow").is_some() {
                w.tree_outside.set(true);
                return Some(span);
            }
            // What rg skips by default: hidden files, and what ignore files exclude. A
            // glob or a type may bring back what is ignored; `-u` lifts the rules.
            let given = |names: &[&str]| {
                o.longs.iter().any(|(n, _)| {
                    !n.is_empty() && names.iter().any(|f| f.starts_with(n) || n.starts_with(f))
                })
            };
            let widened = o.has_short('u').is_some()
                || o.has_short('g').is_some()
                || o.has_short('t').is_some()
                || given(&["unrestricted", "glob", "iglob", "type", "no-ignore"]);
            let hidden = widened || o.has_short('.').is_some() || given(&["hidden"]);
            if w.tree_may_hold_secret(roots, hidden, !widened) {
                return Some(span);
            }
            None
        }
        _ => None,
    }
}
