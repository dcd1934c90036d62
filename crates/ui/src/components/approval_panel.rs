//! Every prompt to decide, newest run first. Keyed by (run, revision): a poll that
//! brings the same runs re-renders nothing.

use leptos::prelude::*;
use toolgate_core::RunStatus;

use super::run_prompt::RunPrompt;
use super::PanelCtx;
use crate::model::RunView;

#[component]
pub fn ApprovalPanel(
    ctx: PanelCtx,
    runs: ReadSignal<Vec<RunView>>,
    error: ReadSignal<Option<String>>,
) -> impl IntoView {
    let dismissed = RwSignal::new(Vec::<(String, u64)>::new());
    let prompts = Memo::new(move |_| {
        let hidden = dismissed.get();
        runs.with(|rs| {
            rs.iter()
                .filter(|r| r.has_prompt() && !hidden.contains(&r.prompt_key()))
                .cloned()
                .collect::<Vec<_>>()
        })
    });
    // Shortcuts act on the first prompt still open.
    let active = Memo::new(move |_| {
        prompts.with(|ps| {
            ps.iter()
                .find(|r| r.status == RunStatus::AwaitingPermission)
                .map(RunView::prompt_key)
        })
    });
    let dismiss = Callback::new(move |key: (String, u64)| dismissed.update(|d| d.push(key)));
    view! {
        <section class="tg-approvals" aria-labelledby="tg-approvals-h">
            <h2 id="tg-approvals-h">"Permission requests"</h2>
            {move || {
                error
                    .get()
                    .map(|e| view! { <p class="tg-error" role="alert" data-testid="error">{e}</p> })
            }}
            {move || {
                ctx.notice
                    .get()
                    .map(|n| view! { <p class="tg-notice" role="status" data-testid="notice">{n}</p> })
            }}
            <Show when=move || prompts.with(Vec::is_empty)>
                <p class="tg-empty">"Nothing is waiting for you."</p>
            </Show>
            <For
                each=move || prompts.get()
                key=RunView::prompt_key
                children=move |run| view! { <RunPrompt ctx run active dismiss /> }
            />
        </section>
    }
}
