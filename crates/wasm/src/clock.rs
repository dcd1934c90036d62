//! The browser's wall clock, the one place the wasm crate and the UI read it.

/// Wall-clock milliseconds (`Date.now()`); 0 when the clock is unusable.
pub fn now_ms() -> u64 {
    let t = js_sys::Date::now();
    if t.is_finite() && t > 0.0 {
        t as u64
    } else {
        0
    }
}
