//! Any bytes given as a stored marker / run record decode to a value or an error,
//! never a panic; and whatever decodes re-encodes to something that decodes the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolgate_core::marker::AnyHistory;
use toolgate_core::{Marker, Run};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(marker) = Marker::decode(&text) {
        if let Ok(again) = marker.encode() {
            assert_eq!(Marker::decode(&again).ok(), Some(marker));
        }
    }
    if let Ok(run) = Run::decode(&text, &AnyHistory) {
        if let Ok(again) = run.encode() {
            assert_eq!(Run::decode(&again, &AnyHistory).ok(), Some(run));
        }
    }
});
