//! The scopes an "always allow" answer may cover for a call, narrowest first.

use super::combine::str_arg;
use super::rule::collapse_ws;
use super::target::path_args;
use super::Policy;
use crate::call::{Family, ToolCall};
use crate::needle::HasChar;
use crate::paths::resolve;
use crate::rule_id::RuleId;
use crate::url::{url_readings, UrlClass};
use crate::verdict::Tier;

impl Policy {
    /// The "always allow" scopes a prompt may offer for this call, narrowest first,
    /// as rule strings (`Bash(git push origin main)`, `Bash(git push:*)`). Empty when no
    /// rule may allow it (hard deny, dynamic or unparseable commands, malformed calls).
    pub fn scopes(&self, call: &ToolCall) -> Vec<String> {
        let v = self.classify(call);
        if v.is_hard_deny() || v.rule.starts_with("input.") {
            return Vec::new();
        }
        // A user ask or deny rule outranks every allow rule: an "always allow" scope
        // could never take effect, so none is offered.
        let outranked = |rule: &str| rule.starts_with("user.ask") || rule.starts_with("user.deny");
        if outranked(&v.rule) || v.parts.iter().any(|p| outranked(&p.rule)) {
            return Vec::new();
        }
        match call.family() {
            Family::Shell => {
                if v.parts
                    .iter()
                    .any(|p| RuleId::is_uncertain_id(&p.rule) || p.tier == Tier::Deny)
                {
                    return Vec::new();
                }
                let Ok(cmd) = str_arg(call, &["command"]) else {
                    return Vec::new();
                };
                // A call run elsewhere (`cwd`, `workdir`, …) or with more words: a rule
                // for the command alone would cover it anywhere. None is offered.
                if !matches!(super::shell_args::shell_script(call), Ok((s, at)) if at == [0, s.len()])
                {
                    return Vec::new();
                }
                let cmd = collapse_ws(cmd);
                if cmd.has_char(')') {
                    // A `)` would end the rule's specifier early: offer nothing rather
                    // than a rule that means something else.
                    return Vec::new();
                }
                let mut out = vec![format!("Bash({cmd})")];
                if v.parts.len() == 1 {
                    let words: Vec<&str> = cmd.split(' ').collect();
                    let sub_ok = |w: &str| {
                        !w.is_empty()
                            && w.chars().all(|c| {
                                c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.')
                            })
                            && !w.starts_with('-')
                    };
                    // One program with its first argument fixed (a subcommand, never
                    // a flag): `git push:*`, `npm publish:*`. Never the program alone,
                    // which would reach every other subcommand of it.
                    let prefix = match words.as_slice() {
                        [p, s, ..] if sub_ok(s) => Some(format!("{p} {s}")),
                        _ => None,
                    };
                    if let Some(prefix) = prefix {
                        if !prefix.contains(['*', '?', '(']) {
                            out.push(format!("Bash({prefix}:*)"));
                        }
                    }
                }
                out
            }
            Family::Read | Family::Edit => {
                let Ok(paths) = path_args(call) else {
                    return Vec::new();
                };
                // A scope only when every path key names the same file: a decoy key
                // must not earn a scope for the real target (or the other way round).
                let mut abs_all = paths
                    .iter()
                    .map(|p| resolve(p, &self.workspace, &self.home));
                let Some(abs) = abs_all.next() else {
                    return Vec::new();
                };
                if abs_all.any(|other| other != abs) {
                    return Vec::new();
                }
                if abs.contains(['*', '?', '(', ')']) {
                    return Vec::new();
                }
                let tool = if call.family() == Family::Read {
                    "Read"
                } else {
                    "Edit"
                };
                let mut out = vec![format!("{tool}({abs})")];
                if let Some(i) = abs.rfind('/') {
                    // Never a directory the home directory is in (or the home itself):
                    // that would reach every project and setting of the user.
                    let dir = abs.get(..i).unwrap_or_default();
                    let home = self.home.trim_end_matches('/');
                    if i > 0 && dir != home && !home.starts_with(&format!("{dir}/")) {
                        out.push(format!("{tool}({}/**)", abs.get(..i).unwrap_or_default()));
                    }
                }
                out
            }
            Family::Fetch => {
                let Ok(url) = str_arg(call, &["url"]) else {
                    return Vec::new();
                };
                // A domain scope only when every reading of the URL names the same
                // host (`http://a.com\@b.com/` has two: no scope).
                let mut hosts = url_readings(url).into_iter().map(|class| match class {
                    UrlClass::Public { host } | UrlClass::Internal { host, .. } => Some(host),
                    _ => None,
                });
                match hosts.next() {
                    Some(Some(host)) if hosts.all(|h| h.as_deref() == Some(host.as_str())) => {
                        vec![format!("WebFetch(domain:{host})")]
                    }
                    _ => Vec::new(),
                }
            }
            Family::Mcp | Family::Other => {
                if call
                    .tool
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
                {
                    vec![call.tool.clone()]
                } else {
                    Vec::new()
                }
            }
        }
    }
}
