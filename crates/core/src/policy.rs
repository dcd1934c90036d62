//! Policies: the built-in rules plus the user's allow/ask/deny lists. SKELETON — being written.

use crate::call::ToolCall;
use crate::error::Error;
use crate::verdict::{Tier, Verdict};
use serde_json::Value;

/// Rules added during a session ("always allow" / "always deny"), checked like the
/// user's allow / deny lists.
#[derive(Debug, Clone, Default)]
pub struct SessionRules {
    allow: Vec<String>,
    deny: Vec<String>,
}

impl SessionRules {
    pub fn new() -> SessionRules {
        SessionRules::default()
    }
    /// Adds a rule in the policy-file syntax (`Bash(npm test)`, `Bash(git push:*)`);
    /// `tier` is `Auto` for allow, `Deny` for deny (`Ask` adds an ask rule).
    pub fn add(&mut self, tier: Tier, rule: &str) -> Result<(), Error> {
        match tier {
            Tier::Auto => self.allow.push(rule.to_string()),
            Tier::Ask | Tier::Deny => self.deny.push(rule.to_string()),
        }
        Ok(())
    }
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty()
    }
}

/// A compiled policy. Compile once, classify many times.
#[derive(Debug, Clone)]
pub struct Policy {
    workspace: String,
    home: String,
    default: Tier,
}

impl Policy {
    /// The built-in policy with the given workspace and home directories.
    pub fn defaults(workspace: &str, home: &str) -> Policy {
        Policy {
            workspace: workspace.to_string(),
            home: home.to_string(),
            default: Tier::Ask,
        }
    }
    /// Parses a TOML policy file; errors name the line.
    pub fn from_toml(_text: &str) -> Result<Policy, Error> {
        Ok(Policy::defaults("/", "/"))
    }
    /// The same policy with another workspace directory.
    pub fn with_workspace(mut self, workspace: &str) -> Policy {
        self.workspace = workspace.to_string();
        self
    }
    /// The same policy with another home directory.
    pub fn with_home(mut self, home: &str) -> Policy {
        self.home = home.to_string();
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
    /// Classifies a tool call.
    pub fn classify(&self, call: &ToolCall) -> Verdict {
        self.classify_with(call, &SessionRules::default())
    }
    /// Classifies a tool call with session rules checked beside the user's rules.
    pub fn classify_with(&self, _call: &ToolCall, _session: &SessionRules) -> Verdict {
        Verdict::new(Tier::Ask, "skeleton", "not yet implemented")
    }
    /// Classifies a raw JSON value `{"tool":…, "args":…}`; anything malformed is `ask`.
    pub fn classify_value(&self, _value: &Value) -> Verdict {
        Verdict::new(Tier::Ask, "skeleton", "not yet implemented")
    }
    /// The "always allow" scopes a prompt may offer for this call, narrowest first,
    /// as rule strings (`Bash(git push origin main)`, `Bash(git push:*)`).
    pub fn scopes(&self, _call: &ToolCall) -> Vec<String> {
        Vec::new()
    }
}
