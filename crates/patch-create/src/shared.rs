//! What the diff lends the other walks of this crate (conflict detection,
//! compose): indexed object access and the errors of the create engines.

use smpatch_patch_apply::{Error, ErrorKind, KindRule};
use smpatch_schema::{LookupError, TooDeep};
use smpatch_value::hashing::HashMap;
use smpatch_value::{render, Arena, Kind, Member, Object, Path, Value};

/// Above this many members an object is indexed by a hash map.
const INDEX_THRESHOLD: usize = 16;

/// Keyed access to an object's members without quadratic scans.
pub(crate) enum Index<'a> {
    Small(Object<'a>),
    Hashed(HashMap<&'a str, Value<'a>>),
}

impl<'a> Index<'a> {
    pub(crate) fn new(o: Object<'a>) -> Self {
        if o.len() <= INDEX_THRESHOLD {
            Index::Small(o)
        } else {
            Index::Hashed(o.iter().collect())
        }
    }

    pub(crate) fn get(&self, k: &str) -> Option<Value<'a>> {
        match self {
            Index::Small(o) => o.get(k),
            Index::Hashed(m) => m.get(k).copied(),
        }
    }

    pub(crate) fn contains(&self, k: &str) -> bool {
        match self {
            Index::Small(o) => o.contains_key(k),
            Index::Hashed(m) => m.contains_key(k),
        }
    }
}

/// The merge-key member of a keyed-list element: the last member named
/// `key`, the one `Object::get` reads.
/// A reference: copying the member out here measured slower (a store
/// forwarding stall on the copy, in the per-element loops of `diff3`).
#[inline]
pub(crate) fn key_member<'a>(obj: &Object<'a>, key: &str) -> Option<&'a Member<'a>> {
    obj.members().iter().rev().find(|m| m.key == key)
}

/// The `$setElementOrder` list of a keyed list with one merge key: one
/// object `{key: value}` per element, whose member is the element's own key
/// member (not a copy: one `Value` per element is all it writes).
pub(crate) fn order_list_of_members<'a>(
    arena: &'a Arena,
    key_members: impl ExactSizeIterator<Item = &'a Member<'a>>,
) -> Value<'a> {
    Value::Array(arena.alloc_slice_fill_iter(
        key_members.map(|mem| Value::Object(Object::from_members(std::slice::from_ref(mem)))),
    ))
}

/// Sets the patch's `$retainKeys` to `fields`, replacing one the new
/// object carried as an ordinary member: the reference assigns the directive
/// into its patch map last, so a patch holds one `$retainKeys`, the built one.
pub(crate) fn set_retain_keys<'a>(
    arena: &'a Arena,
    patch: &mut Vec<Member<'a>>,
    fields: &[Value<'a>],
) {
    patch.retain(|m| m.key != smpatch_patch_apply::directives::RETAIN_KEYS);
    patch.push(smpatch_patch_apply::directives::retain_keys_member(
        arena, fields,
    ));
}

/// Error for a value deeper than the limit.
pub(crate) fn too_deep(e: TooDeep) -> Error {
    Error::new(
        ErrorKind::TooDeep,
        e.pointer,
        format!(
            "the document is nested deeper than the limit of {} levels",
            e.limit
        ),
    )
}

/// Error for a failed schema lookup.
pub(crate) fn lookup_error(path: &Path<'_>, e: &LookupError) -> Error {
    Error::new(ErrorKind::SchemaLookup, path.pointer(), e.to_string())
}

/// The element kind of a merge list as the reference's `sliceElementType`
/// reads `first` then `second` (the shared check of the apply crate; only a
/// null examined first is [`ErrorKind::NullElement`], integers and floats
/// differ).
pub(crate) fn element_kind(
    first: &[Value<'_>],
    second: &[Value<'_>],
    path: &Path<'_>,
) -> Result<Option<Kind>, Error> {
    let rule = KindRule {
        null_anywhere: false,
        numbers_one_kind: false,
    };
    smpatch_patch_apply::element_kind(&[first, second], rule).map_err(|e| e.at(path.pointer()))
}

/// Error for an element lacking a merge key.
pub(crate) fn missing_key(path: &Path<'_>, elem: &Value<'_>, key: &str) -> Error {
    let shown = render(elem);
    let shown: String = shown.chars().take(200).collect();
    Error::new(
        ErrorKind::MissingMergeKey,
        path.pointer(),
        format!("map: {shown} does not contain declared merge key: {key}"),
    )
}

/// The reference's `deduplicateScalars`, reproduced exactly: for each
/// position `i` in turn, every later element equal to `s[i]` (strict
/// equality: `1`, `1.0` and `"1"` differ) is overwritten by the current last
/// element, the length shrinks by one, and the element moved in is examined
/// again. The reference scans pairwise (quadratic); here each distinct value
/// keeps an ordered set of its current positions, so the next duplicate is a
/// set lookup and the whole pass is O(n log n) with the same moves.
///
/// Returns the de-duplicated length. `s` keeps the whole backing array:
/// positions past the length hold what the reference leaves there.
pub(crate) fn go_dedup<'a, T: Copy>(s: &mut [T], value: impl Fn(T) -> Value<'a>) -> usize {
    use std::collections::BTreeSet;
    let mut ids: HashMap<Value<'a>, usize> = HashMap::default();
    let mut group: Vec<usize> = Vec::with_capacity(s.len());
    let mut positions: Vec<BTreeSet<usize>> = Vec::new();
    for (p, &t) in s.iter().enumerate() {
        let next = positions.len();
        let g = *ids.entry(value(t)).or_insert(next);
        if g == next {
            positions.push(BTreeSet::new());
        }
        positions[g].insert(p);
        group.push(g);
    }
    if positions.len() == s.len() {
        return s.len();
    }
    let mut len = s.len();
    let mut i = 0;
    while i + 1 < len {
        let g = group[i];
        while let Some(&j) = positions[g].range(i + 1..len).next() {
            let last = len - 1;
            positions[g].remove(&j);
            if j != last {
                let lg = group[last];
                positions[lg].remove(&last);
                positions[lg].insert(j);
                group[j] = lg;
                s[j] = s[last];
            }
            len -= 1;
        }
        i += 1;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::go_dedup;
    use proptest::prelude::*;
    use smpatch_value::{parse_json, Arena, ParseOptions, Value};

    /// The reference's pairwise loop, as written there.
    fn quadratic(s: &mut [usize], l: &[Value<'_>]) -> usize {
        let mut len = s.len();
        let mut i = 0;
        while i + 1 < len {
            let mut j = i + 1;
            while j < len {
                if l[s[i]].deep_eq(&l[s[j]]) {
                    s[j] = s[len - 1];
                    len -= 1;
                } else {
                    j += 1;
                }
            }
            i += 1;
        }
        len
    }

    proptest! {
        /// Same moves as the reference: the same kept prefix and the same
        /// backing array, for lists full of duplicates of mixed kinds.
        #[test]
        fn go_dedup_matches_the_reference_loop(
            items in proptest::collection::vec(0u8..12, 0..200)
        ) {
            let arena = Arena::new();
            let text: Vec<String> = items
                .iter()
                .map(|&k| match k % 3 {
                    0 => format!("{}", k / 3),
                    1 => format!("{}.0", k / 3),
                    _ => format!("\"{}\"", k / 3),
                })
                .collect();
            let doc = format!("[{}]", text.join(","));
            let v = parse_json(&arena, doc.as_bytes(), &ParseOptions::default()).unwrap();
            let l = v.as_array().unwrap();
            let mut fast: Vec<usize> = (0..l.len()).collect();
            let mut slow = fast.clone();
            let fast_len = go_dedup(&mut fast, |k| l[k]);
            let slow_len = quadratic(&mut slow, l);
            prop_assert_eq!(fast_len, slow_len);
            prop_assert_eq!(fast, slow);
        }
    }
}
