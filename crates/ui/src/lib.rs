//! toolgate-ui: the approval panel (Leptos, client-side rendered) and the demo app.
//!
//! Domain state ([`model`]) and the bridge to toolgate-core ([`source`]) are plain Rust,
//! tested natively; the components, browser hooks and the JS entry points exist only
//! on wasm32.

pub mod model;
pub mod source;
