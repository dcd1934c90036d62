//! The registry bench's workload as a plain program, for instruction-level profiling:
//! `valgrind --tool=callgrind --toggle-collect='registry_profile::ops*' target/release/examples/registry_profile`
//! (likewise `…::fill*`, `…::cleanup*`). Prints nothing but the sizes it reached.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use toolgate_core::{Decision, NewRequest, Policy, Registry, RegistryConfig};

#[path = "../benches/common/registry_workload.rs"]
mod workload;
use workload::{call, ids, verdict};

fn n() -> usize {
    std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

#[inline(never)]
fn fill(r: &mut Registry, n: usize) {
    for i in 0..n {
        let _ = r.request(NewRequest::new(call(i), verdict()), 60_000, 0);
    }
}

#[inline(never)]
fn ops(r: &mut Registry, policy: &Policy, k: usize) {
    let one = call(n() + 1);
    for _ in 0..k {
        let got = r.request(NewRequest::new(one.clone(), verdict()), 60_000, 1);
        let Ok(got) = got else { return };
        let anchor = r
            .get(got.id)
            .map(|p| p.anchor.to_string())
            .unwrap_or_default();
        let _ = black_box(r.respond(got.id, Decision::AllowOnce, &anchor, policy, 1));
    }
}

/// What the `ops` loop does besides the registry: build the request, take the anchor
/// text, drop what a respond would return.
#[inline(never)]
fn harness(k: usize) {
    let one = call(n() + 1);
    for _ in 0..k {
        let new = black_box(NewRequest::new(one.clone(), verdict()));
        let anchor = black_box(new.call.anchor());
        drop(black_box((new, anchor, Vec::<u8>::with_capacity(64))));
    }
}

#[inline(never)]
fn cleanup(r: &mut Registry) -> usize {
    let c = r.cleanup(2);
    let n = c.settled.len();
    drop(black_box(c));
    n
}

fn main() {
    let k: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    if std::env::var_os("HARNESS").is_some() {
        harness(k);
        println!("harness only, {k} ops");
        return;
    }
    let policy = Policy::defaults("/w", "/home/u");
    let mut r = Registry::new("profile", RegistryConfig::default(), ids());
    fill(&mut r, n());
    ops(&mut r, &policy, k);
    let cleaned = cleanup(&mut r);
    println!("filled {}, {k} ops, cleaned up {cleaned}", n());
}
