//! Reading a request's `"options"` object into the engine options of its op:
//! unknown names and values of the wrong type are `invalid_request` at
//! `/options/NAME`.

use super::request::{invalid_at, pointer_token};
use crate::apply_flow::ApplyPatchType;
use crate::{ApplyOptions, CreateOptions, Error, UnionOptions};
use smpatch_value::Value;

/// The apply options, the union options when `normalize_unions` asks for
/// the server pipeline (`None` otherwise), and the patch type (`patch_type`:
/// a strategic merge patch or an RFC 7386 JSON merge patch). The union
/// options are those of the `normalize` op, by the same names and with the
/// same defaults; `max_depth` is one limit for the merge and the union pass.
/// A union option without `"normalize_unions": true` is `invalid_request`
/// at its path: it would change nothing.
pub(super) fn apply_options(
    options: Option<Value<'_>>,
) -> Result<(ApplyOptions, Option<UnionOptions>, ApplyPatchType), Error> {
    let mut o = ApplyOptions::default();
    let mut unions = UnionOptions::default();
    let mut union_key: Option<String> = None;
    let mut normalize_unions = false;
    let mut patch_type = ApplyPatchType::Strategic;
    set_options(options, APPLY_OPTIONS, |key, v| match key {
        "normalize_unions" => bool_option(&mut normalize_unions, v),
        "patch_type" => patch_type_option(&mut patch_type, v),
        "ratcheting" | "check_enums" | "non_discriminated_update" => {
            union_key.get_or_insert_with(|| key.to_owned());
            set_union_option(&mut unions, key, v)
        }
        _ => set_apply_option(&mut o, key, v),
    })?;
    if let (false, Some(key)) = (normalize_unions, union_key) {
        return Err(invalid_at(
            format!("/options/{}", pointer_token(&key)),
            format!(
                "option {key:?} is an option of the union pass; it needs \
                 \"normalize_unions\": true"
            ),
        ));
    }
    unions.max_depth = o.max_depth;
    Ok((o, normalize_unions.then_some(unions), patch_type))
}

/// The options of `create3`: the create options and the patch type.
pub(super) fn create3_options(
    options: Option<Value<'_>>,
) -> Result<(CreateOptions, ApplyPatchType), Error> {
    let mut o = CreateOptions::default();
    let mut patch_type = ApplyPatchType::Strategic;
    set_options(options, CREATE3_OPTIONS, |key, v| match key {
        "patch_type" => patch_type_option(&mut patch_type, v),
        _ => set_create_option(&mut o, key, v),
    })?;
    Ok((o, patch_type))
}

pub(super) fn union_options(options: Option<Value<'_>>) -> Result<UnionOptions, Error> {
    let mut o = UnionOptions::default();
    set_options(options, NORMALIZE_OPTIONS, |key, v| {
        set_union_option(&mut o, key, v)
    })?;
    Ok(o)
}

/// The options of the union pass (`UnionOptions`), by their Rust names:
/// those of the `normalize` op, and of `apply` with `normalize_unions`.
fn set_union_option(o: &mut UnionOptions, key: &str, v: Value<'_>) -> OptionSet {
    match key {
        "ratcheting" => bool_option(&mut o.ratcheting, v),
        "check_enums" => bool_option(&mut o.check_enums, v),
        "non_discriminated_update" => bool_option(&mut o.non_discriminated_update, v),
        "max_depth" => usize_option(&mut o.max_depth, v),
        _ => None,
    }
}

pub(super) fn create_options(options: Option<Value<'_>>) -> Result<CreateOptions, Error> {
    let mut o = CreateOptions::default();
    set_options(options, CREATE_OPTIONS, |key, v| {
        set_create_option(&mut o, key, v)
    })?;
    Ok(o)
}

/// The options of `compose` (Python's `compose`): `fix_quirks`,
/// `compound_keys` and `max_depth`. The ignore options of the create ops
/// filter a diff; composing two patches has none to filter, so they are
/// refused (they would change nothing).
pub(super) fn compose_options(options: Option<Value<'_>>) -> Result<CreateOptions, Error> {
    let mut o = CreateOptions::default();
    set_options(options, COMPOSE_OPTIONS, |key, v| match key {
        "ignore_changes_and_additions" | "ignore_deletions" => None,
        _ => set_create_option(&mut o, key, v),
    })?;
    Ok(o)
}

fn set_options(
    options: Option<Value<'_>>,
    known: &[&str],
    mut set: impl FnMut(&str, Value<'_>) -> OptionSet,
) -> Result<(), Error> {
    let obj = match options {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Object(o)) => o,
        Some(_) => return Err(invalid_at("/options", "options must be an object")),
    };
    for (key, value) in obj.iter() {
        let path = format!("/options/{}", pointer_token(key));
        match set(key, value) {
            Some(Ok(())) => {}
            Some(Err(expected)) => {
                return Err(invalid_at(
                    path,
                    format!("option {key:?} must be {expected}"),
                ))
            }
            None => {
                return Err(invalid_at(
                    path,
                    format!(
                        "unknown option {key:?} for this op; known: {}",
                        known.join(", ")
                    ),
                ))
            }
        }
    }
    Ok(())
}

/// `Some(Ok)` set, `Some(Err(expected))` wrong type, `None` unknown key.
type OptionSet = Option<Result<(), &'static str>>;

fn bool_option(field: &mut bool, v: Value<'_>) -> OptionSet {
    match v {
        Value::Bool(b) => {
            *field = b;
            Some(Ok(()))
        }
        _ => Some(Err("true or false")),
    }
}

/// `patch_type`: the names of `smpatch apply --type`.
fn patch_type_option(field: &mut ApplyPatchType, v: Value<'_>) -> OptionSet {
    match v.as_str().and_then(ApplyPatchType::from_name) {
        Some(t) => {
            *field = t;
            Some(Ok(()))
        }
        None => Some(Err("\"strategic\", \"merge\" or \"auto\"")),
    }
}

fn usize_option(field: &mut usize, v: Value<'_>) -> OptionSet {
    match v
        .as_number()
        .and_then(|n| n.as_u64())
        .and_then(|n| usize::try_from(n).ok())
    {
        Some(n) => {
            *field = n;
            Some(Ok(()))
        }
        None => Some(Err("a non-negative integer")),
    }
}

const APPLY_OPTIONS: &[&str] = &[
    "normalize_unions",
    "fix_quirks",
    "compound_keys",
    "reject_duplicate_keys",
    "max_depth",
    "patch_type",
    "ratcheting",
    "check_enums",
    "non_discriminated_update",
];
const NORMALIZE_OPTIONS: &[&str] = &[
    "ratcheting",
    "check_enums",
    "non_discriminated_update",
    "max_depth",
];
const CREATE_OPTIONS: &[&str] = &[
    "fix_quirks",
    "compound_keys",
    "ignore_changes_and_additions",
    "ignore_deletions",
    "max_depth",
];
const COMPOSE_OPTIONS: &[&str] = &["fix_quirks", "compound_keys", "max_depth"];
const CREATE3_OPTIONS: &[&str] = &[
    "fix_quirks",
    "compound_keys",
    "ignore_changes_and_additions",
    "ignore_deletions",
    "max_depth",
    "patch_type",
];

fn set_apply_option(o: &mut ApplyOptions, key: &str, v: Value<'_>) -> OptionSet {
    match key {
        "fix_quirks" => bool_option(&mut o.fix_quirks, v),
        "compound_keys" => bool_option(&mut o.compound_keys, v),
        "reject_duplicate_keys" => bool_option(&mut o.reject_duplicate_keys, v),
        "max_depth" => usize_option(&mut o.max_depth, v),
        _ => None,
    }
}

fn set_create_option(o: &mut CreateOptions, key: &str, v: Value<'_>) -> OptionSet {
    match key {
        "fix_quirks" => bool_option(&mut o.fix_quirks, v),
        "compound_keys" => bool_option(&mut o.compound_keys, v),
        "ignore_changes_and_additions" => bool_option(&mut o.ignore_changes_and_additions, v),
        "ignore_deletions" => bool_option(&mut o.ignore_deletions, v),
        "max_depth" => usize_option(&mut o.max_depth, v),
        _ => None,
    }
}
