//! Runnable examples of the smpatch library; see the `*.rs` files beside
//! this package's `Cargo.toml` and run one with
//! `cargo run -p smpatch-examples --example apply_patch`.
//!
//! Owns: the examples, and the check that the repository README's Rust
//! code still compiles and runs (its code blocks are this crate's
//! doctests: `cargo test --doc -p smpatch-examples`).
//!
//! Must not: hold code the examples share (each example stands alone, as a
//! user would copy it).

/// The repository README, whose `rust` code blocks run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
