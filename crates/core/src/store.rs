//! Where run records live: the [`MarkerStore`] trait (string keys and values, a
//! revision per key, compare-and-swap) and the in-memory [`MemoryStore`].
//!
//! The trait is shaped so that a browser `localStorage` store can implement it: values
//! are strings, the revision can live in the value itself or beside it, a full store
//! is [`Error::QuotaExceeded`], a disabled one [`Error::StoreUnavailable`].

use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::{Arc, Mutex, PoisonError};

use crate::error::Error;

/// A stored value and its revision (the compare-and-swap token; revisions start at 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The revision (1 for the first write).
    pub revision: u64,
    /// The stored text.
    pub value: String,
}

/// A key-value store with a revision per key. Implementations must make each
/// compare-and-swap atomic with respect to every other user of the same storage
/// (other tabs, other processes): that is what makes resume exactly-once.
pub trait MarkerStore {
    /// The value under `key`, if any.
    fn get(&self, key: &str) -> Result<Option<Stored>, Error>;

    /// Writes `new` under `key` only if the current revision is `expected` (`None`:
    /// the key must be absent). Otherwise [`Error::StoreConflict`] and nothing changes.
    /// A full store is [`Error::QuotaExceeded`] and nothing changes.
    fn put_if_revision(&self, key: &str, expected: Option<u64>, new: Stored) -> Result<(), Error>;

    /// Removes `key` only if its revision is `expected`, else [`Error::StoreConflict`].
    fn delete_if_revision(&self, key: &str, expected: u64) -> Result<(), Error>;

    /// Every key, in any order.
    fn keys(&self) -> Result<Vec<String>, Error>;

    /// Every key with its value, in any order: what listing runs reads. The default
    /// reads [`keys`](MarkerStore::keys), then each (a key deleted meanwhile is left
    /// out); a store that can read them all at once (one SQL query) should.
    fn entries(&self) -> Result<Vec<(String, Stored)>, Error> {
        let mut out = Vec::new();
        for key in self.keys()? {
            if let Some(stored) = self.get(&key)? {
                out.push((key, stored));
            }
        }
        Ok(out)
    }
}

impl<S: MarkerStore + ?Sized> MarkerStore for &S {
    fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        (**self).get(key)
    }
    fn put_if_revision(&self, key: &str, expected: Option<u64>, new: Stored) -> Result<(), Error> {
        (**self).put_if_revision(key, expected, new)
    }
    fn delete_if_revision(&self, key: &str, expected: u64) -> Result<(), Error> {
        (**self).delete_if_revision(key, expected)
    }
    fn keys(&self) -> Result<Vec<String>, Error> {
        (**self).keys()
    }
    fn entries(&self) -> Result<Vec<(String, Stored)>, Error> {
        (**self).entries()
    }
}

impl<S: MarkerStore + ?Sized> MarkerStore for Rc<S> {
    fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        (**self).get(key)
    }
    fn put_if_revision(&self, key: &str, expected: Option<u64>, new: Stored) -> Result<(), Error> {
        (**self).put_if_revision(key, expected, new)
    }
    fn delete_if_revision(&self, key: &str, expected: u64) -> Result<(), Error> {
        (**self).delete_if_revision(key, expected)
    }
    fn keys(&self) -> Result<Vec<String>, Error> {
        (**self).keys()
    }
    fn entries(&self) -> Result<Vec<(String, Stored)>, Error> {
        (**self).entries()
    }
}

impl<S: MarkerStore + ?Sized> MarkerStore for Arc<S> {
    fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        (**self).get(key)
    }
    fn put_if_revision(&self, key: &str, expected: Option<u64>, new: Stored) -> Result<(), Error> {
        (**self).put_if_revision(key, expected, new)
    }
    fn delete_if_revision(&self, key: &str, expected: u64) -> Result<(), Error> {
        (**self).delete_if_revision(key, expected)
    }
    fn keys(&self) -> Result<Vec<String>, Error> {
        (**self).keys()
    }
    fn entries(&self) -> Result<Vec<(String, Stored)>, Error> {
        (**self).entries()
    }
}

/// An in-memory store, optionally with a quota (bytes of keys + values) so that the
/// full-store path can be exercised. Share it between `Runs` with `Arc`.
#[derive(Debug, Default)]
pub struct MemoryStore {
    entries: Mutex<BTreeMap<String, Stored>>,
    quota_bytes: Option<usize>,
}

impl MemoryStore {
    /// An empty store without a quota.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// An empty store that refuses writes beyond `bytes` (keys + values).
    pub fn with_quota(bytes: usize) -> MemoryStore {
        MemoryStore {
            entries: Mutex::default(),
            quota_bytes: Some(bytes),
        }
    }

    /// Bytes in use (keys + values).
    pub fn used_bytes(&self) -> usize {
        used(&self.lock())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Stored>> {
        // A panic elsewhere while holding the lock cannot leave a half-written entry
        // (every write is one map operation), so a poisoned map is still consistent.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The positions of `keys` in ascending byte order of the keys (equal keys by
/// position). The one sort of the core's shipped code: the run listing and canonical
/// JSON (for a map not already in order) both order by a string key through it, since
/// each sort instantiated for another element type costs ~1.6 KB of the gzipped
/// WebAssembly (measured).
pub fn order_by_key(keys: &[&str]) -> Vec<usize> {
    let mut order: Vec<(&str, usize)> = keys.iter().copied().zip(0..).collect();
    order.sort_unstable();
    order.into_iter().map(|(_, at)| at).collect()
}

/// `items` in ascending byte order of the text `key` gives each (equal keys in their
/// order), through [`order_by_key`]; with `unique`, each key once (its first item).
pub fn sort_by_text<T, K: AsRef<str>>(
    items: Vec<T>,
    key: impl Fn(&T) -> K,
    unique: bool,
) -> Vec<T> {
    let keys: Vec<K> = items.iter().map(key).collect();
    let refs: Vec<&str> = keys.iter().map(AsRef::as_ref).collect();
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len());
    let mut last = None;
    for at in order_by_key(&refs) {
        let k = refs.get(at).copied();
        if unique && k == last {
            continue;
        }
        last = k;
        out.extend(slots.get_mut(at).and_then(Option::take));
    }
    out
}

fn used(map: &BTreeMap<String, Stored>) -> usize {
    map.iter().map(|(k, v)| k.len() + v.value.len()).sum()
}

impl MarkerStore for MemoryStore {
    fn get(&self, key: &str) -> Result<Option<Stored>, Error> {
        Ok(self.lock().get(key).cloned())
    }

    fn put_if_revision(&self, key: &str, expected: Option<u64>, new: Stored) -> Result<(), Error> {
        let mut map = self.lock();
        let found = map.get(key).map(|s| s.revision);
        if found != expected {
            return Err(Error::StoreConflict {
                key: key.to_string(),
                expected,
                found,
            });
        }
        if let Some(quota) = self.quota_bytes {
            let old = map.get(key).map_or(0, |s| key.len() + s.value.len());
            let after = used(&map) - old + key.len() + new.value.len();
            if after > quota {
                return Err(Error::QuotaExceeded {
                    key: key.to_string(),
                    bytes: new.value.len(),
                });
            }
        }
        map.insert(key.to_string(), new);
        Ok(())
    }

    fn delete_if_revision(&self, key: &str, expected: u64) -> Result<(), Error> {
        let mut map = self.lock();
        let found = map.get(key).map(|s| s.revision);
        if found != Some(expected) {
            return Err(Error::StoreConflict {
                key: key.to_string(),
                expected: Some(expected),
                found,
            });
        }
        map.remove(key);
        Ok(())
    }

    fn keys(&self) -> Result<Vec<String>, Error> {
        Ok(self.lock().keys().cloned().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::{order_by_key, sort_by_text};

    proptest::proptest! {
        /// `order_by_key` is a sort by key (then position) of the keys given: every
        /// position once, the keys in ascending byte order, equal keys in their order.
        #[test]
        fn order_by_key_sorts_the_keys(keys in proptest::collection::vec("[ab\u{e9}]{0,3}", 0..24)) {
            let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
            let order = order_by_key(&refs);
            let mut want: Vec<usize> = (0..keys.len()).collect();
            want.sort_by(|&a, &b| keys[a].as_bytes().cmp(keys[b].as_bytes()).then(a.cmp(&b)));
            proptest::prop_assert_eq!(order, want);
        }

        /// `sort_by_text` is a stable sort by key; with `unique`, the first item of each
        /// key.
        #[test]
        fn sort_by_text_is_a_stable_sort(keys in proptest::collection::vec("[ab\u{e9}]{0,2}", 0..24)) {
            let items: Vec<(String, usize)> = keys.into_iter().zip(0..).collect();
            let mut want = items.clone();
            want.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            let got = sort_by_text(items.clone(), |(k, _)| k.clone(), false);
            proptest::prop_assert_eq!(&got, &want);
            want.dedup_by(|b, a| a.0 == b.0);
            proptest::prop_assert_eq!(sort_by_text(items, |(k, _)| k.clone(), true), want);
        }
    }
}
