//! Whether Gemini CLI will put a hook's `ask` to a person. Gemini CLI reads a
//! `BeforeTool` hook's `decision: "ask"` since 0.36.0 (`BeforeToolHookOutput.
//! isAskDecision`; 0.35.3's `@google/gemini-cli-core` has no such method and runs the
//! call, an `ask` being neither `block` nor `deny`), and then forces its confirmation
//! (`forcedDecision: "ask_user"`, whatever its approval mode). Where it runs headless
//! that confirmation is never answered: the call hangs (seen with 0.61.0 in `gemini -p`).
//! Its hook input says neither its version nor its mode, so the hook finds the Gemini
//! CLI process among its ancestors (Linux: `/proc`) and reads them there: its
//! `package.json`, its arguments, its environment and whether its standard input and
//! output are terminals, as Gemini CLI decides it (`isHeadlessMode` and the
//! `interactive` flag of its `config.ts`). Anything it cannot tell is a no: the ask
//! stays a deny.

#[cfg(target_os = "linux")]
use std::path::{Path, PathBuf};

/// The first Gemini CLI version that reads a hook's `ask`.
pub const ASK_SINCE: [u32; 3] = [0, 36, 0];

/// What the hook learned of the Gemini CLI process that runs it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gemini {
    /// Its arguments after the script (`gemini.js`) or the binary.
    pub args: Vec<String>,
    /// Its environment's `CI`, `GITHUB_ACTIONS` and `GEMINI_CLI_INTEGRATION_TEST`.
    pub ci: bool,
    /// Its standard input and output are both terminals.
    pub tty: bool,
    /// Its version, from its `package.json`.
    pub version: Option<String>,
}

/// Gemini CLI's options that take a value (the next argument, unless `=` joins it).
const VALUE: &[&str] = &[
    "--model",
    "-m",
    "--prompt",
    "-p",
    "--prompt-interactive",
    "-i",
    "--worktree",
    "-w",
    "--approval-mode",
    "--resume",
    "-r",
    "--session-file",
    "--session-id",
    "--delete-session",
    "--output-format",
    "-o",
    "--fake-responses",
    "--fake-responses-non-strict",
    "--record-responses",
];

/// Its options that take every value up to the next option (yargs arrays).
const ARRAY: &[&str] = &[
    "--policy",
    "--admin-policy",
    "--allowed-mcp-server-names",
    "--allowed-tools",
    "--extensions",
    "-e",
    "--include-directories",
];

/// Will this Gemini CLI put an `ask` to a person? `Err` says why not.
pub fn asks(g: &Gemini) -> Result<(), String> {
    let version = g
        .version
        .as_deref()
        .ok_or("its version is unknown (no package.json of @google/gemini-cli)")?;
    match parse_version(version) {
        Some(v) if v >= ASK_SINCE => {}
        Some(_) => {
            return Err(format!(
                "Gemini CLI {version} runs a hook's ask unasked (0.36.0 and later ask)"
            ))
        }
        None => return Err(format!("its version {version:?} is not one toolgate reads")),
    }
    let mut rest = g.args.iter().map(String::as_str);
    let mut interactive_flag = false;
    let mut headless = Vec::new();
    while let Some(a) = rest.next() {
        let (name, joined) = match a.split_once('=') {
            Some((n, _)) if n.starts_with('-') => (n, true),
            _ => (a, false),
        };
        match name {
            "--" => {
                if rest.next().is_some() {
                    headless.push("a prompt after `--`".to_string());
                }
                break;
            }
            "-p" | "--prompt" => headless.push(format!("`{name}`")),
            "-i" | "--prompt-interactive" | "--acp" | "--experimental-acp" => {
                interactive_flag = true
            }
            _ => {}
        }
        if joined || !name.starts_with('-') || name == "-" {
            if !name.starts_with('-') || name == "-" {
                headless.push(format!("the prompt argument {name:?}"));
            }
            continue;
        }
        if VALUE.contains(&name) {
            rest.next();
        } else if ARRAY.contains(&name) {
            // yargs takes every value up to the next option.
            let mut peek = rest.clone();
            while peek.next().is_some_and(|v| !v.starts_with('-')) {
                rest.next();
            }
        }
    }
    if interactive_flag {
        // `-i PROMPT` and `--acp` are interactive whatever else is given.
        return Ok(());
    }
    if g.ci {
        headless.push("CI=true in its environment".into());
    }
    if !g.tty {
        headless.push("its input or output is not a terminal".into());
    }
    match headless.first() {
        None => Ok(()),
        Some(why) => Err(format!(
            "Gemini CLI runs headless here ({why}), where nobody answers an ask"
        )),
    }
}

/// `MAJOR.MINOR.PATCH` (a pre-release suffix ignored).
fn parse_version(v: &str) -> Option<[u32; 3]> {
    let core = v.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u32>().ok());
    let out = [parts.next()??, parts.next()??, parts.next()??];
    parts.next().is_none().then_some(out)
}

/// The Gemini CLI process among this process's ancestors, read from `/proc`.
#[cfg(target_os = "linux")]
pub fn find() -> Result<Gemini, String> {
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..8 {
        if pid <= 1 {
            break;
        }
        let dir = PathBuf::from(format!("/proc/{pid}"));
        let argv = read_nul_list(&dir.join("cmdline"));
        if let Some(at) = gemini_at(&argv) {
            let env = read_nul_list(&dir.join("environ"));
            if env.is_empty() {
                return Err("its environment cannot be read".into());
            }
            let var = |k: &str| {
                env.iter()
                    .find_map(|e| e.strip_prefix(k).and_then(|r| r.strip_prefix('=')))
                    .map(str::to_string)
            };
            let integration = var("GEMINI_CLI_INTEGRATION_TEST").as_deref() == Some("true");
            let ci = !integration
                && (var("CI").as_deref() == Some("true")
                    || var("GITHUB_ACTIONS").as_deref() == Some("true"));
            let tty = [0, 1].iter().all(|fd| {
                std::fs::read_link(dir.join(format!("fd/{fd}"))).is_ok_and(|t| is_terminal_path(&t))
            });
            let script = argv.get(at).map(PathBuf::from).unwrap_or_default();
            let exe = std::fs::read_link(dir.join("exe")).ok();
            return Ok(Gemini {
                args: argv.get(at + 1..).unwrap_or_default().to_vec(),
                ci,
                tty,
                version: version_near(&script, &dir.join("cwd"))
                    .or_else(|| exe.as_deref().and_then(|e| version_near(e, &dir))),
            });
        }
        pid = parent_of(&dir).ok_or("a parent process cannot be read")?;
    }
    Err("no Gemini CLI process among the hook's parents".into())
}

/// Elsewhere the hook cannot tell: an ask stays a deny.
#[cfg(not(target_os = "linux"))]
pub fn find() -> Result<Gemini, String> {
    Err("toolgate reads Gemini CLI's mode on Linux only".into())
}

#[cfg(target_os = "linux")]
fn read_nul_list(path: &Path) -> Vec<String> {
    std::fs::read(path)
        .map(|b| {
            b.split(|c| *c == 0)
                .filter(|s| !s.is_empty())
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// `/proc/PID/stat`'s parent pid (after the command name's closing parenthesis, which
/// the name itself may contain).
#[cfg(target_os = "linux")]
fn parent_of(dir: &Path) -> Option<u32> {
    let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(target_os = "linux")]
fn is_terminal_path(p: &Path) -> bool {
    let s = p.to_string_lossy();
    s.starts_with("/dev/pts/") || s.starts_with("/dev/tty")
}

/// Where in a process's arguments Gemini CLI's script or binary is: `node …/gemini.js`,
/// `node …/bin/gemini`, or a `gemini` binary. (Read from `/proc` on Linux only.)
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub fn gemini_at(argv: &[String]) -> Option<usize> {
    argv.iter().take(2).position(|a| {
        let base = a.rsplit('/').next().unwrap_or("");
        base == "gemini" || base == "gemini.js" || a.contains("/@google/gemini-cli/")
    })
}

/// The version in the `package.json` of `@google/gemini-cli` at or above `script` (its
/// links followed; a relative path from `cwd`).
#[cfg(target_os = "linux")]
fn version_near(script: &Path, cwd: &Path) -> Option<String> {
    let full = if script.is_absolute() {
        script.to_path_buf()
    } else {
        std::fs::read_link(cwd).ok()?.join(script)
    };
    let real = std::fs::canonicalize(full).ok()?;
    real.ancestors().skip(1).take(6).find_map(|d| {
        let text = std::fs::read_to_string(d.join("package.json")).ok()?;
        let v: serde_json::Value = serde_json::from_str(&text).ok()?;
        (v["name"] == "@google/gemini-cli")
            .then(|| v["version"].as_str().map(str::to_string))
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(args: &[&str], tty: bool, version: &str) -> Gemini {
        Gemini {
            args: args.iter().map(|a| a.to_string()).collect(),
            ci: false,
            tty,
            version: Some(version.into()),
        }
    }

    #[test]
    fn only_an_interactive_gemini_from_0_36_asks() {
        for (args, tty, version) in [
            (&[][..], true, "0.61.0"),
            (&["--yolo"][..], true, "0.36.0"),
            (
                &["-m", "gemini-2.5-pro", "--approval-mode", "yolo"][..],
                true,
                "0.61.0",
            ),
            (&["--model=gemini-2.5-pro", "-s"][..], true, "0.61.0"),
            (&["-e", "a", "b", "--debug"][..], true, "0.61.0"),
            (&["-i", "fix the bug"][..], true, "0.61.0"),
            (&["--experimental-acp"][..], false, "0.61.0"),
            (&[][..], true, "1.2.0-nightly.20261101"),
        ] {
            assert_eq!(
                asks(&g(args, tty, version)),
                Ok(()),
                "{args:?} {tty} {version}"
            );
        }
        for (args, tty, version, why) in [
            (&[][..], true, "0.35.3", "unasked"),
            (&[][..], true, "0.9", "not one toolgate reads"),
            (&["-p", "fix it"][..], true, "0.61.0", "`-p`"),
            (&["--prompt=fix it"][..], true, "0.61.0", "`--prompt`"),
            (&["fix the bug"][..], true, "0.61.0", "prompt argument"),
            (
                &["-m", "x", "fix the bug"][..],
                true,
                "0.61.0",
                "prompt argument",
            ),
            (&["--", "fix"][..], true, "0.61.0", "after `--`"),
            (&[][..], false, "0.61.0", "not a terminal"),
        ] {
            let e = asks(&g(args, tty, version)).unwrap_err();
            assert!(e.contains(why), "{args:?}: {e}");
        }
        let mut ci = g(&[], true, "0.61.0");
        ci.ci = true;
        assert!(asks(&ci).unwrap_err().contains("CI=true"));
        let unknown = Gemini {
            version: None,
            ..g(&[], true, "")
        };
        assert!(asks(&unknown).unwrap_err().contains("version is unknown"));
    }

    #[test]
    fn the_gemini_process_is_found_by_its_script() {
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            gemini_at(&v(&[
                "node",
                "/usr/lib/node_modules/@google/gemini-cli/bundle/gemini.js",
                "-y"
            ])),
            Some(1)
        );
        assert_eq!(
            gemini_at(&v(&["/usr/bin/node", "/home/d/.npm-global/bin/gemini"])),
            Some(1)
        );
        assert_eq!(gemini_at(&v(&["/opt/gemini", "-p", "x"])), Some(0));
        assert_eq!(gemini_at(&v(&["bash", "-c", "toolgate hook gemini"])), None);
        assert_eq!(gemini_at(&v(&["node", "server.js", "gemini"])), None);
    }
}
