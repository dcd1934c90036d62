//! Exactly-once resume across processes: an atomic claim per parked record, in
//! IndexedDB.
//!
//! `localStorage` is not transactional across renderer processes (Chromium caches it
//! per process and propagates writes asynchronously), so a tab in another process that
//! takes a run's Web Lock right after a resume released it can still read the old
//! marker. IndexedDB is transactional across every tab, worker and process of an
//! origin: `readwrite` transactions on one object store are serialised by the browser,
//! and `add` of a key that exists fails with `ConstraintError`, atomically. So
//! `Gate::resume`, holding the run's Web Lock, claims the exact record it read —
//! key `<runId>:<revision>:<fingerprint>` in object store `claims` of database
//! `toolgate` — and only the claimer clears the marker. A lost claim is
//! `already_resumed`.
//!
//! - **Committed, not requested.** A claim is won when its transaction *completes*; an
//!   `add` that succeeded in a transaction that then aborted claimed nothing.
//! - **One record, one claim.** The revision in the key makes a re-park of the same
//!   run id a new claim; the fingerprint (FNV-1a of the stored record) does the same
//!   for a run id whose record was deleted and parked again at the same revision.
//! - **Bounded.** Every claim records `claimedAt`. Claims older than the longest
//!   marker TTL (7 days) plus a minute are deleted — by then the marker they guarded
//!   has expired in every process, so nothing can resume it any more — after the
//!   first claim a gate wins and every 64th after, at most 500 per pass
//!   (`Gate::prune_resume_claims` runs a pass on demand).
//! - **Fallback.** Where there is no IndexedDB or it cannot be opened (some private
//!   modes, opaque origins, a foreign database of that name), claims are skipped and
//!   resume is as strong as the Web Lock + `localStorage` CAS: exactly once within
//!   one renderer process. [`ResumeGuarantee`] says which applies.
//! - **Lifetime.** The connection opens on first need (a resume,
//!   `resumeGuaranteeReady()`, `pruneResumeClaims()`), closes on `dispose()` (or when
//!   the gate is freed), and closes itself when another context upgrades or deletes the
//!   database (`versionchange`), reopening on next use. Request and transaction
//!   callbacks are the resolve/reject functions of a Promise, or Rust closures owned by
//!   the awaiting future and dropped when it finishes: nothing is leaked.

use crate::error::GateError;
use crate::locks::to_promise;
use crate::storage::describe;
use js_sys::{Array, Object, Promise, Reflect};
use serde::Serialize;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use toolgate_core::marker::MAX_MARKER_TTL_MS;
use toolgate_core::resume_plan::ClaimKey;
use toolgate_core::Error;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    DomException, IdbDatabase, IdbFactory, IdbKeyRange, IdbObjectStoreParameters, IdbOpenDbRequest,
    IdbRequest, IdbTransaction, IdbTransactionMode,
};

/// The IndexedDB database of toolgate.
pub const CLAIMS_DB: &str = "toolgate";
/// Its object store of resume claims (key path `key`, index `claimedAt`).
pub const CLAIMS_STORE: &str = "claims";
const CLAIMED_AT: &str = "claimedAt";
const DB_VERSION: u32 = 1;
/// A claim older than this guards a marker that has expired everywhere.
const PRUNE_AFTER_MS: u64 = MAX_MARKER_TTL_MS + 60_000;
const PRUNE_EVERY: u32 = 64;
const PRUNE_BATCH: u32 = 500;

/// How strongly `resume` is exactly-once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ResumeGuarantee {
    /// Across every tab, worker and process of the origin: an IndexedDB claim.
    #[serde(rename = "indexeddb")]
    IndexedDb,
    /// Within one renderer process (Web Lock + `localStorage` CAS): no IndexedDB here.
    #[serde(rename = "same-process")]
    SameProcess,
}

impl ResumeGuarantee {
    /// `"indexeddb"` or `"same-process"` (the JS value).
    pub fn as_str(self) -> &'static str {
        match self {
            ResumeGuarantee::IndexedDb => "indexeddb",
            ResumeGuarantee::SameProcess => "same-process",
        }
    }
}

/// What a claim came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Claimed {
    /// Ours: go on and clear the marker.
    Won,
    /// Someone else's, in any process: `already_resumed`.
    Lost,
    /// No IndexedDB here: go on, same-process guarantee.
    Skipped,
}

struct Connection {
    db: IdbDatabase,
    /// Set by `versionchange` (the database closed itself for another context).
    closed: Rc<Cell<bool>>,
    _on_versionchange: Closure<dyn FnMut(JsValue)>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.db.set_onversionchange(None);
        self.db.close();
    }
}

enum Conn {
    /// Not open yet, or closed after a `versionchange`: opened on next use.
    Idle,
    Open(Connection),
    /// No IndexedDB here, or it could not be opened: why.
    Unavailable(String),
    /// `dispose()`: closed for good.
    Disposed,
}

/// A gate's IndexedDB claims (one connection, opened lazily).
pub(crate) struct Claims {
    factory: Option<IdbFactory>,
    conn: RefCell<Conn>,
    won: Cell<u32>,
}

impl Claims {
    /// Looks up `globalThis.indexedDB` (opened on first use).
    pub(crate) fn new() -> Rc<Claims> {
        let (factory, conn) = match find_factory() {
            Ok(f) => (Some(f), Conn::Idle),
            Err(why) => (None, Conn::Unavailable(why)),
        };
        Rc::new(Claims {
            factory,
            conn: RefCell::new(conn),
            won: Cell::new(0),
        })
    }

    /// What is known now: `SameProcess` once IndexedDB is known to be unusable here.
    pub(crate) fn guarantee(&self) -> ResumeGuarantee {
        match &*self.conn.borrow() {
            Conn::Unavailable(_) => ResumeGuarantee::SameProcess,
            Conn::Idle | Conn::Open(_) | Conn::Disposed => ResumeGuarantee::IndexedDb,
        }
    }

    /// Why IndexedDB is not used, when it is not.
    pub(crate) fn unavailable_reason(&self) -> Option<String> {
        match &*self.conn.borrow() {
            Conn::Unavailable(why) => Some(why.clone()),
            Conn::Idle | Conn::Open(_) | Conn::Disposed => None,
        }
    }

    /// True while the IndexedDB connection is open.
    pub(crate) fn is_open(&self) -> bool {
        matches!(&*self.conn.borrow(), Conn::Open(c) if !c.closed.get())
    }

    /// Closes the connection for good (`dispose`); the fallback state is kept.
    pub(crate) fn close(&self) {
        let old = {
            let mut conn = self.conn.borrow_mut();
            if matches!(&*conn, Conn::Unavailable(_)) {
                return;
            }
            std::mem::replace(&mut *conn, Conn::Disposed)
        };
        drop(old); // closes the database
    }

    /// The open database, opening it if needed; `None`: no IndexedDB here.
    pub(crate) async fn connection(&self) -> Result<Option<IdbDatabase>, GateError> {
        let stale = {
            let mut conn = self.conn.borrow_mut();
            match &*conn {
                Conn::Open(c) if !c.closed.get() => return Ok(Some(c.db.clone())),
                Conn::Unavailable(_) => return Ok(None),
                Conn::Disposed => return Err(GateError::Disposed),
                Conn::Open(_) => std::mem::replace(&mut *conn, Conn::Idle),
                Conn::Idle => Conn::Idle,
            }
        };
        drop(stale); // a connection closed by `versionchange`: free it, reopen
        let Some(factory) = &self.factory else {
            return Ok(None);
        };
        let opened = open(factory).await;
        let mut conn = self.conn.borrow_mut();
        match &*conn {
            // Disposed meanwhile: `opened` is dropped (closed) on return.
            Conn::Disposed => Err(GateError::Disposed),
            // Another resume of this gate opened it first: use that one.
            Conn::Open(c) if !c.closed.get() => Ok(Some(c.db.clone())),
            Conn::Unavailable(_) => Ok(None),
            Conn::Idle | Conn::Open(_) => match opened {
                Ok(c) => {
                    let db = c.db.clone();
                    *conn = Conn::Open(c);
                    Ok(Some(db))
                }
                Err(why) => {
                    *conn = Conn::Unavailable(why);
                    Ok(None)
                }
            },
        }
    }

    /// Once IndexedDB was tried: which guarantee `resume` gives here.
    pub(crate) async fn ready(&self) -> ResumeGuarantee {
        match self.connection().await {
            Ok(Some(_)) | Err(_) => self.guarantee(),
            Ok(None) => ResumeGuarantee::SameProcess,
        }
    }

    /// Claims `claim` atomically across processes. `now` (ms) is stored as
    /// `claimedAt` and drives the opportunistic prune.
    pub(crate) async fn claim(
        self: &Rc<Self>,
        claim: &ClaimKey,
        now: u64,
    ) -> Result<Claimed, GateError> {
        let record = claim_record(claim, now)?;
        for attempt in 0..2 {
            let Some(db) = self.connection().await? else {
                return Ok(Claimed::Skipped);
            };
            let tx = match db
                .transaction_with_str_and_mode(CLAIMS_STORE, IdbTransactionMode::Readwrite)
            {
                Ok(tx) => tx,
                // Closed under us (e.g. `versionchange` between two claims): reopen once.
                Err(e) if attempt == 0 && dom_name(&e).as_deref() == Some("InvalidStateError") => {
                    self.forget_connection();
                    continue;
                }
                Err(e) => return Err(failed("transaction", &e)),
            };
            let added = tx
                .object_store(CLAIMS_STORE)
                .and_then(|store| store.add(&record));
            if let Err(e) = added {
                let _ = tx.abort();
                return Err(failed("add", &e));
            }
            return match committed(&tx).await {
                Ok(()) => {
                    self.after_win(now);
                    Ok(Claimed::Won)
                }
                Err(Some(e)) if e.name() == "ConstraintError" => Ok(Claimed::Lost),
                Err(e) => Err(aborted("claim", e)),
            };
        }
        Err(unavailable(
            "the IndexedDB connection closed twice while claiming".to_string(),
        ))
    }

    /// Gives a won claim back: the marker was not cleared (the `localStorage` write
    /// failed), so a later resume must be able to claim it again.
    pub(crate) async fn release(&self, claim: &ClaimKey) -> Result<(), GateError> {
        let Some(db) = self.connection().await? else {
            return Ok(());
        };
        let tx = db
            .transaction_with_str_and_mode(CLAIMS_STORE, IdbTransactionMode::Readwrite)
            .map_err(|e| failed("transaction", &e))?;
        if let Err(e) = tx
            .object_store(CLAIMS_STORE)
            .and_then(|store| store.delete(&JsValue::from_str(&claim.key)))
        {
            let _ = tx.abort();
            return Err(failed("delete", &e));
        }
        committed(&tx).await.map_err(|e| aborted("release", e))
    }

    /// Deletes up to 500 claims older than the longest marker TTL (plus a minute);
    /// returns how many.
    pub(crate) async fn prune(&self, now: u64) -> Result<u32, GateError> {
        let Some(db) = self.connection().await? else {
            return Ok(0);
        };
        let tx = db
            .transaction_with_str_and_mode(CLAIMS_STORE, IdbTransactionMode::Readwrite)
            .map_err(|e| failed("transaction", &e))?;
        let cutoff = JsValue::from_f64(now.saturating_sub(PRUNE_AFTER_MS) as f64);
        let request = tx
            .object_store(CLAIMS_STORE)
            .and_then(|store| {
                let old = IdbKeyRange::upper_bound_with_open(&cutoff, true)?;
                store
                    .index(CLAIMED_AT)?
                    .get_all_keys_with_key_and_limit(&old, PRUNE_BATCH)
            })
            .map_err(|e| {
                let _ = tx.abort();
                failed("prune", &e)
            })?;
        // The deletes must be issued while the transaction is active: in the event.
        let deleted = Rc::new(Cell::new(0u32));
        let on_keys = {
            let (request, tx, deleted) = (request.clone(), tx.clone(), deleted.clone());
            Closure::<dyn FnMut(JsValue)>::new(move |_event: JsValue| {
                let (Ok(keys), Ok(store)) = (request.result(), tx.object_store(CLAIMS_STORE))
                else {
                    return;
                };
                for key in Array::from(&keys).iter() {
                    if store.delete(&key).is_ok() {
                        deleted.set(deleted.get().saturating_add(1));
                    }
                }
            })
        };
        request.set_onsuccess(Some(on_keys.as_ref().unchecked_ref()));
        let done = committed(&tx).await;
        request.set_onsuccess(None);
        drop(on_keys);
        done.map_err(|e| aborted("prune", e))?;
        Ok(deleted.get())
    }

    /// The connection closed itself: drop it (outside its own callback), reopen later.
    fn forget_connection(&self) {
        let old = {
            let mut conn = self.conn.borrow_mut();
            match &*conn {
                Conn::Open(_) => std::mem::replace(&mut *conn, Conn::Idle),
                Conn::Idle | Conn::Unavailable(_) | Conn::Disposed => return,
            }
        };
        drop(old);
    }

    /// After a won claim: prune on this gate's first and every 64th after.
    fn after_win(self: &Rc<Self>, now: u64) {
        let n = self.won.get();
        self.won.set(n.wrapping_add(1));
        if n % PRUNE_EVERY == 0 {
            let me = self.clone();
            // Opportunistic and in the background: a failed prune is retried on a later
            // pass, so the Promise (never rejected) is not awaited.
            let _ = to_promise(async move {
                let _ = me.prune(now).await;
                Ok(JsValue::UNDEFINED)
            });
        }
    }
}

/// `globalThis.indexedDB`, or why there is none.
fn find_factory() -> Result<IdbFactory, String> {
    match Reflect::get(&js_sys::global(), &"indexedDB".into()) {
        Ok(v) if v.is_undefined() || v.is_null() => Err("there is no indexedDB here".to_string()),
        Ok(v) => v
            .dyn_into::<IdbFactory>()
            .map_err(|_| "globalThis.indexedDB is not an IDBFactory".to_string()),
        // e.g. a SecurityError in an opaque origin.
        Err(e) => Err(format!("indexedDB cannot be used: {}", describe_dom(&e))),
    }
}

/// Opens (creating on first use) the claims database.
async fn open(factory: &IdbFactory) -> Result<Connection, String> {
    let request = factory
        .open_with_u32(CLAIMS_DB, DB_VERSION)
        .map_err(|e| format!("indexedDB.open(\"{CLAIMS_DB}\") threw {}", describe_dom(&e)))?;
    let on_upgrade = {
        let request = request.clone();
        Closure::<dyn FnMut(JsValue)>::new(move |_event: JsValue| {
            if create_schema(&request).is_err() {
                if let Some(tx) = request.transaction() {
                    let _ = tx.abort(); // the open then fails: same-process fallback
                }
            }
        })
    };
    request.set_onupgradeneeded(Some(on_upgrade.as_ref().unchecked_ref()));
    let result = settled(&request).await;
    request.set_onupgradeneeded(None);
    drop(on_upgrade);
    let db = result
        .map_err(|why| format!("indexedDB.open(\"{CLAIMS_DB}\") failed: {why}"))?
        .dyn_into::<IdbDatabase>()
        .map_err(|_| format!("indexedDB.open(\"{CLAIMS_DB}\") gave no IDBDatabase"))?;
    if !db.object_store_names().contains(CLAIMS_STORE) {
        db.close();
        return Err(format!(
            "IndexedDB database `{CLAIMS_DB}` has no `{CLAIMS_STORE}` store (not toolgate's)"
        ));
    }
    let closed = Rc::new(Cell::new(false));
    let on_versionchange = {
        let closed = closed.clone();
        Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
            // Another context upgrades or deletes the database: do not block it.
            closed.set(true);
            if let Ok(db) =
                Reflect::get(&event, &"target".into()).and_then(|t| t.dyn_into::<IdbDatabase>())
            {
                db.close();
            }
        })
    };
    db.set_onversionchange(Some(on_versionchange.as_ref().unchecked_ref()));
    Ok(Connection {
        db,
        closed,
        _on_versionchange: on_versionchange,
    })
}

/// Version 1: object store `claims` (key path `key`), index `claimedAt`.
fn create_schema(request: &IdbOpenDbRequest) -> Result<(), JsValue> {
    let db: IdbDatabase = request.result()?.dyn_into()?;
    if db.object_store_names().contains(CLAIMS_STORE) {
        return Ok(());
    }
    let params = IdbObjectStoreParameters::new();
    params.set_key_path(&JsValue::from_str("key"));
    let store = db.create_object_store_with_optional_parameters(CLAIMS_STORE, &params)?;
    store.create_index_with_str(CLAIMED_AT, CLAIMED_AT)?;
    Ok(())
}

/// `{key, runId, revision, claimedAt}`.
fn claim_record(claim: &ClaimKey, now: u64) -> Result<Object, GateError> {
    let record = Object::new();
    let fields: [(&str, JsValue); 4] = [
        ("key", JsValue::from_str(&claim.key)),
        ("runId", JsValue::from_str(&claim.run_id)),
        ("revision", JsValue::from_f64(claim.revision as f64)),
        (CLAIMED_AT, JsValue::from_f64(now as f64)),
    ];
    for (name, value) in fields {
        Reflect::set(&record, &JsValue::from_str(name), &value)
            .map_err(|e| failed("claim record", &e))?;
    }
    Ok(record)
}

/// Resolves with the request's result on `success`; on `error`, says why.
async fn settled(request: &IdbRequest) -> Result<JsValue, String> {
    let promise = Promise::new(&mut |resolve, reject| {
        request.set_onsuccess(Some(&resolve));
        request.set_onerror(Some(&reject));
    });
    let outcome = JsFuture::from(promise).await;
    request.set_onsuccess(None);
    request.set_onerror(None);
    match outcome {
        Ok(_) => request.result().map_err(|e| describe_dom(&e)),
        Err(_) => Err(match request.error() {
            Ok(Some(e)) => format!("{}: {}", e.name(), e.message()),
            Ok(None) => "unknown error".to_string(),
            Err(e) => describe_dom(&e),
        }),
    }
}

/// Resolves when `tx` commits; its error (if any) when it aborts.
async fn committed(tx: &IdbTransaction) -> Result<(), Option<DomException>> {
    let promise = Promise::new(&mut |resolve, reject| {
        tx.set_oncomplete(Some(&resolve));
        tx.set_onabort(Some(&reject));
    });
    let outcome = JsFuture::from(promise).await;
    tx.set_oncomplete(None);
    tx.set_onabort(None);
    outcome.map(|_| ()).map_err(|_| tx.error())
}

fn dom_name(e: &JsValue) -> Option<String> {
    e.dyn_ref::<DomException>().map(DomException::name)
}

/// `name: message` of a thrown value, DOMExceptions included.
fn describe_dom(e: &JsValue) -> String {
    match e.dyn_ref::<DomException>() {
        Some(d) => format!("{}: {}", d.name(), d.message()),
        None => describe(e),
    }
}

fn unavailable(message: String) -> GateError {
    GateError::Core(Error::StoreUnavailable { message })
}

fn failed(op: &str, e: &JsValue) -> GateError {
    unavailable(format!(
        "IndexedDB {op} for the resume claim failed: {}",
        describe_dom(e)
    ))
}

fn aborted(op: &str, e: Option<DomException>) -> GateError {
    unavailable(match e {
        Some(e) => format!(
            "IndexedDB {op} transaction aborted: {}: {}",
            e.name(),
            e.message()
        ),
        None => format!("IndexedDB {op} transaction aborted"),
    })
}
