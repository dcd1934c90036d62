//! Any bytes as a `sed` script. Checks: `fuzz_checks::sed`.
#![no_main]

#[path = "../../crates/core/benches/common/fuzz_checks.rs"]
#[allow(dead_code)] // each target uses one check
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::sed(&String::from_utf8_lossy(data)));
