//! Policies: the built-in rules plus the user's allow / ask / deny lists, compiled once.
//!
//! Order of evaluation (first decisive step wins): built-in hard deny; user deny; user
//! ask; user allow (and session "always allow" rules); built-in defaults. For shell
//! commands every simple command is classified on its own and the strictest part wins.

use crate::builtin::{self, cat, Env, RawPart};
use crate::call::{Family, ToolCall};
use crate::error::Error;
use crate::facts::{FsFacts, FsNeeds};
use crate::glob;
use crate::paths::{self, resolve};
use crate::url::{url_readings, UrlClass};
use crate::verdict::{Part, Tier, Verdict};
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;

/// A compiled rule (`Bash(npm test:*)`, `Read(**/.env)`, `WebFetch(domain:x)`, `mcp__*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The rule as written.
    pub source: String,
    matcher: Matcher,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Matcher {
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
                let Some(inner) = s[i + 1..].strip_suffix(')') else {
                    return Err(bad("missing `)` at the end"));
                };
                (&s[..i], Some(inner))
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
                } else if spec.contains('*') || spec.contains('?') {
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
                    format!("{home}{}", &p[1..])
                } else {
                    format!(
                        "{}/{}",
                        workspace.trim_end_matches('/'),
                        p.trim_start_matches("./")
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
    fn matches_shell(&self, norm: &str) -> bool {
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
    fn matches_call(&self, call: &ToolCall, family: Family, target: Option<&str>) -> bool {
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

    fn is_exact_shell(&self) -> Option<&str> {
        match &self.matcher {
            Matcher::ShellExact(c) => Some(c),
            _ => None,
        }
    }
}

fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Rules added during a session ("always allow" / "always deny"), checked like the
/// user's allow / deny lists (deny before allow).
#[derive(Debug, Clone, Default)]
pub struct SessionRules {
    allow: Vec<Rule>,
    ask: Vec<Rule>,
    deny: Vec<Rule>,
}

impl SessionRules {
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
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.ask.is_empty() && self.deny.is_empty()
    }

    pub fn len(&self) -> usize {
        self.allow.len() + self.ask.len() + self.deny.len()
    }
}

/// The TOML shape of a policy file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyFile {
    workspace: Option<String>,
    home: Option<String>,
    default: Option<String>,
    edits: Option<String>,
    #[serde(default)]
    rules: RulesFile,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFile {
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    ask: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
}

/// A compiled policy. Compile once, classify many times.
#[derive(Debug, Clone)]
pub struct Policy {
    workspace: String,
    home: String,
    default: Tier,
    /// The tier of an edit inside the workspace that is not protected (edit tools and
    /// shell writes alike): `auto`, or `ask` with `edits = "ask"`.
    edits: Tier,
    allow_src: Vec<String>,
    ask_src: Vec<String>,
    deny_src: Vec<String>,
    allow: Vec<Rule>,
    ask: Vec<Rule>,
    deny: Vec<Rule>,
}

const DEFAULT_WORKSPACE: &str = "/workspace";
const DEFAULT_HOME: &str = "/root";

fn clean_dir(d: &str) -> String {
    if d.starts_with('/') {
        paths::normalize(d)
    } else {
        paths::normalize(&format!("/{d}"))
    }
}

impl Policy {
    /// The built-in policy with the given workspace and home directories.
    pub fn defaults(workspace: &str, home: &str) -> Policy {
        Policy {
            workspace: clean_dir(workspace),
            home: clean_dir(home),
            default: Tier::Ask,
            edits: Tier::Auto,
            allow_src: Vec::new(),
            ask_src: Vec::new(),
            deny_src: Vec::new(),
            allow: Vec::new(),
            ask: Vec::new(),
            deny: Vec::new(),
        }
    }

    /// Parses a TOML policy file. Errors name the line and the problem.
    pub fn from_toml(text: &str) -> Result<Policy, Error> {
        // Size, nesting and dotted keys are bounded first: the TOML parser's own cost
        // is not linear in hostile files (see `toml_shape`).
        crate::toml_shape::check(text)
            .map_err(|(line, message)| Error::Policy { line, message })?;
        let file: PolicyFile = basic_toml::from_str(text).map_err(|e| {
            let line = e.line_col().map_or(1, |(l, _)| l + 1);
            let msg = e.to_string();
            let msg = match msg.find(" at line ") {
                Some(i) => msg[..i].to_string(),
                None => msg,
            };
            Error::Policy { line, message: msg }
        })?;
        let line_of = |needle: &str, key: &str| -> usize {
            let quoted = format!("\"{needle}\"");
            let single = format!("'{needle}'");
            text.lines()
                .position(|l| l.contains(&quoted) || l.contains(&single))
                .or_else(|| text.lines().position(|l| l.trim_start().starts_with(key)))
                .map_or(1, |i| i + 1)
        };
        let default = match file.default.as_deref() {
            None => Tier::Ask,
            Some(d) => Tier::parse(d).ok_or_else(|| Error::Policy {
                line: line_of(d, "default"),
                message: format!("`default` must be \"auto\", \"ask\" or \"deny\", not {d:?}"),
            })?,
        };
        let edits = match file.edits.as_deref() {
            None | Some("auto") => Tier::Auto,
            Some("ask") => Tier::Ask,
            Some(e) => {
                return Err(Error::Policy {
                    line: line_of(e, "edits"),
                    message: format!("`edits` must be \"auto\" or \"ask\", not {e:?}"),
                })
            }
        };
        for (key, v) in [("workspace", &file.workspace), ("home", &file.home)] {
            if let Some(v) = v {
                if !v.starts_with('/') {
                    return Err(Error::Policy {
                        line: line_of(v, key),
                        message: format!("`{key}` must be an absolute path, not {v:?}"),
                    });
                }
            }
        }
        let mut p = Policy::defaults(
            file.workspace.as_deref().unwrap_or(DEFAULT_WORKSPACE),
            file.home.as_deref().unwrap_or(DEFAULT_HOME),
        );
        p.default = default;
        p.edits = edits;
        p.allow_src = file.rules.allow;
        p.ask_src = file.rules.ask;
        p.deny_src = file.rules.deny;
        p.compile().map_err(|(src, e)| match e {
            Error::Rule { rule, message } => Error::Policy {
                line: line_of(&src, "["),
                message: format!("bad rule `{rule}`: {message}"),
            },
            other => other,
        })?;
        Ok(p)
    }

    fn compile(&mut self) -> Result<(), (String, Error)> {
        let comp = |list: &[String], ws: &str, home: &str| -> Result<Vec<Rule>, (String, Error)> {
            list.iter()
                .map(|s| Rule::parse(s, ws, home).map_err(|e| (s.clone(), e)))
                .collect()
        };
        self.allow = comp(&self.allow_src, &self.workspace, &self.home)?;
        self.ask = comp(&self.ask_src, &self.workspace, &self.home)?;
        self.deny = comp(&self.deny_src, &self.workspace, &self.home)?;
        Ok(())
    }

    /// The same policy with another workspace (rules with relative paths re-resolve).
    pub fn with_workspace(mut self, workspace: &str) -> Policy {
        self.workspace = clean_dir(workspace);
        if self.compile().is_err() {
            // Rules compiled once already; re-resolving paths cannot make them invalid.
        }
        self
    }

    /// The same policy with another home directory.
    pub fn with_home(mut self, home: &str) -> Policy {
        self.home = clean_dir(home);
        if self.compile().is_err() {
            // As above: compilation succeeded before and paths do not change validity.
        }
        self
    }

    pub fn workspace(&self) -> &str {
        &self.workspace
    }

    pub fn home(&self) -> &str {
        &self.home
    }

    pub fn default_tier(&self) -> Tier {
        self.default
    }

    /// The tier of an unprotected edit inside the workspace (the `edits` setting).
    pub fn edits_tier(&self) -> Tier {
        self.edits
    }

    /// The same policy with every edit inside the workspace at tier `edits` (`Ask`
    /// makes them all ask, for edit tools and shell writes alike).
    pub fn with_edits(mut self, edits: Tier) -> Policy {
        self.edits = edits;
        self
    }

    /// Classifies a tool call.
    pub fn classify(&self, call: &ToolCall) -> Verdict {
        self.classify_with(call, &SessionRules::default())
    }

    /// Classifies a raw JSON value `{"tool":…, "args":…}`; anything malformed is `ask`.
    pub fn classify_value(&self, value: &Value) -> Verdict {
        match ToolCall::from_value(value) {
            Ok(call) => self.classify(&call),
            Err(why) => malformed(why),
        }
    }

    /// Classifies a tool call with session rules checked beside the user's rules.
    pub fn classify_with(&self, call: &ToolCall, session: &SessionRules) -> Verdict {
        self.classify_with_facts(call, session, &FsFacts::default())
    }

    /// What the verdict for `call` depends on in the file system: the paths it reads
    /// or writes and the trees its recursive reads walk. A host that has the files
    /// looks them up ([`FsFacts`]) and calls [`Policy::classify_with_facts`].
    pub fn fs_needs(&self, call: &ToolCall) -> FsNeeds {
        let needs = std::cell::RefCell::new(FsNeeds::default());
        match call.family() {
            Family::Shell => {
                if let Ok(cmd) = str_arg(call, &["command"]) {
                    let env = Env {
                        workspace: &self.workspace,
                        home: &self.home,
                        default: self.default,
                        edits: self.edits,
                        facts: None,
                        needs: Some(&needs),
                        trees: false,
                        want_norm: false,
                    };
                    builtin::analyze(cmd, &env);
                }
            }
            Family::Read | Family::Edit => {
                if let Ok(list) = path_args(call) {
                    let mut n = needs.borrow_mut();
                    for path in list.into_iter().filter(|p| !p.is_empty()) {
                        n.paths
                            .insert(paths::join(path, &self.workspace, &self.home));
                    }
                }
            }
            Family::Fetch | Family::Mcp | Family::Other => {}
        }
        needs.into_inner()
    }

    /// [`Policy::classify_with`] with what a host found on its file system
    /// ([`Policy::fs_needs`]): a path read or written through a symbolic link is also
    /// judged as the file it names, and a recursive read whose trees hold no secret
    /// file is read-only.
    pub fn classify_with_facts(
        &self,
        call: &ToolCall,
        session: &SessionRules,
        facts: &FsFacts,
    ) -> Verdict {
        let family = call.family();
        match family {
            Family::Shell => match str_arg(call, &["command"]) {
                Ok(cmd) => self.classify_shell(cmd, session, facts),
                Err(v) => v,
            },
            Family::Read | Family::Edit => match path_args(call) {
                Ok(paths) => strictest(
                    paths
                        .into_iter()
                        .map(|path| self.classify_path(call, family, path, session, facts)),
                ),
                Err(v) => v,
            },
            Family::Fetch => match str_arg(call, &["url"]) {
                Ok(url) => self.classify_fetch(call, url, session),
                Err(v) => v,
            },
            Family::Mcp | Family::Other => {
                if let Some(v) = self.user_rules_call(call, family, None, session) {
                    return v;
                }
                Verdict::new(
                    self.default,
                    if family == Family::Mcp {
                        "builtin.mcp"
                    } else {
                        "builtin.other"
                    },
                    format!(
                        "no rule decides tool `{}`: the policy default applies",
                        call.tool
                    ),
                )
            }
        }
    }

    fn user_rules_call(
        &self,
        call: &ToolCall,
        family: Family,
        target: Option<&str>,
        session: &SessionRules,
    ) -> Option<Verdict> {
        let lists: [(&[Rule], Tier, &str); 6] = [
            (&self.deny, Tier::Deny, "user.deny"),
            (&session.deny, Tier::Deny, "session.deny"),
            (&self.ask, Tier::Ask, "user.ask"),
            (&session.ask, Tier::Ask, "session.ask"),
            (&self.allow, Tier::Auto, "user.allow"),
            (&session.allow, Tier::Auto, "session.allow"),
        ];
        for (rules, tier, id) in lists {
            if let Some((i, r)) = rules
                .iter()
                .enumerate()
                .find(|(_, r)| r.matches_call(call, family, target))
            {
                return Some(Verdict::new(
                    tier,
                    format!("{id}[{i}]"),
                    format!("matches {} rule `{}`", tier_word(tier), r.source),
                ));
            }
        }
        None
    }

    fn classify_path(
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
        if path.contains('\0') {
            return malformed("`path` contains a NUL byte");
        }
        let abs = resolve(path, &self.workspace, &self.home);
        if family == Family::Edit && paths::under_any(&abs, paths::EDIT_DENY_DIRS) {
            return Verdict::new(
                Tier::Deny,
                "builtin.edit-system",
                format!("edits a system file: {abs}"),
            );
        }
        if let Some(v) = self.user_rules_call(call, family, Some(&abs), session) {
            return v;
        }
        if family != Family::Read {
            let (tier, rule, reason) = crate::edit::verdict(&abs, &self.workspace, self.edits);
            if facts.is_empty() {
                return Verdict::new(tier, rule, reason);
            }
            // Through a symbolic link the file edited is the target too.
            return match facts.resolve(&paths::join(path, &self.workspace, &self.home)) {
                Some(real) if real != abs => {
                    let (t2, r2, why2) = crate::edit::verdict(&real, &self.workspace, self.edits);
                    if t2 > tier {
                        Verdict::new(t2, r2, format!("{why2} (through a symbolic link: {abs})"))
                    } else {
                        Verdict::new(tier, rule, reason)
                    }
                }
                Some(_) => Verdict::new(tier, rule, reason),
                None => Verdict::new(
                    Tier::Ask,
                    "builtin.edit-outside",
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
                        "builtin.read-outside",
                        format!("reads through symbolic links that loop: {abs}"),
                    )
                }
            }
        }
        Verdict::new(
            Tier::Auto,
            "builtin.read-workspace",
            cat(&["reads inside the workspace: ", &abs]),
        )
    }

    /// The `ask` verdict for reading `abs` (a secret file, or outside the workspace);
    /// `None` for a workspace file. `link`: the path written, when `abs` is what a
    /// symbolic link along it really names.
    fn read_asks(&self, abs: &str, link: Option<&str>) -> Option<Verdict> {
        let (rule, what) = if paths::is_secret(abs) {
            ("builtin.read-secret", "reads a secret file: ")
        } else if !paths::is_within(abs, &self.workspace) {
            ("builtin.read-outside", "reads outside the workspace: ")
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
    fn classify_fetch(&self, call: &ToolCall, url: &str, session: &SessionRules) -> Verdict {
        if url.len() > MAX_ARG_BYTES {
            return too_long("url", url.len());
        }
        strictest(
            url_readings(url)
                .into_iter()
                .map(|class| self.fetch_verdict(call, class, session)),
        )
    }

    fn fetch_verdict(&self, call: &ToolCall, class: UrlClass, session: &SessionRules) -> Verdict {
        match &class {
            UrlClass::Scheme { scheme } => {
                return Verdict::new(
                    Tier::Deny,
                    "builtin.fetch-scheme",
                    format!("fetches a `{scheme}:` URL; only http and https are allowed"),
                );
            }
            UrlClass::Metadata { host } => {
                return Verdict::new(
                    Tier::Deny,
                    "builtin.fetch-metadata",
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
                "builtin.fetch-public",
                cat(&["fetches a public http(s) host: ", &host]),
            ),
            UrlClass::Internal { host, why } => Verdict::new(
                Tier::Ask,
                "builtin.fetch-private",
                cat(&["fetches ", why, ": ", &host]),
            ),
            UrlClass::Malformed { why } => malformed(&format!("bad URL ({why})")),
            UrlClass::Scheme { .. } | UrlClass::Metadata { .. } => {
                Verdict::new(Tier::Deny, "builtin.fetch-scheme", "unreachable")
            }
        }
    }

    fn has_shell_rules(&self, session: &SessionRules) -> bool {
        !(self.allow.is_empty()
            && self.ask.is_empty()
            && self.deny.is_empty()
            && session.is_empty())
    }

    fn classify_shell(&self, cmd: &str, session: &SessionRules, facts: &FsFacts) -> Verdict {
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
        for rp in raw {
            parts.push(self.shell_part(cmd, rp, session, exact_whole.as_ref()));
        }
        combine(parts)
    }

    fn shell_part(
        &self,
        cmd: &str,
        rp: RawPart,
        session: &SessionRules,
        exact_whole: Option<&(String, &Rule)>,
    ) -> (Part, bool) {
        let text = cmd.get(rp.span[0]..rp.span[1]).unwrap_or("").to_string();
        let f = rp.finding;
        let builtin = |f: crate::builtin::Finding, text: String| Part {
            tier: f.tier,
            text,
            rule: Cow::Borrowed(f.rule),
            reason: f.reason,
            span: Some(f.span),
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
        let always_ask = matches!(
            f.rule,
            "builtin.shell.dynamic"
                | "builtin.shell.unparseable"
                | "builtin.shell.too-long"
                | "builtin.shell.too-complex"
        );
        let lists: [(&[Rule], Tier, &str); 6] = [
            (&self.deny, Tier::Deny, "user.deny"),
            (&session.deny, Tier::Deny, "session.deny"),
            (&self.ask, Tier::Ask, "user.ask"),
            (&session.ask, Tier::Ask, "session.ask"),
            (&self.allow, Tier::Auto, "user.allow"),
            (&session.allow, Tier::Auto, "session.allow"),
        ];
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
                if v.parts.iter().any(|p| {
                    matches!(
                        p.rule.as_ref(),
                        "builtin.shell.dynamic"
                            | "builtin.shell.unparseable"
                            | "builtin.shell.too-long"
                            | "builtin.shell.too-complex"
                    ) || p.tier == Tier::Deny
                }) {
                    return Vec::new();
                }
                let Ok(cmd) = str_arg(call, &["command"]) else {
                    return Vec::new();
                };
                let cmd = collapse_ws(cmd);
                if cmd.contains(')') {
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
                    let prefix = match words.as_slice() {
                        [p, s, _, ..] if sub_ok(s) => Some(format!("{p} {s}")),
                        [p, _, ..] => Some((*p).to_string()),
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
                    if i > 0 {
                        out.push(format!("{tool}({}/**)", &abs[..i]));
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

fn tier_word(t: Tier) -> &'static str {
    match t {
        Tier::Auto => "allow",
        Tier::Ask => "ask",
        Tier::Deny => "deny",
    }
}

/// The longest path or URL classified (as for shell commands): past it the call is
/// `ask` (`builtin.too-long`) without being read, so its cost is bounded.
pub const MAX_ARG_BYTES: usize = builtin::MAX_COMMAND_BYTES;

fn too_long(what: &str, len: usize) -> Verdict {
    Verdict::new(
        Tier::Ask,
        "builtin.too-long",
        format!("`{what}` too long to classify ({len} bytes, limit {MAX_ARG_BYTES})"),
    )
}

fn malformed(why: &str) -> Verdict {
    Verdict::new(
        Tier::Ask,
        "builtin.malformed",
        format!("malformed tool call: {why}"),
    )
}

fn str_arg<'c>(call: &'c ToolCall, keys: &[&str]) -> Result<&'c str, Verdict> {
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
    Err(malformed(&format!("missing `{}`", keys[0])))
}

/// The keys that name the file of a read / edit call (DESIGN §1: `path` or `file_path`).
const PATH_KEYS: [&str; 2] = ["path", "file_path"];

/// Every path a read / edit call names, one per key present, duplicates dropped. The
/// tool may use any of them, so each is classified and the strictest wins; a key that
/// is present but not a string makes the call malformed (`ask`), as does no key at all.
fn path_args(call: &ToolCall) -> Result<Vec<&str>, Verdict> {
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

/// The strictest of several verdicts for one call (one per path key or URL reading):
/// the highest tier, a built-in hard deny before a user deny, else the first.
fn strictest(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
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
/// A hard-deny part outranks a user-rule deny so `rule` names the built-in.
fn combine(parts: Vec<(Part, bool)>) -> Verdict {
    let mut best: Option<usize> = None;
    for (i, (p, hard)) in parts.iter().enumerate() {
        best = match best {
            None => Some(i),
            Some(b) => {
                let (bp, bhard) = &parts[b];
                if p.tier > bp.tier || (p.tier == bp.tier && *hard && !bhard) {
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
        None => Verdict::new(Tier::Ask, "builtin.shell.empty", "no command"),
    }
}
