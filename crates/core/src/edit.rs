//! The verdict for writing one file, the same whether an edit tool or a shell command
//! writes it (`Write(path)`, `echo x > path`, `sed -i … path`, `mkdir path`).

use crate::paths;
use crate::rule_id::RuleId;
use crate::verdict::Tier;

/// The verdict for editing `abs` (absolute, resolved lexically): a system file is
/// `deny`; a secret file, a file outside `workspace` and a protected file
/// ([`paths::protected`]) ask; any other workspace file gets `edits` (the policy's
/// `edits` setting, `auto` unless it says `"ask"`). Returns the tier, the rule and the
/// reason.
pub fn verdict(abs: &str, workspace: &str, home: &str, edits: Tier) -> (Tier, RuleId, String) {
    if paths::under_any(abs, paths::EDIT_DENY_DIRS) {
        return (
            Tier::Deny,
            RuleId::EditSystem,
            format!("edits a system file: {abs}"),
        );
    }
    if let Some(what) = paths::self_approval(abs, home) {
        return (
            Tier::Deny,
            RuleId::SelfApproval,
            format!("an agent may not write {what}: {abs}"),
        );
    }
    if paths::is_secret(abs) {
        return (
            Tier::Ask,
            RuleId::EditSecret,
            format!("edits a secret file: {abs}"),
        );
    }
    if paths::is_foreign(abs) {
        return (
            Tier::Ask,
            RuleId::EditOutside,
            format!("edits a Windows path (a drive letter or `\\`), whose place toolgate cannot tell: {abs}"),
        );
    }
    if !paths::is_within(abs, workspace) {
        return (
            Tier::Ask,
            RuleId::EditOutside,
            format!("edits outside the workspace: {abs}"),
        );
    }
    if let Some(what) = paths::no_workspace(workspace, home) {
        return (
            Tier::Ask,
            RuleId::EditOutside,
            format!(
                "edits {abs}: the workspace {workspace} is {what}, not a project, so no \
                 edit in it is automatic (start the agent in the project's directory)"
            ),
        );
    }
    if let Some(why) = paths::protected(abs) {
        // `.git/` keeps the id it always had; the rest share one.
        let rule = if paths::case_aliases(abs)
            .split('/')
            .any(|s| s.eq_ignore_ascii_case(".git"))
        {
            RuleId::EditGit
        } else {
            RuleId::EditProtected
        };
        return (
            Tier::Ask,
            rule,
            format!("edits a protected file ({why}): {abs}"),
        );
    }
    let reason = if edits == Tier::Auto {
        format!("edits inside the workspace: {abs}")
    } else {
        format!("edits inside the workspace: {abs} (the policy sets edits = \"{edits}\")")
    };
    (edits, RuleId::EditWorkspace, reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    const WS: &str = "/home/dev/app";
    const HOME: &str = "/home/dev";

    #[test]
    fn examples() {
        let cases = [
            (
                "/home/dev/app/src/lib.rs",
                Tier::Auto,
                "builtin.edit-workspace",
            ),
            (
                "/home/dev/app/.gitignore",
                Tier::Auto,
                "builtin.edit-workspace",
            ),
            (
                "/home/dev/app/.github/CODEOWNERS",
                Tier::Auto,
                "builtin.edit-workspace",
            ),
            ("/etc/passwd", Tier::Deny, "builtin.edit-system"),
            ("/home/dev/app/.env", Tier::Ask, "builtin.edit-secret"),
            ("/home/dev/.bashrc", Tier::Ask, "builtin.edit-outside"),
            ("/tmp/x", Tier::Ask, "builtin.edit-outside"),
            (
                "/home/dev/app/.git/hooks/pre-commit",
                Tier::Ask,
                "builtin.edit-git",
            ),
            ("/home/dev/app/.GIT/config", Tier::Ask, "builtin.edit-git"),
            (
                "/home/dev/app/.vscode/tasks.json",
                Tier::Ask,
                "builtin.edit-protected",
            ),
            (
                "/home/dev/app/.github/workflows/ci.yml",
                Tier::Ask,
                "builtin.edit-protected",
            ),
            ("/home/dev/app/.envrc", Tier::Ask, "builtin.edit-secret"),
            (
                "/home/dev/app/sub/.zshenv",
                Tier::Ask,
                "builtin.edit-protected",
            ),
            (
                "/home/dev/app/.claude/settings.json",
                Tier::Ask,
                "builtin.edit-protected",
            ),
            (
                "/home/dev/.claude/settings.json",
                Tier::Deny,
                "builtin.self-approval",
            ),
            (
                "/root/.gemini/settings.json",
                Tier::Deny,
                "builtin.self-approval",
            ),
            (
                "/home/dev/app/.claude/agents/x.md",
                Tier::Ask,
                "builtin.edit-protected",
            ),
            (
                "/home/dev/.codex/hooks.json",
                Tier::Deny,
                "builtin.self-approval",
            ),
            (
                "/home/dev/app/.github/hooks/x.json",
                Tier::Ask,
                "builtin.edit-protected",
            ),
            (
                "/home/dev/app/.agents/hooks.json",
                Tier::Ask,
                "builtin.edit-protected",
            ),
            (
                "/home/dev/app/opencode.json",
                Tier::Ask,
                "builtin.edit-protected",
            ),
            (
                "/home/dev/app/.github/ISSUE_TEMPLATE/bug.md",
                Tier::Auto,
                "builtin.edit-workspace",
            ),
            (
                "/home/dev/.copilot/settings.json",
                Tier::Deny,
                "builtin.self-approval",
            ),
            (
                "/home/dev/.copilot/hooks/toolgate.json",
                Tier::Deny,
                "builtin.self-approval",
            ),
            (
                "/home/dev/.local/state/toolgate/runs.db",
                Tier::Deny,
                "builtin.self-approval",
            ),
            (
                "/home/dev/app/.mcp.json",
                Tier::Ask,
                "builtin.edit-protected",
            ),
            (
                "/home/dev/app/sub/.bashrc",
                Tier::Ask,
                "builtin.edit-protected",
            ),
            (
                "/home/dev/app/toolgate.toml",
                Tier::Ask,
                "builtin.edit-protected",
            ),
            ("/home/dev/.gitconfig", Tier::Ask, "builtin.edit-outside"),
            (
                "/home/dev/app/.husky/pre-push",
                Tier::Ask,
                "builtin.edit-protected",
            ),
        ];
        for (p, tier, rule) in cases {
            let (t, r, why) = verdict(p, WS, HOME, Tier::Auto);
            assert_eq!((t, r.as_str()), (tier, rule), "{p}: {why}");
        }
        let (t, r, why) = verdict("/home/dev/app/src/lib.rs", WS, HOME, Tier::Ask);
        assert_eq!((t, r.as_str()), (Tier::Ask, "builtin.edit-workspace"));
        assert!(why.contains("edits = \"ask\""), "{why}");
    }

    #[test]
    fn a_home_or_the_root_is_no_workspace() {
        for ws in [HOME, "/", "/home"] {
            for p in ["/home/dev/notes.txt", "/home/dev/.local/bin/ls"] {
                let (t, r, why) = verdict(p, ws, HOME, Tier::Auto);
                assert_eq!(
                    (t, r.as_str()),
                    (Tier::Ask, "builtin.edit-outside"),
                    "{ws} {p}"
                );
                assert!(why.contains("not a project"), "{why}");
            }
        }
        let (t, _, _) = verdict("/home/dev/app/x", WS, HOME, Tier::Auto);
        assert_eq!(t, Tier::Auto);
    }
}
