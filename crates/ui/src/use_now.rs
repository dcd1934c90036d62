//! `use_now`: wall-clock milliseconds as a signal, ticking every `period_ms`. The
//! interval is cleared when the owner is cleaned up (leptos-use registers the cleanup).

use leptos::prelude::*;
use leptos_use_interval_fn::use_interval_fn;

pub fn use_now(period_ms: u64) -> ReadSignal<u64> {
    let (now, set_now) = signal(now_ms());
    let _ = use_interval_fn(move || set_now.set(now_ms()), period_ms);
    now
}

#[cfg(feature = "demo")]
pub use toolgate_wasm::clock::now_ms;

/// Wall-clock milliseconds (`Date.now()`).
#[cfg(not(feature = "demo"))]
pub fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}
