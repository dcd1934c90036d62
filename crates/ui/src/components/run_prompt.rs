//! One parked run's prompt: every pending call of its marker, decided one by one and
//! resumed together once each has a decision. Owns the keyboard shortcuts (while it
//! is the active prompt) and takes focus when it appears.

use leptos::either::Either;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::call_card::CallCard;
use super::question_card::QuestionCard;
use super::{perf_now, typing_now, PanelCtx};
use crate::model::{shortcut, CallView, Decision, Draft, KeyPress, RunView, Shortcut, TimeLeft};
use crate::source::SourceError;
use crate::use_now::now_ms;

#[component]
pub fn RunPrompt(
    ctx: PanelCtx,
    run: RunView,
    active: Memo<Option<(String, u64)>>,
    dismiss: Callback<(String, u64)>,
) -> impl IntoView {
    let key = run.prompt_key();
    let run_id = run.run_id.clone();
    let calls = StoredValue::new(run.calls.clone());
    let expires_at = run.expires_at.unwrap_or(0);
    let settled_expired = run.expired_at.is_some();
    let time_left = Memo::new(move |_| {
        if settled_expired {
            TimeLeft::Expired
        } else {
            TimeLeft::at(ctx.now.get(), expires_at)
        }
    });
    let expired = Memo::new(move |_| time_left.with(TimeLeft::is_expired));
    let draft = RwSignal::new(Draft::default());
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let messages = per_call(&run, String::new);
    // Per call: its editor is open (Approve once and Always allow, and their keys, then
    // do nothing: only the edit, or a denial, decides it).
    let editing = per_call(&run, || false);
    // Per call: its Always allow… box is open (`s` opens it: a grant is shown before it
    // is given, never given by a key).
    let granting = per_call(&run, || false);
    let shown_at = perf_now();

    let resume = resume_when_decided(ctx, run_id.clone(), calls, draft, busy, error);
    let decide = Callback::new(move |(id, decision): (String, Decision)| {
        if busy.get_untracked() || expired.get_untracked() {
            return;
        }
        draft.update(|d| d.decide(&id, decision));
        resume();
    });
    let undo = Callback::new(move |id: String| {
        if !busy.get_untracked() {
            draft.update(|d| d.undo(&id));
        }
    });

    let on_key = prompt_shortcuts(Shortcuts {
        key: key.clone(),
        active,
        expired,
        calls,
        draft,
        messages,
        editing,
        granting,
        shown_at,
        decide,
    });

    let node = NodeRef::<leptos::html::Article>::new();
    Effect::new(move |_| {
        if let Some(el) = node.get() {
            if !typing_now() {
                let _ = el.focus();
            }
        }
    });

    // `s` only where a call offers an always-allow scope (the key does nothing elsewhere).
    let always_key = run.calls.iter().any(|c| !c.scopes.is_empty());
    let heading = format!("tg-prompt-{}-{}", run.run_id, run.revision);
    let heading_id = heading.clone();
    let title = title(&run.calls);
    let approvals = run.calls.iter().any(|c| !c.is_question());
    let preview = edit_preview(ctx);
    let timed_grants = ctx.source.with_value(|s| s.timed_grants());
    let cards = run
        .calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let id = call.tool_call_id.clone();
            let decision = Signal::derive(move || draft.with(|d| d.get(&id).cloned()));
            let message = messages
                .with_value(|m| m.get(i).copied())
                .unwrap_or_default();
            let editing = editing
                .with_value(|m| m.get(i).copied())
                .unwrap_or_default();
            let granting = granting
                .with_value(|m| m.get(i).copied())
                .unwrap_or_default();
            if call.is_question() {
                return Either::Left(view! {
                    <QuestionCard call=call.clone() decision busy=busy.into() time_left on_decide=decide on_undo=undo />
                });
            }
            Either::Right(view! {
                <CallCard
                    call=call.clone()
                    message
                    decision
                    busy=busy.into()
                    time_left
                    on_decide=decide
                    on_undo=undo
                    preview
                    editing
                    granting
                    timed_grants
                />
            })
        })
        .collect_view();
    let dismiss_key = key.clone();
    let revision = key.1;
    let asked_by = run.parked_by.clone();
    view! {
        <article
            class="tg-prompt"
            class:tg-expired=move || expired.get()
            aria-labelledby=heading.clone()
            tabindex="-1"
            node_ref=node
            on:keydown=on_key
            data-run-id=run_id.clone()
            data-revision=revision
        >
            <h3 id=heading_id>
                {title} <small>" · run " {run_id.clone()}</small>
                {asked_by.map(|by| view! { <small class="tg-asked-by">" · asked by " {by}</small> })}
            </h3>
            {approvals.then(|| keys_hint(always_key))}
            {cards}
            <Show when=move || busy.get()>
                <p class="tg-busy" role="status">"Resuming the run…"</p>
            </Show>
            {move || error.get().map(|e| view! { <p class="tg-error" role="alert" data-testid="error">{e}</p> })}
            <Show when=move || expired.get()>
                <p class="tg-expired-note" role="status">
                    "This request expired before anyone decided. Nobody said no, but nothing was run."
                </p>
                <button class="tg-dismiss" on:click={
                    let k = dismiss_key.clone();
                    move |_| dismiss.run(k.clone())
                }>"Dismiss"</button>
            </Show>
        </article>
    }
}

/// What the agent asks: calls to run, questions, or both.
fn title(calls: &[CallView]) -> String {
    let asked = calls.iter().filter(|c| c.is_question()).count();
    let runs = calls.len() - asked;
    let n = |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
    match (runs, asked) {
        (_, 0) => format!(
            "The agent asks to run {}",
            n(runs, "tool call", "tool calls")
        ),
        (0, _) => format!("The agent asks you {}", n(asked, "question", "questions")),
        _ => format!(
            "The agent asks to run {} and asks you {}",
            n(runs, "tool call", "tool calls"),
            n(asked, "question", "questions")
        ),
    }
}

/// The prompt's keys (`s` only where a call offers an always-allow scope).
fn keys_hint(always_key: bool) -> impl IntoView {
    view! {
        <p class="tg-hint" data-testid="keys">
            "Keys: " <kbd>"a"</kbd> " approve once · "
            {always_key.then(|| view! { <kbd>"s"</kbd> " always allow… · " })}
            <kbd>"d"</kbd> " deny (not while typing)"
        </p>
    }
}

/// One signal per call of `run`, each starting at `init()`.
fn per_call<T: Send + Sync + 'static>(
    run: &RunView,
    init: impl Fn() -> T,
) -> StoredValue<Vec<RwSignal<T>>> {
    StoredValue::new(run.calls.iter().map(|_| RwSignal::new(init())).collect())
}

/// Resumes the run once every call has a decision: on a storage failure the person may
/// decide again; either way the panel polls again.
fn resume_when_decided(
    ctx: PanelCtx,
    run_id: String,
    calls: StoredValue<Vec<CallView>>,
    draft: RwSignal<Draft>,
    busy: RwSignal<bool>,
    error: RwSignal<Option<String>>,
) -> impl Fn() + Copy + 'static {
    let run_id = StoredValue::new(run_id);
    move || {
        let Some(decisions) = calls.with_value(|c| draft.with_untracked(|d| d.complete(c))) else {
            return;
        };
        busy.set(true);
        error.set(None);
        ctx.notice.set(None);
        let run_id = run_id.get_value();
        spawn_local(async move {
            let Some(fut) = ctx
                .source
                .try_with_value(|s| s.resume(&run_id, decisions, now_ms()))
            else {
                return;
            };
            // The panel may be unmounted when the answer comes (a server round trip):
            // then nothing is set or called (the run was resumed all the same).
            match fut.await {
                Ok(resumed) => {
                    ctx.on_resumed.try_with_value(|f| f(resumed));
                    ctx.refresh.try_run(());
                }
                Err(e) => {
                    // Nothing was decided (storage failed, the server could not be
                    // reached): the person may decide again.
                    let retry = matches!(e, SourceError::Storage(_) | SourceError::Other(_));
                    if !retry {
                        // The run moved on: this prompt goes with the next poll, the
                        // notice stays.
                        ctx.notice.try_set(Some(format!("Run {run_id}: {e}")));
                    }
                    error.try_set(Some(e.to_string()));
                    busy.try_set(false);
                    if retry {
                        draft.try_set(Draft::default());
                    }
                    ctx.refresh.try_run(());
                }
            }
        });
    }
}

/// What the keyboard shortcuts of one prompt act on.
struct Shortcuts {
    key: (String, u64),
    active: Memo<Option<(String, u64)>>,
    expired: Memo<bool>,
    calls: StoredValue<Vec<CallView>>,
    draft: RwSignal<Draft>,
    messages: StoredValue<Vec<RwSignal<String>>>,
    shown_at: f64,
    editing: StoredValue<Vec<RwSignal<bool>>>,
    granting: StoredValue<Vec<RwSignal<bool>>>,
    decide: Callback<(String, Decision)>,
}

/// A person's edit, classified by the source's policy before it is approved: (not
/// denied, "tier: reason (rule)" or, denied, "reason (rule)"); `None` without a policy.
fn edit_preview(ctx: PanelCtx) -> Callback<(String, String), Option<(bool, String)>> {
    Callback::new(move |(tool, json): (String, String)| {
        let args = toolgate_core::json_text::parse(&json).ok()?;
        let v = ctx
            .source
            .with_value(|s| s.classify(&toolgate_core::ToolCall::new(tool, args)))?;
        let allowed = v.tier != toolgate_core::Tier::Deny;
        let tier = if allowed { v.tier.as_str() } else { "" };
        let sep = if allowed { ": " } else { "" };
        Some((allowed, format!("{tier}{sep}{} ({})", v.reason, v.rule)))
    })
}

/// `a` approve once, `s` open Always allow…, `d` deny: the next open call of the active
/// prompt, only while focus is in the prompt (a page around the element keeps its
/// keys), not while typing, and only `d` while that call's editor is open.
fn prompt_shortcuts(sc: Shortcuts) -> impl FnMut(leptos::ev::KeyboardEvent) + 'static {
    let Shortcuts {
        key,
        active,
        expired,
        calls,
        draft,
        messages,
        editing,
        granting,
        shown_at,
        decide,
    } = sc;
    move |ev: leptos::ev::KeyboardEvent| {
        if active.get_untracked().as_ref() != Some(&key) || expired.get_untracked() {
            return;
        }
        let k = ev.key();
        let press = KeyPress {
            key: &k,
            modifier: ev.ctrl_key() || ev.alt_key() || ev.meta_key(),
            repeat: ev.repeat(),
            typing: typing_now(),
            since_shown_ms: perf_now() - shown_at,
        };
        let Some(sc) = shortcut(press) else {
            return;
        };
        // The first call a key may decide: undecided, not a question (a question is
        // answered in words; no key decides it or skips past it).
        let open = calls.with_value(|c| {
            draft.with_untracked(|d| {
                d.next_open(c)
                    .and_then(|call| c.iter().position(|x| x.tool_call_id == call.tool_call_id))
                    .map(|i| (i, c[i].clone()))
            })
        });
        let Some((i, call)) = open else {
            return;
        };
        let edit_open = editing.with_value(|e| e.get(i).is_some_and(|s| s.get_untracked()));
        let decision = match sc {
            Shortcut::ApproveOnce | Shortcut::AlwaysAllow if edit_open => None,
            Shortcut::ApproveOnce => Some(Decision::AllowOnce),
            Shortcut::AlwaysAllow => {
                if !call.scopes.is_empty() {
                    ev.prevent_default();
                    granting.with_value(|g| g.get(i).map(|s| s.set(true)));
                }
                None
            }
            Shortcut::Deny => Some(Decision::Deny(
                messages
                    .with_value(|m| m.get(i).map(|s| s.get_untracked()))
                    .unwrap_or_default(),
            )),
        };
        if let Some(d) = decision {
            ev.prevent_default();
            decide.run((call.tool_call_id, d));
        }
    }
}
