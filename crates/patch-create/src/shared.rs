//! What the diff lends the other walks of this crate (conflict detection,
//! compose): indexed object access and the errors of the create engines.

use rustc_hash::FxHashMap;
use smpatch_patch_apply::{Error, ErrorKind, KindRule};
use smpatch_schema::{LookupError, TooDeep};
use smpatch_value::{render, Kind, Object, Path, Value};

/// Above this many members an object is indexed by a hash map.
const INDEX_THRESHOLD: usize = 16;

/// Keyed access to an object's members without quadratic scans.
pub(crate) enum Index<'a> {
    Small(Object<'a>),
    Hashed(FxHashMap<&'a str, Value<'a>>),
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
