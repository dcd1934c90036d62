//! A shell call as the command it runs: its text with the part that decided the verdict
//! marked, invisible and bidirectional characters as visible escapes, and the call's
//! other arguments (a working directory, a timeout) as JSON under it.

use leptos::prelude::*;

use crate::model::{highlight, visible};

#[component]
pub fn CommandText(
    command: String,
    span: Option<[usize; 2]>,
    /// The call's other arguments as JSON, when it has any.
    #[prop(optional_no_strip)]
    rest: Option<String>,
) -> impl IntoView {
    let (before, hit, after) = highlight(&command, span);
    let (before, hit, after) = (visible(before), visible(hit), visible(after));
    view! {
        <code class="tg-command">
                {before}
                {(!hit.is_empty()).then(|| view! { <mark title="this part decided the verdict">{hit}</mark> })}
                {after}
        </code>
        {rest.map(|r| view! { <pre class="tg-rest" aria-label="other arguments">{visible(&r)}</pre> })}
    }
}
