//! What one client may take of the server: timeouts, connection caps, request rates and
//! sign-in failures. Every limit has a default that is safe on a network and can be set
//! in the config file's `[limits]` table (see the README):
//!
//! | key | default | what |
//! | --- | --- | --- |
//! | `header_read_timeout_ms` | 10 000 | a request's head must arrive within this; it also closes an idle kept-alive connection |
//! | `body_timeout_ms` | 10 000 | a request's body must arrive within this (408) |
//! | `request_timeout_ms` | 30 000 | a whole request, body and handler (408) |
//! | `max_connections` | 2048 | open connections; over it a new one is closed at once |
//! | `max_connections_per_address` | 128 | open connections from one IP address |
//! | `requests_per_second_per_address`, `burst_per_address` | 50, 200 | token bucket per IP address (429 + `Retry-After`) |
//! | `requests_per_second_per_token`, `burst_per_token` | 50, 200 | token bucket per token (429 + `Retry-After`) |
//! | `sign_in_failures`, `sign_in_window_ms` | 10, 60 000 | wrong tokens from one address before it is refused (429) until the window ends |
//! | `shutdown_timeout_ms` | 10 000 | on SIGTERM / Ctrl-C: how long requests in flight may finish |
//! | `max_waiting_runs_per_owner` | 1000 | runs of one owner awaiting a person at once; a park over it is 429 `too_many_waiting` |
//! | `finished_run_ttl_ms` | 604 800 000 (7 days) | finished runs (completed, failed, cancelled) are deleted this long after they ended; the audit trail keeps their records |
//!
//! A rate of 0 turns that bucket off. Behind a reverse proxy every request comes from
//! the proxy's address: raise or turn off the per-address limits there and limit at the
//! proxy.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde::Deserialize;

/// The limits (see the module docs for each key and its default).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// A request's head must arrive within this (ms).
    pub header_read_timeout_ms: u64,
    /// A request's body must arrive within this (ms).
    pub body_timeout_ms: u64,
    /// A whole request may take this long (ms).
    pub request_timeout_ms: u64,
    /// Open connections at most.
    pub max_connections: usize,
    /// Open connections from one IP address at most.
    pub max_connections_per_address: usize,
    /// Requests per second per IP address (0: no limit).
    pub requests_per_second_per_address: f64,
    /// Requests one IP address may make at once.
    pub burst_per_address: f64,
    /// Requests per second per token (0: no limit).
    pub requests_per_second_per_token: f64,
    /// Requests one token may make at once.
    pub burst_per_token: f64,
    /// Wrong tokens from one address before it is refused.
    pub sign_in_failures: u32,
    /// The window those are counted in (ms).
    pub sign_in_window_ms: u64,
    /// How long requests in flight may finish on shutdown (ms).
    pub shutdown_timeout_ms: u64,
    /// Runs of one owner awaiting a person at once.
    pub max_waiting_runs_per_owner: u64,
    /// How long a finished run is kept (ms).
    pub finished_run_ttl_ms: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_read_timeout_ms: 10_000,
            body_timeout_ms: 10_000,
            request_timeout_ms: 30_000,
            max_connections: 2048,
            max_connections_per_address: 128,
            requests_per_second_per_address: 50.0,
            burst_per_address: 200.0,
            requests_per_second_per_token: 50.0,
            burst_per_token: 200.0,
            sign_in_failures: 10,
            sign_in_window_ms: 60_000,
            shutdown_timeout_ms: 10_000,
            max_waiting_runs_per_owner: 1000,
            finished_run_ttl_ms: 7 * 24 * 3600 * 1000,
        }
    }
}

impl Limits {
    /// Refuses values that would turn a protection off by accident (a zero timeout or
    /// cap); rates may be 0 (off).
    pub fn check(&self) -> Result<(), String> {
        let positive = [
            ("header_read_timeout_ms", self.header_read_timeout_ms),
            ("body_timeout_ms", self.body_timeout_ms),
            ("request_timeout_ms", self.request_timeout_ms),
            ("sign_in_window_ms", self.sign_in_window_ms),
            ("shutdown_timeout_ms", self.shutdown_timeout_ms),
        ];
        for (name, v) in positive {
            if v == 0 || v > 3_600_000 {
                return Err(format!(
                    "limits.{name} = {v}: between 1 and 3600000 milliseconds"
                ));
            }
        }
        for (name, v) in [
            ("max_connections", self.max_connections),
            (
                "max_connections_per_address",
                self.max_connections_per_address,
            ),
        ] {
            if v == 0 || v > 1_000_000 {
                return Err(format!("limits.{name} = {v}: between 1 and 1000000"));
            }
        }
        for (name, v) in [
            (
                "requests_per_second_per_address",
                self.requests_per_second_per_address,
            ),
            ("burst_per_address", self.burst_per_address),
            (
                "requests_per_second_per_token",
                self.requests_per_second_per_token,
            ),
            ("burst_per_token", self.burst_per_token),
        ] {
            if !v.is_finite() || v < 0.0 {
                return Err(format!("limits.{name} = {v}: a number, 0 or more"));
            }
        }
        if self.max_waiting_runs_per_owner == 0 {
            return Err("limits.max_waiting_runs_per_owner = 0: at least 1".to_string());
        }
        if self.finished_run_ttl_ms < 1000 {
            return Err(format!(
                "limits.finished_run_ttl_ms = {}: at least 1000",
                self.finished_run_ttl_ms
            ));
        }
        if self.sign_in_failures == 0 {
            return Err("limits.sign_in_failures = 0: at least 1".to_string());
        }
        Ok(())
    }

    /// `header_read_timeout_ms` as a duration.
    pub fn header_read_timeout(&self) -> Duration {
        Duration::from_millis(self.header_read_timeout_ms)
    }
    /// `body_timeout_ms` as a duration.
    pub fn body_timeout(&self) -> Duration {
        Duration::from_millis(self.body_timeout_ms)
    }
    /// `request_timeout_ms` as a duration.
    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms)
    }
    /// `shutdown_timeout_ms` as a duration.
    pub fn shutdown_timeout(&self) -> Duration {
        Duration::from_millis(self.shutdown_timeout_ms)
    }
    /// How often finished runs are pruned: a quarter of their time to live, between a
    /// second and a minute.
    pub fn prune_every(&self) -> Duration {
        Duration::from_millis((self.finished_run_ttl_ms / 4).clamp(1000, 60_000))
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Each use is a few field updates: a poisoned map is still a consistent map.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How many keys a table keeps before it forgets the idle ones.
const MAX_KEYS: usize = 100_000;

/// Token buckets per key: `rate` requests a second, up to `burst` at once.
pub struct Buckets<K> {
    rate: f64,
    burst: f64,
    map: Mutex<HashMap<K, (f64, Instant)>>,
}

impl<K: Eq + Hash + Clone> Buckets<K> {
    /// Buckets of `burst` requests, refilled at `rate` per second (0: off).
    pub fn new(rate: f64, burst: f64) -> Buckets<K> {
        Buckets {
            rate,
            burst: burst.max(1.0),
            map: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one request from `key`'s bucket, or says how long until one is there.
    pub fn take(&self, key: &K, now: Instant) -> Result<(), Duration> {
        if self.rate <= 0.0 {
            return Ok(());
        }
        let mut map = lock(&self.map);
        if map.len() >= MAX_KEYS && !map.contains_key(key) {
            // Forget the buckets that have refilled: they hold no information.
            let (rate, burst) = (self.rate, self.burst);
            map.retain(|_, (tokens, at)| {
                *tokens + now.saturating_duration_since(*at).as_secs_f64() * rate < burst
            });
            if map.len() >= MAX_KEYS {
                // Every bucket is in use: refuse rather than grow without bound.
                return Err(Duration::from_secs(1));
            }
        }
        let (tokens, at) = map.entry(key.clone()).or_insert((self.burst, now));
        let refilled = (*tokens + now.saturating_duration_since(*at).as_secs_f64() * self.rate)
            .min(self.burst);
        *at = now;
        if refilled >= 1.0 {
            *tokens = refilled - 1.0;
            Ok(())
        } else {
            *tokens = refilled;
            let wait = (1.0 - refilled) / self.rate;
            Err(Duration::from_secs_f64(wait.clamp(0.001, 3600.0)))
        }
    }
}

/// Failed sign-ins per address: after `max` in a window, the address is refused until
/// the window ends.
pub struct Failures {
    max: u32,
    window: Duration,
    map: Mutex<HashMap<IpAddr, (u32, Instant)>>,
}

impl Failures {
    /// At most `max` failures per address in `window`.
    pub fn new(max: u32, window: Duration) -> Failures {
        Failures {
            max,
            window,
            map: Mutex::new(HashMap::new()),
        }
    }

    /// How long `ip` is still refused, if it is.
    pub fn blocked(&self, ip: IpAddr, now: Instant) -> Option<Duration> {
        let map = lock(&self.map);
        let (count, start) = map.get(&ip)?;
        let end = *start + self.window;
        (*count >= self.max && now < end).then(|| end - now)
    }

    /// Counts a failed sign-in from `ip`.
    pub fn record(&self, ip: IpAddr, now: Instant) {
        let mut map = lock(&self.map);
        if map.len() >= MAX_KEYS && !map.contains_key(&ip) {
            let window = self.window;
            map.retain(|_, (_, start)| now.saturating_duration_since(*start) < window);
        }
        let entry = map.entry(ip).or_insert((0, now));
        if now.saturating_duration_since(entry.1) >= self.window {
            *entry = (0, now);
        }
        entry.0 = entry.0.saturating_add(1);
    }
}

/// The shared state of the limits a request passes.
pub struct Guard {
    /// The limits.
    pub limits: Limits,
    /// The request buckets per IP address.
    pub per_address: Buckets<IpAddr>,
    /// The request buckets per token.
    pub per_token: Buckets<String>,
    /// Failed sign-ins per IP address.
    pub failures: Failures,
}

impl Guard {
    /// The state for `limits`, empty.
    pub fn new(limits: Limits) -> Guard {
        Guard {
            per_address: Buckets::new(
                limits.requests_per_second_per_address,
                limits.burst_per_address,
            ),
            per_token: Buckets::new(limits.requests_per_second_per_token, limits.burst_per_token),
            failures: Failures::new(
                limits.sign_in_failures,
                Duration::from_millis(limits.sign_in_window_ms),
            ),
            limits,
        }
    }
}

impl Default for Guard {
    fn default() -> Guard {
        Guard::new(Limits::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_allows_its_burst_then_its_rate() {
        let b = Buckets::new(10.0, 3.0);
        let t = Instant::now();
        for _ in 0..3 {
            assert!(b.take(&1u8, t).is_ok());
        }
        let wait = b.take(&1u8, t).err();
        assert!(wait.is_some_and(|w| w > Duration::ZERO && w <= Duration::from_millis(100)));
        assert!(b.take(&2u8, t).is_ok(), "another key has its own bucket");
        assert!(b.take(&1u8, t + Duration::from_millis(101)).is_ok());
        assert!(b.take(&1u8, t + Duration::from_millis(102)).is_err());
        let off = Buckets::new(0.0, 0.0);
        for _ in 0..1000 {
            assert!(off.take(&1u8, t).is_ok());
        }
    }

    #[test]
    fn failures_block_until_the_window_ends() {
        let f = Failures::new(3, Duration::from_secs(60));
        let ip: IpAddr = [127, 0, 0, 1].into();
        let t = Instant::now();
        for _ in 0..2 {
            f.record(ip, t);
        }
        assert!(f.blocked(ip, t).is_none());
        f.record(ip, t);
        assert!(f
            .blocked(ip, t)
            .is_some_and(|d| d == Duration::from_secs(60)));
        assert!(f.blocked([127, 0, 0, 2].into(), t).is_none());
        assert!(f.blocked(ip, t + Duration::from_secs(60)).is_none());
        f.record(ip, t + Duration::from_secs(61));
        assert!(f.blocked(ip, t + Duration::from_secs(61)).is_none());
    }

    #[test]
    fn limits_refuse_a_zero_timeout_or_cap() {
        assert!(Limits::default().check().is_ok());
        let zero = Limits {
            header_read_timeout_ms: 0,
            ..Limits::default()
        };
        assert!(zero.check().is_err());
        let cap = Limits {
            max_connections: 0,
            ..Limits::default()
        };
        assert!(cap.check().is_err());
        let nan = Limits {
            burst_per_token: f64::NAN,
            ..Limits::default()
        };
        assert!(nan.check().is_err());
    }
}
