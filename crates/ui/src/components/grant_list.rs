//! The grants a source keeps for this session (the browser's gate): each live one with
//! what it matches, how long it has left and Revoke. Nothing is shown for a source that
//! keeps none here (a server's panel lists its own), or while there is none.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::PanelCtx;
use crate::model::{RunView, TimeLeft};
use crate::source::GrantItem;

#[component]
pub fn GrantList(ctx: PanelCtx, runs: ReadSignal<Vec<RunView>>) -> impl IntoView {
    // Read again when the runs change (a decision may have given one), after a revoke,
    // and as the clock drops one that expired.
    let version = RwSignal::new(0u32);
    let list = Memo::new(move |_| {
        version.track();
        runs.track();
        let now = ctx.now.get();
        ctx.source
            .with_value(|s| s.grants())
            .unwrap_or_default()
            .into_iter()
            .filter(|g| g.expires_at > now)
            .collect::<Vec<_>>()
    });
    let item = move |g: GrantItem| {
        let id = g.id.clone();
        let revoke = move |_| {
            let Some(fut) = ctx.source.try_with_value(|s| s.revoke_grant(&id)) else {
                return;
            };
            spawn_local(async move {
                let done = fut.await;
                ctx.notice.try_set(Some(match done {
                    Ok(_) => "Grant revoked: matching calls are asked again.".to_string(),
                    Err(e) => format!("The grant could not be revoked: {e}"),
                }));
                version.try_update(|v| *v = v.wrapping_add(1));
            });
        };
        let left = move || TimeLeft::at(ctx.now.get(), g.expires_at).text();
        view! {
            <li data-testid="grant" data-grant-id=g.id.clone()>
                <code class="tg-scope">{g.rule}</code> " " <span class="tg-grant-matches">{g.matches}</span>
                " · " {left} {g.single_use.then_some(" · the next matching call only")} " "
                <button class="tg-link" data-testid="revoke-grant" on:click=revoke>"Revoke"</button>
            </li>
        }
    };
    move || {
        let shown = list.get();
        (!shown.is_empty()).then(|| {
            view! {
                <section class="tg-grant" data-testid="grants" aria-label="Always allowed in this session">
                    <p class="tg-grant-head">"Always allowed in this session"</p>
                    <ul>{shown.into_iter().map(item).collect_view()}</ul>
                </section>
            }
        })
    }
}
