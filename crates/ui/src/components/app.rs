//! The whole panel: permission requests, the run list and the policy playground.

use std::rc::Rc;

use crate::source::Decided;
use leptos::prelude::*;

use super::approval_panel::ApprovalPanel;
use super::panel_ctx;
use super::playground::Playground;
use super::run_list::RunList;
use crate::source::RunSource;

#[component]
pub fn App(
    source: StoredValue<Rc<dyn RunSource>, LocalStorage>,
    on_resumed: StoredValue<Rc<dyn Fn(Decided)>, LocalStorage>,
    policy_toml: String,
) -> impl IntoView {
    let (ctx, poll) = panel_ctx(source, on_resumed);
    view! {
        <div class="tg-panel">
            <ApprovalPanel ctx runs=poll.runs error=poll.error />
            <RunList runs=poll.runs />
            <Playground initial_toml=policy_toml />
        </div>
    }
}
