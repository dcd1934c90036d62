//! Always allow, shown before it is given: each scope the call offers (narrowest first)
//! with what it would match and its own Approve and keep button; where the source keeps
//! grants that expire (a server), how long it lasts and whether it serves only the next
//! matching call.

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
    let ttl = RwSignal::new(1usize);
    let single = RwSignal::new(false);
    let items = call
        .scopes
        .into_iter()
        .zip(call.scope_matches)
        .map(|(scope, matches)| {
            let s = scope.clone();
            let grant = move |_| {
                on_grant.run(Always {
                    scope: s.clone(),
                    ttl_ms: timed.then(|| GRANT_TTLS.get(ttl.get_untracked()).map(|t| t.0)).flatten(),
                    single_use: timed && single.get_untracked(),
                })
            };
            view! {
                <li>
                    <button class="tg-btn tg-always" data-testid="grant-approve" disabled=disabled on:click=grant>
                        "Approve and keep"
                    </button>
                    " " <code class="tg-scope">{scope}</code> " "
                    <span class="tg-grant-matches" data-testid="grant-matches">{matches}</span>
                </li>
            }
        })
        .collect_view();
    let time = if timed {
        let options = GRANT_TTLS
            .iter()
            .enumerate()
            .map(|(i, (_, words))| view! { <option value=i.to_string() selected=i == 1>{*words}</option> })
            .collect_view();
        Some(view! {
            <label>
                "for "
                <select data-testid="grant-ttl" on:change=move |ev| ttl.set(event_target_value(&ev).parse().unwrap_or(1))>
                    {options}
                </select>
            </label>
            " "
            <label>
                <input type="checkbox" data-testid="grant-once" on:change=move |ev| single.set(event_target_checked(&ev)) />
                " the next matching call only"
            </label>
        })
    } else {
        None
    };
    view! {
        <div class="tg-grant" data-testid="grant-box" hidden=move || !open.get()>
            <p class="tg-grant-head">
                "Approve, and allow without asking in this session"
                {(!timed).then_some(" (this page's host keeps it)")} ":"
            </p>
            {time}
            <ul>{items}</ul>
        </div>
    }
}
