//! Verdicts of bad arguments, and how parts combine into one verdict.

use super::MAX_ARG_BYTES;
use crate::call::ToolCall;
use crate::rule_id::RuleId;
use crate::verdict::{Part, Tier, Verdict};
use serde_json::Value;

pub(super) fn tier_word(t: Tier) -> &'static str {
    match t {
        Tier::Auto => "allow",
        Tier::Sandbox => "sandbox",
        Tier::Ask => "ask",
        Tier::Deny => "deny",
    }
}

pub(super) fn too_long(what: &str, len: usize) -> Verdict {
    Verdict::new(
        Tier::Ask,
        RuleId::TooLong,
        format!("`{what}` too long to classify ({len} bytes, limit {MAX_ARG_BYTES})"),
    )
}

pub(super) fn malformed(why: &str) -> Verdict {
    Verdict::new(
        Tier::Ask,
        RuleId::Malformed,
        format!("malformed tool call: {why}"),
    )
}

pub(super) fn str_arg<'c>(call: &'c ToolCall, keys: &[&str]) -> Result<&'c str, Verdict> {
    let Some(obj) = call.args.as_object() else {
        return Err(malformed("`args` must be an object"));
    };
    for k in keys {
        match obj.get(*k) {
            Some(Value::String(s)) => return Ok(s),
            Some(other) => {
                return Err(malformed(&format!(
                    "`{k}` must be a string, not {}",
                    crate::call::json_kind(other)
                )));
            }
            None => {}
        }
    }
    Err(malformed(&format!(
        "missing `{}`",
        keys.first().copied().unwrap_or_default()
    )))
}

/// The strictest of several verdicts for one call (one per path key or URL reading):
/// the highest tier, a built-in hard deny before a user deny, else the first.
pub(super) fn strictest(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
    let mut best: Option<Verdict> = None;
    for v in verdicts {
        best = match best {
            Some(b)
                if !(v.tier > b.tier
                    || (v.tier == b.tier && v.is_hard_deny() && !b.is_hard_deny())) =>
            {
                Some(b)
            }
            _ => Some(v),
        };
    }
    best.unwrap_or_else(|| malformed("nothing to classify"))
}

/// The strictest part decides; the first part of that tier gives rule, reason, span.
/// A hard-deny part outranks a user-rule deny so `rule` names the built-in, and an
/// install from a registry outranks another `sandbox` part (the run needs its hosts).
pub(super) fn combine(parts: Vec<(Part, bool)>) -> Verdict {
    let registry =
        |p: &Part| cfg!(feature = "sandbox-verdict") && p.rule == RuleId::SandboxRegistry.as_str();
    let mut best: Option<usize> = None;
    for (i, (p, hard)) in parts.iter().enumerate() {
        best = match best {
            None => Some(i),
            Some(b) => {
                let Some((bp, bhard)) = parts.get(b) else {
                    continue;
                };
                if p.tier > bp.tier
                    || (p.tier == bp.tier && *hard && !bhard)
                    || (p.tier == bp.tier && registry(p) && !registry(bp))
                {
                    Some(i)
                } else {
                    Some(b)
                }
            }
        };
    }
    let parts: Vec<Part> = parts.into_iter().map(|(p, _)| p).collect();
    match best.and_then(|b| parts.get(b)) {
        Some(p) => {
            let (tier, rule, reason, span) = (p.tier, p.rule.clone(), p.reason.clone(), p.span);
            Verdict {
                tier,
                rule,
                reason,
                span,
                parts,
            }
        }
        None => Verdict::new(Tier::Ask, RuleId::ShellEmpty, "no command"),
    }
}
