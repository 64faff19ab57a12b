//! Runnable examples of the smpatch library; see the `*.rs` files beside
//! this package's `Cargo.toml` and run one with
//! `cargo run -p smpatch-examples --example apply_patch`.
//!
//! Must not: hold code the examples share (each example stands alone, as a
//! user would copy it).
