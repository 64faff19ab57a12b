//! Writing the response object of one request: `{"id", "ok"}` (with
//! `"cleared"` after union normalization) or `{"id", "error"}` (with
//! `"violations"` for a validation error).

use crate::error::FacadeKind;
use crate::ops::Outcome;
use crate::Error;
use smpatch_value::{to_json_string, Arena, Value};

/// The response line of a request that succeeded.
pub(super) fn ok<'a>(arena: &'a Arena, id: Value<'a>, outcome: Outcome<'a>) -> String {
    let response = match outcome {
        Outcome::Normalized { value, cleared } => {
            let cleared: Vec<Value<'_>> = cleared
                .iter()
                .map(|p| Value::String(arena.alloc_str(p)))
                .collect();
            let cleared = Value::array_from(arena, &cleared);
            Value::object_from(arena, &[("id", id), ("ok", value), ("cleared", cleared)])
        }
        ok => Value::object_from(arena, &[("id", id), ("ok", ok.into_value())]),
    };
    to_json_string(&response)
}

/// The response line of a request that failed.
pub(super) fn error(arena: &Arena, id: Value<'_>, e: &Error) -> String {
    let mut members = vec![
        ("kind", Value::String(e.name())),
        ("path", Value::String(arena.alloc_str(e.path()))),
        ("message", Value::String(arena.alloc_str(e.message()))),
    ];
    if e.kind() == crate::ErrorKind::Facade(FacadeKind::Validation) {
        members.push(("violations", violations(arena, e.violations())));
    }
    let error = Value::object_from(arena, &members);
    let response = Value::object_from(arena, &[("id", id), ("error", error)]);
    to_json_string(&response)
}

/// Union violations as the protocol writes them: `[{"path", "rule",
/// "message"}]`, in the order found (a `validation` error's `violations`,
/// the `validate` op's answer).
pub(super) fn violations<'a>(arena: &'a Arena, found: &[crate::Violation]) -> Value<'a> {
    let items: Vec<Value<'a>> = found
        .iter()
        .map(|v| {
            Value::object_from(
                arena,
                &[
                    ("path", Value::String(arena.alloc_str(&v.path))),
                    ("rule", Value::String(v.rule.name())),
                    ("message", Value::String(arena.alloc_str(&v.message))),
                ],
            )
        })
        .collect();
    Value::array_from(arena, &items)
}
