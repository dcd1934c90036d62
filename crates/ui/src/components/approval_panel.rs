//! Every prompt to decide, newest run first. Keyed by (run, revision): a poll that
//! brings the same runs re-renders nothing.

use leptos::prelude::*;
use toolgate_core::RunStatus;

use super::grant_list::GrantList;
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
    // A source that keeps grants (the browser's gate) may decide a parked run itself:
    // each parked revision is tried once, its prompt hidden until the try has ended
    // (no prompt flashes for a call a grant covers).
    let grants_here = ctx.source.with_value(|s| s.grants().is_some());
    let tried = RwSignal::new(Vec::<(String, u64)>::new());
    let settling = RwSignal::new(Vec::<(String, u64)>::new());
    let prompts = Memo::new(move |_| {
        let hidden = dismissed.get();
        let (tried, settling) = (tried.get(), settling.get());
        runs.with(|rs| {
            rs.iter()
                .filter(|r| {
                    let key = r.prompt_key();
                    let waiting = r.status == RunStatus::AwaitingPermission;
                    r.has_prompt()
                        && !hidden.contains(&key)
                        && !(grants_here
                            && waiting
                            && (!tried.contains(&key) || settling.contains(&key)))
                })
                .cloned()
                .collect::<Vec<_>>()
        })
    });
    if grants_here {
        Effect::new(move |_| {
            runs.with(|rs| {
                for r in rs
                    .iter()
                    .filter(|r| r.status == RunStatus::AwaitingPermission)
                {
                    settle_once(ctx, r.run_id.clone(), r.prompt_key(), tried, settling);
                }
            });
        });
    }
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
            <GrantList ctx runs />
        </section>
    }
}

/// Longest a prompt stays hidden while the source's grants try its run (ms).
const SETTLE_WAIT_MS: u64 = 3_000;

/// Lets the source's grants try run `run_id` once for `key` (its parked revision):
/// decided, the host continues it as after a person's decision.
fn settle_once(
    ctx: PanelCtx,
    run_id: String,
    key: (String, u64),
    tried: RwSignal<Vec<(String, u64)>>,
    settling: RwSignal<Vec<(String, u64)>>,
) {
    if tried.with_untracked(|t| t.contains(&key)) {
        return;
    }
    let Some(fut) = ctx.source.with_value(|s| s.settle(&run_id)) else {
        return;
    };
    settling.update(|s| s.push(key.clone()));
    tried.update(|t| t.push(key.clone()));
    // Bounded: a try that has not ended within SETTLE_WAIT_MS (another tab holding the
    // grants' lock, say) shows the prompt anyway; if the grants decide it after all, a
    // person's click is told the run was already decided.
    let shown = key.clone();
    leptos::prelude::set_timeout(
        move || {
            settling.try_update(|s| s.retain(|k| *k != shown));
        },
        std::time::Duration::from_millis(SETTLE_WAIT_MS),
    );
    leptos::task::spawn_local(async move {
        if let Ok(Some(decided)) = fut.await {
            ctx.on_resumed.try_with_value(|f| f(decided));
            ctx.refresh.try_run(());
        }
        settling.try_update(|s| s.retain(|k| *k != key));
    });
}
