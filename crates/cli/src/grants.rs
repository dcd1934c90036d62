//! `toolgate grants`: the "always allow" grants a person gave (in the panel of an
//! agent server, or over its API), listed from the runs database, and revoked.

use toolgate_core::{Grant, GrantState};
use toolgate_store::GrantFilter;

use crate::defer::{StoreAt, StoreOpts};
use crate::error::CliError;
use crate::text::shown;

/// `toolgate grants`' options.
#[derive(Debug, Clone, clap::Args)]
pub struct GrantsArgs {
    /// Every grant still kept (expired, revoked and used ones too), not only live ones
    #[arg(long)]
    pub all: bool,
    /// As JSON
    #[arg(long)]
    pub json: bool,
    /// Revoke the grant ID: it approves nothing more
    #[arg(long, value_name = "ID")]
    pub revoke: Option<String>,
    #[command(flatten)]
    pub store: StoreOpts,
}

fn state_word(s: GrantState) -> &'static str {
    match s {
        GrantState::Live => "live",
        GrantState::Expired => "expired",
        GrantState::Revoked => "revoked",
        GrantState::UsedUp => "used up",
    }
}

/// Lists (or with `--revoke`, revokes) the owner's grants.
pub fn run(args: &GrantsArgs, now: u64) -> Result<String, CliError> {
    let at: StoreAt = args.store.at()?;
    let store = at.open().map_err(CliError::Runs)?;
    let fail = |e: toolgate_core::Error| CliError::Runs(e.to_string());
    if let Some(id) = &args.revoke {
        let revoked = store.revoke_grant(&at.owner, id, now).map_err(fail)?;
        return match store.grant(&at.owner, id).map_err(fail)? {
            Some(g) if revoked => Ok(format!(
                "revoked grant {}: {} approves nothing more\n",
                shown(id),
                shown(&g.rule)
            )),
            Some(_) => Ok(format!("grant {} was already revoked\n", shown(id))),
            None => Err(CliError::Runs(format!(
                "no grant {} (owner {})",
                shown(id),
                shown(&at.owner)
            ))),
        };
    }
    let filter = if args.all {
        GrantFilter::All
    } else {
        GrantFilter::Live
    };
    let list: Vec<Grant> = store.grants(&at.owner, filter, now).map_err(fail)?;
    if args.json {
        let views: Vec<serde_json::Value> = list
            .iter()
            .map(|g| {
                let mut v = serde_json::to_value(g).unwrap_or_default();
                if let Some(o) = v.as_object_mut() {
                    o.insert(
                        "state".into(),
                        serde_json::to_value(g.state(now)).unwrap_or_default(),
                    );
                }
                v
            })
            .collect();
        let text = serde_json::to_string_pretty(&views)
            .map_err(|e| CliError::Runs(format!("the grants as JSON: {e}")))?;
        return Ok(text + "\n");
    }
    let mut out = String::new();
    for g in &list {
        let left = g.expires_at.saturating_sub(now) / 1000;
        let life = match g.state(now) {
            GrantState::Live => format!("{left}s left"),
            s => state_word(s).to_string(),
        };
        out.push_str(&format!(
            "{}  {}  {}{}  session {}  by {}\n    matches {}\n",
            shown(&g.id),
            shown(&g.rule),
            life,
            if g.single_use { ", single use" } else { "" },
            shown(&g.session_id),
            shown(g.by.as_deref().unwrap_or("?")),
            shown(&g.matches),
        ));
    }
    if list.is_empty() {
        out.push_str(if args.all {
            "no grants\n"
        } else {
            "no live grants\n"
        });
    }
    Ok(out)
}
