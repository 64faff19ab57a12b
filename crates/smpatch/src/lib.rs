//! smpatch: strategic merge patch for Kubernetes-style objects.
//!
//! Owns: the public facade (serde_json and bytes in, serde_json and bytes
//! out) over the arena crates, and the `smpatch` command-line tool.
//!
//! Must not: hold merge or diff logic of its own.
