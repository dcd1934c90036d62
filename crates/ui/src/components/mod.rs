//! The panel's components, one per file.

#[cfg(feature = "demo")]
pub mod app;
pub mod approval_panel;
pub mod approvals;
pub mod call_card;
pub mod command_text;
pub mod edit_box;
pub mod grant_box;
pub mod grant_list;
#[cfg(feature = "demo")]
pub mod playground;
pub mod question_card;
#[cfg(feature = "demo")]
pub mod run_list;
pub mod run_prompt;

use std::rc::Rc;

use crate::source::Decided;
use leptos::prelude::*;

use crate::source::RunSource;

/// What every prompt needs from the panel.
#[derive(Clone, Copy)]
pub struct PanelCtx {
    pub source: StoredValue<Rc<dyn RunSource>, LocalStorage>,
    /// The host continues the run from what a resume returned.
    pub on_resumed: StoredValue<Rc<dyn Fn(Decided)>, LocalStorage>,
    /// Poll now.
    pub refresh: Callback<()>,
    /// Wall clock (ms), ticking every second.
    pub now: ReadSignal<u64>,
    /// What happened to a prompt that is gone (decided on another device, expired):
    /// shown above the prompts until the next decision here.
    pub notice: RwSignal<Option<String>>,
}

/// What every panel sets up: the run poll over `source` and the ticking clock, as the
/// [`PanelCtx`] the prompts take, and the poll (its runs and error to show).
pub fn panel_ctx(
    source: StoredValue<Rc<dyn RunSource>, LocalStorage>,
    on_resumed: StoredValue<Rc<dyn Fn(Decided)>, LocalStorage>,
) -> (PanelCtx, crate::use_run_poll::UseRunPoll) {
    let poll = crate::use_run_poll::use_run_poll(source);
    let ctx = PanelCtx {
        source,
        on_resumed,
        refresh: poll.refresh,
        now: crate::use_now::use_now(1_000),
        notice: RwSignal::new(None),
    };
    (ctx, poll)
}

/// True when keyboard focus is in a text field (shortcuts must not fire, focus must
/// not be stolen).
pub fn typing_now() -> bool {
    let Some(el) = document().active_element() else {
        return false;
    };
    let tag = el.tag_name().to_ascii_lowercase();
    matches!(tag.as_str(), "input" | "textarea" | "select")
        || el
            .get_attribute("contenteditable")
            .is_some_and(|v| v != "false")
}

/// `performance.now()` in ms (0 when unavailable).
pub fn perf_now() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}
