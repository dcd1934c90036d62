//! Hostile shell commands for the adversarial benchmarks: the cost of classifying any
//! input up to 64 KiB must be bounded and linear. Shared by the criterion bench
//! (`crates/core/benches/classify.rs`) and `toolgate bench-adversarial` (included by
//! path, so both time exactly the same inputs).

/// The classifier's input limit: longer commands are `ask` (`too long`) unscanned.
pub const LIMIT: usize = 64 * 1024;

/// One adversarial input: a short name for tables and the shell command.
pub struct Input {
    /// The family's name.
    pub name: &'static str,
    /// The command, `size` bytes long.
    pub command: String,
}

/// Every family at exactly `size` bytes (`size` ≥ 64).
pub fn inputs(size: usize) -> Vec<Input> {
    let mut v = Vec::new();
    let mut add = |name: &'static str, command: String| v.push(Input { name, command });
    // Unbalanced openers and quotes: the scanner must not restart or backtrack.
    add("$(", fill("", "$(", "", size));
    add("'", fill("", "'", "", size));
    add("\"", fill("", "\"", "", size));
    add("\\", fill("", "\\", "", size));
    add("(", fill("", "(", "", size));
    add("${", fill("", "${", "", size));
    add("`", fill("", "`", "", size));
    add("$((", fill("", "$((", "", size));
    add("{ ", fill("", "{ ", "", size));
    add("$'\\x41", fill("echo $'", "\\x41", "'", size));
    add(
        "\\⏎ (continuations)",
        fill("ec", "\\\n", "ho \"$\\\n(ls)\"", size),
    );
    // Many small commands and operators.
    add("a;", fill("", "a;", "", size));
    add("|", fill("", "|", "", size));
    add("ls && ", fill("", "ls && ", "ls", size));
    add("a (words)", fill("echo", " a", "", size));
    add("x=1 (assignments)", fill("", "x=1 ", "ls", size));
    add("-rf (flags)", fill("rm", " -rf", " build", size));
    // Wrappers and nested shells: each layer must not re-scan the rest.
    add("eval ", fill("", "eval ", "ls", size));
    add("time ", fill("", "time ", "ls", size));
    add("xargs ", fill("", "xargs ", "ls", size));
    add("$($(…)) nested", nested("echo ", "$(echo ", "x", ")", size));
    add(
        "\"$(\"$(…)\")\" nested",
        nested("echo ", "\"$(", "x", ")\"", size),
    );
    add(
        "if…fi nested",
        nested("", "if true; then ", "ls", "; fi", size),
    );
    // Here-docs and here-strings.
    add("here-doc body", heredoc(size));
    add("<<A (operators)", fill("cat", " <<A", "", size));
    add("<<< (here-strings)", fill("cat", " <<< x", "", size));
    // Nesting of every bracket kind and keyword, closed and unclosed (the shape of the
    // fuzzing find: `esac` and `(` inside nested `>(` / `(` hung the parser at the
    // nesting limit).
    add(
        "fuzz: x>(c;(;esac(8s>(c>(;",
        fill("", "x>(c;(;esac(8s>(c>(;", "", size),
    );
    add(">( nested", nested("cat ", ">(", "x", ")", size));
    add("<( nested", nested("cat ", "<(", "x", ")", size));
    add("( nested", nested("", "( ", "ls", " )", size));
    add("{ } nested", nested("", "{ ", "ls;", " }", size));
    add("${ } nested", nested("echo ", "${x:-", "y", "}", size));
    add("$(( )) nested", nested("echo ", "$(( 1+", "1", " ))", size));
    add(
        "case…esac nested",
        nested("", "case x in x) ", "ls", " ;; esac", size),
    );
    add(
        "while…done nested",
        nested("", "while true; do ", "ls", "; done", size),
    );
    add("[[ $( nested", nested("", "[[ $(", "ls", ") ]]", size));
    add("esac( at depth", fill("", "(esac(", "", size));
    add(">( unclosed", fill("x", ">(", "", size));
    add("case unclosed", fill("", "case x in x) ", "", size));
    add(
        "<<E in $( nested",
        nested("", "$(cat <<E\n", "x", "\nE\n)", size),
    );
    add("eval \" nested", nested("", "eval \"", "ls", "\"", size));
    add("` nested (escaped)", backticks(size));
    add("(( )) nested", nested("", "(( 1+$(", "1", ") ))", size));
    add(
        "' in \" nested",
        nested("echo ", "\"$(echo '", "x", "')\"", size),
    );
    add("generated mix", generated(size, 0x5eed));
    // A value set in the command is substituted where `$x` stands (#22): a long value
    // referenced many times, and a nested script run from a value many times.
    add("$x (long value, referenced)", const_refs(size));
    add(
        "sh -c \"$x\" (value run)",
        fill("x='ls -l'; ", "sh -c \"$x\"; ", "", size),
    );
    for (kind, &(_, bench_name, _, _)) in NESTINGS.iter().enumerate() {
        add(bench_name, nesting_fit(kind, size));
    }
    v
}

/// Every opener of a nesting, with what closes it: each bracket kind and keyword
/// (name, benchmark name, opener, closer).
pub const NESTINGS: &[(&str, &str, &str, &str)] = &[
    ("$(", "nest $(", "$(", ")"),
    ("`", "nest `", "echo `", "`"),
    ("<(", "nest <(", "cat <(", ")"),
    (">(", "nest >(", "tee >(", ")"),
    ("(", "nest (", "( ", " )"),
    ("{", "nest {", "{ ", "; }"),
    ("((", "nest ((", "(( $(", ") ))"),
    ("$((", "nest $((", "$(( $(", ") ))"),
    ("${", "nest ${", "${x:-$(", ")}"),
    ("case", "nest case", "case x in x) ", ";; esac"),
    ("if", "nest if", "if true; then ", "; fi"),
    ("while", "nest while", "while x; do ", "; done"),
    ("<<E", "nest <<E", "$(cat <<E\n", "\nE\n)"),
    ("\"$(", "nest \"$(", "\"$(", ")\""),
    ("bash -c", "nest bash -c \"", "bash -c \"", "\""),
    ("eval", "nest eval \"", "eval \"", "\""),
    // Found by the structured fuzzer: each level was visited twice (2^depth).
    ("f() {", "nest f() {", "f() { ", "; }"),
];

/// True for the kinds whose inner levels are quoted text that bash reads again
/// (backticks, `bash -c "…"`, `eval "…"`): each level escapes the one inside, so the
/// text doubles per level and 64 KiB holds about 15 of them.
fn escaped(name: &str) -> bool {
    matches!(name, "`" | "bash -c" | "eval")
}

/// The deepest closed nesting of `NESTINGS[kind]` that fits in `size` bytes, padded.
pub fn nesting_fit(kind: usize, size: usize) -> String {
    let (name, _, _, _) = NESTINGS[kind % NESTINGS.len()];
    let mut levels = 0;
    if escaped(name) {
        while levels < 64 && nesting(kind, levels + 1, true).len() <= size {
            levels += 1;
        }
    } else {
        let mut len = 2;
        loop {
            let (o, c) = level(kind, levels);
            if len + o.len() + c.len() > size {
                break;
            }
            len += o.len() + c.len();
            levels += 1;
        }
    }
    pad(nesting(kind, levels, true), size)
}

/// `levels` nestings of `NESTINGS[kind]` around `ls`, closed (`closed`) or with the
/// outermost closer missing, stopping before [`LIMIT`] bytes. Quoted kinds escape each
/// inner level as bash needs it (`` echo `echo \`ls\`` ``); each here-document level has
/// its own delimiter.
pub fn nesting(kind: usize, levels: usize, closed: bool) -> String {
    let (name, _, open, close) = NESTINGS[kind % NESTINGS.len()];
    if escaped(name) {
        let mut s = String::from("ls");
        for _ in 0..levels {
            let mut next = String::from(open);
            for c in s.chars() {
                if matches!(c, '\\' | '`' | '"' | '$') {
                    next.push('\\');
                }
                next.push(c);
            }
            next.push_str(close);
            if next.len() > LIMIT {
                break;
            }
            s = next;
        }
        if !closed && levels > 0 {
            s.truncate(s.len() - close.len());
        }
        return s;
    }
    let mut opens = Vec::new();
    let mut closes = Vec::new();
    let mut len = 2;
    for l in 0..levels {
        let (o, c) = level(kind, l);
        len += o.len() + c.len();
        if len > LIMIT {
            break;
        }
        opens.push(o);
        closes.push(c);
    }
    let mut s: String = opens.iter().rev().map(String::as_str).collect();
    s.push_str("ls");
    if closed {
        s.extend(closes.iter().map(String::as_str));
    }
    s
}

/// The opener and closer of level `l` (0 is the innermost) of an unescaped kind.
fn level(kind: usize, l: usize) -> (String, String) {
    let (name, _, open, close) = NESTINGS[kind % NESTINGS.len()];
    match name {
        "<<E" => (format!("$(cat <<E{l}\n"), format!("\nE{l}\n)")),
        _ => (open.to_string(), close.to_string()),
    }
}

/// True when `nesting(kind, levels, true)` past [`MAX_DEPTH`]-many levels is valid bash
/// that the parser must end as too deep (the kinds that nest in its grammar).
pub fn nests_in_parser(kind: usize) -> bool {
    let (name, _, _, _) = NESTINGS[kind % NESTINGS.len()];
    !escaped(name) && !matches!(name, "if" | "while")
}

/// Structured random shell: every bracket kind and keyword, opened and closed at random,
/// with words, operators, quotes, here-docs and substitutions between them, exactly
/// `size` bytes; the same `seed` gives the same text.
pub fn generated(size: usize, seed: u64) -> String {
    const OPEN: &[(&str, &str)] = &[
        ("(", ")"),
        ("$(", ")"),
        ("<(", ")"),
        (">(", ")"),
        ("{ ", "; }"),
        ("${x:-", "}"),
        ("$((", "))"),
        ("`", "`"),
        ("\"", "\""),
        ("'", "'"),
        ("[[ ", " ]]"),
        ("if true; then ", "; fi"),
        ("while x; do ", "; done"),
        ("for i in a; do ", "; done"),
        ("case x in x) ", ";; esac"),
        ("bash -c '", "'"),
        ("eval \"", "\""),
        ("cat <<E\n", "\nE\n"),
        ("f() { ", "; }"),
    ];
    const ATOM: &[&str] = &[
        "ls", " ", "rm -rf x", ";", "|", "&&", "||", "&", "\n", "esac", "(", ")", "esac(", "x",
        "$HOME", "*", "{a,b}", "<<<x", ">f", "2>&1", "sudo", "\\", "=", "a=1 ", "#c\n", "done",
        "fi", "}", "]]", "in", "do",
    ];
    let mut rng = seed | 1;
    let mut next = move |n: usize| {
        // xorshift64*: deterministic, no dependency.
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        (rng.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
    };
    let mut s = String::with_capacity(size + 16);
    let mut open: Vec<&str> = Vec::new();
    while s.len() < size {
        match next(4) {
            0 => {
                let (o, c) = OPEN[next(OPEN.len())];
                s.push_str(o);
                open.push(c);
            }
            1 => match open.pop() {
                Some(c) => s.push_str(c),
                None => s.push_str(ATOM[next(ATOM.len())]),
            },
            _ => s.push_str(ATOM[next(ATOM.len())]),
        }
    }
    while s.len() > size {
        s.pop();
    }
    pad(s, size)
}

/// A command one byte over [`LIMIT`]: must be refused (`ask`, too long) unscanned.
pub fn over_limit() -> Input {
    Input {
        name: "64 KiB + 1 (over the limit)",
        command: fill("echo ", "$(", "", LIMIT + 1),
    }
}

/// `head` + `unit` repeated + `tail`, cut or padded with spaces to exactly `size` bytes.
fn fill(head: &str, unit: &str, tail: &str, size: usize) -> String {
    let room = size.saturating_sub(head.len() + tail.len());
    let mut s = String::with_capacity(size);
    s.push_str(head);
    s.push_str(&unit.repeat(room / unit.len()));
    s.push_str(tail);
    pad(s, size)
}

/// `x="a a a …"; cat $x $x …`: a quarter of the input is the value, the rest refers
/// to it (each unquoted reference splits into many words).
fn const_refs(size: usize) -> String {
    let head = format!("x=\"{}\"; cat", "a ".repeat(size / 8));
    fill(&head, " $x", "", size)
}

/// `head` + `open`×k + `core` + `close`×k, as deep as fits in `size` bytes.
fn nested(head: &str, open: &str, core: &str, close: &str, size: usize) -> String {
    let k = size.saturating_sub(head.len() + core.len()) / (open.len() + close.len());
    let mut s = String::with_capacity(size);
    s.push_str(head);
    s.push_str(&open.repeat(k));
    s.push_str(core);
    s.push_str(&close.repeat(k));
    pad(s, size)
}

/// Backticks nested as deep as fits, each level escaped as bash needs it (`` \` ``).
fn backticks(size: usize) -> String {
    let mut s = String::from("x");
    for level in 0.. {
        let esc = "\\".repeat((1usize << level.min(12)) - 1);
        let next = format!("echo {esc}`{s}{esc}`");
        if next.len() > size {
            break;
        }
        s = next;
    }
    pad(s, size)
}

/// A here-doc fed to bash whose body is `size` bytes of short commands.
fn heredoc(size: usize) -> String {
    let head = "bash <<'EOF'\n";
    let tail = "EOF\n";
    let line = "echo hi\n";
    let room = size.saturating_sub(head.len() + tail.len());
    let mut s = format!("{head}{}", line.repeat(room / line.len()));
    // The remainder (< one line) as a comment line, so the total is exactly `size`.
    let rest = room % line.len();
    if rest > 0 {
        s.push_str(&"#".repeat(rest - 1));
        s.push('\n');
    }
    s.push_str(tail);
    s
}

fn pad(mut s: String, size: usize) -> String {
    while s.len() < size {
        s.push(' ');
    }
    s
}

/// Hostile policy files of about `size` bytes (at most
/// [`MAX_POLICY_BYTES`](crate::toml_shape::MAX_POLICY_BYTES)): many keys, many tables,
/// many dotted keys into one table, one long rule list. `toolgate bench-adversarial`
/// times reading each at two sizes: linear when the ratio is about their sizes' ratio.
pub fn policy_files(size: usize) -> Vec<(&'static str, String)> {
    let upto = |mut s: String| {
        if s.len() > size {
            let cut = s.get(..size).and_then(|t| t.rfind('\n')).unwrap_or(0);
            s.truncate(cut + 1);
        }
        s
    };
    vec![
        (
            "policy: many keys",
            upto((0..size / 5).map(|i| format!("k{i}=1\n")).collect()),
        ),
        (
            "policy: many tables",
            upto((0..size / 5).map(|i| format!("[t{i}]\n")).collect()),
        ),
        (
            "policy: dotted keys",
            upto((0..size / 5).map(|i| format!("a.k{i}=\"\"\n")).collect()),
        ),
        (
            "policy: one long rule list",
            // One line: as many rules as fit in `size`.
            format!(
                "[rules]\nallow = [{}]\n",
                (0..size / 20)
                    .map(|i| format!("\"Bash(c{i} *)\","))
                    .collect::<String>()
            ),
        ),
    ]
}
