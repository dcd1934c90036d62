//! Finding a program on `$PATH`: a leaf, so the modules that need it (install, doctor,
//! the sandbox's probe) import nothing else through it.

use std::path::PathBuf;

/// The first `name` on `$PATH` that is an executable file (on Windows also
/// `name.exe`).
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let names: &[String] = if cfg!(windows) {
        &[format!("{name}.exe"), name.to_string()]
    } else {
        &[name.to_string()]
    };
    std::env::split_paths(&path)
        .flat_map(|d| names.iter().map(move |n| d.join(n)))
        .find(|p| toolgate_fs::is_executable(p))
}
