//! toolgate's OpenCode plugin as `toolgate install opencode` writes it: the plugin's
//! JavaScript (`assets/opencode-plugin.js`, also `toolgate/opencode` in the npm package)
//! with the hook command filled in, and that command read back from an installed file.

/// toolgate's OpenCode plugin (`toolgate/opencode` in the npm package), as
/// `toolgate install opencode` writes it with the hook command filled in.
pub const PLUGIN: &str = include_str!("../assets/opencode-plugin.js");

/// The plugin's line the install fills in.
const PLUGIN_SLOT: &str = "const INSTALLED_COMMAND = null;";
/// The first line of an installed plugin: the mark of toolgate's file.
const PLUGIN_MARK: &str = "// Written by `toolgate install opencode`";

/// The plugin file for `command`.
pub(crate) fn plugin(command: &str) -> String {
    let filled = format!(
        "const INSTALLED_COMMAND = {};",
        serde_json::Value::String(command.to_string())
    );
    format!(
        "{PLUGIN_MARK}; `toolgate install opencode --uninstall` removes it.\n{}",
        PLUGIN.replacen(PLUGIN_SLOT, &filled, 1)
    )
}

/// The hook command of a plugin file toolgate installed, or `None` for any other file.
pub(crate) fn installed_command(text: &str) -> Option<String> {
    if !text.starts_with(PLUGIN_MARK) {
        return None;
    }
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("const INSTALLED_COMMAND = "))?;
    serde_json::from_str(line.strip_suffix(';')?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_goes_in_once_and_reads_back() {
        assert_eq!(PLUGIN.matches(PLUGIN_SLOT).count(), 1);
        for cmd in [
            "'/a b/toolgate' hook opencode || exit 2",
            "C:\\tools\\toolgate.exe hook opencode",
            "t \"x\" hook opencode; rm -rf /",
        ] {
            let file = plugin(cmd);
            assert!(!file.contains(PLUGIN_SLOT));
            assert_eq!(installed_command(&file).as_deref(), Some(cmd));
        }
        assert_eq!(installed_command(PLUGIN), None);
        assert_eq!(installed_command("export default {};\n"), None);
    }
}
