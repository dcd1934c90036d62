//! Secret file names and secret environment variables.

use super::names::basename;
use super::Walker;
use crate::paths::{self, SecretName, SECRET_NAMES};
use crate::shell::{SimpleCommand, Word};
use std::borrow::Cow;

/// A glob segment as a lower-case (ASCII, as `is_secret` compares) pattern of `*` and `?`: a bracket expression counts
/// as one `?`, parsed as bash's "Pattern Matching" reads one. After `[`, an optional
/// `!` or `^`, then a `]` that comes first is a member, not the end (`.[]e]nv` matches
/// `.env`); `[:class:]`, `[=c=]` and `[.sym.]` are members whose `]` does not end the
/// expression (`.[[:lower:]]nv` matches `.env`); a `[` with no `]` to end it is itself.
pub(super) fn secret_pattern(seg: &str) -> String {
    let chars: Vec<char> = paths::case_aliases(seg).chars().collect();
    let mut pattern = String::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if c == '[' {
            if let Some(end) = bracket_end(&chars, i) {
                pattern.push('?');
                i = end + 1;
                continue;
            }
        }
        pattern.push(c.to_ascii_lowercase());
        i += 1;
    }
    pattern
}

/// Where the bracket expression opened at `chars[open]` (a `[`) ends: the index of its
/// closing `]`, or `None` when nothing closes it (then bash matches `[` itself).
pub(super) fn bracket_end(chars: &[char], open: usize) -> Option<usize> {
    let mut j = open + 1;
    if matches!(chars.get(j), Some('!' | '^')) {
        j += 1;
    }
    if chars.get(j) == Some(&']') {
        j += 1;
    }
    while let Some(&c) = chars.get(j) {
        match c {
            ']' => return Some(j),
            '[' if matches!(chars.get(j + 1), Some(':' | '=' | '.')) => {
                // `[:alpha:]`: up to the same delimiter followed by `]`; unclosed, the
                // `[` is a member like any other.
                let delim = chars.get(j + 1).copied().unwrap_or(':');
                let close = (j + 2..chars.len().saturating_sub(1))
                    .find(|&k| chars.get(k) == Some(&delim) && chars.get(k + 1) == Some(&']'));
                j = close.map_or(j + 1, |k| k + 2);
            }
            _ => j += 1,
        }
    }
    None
}

/// Extensions of source and text files: a glob ending in one (`*.rs`, `test_*.py`)
/// names no `id_rsa…` or `.env…` file that holds a secret, though `id_rsa.rs` starts
/// like one.
pub(super) const CODE_EXTS: &[&str] = &[
    "rs", "py", "pyi", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "java", "kt", "c", "h", "cc",
    "cpp", "hpp", "cs", "rb", "php", "swift", "scala", "md", "rst", "txt", "html", "css", "scss",
    "sh", "ipynb", "lock", "log", "csv",
];

/// The names glob `pattern` (from [`secret_pattern`]) is tried as for one secret name:
/// a witness of each of the name's languages the pattern can match (`Prefix` and
/// `Suffix` languages are closed under adding text, so any member is as secret as the
/// witness); none when it can match no name of them.
fn witnesses(pattern: &str, name: &SecretName) -> [Option<Cow<'static, str>>; 2] {
    let exact = |n: &'static str| crate::glob::match_str(pattern, n).then_some(Cow::Borrowed(n));
    let code = pattern
        .rsplit_once('.')
        .is_some_and(|(_, ext)| CODE_EXTS.contains(&ext));
    match *name {
        SecretName::Exact(n) | SecretName::Dir(n) => [exact(n), None],
        SecretName::Under { parent, name } | SecretName::DirUnder { parent, name } => {
            [exact(parent), exact(name)]
        }
        SecretName::PrefixUnder { parent, prefix } => [
            exact(parent),
            (!code && crate::glob::may_start_with(pattern, prefix))
                .then_some(Cow::Borrowed(prefix)),
        ],
        SecretName::Prefix(n) => {
            let may = !code && crate::glob::may_start_with(pattern, n);
            [may.then_some(Cow::Borrowed(n)), None]
        }
        SecretName::Suffix(n) => {
            let may = crate::glob::may_end_with(pattern, n);
            [may.then(|| Cow::Owned(format!("x{n}"))), None]
        }
    }
}

/// Could some name matched by `pattern` (from [`secret_pattern`]) be secret?
pub(super) fn pattern_may_be_secret_name(pattern: &str) -> bool {
    SECRET_NAMES
        .iter()
        .any(|name| witnesses(pattern, name).iter().any(Option::is_some))
}

/// Could glob word `a` (`*`, `./*`, `~/.aws/cred*`, `.e?v`, `[.]env`, `~/.*/*`) name a
/// secret file? Each segment with a glob character is tried against every language of
/// [`SECRET_NAMES`] (case-insensitively, as `is_secret` compares; a bracket counts as
/// one character); where it can match one, the witness stands in that segment and the
/// path is judged. As bash matches, a segment beginning with `*` or `?` does not match
/// a name beginning with `.`.
pub(super) fn glob_may_name_secret(a: &Word, w: &Walker) -> bool {
    if (w.env.facts.is_some() || w.env.needs.is_some()) && w.glob_may_reach_secret_link(a) {
        return true;
    }
    let text = a.text.as_str();
    let segs: Vec<&str> = text.split('/').collect();
    segs.iter().enumerate().any(|(i, seg)| {
        if !seg.contains(['*', '?', '[']) {
            return false;
        }
        let pattern = secret_pattern(seg);
        let hides_dots = seg.starts_with(['*', '?']);
        SECRET_NAMES.iter().any(|name| {
            witnesses(&pattern, name)
                .into_iter()
                .flatten()
                .any(|witness| {
                    if hides_dots && witness.starts_with('.') {
                        return false;
                    }
                    let candidate = segs
                        .iter()
                        .enumerate()
                        .map(|(k, s)| if k == i { &*witness } else { *s })
                        .collect::<Vec<&str>>()
                        .join("/");
                    w.path_secret(&candidate, a.tilde) != Some(false)
                })
        })
    })
}

/// How a secret variable name is recognised (the name upper-cased).
#[derive(Debug, Clone, Copy)]
pub enum VarName {
    Prefix(&'static str),
    Suffix(&'static str),
    Contains(&'static str),
}

/// The names of environment variables that hold secrets: an agent host's environment
/// holds real keys, so a command that may print one asks. One table, with a name each
/// pattern catches (checked by a test); `HOME`, `PATH`, `USER`, `PWD`, `SHELL`, `LANG`
/// match none.
pub const SECRET_VARS: &[(VarName, &str)] = &[
    (VarName::Suffix("_KEY"), "STRIPE_SECRET_KEY"),
    (VarName::Suffix("_KEYS"), "SIGNING_KEYS"),
    (VarName::Contains("API_KEY"), "OPENAI_API_KEY"),
    (VarName::Contains("APIKEY"), "SENDGRID_APIKEY"),
    (VarName::Contains("PRIVATE_KEY"), "PRIVATE_KEY_PEM"),
    (VarName::Contains("TOKEN"), "GITHUB_TOKEN"),
    (VarName::Contains("SECRET"), "AWS_SECRET_ACCESS_KEY"),
    (VarName::Contains("PASSWORD"), "PGPASSWORD"),
    (VarName::Contains("PASSWD"), "SMTP_PASSWD"),
    (VarName::Suffix("_PASS"), "SMTP_PASS"),
    (VarName::Contains("PASSPHRASE"), "GPG_PASSPHRASE"),
    (VarName::Suffix("_PWD"), "MYSQL_PWD"),
    (
        VarName::Contains("CREDENTIAL"),
        "GOOGLE_APPLICATION_CREDENTIALS",
    ),
    (VarName::Suffix("_AUTH"), "NPM_AUTH"),
    (VarName::Suffix("_PAT"), "AZURE_DEVOPS_PAT"),
    (VarName::Suffix("_DSN"), "SENTRY_DSN"),
    (VarName::Contains("WEBHOOK"), "SLACK_WEBHOOK_URL"),
    (VarName::Suffix("DATABASE_URL"), "DATABASE_URL"),
    (VarName::Suffix("_DB_URL"), "ANALYTICS_DB_URL"),
    (VarName::Contains("REDIS_URL"), "REDIS_URL"),
    (VarName::Contains("MONGO"), "MONGODB_URI"),
    (
        VarName::Contains("CONNECTION_STRING"),
        "AZURE_STORAGE_CONNECTION_STRING",
    ),
    (VarName::Contains("COOKIE"), "SESSION_COOKIE"),
    (VarName::Prefix("AWS_"), "AWS_ACCESS_KEY_ID"),
];

/// Does environment variable `name` look like it holds a secret (the `SECRET_VARS` list)?
pub fn secret_var(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_VARS.iter().any(|(p, _)| p.matches(&upper))
}

impl VarName {
    /// Does upper-cased name `n` match this pattern?
    pub fn matches(self, n: &str) -> bool {
        match self {
            VarName::Prefix(x) => n.starts_with(x),
            VarName::Suffix(x) => n.ends_with(x),
            VarName::Contains(x) => crate::needle::contains(n, x),
        }
    }
}

/// The first variable with a secret-looking name ([`secret_var`]) that text `t` expands,
/// as `$NAME`, `${NAME}`, `${NAME…}`, `${#NAME}` or `${!NAME}`: `t` is a word's text with
/// its expansions as written (the parser keeps them so), or an unquoted here-document.
/// Text in single quotes inside the same word is read too (the fail-closed side).
#[cfg(test)]
pub(super) fn secret_reference(t: &str) -> Option<&str> {
    secret_reference_except(t, |_| false)
}

/// [`secret_reference`], passing over the names `own` says the command itself set (a
/// `for` variable, `x=VALUE`): their value is the command's, not the environment's.
pub(super) fn secret_reference_except(t: &str, own: impl Fn(&str) -> bool) -> Option<&str> {
    let b = t.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b.get(i) {
            Some(b'\\') => i += 2,
            Some(b'$') => {
                let mut j = i + 1;
                if b.get(j) == Some(&b'{') {
                    j += 1;
                    if matches!(b.get(j), Some(b'#' | b'!')) {
                        j += 1;
                    }
                }
                let start = j;
                while b
                    .get(j)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    j += 1;
                }
                let name = t.get(start..j).unwrap_or("");
                if !name.is_empty()
                    && !name.starts_with(|c: char| c.is_ascii_digit())
                    && secret_var(name)
                    && !own(name)
                {
                    return Some(name);
                }
                i = j.max(i + 1);
            }
            _ => i += 1,
        }
    }
    None
}

/// A jq program that reads the environment: the `env` builtin or `$ENV` (`jq -n env`,
/// `jq '$ENV.AWS_SECRET_ACCESS_KEY'`), or a module it imports, which could.
pub(super) fn jq_reads_env(program: &str) -> bool {
    let b = program.as_bytes();
    let word = |at: usize, w: &str| {
        let end = at + w.len();
        program.get(at..end) == Some(w)
            && !b
                .get(end)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
            && !at
                .checked_sub(1)
                .and_then(|p| b.get(p))
                .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$'))
    };
    (0..b.len()).any(|i| {
        word(i, "env")
            || word(i, "import")
            || word(i, "include")
            || program.get(i..i + 4) == Some("$ENV")
    })
}

/// Environment variables that change what programs run or read (a loop variable of
/// that name is exported and reaches them): `PATH`, `LD_*`, `GIT_*`, `BASH_ENV`, …
pub(super) fn sensitive_env(name: &str) -> bool {
    matches!(
        name,
        "PATH"
            | "HOME"
            | "IFS"
            | "ENV"
            | "BASH_ENV"
            | "CDPATH"
            | "SHELLOPTS"
            | "BASHOPTS"
            | "PS4"
            | "PROMPT_COMMAND"
            | "EDITOR"
            | "VISUAL"
            | "PAGER"
            | "GIT_PAGER"
            | "TMPDIR"
            | "XDG_CONFIG_HOME"
            // bash(1): a non-null GLOBIGNORE turns `dotglob` on, so `?env` and `*`
            // reach hidden files (`.env`) that a glob skips otherwise.
            | "GLOBIGNORE"
    ) || [
        "LD_",
        "DYLD_",
        "GIT_",
        "PYTHON",
        "NODE_",
        "PERL",
        "RUBY",
        "JAVA_",
        "npm_config_",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

/// May `find …` (a stage printing paths) list a secret file? Yes unless it stays at
/// depth 1 (`-maxdepth 0|1`), starts at directories that are not secret, and a
/// top-level `-name`/`-iname` test has a pattern no secret name matches (find's
/// `-name` matches a leading `.` with `*`, unlike bash).
pub(super) fn find_may_list_secret(sc: &SimpleCommand, w: &Walker) -> bool {
    let words: Vec<&str> = sc.words.iter().map(|x| x.text.as_str()).collect();
    match basename(words.first().copied().unwrap_or("")) {
        "find" => {}
        // `pwd` prints a directory; `xargs grep -l` the names it was given (the caller
        // adds what its input may name).
        "pwd" | "xargs" => return false,
        _ => return true,
    }
    let shallow = words
        .windows(2)
        .any(|p| matches!(p, ["-maxdepth", "0" | "1"]));
    if !shallow
        || words
            .iter()
            .any(|t| matches!(*t, "-o" | "-or" | "!" | "-not" | "(" | ","))
    {
        return true;
    }
    let starts_secret = sc
        .words
        .get(1..)
        .unwrap_or_default()
        .iter()
        .take_while(|x| !x.text.starts_with('-'))
        .any(|x| w.resolve_word(x).is_none_or(|p| paths::is_secret(&p)));
    if starts_secret {
        return true;
    }
    let names: Vec<String> = words
        .windows(2)
        .filter_map(|p| match p {
            ["-name" | "-iname", pattern] => Some(secret_pattern(pattern)),
            _ => None,
        })
        .collect();
    !names.iter().any(|pat| !pattern_may_be_secret_name(pat))
}

#[cfg(test)]
mod secret_var_tests {
    use super::*;

    /// A glob segment lower-cases as `is_secret` compares (ASCII), a bracket is one `?`.
    #[test]
    fn patterns_lower_case_ascii_and_count_a_bracket_as_one_character() {
        assert_eq!(secret_pattern("ID_[R]SA*"), "id_?sa*");
        assert_eq!(secret_pattern(".ENV"), ".env");
        assert_eq!(secret_pattern("ÉTÉ.KEY"), "ÉtÉ.key");
        assert!(pattern_may_be_secret_name(&secret_pattern("*.PEM")));
        assert!(pattern_may_be_secret_name(&secret_pattern("Credentials")));
    }

    /// Each pattern of the table catches its example (and the example is no accident of
    /// another pattern: it matches this one), and the ordinary variables match none.
    #[test]
    fn every_pattern_catches_its_example_and_ordinary_names_stay_plain() {
        for (pattern, example) in SECRET_VARS {
            let n = example.to_ascii_uppercase();
            let hit = pattern.matches(&n);
            assert!(hit, "{pattern:?} does not catch its example {example}");
            assert!(secret_var(example), "{example}");
        }
        for plain in [
            "HOME",
            "PATH",
            "USER",
            "PWD",
            "OLDPWD",
            "SHELL",
            "LANG",
            "TERM",
            "EDITOR",
            "CI",
            "HOSTNAME",
            "LC_ALL",
            "TZ",
            "SSH_AUTH_SOCK",
            "x",
            "f",
            "i",
        ] {
            assert!(!secret_var(plain), "{plain} is not a secret");
        }
        assert!(secret_var("github_token"), "names compare without case");
    }

    #[test]
    fn references_are_found_in_every_form_and_not_in_plain_text() {
        for (text, want) in [
            ("$AWS_SECRET_ACCESS_KEY", Some("AWS_SECRET_ACCESS_KEY")),
            ("x${GITHUB_TOKEN}y", Some("GITHUB_TOKEN")),
            ("${#GITHUB_TOKEN}", Some("GITHUB_TOKEN")),
            ("${OPENAI_API_KEY:-none}", Some("OPENAI_API_KEY")),
            ("$HOME/$PATH", None),
            ("\\$GITHUB_TOKEN", None),
            ("$1$GITHUB_TOKEN", Some("GITHUB_TOKEN")),
            ("GITHUB_TOKEN", None),
        ] {
            assert_eq!(secret_reference(text), want, "{text}");
        }
        assert!(jq_reads_env("env"));
        assert!(jq_reads_env("$ENV.HOME"));
        assert!(jq_reads_env("{a: env.X}"));
        assert!(jq_reads_env("import \"m\" as m; m::f"));
        assert!(!jq_reads_env(".env"));
        assert!(!jq_reads_env(".environment | length"));
        assert!(!jq_reads_env("$envx"));
    }
}
