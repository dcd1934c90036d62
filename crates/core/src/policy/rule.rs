//! User rules (`Bash(npm test:*)`, `Read(**/.env)`, `WebFetch(domain:x)`, `mcp__*`), compiled once, and the session's "always allow" rules.

use crate::call::{Family, ToolCall};
use crate::error::Error;
use crate::glob;
use crate::needle::HasChar;
use crate::verdict::Tier;

/// A compiled rule (`Bash(npm test:*)`, `Read(**/.env)`, `WebFetch(domain:x)`, `mcp__*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The rule as written.
    pub source: String,
    pub(super) matcher: Matcher,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Matcher {
    /// `Bash` alone: every shell command.
    ShellAll,
    /// `Bash(cmd)`: the exact command.
    ShellExact(String),
    /// `Bash(prefix:*)`: the command is `prefix` or starts with `prefix `.
    ShellPrefix(String),
    /// `Bash(glob*)`.
    ShellGlob(String),
    /// `Read(glob)` / `Edit(glob)`: absolute path glob.
    Path(Family, String),
    /// `Read` / `Edit` / `WebFetch` alone: the whole family.
    Family(Family),
    /// `WebFetch(domain:host)` (`*.host` for subdomains).
    Domain(String),
    /// A tool name glob (`mcp__github__*`, `todo_write`), case-insensitive.
    Tool(String),
}

impl Rule {
    /// Compiles a rule string. Paths are resolved against `workspace` / `home`.
    pub fn parse(source: &str, workspace: &str, home: &str) -> Result<Rule, Error> {
        let bad = |message: &str| Error::Rule {
            rule: source.to_string(),
            message: message.to_string(),
        };
        let s = source.trim();
        if s.is_empty() {
            return Err(bad("empty rule"));
        }
        let (tool, spec) = match s.find('(') {
            Some(i) => {
                let Some(inner) = s.get(i + 1..).unwrap_or_default().strip_suffix(')') else {
                    return Err(bad("missing `)` at the end"));
                };
                (s.get(..i).unwrap_or_default(), Some(inner))
            }
            None => (s, None),
        };
        if tool.is_empty()
            || !tool
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '*' | '.'))
        {
            return Err(bad("expected a tool name like `Bash`, `Read`, `Edit`, `WebFetch` or `mcp__server__tool`"));
        }
        let family = match tool.to_ascii_lowercase().as_str() {
            "bash" | "shell" => Some(Family::Shell),
            "read" => Some(Family::Read),
            "edit" | "write" => Some(Family::Edit),
            "webfetch" | "fetch" => Some(Family::Fetch),
            _ => None,
        };
        let matcher = match (family, spec.map(str::trim)) {
            (Some(Family::Shell), None | Some("") | Some("*")) => Matcher::ShellAll,
            (Some(f), None | Some("") | Some("*") | Some("**")) => Matcher::Family(f),
            (Some(Family::Shell), Some(spec)) => {
                let spec = spec.trim();
                if let Some(prefix) = spec.strip_suffix(":*") {
                    if prefix.trim().is_empty() {
                        return Err(bad("empty command prefix before `:*`"));
                    }
                    Matcher::ShellPrefix(collapse_ws(prefix))
                } else if spec.has_char('*') || spec.has_char('?') {
                    Matcher::ShellGlob(collapse_ws(spec))
                } else {
                    Matcher::ShellExact(collapse_ws(spec))
                }
            }
            (Some(Family::Fetch), Some(spec)) => match spec.strip_prefix("domain:") {
                Some(d) if !d.trim().is_empty() => Matcher::Domain(d.trim().to_ascii_lowercase()),
                _ => return Err(bad("WebFetch rules take `domain:HOST`")),
            },
            (Some(f @ (Family::Read | Family::Edit)), Some(spec)) => {
                let p = spec.trim();
                let abs = if p.starts_with("**") || p.starts_with('/') {
                    p.to_string()
                } else if p == "~" || p.starts_with("~/") {
                    format!("{home}{}", p.get(1..).unwrap_or_default())
                } else {
                    format!(
                        "{}/{}",
                        workspace.trim_end_matches('/'),
                        crate::needle::trim_start_matches(p, "./")
                    )
                };
                Matcher::Path(f, abs)
            }
            (Some(_), Some(_)) => return Err(bad("unsupported specifier")),
            (None, Some(_)) => {
                return Err(bad(
                    "only Bash, Read, Edit and WebFetch take a `(…)` specifier",
                ))
            }
            (None, None) => Matcher::Tool(tool.to_ascii_lowercase()),
        };
        Ok(Rule {
            source: s.to_string(),
            matcher,
        })
    }

    /// Does this rule match a (normalised) shell command part?
    pub(super) fn matches_shell(&self, norm: &str) -> bool {
        match &self.matcher {
            Matcher::ShellAll => true,
            Matcher::ShellExact(c) => norm == c,
            Matcher::ShellPrefix(p) => {
                norm == p
                    || (norm.starts_with(p.as_str()) && norm.as_bytes().get(p.len()) == Some(&b' '))
            }
            Matcher::ShellGlob(g) => glob::match_str(g, norm),
            Matcher::Tool(t) => glob::match_str(t, "bash"),
            Matcher::Path(..) | Matcher::Family(_) | Matcher::Domain(_) => false,
        }
    }

    /// Does this rule match a whole non-shell call (read / edit / fetch / mcp / other)?
    pub(super) fn matches_call(
        &self,
        call: &ToolCall,
        family: Family,
        target: Option<&str>,
    ) -> bool {
        match &self.matcher {
            Matcher::Family(f) => *f == family,
            Matcher::Path(f, pat) => {
                *f == family && target.is_some_and(|p| glob::match_path(pat, p))
            }
            Matcher::Domain(d) => {
                family == Family::Fetch
                    && target.is_some_and(|h| match d.strip_prefix("*.") {
                        Some(base) => h.ends_with(&format!(".{base}")),
                        None => h == d,
                    })
            }
            Matcher::Tool(t) => glob::match_str(t, &call.tool.to_ascii_lowercase()),
            Matcher::ShellAll
            | Matcher::ShellExact(_)
            | Matcher::ShellPrefix(_)
            | Matcher::ShellGlob(_) => false,
        }
    }

    /// What the rule matches, in words for the person about to grant it.
    pub fn describe(&self) -> String {
        let tool = |f: &Family| match f {
            Family::Read => "reading",
            Family::Edit => "editing",
            Family::Fetch => "fetching",
            Family::Shell => "running",
            Family::Mcp | Family::Other => "calling",
        };
        match &self.matcher {
            Matcher::ShellAll => "every shell command".into(),
            Matcher::ShellExact(c) => format!("exactly the command `{c}`"),
            Matcher::ShellPrefix(p) => format!(
                "`{p}` with any arguments after it; each command of a line on its own \
                 (what a `;`, `&&`, `|` or `$(…)` adds is judged by itself)"
            ),
            Matcher::ShellGlob(g) => format!("shell commands matching `{g}`, each on its own"),
            Matcher::Path(f, p) => match p.strip_suffix("/**") {
                Some(dir) => format!("{} any file under {dir}/", tool(f)),
                None => format!("{} exactly {p}", tool(f)),
            },
            Matcher::Family(f) => format!("{} any file or URL", tool(f)),
            Matcher::Domain(d) => format!("fetching any URL on {d}"),
            Matcher::Tool(t) => format!("every call of the tool `{t}`"),
        }
    }

    pub(super) fn is_exact_shell(&self) -> Option<&str> {
        match &self.matcher {
            Matcher::ShellExact(c) => Some(c),
            _ => None,
        }
    }
}

pub(super) fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Rules added during a session ("always allow" / "always deny"), checked like the
/// user's allow / deny lists (deny before allow).
#[derive(Debug, Clone, Default)]
pub struct SessionRules {
    pub(super) allow: Vec<Rule>,
    pub(super) ask: Vec<Rule>,
    pub(super) deny: Vec<Rule>,
}

impl SessionRules {
    /// No rules.
    pub fn new() -> SessionRules {
        SessionRules::default()
    }

    /// Adds a rule in the policy-file syntax (`Bash(npm test)`, `Bash(git push:*)`);
    /// `Auto` adds an allow rule, `Ask` an ask rule, `Deny` a deny rule. Paths in the rule
    /// resolve against `/` (session rules come from scopes, which are absolute).
    pub fn add(&mut self, tier: Tier, rule: &str) -> Result<(), Error> {
        let r = Rule::parse(rule, "/", "/")?;
        match tier {
            Tier::Auto => self.allow.push(r),
            Tier::Ask => self.ask.push(r),
            Tier::Deny => self.deny.push(r),
            Tier::Sandbox => {
                return Err(Error::Rule {
                    rule: rule.to_string(),
                    message: "`sandbox` is no rule's tier".to_string(),
                })
            }
        }
        Ok(())
    }

    /// No rule added.
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.ask.is_empty() && self.deny.is_empty()
    }

    /// How many rules were added.
    pub fn len(&self) -> usize {
        self.allow.len() + self.ask.len() + self.deny.len()
    }
}
