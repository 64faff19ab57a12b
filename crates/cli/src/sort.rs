//! `--sort-keys`: object members in byte order of their keys, at every
//! level, as `kubectl -o json` and `-o yaml` print them (kubectl encodes
//! objects as Go maps, whose keys Go's encoders sort), so that the two
//! tools' output can be compared with `diff`.
//!
//! The walk recurses on document depth, which the parser and the engines
//! bound (`--max-depth`); the stack grows on demand like the engines' walks.

use smpatch_value::{Arena, Member, Value};

const STACK_RED_ZONE: usize = 64 * 1024;
const STACK_GROWTH: usize = 1024 * 1024;

/// `v` with the members of every object sorted by key (stable, so duplicate
/// keys keep their order).
pub(crate) fn sort_keys<'a>(arena: &'a Arena, v: Value<'a>) -> Value<'a> {
    stacker::maybe_grow(STACK_RED_ZONE, STACK_GROWTH, || match v {
        Value::Object(o) => {
            let mut members: Vec<Member<'a>> = o
                .members()
                .iter()
                .map(|m| Member {
                    key: m.key,
                    value: sort_keys(arena, m.value),
                })
                .collect();
            members.sort_by(|a, b| a.key.as_bytes().cmp(b.key.as_bytes()));
            Value::object_from_members(arena, &members)
        }
        Value::Array(items) => {
            let items: Vec<Value<'a>> = items.iter().map(|i| sort_keys(arena, *i)).collect();
            Value::array_from(arena, &items)
        }
        other => other,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use smpatch_value::{parse_json, to_go_json, ParseOptions};

    #[test]
    fn sorts_every_level_in_byte_order() {
        let arena = Arena::new();
        let v = parse_json(
            &arena,
            br#"{"b":1,"a":[{"z":1,"Z":2,"y":{"d":1,"c":2}}],"_":null,"aa":1.5}"#,
            &ParseOptions::default(),
        )
        .unwrap();
        assert_eq!(
            to_go_json(&sort_keys(&arena, v)),
            r#"{"_":null,"a":[{"Z":2,"y":{"c":2,"d":1},"z":1}],"aa":1.5,"b":1}"#
        );
    }
}
