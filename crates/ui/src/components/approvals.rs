//! The approval prompts alone: what `<toolgate-approval>` renders (the demo's [`App`]
//! shows the same [`ApprovalPanel`] beside the run list and the playground).
//!
//! [`App`]: super::app::App

use std::rc::Rc;

use leptos::prelude::*;
use toolgate_core::Resumed;

use super::approval_panel::ApprovalPanel;
use super::PanelCtx;
use crate::source::RunSource;
use crate::use_now::use_now;
use crate::use_run_poll::use_run_poll;

#[component]
pub fn Approvals(
    source: StoredValue<Rc<dyn RunSource>, LocalStorage>,
    on_resumed: StoredValue<Rc<dyn Fn(Resumed)>, LocalStorage>,
) -> impl IntoView {
    let poll = use_run_poll(source);
    let now = use_now(1_000);
    let ctx = PanelCtx {
        source,
        on_resumed,
        refresh: poll.refresh,
        now,
    };
    view! {
        <div class="tg-panel">
            <ApprovalPanel ctx runs=poll.runs error=poll.error />
        </div>
    }
}
