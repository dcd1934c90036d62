//! Commands built from the program tables (program, wrapper, options with their values
//! in every spelling, operands, cut after any word). Checks: `fuzz_checks::table_command`.
#![no_main]

#[path = "../../crates/core/benches/common/fuzz_checks.rs"]
#[allow(dead_code)] // each target uses one check
mod fuzz_checks;
#[path = "../../crates/core/benches/common/table_commands.rs"]
mod table_commands;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::table_command(&table_commands::build(data)));
