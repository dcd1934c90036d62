//! Name lists of programs the built-in rules single out: shells, interpreters, downloaders, privilege escalation, power, disk devices, decoders and wrappers.

pub(super) const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "fish", "mksh", "ash", "csh", "tcsh", "yash", "busybox",
];

pub(super) const INTERPRETERS: &[&str] = &[
    "perl",
    "ruby",
    "node",
    "nodejs",
    "php",
    "deno",
    "bun",
    "lua",
    "tclsh",
    "pwsh",
    "osascript",
];

pub(super) const DOWNLOADERS: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "http",
    "https",
    "aria2c",
    "lwp-request",
    "GET",
];

pub(super) const PRIV_ESC: &[&str] = &["sudo", "doas", "pkexec", "su", "run0", "sudoedit", "ksu"];

pub(super) const POWER: &[&str] = &["shutdown", "reboot", "halt", "poweroff"];

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
    let t = s.trim_end_matches('/');
    // A byte loop: names are short, and `rfind` sets up a searcher for each.
    match t.bytes().rposition(|b| b == b'/') {
        Some(i) => &t[i + 1..],
        None => t,
    }
}

pub(super) fn is_interpreter(name: &str) -> bool {
    SHELLS.contains(&name)
        || INTERPRETERS.contains(&name)
        || name.starts_with("python")
        || name.starts_with("pypy")
        || (name.starts_with("perl") && name[4..].bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        || (name.starts_with("ruby") && name[4..].bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        || (name.starts_with("php") && name[3..].bytes().all(|b| b.is_ascii_digit() || b == b'.'))
}

/// Number of leading option words of a wrapper (short letters in `takes` and long
/// names in `long_takes` consume a value; `-N` numbers count as options).
/// Programs that decode what they read (`base64 -d`, `xxd -r`, …), by name.
pub(super) const DECODERS: &[&str] = &["base64", "base32", "xxd", "openssl", "uudecode", "basenc"];

/// Programs that run the command after them (with options of their own).
pub(super) const WRAPPERS: &[&str] = &[
    "env", "command", "builtin", "exec", "nice", "nohup", "time", "timeout", "stdbuf", "ionice",
    "xargs", "setsid", "sudo", "doas",
];
