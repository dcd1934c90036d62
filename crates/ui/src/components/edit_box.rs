//! Edit, then approve: a call as the person would approve it (a shell call's command as
//! text, any other call's arguments as a JSON object), the edit's verdict under the
//! source's policy shown before the click, and Approve edit, which a denied or
//! malformed edit disables.

use leptos::prelude::*;

use crate::model::{edited_args, CallView};

#[component]
pub fn EditBox(
    call: CallView,
    /// Shown (the card's Edit… toggles it).
    editing: RwSignal<bool>,
    disabled: Signal<bool>,
    /// The source's verdict for (tool, edited arguments as JSON), when it has a policy:
    /// (not denied, "tier: reason (rule)").
    preview: Callback<(String, String), Option<(bool, String)>>,
    /// Approve this edit (its arguments as JSON).
    on_edit: Callback<String>,
) -> impl IntoView {
    let edit_text = RwSignal::new(
        call.command
            .clone()
            .unwrap_or_else(|| call.args_text.clone()),
    );
    let CallView {
        args_text,
        command,
        tool,
        ..
    } = call;
    // (the edit as JSON when it may be approved, what to show).
    let judged = Memo::new(move |_| {
        let edited = edit_text.with(|t| edited_args(&args_text, command.as_deref(), t));
        match edited {
            Ok(json) => match preview.run((tool.clone(), json.clone())) {
                Some((false, why)) => (
                    None,
                    format!("Denied by the policy, cannot be approved: {why}"),
                ),
                Some((true, what)) => (Some(json), format!("This edit is {what}")),
                None => (
                    Some(json),
                    "The policy where the run waits checks this edit when you approve it."
                        .to_string(),
                ),
            },
            Err(why) => (None, format!("Not an edit to approve: {why}")),
        }
    });
    let refused = move || judged.with(|j| j.0.is_none());
    let approve = move |_| {
        if let Some(json) = judged.with_untracked(|j| j.0.clone()) {
            on_edit.run(json);
        }
    };
    view! {
        <div class="tg-edit" data-testid="editor" hidden=move || !editing.get()>
            <textarea
                class="tg-edit-text"
                data-testid="edit-args"
                aria-label="The call as you would approve it"
                rows="3"
                spellcheck="false"
                disabled=disabled
                bind:value=edit_text
            ></textarea>
            <p class="tg-edit-verdict" class:tg-edit-refused=refused data-testid="edit-verdict" role="status">
                {move || judged.with(|j| j.1.clone())}
            </p>
            <button
                class="tg-btn tg-once"
                data-testid="approve-edit"
                disabled=move || disabled.get() || refused()
                on:click=approve
            >
                "Approve edit"
            </button>
        </div>
    }
}
