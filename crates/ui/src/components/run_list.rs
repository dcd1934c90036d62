//! Every run with its status.

use leptos::prelude::*;

use crate::model::RunView;

#[component]
pub fn RunList(runs: ReadSignal<Vec<RunView>>) -> impl IntoView {
    view! {
        <section class="tg-runs" aria-labelledby="tg-runs-h">
            <h2 id="tg-runs-h">"Runs"</h2>
            <Show when=move || runs.with(Vec::is_empty)>
                <p class="tg-empty">"No runs yet."</p>
            </Show>
            <ul>
                <For
                    each=move || runs.get()
                    key=|r| (r.run_id.clone(), r.revision, r.calls.len())
                    children=move |r| {
                        let class = format!("tg-status tg-status-{}", r.status.as_str());
                        view! {
                            <li>
                                <code class="tg-run-id">{r.run_id.clone()}</code>
                                " "
                                <span class=class data-testid="run-status" data-run-id=r.run_id.clone()>
                                    {r.status_text()}
                                </span>
                                {r.last_error.clone().map(|e| view! { <small class="tg-run-error">{e}</small> })}
                            </li>
                        }
                    }
                />
            </ul>
        </section>
    }
}
