//! `use_run_poll`: the panel's view of the runs, kept fresh by polling the
//! [`RunSource`]: every 3 s while a run is active, 5 s when idle, paused while the tab
//! is hidden (and refreshed when it shows again), and refreshed at once when the source
//! reports a change made elsewhere (the gate's BroadcastChannel). A poll that brings
//! nothing new sets no signal. One poll is in flight at a time (a server's answer may
//! take seconds): a refresh asked for meanwhile polls once more when it ends. A failed
//! poll shows its error and keeps the runs as last seen; it decides nothing.

use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use leptos::prelude::*;
use leptos_use_document_visibility::use_document_visibility;
use leptos_use_interval_fn::use_interval_fn;

use crate::model::{apply_poll, poll_period, RunView};
use crate::source::RunSource;
use crate::use_now::now_ms;

/// Polls done by this page (read by the demo's measurements).
pub static POLLS: AtomicU64 = AtomicU64::new(0);

/// What [`use_run_poll`] returns.
#[derive(Clone, Copy)]
pub struct UseRunPoll {
    /// The runs as last seen (only set when a poll changed something).
    pub runs: ReadSignal<Vec<RunView>>,
    /// The last read error, in words (storage failures).
    pub error: ReadSignal<Option<String>>,
    /// Poll now.
    pub refresh: Callback<()>,
}

pub fn use_run_poll(source: StoredValue<Rc<dyn RunSource>, LocalStorage>) -> UseRunPoll {
    let (runs, set_runs) = signal(Vec::<RunView>::new());
    let (error, set_error) = signal(None::<String>);

    // (in flight, asked again meanwhile)
    let busy = StoredValue::new_local((false, false));
    let refresh = Callback::new(move |()| {
        match busy.try_get_value() {
            Some((false, _)) => busy.set_value((true, false)),
            Some((true, _)) => return busy.set_value((true, true)),
            None => return,
        }
        leptos::task::spawn_local(async move {
            loop {
                POLLS.fetch_add(1, Ordering::Relaxed);
                let Some(fresh) = source.try_with_value(|s| s.runs(now_ms())) else {
                    return;
                };
                // The panel may be gone when the answer comes: then nothing is set.
                match fresh.await {
                    Ok(fresh) => {
                        let changed = runs.try_with_untracked(|cur| apply_poll(cur, fresh));
                        if let Some(Some(next)) = changed {
                            set_runs.try_set(next);
                        }
                        if error.try_with_untracked(Option::is_some) == Some(true) {
                            set_error.try_set(None);
                        }
                    }
                    Err(e) => {
                        let text = e.to_string();
                        let same = error.try_with_untracked(|cur| cur.as_deref() == Some(&*text));
                        if same == Some(false) {
                            set_error.try_set(Some(text));
                        }
                    }
                }
                match busy.try_get_value() {
                    Some((true, true)) => busy.set_value((true, false)),
                    Some(_) => return busy.set_value((false, false)),
                    None => return,
                }
            }
        });
    });

    let period = Memo::new(move |_| runs.with(|r| poll_period(r)));
    let pausable = use_interval_fn(move || refresh.run(()), period);

    let visibility = use_document_visibility();
    Effect::new(move |_| {
        if visibility.get() == web_sys::VisibilityState::Hidden {
            (pausable.pause)();
        } else {
            refresh.run(());
            (pausable.resume)();
        }
    });

    // Unsubscribed when the owner is cleaned up (the stored guard is dropped).
    let watch = source.with_value(|s| s.watch(Box::new(move || refresh.run(()))));
    let _ = StoredValue::new_local(watch);

    UseRunPoll {
        runs,
        error,
        refresh,
    }
}
