//! managedFields field sets (FieldsV1) and extraction of apply configurations.
//!
//! Owns: parsing and writing FieldsV1 sets, computing the set of a value, and
//! extracting the fields a manager owns.
//!
//! Must not: merge patches; it stands on `smpatch-value` and `smpatch-schema`
//! only.
//!
//! Status: not implemented yet. This crate is a compiling shell and exposes
//! no API until its issue lands.
