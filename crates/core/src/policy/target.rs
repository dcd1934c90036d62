//! File and fetch calls: the built-in verdict of a path (system, secret, outside the workspace) and of a URL (scheme, metadata, private, public).

use super::combine::{malformed, strictest, too_long};
use super::rule::SessionRules;
use super::{Policy, MAX_ARG_BYTES};
use crate::builtin::cat;
use crate::call::{Family, ToolCall};
use crate::facts::FsFacts;
use crate::needle::HasChar;
use crate::paths::{self, resolve};
use crate::rule_id::RuleId;
use crate::url::{url_readings, UrlClass};
use crate::verdict::{Tier, Verdict};
use serde_json::Value;

/// The keys that name the file of a read / edit call (DESIGN §1: `path` or `file_path`;
/// Cursor's `target_file`; Gemini CLI's `absolute_path`, its `read_file` and
/// `write_file` argument before `file_path`; OpenCode's `filePath`, its `read`, `write`
/// and `edit`).
pub(super) const PATH_KEYS: [&str; 5] = [
    "path",
    "file_path",
    "target_file",
    "absolute_path",
    "filePath",
];

/// Every path a read / edit call names, one per key present, duplicates dropped. The
/// tool may use any of them, so each is classified and the strictest wins; a key that
/// is present but not a string makes the call malformed (`ask`), as does no key at all.
pub(super) fn path_args(call: &ToolCall) -> Result<Vec<&str>, Verdict> {
    let Some(obj) = call.args.as_object() else {
        return Err(malformed("`args` must be an object"));
    };
    let mut out: Vec<&str> = Vec::with_capacity(PATH_KEYS.len());
    for k in PATH_KEYS {
        match obj.get(k) {
            None => {}
            Some(Value::String(s)) if out.contains(&s.as_str()) => {}
            Some(Value::String(s)) => out.push(s),
            Some(other) => {
                return Err(malformed(&format!(
                    "`{k}` must be a string, not {}",
                    crate::call::json_kind(other)
                )));
            }
        }
    }
    if out.is_empty() {
        return Err(malformed("missing `path`"));
    }
    Ok(out)
}

impl Policy {
    pub(super) fn classify_path(
        &self,
        call: &ToolCall,
        family: Family,
        path: &str,
        session: &SessionRules,
        facts: &FsFacts,
    ) -> Verdict {
        if path.is_empty() {
            return malformed("`path` is empty");
        }
        if path.len() > MAX_ARG_BYTES {
            return too_long("path", path.len());
        }
        if path.has_char('\0') {
            return malformed("`path` contains a NUL byte");
        }
        let abs = resolve(path, &self.workspace, &self.home);
        if family == Family::Edit && paths::under_any(&abs, paths::EDIT_DENY_DIRS) {
            return Verdict::new(
                Tier::Deny,
                RuleId::EditSystem,
                format!("edits a system file: {abs}"),
            );
        }
        if family == Family::Edit {
            if let Some(what) = paths::self_approval(&abs, &self.home) {
                return Verdict::new(
                    Tier::Deny,
                    RuleId::SelfApproval,
                    format!("an agent may not write {what}: {abs}"),
                );
            }
        }
        if let Some(v) = self.user_rules_call(call, family, Some(&abs), session) {
            return v;
        }
        if family != Family::Read {
            let (tier, rule, reason) =
                crate::edit::verdict(&abs, &self.workspace, &self.home, self.edits);
            if facts.is_empty() {
                return Verdict::new(tier, rule, reason);
            }
            // Through a symbolic link the file edited is the target too.
            return match facts.resolve(&paths::join(path, &self.workspace, &self.home)) {
                Some(real) if real != abs => {
                    let (t2, r2, why2) =
                        crate::edit::verdict(&real, &self.workspace, &self.home, self.edits);
                    if t2 > tier {
                        Verdict::new(t2, r2, format!("{why2} (through a symbolic link: {abs})"))
                    } else {
                        Verdict::new(tier, rule, reason)
                    }
                }
                Some(_) => Verdict::new(tier, rule, reason),
                None => Verdict::new(
                    Tier::Ask,
                    RuleId::EditOutside,
                    format!("edits through symbolic links that loop: {abs}"),
                ),
            };
        }
        if let Some(v) = self.read_asks(&abs, None) {
            return v;
        }
        // Through a symbolic link the file read is its target: judged the same way.
        if !facts.is_empty() {
            match facts.resolve(&paths::join(path, &self.workspace, &self.home)) {
                Some(real) => {
                    if let Some(v) = self.read_asks(&real, Some(&abs)) {
                        return v;
                    }
                }
                None => {
                    return Verdict::new(
                        Tier::Ask,
                        RuleId::ReadOutside,
                        format!("reads through symbolic links that loop: {abs}"),
                    )
                }
            }
        }
        Verdict::new(
            Tier::Auto,
            RuleId::ReadWorkspace,
            cat(&["reads inside the workspace: ", &abs]),
        )
    }

    /// The `ask` verdict for reading `abs` (a secret file, or outside the workspace);
    /// `None` for a workspace file. `link`: the path written, when `abs` is what a
    /// symbolic link along it really names.
    pub(super) fn read_asks(&self, abs: &str, link: Option<&str>) -> Option<Verdict> {
        let (rule, what) = if paths::is_secret(abs) {
            (RuleId::ReadSecret, "reads a secret file: ")
        } else if paths::is_foreign(abs) {
            (
                RuleId::ReadOutside,
                "reads a Windows path (a drive letter or `\\`), whose place toolgate cannot tell: ",
            )
        } else if !paths::is_within(abs, &self.workspace) {
            (RuleId::ReadOutside, "reads outside the workspace: ")
        } else {
            return None;
        };
        let reason = match link {
            None => cat(&[what, abs]),
            Some(l) => format!("{what}{abs} (through a symbolic link: {l})"),
        };
        Some(Verdict::new(Tier::Ask, rule, reason))
    }

    /// Every plausible reading of the URL (see [`url_readings`]) is classified on its
    /// own, user rules included; the strictest verdict wins.
    pub(super) fn classify_fetch(
        &self,
        call: &ToolCall,
        url: &str,
        session: &SessionRules,
    ) -> Verdict {
        if url.len() > MAX_ARG_BYTES {
            return too_long("url", url.len());
        }
        strictest(
            url_readings(url)
                .into_iter()
                .map(|class| self.fetch_verdict(call, class, session)),
        )
    }

    pub(super) fn fetch_verdict(
        &self,
        call: &ToolCall,
        class: UrlClass,
        session: &SessionRules,
    ) -> Verdict {
        match &class {
            UrlClass::Scheme { scheme } => {
                return Verdict::new(
                    Tier::Deny,
                    RuleId::FetchScheme,
                    format!("fetches a `{scheme}:` URL; only http and https are allowed"),
                );
            }
            UrlClass::Metadata { host } => {
                return Verdict::new(
                    Tier::Deny,
                    RuleId::FetchMetadata,
                    format!("fetches a cloud metadata endpoint: {host}"),
                );
            }
            UrlClass::Public { .. } | UrlClass::Internal { .. } | UrlClass::Malformed { .. } => {}
        }
        let host = match &class {
            UrlClass::Public { host } | UrlClass::Internal { host, .. } => Some(host.as_str()),
            _ => None,
        };
        if let Some(v) = self.user_rules_call(call, Family::Fetch, host, session) {
            if v.tier != Tier::Auto || !matches!(class, UrlClass::Malformed { .. }) {
                return v;
            }
        }
        match class {
            UrlClass::Public { host } => Verdict::new(
                Tier::Auto,
                RuleId::FetchPublic,
                cat(&["fetches a public http(s) host: ", &host]),
            ),
            UrlClass::Internal { host, why } => Verdict::new(
                Tier::Ask,
                RuleId::FetchPrivate,
                cat(&["fetches ", why, ": ", &host]),
            ),
            UrlClass::Malformed { why } => malformed(&format!("bad URL ({why})")),
            UrlClass::Scheme { .. } | UrlClass::Metadata { .. } => {
                Verdict::new(Tier::Deny, RuleId::FetchScheme, "unreachable")
            }
        }
    }
}
