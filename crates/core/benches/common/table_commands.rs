//! Commands built from the program tables by the fuzzer's bytes (the `table_commands`
//! target): a program of the tables (`builtin::programs::spellings::table_programs`),
//! behind a wrapper or not, then options of its entry, each with a value from
//! `VALUES` attached, in the next word, or missing, then operands, cut after any word.
//! Shell structure is the other targets' business; this one reaches the code that
//! reads a program's own words (`find -D`, `git blame -S`, `env -S`).

use std::sync::OnceLock;
use toolgate_core::builtin::programs::spellings::{table_programs, TableProgram, Takes, VALUES};

fn programs() -> &'static [TableProgram] {
    static P: OnceLock<Vec<TableProgram>> = OnceLock::new();
    P.get_or_init(table_programs)
}

const WRAPPERS: &[&str] = &[
    "",
    "env ",
    "sudo ",
    "xargs ",
    "timeout 5 ",
    "nice -n 1 ",
    "command ",
];
const OPERANDS: &[&str] = &[
    "file.txt",
    ".env",
    "-",
    "--",
    "$x",
    "*",
    "~/.ssh/id_rsa",
    "/",
    "'a b'",
    ";",
];

/// The command `data` describes (empty data: an empty command).
pub fn build(data: &[u8]) -> String {
    let mut bytes = data.iter().copied();
    let mut next = move || bytes.next();
    let all = programs();
    let (Some(a), Some(b)) = (next(), next()) else {
        return String::new();
    };
    let Some(program) = all.get((usize::from(a) << 8 | usize::from(b)) % all.len()) else {
        return String::new();
    };
    let mut words: Vec<String> = Vec::new();
    let wrapper = next().map_or("", |c| WRAPPERS[usize::from(c) % WRAPPERS.len()]);
    words.extend(wrapper.split_whitespace().map(str::to_string));
    words.extend(program.prefix.iter().map(|s| s.to_string()));
    while let Some(c) = next() {
        match c % 8 {
            // An operand.
            0 => {
                let o = next().map_or(0, usize::from);
                words.push(OPERANDS[o % OPERANDS.len()].to_string());
            }
            // Cut here.
            1 => break,
            // An option, with a value spelled one way or another.
            _ => {
                let Some(opt) = next().and_then(|o| {
                    program
                        .options
                        .get(usize::from(o) % program.options.len().max(1))
                }) else {
                    continue;
                };
                let v = next().map_or("", |v| VALUES[usize::from(v) % VALUES.len()]);
                let how = c / 8 % 4;
                match (opt.takes, how) {
                    (Takes::Nothing, _) | (_, 0) => words.push(opt.text.clone()),
                    (_, 1) if opt.text.starts_with("--") => words.push(format!("{}={v}", opt.text)),
                    (_, 1) => words.push(format!("{}{v}", opt.text)),
                    (Takes::Words(n), _) => {
                        words.push(opt.text.clone());
                        for _ in 0..n {
                            words.push(if v.is_empty() {
                                "''".into()
                            } else {
                                v.to_string()
                            });
                        }
                    }
                    _ => {
                        words.push(opt.text.clone());
                        words.push(if v.is_empty() {
                            "''".into()
                        } else {
                            v.to_string()
                        });
                    }
                }
            }
        }
    }
    words.join(" ")
}
