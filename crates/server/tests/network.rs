//! The server on a hostile network, over loopback, bounded in count and time: while
//! 1,000 slow connections trickle a header byte at a time (from eight other loopback
//! addresses, 127.0.0.2–9), an agent parks runs and a person decides them as usual;
//! wrong tokens are throttled, a slow body is cut, a flood of one token is limited,
//! one address cannot hold more than its share of connections, and the server stops
//! within its shutdown bound with the attack still going. Prints the normal requests'
//! p50/p99 and what the attack got.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

const AGENT: &str = "net-agent-token-0123456789";
const PERSON: &str = "net-person-token-0123456789";
const FLOOD: &str = "net-flood-token-0123456789";

/// Connections the attack holds at once, and how many (per address) the server allows.
const SLOW: usize = 1000;
const SLOW_ADDRESSES: u8 = 8;
const PER_ADDRESS: usize = 128;
/// Runs parked and decided during the attack.
const RUNS: usize = 60;

fn config(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("server.toml");
    std::fs::write(
        &path,
        format!(
            "[limits]
header_read_timeout_ms = 3000
body_timeout_ms = 2000
request_timeout_ms = 10000
max_connections = 2048
max_connections_per_address = {PER_ADDRESS}
requests_per_second_per_address = 100
burst_per_address = 200
requests_per_second_per_token = 20
burst_per_token = 40
sign_in_failures = 5
sign_in_window_ms = 60000
shutdown_timeout_ms = 3000
"
        ),
    )
    .unwrap();
    path
}

struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(dir: &std::path::Path) -> Server {
    let tokens = json!([
        {"name": "net-agent", "owner": "net", "roles": ["agent"], "token": AGENT},
        {"name": "net-person", "owner": "net", "roles": ["approver"], "token": PERSON},
        {"name": "net-flood", "owner": "flood", "roles": ["approver"], "token": FLOOD},
    ]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolgate-server"))
        .args(["--listen", "127.0.0.1:0", "--database"])
        .arg(format!("sqlite:{}", dir.join("runs.db").display()))
        .arg("--config")
        .arg(config(dir))
        .env("TOOLGATE_TOKENS", tokens.to_string())
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
        .parse()
        .unwrap();
    Server { child, addr }
}

/// A connection from loopback address `from` (127.0.0.from).
async fn connect(server: SocketAddr, from: u8) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(
        IpAddr::V4(Ipv4Addr::new(127, 0, 0, from)),
        0,
    ))?;
    socket.connect(server).await
}

struct Reply {
    status: u16,
    head: String,
    body: Value,
}

/// One request (`Connection: close`) from `from`; the whole reply.
async fn request(
    server: SocketAddr,
    from: u8,
    method: &str,
    path: &str,
    token: &str,
    body: Option<&Value>,
) -> std::io::Result<Reply> {
    let mut s = connect(server, from).await?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer {token}\r\n"
    );
    if !body.is_empty() {
        req.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    req.push_str("\r\n");
    req.push_str(&body);
    s.write_all(req.as_bytes()).await?;
    let mut buf = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), s.read_to_end(&mut buf))
        .await
        .map_err(|_| std::io::Error::other("no reply within 20 s"))??;
    parse(&buf)
}

fn parse(buf: &[u8]) -> std::io::Result<Reply> {
    let text = String::from_utf8_lossy(buf).to_string();
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| std::io::Error::other(format!("no reply head: {text:?}")))?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    Ok(Reply {
        status,
        head: head.to_lowercase(),
        body: serde_json::from_str(body).unwrap_or(Value::Null),
    })
}

fn pct(sorted: &[Duration], p: usize) -> Duration {
    sorted
        .get((sorted.len() * p / 100).min(sorted.len().saturating_sub(1)))
        .copied()
        .unwrap_or_default()
}

/// What the slowloris side saw.
#[derive(Default)]
struct Attack {
    opened: AtomicUsize,
    refused: AtomicUsize,
    /// Connections the server closed after holding them (header-read timeout).
    cut: AtomicUsize,
    /// Any of them that got a full response (none should).
    answered: AtomicUsize,
}

/// Holds one slow connection after another from `from` until `stop`: each sends a
/// request head one byte a second.
async fn slowloris(server: SocketAddr, from: u8, attack: Arc<Attack>, stop: Arc<AtomicBool>) {
    let head = b"GET /v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nothing-to-see-here-000\r\n\r\n";
    while !stop.load(Ordering::Relaxed) {
        let Ok(mut s) = connect(server, from).await else {
            attack.refused.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        attack.opened.fetch_add(1, Ordering::Relaxed);
        let mut closed = false;
        for byte in head {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            if s.write_all(&[*byte]).await.is_err() {
                closed = true;
                break;
            }
            // Did the server close it?
            let mut one = [0u8; 512];
            match tokio::time::timeout(Duration::from_secs(1), s.read(&mut one)).await {
                Ok(Ok(0)) | Ok(Err(_)) => {
                    closed = true;
                    break;
                }
                Ok(Ok(_)) => {
                    attack.answered.fetch_add(1, Ordering::Relaxed);
                    closed = true;
                    break;
                }
                Err(_) => {}
            }
        }
        if closed {
            attack.cut.fetch_add(1, Ordering::Relaxed);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_network_does_not_stop_the_work() {
    let dir = std::env::temp_dir().join(format!("toolgate-network-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut server = start(&dir);
    let addr = server.addr;

    // 1. The attack: 1,000 slow connections from 8 addresses (125 each, under the
    //    per-address cap), each trickling a head a byte a second.
    let attack = Arc::new(Attack::default());
    let stop = Arc::new(AtomicBool::new(false));
    let mut attackers = Vec::new();
    for i in 0..SLOW {
        let from = 2 + u8::try_from(i % usize::from(SLOW_ADDRESSES)).unwrap();
        attackers.push(tokio::spawn(slowloris(
            addr,
            from,
            attack.clone(),
            stop.clone(),
        )));
    }
    let opening = Instant::now();
    while attack.opened.load(Ordering::Relaxed) < SLOW
        && opening.elapsed() < Duration::from_secs(10)
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let holding = attack.opened.load(Ordering::Relaxed);
    assert!(
        holding >= SLOW * 9 / 10,
        "the attack could not open its connections: {holding}"
    );

    // 2. Meanwhile the work: park RUNS runs, decide each, from 127.0.0.1.
    let started = Instant::now();
    let mut latencies = Vec::new();
    for i in 0..RUNS {
        let id = format!("run-{i}");
        let body = json!({"sessionId": "s", "calls": [{"toolCallId": "c1", "tool": "bash", "args": {"command": format!("git push origin b{i}")}}], "history": "{}"});
        let t = Instant::now();
        let parked = request(
            addr,
            1,
            "POST",
            &format!("/v1/runs/{id}/park"),
            AGENT,
            Some(&body),
        )
        .await
        .unwrap();
        latencies.push(t.elapsed());
        assert_eq!(parked.status, 201, "park {id}: {}", parked.body);
        let anchor = parked.body["run"]["marker"]["calls"][0]["anchor"]
            .as_str()
            .unwrap()
            .to_string();
        let decision =
            json!({"decisions": [{"toolCallId": "c1", "anchor": anchor, "decision": "allow"}]});
        let t = Instant::now();
        let decided = request(
            addr,
            1,
            "POST",
            &format!("/v1/runs/{id}/decisions"),
            PERSON,
            Some(&decision),
        )
        .await
        .unwrap();
        latencies.push(t.elapsed());
        assert_eq!(decided.status, 200, "decide {id}: {}", decided.body);
        // A pace a person and an agent keep (and under the token's rate).
        tokio::time::sleep(Duration::from_millis(80)).await;
    }
    let work_took = started.elapsed();

    // 3. Wrong tokens from one address: 5 answered 401, then 429 with Retry-After, and
    //    that address's right token too until the window ends.
    let mut codes = Vec::new();
    for i in 0..20 {
        let r = request(
            addr,
            10,
            "GET",
            "/v1/runs",
            &format!("guess-{i:04}-0123456789abcdef"),
            None,
        )
        .await
        .unwrap();
        codes.push(r.status);
        if r.status == 429 {
            assert!(r.head.contains("retry-after:"), "{}", r.head);
            assert_eq!(r.body["error"]["code"], "too_many_failures");
        }
    }
    assert_eq!(codes.iter().filter(|c| **c == 401).count(), 5, "{codes:?}");
    assert_eq!(codes.iter().filter(|c| **c == 429).count(), 15, "{codes:?}");
    let blocked = request(addr, 10, "GET", "/v1/runs", PERSON, None)
        .await
        .unwrap();
    assert_eq!(blocked.status, 429);
    let elsewhere = request(addr, 1, "GET", "/v1/runs", PERSON, None)
        .await
        .unwrap();
    assert_eq!(elsewhere.status, 200, "another address is not blocked");

    // 4. A flood of one token (40 at once, rate 20/s): the burst passes, then 429.
    let mut flood = Vec::new();
    for _ in 0..80 {
        flood.push(tokio::spawn(request(
            addr, 11, "GET", "/v1/runs", FLOOD, None,
        )));
    }
    let mut limited = 0;
    for f in flood {
        let r = f.await.unwrap().unwrap();
        if r.status == 429 {
            assert_eq!(r.body["error"]["code"], "rate_limited");
            assert!(r.head.contains("retry-after:"));
            limited += 1;
        } else {
            assert_eq!(r.status, 200);
        }
    }
    assert!(
        limited >= 20,
        "a token's flood was not limited: {limited} of 80"
    );

    // 5. A slow body: the head, then 10 of 100 bytes, then nothing: 408 in about the
    //    body timeout (2 s). A body trickled a byte at a time is cut the same way.
    let mut s = connect(addr, 12).await.unwrap();
    let t = Instant::now();
    s.write_all(format!("POST /v1/runs/slow/park HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer {AGENT}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"calls\":[").as_bytes()).await.unwrap();
    let trickle = async {
        loop {
            tokio::time::sleep(Duration::from_millis(500)).await;
            if s.write_all(b" ").await.is_err() {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_millis(2600), trickle).await;
    let mut buf = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut buf)).await;
    let slow_body = parse(&buf).unwrap();
    assert_eq!(slow_body.status, 408, "{}", slow_body.body);
    assert_eq!(slow_body.body["error"]["code"], "body_timeout");
    let slow_took = t.elapsed();
    assert!(slow_took < Duration::from_secs(6), "{slow_took:?}");

    // 6. One address cannot hold more than its share: of 200 idle connections from one
    //    address, the ones over the cap are closed at once.
    let mut held = Vec::new();
    for _ in 0..200 {
        if let Ok(s) = connect(addr, 13).await {
            held.push(s);
        }
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut closed_at_once = 0;
    for s in &mut held {
        let mut one = [0u8; 1];
        if let Ok(Ok(0)) = tokio::time::timeout(Duration::from_millis(5), s.read(&mut one)).await {
            closed_at_once += 1;
        }
    }
    assert!(
        closed_at_once >= 200 - PER_ADDRESS,
        "{closed_at_once} of 200 closed at once, the cap is {PER_ADDRESS}"
    );
    drop(held);

    // 7. Nothing lost: every run was decided once, and the audit says so.
    let list = request(addr, 1, "GET", "/v1/runs", PERSON, None)
        .await
        .unwrap();
    let runs = list.body["runs"].as_array().unwrap();
    assert_eq!(runs.len(), RUNS);
    assert!(
        runs.iter().all(|r| r["status"] == "running"),
        "{}",
        list.body
    );
    let audit = request(addr, 1, "GET", "/v1/audit", PERSON, None)
        .await
        .unwrap();
    let records = audit.body["records"].as_array().unwrap();
    assert_eq!(records.len(), RUNS);
    assert!(records.iter().all(|r| r["outcome"] == "approved"));

    // 8. The attack got nothing: no slow connection was ever answered, and they were
    //    cut by the header-read timeout (3 s) and opened again.
    let cut = attack.cut.load(Ordering::Relaxed);
    assert_eq!(attack.answered.load(Ordering::Relaxed), 0);
    assert!(cut >= SLOW / 2, "slow connections cut: {cut}");

    // 9. SIGTERM with the attack still going: the server is gone within its shutdown
    //    bound (3 s) and the runtime's (2 s), with a margin.
    let refused_before_stop = attack.refused.load(Ordering::Relaxed);
    let t = Instant::now();
    let pid = server.child.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    let exited = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break Some(status);
        }
        if t.elapsed() > Duration::from_secs(8) {
            break None;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let stop_took = t.elapsed();
    stop.store(true, Ordering::Relaxed);
    assert!(
        exited.is_some(),
        "the server did not stop within 8 s of SIGTERM"
    );
    for a in attackers {
        a.abort();
    }

    latencies.sort();
    println!(
        "hostile network: {SLOW} slow connections from {SLOW_ADDRESSES} addresses \
         ({} opened in all, {cut} cut by the header timeout, {refused_before_stop} refused); \
         {RUNS} runs parked and decided in {:.1} s: p50 {:.1} ms, p99 {:.1} ms; \
         wrong tokens: 5 × 401 then 429; token flood: {limited}/80 limited; \
         slow body: 408 after {:.1} s; per-address cap: {closed_at_once}/200 closed at once; \
         stopped {:.2} s after SIGTERM",
        attack.opened.load(Ordering::Relaxed),
        work_took.as_secs_f64(),
        pct(&latencies, 50).as_secs_f64() * 1000.0,
        pct(&latencies, 99).as_secs_f64() * 1000.0,
        slow_took.as_secs_f64(),
        stop_took.as_secs_f64(),
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
