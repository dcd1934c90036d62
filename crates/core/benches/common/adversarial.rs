//! Hostile shell commands for the adversarial benchmarks: the cost of classifying any
//! input up to 64 KiB must be bounded and linear. Shared by the criterion bench
//! (`crates/core/benches/classify.rs`) and `toolgate bench-adversarial` (included by
//! path, so both time exactly the same inputs).

/// The classifier's input limit: longer commands are `ask` (`too long`) unscanned.
pub const LIMIT: usize = 64 * 1024;

/// One adversarial input: a short name for tables and the shell command.
pub struct Input {
    pub name: &'static str,
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
    v
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
