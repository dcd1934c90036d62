//! Walks the tables: every program of the read-only tables, `xargs`, `find`, every name
//! of the kind table and git's subcommands, with every option of its entry (every
//! letter and a few long names where no table lists them), in every spelling
//! (`builtin::programs::spellings::commands_for`: the option last with no value, with a
//! value, attached, after `--`, followed by `-`, followed by an operand), behind the
//! wrappers too. None may panic, and every verdict carries a known rule id. The same
//! tables feed the `table_commands` fuzz target.

use std::panic::{catch_unwind, AssertUnwindSafe};
use toolgate_core::builtin::programs::spellings::{commands_for, table_programs};
use toolgate_core::rule_id::RuleId;
use toolgate_core::{Policy, ToolCall};

#[test]
fn every_option_of_every_table_entry_in_every_spelling() {
    let policy = Policy::defaults("/home/dev/app", "/home/dev");
    let mut count = 0usize;
    let mut bad = Vec::new();
    for program in table_programs() {
        for opt in &program.options {
            for cmd in commands_for(&program.prefix, opt) {
                // Also behind a wrapper and inside a substitution.
                for text in [cmd.clone(), format!("env {cmd}"), format!("echo $({cmd})")] {
                    count += 1;
                    let call = ToolCall::new("bash", serde_json::json!({ "command": text }));
                    match catch_unwind(AssertUnwindSafe(|| policy.classify(&call))) {
                        Ok(v) if RuleId::parse(&v.rule).is_some() => {}
                        Ok(v) => bad.push(format!("{text:?}: unknown rule id {}", v.rule)),
                        Err(_) => bad.push(format!("{text:?}: panicked")),
                    }
                }
            }
        }
    }
    eprintln!("table walk: {count} commands classified");
    assert!(count > 50_000, "only {count} commands");
    assert!(
        bad.is_empty(),
        "{} failures:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
