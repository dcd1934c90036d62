//! Grants in the browser: a person's "always allow" kept by the gate, only narrowing.
//!
//! A decision that approves with a scope (`{decision: "allow", scope, ttlMs?,
//! singleUse?}`) gives a grant (toolgate-core's `give_for_decisions`: one of the scopes
//! the call offered, a lifetime, maybe one use), checked before anything is decided
//! (`grant_refused`) and kept once the decision stands. The grants of an owner live in
//! `localStorage` under `toolgate:grants:<owner>` (a JSON array; not under the runs'
//! prefix, so no run list reads it), or in memory where there is no `localStorage`.
//! `gate.settleWithGrants(runId)` lets the live grants of the run's session decide a
//! parked run whose every call they cover (the approval element calls it for each run it
//! sees parked): the use is counted and stored first, then the run is resumed, so a
//! single-use grant serves once even if the resume then loses. Every read-modify-write
//! of the book runs inside the Web Lock `toolgate:grants:<owner>` (every tab of the
//! origin), where there are Web Locks.

use super::*;
use crate::clock::now_ms;
use crate::error::{into_error, GateError};
use crate::js::to_js;
use toolgate_core::grant::{give_for_decisions, Grant, GrantBook, GrantRequest, GrantState};
use toolgate_core::{ResumeDecision, Resumed};
use wasm_bindgen::JsCast;

/// Ended grants are kept this long for the list (then dropped from storage).
const KEEP_ENDED_MS: u64 = 24 * 60 * 60 * 1000;

/// Where an owner's grants are kept.
pub(super) struct GrantsPart {
    key: String,
    storage: Option<web_sys::Storage>,
    /// Where there is no `localStorage`: the book in memory.
    memory: RefCell<String>,
}

impl GrantsPart {
    pub(super) fn new(owner: &str) -> GrantsPart {
        let storage = js_sys::Reflect::get(&js_sys::global(), &"localStorage".into())
            .ok()
            .and_then(|v| v.dyn_into::<web_sys::Storage>().ok());
        GrantsPart {
            key: format!("toolgate:grants:{owner}"),
            storage,
            memory: RefCell::new(String::new()),
        }
    }

    fn load(&self) -> GrantBook {
        let text = match &self.storage {
            Some(s) => s.get_item(&self.key).ok().flatten().unwrap_or_default(),
            None => self.memory.borrow().clone(),
        };
        GrantBook::decode(&text)
    }

    fn save(&self, book: &GrantBook) -> Result<(), GateError> {
        let text = book.encode()?;
        match &self.storage {
            Some(s) => s.set_item(&self.key, &text).map_err(|_| {
                GateError::Core(toolgate_core::Error::StoreUnavailable {
                    message: "the grants could not be stored (localStorage.setItem)".into(),
                })
            }),
            None => {
                *self.memory.borrow_mut() = text;
                Ok(())
            }
        }
    }
}

/// What a step under the grants' lock ends with (one type: one copy of the lock's
/// machinery in the wasm).
enum Done {
    Revoked(bool),
    Kept,
    Settled(Option<Resumed>),
}

type Step = std::pin::Pin<Box<dyn Future<Output = Result<Done, GateError>>>>;

impl Gate {
    /// Runs `step` inside the grants' Web Lock (where there are Web Locks).
    async fn with_grants(&self, step: Step) -> Result<Done, GateError> {
        match self.inner.runs.locks.clone() {
            Some(locks) => locks.with(&self.inner.grants.key, move || step).await?,
            None => step.await,
        }
    }

    /// This session's grants (live and ended), oldest first.
    pub fn grants(&self) -> Vec<(Grant, GrantState)> {
        let now = now_ms();
        let part = &self.inner.runs;
        self.inner
            .grants
            .load()
            .of(&part.owner)
            .into_iter()
            .filter(|g| g.session_id == part.session_id)
            .map(|g| (g.clone(), g.state(now)))
            .collect()
    }

    /// Revokes this owner's grant `id`; false when there is none.
    pub fn revoke_grant(&self, id: &str) -> impl Future<Output = Result<bool, GateError>> {
        let gate = self.clone();
        let id = id.to_string();
        async move {
            let g = gate.clone();
            let done = gate
                .with_grants(Box::pin(async move {
                    let mut book = g.inner.grants.load();
                    if !book.revoke(&g.inner.runs.owner, &id, now_ms()) {
                        return Ok(Done::Revoked(false));
                    }
                    g.inner.grants.save(&book).map(|()| Done::Revoked(true))
                }))
                .await?;
            Ok(matches!(done, Done::Revoked(true)))
        }
    }

    /// Resumes run `run_id` as [`Gate::resume_run`] does; a decision whose `asked`
    /// entry is a grant request gives that grant first (refused, with nothing decided,
    /// when the call does not offer the scope, the lifetime is out of range or the
    /// session is full: `grant_refused`), kept once the decision stands (a grant that
    /// then cannot be stored is only not kept).
    pub fn resume_granting(
        &self,
        run_id: &str,
        mut decisions: Vec<ResumeDecision>,
        asked: Vec<Option<GrantRequest>>,
    ) -> impl Future<Output = Result<Resumed, GateError>> + 'static {
        let gate = self.clone();
        let run_id = run_id.to_string();
        async move {
            let given = if asked.iter().any(Option::is_some) {
                gate.give(&run_id, &mut decisions, &asked)?
            } else {
                Vec::new()
            };
            let resumed = gate.resume_run(&run_id, decisions).await?;
            if !given.is_empty() {
                let g = gate.clone();
                let kept = gate
                    .with_grants(Box::pin(async move {
                        let mut book = g.inner.grants.load();
                        book.extend(given);
                        book.prune(now_ms(), KEEP_ENDED_MS);
                        g.inner.grants.save(&book).map(|()| Done::Kept)
                    }))
                    .await;
                // The decision stands either way: later calls ask again.
                drop(kept);
            }
            Ok(resumed)
        }
    }

    /// The grants `asked` for `decisions` on run `run_id`'s marker (core's
    /// `give_for_decisions`), not stored yet.
    fn give(
        &self,
        run_id: &str,
        decisions: &mut [ResumeDecision],
        asked: &[Option<GrantRequest>],
    ) -> Result<Vec<Grant>, GateError> {
        let Some(marker) = self.get_run(run_id)?.and_then(|r| r.marker) else {
            return Ok(Vec::new()); // the resume says why there is nothing to decide
        };
        let now = now_ms();
        let book = self.inner.grants.load();
        book.check_room(
            &marker.owner,
            &marker.session_id,
            asked.iter().flatten().count(),
            now,
        )?;
        let mut ids = crate::ids::CryptoIds::new()?;
        let mut new_id = |_: &toolgate_core::PendingCall| {
            use toolgate_core::IdSource;
            ids.next_id()
                .map_or_else(|_| format!("g-{now}"), |n| format!("g-{n:032x}"))
        };
        Ok(give_for_decisions(
            &self.inner.policy,
            &marker,
            decisions,
            asked,
            None,
            &mut new_id,
            now,
        )?)
    }

    /// Lets the live grants of run `run_id`'s session decide it when they cover every
    /// call (each use counted and stored first); `None`: a person decides (or someone
    /// already did).
    pub fn settle_with_grants(
        &self,
        run_id: &str,
    ) -> impl Future<Output = Result<Option<Resumed>, GateError>> + 'static {
        let gate = self.clone();
        let run_id = run_id.to_string();
        async move {
            let g = gate.clone();
            let done = gate
                .with_grants(Box::pin(async move {
                    let Some(marker) = g.get_run(&run_id)?.and_then(|r| r.marker) else {
                        return Ok(Done::Settled(None));
                    };
                    let mut book = g.inner.grants.load();
                    let now = now_ms();
                    let Some(decisions) = book.settle_marker(&g.inner.policy, &marker, now) else {
                        return Ok(Done::Settled(None));
                    };
                    g.inner.grants.save(&book)?;
                    Ok(Done::Settled(g.resume_run(&run_id, decisions).await.ok()))
                }))
                .await?;
            Ok(match done {
                Done::Settled(r) => r,
                Done::Revoked(_) | Done::Kept => None,
            })
        }
    }
}

#[wasm_bindgen(js_class = Gate)]
impl JsGate {
    /// This session's grants (a person's "always allow", kept by the gate), oldest
    /// first, each with `state`: `live`, `expired`, `revoked` or `used_up`.
    #[wasm_bindgen(unchecked_return_type = "Grant[]")]
    pub fn grants(&self) -> Result<JsValue, JsValue> {
        crate::poison::check()?;
        let out = js_sys::Array::new();
        for (grant, state) in self.gate.grants() {
            let v = to_js(&grant).map_err(into_error)?;
            let state = match state {
                GrantState::Live => "live",
                GrantState::Expired => "expired",
                GrantState::Revoked => "revoked",
                GrantState::UsedUp => "used_up",
            };
            js_sys::Reflect::set(&v, &"state".into(), &state.into())?;
            out.push(&v);
        }
        Ok(out.into())
    }

    /// Revokes grant `id` (every tab sees it at once); resolves to false when there is
    /// none.
    #[wasm_bindgen(js_name = revokeGrant, unchecked_return_type = "Promise<boolean>")]
    pub fn revoke_grant(&self, id: String) -> js_sys::Promise {
        crate::poison::promise(|| {
            let fut = self.gate.revoke_grant(&id);
            Ok(async move { fut.await.map(JsValue::from_bool).map_err(into_error) })
        })
    }

    /// Lets the live grants of the run's session decide parked run `runId` when they
    /// cover every call: resolves to what `resume` resolves with (each result naming
    /// its `grant`), or `null` when a person decides. The approval element does this
    /// for each run it sees parked.
    #[wasm_bindgen(js_name = settleWithGrants, unchecked_return_type = "Promise<Resumed | null>")]
    pub fn settle_with_grants(&self, run_id: String) -> js_sys::Promise {
        crate::poison::promise(|| {
            let fut = self.gate.settle_with_grants(&run_id);
            Ok(async move {
                match fut.await.map_err(into_error)? {
                    Some(resumed) => {
                        crate::js::to_js(&toolgate_core::wire::ResumedView::from(&resumed))
                            .map_err(into_error)
                    }
                    None => Ok(JsValue::NULL),
                }
            })
        })
    }
}
