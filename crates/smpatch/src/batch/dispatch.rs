//! The per-op dispatch: the op name, the [`Op`] it builds from the request,
//! the members it reads, and the run through [`crate::ops`].

use super::options::{
    apply_options, compose_options, create3_options, create_options, union_options,
};
use super::request::{check_members, document, invalid, invalid_at, schema_choice, SchemaChoice};
use super::SchemaCache;
use crate::apply_flow::ApplyPatchType;
use crate::input::parse_options;
use crate::ops::{self, Op, Outcome};
use crate::unions::has_document;
use crate::{Error, TypeRef};
use smpatch_schema::Schema;
use smpatch_value::{Arena, Value};

/// The batch ops. Adding one: a variant, its name in [`OpName::parse`] and
/// [`OP_NAMES`], and an arm in [`OpName::op`] building the [`Op`] it runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OpName {
    Apply,
    Create2,
    Create3,
    Conflicts,
    Compose,
    Normalize,
    Validate,
    Fields,
    Extract,
    Owners,
}

const OP_NAMES: &str =
    "apply, create2, create3, conflicts, compose, normalize, validate, fields, extract or owners";

impl OpName {
    fn parse(name: &str) -> Option<OpName> {
        Some(match name {
            "apply" => OpName::Apply,
            "create2" => OpName::Create2,
            "create3" => OpName::Create3,
            "conflicts" => OpName::Conflicts,
            "compose" => OpName::Compose,
            "normalize" => OpName::Normalize,
            "validate" => OpName::Validate,
            "fields" => OpName::Fields,
            "extract" => OpName::Extract,
            "owners" => OpName::Owners,
            _ => return None,
        })
    }

    /// The [`Op`] this request runs, built from its options, and the patch
    /// type its `options.patch_type` asks for (`apply` and `create3`; the
    /// op is the strategic one until [`run`] resolves the type).
    fn op(self, request: Value<'_>) -> Result<(Op, ApplyPatchType), Error> {
        let options = request.get("options");
        let mut patch_type = ApplyPatchType::Strategic;
        let op = match self {
            OpName::Apply => {
                let (apply, unions, ty) = apply_options(options)?;
                patch_type = ty;
                if unions.is_some() && ty != ApplyPatchType::Strategic {
                    return Err(invalid_at(
                        "/options/patch_type",
                        "normalize_unions merges a strategic merge patch; leave patch_type \
                         out (or \"strategic\") with it",
                    ));
                }
                match unions {
                    Some(unions) => Op::ServerApply { apply, unions },
                    None => Op::Apply(apply),
                }
            }
            OpName::Create2 => Op::Create2(create_options(options)?),
            OpName::Create3 => {
                let (options, ty) = create3_options(options)?;
                patch_type = ty;
                Op::Create3 {
                    options,
                    overwrite: match request.get("overwrite") {
                        None | Some(Value::Null) => true,
                        Some(Value::Bool(b)) => b,
                        Some(_) => {
                            return Err(invalid_at("/overwrite", "overwrite must be true or false"))
                        }
                    },
                }
            }
            OpName::Conflicts => Op::Conflicts(create_options(options)?),
            OpName::Compose => Op::Compose(compose_options(options)?),
            OpName::Normalize | OpName::Validate => {
                if !has_document(request, "new") {
                    let name = if self == OpName::Validate {
                        "validate"
                    } else {
                        "normalize"
                    };
                    return Err(invalid(format!(
                        "the {name} op needs \"new\" (and optionally \"old\")"
                    )));
                }
                Op::Normalize {
                    options: union_options(options)?,
                    create: !has_document(request, "old"),
                }
            }
            OpName::Fields => crate::fields::batch_fields(request)?,
            OpName::Extract => crate::fields::batch_extract(request)?,
            OpName::Owners => crate::fields::batch_owners(request)?,
        };
        Ok((op, patch_type))
    }

    /// Request members this op reads besides `id`, `op`, `schema`, `options`
    /// and its documents.
    fn extra_members(self) -> &'static [&'static str] {
        match self {
            OpName::Create3 => &["overwrite"],
            OpName::Extract => &["manager", "subresource"],
            _ => &[],
        }
    }
}

/// Runs one request: its op, members, schema choice and documents.
/// `limit` is the session's depth limit (`smpatch batch --max-depth`): the
/// request's `max_depth` when its options give none, and the most they may
/// give.
pub(super) fn run<'a>(
    arena: &'a Arena,
    cache: &mut SchemaCache,
    request: Value<'a>,
    limit: Option<usize>,
) -> Result<Outcome<'a>, Error> {
    let name = match request.get("op") {
        Some(Value::String(name)) => OpName::parse(name).ok_or_else(|| {
            invalid_at("/op", format!("unknown op {name:?}; expected {OP_NAMES}"))
        })?,
        Some(_) => return Err(invalid_at("/op", "op must be a string")),
        None => return Err(invalid("the request has no \"op\"")),
    };
    let (mut op, patch_type) = name.op(request)?;
    if let Some(limit) = limit {
        let asked = request
            .get("options")
            .and_then(|o| o.get("max_depth"))
            .is_some();
        if !asked {
            op.set_max_depth(limit);
        } else if op.max_depth() > limit {
            return Err(invalid_at(
                "/options/max_depth",
                format!(
                    "max_depth {} is above this session's limit of {limit} \
                     (smpatch batch --max-depth)",
                    op.max_depth()
                ),
            ));
        }
    }
    check_members(request, &op, name.extra_members())?;
    if name == OpName::Owners && request.get("schema").is_some() {
        // The protocol's rule: a member that would change nothing is refused.
        return Err(invalid_at(
            "/schema",
            "the owners op reads managedFields alone and takes no schema; leave \"schema\" out",
        ));
    }
    let parse = parse_options(op.max_depth());
    if name == OpName::Owners {
        let object = document(arena, request, "object", op.empty(), &parse)?;
        return crate::fields::owners_checked(arena, object, op.max_depth())
            .map(Outcome::Document)
            .map_err(|e| e.with_prefix("/object"));
    }
    let choice = schema_choice(cache, request.get("schema"))?;
    let docs = op
        .roles()
        .iter()
        .map(|role| document(arena, request, role, op.empty(), &parse))
        .collect::<Result<Vec<_>, _>>()?;
    let op = op.with_patch_type(patch_type, &docs);
    let embedded;
    let (schemas, ty): (Vec<&Schema>, TypeRef) = match &choice {
        SchemaChoice::File(s, Some(def)) => (vec![&**s], TypeRef::Definition(def.clone())),
        SchemaChoice::File(s, None) => (vec![&**s], TypeRef::Detect),
        SchemaChoice::Builtin(name) => {
            embedded = crate::embedded_schema()?;
            (vec![embedded], TypeRef::Gvk(name.clone()))
        }
        SchemaChoice::None => (Vec::new(), TypeRef::Schemaless),
        SchemaChoice::Detect => {
            embedded = crate::embedded_schema()?;
            (vec![embedded], TypeRef::Detect)
        }
    };
    let cursor = ops::resolve_type(&op, &schemas, &ty, &docs)
        .map_err(|e| unknown_type_hint(e.with_prefix("/schema")))?;
    if name == OpName::Validate {
        return validate(arena, &op, &docs, cursor);
    }
    let out = ops::execute(arena, &op, &docs, cursor);
    if matches!(name, OpName::Fields | OpName::Extract) {
        // Errors of the field-set ops point into the request's `object`.
        return out.map_err(|e| e.with_prefix("/object"));
    }
    out
}

/// Op `validate` (the `normalize` op's documents and options, run as
/// `smpatch validate` and Python's `validate`): every union and enum
/// violation of `new` as written, judged against `old` (absent: `new` is
/// being created), nothing normalized; answers the list of
/// `{"path", "rule", "message"}` objects, empty when valid.
fn validate<'a>(
    arena: &'a Arena,
    op: &Op,
    docs: &[Value<'a>],
    cursor: smpatch_schema::Cursor<'_>,
) -> Result<Outcome<'a>, Error> {
    let Op::Normalize { options, create } = op else {
        return Err(invalid("the validate op runs as normalize"));
    };
    let (new, old) = match docs {
        [new, old] => (*new, (!*create).then_some(*old)),
        [new] => (*new, None),
        _ => return Err(invalid("the validate op needs \"new\"")),
    };
    let found = crate::validate_unions(old, new, cursor, options)?;
    Ok(Outcome::Document(super::respond::violations(arena, &found)))
}

/// An `unknown_type` error in the protocol's words: the request's
/// `"schema"` member that fixes it (the library's message for a document
/// without apiVersion/kind names the Rust `TypeRef` forms instead).
fn unknown_type_hint(e: Error) -> Error {
    if e.name() != "unknown_type" {
        return e;
    }
    const MEMBERS: &str = "{\"builtin\": \"apps/v1/Deployment\"} names a built-in type, \
        {\"file\": PATH, \"definition\": NAME} a type of a CRD or OpenAPI document, \
        {\"none\": true} merges without a schema";
    let message = if e.is_untyped_document() {
        format!(
            "{}; add them, or name the type in the request's \"schema\": {MEMBERS}",
            Error::UNTYPED_DOCUMENT
        )
    } else {
        format!("{} (the request's \"schema\": {MEMBERS})", e.message())
    };
    e.with_message(message)
}
