//! Replays every input kept under `fuzz/regressions/TARGET/` (the fuzzers' seeds and
//! the findings they were fixed for) through the same checks as the fuzz targets, so a
//! plain `cargo test` catches a regression without a fuzzer.

#[path = "../benches/common/fuzz_checks.rs"]
mod fuzz_checks;
#[path = "../benches/common/structured.rs"]
mod structured;
#[path = "../benches/common/table_commands.rs"]
mod table_commands;

use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/regressions")
        .join(target);
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut n = 0;
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .path();
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // A thread of its own: the default 2 MiB stack, closer to wasm's than main's.
        let handle = std::thread::spawn(move || check(&data));
        if handle.join().is_err() {
            panic!("{target}: {} fails its fuzz checks", path.display());
        }
        n += 1;
    }
    assert!(n > 0, "{}: no regression inputs", dir.display());
}

#[test]
fn shell_regressions() {
    replay("classify_shell", |d| {
        fuzz_checks::shell(&String::from_utf8_lossy(d))
    });
    replay("shell_structured", |d| {
        fuzz_checks::shell(&structured::build(d))
    });
}

#[test]
fn table_command_regressions() {
    replay("table_commands", |d| {
        fuzz_checks::table_command(&table_commands::build(d))
    });
}

#[test]
fn argument_regressions() {
    replay("classify_args", |d| {
        fuzz_checks::args(&String::from_utf8_lossy(d))
    });
}

#[test]
fn policy_regressions() {
    replay("policy_toml", |d| {
        fuzz_checks::policy_toml(&String::from_utf8_lossy(d))
    });
}

#[test]
fn sed_regressions() {
    replay("sed_script", |d| {
        fuzz_checks::sed(&String::from_utf8_lossy(d))
    });
}

#[test]
fn marker_regressions() {
    replay("marker_decode", |d| {
        fuzz_checks::marker(&String::from_utf8_lossy(d))
    });
}
