#![cfg_attr(not(target_os = "macos"), allow(dead_code))]
//! `toolgate sandbox` on macOS: the same plan as on Linux, enforced by a Seatbelt
//! profile through `/usr/bin/sandbox-exec` (the absolute path, never one found on
//! `PATH`), as Codex does on macOS (openai/codex `codex-rs/sandboxing/src/seatbelt.rs`
//! and `seatbelt_base_policy.sbpl`: deny by default, paths passed as `-D` parameters so
//! none needs quoting) and Anthropic's sandbox-runtime (`src/sandbox/macos-sandbox-utils.ts`:
//! reads allowed then denied where hidden, since the last matching rule wins).
//!
//! What the profile gives the command, rule by rule in this order (later rules win):
//! - nothing by default: no network (no socket to anywhere, no DNS: the resolver's
//!   Mach service is not reachable), no Unix socket of the host, no other process (a
//!   signal or `task_for_pid` only within the sandbox), no `ioctl` on the terminal (no
//!   `TIOCSTI`), no Mach service but the user directory's;
//! - running programs, reading the system's files;
//! - not reading the home directories (the plan's homes and every user's: `/Users`,
//!   `/var/root`), except the toolchains (its toolchains) and the workspace;
//! - writing only the workspace and a private temporary directory made for the run
//!   (`TMPDIR` points there; removed after);
//! - not writing the protected entries, present or not (
//!   nothing is created for them here) nor the files with a hard link outside the
//!   workspace;
//! - not reading or writing the secrets found in the workspace, the system's and those
//!   the workspace's links lead to;
//! - no hard link made (one to a file outside would be written through the workspace).
//!
//! It cannot run on this project's Linux machines: [`profile`] is tested here as text;
//! the release workflow runs the escape tests (`crates/cli/tests/seatbelt.rs`) on its
//! macOS runners.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The only `sandbox-exec` used: the system's.
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// The rules every run starts from: deny by default, then what any program needs to
/// start and read the system (the sysctl names and Mach services Codex's base policy
/// lists for the same reason, fewer).
pub const BASE: &str = r#"(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow user-preference-read)
(allow sysctl-read
  (sysctl-name-prefix "hw.")
  (sysctl-name "machdep.cpu.brand_string")
  (sysctl-name "kern.argmax")
  (sysctl-name "kern.hostname")
  (sysctl-name "kern.maxfilesperproc")
  (sysctl-name "kern.maxproc")
  (sysctl-name "kern.osproductversion")
  (sysctl-name "kern.osrelease")
  (sysctl-name "kern.ostype")
  (sysctl-name "kern.osvariant_status")
  (sysctl-name "kern.osversion")
  (sysctl-name "kern.secure_kernel")
  (sysctl-name "kern.usrstack64")
  (sysctl-name "kern.version")
  (sysctl-name "sysctl.proc_cputype")
  (sysctl-name "vm.loadavg")
  (sysctl-name-prefix "kern.proc.pid."))
(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo"))
(allow ipc-posix-sem)
(allow file-read*)
(allow file-write-data
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/dtracehelper")
  (literal "/dev/stdout")
  (literal "/dev/stderr")
  (regex #"^/dev/fd/[0-9]+$"))
"#;

/// What a profile allows and denies, by path (each list in the order the rules are
/// written: later rules win). `toolgate sandbox` fills it from its plan.
#[derive(Debug, Clone, Default)]
pub struct Rules<'a> {
    /// Not readable: the home directories.
    pub hidden: Vec<&'a Path>,
    /// Readable again inside them: the toolchains.
    pub readable: Vec<&'a Path>,
    /// Readable and writable: the workspace and the run's private temporary directory.
    pub writable: Vec<&'a Path>,
    /// Not writable (existing or not): the protected paths, files linked outside.
    pub read_only: Vec<&'a Path>,
    /// Neither readable nor writable: the secrets.
    pub secrets: Vec<&'a Path>,
    /// `--allow-host`: the proxy's loopback port, the only network allowed.
    pub proxy: Option<u16>,
}

/// The profile for `rules`: its text (after [`BASE`]) and its parameters, each a path
/// the text names as `(param "NAME")`.
pub fn profile(rules: &Rules) -> (String, Vec<(String, PathBuf)>) {
    let mut text = String::from(BASE);
    // `--allow-host`: only the proxy's port on the loopback (the proxy, outside,
    // reaches the hosts allowed).
    if let Some(port) = rules.proxy {
        text.push_str(&format!(
            "(allow network-outbound (remote ip \"localhost:{port}\"))\n"
        ));
    }
    let mut params: Vec<(String, PathBuf)> = Vec::new();
    let mut rule = |text: &mut String, action: &str, prefix: &str, paths: &[&Path]| {
        if paths.is_empty() {
            return;
        }
        text.push_str(&format!("({action}"));
        for (i, p) in paths.iter().enumerate() {
            let name = format!("{prefix}_{i}");
            // The path itself and everything beneath it (a literal alone would leave
            // a directory's contents; a subpath alone, in Codex's experience, the
            // first creation of the path).
            text.push_str(&format!(
                "\n  (literal (param \"{name}\"))\n  (subpath (param \"{name}\"))"
            ));
            params.push((name, p.to_path_buf()));
        }
        text.push_str(")\n");
    };
    rule(&mut text, "deny file-read*", "HIDDEN_HOME", &rules.hidden);
    rule(&mut text, "allow file-read*", "TOOLCHAIN", &rules.readable);
    rule(
        &mut text,
        "allow file-read* file-write*",
        "WRITABLE",
        &rules.writable,
    );
    rule(&mut text, "deny file-write*", "READ_ONLY", &rules.read_only);
    rule(
        &mut text,
        "deny file-read* file-write*",
        "SECRET",
        &rules.secrets,
    );
    // No hard link made in the run: one to a file outside would be written through a
    // workspace path. (Cargo copies when it cannot link.)
    text.push_str("(deny file-link)\n");
    (text, params)
}

/// `sandbox-exec`'s arguments: the profile, its parameters, then the command.
pub fn arguments(text: &str, params: &[(String, PathBuf)], command: &[OsString]) -> Vec<OsString> {
    let mut a: Vec<OsString> = vec!["-p".into(), text.into()];
    for (name, path) in params {
        let mut d = OsString::from(format!("-D{name}="));
        d.push(path.as_os_str());
        a.push(d);
    }
    a.push("--".into());
    a.extend(command.iter().cloned());
    a
}

/// Can Seatbelt build a sandbox here: `/usr/bin/sandbox-exec` runs `/usr/bin/true`
/// under [`BASE`]. The reason when it cannot.
#[cfg(target_os = "macos")]
pub fn probe() -> Result<PathBuf, String> {
    let exe = PathBuf::from(SANDBOX_EXEC);
    let out = std::process::Command::new(&exe)
        .args(arguments(BASE, &[], &["/usr/bin/true".into()]))
        .env_clear()
        .output()
        .map_err(|e| format!("cannot run {SANDBOX_EXEC}: {e}"))?;
    if out.status.success() {
        Ok(exe)
    } else {
        Err(format!(
            "sandbox-exec cannot build a sandbox here ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Runs `program` under the profile `text` with `params`, in the environment `env`,
/// starting in `start`: its exit status, and whether it ran (false: the profile was
/// refused, checked first on `/usr/bin/true`).
#[cfg(target_os = "macos")]
pub fn run(
    text: &str,
    params: &[(String, PathBuf)],
    program: &[OsString],
    env: &[(OsString, OsString)],
    start: &Path,
) -> std::io::Result<(std::process::ExitStatus, bool)> {
    use std::os::unix::process::CommandExt;
    let check = std::process::Command::new(SANDBOX_EXEC)
        .args(arguments(text, params, &["/usr/bin/true".into()]))
        .env_clear()
        .output()?;
    if !check.status.success() {
        return Ok((check.status, false));
    }
    std::process::Command::new(SANDBOX_EXEC)
        .args(arguments(text, params, program))
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(start)
        .process_group(0)
        .status()
        .map(|s| (s, true))
}

/// A new directory only this user can enter, under the system's temporary directory
/// (its real path: Seatbelt matches resolved paths).
#[cfg(target_os = "macos")]
pub fn private_tmp() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let base = std::env::temp_dir().canonicalize()?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let dir = base.join(format!("toolgate-sandbox-{}-{nanos}", std::process::id()));
    std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Rules<'static> {
        Rules {
            hidden: vec![
                Path::new("/Users"),
                Path::new("/var/root"),
                Path::new("/Users/dev"),
            ],
            readable: vec![Path::new("/Users/dev/.cargo/bin")],
            writable: vec![
                Path::new("/Users/dev/app"),
                Path::new("/private/var/folders/x/T/tg"),
            ],
            read_only: vec![
                Path::new("/Users/dev/app/.git"),
                Path::new("/Users/dev/app/.claude"),
                Path::new("/Users/dev/app/linked"),
            ],
            secrets: vec![
                Path::new("/Users/dev/app/.env"),
                Path::new("/private/etc/ssh/ssh_host_ed25519_key"),
            ],
            proxy: None,
        }
    }

    /// The first line of each rule a path's parameter appears in.
    fn rule_of<'a>(text: &'a str, params: &[(String, PathBuf)], path: &str) -> Vec<&'a str> {
        let names: Vec<&String> = params
            .iter()
            .filter(|(_, p)| p == Path::new(path))
            .map(|(n, _)| n)
            .collect();
        assert!(!names.is_empty(), "{path} has no parameter");
        let rules: Vec<&str> = text.split("\n(").collect();
        names
            .iter()
            .flat_map(|n| {
                rules
                    .iter()
                    .filter(move |r| r.contains(&format!("(param \"{n}\")")))
                    .map(|r| r.lines().next().unwrap_or(""))
            })
            .collect()
    }

    #[test]
    fn later_rules_hide_and_protect_what_earlier_ones_open() {
        let (text, params) = profile(&rules());
        assert!(text.starts_with("(version 1)\n(deny default)\n"));
        // No rule opens the network, a socket or the terminal's ioctls.
        for never in ["network", "system-socket", "file-ioctl", "com.apple.dnssd"] {
            assert!(!text.contains(never), "{never}");
        }
        let at = |needle: &str| text.find(needle).unwrap();
        let order = [
            "(allow file-read*)",
            "(deny file-read*\n",
            "(allow file-read*\n",
            "(allow file-read* file-write*",
            "(deny file-write*",
            "(deny file-read* file-write*",
            "(deny file-link)",
        ];
        for w in order.windows(2) {
            assert!(at(w[0]) < at(w[1]), "{w:?}\n{text}");
        }
        for hidden in ["/Users/dev", "/Users", "/var/root"] {
            assert_eq!(
                rule_of(&text, &params, hidden),
                ["deny file-read*"],
                "{hidden}"
            );
        }
        assert_eq!(
            rule_of(&text, &params, "/Users/dev/.cargo/bin"),
            ["allow file-read*"]
        );
        for w in ["/Users/dev/app", "/private/var/folders/x/T/tg"] {
            assert_eq!(
                rule_of(&text, &params, w),
                ["allow file-read* file-write*"],
                "{w}"
            );
        }
        for ro in [
            "/Users/dev/app/.git",
            "/Users/dev/app/.claude",
            "/Users/dev/app/linked",
        ] {
            assert_eq!(rule_of(&text, &params, ro), ["deny file-write*"], "{ro}");
        }
        for s in [
            "/Users/dev/app/.env",
            "/private/etc/ssh/ssh_host_ed25519_key",
        ] {
            assert_eq!(
                rule_of(&text, &params, s),
                ["deny file-read* file-write*"],
                "{s}"
            );
        }
        // Parameters hold the paths: a path with quotes or parentheses is never text.
        assert!(!text.contains("/Users/dev"));
    }

    #[test]
    fn the_command_follows_the_profile_and_its_parameters() {
        let (text, params) = profile(&rules());
        let a = arguments(
            &text,
            &params,
            &["/bin/bash".into(), "-c".into(), "--".into(), "make".into()],
        );
        assert_eq!(a[0], "-p");
        assert_eq!(a[1], OsString::from(&text));
        let dashes = a.iter().position(|w| w == "--").unwrap();
        assert_eq!(a[dashes + 1..], ["/bin/bash", "-c", "--", "make"]);
        assert!(a[2..dashes]
            .iter()
            .all(|d| d.to_string_lossy().starts_with("-D")));
        assert!(a.contains(&OsString::from("-DWRITABLE_0=/Users/dev/app")));
        // A rule with no path is left out.
        let bare = Rules {
            hidden: vec![Path::new("/h")],
            writable: vec![Path::new("/w")],
            ..Rules::default()
        };
        let (text, _) = profile(&bare);
        assert!(
            !text.contains("READ_ONLY") && !text.contains("SECRET") && !text.contains("TOOLCHAIN")
        );
        // --allow-host: the proxy's loopback port, and nothing else of the network.
        let (text, _) = profile(&Rules {
            proxy: Some(4321),
            ..bare
        });
        assert!(text.contains("(allow network-outbound (remote ip \"localhost:4321\"))"));
        assert_eq!(text.matches("network").count(), 1);
    }
}
