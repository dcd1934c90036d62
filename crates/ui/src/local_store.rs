//! A `localStorage` [`MarkerStore`] and the demo's shared run store, with a cross-tab
//! change notification (BroadcastChannel) after every write and a Web Lock around
//! resume.
//!
//! Interim: toolgate-wasm is getting the same (`gate.park/run/runs/resume`, branch
//! `park`); once it lands, this module goes and the browser source calls that instead.
//!
//! Each key holds `"<revision>\n<document>"`. localStorage has no compare-and-swap, so
//! a resume runs inside a Web Lock named after the run: of two tabs deciding at once,
//! the second reads the first one's write and gets `already_resumed`.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Function, Promise, Reflect};
use toolgate_core::{Error, MarkerStore, Runs, Stored};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Prefix of every run key.
pub const KEY_PREFIX: &str = "toolgate:run:";
/// Name of the change-notification BroadcastChannel.
pub const CHANNEL: &str = "toolgate-runs";

/// Run records in `window.localStorage`.
#[derive(Debug, Clone, Default)]
pub struct LocalStore;

fn storage() -> Result<web_sys::Storage, Error> {
    let unavailable = |why: &str| Error::StoreUnavailable {
        message: why.to_string(),
    };
    web_sys::window()
        .ok_or_else(|| unavailable("no window"))?
        .local_storage()
        .map_err(|_| unavailable("localStorage is blocked"))?
        .ok_or_else(|| unavailable("localStorage is disabled"))
}

fn decode(raw: &str) -> Option<Stored> {
    let (rev, value) = raw.split_once('\n')?;
    Some(Stored {
        revision: rev.parse().ok()?,
        value: value.to_string(),
    })
}

impl LocalStore {
    fn read(key: &str) -> Result<Option<Stored>, Error> {
        let raw = storage()?
            .get_item(&format!("{KEY_PREFIX}{key}"))
            .map_err(|_| Error::StoreUnavailable {
                message: "localStorage.getItem failed".to_string(),
            })?;
        Ok(raw.map(|raw| {
            // A value that is not "<revision>\n…" is kept as revision 1 so that core
            // reads it, finds it corrupt and fails the run (never wedged).
            decode(&raw).unwrap_or(Stored {
                revision: 1,
                value: raw,
            })
        }))
    }
}

impl MarkerStore for LocalStore {
    fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        LocalStore::read(key)
    }

    fn put_if_revision(&self, key: &str, expected: Option<u64>, new: Stored) -> Result<(), Error> {
        let found = LocalStore::read(key)?.map(|s| s.revision);
        if found != expected {
            return Err(Error::StoreConflict {
                key: key.to_string(),
                expected,
                found,
            });
        }
        storage()?
            .set_item(
                &format!("{KEY_PREFIX}{key}"),
                &format!("{}\n{}", new.revision, new.value),
            )
            .map_err(|_| Error::QuotaExceeded {
                key: key.to_string(),
                bytes: new.value.len(),
            })
    }

    fn delete_if_revision(&self, key: &str, expected: u64) -> Result<(), Error> {
        let found = LocalStore::read(key)?.map(|s| s.revision);
        if found != Some(expected) {
            return Err(Error::StoreConflict {
                key: key.to_string(),
                expected: Some(expected),
                found,
            });
        }
        storage()?
            .remove_item(&format!("{KEY_PREFIX}{key}"))
            .map_err(|_| Error::StoreUnavailable {
                message: "localStorage.removeItem failed".to_string(),
            })
    }

    fn keys(&self) -> Result<Vec<String>, Error> {
        let s = storage()?;
        let n = s.length().unwrap_or(0);
        let mut out = Vec::new();
        for i in 0..n {
            if let Ok(Some(k)) = s.key(i) {
                if let Some(id) = k.strip_prefix(KEY_PREFIX) {
                    out.push(id.to_string());
                }
            }
        }
        Ok(out)
    }
}

/// Removes every run record (the demo's reset).
pub fn clear_all() -> Result<(), Error> {
    let s = storage()?;
    for key in LocalStore.keys()? {
        let _ = s.remove_item(&format!("{KEY_PREFIX}{key}"));
    }
    Ok(())
}

/// The runs of this page over `localStorage` (one per page, shared by the panel and
/// the demo's agent).
pub fn shared_runs() -> Rc<Runs<LocalStore>> {
    thread_local! {
        static RUNS: Rc<Runs<LocalStore>> = Rc::new(Runs::new(LocalStore));
    }
    RUNS.with(Rc::clone)
}

/// Tells every other same-origin context (other tabs, and other listeners in this one)
/// that runs changed.
pub fn notify_changed(run_id: &str) {
    thread_local! {
        static CHANNEL_TX: Option<web_sys::BroadcastChannel> = web_sys::BroadcastChannel::new(CHANNEL).ok();
    }
    CHANNEL_TX.with(|c| {
        if let Some(c) = c {
            let _ = c.post_message(&JsValue::from_str(run_id));
        }
    });
}

/// Runs `f` while holding the Web Lock `name` (`navigator.locks`); where Web Locks
/// are missing, runs it directly. `None` only if `f` ran but its result was lost.
pub async fn with_lock<T: 'static>(name: &str, f: impl FnOnce() -> T + 'static) -> Option<T> {
    let locks = web_sys::window()
        .map(|w| w.navigator())
        .and_then(|n| Reflect::get(&n, &JsValue::from_str("locks")).ok())
        .filter(|l| !l.is_undefined() && !l.is_null());
    let request = locks.as_ref().and_then(|l| {
        Reflect::get(l, &JsValue::from_str("request"))
            .ok()
            .and_then(|r| r.dyn_into::<Function>().ok())
    });
    let (Some(locks), Some(request)) = (locks, request) else {
        return Some(f());
    };
    let slot: Rc<Cell<Option<T>>> = Rc::new(Cell::new(None));
    let f = Rc::new(Cell::new(Some(f)));
    let cb = {
        let slot = slot.clone();
        let f = f.clone();
        Closure::once_into_js(move |_lock: JsValue| {
            if let Some(f) = f.take() {
                slot.set(Some(f()));
            }
        })
    };
    if let Ok(p) = request.call2(&locks, &JsValue::from_str(name), &cb) {
        if let Ok(p) = p.dyn_into::<Promise>() {
            let _ = JsFuture::from(p).await;
        }
    }
    match slot.take() {
        Some(v) => Some(v),
        // The lock request failed before running `f`: run it unlocked rather than never.
        None => f.take().map(|f| f()),
    }
}

/// Wall-clock milliseconds (0 if the clock is unusable).
pub fn now_ms() -> u64 {
    let t = js_sys::Date::now();
    if t.is_finite() && t > 0.0 {
        t as u64
    } else {
        0
    }
}
