//! The rules a patch must follow, each written once with its error: the
//! merge ([`crate::merge`]) and the patch check ([`crate::check`], used by
//! compose) both call these, so they refuse the same things with the same
//! kind and message.

use crate::directives::{key_role, KeyRole, PatchDirective, PATCH};
use crate::identity::{identity, IdError};
use crate::{Error, ErrorKind};
use smpatch_schema::KeySpec;
use smpatch_value::{render, Kind, Member, Value};

/// A broken rule, before its location is known.
#[derive(Clone, Debug)]
pub(crate) struct Problem {
    kind: ErrorKind,
    message: String,
}

impl Problem {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Problem {
            kind,
            message: message.into(),
        }
    }

    /// The error at `pointer`.
    pub(crate) fn at(self, pointer: String) -> Error {
        Error::new(self.kind, pointer, self.message)
    }
}

/// Longest rendering of a value put into a message.
const MESSAGE_VALUE_LIMIT: usize = 240;

fn cap(mut s: String) -> String {
    if s.len() > MESSAGE_VALUE_LIMIT {
        let mut end = MESSAGE_VALUE_LIMIT;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push('…');
    }
    s
}

/// Go `%v` of a value for messages, shortened.
pub(crate) fn brief(v: &Value<'_>) -> String {
    cap(render(v).into_owned())
}

/// Go `%v` of a list, for messages, shortened.
pub(crate) fn render_list(items: &[Value<'_>]) -> String {
    let mut out = String::from("[");
    for (i, v) in items.iter().enumerate() {
        if out.len() > MESSAGE_VALUE_LIMIT {
            out.push_str(&format!("… ({} more)", items.len() - i));
            break;
        }
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&render(v));
    }
    out.push(']');
    out
}

// ----- $patch -----------------------------------------------------------------

/// An object's `$patch` that is neither `replace` nor `delete`.
pub(crate) fn unknown_object_patch(d: &Value<'_>, obj: &Value<'_>) -> Problem {
    Problem::new(
        ErrorKind::UnknownPatchType,
        format!(
            "unknown patch type: {} in map: {}; an object's $patch must be \"replace\" or \"delete\"",
            brief(d),
            brief(obj)
        ),
    )
}

/// The `$patch` of an object: a [`PatchDirective`] (`merge` included: the
/// caller decides), or [`unknown_object_patch`].
#[inline]
pub(crate) fn object_patch(d: &Value<'_>, obj: &Value<'_>) -> Result<PatchDirective, Problem> {
    PatchDirective::parse(d).ok_or_else(|| unknown_object_patch(d, obj))
}

/// The `$patch` of a keyed-list element: `None` without one; `merge` and
/// unknown values are errors.
#[inline]
pub(crate) fn list_element_patch(e: &Value<'_>) -> Result<Option<PatchDirective>, Problem> {
    let Some(d) = e.get(PATCH) else {
        return Ok(None);
    };
    match PatchDirective::parse(&d) {
        Some(PatchDirective::Merge) => Err(Problem::new(
            ErrorKind::MergeListDirective,
            "merging lists cannot yet be specified in the patch; remove the {\"$patch\":\"merge\"} element (merging is the default)",
        )),
        Some(other) => Ok(Some(other)),
        None => Err(Problem::new(
            ErrorKind::UnknownPatchType,
            format!(
                "unknown patch type: {} in map: {}; a list element's $patch must be \"replace\" or \"delete\"",
                brief(&d),
                brief(e)
            ),
        )),
    }
}

// ----- element kinds ----------------------------------------------------------

/// How [`element_kind`] reads a list.
#[derive(Clone, Copy, Debug)]
pub struct KindRule {
    /// A null anywhere is [`ErrorKind::NullElement`] (apply, quirk Q14
    /// fixed); otherwise only a null examined first is, and a later one is a
    /// kind change (the reference's `sliceElementType`, used by create).
    pub null_anywhere: bool,
    /// Integers and floats count as one kind (apply with `fix_quirks`).
    pub numbers_one_kind: bool,
}

/// The reference's `sliceElementType` over `lists` in turn: the kind every
/// element shares, `None` when there are none. A null is
/// [`ErrorKind::NullElement`], a list examined first
/// [`ErrorKind::ListOfLists`], a kind change [`ErrorKind::MixedElementTypes`].
/// The one element-kind check of apply, create and compose.
#[inline]
pub fn element_kind(lists: &[&[Value<'_>]], rule: KindRule) -> Result<Option<Kind>, Error> {
    element_kind_problem(lists, rule).map_err(|p| p.at(String::new()))
}

pub(crate) fn element_kind_problem(
    lists: &[&[Value<'_>]],
    rule: KindRule,
) -> Result<Option<Kind>, Problem> {
    let norm = |k: Kind| {
        if rule.numbers_one_kind && k == Kind::Float {
            Kind::Int
        } else {
            k
        }
    };
    let mut first: Option<Kind> = None;
    for list in lists {
        for v in list.iter() {
            let k = v.kind();
            if k == Kind::Null && (rule.null_anywhere || first.is_none()) {
                return Err(Problem::new(
                    ErrorKind::NullElement,
                    "a merge list must not contain null elements; remove the null",
                ));
            }
            match first {
                None => {
                    if k == Kind::Array {
                        return Err(Problem::new(
                            ErrorKind::ListOfLists,
                            "lists of lists are not supported in merge lists",
                        ));
                    }
                    first = Some(k);
                }
                Some(f) if norm(f) != norm(k) => {
                    let parts: Vec<String> = lists.iter().map(|l| render_list(l)).collect();
                    return Err(Problem::new(
                        ErrorKind::MixedElementTypes,
                        format!(
                            "list element types are not identical: [{}]; a merge list must hold elements of one kind ({} and {} found)",
                            parts.join(" "),
                            f.name(),
                            k.name()
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
    }
    Ok(first)
}

// ----- identities -------------------------------------------------------------

/// An element without identity in a keyed list. `what` names the element in
/// the message (`patch element`, `live element`, …).
pub(crate) fn id_problem(e: IdError<'_>, elem: &Value<'_>, what: &str) -> Problem {
    match e {
        IdError::NotObject => Problem::new(
            ErrorKind::ExpectedObject,
            format!(
                "{what} must be an object in a keyed list: expected a map[string]interface {{}}, but received a {}",
                elem.kind().name()
            ),
        ),
        IdError::Missing(k) => Problem::new(
            ErrorKind::MissingMergeKey,
            format!(
                "{what} has no merge key {k:?} (map: {} does not contain declared merge key: {k}); add {k:?} to it",
                brief(elem)
            ),
        ),
    }
}

/// A list of objects that merges without a merge key.
pub(crate) fn no_merge_key(type_name: &str) -> Problem {
    Problem::new(
        ErrorKind::NoMergeKey,
        format!(
            "cannot merge lists without merge key for {type_name}; the schema declares no x-kubernetes-patch-merge-key for this list of objects"
        ),
    )
}

// ----- $retainKeys ------------------------------------------------------------

/// The `$retainKeys` value as a list.
pub(crate) fn retain_keys_list<'a>(rk: &Value<'a>) -> Result<&'a [Value<'a>], Problem> {
    rk.as_array().ok_or_else(|| {
        Problem::new(
            ErrorKind::InvalidRetainKeys,
            format!(
                "invalid patch format of retainKeys: the value must be a list of field names, not a {}",
                rk.kind().name()
            ),
        )
    })
}

/// True for the members `$retainKeys` need not list: null values and the
/// directives `$retainKeys`, `$setElementOrder/..`, `$deleteFromPrimitiveList/..`.
#[inline]
pub(crate) fn retain_exempt(m: &Member<'_>) -> bool {
    m.value.is_null()
        || matches!(
            key_role(m.key),
            KeyRole::RetainKeys | KeyRole::SetElementOrder(_) | KeyRole::DeleteFromPrimitiveList(_)
        )
}

/// A field the patch sets that `$retainKeys` does not list.
pub(crate) fn not_retained(key: &str) -> Problem {
    Problem::new(
        ErrorKind::InvalidRetainKeys,
        format!(
            "invalid patch format of retainKeys: the patch sets {key:?} but $retainKeys does not list it; add it to $retainKeys"
        ),
    )
}

// ----- $setElementOrder and $deleteFromPrimitiveList --------------------------

/// `$setElementOrder` not followed by `/<field>`.
pub(crate) fn bad_order_key() -> Problem {
    Problem::new(
        ErrorKind::InvalidSetElementOrder,
        "invalid patch format of setElementOrder list: the key must be $setElementOrder/<field>",
    )
}

/// `$deleteFromPrimitiveList` not followed by `/<field>`.
pub(crate) fn bad_delete_key() -> Problem {
    Problem::new(
        ErrorKind::InvalidDeleteFromPrimitiveList,
        "invalid patch format of primitive list: the key must be $deleteFromPrimitiveList/<field>",
    )
}

/// A deletion list that is not a list (checked with `fix_quirks`, Q11).
pub(crate) fn delete_list<'a>(v: &Value<'a>) -> Result<&'a [Value<'a>], Problem> {
    v.as_array().ok_or_else(|| {
        Problem::new(
            ErrorKind::InvalidDeleteFromPrimitiveList,
            format!(
                "invalid patch format of primitive list: the value must be a list of values to delete, not a {}",
                v.kind().name()
            ),
        )
    })
}

/// A `$deleteFromPrimitiveList` of objects (refused with `fix_quirks`).
pub(crate) fn delete_objects() -> Problem {
    Problem::new(
        ErrorKind::InvalidDeleteFromPrimitiveList,
        "$deleteFromPrimitiveList only deletes scalars, but this list holds objects; use {\"$patch\":\"delete\"} elements in the list instead",
    )
}

/// A `$setElementOrder` value as a list.
pub(crate) fn order_list<'a>(sv: &Value<'a>) -> Result<&'a [Value<'a>], Problem> {
    sv.as_array().ok_or_else(|| {
        Problem::new(
            ErrorKind::ExpectedList,
            format!(
                "expected a []interface {{}}, but received a {}: $setElementOrder must hold a list",
                sv.kind().name()
            ),
        )
    })
}

/// The field a `$setElementOrder` orders, as a list (absent: `None`).
pub(crate) fn ordered_list<'a>(v: Option<Value<'a>>) -> Result<Option<&'a [Value<'a>]>, Problem> {
    match v {
        None => Ok(None),
        Some(Value::Array(a)) => Ok(Some(a)),
        Some(other) => Err(Problem::new(
            ErrorKind::ExpectedList,
            format!(
                "expected a []interface {{}}, but received a {}: the field ordered by $setElementOrder must be a list",
                other.kind().name()
            ),
        )),
    }
}

/// The patch list must follow the order list (the reference's
/// `validatePatchWithSetOrderList`): its
/// elements (but `$patch` ones) appear in the order list in the same
/// relative order.
pub(crate) fn follows_order<'a>(
    plist: &'a [Value<'a>],
    order: &'a [Value<'a>],
    keys: KeySpec<'_>,
) -> Result<(), Problem> {
    if order.is_empty() || plist.is_empty() {
        return Ok(());
    }
    let mut non_delete: Vec<Value<'a>> = Vec::with_capacity(plist.len());
    if keys.is_keyed() {
        for v in plist {
            let Some(o) = v.as_object() else {
                return Err(id_problem(IdError::NotObject, v, "patch list element"));
            };
            if o.get(PATCH).and_then(|d| d.as_str()) != Some(PatchDirective::Delete.as_str()) {
                non_delete.push(*v);
            }
        }
    } else {
        non_delete.extend_from_slice(plist);
    }
    let (mut pi, mut si) = (0, 0);
    while pi < non_delete.len() && si < order.len() {
        let pv = non_delete[pi];
        if pv.as_object().is_some_and(|o| o.contains_key(PATCH)) {
            pi += 1;
            continue;
        }
        let equal = match keys {
            // `deep_eq` without its work stack for scalars.
            KeySpec::Value => crate::identity::key_eq(&pv, &order[si]),
            _ => {
                let a = identity(pv, keys).map_err(|e| id_problem(e, &pv, "patch list element"))?;
                let b = identity(order[si], keys)
                    .map_err(|e| id_problem(e, &order[si], "$setElementOrder element"))?;
                a == b
            }
        };
        if equal {
            pi += 1;
        }
        si += 1;
    }
    if pi < non_delete.len() && si >= order.len() {
        return Err(Problem::new(
            ErrorKind::OrderMismatch,
            format!(
                "The order in patch list:\n{}\n doesn't match $setElementOrder list:\n{}\n; list the patch elements in $setElementOrder in the same relative order",
                render_list(plist),
                render_list(order)
            ),
        ));
    }
    Ok(())
}
