//! Unguessable request ids from `crypto.getRandomValues`, fetched in batches.

use crate::error::GateError;
use toolgate_core::{Error, IdSource};
use wasm_bindgen::{JsCast, JsValue};

const BATCH: usize = 512; // 32 ids per call into JS

/// An [`IdSource`] over Web Crypto (`globalThis.crypto`, so it works in windows and
/// workers alike). No fallback: without crypto there is no gate.
pub struct CryptoIds {
    crypto: web_sys::Crypto,
    buf: [u8; BATCH],
    pos: usize,
}

impl CryptoIds {
    pub fn new() -> Result<CryptoIds, GateError> {
        let crypto = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("crypto"))
            .ok()
            .and_then(|c| c.dyn_into::<web_sys::Crypto>().ok())
            .ok_or_else(|| GateError::NoCrypto("globalThis.crypto is missing".into()))?;
        let mut ids = CryptoIds {
            crypto,
            buf: [0; BATCH],
            pos: BATCH,
        };
        ids.refill()
            .map_err(|e| GateError::NoCrypto(e.to_string()))?;
        Ok(ids)
    }

    fn refill(&mut self) -> Result<(), Error> {
        self.crypto
            .get_random_values_with_u8_array(&mut self.buf)
            .map_err(|e| Error::IdSource {
                message: format!("crypto.getRandomValues failed: {e:?}"),
            })?;
        self.pos = 0;
        Ok(())
    }
}

impl IdSource for CryptoIds {
    fn next_id(&mut self) -> Result<u128, Error> {
        if self.pos + 16 > BATCH {
            self.refill()?;
        }
        let mut b = [0u8; 16];
        b.copy_from_slice(&self.buf[self.pos..self.pos + 16]);
        // Used bytes are wiped so they are not reused or left in memory.
        self.buf[self.pos..self.pos + 16].fill(0);
        self.pos += 16;
        Ok(u128::from_le_bytes(b))
    }
}
