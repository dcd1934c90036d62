//! Shell commands built from the pieces that nest and branch in the parser — every
//! bracket kind and keyword opened and closed, here-documents, quotes, wrappers, nested
//! shells and operators — chosen by the fuzzer's bytes, up to 64 KiB. Raw bytes rarely
//! reach 50 levels of `>(` with an `esac` inside; this target does in a few runs.
//! Checks: `fuzz_checks::shell`.
#![no_main]

#[path = "../../crates/core/benches/common/fuzz_checks.rs"]
#[allow(dead_code)] // each target uses one check
mod fuzz_checks;
#[path = "../../crates/core/benches/common/structured.rs"]
mod structured;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::shell(&structured::build(data)));
