//! Shell calls: each simple command's built-in finding, then the user's rules, and the strictest part wins.

use super::combine::{combine, tier_word};
use super::rule::{collapse_ws, Rule, SessionRules};
use super::Policy;
use crate::builtin::{self, Env, RawPart};
use crate::facts::FsFacts;
use crate::rule_id::RuleId;
use crate::verdict::{Part, Tier, Verdict};

/// The bytes the parts' texts may hold together for a command of `len` bytes: four
/// times the command, and 4 KiB. A part's text is a slice of the command, and where a
/// nested script's spans cannot map into it (`eval "…"`), every part in it gets the
/// whole enclosing span: a short command can hold thousands of parts over one long span.
pub(crate) const fn part_text_budget(len: usize) -> usize {
    // No overflow: a command is far below a quarter of the address space.
    len * 4 + 4096
}

/// The most bytes a part's text keeps once [`part_text_budget`] is spent (then `…` ends
/// it; its `span` still gives the whole).
pub(crate) const PART_TEXT_EXCERPT: usize = 80;

/// Keeps `text` whole while the budget lasts, else cuts it to an excerpt, so the
/// verdict's size (and the memory it takes) stays linear in the command's.
fn bound_text(text: &mut String, left: &mut usize) {
    if text.len() <= *left {
        *left -= text.len();
    } else if text.len() > PART_TEXT_EXCERPT {
        // A new string (the long one's memory goes with it); a cut off a character
        // boundary keeps only the `…`.
        *text = [text.get(..PART_TEXT_EXCERPT).unwrap_or_default(), "…"].concat();
    }
}

/// What `toolgate sandbox` withholds from a command it runs, as a verdict's reason says.
pub const SANDBOX_WITHHOLDS: &str = "which withholds the network, writes outside the \
workspace and a private /tmp, .git and the agents' settings (read-only), secret files \
and secret variables, and new privileges";

/// [`SANDBOX_WITHHOLDS`] for a run with HTTPS to named hosts.
#[cfg(feature = "sandbox-verdict")]
const SANDBOX_WITHHOLDS_BUT_NETWORK: &str = "which withholds the rest of the network, \
writes outside the workspace and a private /tmp, .git and the agents' settings \
(read-only), secret files and secret variables, and new privileges";

impl Policy {
    pub(super) fn has_shell_rules(&self, session: &SessionRules) -> bool {
        !(self.allow.is_empty()
            && self.ask.is_empty()
            && self.deny.is_empty()
            && session.is_empty())
    }

    pub(super) fn classify_shell(
        &self,
        cmd: &str,
        session: &SessionRules,
        facts: &FsFacts,
    ) -> Verdict {
        let want_norm = self.has_shell_rules(session);
        let env = Env {
            workspace: &self.workspace,
            home: &self.home,
            default: self.default,
            edits: self.edits,
            facts: (!facts.is_empty()).then_some(facts),
            needs: None,
            trees: facts.has_trees(),
            want_norm,
        };
        let raw = builtin::analyze(cmd, &env);
        // An exact allow rule equal to the whole command covers all its parts: a person
        // approved exactly this command line.
        let whole = if want_norm {
            Some(collapse_ws(cmd))
        } else {
            None
        };
        let exact_whole = whole.as_deref().and_then(|w| {
            self.allow
                .iter()
                .enumerate()
                .map(|(i, r)| (format!("user.allow[{i}]"), r))
                .chain(
                    session
                        .allow
                        .iter()
                        .enumerate()
                        .map(|(i, r)| (format!("session.allow[{i}]"), r)),
                )
                .find(|(_, r)| r.is_exact_shell() == Some(w))
        });
        let mut parts = Vec::with_capacity(raw.len());
        let mut text_left = part_text_budget(cmd.len());
        for rp in raw {
            let (mut part, hard) = self.shell_part(cmd, rp, session, exact_whole.as_ref());
            bound_text(&mut part.text, &mut text_left);
            parts.push((part, hard));
        }
        combine(parts)
    }

    pub(super) fn shell_part(
        &self,
        cmd: &str,
        rp: RawPart,
        session: &SessionRules,
        exact_whole: Option<&(String, &Rule)>,
    ) -> (Part, bool) {
        let text = cmd.get(rp.span[0]..rp.span[1]).unwrap_or("").to_string();
        let f = rp.finding;
        let contain = cfg!(feature = "sandbox-verdict") && self.gives_sandbox();
        let builtin = |f: crate::builtin::Finding, text: String| {
            if contain && f.tier == Tier::Ask && f.is_containable() {
                return Part {
                    tier: Tier::Sandbox,
                    text,
                    rule: RuleId::Sandbox.into(),
                    reason: format!(
                        "{}; runs in toolgate's sandbox, {SANDBOX_WITHHOLDS}",
                        f.reason
                    )
                    .into(),
                    span: Some(f.span),
                };
            }
            #[cfg(feature = "sandbox-verdict")]
            if contain
                && f.tier == Tier::Ask
                && f.needs_registry()
                && !self.sandbox_network.is_empty()
            {
                return Part {
                    tier: Tier::Sandbox,
                    text,
                    rule: RuleId::SandboxRegistry.into(),
                    reason: format!(
                        "it installs from a package registry; runs in toolgate's sandbox with \
                         HTTPS to {} only (the policy's sandbox_network: what it installs \
                         runs there and can reach those hosts), {SANDBOX_WITHHOLDS_BUT_NETWORK}",
                        self.sandbox_network.join(", ")
                    )
                    .into(),
                    span: Some(f.span),
                };
            }
            let reason = match f.withheld_reason() {
                Some(why) if contain && f.tier == Tier::Ask => {
                    format!("{}; not run in the sandbox: {why}", f.reason).into()
                }
                _ => f.reason,
            };
            Part {
                tier: f.tier,
                text,
                rule: f.rule.into(),
                reason,
                span: Some(f.span),
            }
        };
        if f.is_hard() {
            return (builtin(f, text), true);
        }
        if !self.has_shell_rules(session) {
            return (builtin(f, text), false);
        }
        let raw_text = collapse_ws(&text);
        let candidates: Vec<&str> = match rp.norm.as_deref() {
            Some(n) if n != raw_text => vec![n, raw_text.as_str()],
            Some(n) => vec![n],
            None => vec![raw_text.as_str()],
        };
        let always_ask = f.rule.is_uncertain();
        let lists = self.rule_lists(session);
        for (rules, tier, id) in lists {
            if tier == Tier::Auto && (always_ask || rp.norm.is_none()) {
                continue;
            }
            let hit = rules
                .iter()
                .enumerate()
                .find(|(_, r)| candidates.iter().any(|c| r.matches_shell(c)));
            if let Some((i, r)) = hit {
                return (
                    Part {
                        tier,
                        text,
                        rule: format!("{id}[{i}]").into(),
                        reason: format!("matches {} rule `{}`", tier_word(tier), r.source).into(),
                        span: Some(rp.span),
                    },
                    false,
                );
            }
        }
        if let Some((id, r)) = exact_whole {
            if !always_ask && f.tier != Tier::Deny {
                return (
                    Part {
                        tier: Tier::Auto,
                        text,
                        rule: id.clone().into(),
                        reason: format!("the whole command matches allow rule `{}`", r.source)
                            .into(),
                        span: Some(rp.span),
                    },
                    false,
                );
            }
        }
        (builtin(f, text), false)
    }
}
