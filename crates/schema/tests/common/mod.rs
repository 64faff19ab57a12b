//! Shared helpers for the schema tests.
#![allow(clippy::unwrap_used)] // tests: a panic is the failure report
#![allow(dead_code)]

use std::fmt::Write;
use std::path::PathBuf;

use smpatch_schema::{strategy_text, Cursor, NodeKind, Schema};

/// `../shared` (env `SMPATCH_SHARED`, default beside the repository).
pub fn shared() -> PathBuf {
    smpatch_testkit::shared_location()
}

/// Whether the shared suite is present; when not, the caller skips (after
/// testkit's notice; a failure when `SMPATCH_REQUIRE_SHARED=1`).
pub fn present() -> bool {
    smpatch_testkit::shared_dir().is_some()
}

pub fn load(rel: &str) -> Schema {
    let p = shared().join(rel);
    Schema::load_path(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A canonical text of everything the merge algorithms can observe about a
/// node: shape, field names, metadata. Named nodes below the root print as
/// `@Name` (their own dump is separate); anonymous nodes are inlined.
pub fn dump(c: Cursor<'_>, root: bool) -> String {
    let mut out = String::new();
    dump_into(&mut out, c, root, 0);
    out
}

fn dump_into(out: &mut String, c: Cursor<'_>, root: bool, depth: usize) {
    assert!(depth < 200, "anonymous nesting too deep for a dump");
    if !root {
        if let Some(n) = c.type_name() {
            let _ = write!(out, "@{n}");
            return;
        }
    }
    let f = c.flags();
    if f.int_or_string {
        out.push_str("ios:");
    }
    if f.preserve_unknown_fields {
        out.push_str("puf:");
    }
    if f.embedded_resource {
        out.push_str("emb:");
    }
    match c.kind() {
        None | Some(NodeKind::Unknown) => out.push('?'),
        Some(NodeKind::Scalar { .. }) => {
            out.push('s');
            if let Some(e) = c.enum_values() {
                let _ = write!(out, "{e:?}");
            }
        }
        Some(NodeKind::List { .. }) => {
            out.push('[');
            dump_into(out, c.list_items().unwrap(), false, depth + 1);
            out.push(']');
        }
        Some(NodeKind::Map { .. }) => {
            out.push_str("map<");
            dump_into(out, c.map_value().unwrap(), false, depth + 1);
            out.push('>');
        }
        Some(NodeKind::Struct { .. }) => {
            out.push('{');
            for (name, field) in c.fields() {
                let m = field.meta;
                let _ = write!(
                    out,
                    "{name}({};{};{:?};{:?};{:?}):",
                    strategy_text(m),
                    m.merge_key().unwrap_or(""),
                    m.list_type,
                    m.list_map_keys,
                    m.map_type
                );
                dump_into(out, field.cursor, false, depth + 1);
                out.push(',');
            }
            for u in c.unions() {
                let _ = write!(out, "union{u:?}");
            }
            out.push('}');
        }
    }
}
