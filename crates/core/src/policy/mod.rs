//! Policies: the built-in rules plus the user's allow / ask / deny lists, compiled once.
//!
//! Order of evaluation (first decisive step wins): built-in hard deny; user deny; user
//! ask; user allow (and session "always allow" rules); built-in defaults. For shell
//! commands every simple command is classified on its own and the strictest part wins.

mod combine;
mod rule;
mod scopes;
mod shell;
mod shell_args;
mod spec;
pub use spec::{read_toml, refuse_toml_size};
mod target;
mod toml;
mod tools;

use crate::builtin::{self, Env};
use crate::call::{Family, ToolCall};
use crate::error::Error;
use crate::facts::{FsFacts, FsNeeds};
use crate::paths::{self};
use crate::rule_id::RuleId;
use crate::verdict::{Tier, Verdict};
use combine::{malformed, str_arg, strictest, tier_word};
pub use rule::{Rule, SessionRules};
use serde_json::Value;
use target::path_args;

/// The keys of a policy file, read from its TOML ([`PolicyFile::read`]).
#[derive(Debug, Default)]
struct PolicyFile {
    workspace: Option<String>,
    home: Option<String>,
    default: Option<String>,
    edits: Option<String>,
    sandbox: Option<String>,
    /// Registries (`npm`, `pypi`) and host names an install from a package registry may
    /// reach from the sandbox (see [`Policy::sandbox_network`]). Read by every build,
    /// used (and checked) only by those with the sandbox verdict.
    #[cfg_attr(not(feature = "sandbox-verdict"), allow(dead_code))]
    sandbox_network: Option<Vec<String>>,
    rules: RulesFile,
    /// `[tools.NAME]`: what another tool is (see [`tools`]).
    tools: Option<Value>,
}

#[derive(Debug, Default)]
struct RulesFile {
    allow: Vec<String>,
    ask: Vec<String>,
    deny: Vec<String>,
}

impl PolicyFile {
    /// The keys of a policy file's text: each of the right type, none unknown; an error
    /// names the key's line.
    fn read(text: &str) -> Result<PolicyFile, Error> {
        let doc = toml::parse(text).map_err(|(line, message)| Error::Policy { line, message })?;
        let fail = |path: &[&str], message: String| Error::Policy {
            line: doc.line(path).unwrap_or(1),
            message,
        };
        let string = |path: &[&str], v: &Value| match v {
            Value::String(s) => Ok(s.clone()),
            _ => Err(fail(
                path,
                format!("invalid type: `{}` must be a string", path.join(".")),
            )),
        };
        let strings = |path: &[&str], v: &Value| match v {
            Value::Array(items) => items.iter().map(|i| string(path, i)).collect(),
            _ => Err(fail(
                path,
                format!(
                    "invalid type: `{}` must be an array of strings",
                    path.join(".")
                ),
            )),
        };
        let mut file = PolicyFile::default();
        for (key, v) in &doc.root {
            let k = key.as_str();
            match k {
                "workspace" => file.workspace = Some(string(&[k], v)?),
                "home" => file.home = Some(string(&[k], v)?),
                "default" => file.default = Some(string(&[k], v)?),
                "edits" => file.edits = Some(string(&[k], v)?),
                "sandbox" => file.sandbox = Some(string(&[k], v)?),
                "sandbox_network" => file.sandbox_network = Some(strings(&[k], v)?),
                "tools" => file.tools = Some(v.clone()),
                "rules" => {
                    let Value::Object(rules) = v else {
                        return Err(fail(&[k], "invalid type: `rules` must be a table".into()));
                    };
                    for (list, v) in rules {
                        let path = ["rules", list.as_str()];
                        match list.as_str() {
                            "allow" => file.rules.allow = strings(&path, v)?,
                            "ask" => file.rules.ask = strings(&path, v)?,
                            "deny" => file.rules.deny = strings(&path, v)?,
                            _ => {
                                return Err(fail(
                                    &path,
                                    format!(
                                        "unknown field `{list}` in [rules]: allow, ask or deny"
                                    ),
                                ))
                            }
                        }
                    }
                }
                _ => {
                    return Err(fail(
                        &[k],
                        format!(
                            "unknown field `{key}`: workspace, home, default, edits, sandbox, \
                             sandbox_network, [rules] or [tools]"
                        ),
                    ))
                }
            }
        }
        Ok(file)
    }
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
    /// `sandbox = "on"` (the default) or `"off"`: may a call that asks only because it
    /// runs code be answered `sandbox` where the host contains it?
    sandbox: bool,
    /// The host runs `sandbox` verdicts inside `toolgate sandbox` (see
    /// [`Policy::with_sandbox_host`]); off unless a host says so.
    sandbox_host: bool,
    /// The hosts of `sandbox_network`: an install from a package registry runs
    /// contained with HTTPS to these (none: it asks).
    #[cfg(feature = "sandbox-verdict")]
    sandbox_network: Vec<String>,
    allow_src: Vec<String>,
    ask_src: Vec<String>,
    deny_src: Vec<String>,
    allow: Vec<Rule>,
    ask: Vec<Rule>,
    deny: Vec<Rule>,
    /// The policy's `[tools]` mappings, by lower-case tool name.
    tools: Vec<tools::ToolMap>,
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

/// The longest path or URL classified (as for shell commands): past it the call is
/// `ask` (`builtin.too-long`) without being read, so its cost is bounded.
pub const MAX_ARG_BYTES: usize = builtin::MAX_COMMAND_BYTES;

impl Policy {
    /// The built-in policy with the given workspace and home directories.
    pub fn defaults(workspace: &str, home: &str) -> Policy {
        Policy {
            workspace: clean_dir(workspace),
            home: clean_dir(home),
            default: Tier::Ask,
            edits: Tier::Auto,
            sandbox: true,
            sandbox_host: false,
            #[cfg(feature = "sandbox-verdict")]
            sandbox_network: Vec::new(),
            allow_src: Vec::new(),
            ask_src: Vec::new(),
            deny_src: Vec::new(),
            allow: Vec::new(),
            ask: Vec::new(),
            deny: Vec::new(),
            tools: Vec::new(),
        }
    }

    /// Parses a TOML policy file. Errors name the line and the problem.
    pub fn from_toml(text: &str) -> Result<Policy, Error> {
        // Size, nesting and dotted keys are bounded first: the TOML parser's own cost
        // is not linear in hostile files (see `toml_shape`).
        crate::toml_shape::check(text)
            .map_err(|(line, message)| Error::Policy { line, message })?;
        let file = PolicyFile::read(text)?;
        let line_of = |needle: &str, key: &str| -> usize {
            let quoted = format!("\"{needle}\"");
            let single = format!("'{needle}'");
            text.lines()
                .position(|l| {
                    crate::needle::contains(l, &quoted) || crate::needle::contains(l, &single)
                })
                .or_else(|| text.lines().position(|l| l.trim_start().starts_with(key)))
                .map_or(1, |i| i + 1)
        };
        let default = match file.default.as_deref() {
            None => Tier::Ask,
            Some(d) => Tier::parse(d)
                .filter(|t| *t != Tier::Sandbox)
                .ok_or_else(|| Error::Policy {
                    line: line_of(d, "default"),
                    message: format!(
                        "`default` must be \"auto\", \"ask\" or \"deny\", not {}",
                        crate::error::quoted(d)
                    ),
                })?,
        };
        let sandbox = match file.sandbox.as_deref() {
            None | Some("on") => true,
            Some("off") => false,
            Some(s) => {
                return Err(Error::Policy {
                    line: line_of(s, "sandbox"),
                    message: format!(
                        "`sandbox` must be \"on\" or \"off\", not {}",
                        crate::error::quoted(s)
                    ),
                })
            }
        };
        let edits = match file.edits.as_deref() {
            None | Some("auto") => Tier::Auto,
            Some("ask") => Tier::Ask,
            Some(e) => {
                return Err(Error::Policy {
                    line: line_of(e, "edits"),
                    message: format!(
                        "`edits` must be \"auto\" or \"ask\", not {}",
                        crate::error::quoted(e)
                    ),
                })
            }
        };
        for (key, v) in [("workspace", &file.workspace), ("home", &file.home)] {
            if let Some(v) = v {
                if !v.starts_with('/') {
                    return Err(Error::Policy {
                        line: line_of(v, key),
                        message: format!(
                            "`{key}` must be an absolute path, not {}",
                            crate::error::quoted(v)
                        ),
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
        p.sandbox = sandbox;
        #[cfg(feature = "sandbox-verdict")]
        {
            p.sandbox_network =
                crate::contained::registry_hosts(file.sandbox_network.as_deref().unwrap_or(&[]))
                    .map_err(|bad| Error::Policy {
                        line: line_of(&bad, "sandbox_network"),
                        message: format!(
                            "`sandbox_network` takes \"npm\", \"pypi\" or host names \
                             (registry.example.com, *.example.com), not {}",
                            crate::error::quoted(&bad)
                        ),
                    })?;
        }
        {
            p.tools = tools::compile(file.tools, text)?;
        }
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

    /// The same policy with more rules, appended to its lists and compiled against its
    /// workspace and home (`toolgate --settings` adds Claude Code's rules so). A rule
    /// that does not compile is an error naming it, and the policy is not changed.
    pub fn with_rules(
        mut self,
        allow: &[String],
        ask: &[String],
        deny: &[String],
    ) -> Result<Policy, Error> {
        self.allow_src.extend_from_slice(allow);
        self.ask_src.extend_from_slice(ask);
        self.deny_src.extend_from_slice(deny);
        self.compile().map_err(|(_, e)| e)?;
        Ok(self)
    }

    /// The same policy with another home directory.
    pub fn with_home(mut self, home: &str) -> Policy {
        self.home = clean_dir(home);
        if self.compile().is_err() {
            // As above: compilation succeeded before and paths do not change validity.
        }
        self
    }

    /// The workspace directory the policy resolves paths against.
    pub fn workspace(&self) -> &str {
        &self.workspace
    }

    /// The user's home directory.
    pub fn home(&self) -> &str {
        &self.home
    }

    /// The tier of a call no rule decides.
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

    /// The same policy for a host that does (`true`) or does not run `sandbox`
    /// verdicts inside `toolgate sandbox`. Only with `true`, and unless the policy says
    /// `sandbox = "off"`, does a shell command that asks only because it runs code (or
    /// reads trees of the workspace) get [`Tier::Sandbox`]; every other host gets
    /// [`Tier::Ask`] for it, as before.
    pub fn with_sandbox_host(mut self, contains: bool) -> Policy {
        self.sandbox_host = contains;
        self
    }

    /// The policy's `sandbox` setting (`on` unless the file says `off`).
    pub fn sandbox_setting(&self) -> bool {
        self.sandbox
    }

    /// The hosts of the policy's `sandbox_network` (its registries' named): an install
    /// from a package registry into the workspace is answered `sandbox`
    /// (`builtin.sandbox.registry`) and run with HTTPS to these, where this policy
    /// answers `sandbox` at all. Empty unless the policy names some: such an install
    /// asks.
    #[cfg(feature = "sandbox-verdict")]
    pub fn sandbox_network(&self) -> &[String] {
        &self.sandbox_network
    }

    /// Whether this policy answers `sandbox`: the setting is on, the host contains, the
    /// build has the verdict (feature `sandbox-verdict`: the native hosts), and the
    /// workspace is one (not `/`, the home or a parent of it, which `toolgate sandbox`
    /// refuses to make writable).
    pub fn gives_sandbox(&self) -> bool {
        cfg!(feature = "sandbox-verdict")
            && self.sandbox
            && self.sandbox_host
            && paths::no_workspace(&self.workspace, &self.home).is_none()
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

    /// [`Policy::classify_value`] of a value the caller gives up (its arguments are moved
    /// into the call, not copied).
    pub fn classify_owned(&self, value: Value) -> Verdict {
        match ToolCall::from_owned(value) {
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
        match self.canonical(call) {
            // A host's tool: what its canonical calls need.
            Some(Ok(calls)) => calls.iter().for_each(|c| self.add_fs_needs(c, &needs)),
            Some(Err(_)) => {}
            None => self.add_fs_needs(call, &needs),
        }
        needs.into_inner().finish()
    }

    fn add_fs_needs(&self, call: &ToolCall, needs: &std::cell::RefCell<FsNeeds>) {
        match call.family() {
            Family::Shell => {
                if let Ok((cmd, _)) = shell_args::shell_script(call) {
                    let env = Env {
                        workspace: &self.workspace,
                        home: &self.home,
                        default: self.default,
                        edits: self.edits,
                        facts: None,
                        needs: Some(needs),
                        trees: false,
                        want_norm: false,
                    };
                    builtin::analyze(&cmd, &env);
                }
            }
            Family::Read | Family::Edit => {
                if let Ok(list) = path_args(call) {
                    let mut n = needs.borrow_mut();
                    for path in list.into_iter().filter(|p| !p.is_empty()) {
                        n.paths.push(paths::join(path, &self.workspace, &self.home));
                    }
                }
            }
            Family::Fetch | Family::Mcp | Family::Other => {}
        }
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
        // A host's tool (Gemini CLI's run_shell_command, Codex's argv command, …): the
        // shell command, reads or edits it is; a rule naming the tool itself first.
        if let Some(canonical) = self.canonical(call) {
            if matches!(family, Family::Mcp | Family::Other) {
                if let Some(v) = self.user_rules_call(call, family, None, session) {
                    return v;
                }
            }
            return match canonical {
                Ok(calls) => {
                    let mut v = strictest(
                        calls
                            .iter()
                            .map(|c| self.classify_with_facts(c, session, facts)),
                    );
                    // Spans index the call's own `command` string; a command built
                    // from other arguments (argv, a search) has none to point into.
                    let verbatim = calls.len() == 1
                        && call.args.get("command").and_then(Value::as_str).is_some()
                        && calls.first().and_then(|c| c.args.get("command"))
                            == call.args.get("command");
                    if !verbatim {
                        v.span = None;
                        for p in &mut v.parts {
                            p.span = None;
                        }
                    }
                    v
                }
                Err(why) => malformed(&format!("{} ({})", why, call.tool)),
            };
        }
        match family {
            Family::Shell => match shell_args::shell_script(call) {
                Ok((script, at)) if at == [0, script.len()] => {
                    self.classify_shell(&script, session, facts)
                }
                Ok((script, at)) => {
                    shell_args::unshift(self.classify_shell(&script, session, facts), at)
                }
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
                        RuleId::Mcp
                    } else {
                        RuleId::Other
                    },
                    format!(
                        "no rule decides tool `{}`: the policy default applies",
                        call.tool
                    ),
                )
            }
        }
    }

    /// The user's and the session's rule lists in the order they are tried (deny, ask,
    /// allow; the policy's before the session's), each with its tier and id prefix.
    fn rule_lists<'s>(
        &'s self,
        session: &'s SessionRules,
    ) -> [(&'s [Rule], Tier, &'static str); 6] {
        [
            (&self.deny, Tier::Deny, "user.deny"),
            (&session.deny, Tier::Deny, "session.deny"),
            (&self.ask, Tier::Ask, "user.ask"),
            (&session.ask, Tier::Ask, "session.ask"),
            (&self.allow, Tier::Auto, "user.allow"),
            (&session.allow, Tier::Auto, "session.allow"),
        ]
    }

    fn user_rules_call(
        &self,
        call: &ToolCall,
        family: Family,
        target: Option<&str>,
        session: &SessionRules,
    ) -> Option<Verdict> {
        let lists = self.rule_lists(session);
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
}
