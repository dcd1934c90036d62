//! Request ids: 128 random bits from an `IdSource`, and the hasher of maps keyed by them.

use crate::error::Error;
use serde::Serialize;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

/// An unguessable request id: 128 random bits from the [`IdSource`], written as 32
/// lowercase hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub(super) u128);

impl RequestId {
    /// The id with these 128 bits.
    pub fn from_u128(bits: u128) -> RequestId {
        RequestId(bits)
    }
    /// Its 128 bits.
    pub fn as_u128(self) -> u128 {
        self.0
    }
    /// Parses the 32-hex-digit form; anything else is `None`.
    pub fn parse(s: &str) -> Option<RequestId> {
        if s.len() != 32 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u128::from_str_radix(s, 16).ok().map(RequestId)
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

impl Serialize for RequestId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Where fresh request ids come from. Must be unguessable (a CSPRNG such as
/// `crypto.getRandomValues` or the OS), so that one session cannot answer another's
/// requests by guessing. A failure is reported, never papered over with a weak id.
pub trait IdSource {
    /// A fresh, unguessable id, or the reason there is none.
    fn next_id(&mut self) -> Result<u128, Error>;
}

impl<F: FnMut() -> Result<u128, Error>> IdSource for F {
    fn next_id(&mut self) -> Result<u128, Error> {
        self()
    }
}

/// Hasher for [`RequestId`] keys: the ids are already uniformly random (and generated
/// by the registry's id source, not chosen by an attacker), so a multiply-fold is enough
/// and much cheaper than SipHash. Also for hosts that map ids to their waiters.
#[derive(Default)]
pub struct IdHasher(u64);

/// `BuildHasher` for maps keyed by [`RequestId`] (see [`IdHasher`]).
pub type IdBuildHasher = BuildHasherDefault<IdHasher>;

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut buf = [0u8; 8];
            // `chunks(8)` gives at most 8 bytes.
            if let Some(dst) = buf.get_mut(..chunk.len()) {
                dst.copy_from_slice(chunk);
            }
            self.write_u64(u64::from_le_bytes(buf));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_u128(&mut self, n: u128) {
        // Truncations on purpose: fold both halves.
        self.write_u64(n as u64);
        self.write_u64((n >> 64) as u64);
    }
}

pub(super) type IdMap<V> = HashMap<RequestId, V, IdBuildHasher>;
