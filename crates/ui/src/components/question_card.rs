//! One question of a parked run: the agent's question (invisible characters shown as
//! escapes), time left, an answer box and Answer / Decline. A question is answered or
//! declined, never approved: the agent's tool does not run, the model gets the answer.

use leptos::prelude::*;

use super::call_card::{decided_line, head};
use crate::model::{visible, CallView, Decision, TimeLeft};

#[component]
pub fn QuestionCard(
    call: CallView,
    decision: Signal<Option<Decision>>,
    busy: Signal<bool>,
    time_left: Memo<TimeLeft>,
    on_decide: Callback<(String, Decision)>,
    on_undo: Callback<String>,
) -> impl IntoView {
    let disabled = move || {
        busy.get() || time_left.with(TimeLeft::is_expired) || decision.with(Option::is_some)
    };
    let answer = RwSignal::new(String::new());
    let empty = move || answer.with(|a| a.trim().is_empty());
    let id = call.tool_call_id.clone();
    let submit = {
        let id = id.clone();
        move |_| {
            let text = answer.get_untracked();
            if !text.trim().is_empty() {
                on_decide.run((id.clone(), Decision::Answer(text)));
            }
        }
    };
    let decline = {
        let id = id.clone();
        move |_| on_decide.run((id.clone(), Decision::Deny(String::new())))
    };
    let undo = {
        let id = id.clone();
        move |_| on_undo.run(id.clone())
    };
    view! {
        <section class="tg-call tg-question" data-testid="question-prompt" data-tool-call-id=id aria-label="Question from the agent">
            {head(call.tool.clone(), "question", time_left)}
            <p class="tg-question-text" data-testid="question">{visible(&call.reason)}</p>
            {decided_line(decision, busy, undo)}
            <textarea
                class="tg-edit-text"
                data-testid="answer"
                aria-label="Your answer to the agent"
                rows="2"
                maxlength="16384"
                disabled=disabled
                bind:value=answer
            ></textarea>
            <div class="tg-actions">
                <button
                    class="tg-btn tg-once"
                    data-testid="answer-submit"
                    disabled=move || disabled() || empty()
                    on:click=submit
                >
                    "Answer"
                </button>
                <button class="tg-btn tg-deny" data-testid="decline" disabled=disabled on:click=decline>
                    "Decline"
                </button>
            </div>
        </section>
    }
}
