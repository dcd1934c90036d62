//! Names nobody can guess: temporary files beside a settings file, run ids.

/// 16 hex digits nobody can guess: from the kernel's random source, else from the
/// clock and the process.
pub fn unpredictable() -> String {
    use std::io::Read as _;
    let mut b = [0u8; 8];
    let random = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut b));
    if random.is_err() {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        b = ((t as u64) ^ u64::from(std::process::id()).rotate_left(32)).to_le_bytes();
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}
