//! Union normalization and validation (KEP-1027, KEP-2887), run after a merge.
//!
//! Owns: clearing non-selected union members when a discriminator changes,
//! and validating unions against their discriminator and enum.
//!
//! Must not: merge patches or parse schemas itself; it reads union metadata
//! from `smpatch-schema` and values from `smpatch-value`.
//!
//! Status: not implemented yet. This crate is a compiling shell and exposes
//! no API until its issue lands.
