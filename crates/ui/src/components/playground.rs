//! Policy playground: edit a policy (TOML), type a call, see the verdict live.

use leptos::prelude::*;

use super::command_text::CommandText;
use crate::source::{evaluate, input_arg, tier_text};

const TOOLS: [&str; 5] = [
    "bash",
    "read",
    "edit",
    "webfetch",
    "mcp__github__delete_repo",
];

#[component]
pub fn Playground(initial_toml: String) -> impl IntoView {
    let toml = RwSignal::new(initial_toml);
    let tool = RwSignal::new("bash".to_string());
    let input = RwSignal::new("npm test && rm -rf build".to_string());
    let result =
        Memo::new(move |_| toml.with(|t| tool.with(|tl| input.with(|i| evaluate(t, tl, i)))));
    let arg = move || tool.with(|t| input_arg(t));
    view! {
        <details class="tg-playground">
            <summary>"Policy playground"</summary>
            <label class="tg-field">
                "Policy (TOML)"
                <textarea
                    rows="9"
                    spellcheck="false"
                    prop:value=move || toml.get()
                    on:input=move |ev| toml.set(event_target_value(&ev))
                ></textarea>
            </label>
            <div class="tg-row">
                <label class="tg-field">
                    "Tool"
                    <select on:change=move |ev| tool.set(event_target_value(&ev))>
                        {TOOLS.iter().map(|t| view! { <option value=*t>{*t}</option> }).collect_view()}
                    </select>
                </label>
                <label class="tg-field tg-grow">
                    {move || format!("args.{}", arg())}
                    <input type="text" spellcheck="false" bind:value=input />
                </label>
            </div>
            <div class="tg-verdict" aria-live="polite">
                {move || match result.get() {
                    Ok(ev) => {
                        let tier = tier_text(ev.verdict.tier);
                        view! {
                            <p>
                                <span class=format!("tg-tier tg-tier-{tier}")>{tier}</span> " "
                                {ev.verdict.reason.clone()} " " <small class="tg-rule">"(" {ev.verdict.rule.clone()} ")"</small>
                            </p>
                            {ev.command.clone().map(|c| view! { <div class="tg-args tg-shell"><CommandText command=c spans=ev.verdict.span.into_iter().collect() /></div> })}
                            <ul class="tg-parts">
                                {ev.verdict.parts.iter().map(|p| {
                                    let t = tier_text(p.tier);
                                    view! {
                                        <li>
                                            <span class=format!("tg-tier tg-tier-{t}")>{t}</span> " "
                                            <code>{p.text.clone()}</code> " — " {p.reason.clone()}
                                        </li>
                                    }
                                }).collect_view()}
                            </ul>
                            <p class="tg-scopes">
                                {if ev.scopes.is_empty() {
                                    "Always allow: not offered for this call.".to_string()
                                } else {
                                    format!("Always allow would add: {}", ev.scopes.join("  |  "))
                                }}
                            </p>
                        }
                            .into_any()
                    }
                    Err(e) => view! { <p class="tg-error" role="alert">{e}</p> }.into_any(),
                }}
            </div>
        </details>
    }
}
