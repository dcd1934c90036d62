//! `toolgate sandbox --allow-host HOST`: the network the sandbox gives, when asked for,
//! is only HTTPS to the hosts named, through a proxy toolgate runs outside the sandbox.
//!
//! The command keeps its own network namespace (no route anywhere); on Linux a bridge
//! inside it (`toolgate sandbox-bridge`, this binary) listens on the namespace's
//! loopback and forwards each connection over a Unix socket bound into the sandbox to
//! the proxy outside, as Anthropic's sandbox-runtime does with socat
//! (`src/sandbox/linux-sandbox-utils.ts`); on macOS the Seatbelt profile allows one
//! loopback port, the proxy's, as Codex's does for its network proxy
//! (`codex-rs/sandboxing/src/seatbelt.rs`). The command finds the proxy in
//! `HTTPS_PROXY` (and `HTTP_PROXY`, `ALL_PROXY`, lower case too), which npm, pip, uv,
//! cargo, go and curl read.
//!
//! The proxy answers only `CONNECT HOST:443` for a host of the list (`name`, or
//! `*.name` for its subdomains), resolves the name itself, and refuses an address of
//! this machine or a private network (loopback, RFC 1918, link-local, CGNAT, unique
//! local IPv6, …): a listed name that resolves inside cannot reach the host's services.
//! What it cannot see: the tunnel is TLS, so anything the listed host accepts goes
//! (`npm publish` to a registry, an upload to a host that stores what it is sent).
//! That is the risk of listing a host; the README says it.

use std::io::{Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The only port the proxy connects to.
pub const HTTPS_PORT: u16 = 443;
/// The most bytes of a request head.
pub const MAX_HEAD: usize = 8192;
/// The most tunnels open at once; past it a request is refused (503).
pub const MAX_TUNNELS: usize = 64;
/// How long a request head may take, and a connection to the host.
pub const TIMEOUT: Duration = Duration::from_secs(15);
/// The environment variables that name the proxy to the command.
pub const PROXY_VARS: &[&str] = &[
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
];
/// The variables that would send a host around the proxy: removed.
pub const NO_PROXY_VARS: &[&str] = &["NO_PROXY", "no_proxy"];

/// `HOST` of `--allow-host`, checked: a DNS name (letters, digits, `-`, `.`; one label,
/// such as an intranet's `nexus`, too), or `*.name`; lower case; not an address, not a
/// port.
pub fn check_host(host: &str) -> Result<String, String> {
    toolgate_core::contained::host_name(host).ok_or_else(|| {
        format!(
            "--allow-host {host}: a host name (registry.npmjs.org) or *.domain, without a \
             scheme, port or address"
        )
    })
}

/// Is `host` one of `allowed` (each `name` or `*.name`, from [`check_host`])?
pub fn host_allowed(host: &str, allowed: &[String]) -> bool {
    let host = host.to_ascii_lowercase();
    let host = host.trim_end_matches('.');
    allowed.iter().any(|a| match a.strip_prefix("*.") {
        Some(domain) => host
            .strip_suffix(domain)
            .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.')),
        None => host == a,
    })
}

/// Is `ip` this machine's or a private network's: never reached through the proxy.
pub fn internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
                || (a == 192 && b == 0 && c == 0)
                || (a == 198 && (18..20).contains(&b))
                || a >= 240
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return internal(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || (first == 0x64 && v6.segments()[1] == 0xff9b)
        }
    }
}

/// The host and port of a `CONNECT host:port HTTP/1.x` head, or the status line of
/// the refusal.
pub fn parse_connect(head: &str) -> Result<(String, u16), &'static str> {
    let line = head.lines().next().unwrap_or("");
    let mut words = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return Err("400 Bad Request");
    };
    if !version.starts_with("HTTP/1.") {
        return Err("400 Bad Request");
    }
    if method != "CONNECT" {
        return Err("405 Method Not Allowed");
    }
    let (host, port) = target.rsplit_once(':').ok_or("400 Bad Request")?;
    let port: u16 = port.parse().map_err(|_| "400 Bad Request")?;
    if host.is_empty() || host.starts_with('[') {
        return Err("403 Forbidden");
    }
    Ok((host.to_string(), port))
}

/// Reads a request head (up to the blank line) from `conn`, at most [`MAX_HEAD`].
fn read_head(conn: &mut impl Read) -> Result<String, &'static str> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && !head.ends_with(b"\n\n") {
        if head.len() >= MAX_HEAD {
            return Err("431 Request Header Fields Too Large");
        }
        match conn.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return Err("400 Bad Request"),
        }
    }
    String::from_utf8(head).map_err(|_| "400 Bad Request")
}

/// Where a `CONNECT` to `host:port` goes, or why not: the host must be listed, the port
/// 443, and every address it resolves to outside this machine and private networks.
pub fn destination(host: &str, port: u16, allowed: &[String]) -> Result<SocketAddr, String> {
    if port != HTTPS_PORT {
        return Err(format!("port {port}: only {HTTPS_PORT} (HTTPS) is reached"));
    }
    if !host_allowed(host, allowed) {
        return Err(format!(
            "{host} is not one of the hosts allowed (--allow-host)"
        ));
    }
    let addrs: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|e| format!("{host}: {e}"))?
        .collect();
    if let Some(bad) = addrs.iter().find(|a| internal(a.ip())) {
        return Err(format!(
            "{host} resolves to {}, an address of this machine or a private network",
            bad.ip()
        ));
    }
    addrs
        .first()
        .copied()
        .ok_or_else(|| format!("{host}: no address"))
}

/// A connection the proxy serves: a Unix socket (Linux's bridge) or loopback TCP
/// (macOS).
pub trait Conn: Read + Write + Send + 'static {
    /// A second handle on the same connection, for the other direction.
    fn twin(&self) -> std::io::Result<Self>
    where
        Self: Sized;
    /// Ends both directions.
    fn close(&self);
    /// Bounds each read.
    fn read_timeout(&self, t: Option<Duration>);
}

/// [`Conn`] for a std stream type: both have the same methods under the same names.
macro_rules! conn {
    ($t:ty) => {
        impl Conn for $t {
            fn twin(&self) -> std::io::Result<Self> {
                self.try_clone()
            }
            fn close(&self) {
                let _ = self.shutdown(Shutdown::Both);
            }
            fn read_timeout(&self, t: Option<Duration>) {
                let _ = self.set_read_timeout(t);
            }
        }
    };
}

conn!(TcpStream);
#[cfg(unix)]
conn!(std::os::unix::net::UnixStream);

/// Serves the proxy on `incoming` (each accepted connection), each connection in a
/// thread of its own, at most [`MAX_TUNNELS`] at once. Returns when `incoming` ends.
pub fn serve<C: Conn>(
    incoming: impl Iterator<Item = std::io::Result<C>>,
    allowed: Arc<Vec<String>>,
) {
    let open = Arc::new(AtomicUsize::new(0));
    for conn in incoming {
        let Ok(mut conn) = conn else { continue };
        if open.fetch_add(1, Ordering::SeqCst) >= MAX_TUNNELS {
            open.fetch_sub(1, Ordering::SeqCst);
            let _ = reply(&mut conn, "503 Service Unavailable", "too many tunnels");
            conn.close();
            continue;
        }
        let (open, allowed) = (Arc::clone(&open), Arc::clone(&allowed));
        std::thread::spawn(move || {
            tunnel(conn, &allowed);
            open.fetch_sub(1, Ordering::SeqCst);
        });
    }
}

fn reply(conn: &mut impl Write, status: &str, why: &str) -> std::io::Result<()> {
    let body = format!("toolgate sandbox: {why}\n");
    write!(
        conn,
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// One proxy connection: the `CONNECT` checked, then bytes copied both ways until
/// either side ends.
fn tunnel<C: Conn>(mut conn: C, allowed: &[String]) {
    conn.read_timeout(Some(TIMEOUT));
    let head = match read_head(&mut conn) {
        Ok(h) => h,
        Err(status) => {
            let _ = reply(&mut conn, status, "not a CONNECT request");
            return;
        }
    };
    let (host, port) = match parse_connect(&head) {
        Ok(hp) => hp,
        Err(status) => {
            let _ = reply(&mut conn, status, "only CONNECT host:443 is served");
            return;
        }
    };
    let addr = match destination(&host, port, allowed) {
        Ok(a) => a,
        Err(why) => {
            let _ = reply(&mut conn, "403 Forbidden", &why);
            return;
        }
    };
    let upstream = match TcpStream::connect_timeout(&addr, TIMEOUT) {
        Ok(u) => u,
        Err(e) => {
            let _ = reply(&mut conn, "502 Bad Gateway", &format!("{host}: {e}"));
            return;
        }
    };
    if conn
        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .is_err()
    {
        return;
    }
    conn.read_timeout(None);
    splice(conn, upstream);
}

/// Copies `a` to `b` and `b` to `a` until either ends; then both are closed.
pub fn splice<A: Conn, B: Conn>(a: A, b: B) {
    let (Ok(mut a2), Ok(mut b2)) = (a.twin(), b.twin()) else {
        return;
    };
    let (mut a, mut b) = (a, b);
    let back = std::thread::spawn(move || {
        let _ = std::io::copy(&mut b2, &mut a2);
        a2.close();
        b2.close();
    });
    let _ = std::io::copy(&mut a, &mut b);
    a.close();
    b.close();
    let _ = back.join();
}

/// Serves the proxy for `hosts` on a loopback port of this machine (macOS: the
/// Seatbelt profile allows the command that port only); the port.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
pub fn serve_loopback(hosts: Vec<String>) -> std::io::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let hosts = Arc::new(hosts);
    std::thread::spawn(move || serve(listener.incoming(), hosts));
    Ok(port)
}

/// Points the proxy variables of `env` at `port` on the loopback, and removes those
/// that would send a host around it.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
pub fn name_proxy(env: &mut Vec<(std::ffi::OsString, std::ffi::OsString)>, port: u16) {
    env.retain(|(k, _)| !NO_PROXY_VARS.iter().chain(PROXY_VARS).any(|v| k == v));
    let url = format!("http://127.0.0.1:{port}");
    for v in PROXY_VARS {
        env.push(((*v).into(), url.clone().into()));
    }
}

/// `toolgate sandbox-bridge`'s options (an internal command: `toolgate sandbox
/// --allow-host` runs it inside the sandbox).
#[derive(Debug, Clone, clap::Args)]
pub struct BridgeArgs {
    /// The proxy's Unix socket.
    #[arg(long, value_name = "PATH")]
    pub socket: std::path::PathBuf,
    /// The command and its arguments (after `--`).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<std::ffi::OsString>,
}

/// `toolgate sandbox-bridge` (inside the sandbox, Linux): listens on the loopback of the
/// sandbox's network namespace, forwards each connection to the proxy's Unix `socket`,
/// and runs `command` with the proxy variables set; its exit status.
#[cfg(unix)]
pub fn bridge(
    socket: &std::path::Path,
    command: &[std::ffi::OsString],
) -> Result<std::process::ExitStatus, String> {
    use std::os::unix::net::UnixStream;
    let Some((program, args)) = command.split_first() else {
        return Err("no command".into());
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| format!("the loopback of the sandbox: {e}"))?;
    let port = listener
        .local_addr()
        .map_err(|e| format!("the loopback of the sandbox: {e}"))?
        .port();
    let socket = socket.to_path_buf();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { continue };
            let socket = socket.clone();
            std::thread::spawn(move || match UnixStream::connect(&socket) {
                Ok(up) => splice(conn, up),
                Err(_) => conn.close(),
            });
        }
    });
    let url = format!("http://127.0.0.1:{port}");
    let mut child = std::process::Command::new(program);
    child.args(args);
    for v in PROXY_VARS {
        child.env(v, &url);
    }
    for v in NO_PROXY_VARS {
        child.env_remove(v);
    }
    child
        .status()
        .map_err(|e| format!("cannot run {}: {e}", program.to_string_lossy()))
}

/// Where the proxy of `--allow-host` is reached inside the sandbox (in its own `/run`),
/// and the copy of this binary that bridges to it.
#[cfg(target_os = "linux")]
const PROXY_DIR: &str = "/run/toolgate-proxy";
#[cfg(target_os = "linux")]
const BRIDGE_EXE: &str = "/run/toolgate-bridge";

/// The proxy of `--allow-host` for one run (Linux): its Unix socket in a directory of
/// its own, served by a thread; the directory is removed when it is dropped.
#[cfg(target_os = "linux")]
pub struct Proxy {
    dir: std::path::PathBuf,
    exe: std::path::PathBuf,
}

#[cfg(target_os = "linux")]
impl Proxy {
    /// Starts the proxy for `hosts`.
    pub fn start(hosts: Vec<String>) -> std::io::Result<Proxy> {
        use std::os::unix::fs::DirBuilderExt;
        let exe = std::env::current_exe()?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir =
            std::env::temp_dir().join(format!("toolgate-proxy-{}-{nanos}", std::process::id()));
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        let listener = std::os::unix::net::UnixListener::bind(dir.join("proxy.sock"))?;
        let hosts = std::sync::Arc::new(hosts);
        std::thread::spawn(move || serve(listener.incoming(), hosts));
        Ok(Proxy { dir, exe })
    }

    /// The socket's directory and this binary, bound read-only into the sandbox.
    pub fn bwrap_args(&self) -> Vec<std::ffi::OsString> {
        [
            "--ro-bind".into(),
            self.dir.clone().into_os_string(),
            PROXY_DIR.into(),
            "--ro-bind".into(),
            self.exe.clone().into_os_string(),
            BRIDGE_EXE.into(),
        ]
        .to_vec()
    }

    /// `program` run by the bridge, which gives it the proxy.
    pub fn bridged(&self, program: &[std::ffi::OsString]) -> Vec<std::ffi::OsString> {
        let mut out: Vec<std::ffi::OsString> = vec![
            BRIDGE_EXE.into(),
            "sandbox-bridge".into(),
            "--socket".into(),
            format!("{PROXY_DIR}/proxy.sock").into(),
            "--".into(),
        ];
        out.extend(program.iter().cloned());
        out
    }
}

#[cfg(target_os = "linux")]
impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_names_and_match_exactly_or_as_subdomains() {
        for ok in [
            "registry.npmjs.org",
            "PyPI.org",
            "*.crates.io",
            "a-b.example.com",
            "nexus",
        ] {
            assert!(check_host(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "127.0.0.1",
            "10.0.0.1",
            "::1",
            "[::1]",
            "https://pypi.org",
            "pypi.org:443",
            "*",
            "*.",
            "*.com.",
            "a..b",
            "-a.com",
            "a_b.com",
            "1.2.3.4.5",
            "pypi.org/simple",
        ] {
            assert!(check_host(bad).is_err(), "{bad}");
        }
        let allowed = vec!["pypi.org".to_string(), "*.crates.io".to_string()];
        for yes in [
            "pypi.org",
            "PYPI.ORG",
            "pypi.org.",
            "static.crates.io",
            "a.b.crates.io",
        ] {
            assert!(host_allowed(yes, &allowed), "{yes}");
        }
        for no in [
            "crates.io",
            "evilpypi.org",
            "pypi.org.evil.com",
            "xcrates.io",
            "files.pythonhosted.org",
            "",
        ] {
            assert!(!host_allowed(no, &allowed), "{no}");
        }
    }

    #[test]
    fn this_machine_and_private_networks_are_internal() {
        for ip in [
            "127.0.0.1",
            "127.8.9.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "0.1.2.3",
            "255.255.255.255",
            "224.0.0.1",
            "192.0.0.8",
            "198.18.0.1",
            "240.0.0.1",
            "::1",
            "::",
            "fc00::1",
            "fd12::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
        ] {
            assert!(internal(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "151.101.0.223",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            // Documentation ranges are not this machine's (some networks route them).
            "192.0.2.1",
            "203.0.113.80",
            "2001:db8::1",
        ] {
            assert!(!internal(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn only_connect_to_443_of_a_listed_host() {
        assert_eq!(
            parse_connect("CONNECT pypi.org:443 HTTP/1.1\r\nHost: pypi.org:443\r\n\r\n"),
            Ok(("pypi.org".into(), 443))
        );
        assert_eq!(
            parse_connect("GET http://pypi.org/ HTTP/1.1\r\n\r\n"),
            Err("405 Method Not Allowed")
        );
        assert_eq!(
            parse_connect("CONNECT pypi.org HTTP/1.1\r\n\r\n"),
            Err("400 Bad Request")
        );
        assert_eq!(
            parse_connect("CONNECT [::1]:443 HTTP/1.1\r\n\r\n"),
            Err("403 Forbidden")
        );
        assert_eq!(
            parse_connect("CONNECT a:443 HTTP/2\r\n\r\n"),
            Err("400 Bad Request")
        );
        let allowed = vec!["localhost.example".to_string(), "pypi.org".to_string()];
        assert!(destination("pypi.org", 80, &allowed)
            .unwrap_err()
            .contains("port 80"));
        assert!(destination("example.com", 443, &allowed)
            .unwrap_err()
            .contains("not one of"));
        // A listed name that resolves to this machine is refused (localhost is always
        // resolvable without a network).
        let local = vec!["localhost".to_string()];
        assert!(destination("localhost", 443, &local)
            .unwrap_err()
            .contains("this machine"));
    }

    #[test]
    fn the_proxy_refuses_before_it_connects() {
        let port = serve_loopback(vec!["localhost".to_string(), "pypi.org".to_string()]).unwrap();
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let mut env: Vec<(std::ffi::OsString, std::ffi::OsString)> = vec![
            ("NO_PROXY".into(), "*".into()),
            ("HTTPS_PROXY".into(), "http://elsewhere".into()),
            ("PATH".into(), "/bin".into()),
        ];
        name_proxy(&mut env, port);
        let url = format!("http://127.0.0.1:{port}");
        assert!(
            env.iter()
                .all(|(k, v)| k != "NO_PROXY" && (k == "PATH" || *v == *url)),
            "{env:?}"
        );
        assert_eq!(env.len(), 1 + PROXY_VARS.len());
        let ask = |head: &str| {
            let mut s = TcpStream::connect(addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            s.write_all(head.as_bytes()).unwrap();
            let mut out = String::new();
            let _ = s.read_to_string(&mut out);
            out
        };
        assert!(ask("CONNECT localhost:443 HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 403"));
        assert!(ask("CONNECT example.com:443 HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 403"));
        assert!(ask("CONNECT pypi.org:22 HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 403"));
        assert!(ask("GET http://pypi.org/ HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405"));
        let long = format!("CONNECT {}:443 HTTP/1.1\r\n\r\n", "a".repeat(MAX_HEAD));
        assert!(ask(&long).starts_with("HTTP/1.1 431"));
    }
}
