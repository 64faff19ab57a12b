//! Patch creation: two-way and three-way strategic merge patch diffs,
//! conflict detection and patch composition.
//!
//! Owns: `create_two_way`, `create_three_way`, `conflicts`, `compose`.
//!
//! Must not: parse schemas or documents itself; it reuses `smpatch-patch-apply`
//! for composition.
