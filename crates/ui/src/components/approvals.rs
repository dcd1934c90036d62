//! The approval prompts alone: what `<toolgate-approval>` renders (the demo's `App`
//! shows the same [`ApprovalPanel`] beside the run list and the playground).

use std::rc::Rc;

use crate::source::Decided;
use leptos::prelude::*;

use super::approval_panel::ApprovalPanel;
use super::panel_ctx;
use crate::source::RunSource;

#[component]
pub fn Approvals(
    source: StoredValue<Rc<dyn RunSource>, LocalStorage>,
    on_resumed: StoredValue<Rc<dyn Fn(Decided)>, LocalStorage>,
) -> impl IntoView {
    let (ctx, poll) = panel_ctx(source, on_resumed);
    view! {
        <div class="tg-panel">
            <ApprovalPanel ctx runs=poll.runs error=poll.error />
        </div>
    }
}
