//! What a host that contains calls runs for a `sandbox` verdict instead of the command
//! itself: the command given to bash inside `toolgate sandbox`, with the workspace
//! writable.
//!
//! ```text
//! /path/to/toolgate sandbox --workspace /the/workspace -- /bin/bash -c -- 'COMMAND'
//! ```
//!
//! `--` before the command keeps a command that starts with `-` (`-x`, `--rcfile=…`) a
//! command: `bash -c '-x'` takes it as options instead.

use crate::shapes::quote;

/// The shell the command is given to inside the sandbox.
pub const SHELL: &str = "/bin/bash";

/// The words that run `command` contained: `toolgate` is the path of the `toolgate`
/// binary the host runs (or `toolgate`, found on its `PATH`).
pub fn argv(toolgate: &str, workspace: &str, command: &str) -> Vec<String> {
    [
        toolgate,
        "sandbox",
        "--workspace",
        workspace,
        "--",
        SHELL,
        "-c",
        "--",
        command,
    ]
    .map(str::to_string)
    .to_vec()
}

/// [`argv`] as one line for a POSIX shell (each word quoted as needed): what a host
/// whose tool takes a command line runs.
pub fn command_line(toolgate: &str, workspace: &str, command: &str) -> String {
    argv(toolgate, workspace, command)
        .iter()
        .map(|w| quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_is_the_last_word() {
        let line = command_line("/opt/tg/toolgate", "/w s", "-x 'a'");
        assert_eq!(
            line,
            "/opt/tg/toolgate sandbox --workspace '/w s' -- /bin/bash -c -- '-x '\\''a'\\'''"
        );
        assert_eq!(
            argv("t", "/w", "make").last().map(String::as_str),
            Some("make")
        );
    }
}
