//! The connection loop: hyper's HTTP/1 server under the app, the way axum's
//! `serve-with-hyper` and `graceful-shutdown` examples drive it, with what
//! `axum::serve` leaves out:
//! - a timer, so hyper's header-read timeout is on: a request's head must arrive within
//!   it, and since the timer starts as soon as a connection waits for a request, it also
//!   closes an idle kept-alive connection;
//! - a cap on open connections, in all and per IP address: over it a new connection is
//!   closed at once (before reading anything);
//! - each request carries its peer address ([`ConnectInfo`]) for the per-address limits;
//! - shutdown bounded in time: stop accepting, let requests in flight finish for
//!   `shutdown_timeout`, then return (the caller drops what is left).

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower::Service;

use crate::limits::Limits;

/// Open connections, in all and per address.
#[derive(Default)]
pub struct Connections {
    inner: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

/// A connection's place in [`Connections`], given back when dropped.
pub struct Slot {
    table: Arc<Connections>,
    ip: IpAddr,
}

impl Connections {
    /// A slot for a connection from `ip`, unless a cap is reached.
    pub fn admit(table: &Arc<Connections>, ip: IpAddr, limits: &Limits) -> Option<Slot> {
        let mut g = table.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let (total, per) = &mut *g;
        let mine = per.get(&ip).copied().unwrap_or(0);
        if *total >= limits.max_connections || mine >= limits.max_connections_per_address {
            return None;
        }
        *total += 1;
        per.insert(ip, mine + 1);
        Some(Slot {
            table: table.clone(),
            ip,
        })
    }

    /// Open connections now.
    pub fn open(&self) -> usize {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner).0
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut g = self
            .table
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (total, per) = &mut *g;
        *total = total.saturating_sub(1);
        if let Some(n) = per.get_mut(&self.ip) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                per.remove(&self.ip);
            }
        }
    }
}

/// What the loop did, for the log.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stopped {
    /// Connections still open when the shutdown bound ran out (cut).
    pub cut: usize,
}

/// Serves `app` on `listener` until `shutdown` completes, then waits at most
/// `limits.shutdown_timeout()` for requests in flight.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) -> Stopped {
    let table = Arc::new(Connections::default());
    let graceful = GracefulShutdown::new();
    let mut make = app.into_make_service_with_connect_info::<SocketAddr>();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout())
        .keep_alive(true)
        .max_buf_size(64 * 1024);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    // Out of file descriptors and the like: wait, do not spin.
                    eprintln!("toolgate-server: accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(slot) = Connections::admit(&table, peer.ip(), &limits) else {
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let svc = match make.call(peer).await {
            Ok(svc) => svc,
            Err(never) => match never {},
        };
        let conn = builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(svc));
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _slot = slot;
            // A connection's errors (a client gone, a header timeout) are its own.
            let _ = conn.await;
        });
    }
    drop(listener);
    let mut stopped = Stopped::default();
    tokio::select! {
        () = graceful.shutdown() => {},
        () = tokio::time::sleep(limits.shutdown_timeout()) => {
            stopped.cut = table.open();
        },
    }
    stopped
}

/// The peer address of a request served by [`serve`] (none in tests that call the
/// router directly).
pub fn peer(extensions: &axum::http::Extensions) -> Option<IpAddr> {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(a)| a.ip())
}
