//! A shell command with the span that decided its verdict highlighted (as text).

use leptos::prelude::*;

use crate::model::highlight;

#[component]
pub fn CommandText(command: String, span: Option<[usize; 2]>) -> impl IntoView {
    let (before, hit, after) = highlight(&command, span);
    let (before, hit, after) = (before.to_string(), hit.to_string(), after.to_string());
    view! {
        <p class="tg-command">
            <span class="tg-label">"Deciding part: "</span>
            <code>
                {before}
                {(!hit.is_empty()).then(|| view! { <mark title="this part decided the verdict">{hit}</mark> })}
                {after}
            </code>
        </p>
    }
}
