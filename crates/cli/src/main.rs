//! The `toolgate` command. SKELETON — being written.
fn main() {}
