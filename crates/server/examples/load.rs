//! A load test of toolgate-server over loopback HTTP, bounded in count and time (a
//! watchdog ends it after `--max-seconds`): it starts the server binary on `--database`,
//! then `--concurrency` clients park and decide `--runs` runs at once (each decision
//! sent twice: the second must be 409 `already_resumed`), checks that nothing was lost
//! and nothing resumed twice (every run `running`, one approved audit row each), and
//! benchmarks the poll's 304 path. Persistent connections (HTTP/1.1 keep-alive).
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

const AGENT: &str = "load-agent-token-0123456789";
const APPROVER: &str = "load-approver-token-0123456";

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
    let tokens = json!([
        {"name": "load-agent", "owner": "load", "roles": ["agent"], "token": AGENT},
        {"name": "load-approver", "owner": "load", "roles": ["approver"], "token": APPROVER},
    ]);
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
                    let body = json!({"calls": [{"toolCallId": "c1", "tool": "bash", "args": {"command": format!("git push origin feature-{i}")}}], "history": format!("{{\"i\":{i}}}")}).to_string();
                    let t = Instant::now();
                    let (status, _, reply) = c.send("POST", &format!("/v1/runs/{id}/park"), AGENT, Some(&body), None);
                    park_lat.lock().unwrap().push(t.elapsed());
                    assert_eq!(status, 201, "park {id}: {}", String::from_utf8_lossy(&reply));
                    let parked: Value = serde_json::from_slice(&reply).unwrap();
                    let anchor = parked["run"]["marker"]["calls"][0]["anchor"].clone();
                    let decision = json!({"decisions": [{"toolCallId": "c1", "anchor": anchor, "decision": "allow"}]}).to_string();
                    let t = Instant::now();
                    let (status, _, reply) = c.send("POST", &format!("/v1/runs/{id}/decisions"), APPROVER, Some(&decision), None);
                    decide_lat.lock().unwrap().push(t.elapsed());
                    assert_eq!(status, 200, "decide {id}: {}", String::from_utf8_lossy(&reply));
                    won.fetch_add(1, Ordering::Relaxed);
                    let (status, _, _) = c.send("POST", &format!("/v1/runs/{id}/decisions"), APPROVER, Some(&decision), None);
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
    let (_, _, list) = c.send("GET", "/v1/runs", APPROVER, None, None);
    let list: Value = serde_json::from_slice(&list).unwrap_or(Value::Null);
    let ours: Vec<&Value> = list["runs"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|r| {
                    r["runId"]
                        .as_str()
                        .is_some_and(|id| id.starts_with(&prefix))
                })
                .collect()
        })
        .unwrap_or_default();
    let running = ours.iter().filter(|r| r["status"] == "running").count();
    let mut audited = 0;
    let mut since = 0u64;
    loop {
        let (_, _, page) = c.send(
            "GET",
            &format!("/v1/audit?since={since}&limit=1000"),
            APPROVER,
            None,
            None,
        );
        let page: Value = serde_json::from_slice(&page).unwrap_or(Value::Null);
        let recs = page["records"].as_array().cloned().unwrap_or_default();
        audited += recs
            .iter()
            .filter(|r| {
                r["runId"]
                    .as_str()
                    .is_some_and(|id| id.starts_with(&prefix))
                    && r["outcome"] == "approved"
            })
            .count();
        if recs.len() < 1000 {
            break;
        }
        // Records sharing the boundary's `at` are counted again below the cap; the
        // pages are this test's own, so step past it.
        since = recs.last().and_then(|r| r["at"].as_u64()).unwrap_or(since) + 1;
    }

    // Phase 2: the poll's 304 path.
    let (_, etag, _) = c.send(
        "GET",
        "/v1/runs?status=awaiting_permission",
        APPROVER,
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
                while done.fetch_add(1, Ordering::Relaxed) < polls {
                    let (status, _, _) = c.send(
                        "GET",
                        "/v1/runs?status=awaiting_permission",
                        APPROVER,
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
            "every run is running (nothing lost)",
            running == runs && ours.len() == runs,
        ),
        ("one approved audit row per run", audited == runs),
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
