//! [`LocalStore`]: a [`MarkerStore`] over `localStorage`, one key per run.
//!
//! Layout: the record of run `<runId>` is the string under `toolgate:run:<runId>`, and
//! that string is exactly the run document of toolgate-core (the DESIGN §3 marker
//! while the run awaits permission, a small settled record otherwise). Its top-level
//! `revision` field *is* the store revision: there is no envelope, so any reader can
//! `JSON.parse` a key and render it. A value whose revision cannot be read (garbage,
//! truncation) has revision 0, which no valid record has; core then heals it into a
//! `failed` run. Keys without the prefix are never read, listed or written.
//!
//! Compare-and-swap: read, compare, write, all in one synchronous call. That is atomic
//! against every other user of the same event loop (other `Gate`s in this page or
//! worker). It is *not* atomic across renderer processes: Chromium caches
//! `localStorage` per process and propagates writes asynchronously, so a tab in another
//! process can read a marker that was already cleared. `Gate::resume` therefore also
//! takes an IndexedDB claim on the exact record it read (`claims.rs`) before this CAS;
//! the CAS stays as defence in depth and is the whole guarantee only where IndexedDB is
//! unavailable (`gate.resumeGuarantee === "same-process"`).

use toolgate_core::marker::MAX_MARKER_BYTES;
use toolgate_core::{Error, MarkerStore, Stored};
use wasm_bindgen::{JsCast, JsValue};

/// The prefix of every key toolgate writes.
pub const KEY_PREFIX: &str = "toolgate:run:";

/// The `localStorage` key of a run.
pub fn storage_key(run_id: &str) -> String {
    format!("{KEY_PREFIX}{run_id}")
}

/// `localStorage` as a [`MarkerStore`]. Where there is none (a worker, storage
/// disabled, a sandboxed frame), every call is [`Error::StoreUnavailable`] saying why.
#[derive(Debug, Clone)]
pub struct LocalStore {
    storage: Result<web_sys::Storage, String>,
}

impl Default for LocalStore {
    fn default() -> LocalStore {
        LocalStore::new()
    }
}

impl LocalStore {
    /// `globalThis.localStorage`, looked up once.
    pub fn new() -> LocalStore {
        let storage = match js_sys::Reflect::get(&js_sys::global(), &"localStorage".into()) {
            Ok(v) if v.is_undefined() || v.is_null() => {
                Err("there is no localStorage here (a worker, or storage disabled)".to_string())
            }
            Ok(v) => v
                .dyn_into::<web_sys::Storage>()
                .map_err(|_| "globalThis.localStorage is not a Storage".to_string()),
            // e.g. a SecurityError in a sandboxed frame or with site data blocked.
            Err(e) => Err(format!("localStorage cannot be opened: {}", describe(&e))),
        };
        LocalStore { storage }
    }

    fn storage(&self) -> Result<&web_sys::Storage, Error> {
        self.storage
            .as_ref()
            .map_err(|message| Error::StoreUnavailable {
                message: message.clone(),
            })
    }

    fn read(&self, key: &str) -> Result<Option<String>, Error> {
        self.storage()?
            .get_item(&storage_key(key))
            .map_err(|e| unavailable("getItem", &e))
    }
}

/// The top-level `revision` of a stored document; 0 when it cannot be read.
fn revision_of(value: &str) -> u64 {
    if value.len() > MAX_MARKER_BYTES {
        return 0;
    }
    toolgate_core::json_text::parse(value)
        .ok()
        .and_then(|v| v.get("revision").and_then(serde_json::Value::as_u64))
        .unwrap_or(0)
}

impl MarkerStore for LocalStore {
    fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        Ok(self.read(key)?.map(|value| Stored {
            revision: revision_of(&value),
            value,
        }))
    }

    /// Writes `new.value`, whose `revision` field must be `new.revision` (toolgate-core's
    /// `Runs` always writes it so).
    fn put_if_revision(&self, key: &str, expected: Option<u64>, new: Stored) -> Result<(), Error> {
        let storage = self.storage()?;
        let found = self.read(key)?.map(|v| revision_of(&v));
        if found != expected {
            return Err(Error::StoreConflict {
                key: storage_key(key),
                expected,
                found,
            });
        }
        let full_key = storage_key(key);
        storage.set_item(&full_key, &new.value).map_err(|e| {
            if is_quota_error(&e) {
                Error::QuotaExceeded {
                    key: full_key,
                    bytes: new.value.len(),
                }
            } else {
                unavailable("setItem", &e)
            }
        })
    }

    fn delete_if_revision(&self, key: &str, expected: u64) -> Result<(), Error> {
        let storage = self.storage()?;
        let found = self.read(key)?.map(|v| revision_of(&v));
        if found != Some(expected) {
            return Err(Error::StoreConflict {
                key: storage_key(key),
                expected: Some(expected),
                found,
            });
        }
        storage
            .remove_item(&storage_key(key))
            .map_err(|e| unavailable("removeItem", &e))
    }

    /// The run ids under the prefix (other keys are not ours).
    fn keys(&self) -> Result<Vec<String>, Error> {
        let storage = self.storage()?;
        let len = storage.length().map_err(|e| unavailable("length", &e))?;
        let mut keys = Vec::new();
        for i in 0..len {
            let key = storage.key(i).map_err(|e| unavailable("key", &e))?;
            if let Some(run_id) = key.as_deref().and_then(|k| k.strip_prefix(KEY_PREFIX)) {
                keys.push(run_id.to_string());
            }
        }
        Ok(keys)
    }
}

/// `QuotaExceededError` (every engine today), or Firefox's legacy name / code 22.
fn is_quota_error(e: &JsValue) -> bool {
    match e.dyn_ref::<web_sys::DomException>() {
        Some(d) => {
            matches!(
                d.name().as_str(),
                "QuotaExceededError" | "NS_ERROR_DOM_QUOTA_REACHED"
            ) || d.code() == 22
        }
        None => false,
    }
}

fn unavailable(op: &str, e: &JsValue) -> Error {
    Error::StoreUnavailable {
        message: format!("localStorage.{op} failed: {}", describe(e)),
    }
}

/// `name: message` of a thrown JS value, for error sentences.
pub(crate) fn describe(e: &JsValue) -> String {
    match e.dyn_ref::<js_sys::Error>() {
        Some(err) => format!(
            "{}: {}",
            String::from(err.name()),
            String::from(err.message())
        ),
        None => e.as_string().unwrap_or_else(|| format!("{e:?}")),
    }
}
