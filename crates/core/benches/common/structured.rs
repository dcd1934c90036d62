//! Shell commands built from the pieces that nest and branch in the parser, chosen by
//! a fuzzer's bytes: shared by the `shell_structured` fuzz target and the test that
//! replays its regression inputs (`crates/core/tests/fuzz_regressions.rs`), included by
//! path so that both build exactly the same command from the same bytes.

/// Openers and what closes them.
const OPEN: &[(&str, &str)] = &[
    ("$(", ")"),
    ("`", "`"),
    ("<(", ")"),
    (">(", ")"),
    ("(", ")"),
    ("( ", " )"),
    ("{ ", "; }"),
    ("((", "))"),
    ("$((", "))"),
    ("$[", "]"),
    ("${", "}"),
    ("${x:-", "}"),
    ("${!", "}"),
    ("\"", "\""),
    ("'", "'"),
    ("$'", "'"),
    ("\"$(", ")\""),
    ("[[ ", " ]]"),
    ("if ", "; fi"),
    ("then ", "; fi"),
    ("while ", "; done"),
    ("until ", "; done"),
    ("for i in a; do ", "; done"),
    ("for ((;;)); do ", "; done"),
    ("do ", "; done"),
    ("case x in x) ", ";; esac"),
    ("case x in (x) ", ";; esac"),
    ("select i in a; do ", "; done"),
    ("f() { ", "; }"),
    ("function f { ", "; }"),
    ("coproc { ", "; }"),
    ("time ( ", " )"),
    ("bash -c '", "'"),
    ("sh -c \"", "\""),
    ("eval \"", "\""),
    ("env -S '", "'"),
    ("xargs sh -c '", "'"),
    ("find . -exec sh -c '", "' \\;"),
    ("cat <<E\n", "\nE\n"),
    ("cat <<'E'\n", "\nE\n"),
    ("cat <<-E\n\t", "\n\tE\n"),
    ("bash <<E\n", "\nE\n"),
    ("$(cat <<E\n", "\nE\n)"),
];

/// Words, operators and keywords between them.
const ATOM: &[&str] = &[
    "ls",
    " ",
    "  ",
    "\t",
    "rm -rf /",
    "rm -rf ~",
    "sudo ",
    ";",
    "|",
    "|&",
    "&&",
    "||",
    "&",
    "\n",
    "\\\n",
    "esac",
    "fi",
    "done",
    "}",
    "]]",
    "in",
    "do",
    "then",
    "else",
    "elif",
    "!",
    "(",
    ")",
    "{",
    "esac(",
    "x",
    "$HOME",
    "$x",
    "$1",
    "$@",
    "${#x}",
    "*",
    "?",
    "[a]",
    "{a,b}",
    "{1..3}",
    "~",
    "~root",
    "<<<x",
    ">f",
    ">>f",
    "2>&1",
    "<&-",
    ">(x)",
    "<(x)",
    "\\",
    "\\'",
    "\\\"",
    "=",
    "a=1 ",
    "a=(1 2) ",
    "a[$(x)]=1 ",
    "#c\n",
    "--",
    "-rf",
    "-exec",
    "{}",
    "\\;",
    "\"",
    "'",
    "`",
    "$",
    "$(",
    "$((",
    "${",
    "<<",
    "<<-",
    "E\n",
    "curl x",
    "| sh",
    "eval ",
    "command ",
    "exec ",
    "nohup ",
    "timeout 1 ",
    "env ",
    "xargs ",
    "find / -delete",
    "&>",
];

/// The command the fuzzer's bytes describe: each byte picks an action (open, close, or
/// an atom), the next one which of them.
pub fn build(data: &[u8]) -> String {
    let mut s = String::new();
    let mut open: Vec<&str> = Vec::new();
    let mut bytes = data.iter().copied();
    while let Some(op) = bytes.next() {
        let pick = usize::from(bytes.next().unwrap_or(0));
        match op % 4 {
            0 => {
                let (o, c) = OPEN[pick % OPEN.len()];
                // A run of the same opener: nestings hundreds deep from a few bytes.
                let times = if op & 0x80 != 0 {
                    1 + usize::from(op >> 2)
                } else {
                    1
                };
                for _ in 0..times {
                    s.push_str(o);
                    open.push(c);
                }
            }
            1 => {
                if let Some(c) = open.pop() {
                    s.push_str(c);
                }
            }
            2 if op & 0x80 != 0 => {
                // Close everything still open.
                while let Some(c) = open.pop() {
                    s.push_str(c);
                }
            }
            _ => s.push_str(ATOM[pick % ATOM.len()]),
        }
        if s.len() > 64 * 1024 {
            break;
        }
    }
    if data.first().is_some_and(|b| b & 1 == 1) {
        while let Some(c) = open.pop() {
            s.push_str(c);
        }
    }
    s
}
