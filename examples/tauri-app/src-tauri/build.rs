//! Tauri's build: reads tauri.conf.json and capabilities/, resolves the plugins'
//! permissions (tauri-plugin-toolgate's through its `links` metadata).
fn main() {
    tauri_build::build()
}
