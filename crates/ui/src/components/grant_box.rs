//! Always allow, shown before it is given: each scope the call offers (narrowest first)
//! with what it would match, how long it lasts, whether it serves only the next matching
//! call, then Approve and keep.

use leptos::prelude::*;

use crate::model::{Always, CallView, GRANT_TTLS};

#[component]
pub fn GrantBox(
    call: CallView,
    /// Shown (the card's Always allow… toggles it).
    open: RwSignal<bool>,
    disabled: Signal<bool>,
    /// The source keeps grants that expire (a server): offer how long, and single use.
    timed: bool,
    /// Approve the call and keep the chosen grant.
    on_grant: Callback<Always>,
) -> impl IntoView {
    let chosen = RwSignal::new(0usize);
    let ttl = RwSignal::new(1usize);
    let single = RwSignal::new(false);
    let name = format!("tg-scope-{}", call.tool_call_id);
    let scopes = call.scopes.clone();
    let choices = call
        .scopes
        .into_iter()
        .zip(call.scope_matches)
        .enumerate()
        .map(|(i, (scope, matches))| {
            view! {
                <label class="tg-grant-scope">
                    <input
                        type="radio"
                        name=name.clone()
                        data-testid="grant-scope"
                        prop:checked=move || chosen.get() == i
                        on:change=move |_| chosen.set(i)
                    />
                    <code class="tg-scope">{scope}</code>
                    <span class="tg-grant-matches" data-testid="grant-matches">{matches}</span>
                </label>
            }
        })
        .collect_view();
    let ttls = GRANT_TTLS
        .iter()
        .enumerate()
        .map(|(i, (_, words))| view! { <option value=i.to_string() selected=i == 1>{*words}</option> })
        .collect_view();
    let grant = move |_| {
        let scope = scopes.get(chosen.get_untracked()).cloned();
        let ttl_ms = timed
            .then(|| GRANT_TTLS.get(ttl.get_untracked()).map(|t| t.0))
            .flatten();
        if let Some(scope) = scope {
            on_grant.run(Always {
                scope,
                ttl_ms,
                single_use: timed && single.get_untracked(),
            });
        }
    };
    view! {
        <fieldset class="tg-grant" data-testid="grant-box" hidden=move || !open.get() disabled=disabled>
            <legend>"Approve, and allow for this session without asking:"</legend>
            {choices}
            {timed.then(|| view! {
                <label>
                    "for "
                    <select
                        data-testid="grant-ttl"
                        on:change=move |ev| ttl.set(event_target_value(&ev).parse().unwrap_or(1))
                    >
                        {ttls}
                    </select>
                </label>
                <label>
                    <input type="checkbox" data-testid="grant-once" bind:checked=single />
                    " the next matching call only"
                </label>
            })}
            {(!timed).then(|| view! {
                <p class="tg-grant-matches">"This page's host keeps it for the session."</p>
            })}
            <button class="tg-btn tg-always" data-testid="grant-approve" on:click=grant>
                "Approve and keep"
            </button>
        </fieldset>
    }
}
