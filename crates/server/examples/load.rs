//! A load test of toolgate-server over loopback HTTP, bounded in count and time (a
//! watchdog ends it after `--max-seconds`): it starts the server binary on `--database`
//! with two owners, each with five agent tokens and an approver, and a webhook receiver
//! that answers each message after 2 s; then `--concurrency` clients park and decide
//! `--runs` runs at once, spread over the owners and agents (each decision sent twice:
//! the second must be 409 `already_resumed`), checks that nothing was lost and nothing
//! resumed twice (every run `running` in its owner's pages, one approved audit row
//! each, naming the agent that asked), and benchmarks the poll's 304 path. Persistent
//! connections (HTTP/1.1 keep-alive).
//!
//!   cargo build --release -p toolgate-server --bin toolgate-server --example load
//!   target/release/examples/load --database sqlite:/tmp/load.db
//!   scripts/with-postgres sh -c 'target/release/examples/load --database "$TOOLGATE_TEST_POSTGRES_URL"'
//!
//! Prints `park p50/p99`, `decide p50/p99`, `runs_per_sec`, `poll_304_per_sec`; exits
//! non-zero if a check fails.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// Owners, and agent tokens per owner.
const OWNERS: usize = 2;
const AGENTS: usize = 5;

fn agent_token(owner: usize, agent: usize) -> String {
    format!("load-agent-{owner}-{agent}-token-0123456789")
}

fn approver_token(owner: usize) -> String {
    format!("load-approver-{owner}-token-0123456789")
}

/// A webhook receiver that answers each message 200 after `delay`: how many arrived.
/// (One sender thread waits for each answer: messages queue behind a slow receiver.)
fn slow_receiver(delay: Duration) -> (String, Arc<AtomicUsize>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let got = Arc::new(AtomicUsize::new(0));
    let seen = got.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { return };
            let seen = seen.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
                let _ = conn.read(&mut buf);
                seen.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(delay);
                let _ = conn.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
                );
            });
        }
    });
    (addr, got)
}

struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Conn {
    fn open(addr: &str) -> Conn {
        let s = TcpStream::connect(addr).unwrap();
        s.set_nodelay(true).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        Conn {
            reader: BufReader::new(s.try_clone().unwrap()),
            writer: s,
        }
    }

    /// One request on the persistent connection: (status, etag, body).
    fn send(
        &mut self,
        method: &str,
        path: &str,
        token: &str,
        body: Option<&str>,
        etag: Option<&str>,
    ) -> (u16, Option<String>, Vec<u8>) {
        let mut req =
            format!("{method} {path} HTTP/1.1\r\nHost: load\r\nAuthorization: Bearer {token}\r\n");
        if let Some(b) = body {
            req.push_str(&format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                b.len()
            ));
        }
        if let Some(e) = etag {
            req.push_str(&format!("If-None-Match: {e}\r\n"));
        }
        req.push_str("\r\n");
        if let Some(b) = body {
            req.push_str(b);
        }
        self.writer.write_all(req.as_bytes()).unwrap();
        let mut line = String::new();
        self.reader.read_line(&mut line).unwrap();
        let status: u16 = line
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let (mut len, mut etag) = (0usize, None);
        loop {
            let mut h = String::new();
            self.reader.read_line(&mut h).unwrap();
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    len = v.trim().parse().unwrap_or(0);
                } else if k.eq_ignore_ascii_case("etag") {
                    etag = Some(v.trim().to_string());
                }
            }
        }
        let mut body = vec![0u8; len];
        self.reader.read_exact(&mut body).unwrap();
        (status, etag, body)
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)].as_secs_f64() * 1000.0
}

fn main() {
    let mut database = None;
    let (mut runs, mut concurrency, mut polls, mut max_seconds) =
        (1000usize, 32usize, 20_000usize, 300u64);
    let mut binary: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut v = || args.next().expect("a value");
        match a.as_str() {
            "--database" => database = Some(v()),
            "--runs" => runs = v().parse().unwrap(),
            "--concurrency" => concurrency = v().parse().unwrap(),
            "--polls" => polls = v().parse().unwrap(),
            "--max-seconds" => max_seconds = v().parse().unwrap(),
            "--binary" => binary = Some(v().into()),
            other => panic!("unknown argument {other}"),
        }
    }
    let database = database.expect("--database sqlite:PATH | postgres://…");
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(max_seconds));
        eprintln!("load: FAILED: still running after {max_seconds} s");
        std::process::exit(3);
    });
    // The server binary beside this example (target/<profile>/examples/load).
    let binary = binary.unwrap_or_else(|| {
        let exe = std::env::current_exe().unwrap();
        exe.parent()
            .and_then(|d| d.parent())
            .unwrap()
            .join("toolgate-server")
    });
    let mut tokens = Vec::new();
    for o in 0..OWNERS {
        for a in 0..AGENTS {
            tokens.push(json!({"name": format!("agent-{o}-{a}"), "owner": format!("load-{o}"), "roles": ["agent"], "token": agent_token(o, a)}));
        }
        tokens.push(json!({"name": format!("approver-{o}"), "owner": format!("load-{o}"), "roles": ["approver"], "token": approver_token(o)}));
    }
    let tokens = Value::Array(tokens);
    let (hook, webhook_got) = slow_receiver(Duration::from_secs(2));
    // The request rates are off: this measures the store and the API, and its clients
    // (all on one address, two tokens) would otherwise be throttled by design.
    let config = std::env::temp_dir().join(format!("toolgate-load-{}.toml", std::process::id()));
    std::fs::write(
        &config,
        "[limits]\nrequests_per_second_per_address = 0\nrequests_per_second_per_token = 0\n",
    )
    .unwrap();
    let mut child = Command::new(&binary)
        .args(["--listen", "127.0.0.1:0", "--database", &database])
        .arg("--config")
        .arg(&config)
        .env("TOOLGATE_TOKENS", tokens.to_string())
        .env("TOOLGATE_WEBHOOK_URL", format!("http://{hook}/hook"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .expect("address")
        .to_string();
    let prefix = format!(
        "load-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis()
    );

    // Phase 1: park and decide, concurrently.
    let next = Arc::new(AtomicUsize::new(0));
    let park_lat = Arc::new(Mutex::new(Vec::with_capacity(runs)));
    let decide_lat = Arc::new(Mutex::new(Vec::with_capacity(runs)));
    let won = Arc::new(AtomicUsize::new(0));
    let refused_again = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (addr, next, park_lat, decide_lat, won, refused_again, prefix) =
                (addr.clone(), next.clone(), park_lat.clone(), decide_lat.clone(), won.clone(), refused_again.clone(), prefix.clone());
            std::thread::spawn(move || {
                let mut c = Conn::open(&addr);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= runs {
                        return;
                    }
                    let id = format!("{prefix}-{i}");
                    let (owner, agent) = (i % OWNERS, (i / OWNERS) % AGENTS);
                    let (agent_tok, approver_tok) = (agent_token(owner, agent), approver_token(owner));
                    let body = json!({"calls": [{"toolCallId": "c1", "tool": "bash", "args": {"command": format!("git push origin feature-{i}")}}], "history": format!("{{\"i\":{i}}}")}).to_string();
                    let t = Instant::now();
                    let (status, _, reply) = c.send("POST", &format!("/v1/runs/{id}/park"), &agent_tok, Some(&body), None);
                    park_lat.lock().unwrap().push(t.elapsed());
                    assert_eq!(status, 201, "park {id}: {}", String::from_utf8_lossy(&reply));
                    let parked: Value = serde_json::from_slice(&reply).unwrap();
                    let anchor = parked["run"]["marker"]["calls"][0]["anchor"].clone();
                    let revision = parked["run"]["revision"].clone();
                    let decision = json!({"revision": revision, "decisions": [{"toolCallId": "c1", "anchor": anchor, "decision": "allow"}]}).to_string();
                    let t = Instant::now();
                    let (status, _, reply) = c.send("POST", &format!("/v1/runs/{id}/decisions"), &approver_tok, Some(&decision), None);
                    decide_lat.lock().unwrap().push(t.elapsed());
                    assert_eq!(status, 200, "decide {id}: {}", String::from_utf8_lossy(&reply));
                    won.fetch_add(1, Ordering::Relaxed);
                    let (status, _, _) = c.send("POST", &format!("/v1/runs/{id}/decisions"), &approver_tok, Some(&decision), None);
                    if status == 409 {
                        refused_again.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    let mut failed = false;
    for w in workers {
        if w.join().is_err() {
            failed = true;
        }
    }
    let elapsed = started.elapsed();
    let mut c = Conn::open(&addr);
    // Each owner's runs, page by page (500 a page); and its audit trail.
    let (mut listed, mut running, mut audited, mut asked_right, mut pages) = (0, 0, 0, 0, 0);
    for o in 0..OWNERS {
        let mut cursor: Option<String> = None;
        loop {
            let path = match &cursor {
                Some(c) => format!("/v1/runs?limit=500&cursor={c}"),
                None => "/v1/runs?limit=500".to_string(),
            };
            let (_, _, page) = c.send("GET", &path, &approver_token(o), None, None);
            let page: Value = serde_json::from_slice(&page).unwrap_or(Value::Null);
            pages += 1;
            for r in page["runs"].as_array().cloned().unwrap_or_default() {
                let id = r["runId"].as_str().unwrap_or("");
                let Some(i) = id
                    .strip_prefix(&format!("{prefix}-"))
                    .and_then(|n| n.parse::<usize>().ok())
                else {
                    continue;
                };
                listed += 1;
                // Listed under its own owner, running, and named for its agent.
                let agent = format!("agent-{o}-{}", (i / OWNERS) % AGENTS);
                if i % OWNERS == o && r["status"] == "running" && r["parkedBy"] == agent.as_str() {
                    running += 1;
                }
            }
            cursor = page["nextCursor"].as_str().map(str::to_string);
            if cursor.is_none() {
                break;
            }
        }
        let mut since = 0u64;
        loop {
            let (_, _, page) = c.send(
                "GET",
                &format!("/v1/audit?since={since}&limit=1000"),
                &approver_token(o),
                None,
                None,
            );
            let page: Value = serde_json::from_slice(&page).unwrap_or(Value::Null);
            let recs = page["records"].as_array().cloned().unwrap_or_default();
            for r in &recs {
                let ours = r["runId"]
                    .as_str()
                    .is_some_and(|id| id.starts_with(&prefix));
                if ours && r["outcome"] == "approved" {
                    audited += 1;
                    if r["askedBy"]
                        .as_str()
                        .is_some_and(|a| a.starts_with(&format!("agent-{o}-")))
                    {
                        asked_right += 1;
                    }
                }
            }
            if recs.len() < 1000 {
                break;
            }
            // Records sharing the boundary's `at` are counted again below the cap; the
            // pages are this test's own, so step past it.
            since = recs.last().and_then(|r| r["at"].as_u64()).unwrap_or(since) + 1;
        }
    }

    // Phase 2: the poll's 304 path.
    let (_, etag, _) = c.send(
        "GET",
        "/v1/runs?status=awaiting_permission",
        &approver_token(0),
        None,
        None,
    );
    let etag = etag.expect("an ETag");
    let done = Arc::new(AtomicUsize::new(0));
    let not_modified = Arc::new(AtomicUsize::new(0));
    let t = Instant::now();
    let pollers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (addr, etag, done, not_modified) = (
                addr.clone(),
                etag.clone(),
                done.clone(),
                not_modified.clone(),
            );
            std::thread::spawn(move || {
                let mut c = Conn::open(&addr);
                let approver = approver_token(0);
                while done.fetch_add(1, Ordering::Relaxed) < polls {
                    let (status, _, _) = c.send(
                        "GET",
                        "/v1/runs?status=awaiting_permission",
                        &approver,
                        None,
                        Some(&etag),
                    );
                    if status == 304 {
                        not_modified.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    for p in pollers {
        let _ = p.join();
    }
    let poll_secs = t.elapsed().as_secs_f64();
    let _ = child.kill();
    let _ = child.wait();

    let mut park = park_lat.lock().unwrap().clone();
    let mut decide = decide_lat.lock().unwrap().clone();
    park.sort();
    decide.sort();
    let kind = database.split(':').next().unwrap_or("");
    println!(
        "load: {kind}, {runs} runs, {concurrency} clients, {:.2} s",
        elapsed.as_secs_f64()
    );
    println!(
        "park   p50={:.2} ms p99={:.2} ms",
        percentile(&park, 0.5),
        percentile(&park, 0.99)
    );
    println!(
        "decide p50={:.2} ms p99={:.2} ms",
        percentile(&decide, 0.5),
        percentile(&decide, 0.99)
    );
    println!("runs_per_sec={:.0}", runs as f64 / elapsed.as_secs_f64());
    println!(
        "owners={OWNERS} agents={} pages_read={pages} webhook_messages_received={} (the receiver answers each after 2 s, one at a time: the rest wait in the bounded queue, past 256 counted into one message; no park waits for them)",
        OWNERS * AGENTS,
        webhook_got.load(Ordering::Relaxed)
    );
    println!(
        "poll_304_per_sec={:.0} ({} polls)",
        polls as f64 / poll_secs,
        not_modified.load(Ordering::Relaxed)
    );
    let checks = [
        ("every client finished", !failed),
        (
            "every decision won once",
            won.load(Ordering::Relaxed) == runs,
        ),
        (
            "every second decision refused (409)",
            refused_again.load(Ordering::Relaxed) == runs,
        ),
        (
            "every run is running under its owner, named for its agent (nothing lost)",
            running == runs && listed == runs,
        ),
        ("one approved audit row per run", audited == runs),
        (
            "each audit row names its owner's agent",
            asked_right == runs,
        ),
        (
            "every poll was a 304",
            not_modified.load(Ordering::Relaxed) == polls,
        ),
    ];
    let mut ok = true;
    for (name, pass) in checks {
        println!("{} {name}", if pass { "ok  " } else { "FAIL" });
        ok &= pass;
    }
    if !ok {
        std::process::exit(1);
    }
}
