//! toolgate-wasm: the JavaScript API of toolgate — `Policy` (classify tool calls) and
//! `Gate` (hold the ones that need a human, with real timers) — over toolgate-core.
//!
//! Glue only: decode JS values, call core, encode the result, map every error through
//! [`into_error`]. The same types are usable from Rust (the Leptos UI depends on this
//! crate as a library): see the non-`wasm_bindgen` methods of [`Gate`].

/// The allocator of the shipped module: talc (`talc::wasm`, single-threaded wasm) in
/// place of Rust's default dlmalloc, for size: the Gate's module is about 3.5 KB smaller
/// gzipped (`scripts/wasm-size`: 304,150 B against 307,622 B with dlmalloc). Memory
/// grows from the wasm memory as needed, as with dlmalloc.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

mod channel;
mod claims;
pub mod clock;
mod error;
mod gate;
mod ids;
mod js;
mod js_runs;
mod locks;
mod oneshot;
mod pagehide;
pub mod poison;
mod policy;
mod storage;
mod storage_events;

pub use claims::{ResumeGuarantee, CLAIMS_DB, CLAIMS_STORE};
pub use error::{into_error, GateError};
pub use gate::{
    ChangeSource, CheckFuture, CheckOutcome, Gate, GateOptions, JsGate, RunsChange,
    RunsSubscription, Subscription, DEFAULT_TIMEOUT_MS,
};
pub use ids::CryptoIds;
pub use js_runs::resumed_to_js;
pub use policy::Policy;
pub use storage::{storage_key, LocalStore, KEY_PREFIX};
pub use toolgate_core::{
    CleanupCounts, Decision, MarkerStore, Outcome, Parked, Pending, PendingQuestion,
    QuestionOutcome, RequestId, ResumeDecision, Resumed, Run, RunStatus, ToolCall, Verdict,
};
