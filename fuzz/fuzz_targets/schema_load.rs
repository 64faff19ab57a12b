//! Schema loading: arbitrary OpenAPI v2/v3 and CRD documents either fail with
//! a schema error or compile into a schema whose every type can be walked,
//! explained and used to merge a small document.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde_json::json;
use smpatch::{ApplyOptions, CreateOptions, Cursor, Schema, TypeRef};

fn walk(c: Cursor<'_>, budget: &mut usize, depth: u32) {
    if depth == 0 || *budget == 0 {
        return;
    }
    *budget -= 1;
    let _ = (
        c.kind(),
        c.type_name(),
        c.flags(),
        c.enum_values(),
        c.unions(),
    );
    if let Some(items) = c.list_items() {
        walk(items, budget, depth - 1);
    }
    if let Some(v) = c.map_value() {
        walk(v, budget, depth - 1);
    }
    for (name, _field) in c.fields().take(16) {
        if let Ok(f) = c.lookup_object(name) {
            let _ = f.meta.merge_key();
            walk(f.cursor, budget, depth - 1);
        }
        if let Ok(f) = c.lookup_list(name) {
            walk(f.cursor, budget, depth - 1);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(schema) = Schema::from_bytes(data, "fuzz.json") else {
        return;
    };
    let names: Vec<String> = schema
        .definition_names()
        .take(8)
        .map(str::to_owned)
        .collect();
    let original = json!({"a": {"b": [{"name": "x", "v": 1}], "c": [1, 2]}, "name": "n"});
    let modified = json!({"a": {"b": [{"name": "y"}, {"name": "x", "v": 2}], "c": [2]}});
    for name in names {
        let Some(c) = schema.cursor(&name) else {
            panic!("definition {name:?} is listed but has no cursor");
        };
        let mut budget = 256;
        walk(c, &mut budget, 6);
        let _ = smpatch_schema::explain(&schema, &name, None);
        let ty = TypeRef::Definition(name);
        if let Ok(p) = smpatch::create_two_way_json(
            &original,
            &modified,
            &schema,
            &ty,
            &CreateOptions::default(),
        ) {
            let _ = smpatch::apply_json(&original, &p, &schema, &ty, &ApplyOptions::default());
        }
        let _ = smpatch::apply_json(&original, &modified, &schema, &ty, &ApplyOptions::default());
    }
    let _ = schema.gvk_entries();
});
