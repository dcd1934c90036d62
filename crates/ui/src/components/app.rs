//! The whole panel: permission requests, the run list and the policy playground.

use std::rc::Rc;

use leptos::prelude::*;
use toolgate_core::Resumed;

use super::approval_panel::ApprovalPanel;
use super::playground::Playground;
use super::run_list::RunList;
use super::PanelCtx;
use crate::source::RunSource;
use crate::use_now::use_now;
use crate::use_run_poll::use_run_poll;

#[component]
pub fn App(
    source: StoredValue<Rc<dyn RunSource>, LocalStorage>,
    on_resumed: StoredValue<Rc<dyn Fn(Resumed)>, LocalStorage>,
    policy_toml: String,
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
            <RunList runs=poll.runs />
            <Playground initial_toml=policy_toml />
        </div>
    }
}
