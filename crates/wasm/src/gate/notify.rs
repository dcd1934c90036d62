//! Change notification of runs: every park / resume / failRun is posted on the
//! `BroadcastChannel("toolgate")` and given to this gate's `onRunsChange` listeners;
//! other gates of the same owner hear it as `source: "remote"` once the write it
//! announces is readable there.

use crate::channel::Channel;
use crate::js::{from_js, to_js};
use crate::storage_events::StorageEvents;
use gloo_timers::callback::Timeout;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use toolgate_core::json_text::{Obj, WriteJson};
use toolgate_core::{MarkerStore, RunStatus};
use wasm_bindgen::prelude::*;

/// Where a [`RunsChange`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeSource {
    /// This gate made the change.
    Local,
    /// Another gate of this origin did (another tab, worker, or `Gate` in this page).
    Remote,
}

/// A run of this gate's owner changed: refresh it (`Gate::get_run`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunsChange {
    pub run_id: String,
    pub status: RunStatus,
    pub revision: u64,
    pub source: ChangeSource,
    /// The record was deleted (`forgetRun` / `pruneRuns`); `status` and `revision` are
    /// its last.
    #[serde(skip_serializing_if = "is_false")]
    pub gone: bool,
}

pub(super) fn is_false(b: &bool) -> bool {
    !*b
}

/// What goes over the BroadcastChannel.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Note {
    #[serde(rename = "type")]
    pub(super) kind: String,
    pub(super) run_id: String,
    pub(super) owner: String,
    pub(super) status: RunStatus,
    pub(super) revision: u64,
    #[serde(default, skip_serializing_if = "is_false")]
    pub(super) gone: bool,
}

impl WriteJson for Note {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.str("type", &self.kind)
            .str("runId", &self.run_id)
            .str("owner", &self.owner)
            .str("status", self.status.as_str())
            .u64("revision", self.revision);
        if self.gone {
            o.bool("gone", true);
        }
        o.end();
    }
}

impl WriteJson for RunsChange {
    fn write_json(&self, out: &mut String) {
        let mut o = Obj::new(out);
        o.str("runId", &self.run_id)
            .str("status", self.status.as_str())
            .u64("revision", self.revision)
            .str(
                "source",
                match self.source {
                    ChangeSource::Local => "local",
                    ChangeSource::Remote => "remote",
                },
            );
        if self.gone {
            o.bool("gone", true);
        }
        o.end();
    }
}

impl Note {
    /// A message of the channel as a note; `None` for anything else (not ours).
    pub(super) fn read(data: JsValue) -> Option<Note> {
        let value = from_js(data, "message").ok()?;
        let mut f = toolgate_core::fields::Fields::of(value, "struct Note").ok()?;
        Some(Note {
            kind: f.string("type").ok()?,
            run_id: f.string("runId").ok()?,
            owner: f.string("owner").ok()?,
            status: RunStatus::parse(&f.string("status").ok()?)?,
            revision: f.u64("revision").ok()?,
            gone: f.bool_or_false("gone").ok()?,
        })
    }
}

pub(super) const NOTE_TYPE: &str = "toolgate.run";

pub(super) enum RunsListener {
    Js(js_sys::Function),
    Rust(Rc<dyn Fn(&RunsChange)>),
}

#[derive(Default)]
pub(super) struct Notify {
    pub(super) listeners: Vec<(u32, Rc<RunsListener>)>,
    pub(super) next: u32,
    pub(super) channel: Option<Channel>,
    /// Notes heard before this context can read the write they announce (Chromium
    /// propagates `localStorage` writes to other renderer processes asynchronously, and
    /// a BroadcastChannel message can overtake them), by run id, each with the timer
    /// that delivers it anyway after [`NOTE_WAIT_MS`].
    pub(super) waiting: HashMap<String, (RunsChange, Timeout)>,
    /// Resolves `waiting` notes as soon as their write arrives here.
    pub(super) storage_events: Option<StorageEvents>,
}

/// How long a note waits for its write to become visible before it is delivered
/// anyway (a store that is not `localStorage` never fires `storage` events).
pub(super) const NOTE_WAIT_MS: u32 = 1_000;

/// True once this context reads run `change.run_id` at `change.revision` or later. A
/// store that cannot be read counts as caught up: the listeners' poll reports the error.
pub(super) fn visible(store: &dyn MarkerStore, change: &RunsChange) -> bool {
    match store.get(&change.run_id) {
        // A deletion is visible once the record is gone (or was written anew since).
        Ok(Some(stored)) if change.gone => stored.revision > change.revision,
        Ok(Some(stored)) => stored.revision >= change.revision,
        Ok(None) => change.gone,
        Err(_) => true,
    }
}

/// A note from another gate: delivered now if its write is visible here, else held
/// until the write arrives (`storage` event) or [`NOTE_WAIT_MS`] pass.
pub(super) fn heard(notify: &Weak<RefCell<Notify>>, store: &dyn MarkerStore, change: RunsChange) {
    if visible(store, &change) {
        deliver(notify, &change);
        return;
    }
    let Some(n) = notify.upgrade() else {
        return;
    };
    let weak = notify.clone();
    let run_id = change.run_id.clone();
    let revision = change.revision;
    let timer = Timeout::new(NOTE_WAIT_MS, move || {
        if crate::poison::poisoned() {
            return;
        }
        let due = weak.upgrade().and_then(|n| {
            let mut n = n.try_borrow_mut().ok()?;
            match n.waiting.get(&run_id) {
                Some((c, _)) if c.revision == revision => n.waiting.remove(&run_id),
                _ => None,
            }
        });
        if let Some((change, timer)) = due {
            drop(timer); // this very timeout, already fired
            deliver(&weak, &change);
        }
    });
    if let Ok(mut n) = n.try_borrow_mut() {
        let newer = n
            .waiting
            .get(&change.run_id)
            .is_some_and(|(c, _)| c.revision > change.revision);
        if !newer {
            n.waiting.insert(change.run_id.clone(), (change, timer));
        }
    };
}

/// A `storage` event for `run_id` (`None`: every key): delivers the notes now visible.
pub(super) fn arrived(
    notify: &Weak<RefCell<Notify>>,
    store: &dyn MarkerStore,
    run_id: Option<&str>,
) {
    let Some(n) = notify.upgrade() else {
        return;
    };
    let mut due = Vec::new();
    if let Ok(mut n) = n.try_borrow_mut() {
        let ids: Vec<String> = match run_id {
            Some(id) => vec![id.to_string()],
            None => n.waiting.keys().cloned().collect(),
        };
        for id in ids {
            if n.waiting.get(&id).is_some_and(|(c, _)| visible(store, c)) {
                due.extend(n.waiting.remove(&id));
            }
        }
    }
    for (change, timer) in due {
        drop(timer);
        deliver(notify, &change);
    }
}

/// Calls every listener, outside the borrow (a listener may call back into the gate).
pub(super) fn deliver(notify: &Weak<RefCell<Notify>>, change: &RunsChange) {
    let Some(notify) = notify.upgrade() else {
        return;
    };
    let listeners: Vec<Rc<RunsListener>> = match notify.try_borrow() {
        Ok(n) => n.listeners.iter().map(|(_, l)| l.clone()).collect(),
        Err(_) => return,
    };
    if listeners.is_empty() {
        return;
    }
    let js = to_js(change).ok();
    for l in listeners {
        match &*l {
            // A throwing listener must not break the gate: its exception is dropped.
            RunsListener::Js(f) => {
                if let Some(js) = &js {
                    let _ = f.call1(&JsValue::NULL, js);
                }
            }
            RunsListener::Rust(f) => f(change),
        }
    }
}

pub(super) fn remove_runs_listener(notify: &Weak<RefCell<Notify>>, id: u32) {
    if let Some(n) = notify.upgrade() {
        if let Ok(mut n) = n.try_borrow_mut() {
            n.listeners.retain(|(i, _)| *i != id);
        }
    }
}

/// A runs-change subscription; unsubscribes on drop.
#[must_use = "dropping the subscription unsubscribes"]
pub struct RunsSubscription {
    pub(super) notify: Weak<RefCell<Notify>>,
    pub(super) id: u32,
}

impl Drop for RunsSubscription {
    fn drop(&mut self) {
        remove_runs_listener(&self.notify, self.id);
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod text_tests {
    use super::*;

    /// A channel note and a runs change are the text their derives write.
    #[test]
    fn notes_and_changes_are_written_as_serde_writes_them() {
        for (gone, source) in [(false, ChangeSource::Local), (true, ChangeSource::Remote)] {
            for status in RunStatus::ALL {
                let note = Note {
                    kind: NOTE_TYPE.to_string(),
                    run_id: "run \"1\"".into(),
                    owner: "ow\\ner".into(),
                    status,
                    revision: 42,
                    gone,
                };
                assert_eq!(note.to_json(), serde_json::to_string(&note).unwrap());
                let change = RunsChange {
                    run_id: "r\n".into(),
                    status,
                    revision: u64::MAX,
                    source,
                    gone,
                };
                assert_eq!(change.to_json(), serde_json::to_string(&change).unwrap());
            }
        }
    }
}
