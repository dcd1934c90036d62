//! toolgate-ui: the approval panel (Leptos, client-side rendered) and the demo app.
//!
//! Domain state ([`model`]) and the bridge to toolgate-core ([`source`]) are plain Rust,
//! tested natively; the components, browser hooks and the JS entry points exist only
//! on wasm32. The wasm bundle also exports toolgate-wasm's `Gate` and `Policy`.

pub mod model;
pub mod source;

#[cfg(target_arch = "wasm32")]
pub mod components;
#[cfg(target_arch = "wasm32")]
pub mod js_api;
#[cfg(all(target_arch = "wasm32", feature = "element"))]
pub mod js_source;
#[cfg(target_arch = "wasm32")]
pub mod use_now;
#[cfg(target_arch = "wasm32")]
pub mod use_run_poll;

/// Linked so that the demo's bundle exports the `Gate` / `Policy` JS API too (the
/// element's does not: it shows the main entry's gate).
#[cfg(all(target_arch = "wasm32", feature = "demo"))]
pub use toolgate_wasm::{Gate, Policy};

/// The element's module without toolgate-wasm: its allocator and its panic guard.
#[cfg(all(target_arch = "wasm32", not(feature = "demo")))]
pub mod poison;

#[cfg(all(
    target_family = "wasm",
    not(target_feature = "atomics"),
    not(feature = "demo")
))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
