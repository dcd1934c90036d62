//! The registry benchmark's workload, shared by the criterion bench
//! (`crates/core/benches/registry.rs`) and the profiling example
//! (`crates/core/examples/registry_profile.rs`), included by path so both run exactly
//! the same requests.

use serde_json::json;
use toolgate_core::{Error, NewRequest, Registry, RegistryConfig, Tier, ToolCall, Verdict};

/// A fast, non-cryptographic id source (splitmix64) — benchmarks only.
pub fn ids() -> impl FnMut() -> Result<u128, Error> {
    let mut s = 0x1234_5678_9abc_def0u64;
    move || {
        let mut next = || {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        Ok((u128::from(next()) << 64) | u128::from(next()))
    }
}

/// The `i`-th benchmark call.
pub fn call(i: usize) -> ToolCall {
    ToolCall::new("bash", json!({ "command": format!("rm -rf build/{i}") }))
}

/// The verdict every benchmark request carries.
pub fn verdict() -> Verdict {
    Verdict::new(Tier::Ask, "default", "not on any list")
}

/// A registry with `n` pending requests (deadline 60 s after time 0).
#[allow(dead_code)] // the profiling example fills its own, to time the fill alone
pub fn filled(n: usize) -> Registry {
    let mut r = Registry::new("bench", RegistryConfig::default(), ids());
    for i in 0..n {
        let _ = r.request(NewRequest::new(call(i), verdict()), 60_000, 0);
    }
    r
}
