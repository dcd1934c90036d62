//! Name lists the built-in rules read paths and variables against: disk devices,
//! system directories, harmless environment variables; and a program's basename.

use super::programs::kind;

pub(super) const DISK_DEVICES: &[&str] = &[
    "/dev/sd",
    "/dev/nvme",
    "/dev/hd",
    "/dev/vd",
    "/dev/mmcblk",
    "/dev/disk",
    "/dev/xvd",
    "/dev/dm-",
    "/dev/mapper/",
    "/dev/md",
    "/dev/loop",
    "/dev/root",
];

pub(super) const SYSTEM_WRITE_DIRS: &[&str] = &[
    "/etc", "/boot", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32",
];

/// Environment variables that cannot change what a command runs or reads.
pub(super) const SAFE_ENV: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "TZ",
    "NO_COLOR",
    "TERM",
    "COLUMNS",
    "LINES",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "FORCE_COLOR",
    "GREP_COLOR",
    "GREP_COLORS",
    "TIME_STYLE",
    "RUST_BACKTRACE",
    "RUST_LOG",
];

pub(super) fn basename(s: &str) -> &str {
    // Byte loops: names are short, and `rfind` sets up a searcher for each (a `char`
    // pattern encodes the character on every call).
    let end = s.bytes().rposition(|b| b != b'/').map_or(0, |i| i + 1);
    let t = s.get(..end).unwrap_or_default();
    match t.bytes().rposition(|b| b == b'/') {
        Some(i) => t.get(i + 1..).unwrap_or_default(),
        None => t,
    }
}

/// Shells and interpreters: programs that run code given as a file, a string or on
/// stdin (see [`Kind::is_interpreter`]).
pub(super) fn is_interpreter(name: &str) -> bool {
    kind(name).is_interpreter()
}

#[cfg(test)]
mod basename_tests {
    proptest::proptest! {
        #[test]
        fn a_basename_is_the_last_segment_after_trailing_slashes(s in "[a/é.]{0,8}") {
            let t = s.trim_end_matches('/');
            let want = t.rsplit('/').next().unwrap_or(t);
            proptest::prop_assert_eq!(super::basename(&s), want);
        }
    }
}
