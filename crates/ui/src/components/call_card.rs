//! One pending tool call: tool, arguments (as text), tier, reason with the deciding
//! span, time left, and Approve once / Always allow… (its scopes, what each matches,
//! for how long: [`GrantBox`]) / Edit
//! (then Approve edit, with the edit's verdict shown first) / Deny.

use leptos::prelude::*;

use super::command_text::CommandText;
use super::edit_box::EditBox;
use super::grant_box::GrantBox;
use crate::model::{is_invisible, visible, CallView, Decision, TimeLeft};
use crate::source::tier_text;

#[component]
pub fn CallCard(
    call: CallView,
    message: RwSignal<String>,
    decision: Signal<Option<Decision>>,
    busy: Signal<bool>,
    time_left: Memo<TimeLeft>,
    on_decide: Callback<(String, Decision)>,
    on_undo: Callback<String>,
    /// The source's verdict for (tool, edited arguments as JSON), when it has a policy:
    /// (not denied, "tier: reason (rule)").
    preview: Callback<(String, String), Option<(bool, String)>>,
    /// Its editor is open: only the edit (or a denial) decides it then.
    editing: RwSignal<bool>,
    /// Its Always allow… box is open.
    granting: RwSignal<bool>,
    /// The source keeps grants that expire (offer how long, single use).
    timed_grants: bool,
) -> impl IntoView {
    let disabled = move || {
        busy.get() || time_left.with(TimeLeft::is_expired) || decision.with(Option::is_some)
    };
    let tier = tier_text(call.tier);
    let shell = call.command.is_some();
    let id = call.tool_call_id.clone();
    let scope = call.scopes.first().cloned();
    let label = format!("Permission request: {}", call.tool);
    let once = {
        let id = id.clone();
        move |_| on_decide.run((id.clone(), Decision::AllowOnce))
    };
    let deny = {
        let id = id.clone();
        move |_| on_decide.run((id.clone(), Decision::Deny(message.get_untracked())))
    };
    let undo = {
        let id = id.clone();
        move |_| on_undo.run(id.clone())
    };
    let always = (!call.scopes.is_empty()).then(|| {
        view! {
            <button
                class="tg-btn tg-always"
                data-testid="approve-always"
                aria-keyshortcuts="s"
                aria-expanded=move || granting.get().to_string()
                title="Shows what each rule would allow, for how long, before you give it"
                disabled=move || disabled() || editing.get()
                on:click=move |_| granting.update(|g| *g = !*g)
            >
                "Always allow " <code class="tg-scope">{scope}</code> "…"
            </button>
        }
    });
    let on_grant = {
        let id = id.clone();
        Callback::new(move |a| on_decide.run((id.clone(), Decision::AllowAlways(a))))
    };
    let on_edit = {
        let id = id.clone();
        Callback::new(move |json: String| on_decide.run((id.clone(), Decision::AllowEdited(json))))
    };
    view! {
        <section class="tg-call" data-testid="approval-prompt" data-tool-call-id=id aria-label=label>
            {head(call.tool.clone(), tier, time_left)}
            {invisible_warning(&call.args_text)}
            <div class="tg-args" class:tg-shell=shell data-testid="tool-args" aria-label="arguments">
                {call.command.clone().map(|c| view! { <CommandText command=c spans=spans_of(&call) rest=call.rest_text.clone() /> })}
                {(!shell).then(|| visible(&call.args_text))}
            </div>
            <p class="tg-reason" data-testid="reason">
                {call.reason.clone()} " " <small class="tg-rule">"(" {call.rule.clone()} ")"</small>
            </p>
            <EditBox call=call.clone() editing disabled=Signal::derive(disabled) preview on_edit />
            {(!call.scopes.is_empty()).then(|| view! {
                <GrantBox call=call.clone() open=granting timed=timed_grants disabled=Signal::derive(move || disabled() || editing.get()) on_grant />
            })}
            {decided_line(decision, busy, undo)}
            <div class="tg-actions">
                <button
                    class="tg-btn tg-once"
                    data-testid="approve-once"
                    aria-keyshortcuts="a"
                    disabled=move || disabled() || editing.get()
                    on:click=once
                >
                    "Approve once"
                </button>
                {always}
                <button
                    class="tg-btn tg-edit-toggle"
                    data-testid="edit"
                    aria-expanded=move || editing.get().to_string()
                    disabled=disabled
                    on:click=move |_| editing.update(|e| *e = !*e)
                >
                    {move || if editing.get() { "Cancel edit" } else { "Edit…" }}
                </button>
                <input
                    class="tg-message"
                    type="text"
                    data-testid="deny-message"
                    placeholder="Why not? (optional, sent to the agent)"
                    aria-label="Message to the agent if you deny"
                    disabled=disabled
                    bind:value=message
                />
                <button
                    class="tg-btn tg-deny"
                    data-testid="deny"
                    aria-keyshortcuts="d"
                    disabled=disabled
                    on:click=deny
                >
                    "Deny"
                </button>
            </div>
        </section>
    }
}

/// The deciding parts to mark: the marker's `spans`, else its one `span`.
fn spans_of(call: &CallView) -> Vec<[usize; 2]> {
    if call.spans.is_empty() {
        call.span.into_iter().collect()
    } else {
        call.spans.clone()
    }
}

/// A card's head: the tool, its tier and the time left.
pub(super) fn head(tool: String, tier: &'static str, time_left: Memo<TimeLeft>) -> impl IntoView {
    view! {
        <div class="tg-call-head">
            <code class="tg-tool" data-testid="tool-name">{tool}</code>
            <span class=format!("tg-tier tg-tier-{tier}") data-testid="tier">{tier}</span>
            <span
                class="tg-countdown"
                class:tg-countdown-expired=move || time_left.with(TimeLeft::is_expired)
                data-testid="countdown"
            >
                {move || time_left.get().text()}
            </span>
        </div>
    }
}

/// What the person decided on a card, with Undo until the run resumes.
pub(super) fn decided_line(
    decision: Signal<Option<Decision>>,
    busy: Signal<bool>,
    undo: impl Fn(leptos::ev::MouseEvent) + Clone + Send + Sync + 'static,
) -> impl IntoView {
    move || {
        decision.get().map(|d| {
            view! {
                <p class="tg-decided" role="status">
                    {d.label()} " "
                    <button class="tg-link" disabled=move || busy.get() on:click=undo.clone()>"Undo"</button>
                </p>
            }
        })
    }
}

/// A warning when the call holds characters a person cannot see (shown as escapes).
fn invisible_warning(args_text: &str) -> impl IntoView {
    args_text.chars().any(is_invisible).then(|| {
        view! {
            <p class="tg-warn" role="alert" data-testid="invisible-warning">
                "This call holds invisible or text-direction characters, shown as \\u{…}: \
                 what it looks like elsewhere may not be what runs."
            </p>
        }
    })
}
