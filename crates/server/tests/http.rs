//! The server end to end over real HTTP on loopback, on a real SQLite file: the binary
//! is started as a user starts it, and a small HTTP/1.1 client (std TcpStream, so that
//! hostile requests can be sent byte for byte) talks to it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use serde_json::{json, Value};

const AGENT: &str = "agent-token-0123456789";
const ALICE: &str = "alice-token-0123456789";
const BOB: &str = "bob-token-012345678901";
const ALICE_LAPTOP: &str = "alice-laptop-token-0123";
const AGENT_2: &str = "second-agent-token-0123456";

/// A scratch directory removed when the test ends, passed or failed.
struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(name: &str) -> TempDir {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "toolgate-server-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tokens() -> String {
    json!([
        {"name": "ci-agent", "owner": "alice", "roles": ["agent"], "token": AGENT},
        {"name": "ci-agent-2", "owner": "alice", "roles": ["agent"], "token": AGENT_2},
        {"name": "alice-phone", "owner": "alice", "roles": ["approver"], "token": ALICE},
        {"name": "alice-laptop", "owner": "alice", "roles": ["approver"], "token": ALICE_LAPTOP},
        {"name": "bob-laptop", "owner": "bob", "roles": ["approver", "agent"], "token": BOB, "self_approve": true},
    ])
    .to_string()
}

fn start(db: &Path) -> Server {
    start_url(&format!("sqlite:{}", db.display()))
}

fn start_url(database: &str) -> Server {
    start_env(database, &[])
}

fn start_env(database: &str, env: &[(&str, &str)]) -> Server {
    start_args(database, env, &[])
}

fn start_args(database: &str, env: &[(&str, &str)], args: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolgate-server"))
        .args(["--listen", "127.0.0.1:0", "--database", database])
        .args(args)
        .envs(env.iter().copied())
        .env("TOOLGATE_TOKENS", tokens())
        .env("TOOLGATE_CORS_ORIGINS", "https://chat.example.com")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    Server { child, addr }
}

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    fn code(&self) -> String {
        self.json()["error"]["code"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }
}

/// Sends raw bytes, reads the whole reply (`Connection: close`).
fn raw(addr: &str, request: &[u8]) -> Reply {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let _ = s.write_all(request);
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let split = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no reply head: {:?}", String::from_utf8_lossy(&buf)));
    let head = String::from_utf8_lossy(&buf[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect::<Vec<_>>();
    let mut body = buf[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"))
    {
        body = unchunk(&body);
    }
    Reply {
        status,
        headers,
        body,
    }
}

fn unchunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(nl) = b.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size = usize::from_str_radix(String::from_utf8_lossy(&b[..nl]).trim(), 16).unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&b[nl + 2..nl + 2 + size]);
        b = &b[nl + 2 + size + 2..];
    }
}

fn req(
    addr: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&Value>,
    extra: &[(&str, &str)],
) -> Reply {
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if let Some(t) = token {
        head.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    if !body.is_empty() {
        head.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    for (k, v) in extra {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    raw(addr, &bytes)
}

/// Parks run `id` (one `bash` call running `command`) as the agent.
fn park(addr: &str, id: &str, command: &str) -> Reply {
    req(
        addr,
        "POST",
        &format!("/v1/runs/{id}/park"),
        Some(AGENT),
        Some(&park_body(command)),
        &[],
    )
}

fn park_body(command: &str) -> Value {
    json!({
        "sessionId": "chat-1",
        "calls": [{"toolCallId": "c1", "tool": "bash", "args": {"command": command}}],
        "history": "{\"messages\":3}"
    })
}

/// Every row of the store, in order: a database compared byte for byte.
fn dump(db: &Path) -> String {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT owner || '/' || run_key, revision, value FROM toolgate_runs ORDER BY owner, run_key")
        .unwrap();
    let rows = stmt
        .query_map([], |r| {
            Ok(format!(
                "{}|{}|{}",
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?
            ))
        })
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    rows.join("\n")
}

#[test]
fn park_poll_decide_exactly_once() {
    let dir = temp_dir("flow");
    let db = dir.join("toolgate.db");
    let server = start(&db);
    let a = server.addr.as_str();

    let parked = park(a, "run-1", "git push origin main");
    assert_eq!(
        parked.status,
        201,
        "{}",
        String::from_utf8_lossy(&parked.body)
    );
    let run = &parked.json()["run"];
    assert_eq!(parked.json()["stopReason"], "paused");
    assert_eq!(run["status"], "awaiting_permission");
    assert_eq!(run["owner"], "alice");
    assert_eq!(run["marker"]["calls"][0]["tier"], "ask");
    let anchor = run["marker"]["calls"][0]["anchor"]
        .as_str()
        .unwrap()
        .to_string();

    // The approver polls; an unchanged poll is a 304 with no body.
    let list = req(
        a,
        "GET",
        "/v1/runs?status=awaiting_permission",
        Some(ALICE),
        None,
        &[],
    );
    assert_eq!(list.status, 200);
    assert_eq!(list.json()["runs"][0]["runId"], "run-1");
    let etag = list.header("etag").unwrap().to_string();
    let again = req(
        a,
        "GET",
        "/v1/runs?status=awaiting_permission",
        Some(ALICE),
        None,
        &[("If-None-Match", &etag)],
    );
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    let one = req(a, "GET", "/v1/runs/run-1", Some(ALICE), None, &[]);
    assert_eq!(one.json()["marker"]["calls"][0]["anchor"], anchor.as_str());

    // Another owner sees nothing and can decide nothing.
    assert_eq!(
        req(a, "GET", "/v1/runs/run-1", Some(BOB), None, &[]).status,
        404
    );
    assert_eq!(
        req(a, "GET", "/v1/runs", Some(BOB), None, &[]).json()["runs"],
        json!([])
    );
    let decision =
        json!({"decisions": [{"toolCallId": "c1", "anchor": anchor, "decision": "allow"}]});
    let before = dump(&db);
    let bob = req(
        a,
        "POST",
        "/v1/runs/run-1/decisions",
        Some(BOB),
        Some(&decision),
        &[],
    );
    assert_eq!((bob.status, bob.code().as_str()), (404, "not_found"));
    // An agent token may not decide.
    assert_eq!(
        req(
            a,
            "POST",
            "/v1/runs/run-1/decisions",
            Some(AGENT),
            Some(&decision),
            &[]
        )
        .status,
        403
    );
    // A wrong anchor changes nothing.
    let wrong =
        json!({"decisions": [{"toolCallId": "c1", "anchor": "0".repeat(64), "decision": "allow"}]});
    let w = req(
        a,
        "POST",
        "/v1/runs/run-1/decisions",
        Some(ALICE),
        Some(&wrong),
        &[],
    );
    assert_eq!((w.status, w.code().as_str()), (409, "anchor_mismatch"));
    assert_eq!(dump(&db), before);

    let ok = req(
        a,
        "POST",
        "/v1/runs/run-1/decisions",
        Some(ALICE),
        Some(&decision),
        &[],
    );
    assert_eq!(ok.status, 200, "{}", String::from_utf8_lossy(&ok.body));
    assert_eq!(ok.json()["results"][0]["outcome"], "approved");
    assert_eq!(ok.json()["history"], "{\"messages\":3}");
    // A second device deciding the same call: refused, naming who decided.
    let twice = req(
        a,
        "POST",
        "/v1/runs/run-1/decisions",
        Some(ALICE_LAPTOP),
        Some(&decision),
        &[],
    );
    assert_eq!(
        (twice.status, twice.code().as_str()),
        (409, "already_resumed")
    );
    assert_eq!(twice.json()["error"]["decidedBy"], "alice-phone");
    assert_eq!(
        twice.json()["error"]["message"],
        "already decided by `alice-phone`"
    );
    // The agent reads its answer from the run.
    let decided = req(a, "GET", "/v1/runs/run-1", Some(AGENT), None, &[]).json();
    assert_eq!(decided["decision"]["decidedBy"], "alice-phone");
    assert_eq!(decided["decision"]["calls"][0]["outcome"], "approved");
    assert_eq!(
        req(a, "GET", "/v1/runs/run-1", Some(ALICE), None, &[]).json()["status"],
        "running"
    );
    // The poll changed: a new ETag, a 200.
    let changed = req(
        a,
        "GET",
        "/v1/runs?status=awaiting_permission",
        Some(ALICE),
        None,
        &[("If-None-Match", &etag)],
    );
    assert_eq!(changed.status, 200);
    assert_eq!(changed.json()["runs"], json!([]));

    // Deny with a message: the agent's tool result says so.
    park(a, "run-2", "npm publish");
    let anchor2 = req(a, "GET", "/v1/runs/run-2", Some(ALICE), None, &[]).json()["marker"]["calls"]
        [0]["anchor"]
        .clone();
    let deny = json!({"decisions": [{"toolCallId": "c1", "anchor": anchor2, "decision": "deny", "message": "not on Fridays"}]});
    let denied = req(
        a,
        "POST",
        "/v1/runs/run-2/decisions",
        Some(ALICE),
        Some(&deny),
        &[],
    );
    assert_eq!(denied.json()["results"][0]["outcome"], "denied");
    assert_eq!(
        denied.json()["results"][0]["toolResult"],
        "User refused permission: not on Fridays"
    );

    // The audit trail: each end once, who decided; only the owner's approvers read it.
    let audit = req(a, "GET", "/v1/audit", Some(ALICE), None, &[]);
    assert_eq!(audit.status, 200);
    let records = audit.json()["records"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let ends: Vec<String> = records
        .iter()
        .map(|r| format!("{} {} {}", r["runId"], r["outcome"], r["decidedBy"]))
        .collect();
    assert_eq!(
        ends,
        [
            r#""run-1" "approved" "alice-phone""#,
            r#""run-2" "denied" "alice-phone""#
        ]
    );
    assert_eq!(records[1]["message"], "not on Fridays");
    assert_eq!(records[0]["anchor"], anchor.as_str());
    assert_eq!(
        req(a, "GET", "/v1/audit", Some(BOB), None, &[]).json()["records"],
        json!([])
    );
    assert_eq!(
        req(a, "GET", "/v1/audit", Some(AGENT), None, &[]).status,
        403
    );
    // Exported as CSV and JSON lines by the CLI, from the database itself.
    let export = |format: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_toolgate-server"))
            .args(["audit", "export", "--format", format, "--database"])
            .arg(format!("sqlite:{}", db.display()))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let csv = export("csv");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[0].starts_with("at,run_id,owner,"));
    assert!(
        lines[1].contains(",run-1,alice,chat-1,2,c1,bash,approved,alice-phone,"),
        "{csv}"
    );
    assert!(
        lines[2].contains(",denied,alice-phone,")
            && lines[2].ends_with(",not on Fridays,ci-agent,"),
        "{csv}"
    );
    let jsonl = export("jsonl");
    let first: Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    assert_eq!(first["outcome"], "approved");
    assert_eq!(jsonl.lines().count(), 2);
    assert_eq!(first["askedBy"], "ci-agent");
    // The trail's hash chain holds; an edited record is found (exit 1).
    let verify = || {
        Command::new(env!("CARGO_BIN_EXE_toolgate-server"))
            .args(["audit", "verify", "--database"])
            .arg(format!("sqlite:{}", db.display()))
            .output()
            .unwrap()
    };
    let ok = verify();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stdout)
    );
    assert!(String::from_utf8_lossy(&ok.stdout).contains("audit trail intact: 2 record(s)"));
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute(
            "UPDATE toolgate_audit SET outcome = 'approved' WHERE outcome = 'denied'",
            [],
        )
        .unwrap();
    let broken = verify();
    assert_eq!(broken.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&broken.stdout).contains("edited"),
        "{}",
        String::from_utf8_lossy(&broken.stdout)
    );
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute(
            "UPDATE toolgate_audit SET outcome = 'denied' WHERE id = 2",
            [],
        )
        .unwrap();
    assert!(verify().status.success());

    // A denied call cannot be parked (the policy decides, not the agent).
    let hard = park(a, "run-3", "rm -rf /");
    assert_eq!(hard.status, 400, "{}", String::from_utf8_lossy(&hard.body));

    drop(server);
}

#[test]
fn a_restart_keeps_the_waiting_run() {
    let dir = temp_dir("restart");
    let db = dir.join("toolgate.db");
    let server = start(&db);
    let parked = park(&server.addr, "run-r", "make deploy");
    let anchor = parked.json()["run"]["marker"]["calls"][0]["anchor"].clone();
    drop(server);
    let server = start(&db);
    let decision =
        json!({"decisions": [{"toolCallId": "c1", "anchor": anchor, "decision": "allow"}]});
    let ok = req(
        &server.addr,
        "POST",
        "/v1/runs/run-r/decisions",
        Some(ALICE),
        Some(&decision),
        &[],
    );
    assert_eq!(ok.status, 200, "{}", String::from_utf8_lossy(&ok.body));
    drop(server);
}

#[test]
fn hostile_requests_change_nothing() {
    let dir = temp_dir("hostile");
    let db = dir.join("toolgate.db");
    let server = start(&db);
    let a = server.addr.as_str();
    let parked = park(a, "run-h", "git push");
    let anchor = parked.json()["run"]["marker"]["calls"][0]["anchor"]
        .as_str()
        .unwrap()
        .to_string();
    let revision = parked.json()["run"]["revision"].as_u64().unwrap();
    let before = dump(&db);
    let decide = |body: &[u8], token: Option<&str>, ct: &str| -> Reply {
        let mut head = format!("POST /v1/runs/run-h/decisions HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
        if let Some(t) = token {
            head.push_str(&format!("Authorization: Bearer {t}\r\n"));
        }
        if !ct.is_empty() {
            head.push_str(&format!("Content-Type: {ct}\r\n"));
        }
        head.push_str("\r\n");
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(body);
        raw(a, &bytes)
    };
    let good = |d: &str| {
        format!(r#"{{"decisions":[{{"toolCallId":"c1","anchor":"{anchor}","decision":"{d}"}}]}}"#)
    };
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_args =
        format!(r#"{{"calls":[{{"toolCallId":"c1","tool":"bash","args":{deep}}}],"history":""}}"#);
    let park_raw = |body: &str| {
        format!("POST /v1/runs/run-deep/park HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer {AGENT}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len())
    };
    let huge = format!(
        r#"{{"decisions":[],"pad":"{}"}}"#,
        "x".repeat(3 * 1024 * 1024)
    );
    let cases: Vec<(&str, Reply, u16, &str)> = vec![
        (
            "no token",
            decide(good("allow").as_bytes(), None, "application/json"),
            401,
            "unauthorized",
        ),
        (
            "wrong token",
            decide(
                good("allow").as_bytes(),
                Some("not-a-token-at-all"),
                "application/json",
            ),
            401,
            "unauthorized",
        ),
        (
            "another owner's token",
            decide(good("allow").as_bytes(), Some(BOB), "application/json"),
            404,
            "not_found",
        ),
        (
            "not JSON",
            decide(b"decisions=allow", Some(ALICE), "application/json"),
            400,
            "bad_json",
        ),
        (
            "no content type",
            decide(good("allow").as_bytes(), Some(ALICE), ""),
            415,
            "unsupported_media_type",
        ),
        (
            "unknown field",
            decide(
                br#"{"decisions":[],"approveAll":true}"#,
                Some(ALICE),
                "application/json",
            ),
            400,
            "bad_input",
        ),
        (
            "wrong type",
            decide(br#"{"decisions":"allow"}"#, Some(ALICE), "application/json"),
            400,
            "bad_input",
        ),
        (
            "bad decision",
            decide(good("yes").as_bytes(), Some(ALICE), "application/json"),
            400,
            "bad_input",
        ),
        (
            // Never the first or the last of the two: refused.
            "a key twice (deny, then allow)",
            decide(
                br#"{"decisions":[{"toolCallId":"call_1","anchor":"a","decision":"deny","decision":"allow"}]}"#,
                Some(ALICE),
                "application/json",
            ),
            400,
            "bad_input",
        ),
        (
            "no decisions",
            decide(br#"{"decisions":[]}"#, Some(ALICE), "application/json"),
            400,
            "bad_input",
        ),
        (
            // Read as a whole value first (refusing duplicate keys), as deep JSON in a
            // call's args is: past serde_json's depth limit, whatever the field.
            "deep JSON where a list is not expected",
            decide(deep.as_bytes(), Some(ALICE), "application/json"),
            400,
            "bad_json",
        ),
        (
            "deep JSON in a call's args",
            raw(a, park_raw(&deep_args).as_bytes()),
            400,
            "bad_json",
        ),
        (
            "huge body",
            decide(huge.as_bytes(), Some(ALICE), "application/json"),
            413,
            "body_too_large",
        ),
        (
            "unknown call",
            decide(
                br#"{"decisions":[{"toolCallId":"zz","anchor":"a","decision":"allow"}]}"#,
                Some(ALICE),
                "application/json",
            ),
            409,
            "stale",
        ),
        (
            "bad run id",
            req(a, "GET", "/v1/runs/..%2F..%2Fetc", Some(ALICE), None, &[]),
            400,
            "bad_input",
        ),
        (
            "bad status",
            req(
                a,
                "GET",
                "/v1/runs?status=everything",
                Some(ALICE),
                None,
                &[],
            ),
            400,
            "bad_input",
        ),
        (
            "unknown query",
            req(a, "GET", "/v1/runs?owner=bob", Some(ALICE), None, &[]),
            400,
            "bad_input",
        ),
        (
            "a decision for a prompt the run has moved on from (stale revision)",
            decide(
                good("allow")
                    .replacen('{', &format!("{{\"revision\":{},", revision + 7), 1)
                    .as_bytes(),
                Some(ALICE),
                "application/json",
            ),
            409,
            "stale",
        ),
        (
            "another agent of the owner reads the run",
            req(a, "GET", "/v1/runs/run-h", Some(AGENT_2), None, &[]),
            404,
            "not_found",
        ),
        (
            "another agent of the owner takes its decision",
            req(a, "POST", "/v1/runs/run-h/resume", Some(AGENT_2), None, &[]),
            404,
            "not_found",
        ),
        (
            "another agent of the owner parks over it",
            req(
                a,
                "POST",
                "/v1/runs/run-h/park",
                Some(AGENT_2),
                Some(&park_body("ls")),
                &[],
            ),
            409,
            "run_id_taken",
        ),
        (
            "a page of zero",
            req(a, "GET", "/v1/runs?limit=0", Some(ALICE), None, &[]),
            400,
            "bad_input",
        ),
        (
            "a huge page",
            req(
                a,
                "GET",
                "/v1/runs?limit=100000000000000000000000",
                Some(ALICE),
                None,
                &[],
            ),
            400,
            "bad_input",
        ),
        (
            "a cursor that is not a run id",
            req(a, "GET", "/v1/runs?cursor=..%2Fetc", Some(ALICE), None, &[]),
            400,
            "bad_input",
        ),
        (
            "park by an approver",
            req(
                a,
                "POST",
                "/v1/runs/run-x/park",
                Some(ALICE),
                Some(&park_body("ls")),
                &[],
            ),
            403,
            "forbidden",
        ),
        (
            "unknown endpoint",
            req(a, "GET", "/v1/admin", Some(ALICE), None, &[]),
            404,
            "not_found",
        ),
        (
            "two Authorization headers (an approver's and an agent's)",
            req(
                a,
                "POST",
                "/v1/runs/run-h/decisions",
                Some(ALICE),
                Some(&serde_json::from_str::<Value>(&good("allow")).unwrap()),
                &[("Authorization", &format!("Bearer {AGENT}"))],
            ),
            400,
            "duplicate_header",
        ),
        (
            "two Content-Type headers",
            req(
                a,
                "POST",
                "/v1/runs/run-h/decisions",
                Some(ALICE),
                Some(&serde_json::from_str::<Value>(&good("allow")).unwrap()),
                &[("Content-Type", "text/plain")],
            ),
            400,
            "duplicate_header",
        ),
    ];
    for (name, reply, status, code) in &cases {
        assert_eq!(
            (reply.status, reply.code().as_str()),
            (*status, *code),
            "{name}: {}",
            String::from_utf8_lossy(&reply.body)
        );
    }
    // Oversized headers: refused by the HTTP layer.
    let big = format!("GET /v1/runs HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Pad: {}\r\nAuthorization: Bearer {ALICE}\r\n\r\n", "p".repeat(512 * 1024));
    let reply = raw(a, big.as_bytes());
    assert!(
        reply.status == 431 || reply.status == 400,
        "oversized headers: {}",
        reply.status
    );
    assert_eq!(dump(&db), before, "a refused request changed the database");
    // Another agent of the owner lists nothing of the first one's.
    let listed = req(a, "GET", "/v1/runs", Some(AGENT_2), None, &[]);
    assert_eq!(listed.status, 200);
    assert_eq!(listed.json()["runs"], json!([]));
    // The same run id in another owner is another run: no answer says the first exists,
    // and neither touches the other.
    let bobs = req(
        a,
        "POST",
        "/v1/runs/run-h/park",
        Some(BOB),
        Some(&park_body("ls -R /")),
        &[],
    );
    assert_eq!(bobs.status, 201, "{}", String::from_utf8_lossy(&bobs.body));
    let alices = req(a, "GET", "/v1/runs/run-h", Some(ALICE), None, &[]).json();
    assert_eq!(alices["marker"]["calls"][0]["args"]["command"], "git push");
    assert_eq!(alices["revision"].as_u64(), Some(revision));
    let bob_sees = req(a, "GET", "/v1/runs/run-h", Some(BOB), None, &[]).json();
    assert_eq!(bob_sees["marker"]["calls"][0]["args"]["command"], "ls -R /");
    // The approver sees who asked; the agent that parked it, its history.
    assert_eq!(alices["parkedBy"], "ci-agent");
    let own = req(a, "GET", "/v1/runs/run-h", Some(AGENT), None, &[]).json();
    assert_eq!(own["marker"]["history"], "{\"messages\":3}");
    // Still decidable afterwards: nothing was consumed.
    let ok = decide(good("allow").as_bytes(), Some(ALICE), "application/json");
    assert_eq!(ok.status, 200);
    // Replayed, by the same device or another: 409 naming who decided; nothing changes.
    let after = dump(&db);
    for token in [ALICE, ALICE_LAPTOP] {
        let replay = decide(good("deny").as_bytes(), Some(token), "application/json");
        assert_eq!(replay.status, 409);
        assert_eq!(replay.json()["error"]["code"], "already_resumed");
        assert_eq!(replay.json()["error"]["decidedBy"], "alice-phone");
    }
    // The same from a prompt carrying the revision it was shown at (now behind): still
    // told who decided, not just "stale".
    let shown_at = good("deny").replacen('{', &format!("{{\"revision\":{revision},"), 1);
    let late = decide(shown_at.as_bytes(), Some(ALICE_LAPTOP), "application/json");
    assert_eq!(
        (late.status, late.code().as_str()),
        (409, "already_resumed")
    );
    assert_eq!(late.json()["error"]["decidedBy"], "alice-phone");
    assert_eq!(dump(&db), after, "a replayed decision changed the database");
    drop(server);
}

#[test]
fn cors_only_for_configured_origins() {
    let dir = temp_dir("cors");
    let server = start(&dir.join("toolgate.db"));
    let preflight = |origin: &str| {
        req(
            &server.addr,
            "OPTIONS",
            "/v1/runs",
            None,
            None,
            &[
                ("Origin", origin),
                ("Access-Control-Request-Method", "GET"),
                ("Access-Control-Request-Headers", "authorization"),
            ],
        )
    };
    let ok = preflight("https://chat.example.com");
    assert_eq!(
        ok.header("access-control-allow-origin"),
        Some("https://chat.example.com")
    );
    let other = preflight("https://evil.example");
    assert_eq!(other.header("access-control-allow-origin"), None);
    drop(server);
}

/// Two server processes on one PostgreSQL database (two replicas): the same decision
/// sent to both at the same moment, 100 times → exactly one 200 and one 409 each time.
/// Runs under scripts/with-postgres (TOOLGATE_TEST_POSTGRES_URL); says SKIPPED without.
#[test]
fn two_replicas_on_postgres_resume_once() {
    let Ok(url) = std::env::var("TOOLGATE_TEST_POSTGRES_URL") else {
        assert!(
            std::env::var_os("TOOLGATE_REQUIRE_POSTGRES").is_none(),
            "TOOLGATE_REQUIRE_POSTGRES is set but TOOLGATE_TEST_POSTGRES_URL is not"
        );
        eprintln!("SKIPPED: no PostgreSQL (run under scripts/with-postgres)");
        return;
    };
    let one = start_url(&url);
    let two = start_url(&url);
    let mut winners = 0;
    for i in 0..100 {
        let id = format!("replica-{}-{i}", std::process::id());
        let parked = park(&one.addr, &id, "make deploy");
        assert_eq!(
            parked.status,
            201,
            "{}",
            String::from_utf8_lossy(&parked.body)
        );
        let anchor = parked.json()["run"]["marker"]["calls"][0]["anchor"].clone();
        let decision =
            json!({"decisions": [{"toolCallId": "c1", "anchor": anchor, "decision": "allow"}]});
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
        let replies: Vec<Reply> = [(one.addr.clone(), ALICE), (two.addr.clone(), ALICE_LAPTOP)]
            .into_iter()
            .map(|(addr, token)| {
                let (barrier, decision, path) = (
                    barrier.clone(),
                    decision.clone(),
                    format!("/v1/runs/{id}/decisions"),
                );
                std::thread::spawn(move || {
                    barrier.wait();
                    req(&addr, "POST", &path, Some(token), Some(&decision), &[])
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect();
        let mut statuses: Vec<(u16, String)> =
            replies.iter().map(|r| (r.status, r.code())).collect();
        statuses.sort();
        assert_eq!(
            statuses,
            [(200, String::new()), (409, "already_resumed".to_string())],
            "round {i}"
        );
        // The loser is told who won.
        let winner = if replies[0].status == 200 {
            "alice-phone"
        } else {
            "alice-laptop"
        };
        let loser = replies.iter().find(|r| r.status == 409).unwrap();
        assert_eq!(loser.json()["error"]["decidedBy"], winner, "round {i}");
        winners += 1;
    }
    assert_eq!(winners, 100);
}

/// A local HTTP receiver for the webhook: answers each connection with the next status
/// of `script` (0: never answer), records the bodies.
fn receiver(script: Vec<u16>) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let bodies = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = bodies.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for (i, conn) in listener.incoming().enumerate() {
            let Ok(mut conn) = conn else { return };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            let body = loop {
                let Ok(n) = conn.read(&mut chunk) else {
                    break String::new();
                };
                if n == 0 {
                    break String::new();
                }
                buf.extend_from_slice(&chunk[..n]);
                if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
                    let len = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse::<usize>().ok())
                        .unwrap_or(0);
                    if buf.len() >= end + 4 + len {
                        break String::from_utf8_lossy(&buf[end + 4..end + 4 + len]).to_string();
                    }
                }
            };
            seen.lock().unwrap().push(body);
            match script.get(i).copied().unwrap_or(200) {
                0 => held.push(conn),
                status => {
                    let _ = conn.write_all(
                        format!("HTTP/1.1 {status} X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok").as_bytes(),
                    );
                }
            }
        }
    });
    (addr, bodies)
}

#[test]
fn a_waiting_run_posts_the_webhook_and_never_waits_for_it() {
    let dir = temp_dir("webhook");
    let db = format!("sqlite:{}", dir.join("toolgate.db").display());
    // The first attempt fails (500), the retry is delivered.
    let (hook, bodies) = receiver(vec![500, 200]);
    let url = format!("http://{hook}/services/T0/B0/secret");
    let server = start_env(
        &db,
        &[
            ("TOOLGATE_WEBHOOK_URL", &url),
            ("TOOLGATE_PUBLIC_URL", "https://panel.example/"),
        ],
    );
    let started = std::time::Instant::now();
    let parked = park(&server.addr, "run-w", "echo '<!channel> `x`' && git push");
    assert_eq!(parked.status, 201);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the park waited for the webhook"
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while bodies.lock().unwrap().len() < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let got = bodies.lock().unwrap().clone();
    assert_eq!(got.len(), 2, "one failed attempt, one retry: {got:?}");
    assert_eq!(got[0], got[1]);
    let text = serde_json::from_str::<Value>(&got[1]).unwrap()["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains("run 'run-w'") || text.contains("run `run-w`"),
        "{text}"
    );
    // The call without its arguments: its programs, rule and reason.
    assert!(text.contains("(programs: echo, git)"), "{text}");
    assert!(!text.contains("channel"), "the command was sent: {text}");
    assert!(
        text.contains("<https://panel.example/#run=run-w|Open the approval panel>"),
        "{text}"
    );
    assert!(text.contains("not on the read-only allowlist"), "{text}");
    drop(server);

    // A webhook that never answers: the park is answered at once all the same, and the
    // run waits as usual.
    let (hook, _bodies) = receiver(vec![0, 0, 0]);
    let url = format!("http://{hook}/hang");
    let server = start_env(&db, &[("TOOLGATE_WEBHOOK_URL", &url)]);
    let started = std::time::Instant::now();
    let parked = park(&server.addr, "run-w2", "make deploy");
    assert_eq!(parked.status, 201);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the park waited for the webhook"
    );
    let run = req(
        &server.addr,
        "GET",
        "/v1/runs/run-w2",
        Some(ALICE),
        None,
        &[],
    )
    .json();
    assert_eq!(run["status"], "awaiting_permission");
    drop(server);
}

/// What reaches the webhook of a parked secret write and a command with a bearer
/// token: by default neither argument; with `webhook_args = redacted` the arguments,
/// with the file's content as its size and the token masked; in both, Slack's markup
/// escaped. The URL's credentials never reach the log.
#[test]
fn the_webhook_carries_no_secret() {
    let dir = temp_dir("webhook-secrets");
    let db = format!("sqlite:{}", dir.join("toolgate.db").display());
    let key = "sk-proj-Zq7xR2mW9kLp4vT8Yb3n";
    let bearer = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl";
    let write = json!({
        "sessionId": "chat-1",
        "calls": [
            {"toolCallId": "c1", "tool": "write", "args": {"file_path": ".env", "content": format!("OPENAI_API_KEY={key}\n")}},
            {"toolCallId": "c2", "tool": "bash", "args": {"command": format!("curl -H 'Authorization: Bearer {bearer}' 'https://api.example.com/<!channel>'")}}
        ],
        "history": "{}"
    });
    for (mode, i) in [("none", 0), ("redacted", 1)] {
        let (hook, bodies) = receiver(vec![200]);
        let url = format!("http://hookuser:hookpass@{hook}/services/T0/B0/secret");
        let server = start_env(
            &db,
            &[
                ("TOOLGATE_WEBHOOK_URL", &url),
                ("TOOLGATE_WEBHOOK_ARGS", mode),
            ],
        );
        let id = format!("run-s{i}");
        let parked = req(
            &server.addr,
            "POST",
            &format!("/v1/runs/{id}/park"),
            Some(AGENT),
            Some(&write),
            &[],
        );
        assert_eq!(
            parked.status,
            201,
            "{}",
            String::from_utf8_lossy(&parked.body)
        );
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while bodies.lock().unwrap().is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let got = bodies.lock().unwrap().clone();
        assert_eq!(got.len(), 1, "{mode}");
        let text = serde_json::from_str::<Value>(&got[0]).unwrap()["text"]
            .as_str()
            .unwrap()
            .to_string();
        for secret in [key, bearer, "eyJzdWIi", "Zq7xR2mW"] {
            assert!(!text.contains(secret), "{mode}: {secret} in {text}");
        }
        assert!(text.contains("(path: .env)"), "{mode}: {text}");
        assert!(text.contains("(programs: curl)"), "{mode}: {text}");
        assert!(!text.contains("<!channel>"), "{mode}: {text}");
        if mode == "redacted" {
            assert!(text.contains("Authorization: Bearer ***"), "{text}");
            assert!(text.contains("[44 bytes]"), "{text}");
            assert!(text.contains("&lt;!channel&gt;"), "{text}");
        } else {
            assert!(!text.contains("Authorization"), "{text}");
            assert!(!text.contains("bytes]"), "{text}");
        }
        drop(server);
    }
}

/// The poll's 304 comes from the change counter, but never past a marker's expiry: the
/// poll after it lists again and shows the run cancelled.
#[test]
fn an_expiring_marker_ends_the_cached_poll() {
    let dir = temp_dir("expiry");
    let server = start(&dir.join("toolgate.db"));
    let a = server.addr.as_str();
    let mut body = park_body("make deploy");
    body["ttlMs"] = json!(1500);
    assert_eq!(
        req(
            a,
            "POST",
            "/v1/runs/run-e/park",
            Some(AGENT),
            Some(&body),
            &[]
        )
        .status,
        201
    );
    let first = req(a, "GET", "/v1/runs", Some(ALICE), None, &[]);
    let etag = first.header("etag").unwrap().to_string();
    let cached = req(
        a,
        "GET",
        "/v1/runs",
        Some(ALICE),
        None,
        &[("If-None-Match", &etag)],
    );
    assert_eq!(cached.status, 304);
    std::thread::sleep(Duration::from_millis(1700));
    let after = req(
        a,
        "GET",
        "/v1/runs",
        Some(ALICE),
        None,
        &[("If-None-Match", &etag)],
    );
    assert_eq!(after.status, 200);
    assert_eq!(after.json()["runs"][0]["status"], "cancelled");
    drop(server);
}

/// The reference agent: it parks at each `ask` step in the database; a decision, also
/// one made after a restart, makes it go on in the background to the next step.
#[test]
fn the_reference_agent_goes_on_after_each_decision_even_after_a_restart() {
    let dir = temp_dir("agent");
    let db = format!("sqlite:{}", dir.join("toolgate.db").display());
    let server = start_args(&db, &[], &["--demo-agent"]);
    let started = req(
        &server.addr,
        "POST",
        "/v1/agent/runs",
        Some(ALICE),
        None,
        &[],
    );
    assert_eq!(
        started.status,
        201,
        "{}",
        String::from_utf8_lossy(&started.body)
    );
    assert_eq!(started.json()["turn"], "parked");
    let id = started.json()["runId"].as_str().unwrap().to_string();
    let path = format!("/v1/runs/{id}");
    // Waits until the run awaits permission for `command` (or ends), and returns it.
    let wait_for = |addr: &str, command: Option<&str>| -> Value {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let run = req(addr, "GET", &path, Some(ALICE), None, &[]).json();
            let asked = run["marker"]["calls"][0]["args"]["command"].as_str();
            let done = match command {
                Some(c) => asked == Some(c),
                None => run["status"] == "completed",
            };
            if done || std::time::Instant::now() > deadline {
                return run;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let decide = |addr: &str, run: &Value, decision: &str, message: Option<&str>| {
        let call = &run["marker"]["calls"][0];
        let mut d = json!({"toolCallId": call["toolCallId"], "anchor": call["anchor"], "decision": decision});
        if let Some(m) = message {
            d["message"] = json!(m);
        }
        let r = req(
            addr,
            "POST",
            &format!("{path}/decisions"),
            Some(ALICE),
            Some(&json!({"decisions": [d]})),
            &[],
        );
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    };
    let first = wait_for(&server.addr, Some("grep -rn 'fn parse' src"));
    assert_eq!(first["status"], "awaiting_permission", "{first}");
    // The server restarts while the run waits; the decision comes to the new one.
    drop(server);
    let server = start_args(&db, &[], &["--demo-agent"]);
    decide(&server.addr, &first, "allow", None);
    let second = wait_for(&server.addr, Some("cargo test"));
    assert_eq!(second["status"], "awaiting_permission", "{second}");
    decide(&server.addr, &second, "deny", Some("not now"));
    // `curl | sh` is denied by the policy, and the agent goes on to `git push`.
    let third = wait_for(&server.addr, Some("git push origin main"));
    let history = third["marker"]["history"].as_str().unwrap_or("");
    assert!(
        history.contains("User refused permission: not now"),
        "{history}"
    );
    assert!(
        history.contains("refused by the policy (builtin.shell.pipe-to-shell)"),
        "{history}"
    );
    // A second device's decision of a call decided meanwhile (the run has moved on to
    // a new marker): 409 already_resumed naming who decided; a wrong anchor on the
    // waiting call stays anchor_mismatch. Neither changes the run.
    let late = |run: &Value, anchor: &Value| {
        let call = &run["marker"]["calls"][0];
        req(
            &server.addr,
            "POST",
            &format!("{path}/decisions"),
            Some(ALICE),
            Some(
                &json!({"decisions": [{"toolCallId": call["toolCallId"], "anchor": anchor, "decision": "allow"}]}),
            ),
            &[],
        )
    };
    let replay = late(&second, &second["marker"]["calls"][0]["anchor"]);
    assert_eq!(replay.status, 409);
    assert_eq!(replay.json()["error"]["code"], "already_resumed");
    assert_eq!(replay.json()["error"]["decidedBy"], "alice-phone");
    let forged = late(&third, &json!("0".repeat(64)));
    assert_eq!(forged.status, 409);
    assert_eq!(forged.json()["error"]["code"], "anchor_mismatch");
    assert!(forged.json()["error"].get("decidedBy").is_none());
    let unchanged = req(&server.addr, "GET", &path, Some(ALICE), None, &[]).json();
    assert_eq!(unchanged["revision"], third["revision"]);
    decide(&server.addr, &third, "allow", None);
    let done = wait_for(&server.addr, None);
    assert_eq!(done["status"], "completed", "{done}");
    let audit = req(&server.addr, "GET", "/v1/audit", Some(ALICE), None, &[]).json();
    let outcomes: Vec<&str> = audit["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["runId"] == id.as_str())
        .map(|r| r["outcome"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(outcomes, ["approved", "denied", "approved"]);
    drop(server);
    // Without --demo-agent there is no agent to start.
    let plain = start(&dir.join("toolgate.db"));
    assert_eq!(
        req(
            &plain.addr,
            "POST",
            "/v1/agent/runs",
            Some(ALICE),
            None,
            &[]
        )
        .status,
        404
    );
    drop(plain);
}

/// An agent that parked over HTTP takes what a person decided in the panel, with its
/// history and the decided arguments, once (`POST /v1/runs/{id}/resume`); and what
/// expiry left, once. Only the agent's own owner, with the agent role.
#[test]
fn the_agent_takes_the_decision_and_its_history_once() {
    let dir = temp_dir("take");
    let server = start(&dir.join("toolgate.db"));
    let a = server.addr.as_str();
    let take = |id: &str, token: &str| {
        req(
            a,
            "POST",
            &format!("/v1/runs/{id}/resume"),
            Some(token),
            None,
            &[],
        )
    };
    let decide = |id: &str, decision: Value| {
        let run = req(a, "GET", &format!("/v1/runs/{id}"), Some(ALICE), None, &[]).json();
        let mut d = decision;
        d["toolCallId"] = json!("c1");
        d["anchor"] = run["marker"]["calls"][0]["anchor"].clone();
        req(
            a,
            "POST",
            &format!("/v1/runs/{id}/decisions"),
            Some(ALICE),
            Some(&json!({"decisions": [d]})),
            &[],
        )
    };

    assert_eq!(park(a, "run-t", "make deploy").status, 201);
    // Nothing decided yet: nothing to take, and the run still waits.
    let early = take("run-t", AGENT);
    assert_eq!(
        (early.status, early.json()["error"]["code"].clone()),
        (409, json!("awaiting_permission"))
    );
    assert_eq!(decide("run-t", json!({"decision": "allow"})).status, 200);
    // Not the approver's to take, nor another owner's.
    assert_eq!(take("run-t", ALICE).status, 403);
    assert_eq!(take("run-t", BOB).status, 404);
    let taken = take("run-t", AGENT);
    assert_eq!(
        taken.status,
        200,
        "{}",
        String::from_utf8_lossy(&taken.body)
    );
    let t = taken.json();
    assert_eq!(t["history"], "{\"messages\":3}");
    assert_eq!(t["results"][0]["outcome"], "approved");
    assert_eq!(t["results"][0]["args"], json!({"command": "make deploy"}));
    let again = take("run-t", AGENT);
    assert_eq!(
        (again.status, again.json()["error"]["code"].clone()),
        (409, json!("already_resumed"))
    );

    assert_eq!(park(a, "run-d", "make deploy").status, 201);
    assert_eq!(
        decide("run-d", json!({"decision": "deny", "message": "not today"})).status,
        200
    );
    let denied = take("run-d", AGENT).json();
    assert_eq!(denied["results"][0]["outcome"], "denied");
    assert_eq!(
        denied["results"][0]["toolResult"],
        "User refused permission: not today"
    );

    let mut body = park_body("make deploy");
    body["ttlMs"] = json!(1000);
    assert_eq!(
        req(
            a,
            "POST",
            "/v1/runs/run-x/park",
            Some(AGENT),
            Some(&body),
            &[]
        )
        .status,
        201
    );
    let anchor = req(a, "GET", "/v1/runs/run-x", Some(ALICE), None, &[]).json()["marker"]["calls"]
        [0]["anchor"]
        .clone();
    std::thread::sleep(Duration::from_millis(1200));
    // A late decision approves nothing; the agent is told nobody answered, once.
    let late = json!({"decisions": [{"toolCallId": "c1", "anchor": anchor, "decision": "allow"}]});
    assert_eq!(
        req(
            a,
            "POST",
            "/v1/runs/run-x/decisions",
            Some(ALICE),
            Some(&late),
            &[]
        )
        .json()["error"]["code"],
        "expired"
    );
    let expired = take("run-x", AGENT);
    assert_eq!(
        expired.status,
        200,
        "{}",
        String::from_utf8_lossy(&expired.body)
    );
    let e = expired.json();
    assert_eq!(e["results"][0]["outcome"], "expired");
    assert_eq!(e["results"][0]["toolResult"], toolgate_core::EXPIRED_TEXT);
    assert_eq!(e["history"], "{\"messages\":3}");
    assert_eq!(take("run-x", AGENT).status, 409);
    drop(server);
}

/// The agent that parked a run withdraws it while it waits (`POST /v1/runs/{id}/cancel`,
/// its host answered the call itself): the run is `cancelled`, nobody can decide or take
/// it any more, and the audit records the reason. Only that agent, only while it waits:
/// a decision already made stands. Once taken and run, the agent completes it
/// (`POST /v1/runs/{id}/complete`), only then.
#[test]
fn the_agent_that_parked_a_run_cancels_it_while_it_waits() {
    let dir = temp_dir("cancel");
    let server = start(&dir.join("toolgate.db"));
    let a = server.addr.as_str();
    let cancel = |id: &str, token: &str, reason: &str| {
        req(
            a,
            "POST",
            &format!("/v1/runs/{id}/cancel"),
            Some(token),
            Some(&json!({ "reason": reason })),
            &[],
        )
    };
    let code = |r: &Reply| (r.status, r.json()["error"]["code"].clone());
    assert_eq!(park(a, "run-c", "make deploy").status, 201);
    let anchor = req(a, "GET", "/v1/runs/run-c", Some(ALICE), None, &[]).json()["marker"]["calls"]
        [0]["anchor"]
        .clone();
    assert_eq!(cancel("run-c", ALICE, "x").status, 403);
    assert_eq!(cancel("run-c", AGENT_2, "x").status, 404);
    assert_eq!(cancel("run-c", BOB, "x").status, 404);
    assert_eq!(
        code(&cancel("run-c", AGENT, " ")),
        (400, json!("bad_input"))
    );
    assert_eq!(
        code(&cancel("run-c", AGENT, &"x".repeat(501))),
        (400, json!("bad_input"))
    );
    let done = cancel("run-c", AGENT, "answered in Claude Code's terminal");
    assert_eq!(done.status, 200, "{}", String::from_utf8_lossy(&done.body));
    assert_eq!(done.json()["status"], "cancelled");
    let run = req(a, "GET", "/v1/runs/run-c", Some(ALICE), None, &[]).json();
    assert_eq!(run["status"], "cancelled", "{run}");
    // Nobody decides or takes it now, and a second cancel changes nothing.
    let late = json!({"decisions": [{"toolCallId": "c1", "anchor": anchor, "decision": "allow"}]});
    let decided = req(
        a,
        "POST",
        "/v1/runs/run-c/decisions",
        Some(ALICE),
        Some(&late),
        &[],
    );
    assert_eq!(
        decided.status,
        409,
        "{}",
        String::from_utf8_lossy(&decided.body)
    );
    let taken = req(a, "POST", "/v1/runs/run-c/resume", Some(AGENT), None, &[]);
    assert_eq!(
        taken.status,
        409,
        "{}",
        String::from_utf8_lossy(&taken.body)
    );
    assert_eq!(
        code(&cancel("run-c", AGENT, "again")),
        (409, json!("not_awaiting_permission"))
    );
    let records = req(a, "GET", "/v1/audit", Some(ALICE), None, &[]).json()["records"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let ends: Vec<String> = records
        .iter()
        .map(|r| format!("{} {} {}", r["runId"], r["outcome"], r["message"]))
        .collect();
    assert_eq!(
        ends,
        [r#""run-c" "cancelled" "answered in Claude Code's terminal""#],
        "{records:?}"
    );

    // Decided first: the decision stands, and is taken as usual.
    assert_eq!(park(a, "run-e", "make deploy").status, 201);
    let anchor = req(a, "GET", "/v1/runs/run-e", Some(ALICE), None, &[]).json()["marker"]["calls"]
        [0]["anchor"]
        .clone();
    let allow = json!({"decisions": [{"toolCallId": "c1", "anchor": anchor, "decision": "allow"}]});
    assert_eq!(
        req(
            a,
            "POST",
            "/v1/runs/run-e/decisions",
            Some(ALICE),
            Some(&allow),
            &[]
        )
        .status,
        200
    );
    assert_eq!(
        code(&cancel("run-e", AGENT, "answered in the terminal")),
        (409, json!("not_awaiting_permission"))
    );
    let taken = req(a, "POST", "/v1/runs/run-e/resume", Some(AGENT), None, &[]).json();
    assert_eq!(taken["results"][0]["outcome"], "approved");

    // The agent ran it: `complete` spends the run for good (only that agent, only a
    // running run; one still waiting is not complete).
    let complete = |id: &str, token: &str| {
        req(
            a,
            "POST",
            &format!("/v1/runs/{id}/complete"),
            Some(token),
            None,
            &[],
        )
    };
    assert_eq!(park(a, "run-w", "make deploy").status, 201);
    assert_eq!(code(&complete("run-w", AGENT)), (409, json!("not_running")));
    assert_eq!(complete("run-e", ALICE).status, 403);
    assert_eq!(complete("run-e", AGENT_2).status, 404);
    assert_eq!(complete("run-nope", AGENT).status, 404);
    let done = complete("run-e", AGENT);
    assert_eq!(done.status, 200, "{}", String::from_utf8_lossy(&done.body));
    assert_eq!(done.json()["status"], "completed");
    assert_eq!(
        req(a, "GET", "/v1/runs/run-e", Some(ALICE), None, &[]).json()["status"],
        "completed"
    );
    assert_eq!(code(&complete("run-e", AGENT)), (409, json!("not_running")));
    drop(server);
}

/// Pages of runs, the cap on waiting runs, and finished runs pruned (their audit
/// records kept, naming the agent that asked).
#[test]
fn pages_caps_and_pruning() {
    let dir = temp_dir("pages");
    let db = dir.join("toolgate.db");
    let config = dir.join("server.toml");
    std::fs::write(
        &config,
        "[limits]\nmax_waiting_runs_per_owner = 5\nfinished_run_ttl_ms = 1500\n",
    )
    .unwrap();
    let server = start_args(
        &format!("sqlite:{}", db.display()),
        &[],
        &["--config", config.to_str().unwrap()],
    );
    let a = server.addr.as_str();
    for i in 0..5 {
        assert_eq!(park(a, &format!("run-p{i}"), "git push").status, 201);
    }
    let over = park(a, "run-p5", "git push");
    assert_eq!(
        (over.status, over.code().as_str()),
        (429, "too_many_waiting")
    );
    assert!(over.header("retry-after").is_some());
    let ids = |r: &Reply| -> Vec<String> {
        r.json()["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["runId"].as_str().unwrap().to_string())
            .collect()
    };
    let first = req(a, "GET", "/v1/runs?limit=2", Some(ALICE), None, &[]);
    assert_eq!(ids(&first), ["run-p0", "run-p1"]);
    assert_eq!(first.json()["nextCursor"], "run-p1");
    assert_eq!(first.json()["runs"][0]["parkedBy"], "ci-agent");
    let second = req(
        a,
        "GET",
        "/v1/runs?limit=2&cursor=run-p1&status=awaiting_permission",
        Some(ALICE),
        None,
        &[],
    );
    assert_eq!(ids(&second), ["run-p2", "run-p3"]);
    let last = req(
        a,
        "GET",
        "/v1/runs?limit=2&cursor=run-p3",
        Some(ALICE),
        None,
        &[],
    );
    assert_eq!(ids(&last), ["run-p4"]);
    assert!(last.json().get("nextCursor").is_none(), "{}", last.json());
    // Each page has its own ETag.
    assert_ne!(first.header("etag"), second.header("etag"));

    // A run whose marker expires is cancelled when read, then pruned after the TTL;
    // its audit record stays, naming the agent that asked.
    let mut body = park_body("make deploy");
    body["ttlMs"] = json!(500);
    // Room under the cap: decide one first.
    let p0 = req(a, "GET", "/v1/runs/run-p0", Some(ALICE), None, &[]).json();
    let anchor = p0["marker"]["calls"][0]["anchor"].as_str().unwrap();
    let decided = req(
        a,
        "POST",
        "/v1/runs/run-p0/decisions",
        Some(ALICE),
        Some(
            &json!({"revision": p0["revision"], "decisions": [{"toolCallId": "c1", "anchor": anchor, "decision": "deny"}]}),
        ),
        &[],
    );
    assert_eq!(
        decided.status,
        200,
        "{}",
        String::from_utf8_lossy(&decided.body)
    );
    let parked = req(
        a,
        "POST",
        "/v1/runs/run-x/park",
        Some(AGENT),
        Some(&body),
        &[],
    );
    assert_eq!(
        parked.status,
        201,
        "{}",
        String::from_utf8_lossy(&parked.body)
    );
    std::thread::sleep(Duration::from_millis(700));
    let read = req(a, "GET", "/v1/runs/run-x", Some(ALICE), None, &[]).json();
    assert_eq!(read["status"], "cancelled");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let gone = loop {
        let r = req(a, "GET", "/v1/runs/run-x", Some(ALICE), None, &[]);
        if r.status == 404 || std::time::Instant::now() > deadline {
            break r.status;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(gone, 404, "the finished run was not pruned");
    let audit = req(a, "GET", "/v1/audit", Some(ALICE), None, &[]).json();
    let x: Vec<&Value> = audit["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["runId"] == "run-x")
        .collect();
    assert_eq!(x.len(), 1, "{audit}");
    assert_eq!(x[0]["outcome"], "expired");
    assert_eq!(x[0]["askedBy"], "ci-agent");
    // Waiting runs are never pruned.
    assert_eq!(
        req(a, "GET", "/v1/runs/run-p1", Some(ALICE), None, &[]).status,
        200
    );
    drop(server);
}

/// Runs `toolgate-server` with `args` and no database work, and returns its exit status
/// and standard error (a configuration it refuses).
fn refused(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate-server"))
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
        .env("TOOLGATE_TOKENS", tokens())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn classify_answers_sandbox_with_the_command_only_for_agents_that_contain_calls() {
    let dir = temp_dir("classify");
    let db = format!("sqlite:{}", dir.join("toolgate.db").display());
    let config = dir.join("server.toml");
    let base = "workspace = \"/srv/app\"\nhome = \"/home/dev\"\n";
    std::fs::write(&config, base).unwrap();
    let calls = json!({"calls": [
        {"toolCallId": "a", "tool": "bash", "args": {"command": "python3 t.py"}},
        {"toolCallId": "b", "tool": "bash", "args": {"command": "pip install requests"}},
        {"tool": "shell", "args": {"command": ["pytest", "-x"]}},
        {"toolCallId": "d", "tool": "bash", "args": {"command": "ls -la"}},
        {"toolCallId": "e", "tool": "bash", "args": {"command": "sudo rm -rf /"}},
        {"toolCallId": "f", "tool": "bash", "args": {"command": "-x 'it''s'"}},
    ]});
    let tiers = |v: &Value| -> Vec<String> {
        v["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["tier"].as_str().unwrap().to_string())
            .collect()
    };
    // Without [sandbox]: code that runs asks, as it always did.
    let server = start_args(&db, &[], &["--config", config.to_str().unwrap()]);
    let a = server.addr.as_str();
    let plain = req(a, "POST", "/v1/classify", Some(AGENT), Some(&calls), &[]);
    assert_eq!(
        plain.status,
        200,
        "{}",
        String::from_utf8_lossy(&plain.body)
    );
    let body = plain.json();
    assert_eq!(tiers(&body), ["ask", "ask", "ask", "auto", "deny", "ask"]);
    assert_eq!(body["verdicts"][0]["toolCallId"], "a");
    assert!(body["verdicts"][2].get("toolCallId").is_none());
    assert!(body["verdicts"][0].get("sandboxed").is_none());
    // Only agents classify; the body is checked.
    let as_person = req(a, "POST", "/v1/classify", Some(ALICE), Some(&calls), &[]);
    assert_eq!(as_person.status, 403);
    let none = req(
        a,
        "POST",
        "/v1/classify",
        Some(AGENT),
        Some(&json!({"calls": []})),
        &[],
    );
    assert_eq!((none.status, none.code().as_str()), (400, "bad_input"));
    let many: Vec<Value> = (0..65)
        .map(|_| json!({"tool": "bash", "args": {"command": "ls"}}))
        .collect();
    let over = req(
        a,
        "POST",
        "/v1/classify",
        Some(AGENT),
        Some(&json!({"calls": many})),
        &[],
    );
    assert_eq!(over.status, 400);
    let unknown = req(
        a,
        "POST",
        "/v1/classify",
        Some(AGENT),
        Some(&json!({"calls": [{"tool": "bash", "verdict": "auto"}]})),
        &[],
    );
    assert_eq!(unknown.status, 400);
    drop(server);

    // With it: `sandbox` and the command that runs it contained.
    std::fs::write(
        &config,
        format!("{base}[sandbox]\nagents = true\ntoolgate = \"/opt/tg/toolgate\"\n"),
    )
    .unwrap();
    let server = start_args(&db, &[], &["--config", config.to_str().unwrap()]);
    let a = server.addr.as_str();
    let body = req(a, "POST", "/v1/classify", Some(AGENT), Some(&calls), &[]).json();
    assert_eq!(
        tiers(&body),
        ["sandbox", "ask", "sandbox", "auto", "deny", "sandbox"]
    );
    let v = &body["verdicts"];
    assert_eq!(v[0]["rule"], "builtin.sandbox");
    assert!(v[0]["reason"]
        .as_str()
        .unwrap()
        .contains("toolgate's sandbox"));
    assert_eq!(
        v[0]["sandboxed"]["command"],
        "/opt/tg/toolgate sandbox --workspace /srv/app -- /bin/bash -c -- 'python3 t.py'"
    );
    assert_eq!(
        v[2]["sandboxed"]["argv"],
        json!([
            "/opt/tg/toolgate",
            "sandbox",
            "--workspace",
            "/srv/app",
            "--",
            "/bin/bash",
            "-c",
            "--",
            "pytest -x"
        ])
    );
    assert!(v[1]["reason"]
        .as_str()
        .unwrap()
        .contains("not run in the sandbox"));
    for i in [1, 3, 4] {
        assert!(v[i].get("sandboxed").is_none(), "{}", v[i]);
    }
    // bash splits the line back into the argv, quotes and all.
    let line = v[5]["sandboxed"]["command"].as_str().unwrap();
    let words = Command::new("bash")
        .args(["-c", &format!("printf '%s\\0' {line}")])
        .output()
        .unwrap();
    let words: Vec<String> = String::from_utf8(words.stdout)
        .unwrap()
        .split_terminator('\0')
        .map(str::to_string)
        .collect();
    assert_eq!(json!(words), v[5]["sandboxed"]["argv"]);
    assert_eq!(words.last().map(String::as_str), Some("-x 'it''s'"));
    // Parking still asks a person, whatever the call.
    let parked = park(a, "run-sbx", "python3 t.py");
    assert_eq!(
        parked.status,
        201,
        "{}",
        String::from_utf8_lossy(&parked.body)
    );
    assert_eq!(parked.json()["run"]["marker"]["calls"][0]["tier"], "ask");
    drop(server);

    // A policy naming registries: the install runs contained with HTTPS to them.
    std::fs::write(
        dir.join("registries.toml"),
        format!("{base}sandbox_network = [\"pypi\"]\n"),
    )
    .unwrap();
    std::fs::write(
        &config,
        "policy = \"registries.toml\"\n[sandbox]\nagents = true\ntoolgate = \"/opt/tg/toolgate\"\n",
    )
    .unwrap();
    let server = start_args(&db, &[], &["--config", config.to_str().unwrap()]);
    let body = req(
        &server.addr,
        "POST",
        "/v1/classify",
        Some(AGENT),
        Some(&calls),
        &[],
    )
    .json();
    let v = &body["verdicts"];
    assert_eq!(
        (&v[1]["tier"], &v[1]["rule"]),
        (&json!("sandbox"), &json!("builtin.sandbox.registry"))
    );
    assert_eq!(
        v[1]["sandboxed"]["command"],
        "/opt/tg/toolgate sandbox --workspace /srv/app --allow-host pypi.org --allow-host \
         files.pythonhosted.org -- /bin/bash -c -- 'pip install requests'"
    );
    assert!(!v[0]["sandboxed"]["command"]
        .as_str()
        .unwrap()
        .contains("--allow-host"));
    drop(server);

    // The reference agent runs the code steps contained and parks at `git push`.
    let server = start_args(
        &db,
        &[],
        &["--config", config.to_str().unwrap(), "--demo-agent"],
    );
    let started = req(
        &server.addr,
        "POST",
        "/v1/agent/runs",
        Some(ALICE),
        None,
        &[],
    );
    assert_eq!(started.json()["turn"], "parked");
    let id = started.json()["runId"].as_str().unwrap().to_string();
    let run = req(
        &server.addr,
        "GET",
        &format!("/v1/runs/{id}"),
        Some(ALICE),
        None,
        &[],
    )
    .json();
    assert_eq!(
        run["marker"]["calls"][0]["args"]["command"],
        "git push origin main"
    );
    let history = run["marker"]["history"].as_str().unwrap_or_default();
    assert!(
        history.contains("ran `cargo test` in toolgate's sandbox"),
        "{history}"
    );
    drop(server);

    // What the server refuses to start with.
    for (file, why) in [
        ("[sandbox]\nagents = true\n", "absolute directory"),
        (
            "workspace = \"/home/dev\"\nhome = \"/home/dev\"\n[sandbox]\nagents = true\n",
            "absolute directory",
        ),
        ("[sandbox]\ntoolgate = \"/x\"\n", "agents = true is not"),
        (
            "[sandbox]\nagents = true\nnetwork = true\n",
            "unknown field",
        ),
    ] {
        std::fs::write(&config, file).unwrap();
        let (code, err) = refused(&["--database", &db, "--config", config.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{file}: {err}");
        assert!(err.contains(why), "{file}: {err}");
    }
    let policy = dir.join("policy.toml");
    std::fs::write(
        &policy,
        "workspace = \"/srv/app\"\nhome = \"/home/dev\"\nsandbox = \"off\"\n",
    )
    .unwrap();
    std::fs::write(
        &config,
        "policy = \"policy.toml\"\n[sandbox]\nagents = true\n",
    )
    .unwrap();
    let (code, err) = refused(&["--database", &db, "--config", config.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("sandbox = \"off\""), "{err}");
    let (code, err) = refused(&["--database", &db, "--sandbox-agents"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("absolute directory"), "{err}");
}

/// A person approves an edit of the parked call: the server classifies the edit with
/// its policy (an edit into a denied command is 422 `edit_refused` and the run still
/// waits, untouched), the agent takes the edited call once, and the run's decision and
/// the audit record keep both (the parked call's anchor and the edit's).
#[test]
fn an_edited_approval_runs_the_edit_and_is_audited() {
    let dir = temp_dir("edit");
    let db = dir.join("toolgate.db");
    let server = start(&db);
    let a = server.addr.as_str();
    assert_eq!(park(a, "run-e", "rm -rf build").status, 201);
    let run = req(a, "GET", "/v1/runs/run-e", Some(ALICE), None, &[]).json();
    let anchor = run["marker"]["calls"][0]["anchor"].clone();
    let revision = run["revision"].clone();
    let decide = |args: Value| {
        let d = json!({"toolCallId": "c1", "anchor": anchor, "decision": "allow", "args": args});
        req(
            a,
            "POST",
            "/v1/runs/run-e/decisions",
            Some(ALICE),
            Some(&json!({"decisions": [d], "revision": revision})),
            &[],
        )
    };
    let before = dump(&db);
    for denied in ["rm -rf /", "sudo rm -rf build"] {
        let r = decide(json!({"command": denied}));
        assert_eq!(
            (r.status, r.json()["error"]["code"].clone()),
            (422, json!("edit_refused")),
            "{denied}"
        );
        assert_eq!(
            dump(&db),
            before,
            "{denied}: a refused edit changed the store"
        );
    }
    let ok = decide(json!({"command": "rm -rf build/cache"}));
    assert_eq!(ok.status, 200, "{}", String::from_utf8_lossy(&ok.body));
    let edited = ok.json()["results"][0].clone();
    assert_eq!(edited["args"], json!({"command": "rm -rf build/cache"}));
    assert_eq!(edited["editedFrom"], json!({"command": "rm -rf build"}));
    let run = req(a, "GET", "/v1/runs/run-e", Some(ALICE), None, &[]).json();
    assert_eq!(
        run["decision"]["calls"][0]["editedFrom"],
        json!({"command": "rm -rf build"})
    );
    let taken = req(a, "POST", "/v1/runs/run-e/resume", Some(AGENT), None, &[]).json();
    assert_eq!(taken["results"][0]["outcome"], "approved");
    assert_eq!(
        taken["results"][0]["args"],
        json!({"command": "rm -rf build/cache"})
    );
    assert_eq!(
        req(a, "POST", "/v1/runs/run-e/resume", Some(AGENT), None, &[]).status,
        409
    );
    let audit = req(a, "GET", "/v1/audit", Some(ALICE), None, &[]).json();
    let rec = audit["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["runId"] == "run-e")
        .cloned()
        .unwrap();
    assert_eq!(rec["outcome"], "approved");
    assert_eq!(rec["anchor"], anchor);
    assert_eq!(
        rec["editedAnchor"],
        json!(toolgate_core::anchor(
            "bash",
            &json!({"command": "rm -rf build/cache"})
        ))
    );
    drop(server);
}

/// Grants: a scope the call does not offer is refused with nothing decided; an offered
/// one is kept (listed with what it matches) and decides later parks of the same session
/// that it covers, once each, the audit naming it; a compound line, another session, a
/// revoked, used-up or expired grant leave the run for a person.
#[test]
fn grants_decide_only_what_they_cover_while_they_live() {
    let dir = temp_dir("grants");
    let db = dir.join("toolgate.db");
    let server = start(&db);
    let a = server.addr.as_str();
    let park_in = |id: &str, session: &str, command: &str| {
        let mut body = park_body(command);
        body["sessionId"] = json!(session);
        let r = req(
            a,
            "POST",
            &format!("/v1/runs/{id}/park"),
            Some(AGENT),
            Some(&body),
            &[],
        );
        assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
        r.json()["run"]["status"].as_str().unwrap().to_string()
    };
    let decide = |id: &str, extra: Value| {
        let run = req(a, "GET", &format!("/v1/runs/{id}"), Some(ALICE), None, &[]).json();
        let mut d = json!({"toolCallId": "c1", "anchor": run["marker"]["calls"][0]["anchor"], "decision": "allow"});
        for (k, v) in extra.as_object().unwrap() {
            d[k] = v.clone();
        }
        req(
            a,
            "POST",
            &format!("/v1/runs/{id}/decisions"),
            Some(ALICE),
            Some(&json!({ "decisions": [d] })),
            &[],
        )
    };
    let waiting = "awaiting_permission";
    assert_eq!(park_in("g-1", "chat-1", "git push origin main"), waiting);
    // What a grant would match is shown before it is given.
    let run = req(a, "GET", "/v1/runs/g-1", Some(ALICE), None, &[]).json();
    let call = &run["marker"]["calls"][0];
    assert_eq!(
        call["scopes"],
        json!(["Bash(git push origin main)", "Bash(git push:*)"])
    );
    assert!(call["scopeMatches"][1]
        .as_str()
        .unwrap()
        .contains("each command of a line on its own"));
    let agent_view = req(a, "GET", "/v1/runs/g-1", Some(AGENT), None, &[]).json();
    assert!(agent_view["marker"]["calls"][0].get("scopes").is_none());
    // A wider scope than offered: refused, nothing decided.
    let before = dump(&db);
    let wide = decide("g-1", json!({"scope": "Bash(git:*)"}));
    assert_eq!(
        (wide.status, wide.json()["error"]["code"].clone()),
        (422, json!("grant_refused"))
    );
    assert_eq!(dump(&db), before);
    let ok = decide(
        "g-1",
        json!({"scope": "Bash(git push:*)", "ttlMs": 600_000}),
    );
    assert_eq!(ok.status, 200, "{}", String::from_utf8_lossy(&ok.body));
    let list = req(a, "GET", "/v1/grants", Some(ALICE), None, &[]).json();
    let grant = list["grants"][0].clone();
    assert_eq!(
        (
            grant["rule"].clone(),
            grant["sessionId"].clone(),
            grant["state"].clone()
        ),
        (json!("Bash(git push:*)"), json!("chat-1"), json!("live"))
    );
    let gid = grant["id"].as_str().unwrap().to_string();
    assert_eq!(
        req(a, "GET", "/v1/grants", Some(AGENT), None, &[]).status,
        403
    );
    // Covered: decided by the grant at park; the agent takes the approval once.
    assert_eq!(park_in("g-2", "chat-1", "git push origin dev"), "running");
    let taken = req(a, "POST", "/v1/runs/g-2/resume", Some(AGENT), None, &[]).json();
    assert_eq!(taken["results"][0]["outcome"], "approved");
    // Not covered: another command joined by `;`, another session.
    assert_eq!(
        park_in("g-3", "chat-1", "git push origin dev; rm -rf build"),
        waiting
    );
    assert_eq!(park_in("g-4", "chat-2", "git push origin dev"), waiting);
    // Another agent of the same owner naming the same session: not its grant.
    let mut body = park_body("git push origin dev");
    body["sessionId"] = json!("chat-1");
    let other_agent = req(
        a,
        "POST",
        "/v1/runs/g-4b/park",
        Some(AGENT_2),
        Some(&body),
        &[],
    );
    assert_eq!(
        other_agent.json()["run"]["status"],
        waiting,
        "{}",
        String::from_utf8_lossy(&other_agent.body)
    );
    // Revoked: never used again; another owner's token finds no such grant.
    let path = format!("/v1/grants/{gid}");
    assert_eq!(req(a, "DELETE", &path, Some(BOB), None, &[]).status, 404);
    let revoked = req(a, "DELETE", &path, Some(ALICE), None, &[]);
    assert_eq!(revoked.json()["state"], "revoked");
    assert_eq!(park_in("g-5", "chat-1", "git push origin dev"), waiting);
    assert!(
        req(a, "GET", "/v1/grants", Some(ALICE), None, &[]).json()["grants"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    // Single use: one later call, then a person again.
    assert_eq!(park_in("g-6", "chat-1", "npm publish"), waiting);
    let once = decide(
        "g-6",
        json!({"scope": "Bash(npm publish)", "singleUse": true}),
    );
    assert_eq!(once.status, 200);
    assert_eq!(park_in("g-7", "chat-1", "npm publish"), "running");
    assert_eq!(park_in("g-8", "chat-1", "npm publish"), waiting);
    // Expired: a grant of 1 s covers nothing after it.
    assert_eq!(park_in("g-9", "chat-1", "cargo publish"), waiting);
    assert_eq!(
        decide(
            "g-9",
            json!({"scope": "Bash(cargo publish)", "ttlMs": 1000})
        )
        .status,
        200
    );
    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(park_in("g-10", "chat-1", "cargo publish"), waiting);
    // The audit names the grant that each approval gave or that approved it.
    let audit = req(a, "GET", "/v1/audit", Some(ALICE), None, &[]).json();
    let grant_of = |run: &str| {
        audit["records"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["runId"] == run)
            .map(|r| (r["outcome"].clone(), r["grant"].clone()))
            .unwrap()
    };
    assert_eq!(grant_of("g-1"), (json!("approved"), json!(gid)));
    assert_eq!(grant_of("g-2"), (json!("approved"), json!(gid)));
    let all = req(a, "GET", "/v1/grants?all=true", Some(ALICE), None, &[]).json();
    let states: Vec<&str> = all["grants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["revoked", "used_up", "expired"]);
    drop(server);
}

/// A question parks with the calls of a run (its marker, in the database): it survives a
/// restart, an approval of it is refused (422 `answer_refused`, nothing changed), the
/// answer resumes the run once, the agent takes the answer as the tool's result, and the
/// audit records who answered what.
#[test]
fn a_question_survives_a_restart_and_its_answer_resumes_the_run_once() {
    let dir = temp_dir("question");
    let db = dir.join("toolgate.db");
    let server = start(&db);
    let body = json!({
        "sessionId": "chat-1",
        "calls": [
            {"toolCallId": "q1", "tool": "ask_user", "args": {"text": "Which branch?"},
             "question": "Which branch should I push?"},
            {"toolCallId": "c1", "tool": "bash", "args": {"command": "git push"}}
        ],
        "history": "{\"messages\":3}"
    });
    let parked = req(
        &server.addr,
        "POST",
        "/v1/runs/run-q/park",
        Some(AGENT),
        Some(&body),
        &[],
    );
    assert_eq!(
        parked.status,
        201,
        "{}",
        String::from_utf8_lossy(&parked.body)
    );
    drop(server);
    let server = start(&db);
    let a = server.addr.as_str();
    let run = req(a, "GET", "/v1/runs/run-q", Some(ALICE), None, &[]).json();
    let q = run["marker"]["calls"][0].clone();
    assert_eq!(q["rule"], "toolgate.question");
    assert_eq!(q["reason"], "Which branch should I push?");
    assert!(q.get("scopes").is_none(), "a question offers no scope: {q}");
    let c = run["marker"]["calls"][1].clone();
    let decide = |dq: Value| {
        let dc = json!({"toolCallId": "c1", "anchor": c["anchor"], "decision": "allow"});
        req(
            a,
            "POST",
            "/v1/runs/run-q/decisions",
            Some(ALICE),
            Some(&json!({"decisions": [dq, dc]})),
            &[],
        )
    };
    let before = dump(&db);
    for bad in [
        json!({"toolCallId": "q1", "anchor": q["anchor"], "decision": "allow"}),
        json!({"toolCallId": "q1", "anchor": q["anchor"], "decision": "answer", "answer": " "}),
    ] {
        let r = decide(bad.clone());
        assert_eq!(
            (r.status, r.json()["error"]["code"].clone()),
            (422, json!("answer_refused")),
            "{bad}"
        );
        assert_eq!(
            dump(&db),
            before,
            "{bad}: a refused answer changed the store"
        );
    }
    let ok = decide(
        json!({"toolCallId": "q1", "anchor": q["anchor"], "decision": "answer", "answer": "fix/parse-date"}),
    );
    assert_eq!(ok.status, 200, "{}", String::from_utf8_lossy(&ok.body));
    let again = decide(
        json!({"toolCallId": "q1", "anchor": q["anchor"], "decision": "answer", "answer": "main"}),
    );
    assert_eq!(again.status, 409);
    let taken = req(a, "POST", "/v1/runs/run-q/resume", Some(AGENT), None, &[]).json();
    assert_eq!(taken["results"][0]["outcome"], "answered");
    assert_eq!(taken["results"][0]["answer"], "fix/parse-date");
    assert_eq!(taken["results"][0]["toolResult"], "fix/parse-date");
    assert_eq!(taken["results"][1]["outcome"], "approved");
    let audit = req(a, "GET", "/v1/audit", Some(ALICE), None, &[]).json();
    let rec = audit["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["runId"] == "run-q" && r["toolCallId"] == "q1")
        .cloned()
        .unwrap();
    assert_eq!(rec["outcome"], "answered");
    assert_eq!(rec["message"], "fix/parse-date");
    drop(server);
}
