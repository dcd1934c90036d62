//! The npm package's policy-file reader: [`toolgate_core::Policy::from_toml`] in a WebAssembly module of
//! its own (`toolgate_policy_bg.wasm`), so that the Gate's module carries no TOML reader,
//! checks or messages (issue 51). The package's JavaScript loads it the first time a
//! policy file is read and hands what it answers to the Gate's `Policy`, which takes the
//! policy back from its spec ([`toolgate_core::Policy::to_spec`], [`toolgate_core::Policy::from_spec`]).
//!
//! No wasm-bindgen: four exports (`#[no_mangle]`, the crate's only `unsafe` attribute). The
//! module keeps the input and the answer in buffers of its own: JavaScript asks for an
//! input buffer of the text's length ([`input`]; null, and the error already answered,
//! for a text over the size limit), writes the UTF-8 bytes there, calls
//! [`read`], then copies the answer out ([`output`], [`output_len`]). The loader
//! instantiates the module afresh for each file, so nothing is carried from one read to
//! the next, and a trap (a bug) leaves no state behind.
//!
//! [`read`] returns 0 and the answer is the policy's spec, or 1 and it is the error as
//! `LINE:MESSAGE`; the Gate's `Policy` takes either back
//! ([`toolgate_core::Policy::from_answer`]).

use std::sync::{Mutex, PoisonError};
use toolgate_core::policy;

#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

static INPUT: Mutex<Vec<u8>> = Mutex::new(Vec::new());
static OUTPUT: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// The address of a zeroed input buffer of `len` bytes for the policy file's text, or
/// null for a text over the size limit: then the answer (in [`output`]) is already the
/// error [`read`] would give, and the text need not be copied at all.
// An export of the module: its name is unique in this cdylib, which links no other
// `#[no_mangle]` symbol of that name.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn input(len: usize) -> *mut u8 {
    let mut buf = INPUT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Err(error) = policy::refuse_toml_size(len) {
        *buf = Vec::new();
        *OUTPUT.lock().unwrap_or_else(PoisonError::into_inner) = error.into_bytes();
        return std::ptr::null_mut();
    }
    *buf = vec![0; len];
    buf.as_mut_ptr()
}

/// Reads the input buffer as a policy file; the answer is in [`output`]. Returns 0 for a
/// policy, 1 for an error.
// An export of the module: its name is unique in this cdylib, which links no other
// `#[no_mangle]` symbol of that name.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn read() -> u32 {
    let text = std::mem::take(&mut *INPUT.lock().unwrap_or_else(PoisonError::into_inner));
    let (status, answer) = answer(&text);
    *OUTPUT.lock().unwrap_or_else(PoisonError::into_inner) = answer.into_bytes();
    status
}

/// The address of the answer.
// An export of the module: its name is unique in this cdylib, which links no other
// `#[no_mangle]` symbol of that name.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn output() -> *const u8 {
    OUTPUT
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ptr()
}

/// The length of the answer in bytes.
// An export of the module: its name is unique in this cdylib, which links no other
// `#[no_mangle]` symbol of that name.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn output_len() -> usize {
    OUTPUT.lock().unwrap_or_else(PoisonError::into_inner).len()
}

/// The status and answer for a policy file's bytes: 0 and the policy's spec, or 1 and
/// the error (`LINE:MESSAGE`), as [`policy::read_toml`] answers.
pub fn answer(text: &[u8]) -> (u32, String) {
    let read = match std::str::from_utf8(text) {
        Ok(text) => policy::read_toml(text),
        Err(_) => Err("1:the policy file is not UTF-8 text".into()),
    };
    match read {
        Ok(spec) => (0, spec),
        Err(error) => (1, error),
    }
}

#[cfg(test)]
mod tests {
    use super::answer;
    use toolgate_core::Policy;

    #[test]
    fn a_policy_file_is_answered_with_its_spec() {
        let toml = "default = \"deny\"\n[rules]\nallow = [\"Bash(ls)\"]\n";
        let (status, out) = answer(toml.as_bytes());
        assert_eq!(status, 0);
        assert_eq!(Some(out), Policy::from_toml(toml).map(|p| p.to_spec()).ok());
    }

    #[test]
    fn a_text_over_the_limit_is_refused_before_it_is_copied() {
        let limit = toolgate_core::toml_shape::MAX_POLICY_BYTES;
        assert!(!super::input(limit).is_null());
        assert!(super::input(limit + 1).is_null());
        let refused = String::from_utf8(super::OUTPUT.lock().unwrap().clone()).unwrap();
        // The same answer `read` gives for such a text.
        let (status, out) = answer(" ".repeat(limit + 1).as_bytes());
        assert_eq!((status, &out), (1, &refused));
        assert_eq!(
            refused,
            format!(
                "1:the policy file is {} bytes, over the limit of {limit}",
                limit + 1
            )
        );
    }

    #[test]
    fn an_error_names_its_line() {
        let (status, out) = answer(b"default = \"deny\"\n\nedits = \"never\"\n");
        assert_eq!(status, 1);
        assert!(out.starts_with("3:`edits` must be"), "{out}");
        let (status, out) = answer(b"default = \"\xff\"\n");
        assert_eq!(status, 1);
        assert_eq!(out, "1:the policy file is not UTF-8 text");
        // The Gate's module reads the answer back as the error it is.
        assert_eq!(
            Policy::from_answer(Err(&out)).err(),
            Some(toolgate_core::Error::Policy {
                line: 1,
                message: "the policy file is not UTF-8 text".into()
            })
        );
    }
}
