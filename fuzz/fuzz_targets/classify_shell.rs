//! Any bytes as a shell command. Checks: `fuzz_checks::shell`.
#![no_main]

#[path = "../../crates/core/benches/common/fuzz_checks.rs"]
#[allow(dead_code)] // each target uses one check
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::shell(&String::from_utf8_lossy(data)));
