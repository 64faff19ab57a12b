//! The `smpatch` command-line tool.

fn main() {
    println!("smpatch {}", env!("CARGO_PKG_VERSION"));
}
