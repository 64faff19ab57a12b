//! Human-readable description of a type or field (`smpatch explain`).

use std::fmt::Write;

use crate::error::{SchemaError, SchemaErrorKind};
use crate::model::{Cursor, ListType, MapType, NodeKind, PatchMeta, Schema, Strategy};
use crate::plan::{KeySpec, ListPlan, Rules};

/// The strategy list as written in `x-kubernetes-patch-strategy`
/// (`merge,retainKeys`), or `-` when there is none.
pub fn strategy_text(meta: &PatchMeta) -> &'static str {
    match (meta.strategy, meta.retain_keys) {
        (Strategy::None, false) => "-",
        (Strategy::None, true) => "retainKeys",
        (Strategy::Merge, false) => "merge",
        (Strategy::Merge, true) => "merge,retainKeys",
        (Strategy::Replace, false) => "replace",
        (Strategy::Replace, true) => "replace,retainKeys",
    }
}

fn list_type_text(meta: &PatchMeta) -> String {
    let t = match meta.list_type {
        None => return "-".into(),
        Some(ListType::Atomic) => "atomic",
        Some(ListType::Set) => "set",
        Some(ListType::Map) => "map",
    };
    if meta.list_map_keys.is_empty() {
        t.into()
    } else {
        format!("{t}[{}]", meta.list_map_keys.join(","))
    }
}

fn map_type_text(meta: &PatchMeta) -> &'static str {
    match meta.map_type {
        None => "-",
        Some(MapType::Atomic) => "atomic",
        Some(MapType::Granular) => "granular",
    }
}

/// What a strategic merge patch really does with a field whose schema is
/// `c` and metadata `meta`, under `rules` (the engines' own decision,
/// [`Rules::list_plan`]): `merge by name`, `merge by [port,protocol]`,
/// `merge as set`, `replace` for atomic lists and scalars, `merge` for
/// objects and maps (`x-kubernetes-map-type: atomic` included: strategic
/// merge patch merges such maps key by key, see docs/DIVERGENCES.md), `-`
/// when the schema does not say.
pub fn merge_text(c: Cursor<'_>, meta: &PatchMeta, rules: Rules) -> String {
    if c.list_items().is_some() {
        return match rules.list_plan(meta) {
            ListPlan::Atomic => "replace".into(),
            ListPlan::Merge(KeySpec::Value) => "merge as set".into(),
            ListPlan::Merge(k @ KeySpec::Single(_)) => format!("merge by {}", k.describe()),
            ListPlan::Merge(KeySpec::Compound(ks)) => format!("merge by [{}]", ks.join(",")),
        };
    }
    if meta.strategy == Strategy::Replace {
        return "replace".into();
    }
    match c.kind() {
        Some(NodeKind::Struct { .. } | NodeKind::Map { .. }) => "merge".into(),
        _ if c.map_value().is_some() => "merge".into(),
        Some(NodeKind::Scalar { .. }) => "replace".into(),
        _ => "-".into(),
    }
}

/// The closest of `names` to `typo` by edit distance, when it is close
/// enough to be a likely misspelling.
fn closest<'n>(typo: &str, names: impl Iterator<Item = &'n str>) -> Option<&'n str> {
    names
        .map(|n| {
            (
                strsim::levenshtein(&typo.to_lowercase(), &n.to_lowercase()),
                n,
            )
        })
        .filter(|(d, n)| *d <= (n.len().max(typo.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// A one-line description of the node at `c` (looks at most two levels down).
fn shape(c: Cursor<'_>) -> String {
    fn leaf(c: Cursor<'_>) -> String {
        if let Some(n) = c.type_name() {
            return n.to_owned();
        }
        match c.kind() {
            Some(NodeKind::Struct { .. }) => "object".into(),
            Some(NodeKind::Map { .. }) => "map".into(),
            Some(NodeKind::List { .. }) => "list".into(),
            Some(NodeKind::Scalar { .. }) if c.flags().int_or_string => "int-or-string".into(),
            Some(NodeKind::Scalar { .. }) => "scalar".into(),
            Some(NodeKind::Unknown) | None => "any".into(),
        }
    }
    if let Some(items) = c.list_items() {
        return format!("list of {}", leaf(items));
    }
    if let Some(v) = c.map_value() {
        return format!("map of {}", leaf(v));
    }
    match (c.kind(), c.type_name()) {
        (Some(NodeKind::Struct { .. }), Some(n)) => format!("object {n}"),
        _ => leaf(c),
    }
}

/// Describes a type, or a field of it reached by a dotted `field_path`
/// (`spec.template.spec.volumes`; segments through lists and maps go to the
/// element / value type).
///
/// `type_name` is a definition name or a GVK (`apps/v1/Deployment`, `v1/Pod`).
pub fn explain(
    schema: &Schema,
    type_name: &str,
    field_path: Option<&str>,
) -> Result<String, SchemaError> {
    explain_with(schema, type_name, field_path, Rules::default())
}

/// [`explain`] with the engines' settings: the `MERGE` line and column
/// say what a patch made with these `rules` does.
pub fn explain_with(
    schema: &Schema,
    type_name: &str,
    field_path: Option<&str>,
    rules: Rules,
) -> Result<String, SchemaError> {
    let root = schema.cursor(type_name).ok_or_else(|| {
        SchemaError::new(
            SchemaErrorKind::UnknownType,
            type_name,
            format!("no definition named \"{type_name}\" and no GVK of that name"),
        )
    })?;
    let mut out = String::new();
    let _ = write!(out, "TYPE:       {}", root.type_name().unwrap_or(type_name));
    if let Some(gvk) = schema
        .gvk_entries()
        .into_iter()
        .find(|(_, id)| Some(*id) == root.node_id())
    {
        let _ = write!(out, " ({})", gvk.0);
    }
    out.push('\n');
    let mut cursor = root;
    let mut meta: Option<&PatchMeta> = None;
    if let Some(path) = field_path.filter(|p| !p.is_empty()) {
        for seg in path.split('.') {
            cursor = element(cursor);
            if cursor.is_unknown() {
                meta = None;
                continue;
            }
            let found = cursor.fields().find(|(n, _)| *n == seg);
            match found {
                Some((_, f)) => {
                    cursor = f.cursor;
                    meta = Some(f.meta);
                }
                None => {
                    let hint = closest(seg, cursor.fields().map(|(n, _)| n))
                        .map(|n| format!("; did you mean \"{n}\"?"))
                        .unwrap_or_default();
                    return Err(SchemaError::new(
                        SchemaErrorKind::UnknownField,
                        format!("{type_name}:{path}"),
                        format!(
                            "no field \"{seg}\" in {}{hint}",
                            cursor
                                .type_name()
                                .map(str::to_owned)
                                .unwrap_or_else(|| shape(cursor))
                        ),
                    ));
                }
            }
        }
        let _ = writeln!(out, "FIELD:      {path}");
    }
    let _ = writeln!(out, "KIND:       {}", shape(cursor));
    if let Some(m) = meta {
        let _ = writeln!(out, "STRATEGY:   {}", strategy_text(m));
        let _ = writeln!(out, "MERGE KEY:  {}", m.merge_key().unwrap_or("-"));
        let _ = writeln!(out, "LIST TYPE:  {}", list_type_text(m));
        let _ = writeln!(out, "MAP TYPE:   {}", map_type_text(m));
        let _ = write!(out, "MERGE:      {}", merge_text(cursor, m, rules));
        if m.map_type == Some(MapType::Atomic) {
            out.push_str(" (key by key: strategic merge patch does not honour x-kubernetes-map-type: atomic, see docs/DIVERGENCES.md)");
        }
        out.push('\n');
    }
    let flags = cursor.flags();
    let mut fl = Vec::new();
    if flags.int_or_string {
        fl.push("int-or-string");
    }
    if flags.embedded_resource {
        fl.push("embedded-resource");
    }
    if flags.preserve_unknown_fields {
        fl.push("preserve-unknown-fields");
    }
    if flags.nullable {
        fl.push("nullable");
    }
    if !fl.is_empty() {
        let _ = writeln!(out, "FLAGS:      {}", fl.join(", "));
    }
    let body = element(cursor);
    if let Some(values) = body.enum_values() {
        let _ = writeln!(out, "ENUM:       {}", values.join(", "));
    }
    for u in body.unions() {
        let members: Vec<String> = u
            .members
            .iter()
            .map(|m| {
                format!(
                    "{}={}{}",
                    m.field,
                    m.value,
                    if m.optional { " (optional)" } else { "" }
                )
            })
            .collect();
        let _ = write!(
            out,
            "UNION:      discriminator {}: {}",
            u.discriminator.as_deref().unwrap_or("-"),
            members.join(", ")
        );
        if !u.empty_values.is_empty() {
            let _ = write!(out, "; empty values: {}", u.empty_values.join(", "));
        }
        out.push('\n');
    }
    if matches!(body.kind(), Some(NodeKind::Struct { .. })) {
        let rows: Vec<[String; 7]> = body
            .fields()
            .map(|(name, f)| {
                [
                    name.to_owned(),
                    shape(f.cursor),
                    strategy_text(f.meta).to_owned(),
                    f.meta.merge_key().unwrap_or("-").to_owned(),
                    list_type_text(f.meta),
                    map_type_text(f.meta).to_owned(),
                    merge_text(f.cursor, f.meta, rules),
                ]
            })
            .collect();
        let head = [
            "NAME",
            "KIND",
            "STRATEGY",
            "MERGE-KEY",
            "LIST-TYPE",
            "MAP-TYPE",
            "MERGE",
        ]
        .map(String::from);
        let mut widths = head.clone().map(|h| h.len());
        for r in &rows {
            for (w, c) in widths.iter_mut().zip(r) {
                *w = (*w).max(c.len());
            }
        }
        let _ = writeln!(
            out,
            "FIELDS{}:",
            body.type_name()
                .map(|n| format!(" of {n}"))
                .unwrap_or_default()
        );
        for r in std::iter::once(&head).chain(rows.iter()) {
            let mut line = String::from("  ");
            for (i, (c, w)) in r.iter().zip(widths).enumerate() {
                if i + 1 == r.len() {
                    line.push_str(c);
                } else {
                    let _ = write!(line, "{c:<w$}  ");
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    Ok(out)
}

/// Lists and maps are explained through their element / value type.
fn element(mut c: Cursor<'_>) -> Cursor<'_> {
    // Bounded: a list of lists of maps … is at most a few levels in practice.
    for _ in 0..16 {
        if let Some(i) = c.list_items() {
            c = i;
        } else if let Some(v) = c.map_value() {
            c = v;
        } else {
            break;
        }
    }
    c
}
