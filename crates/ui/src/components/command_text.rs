//! A shell call as the command it runs: its text with every part that decided the
//! verdict marked, invisible and bidirectional characters as visible escapes, and the call's
//! other arguments (a working directory, a timeout) as JSON under it.

use leptos::prelude::*;

use leptos::either::Either;

use crate::model::{segments, visible};

#[component]
pub fn CommandText(
    command: String,
    /// The deciding parts' byte ranges.
    spans: Vec<[usize; 2]>,
    /// The call's other arguments as JSON, when it has any.
    #[prop(optional_no_strip)]
    rest: Option<String>,
) -> impl IntoView {
    let pieces = segments(&command, &spans)
        .into_iter()
        .map(|(text, hit)| {
            let text = visible(text);
            if hit {
                Either::Left(view! { <mark title="this part decided the verdict">{text}</mark> })
            } else {
                Either::Right(text)
            }
        })
        .collect_view();
    view! {
        <code class="tg-command">{pieces}</code>
        {rest.map(|r| view! { <pre class="tg-rest" aria-label="other arguments">{visible(&r)}</pre> })}
    }
}
