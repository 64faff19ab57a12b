//! Warnings for strategic merge patch keys that look like a misspelled
//! directive (`$retainkeys`, `$setElementOrdr/containers`, `$Patch`).
//!
//! The Go reference merges a `$` key that is no directive as an ordinary
//! field (docs/DIVERGENCES.md, "Patches public `compose` refuses"), and so
//! does smpatch: the typo is stored in the object and the directive never
//! runs. The CLI keeps that result and says so on stderr.
//!
//! Must not: change the patch or the result, or fail the command.

use crate::kinds::edit_distance;
use smpatch_value::Value;

/// The directive names, as the patch format spells them
/// (<https://github.com/kubernetes/community/blob/master/contributors/devel/sig-api-machinery/strategic-merge-patch.md>);
/// the last two take the list's field after a slash.
const DIRECTIVES: [&str; 4] = [
    "$patch",
    "$retainKeys",
    "$setElementOrder",
    "$deleteFromPrimitiveList",
];

/// One suspicious key: its JSON pointer in the patch and what to say.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Suspect {
    pub pointer: String,
    pub message: String,
}

/// The keys of `patch` (at any depth) that look like a misspelled
/// directive, in document order. Walks with its own stack, so any depth the
/// parser accepted is fine.
pub(crate) fn suspects(patch: Value<'_>) -> Vec<Suspect> {
    let mut found = Vec::new();
    // (the member's key, its value, its pointer); the root has no key.
    let mut stack = vec![(None, patch, String::new())];
    while let Some((key, value, at)) = stack.pop() {
        if let Some(message) = key.and_then(check) {
            found.push(Suspect {
                pointer: at.clone(),
                message,
            });
        }
        let children: Vec<_> = match value {
            Value::Object(o) => o
                .members()
                .iter()
                .map(|m| (Some(m.key), m.value, format!("{at}/{}", escape(m.key))))
                .collect(),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| (None, *item, format!("{at}/{i}")))
                .collect(),
            _ => Vec::new(),
        };
        // Reversed, so that the stack pops them in document order.
        stack.extend(children.into_iter().rev());
    }
    found
}

/// What is wrong with `key`, when it looks like a directive but is none.
fn check(key: &str) -> Option<String> {
    if !key.starts_with('$') {
        return None;
    }
    let (head, field) = match key.split_once('/') {
        Some((h, f)) => (h, Some(f)),
        None => (key, None),
    };
    // A directive spelled right but used wrongly (`$setElementOrder`
    // without `/field`) is the engine's error, with its kind.
    if DIRECTIVES.contains(&head) {
        return None;
    }
    let takes_field = |d: &str| d == "$setElementOrder" || d == "$deleteFromPrimitiveList";
    let lower = head.to_ascii_lowercase();
    let (distance, d) = DIRECTIVES
        .iter()
        .map(|d| (edit_distance(&lower, &d.to_ascii_lowercase()), *d))
        .min()?;
    // A short head (`$path`, `$match`, `$patches`: fields a custom
    // resource may have) is a misspelling only when it differs from the
    // directive in case alone (`$Patch`); a longer one may be two edits
    // away when it is as long as the directive (`$retainkeys` with a
    // swapped pair), one otherwise (`$retainKey`).
    let allowed = if head.len() < 9 {
        0
    } else if lower.len() == d.len() {
        2
    } else {
        1
    };
    if distance > allowed {
        return None;
    }
    let meant = match field {
        Some(f) if takes_field(d) => format!("{d}/{f}"),
        _ => d.to_owned(),
    };
    Some(format!(
        "{key:?} is not a patch directive; did you mean {meant:?}? It is merged as an \
         ordinary field, as the Go reference does"
    ))
}

/// `key` as one JSON pointer token (RFC 6901).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests may unwrap
    use super::*;
    use smpatch_value::{parse_json, Arena, ParseOptions};

    fn run(text: &str) -> Vec<Suspect> {
        let arena = Arena::new();
        let v = parse_json(&arena, text.as_bytes(), &ParseOptions::default()).unwrap();
        suspects(v)
    }

    #[test]
    fn real_directives_and_fields_pass() {
        assert!(
            run(r##"{"spec":{"$retainKeys":["a"],"a":1,"$patch":"replace",
                "$setElementOrder/containers":[{"name":"a"}],
                "$deleteFromPrimitiveList/finalizers":["x"],
                "containers":[{"name":"a","$patch":"delete"}],
                "schema":{"$ref":"#/x","$schema":"y","$id":"z"}}}"##)
            .is_empty()
        );
    }

    #[test]
    fn misspellings_are_named_with_their_pointer_and_the_directive() {
        let found = run(
            r#"{"spec":{"$retainkeys":["a"],"items":[{"$Patch":"delete"}],
                "$setElementOrdr/containers":[],"$deleteFromPrimitiveLst/finalizers":["x"]}}"#,
        );
        let pointers: Vec<&str> = found.iter().map(|s| s.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "/spec/$retainkeys",
                "/spec/items/0/$Patch",
                "/spec/$setElementOrdr~1containers",
                "/spec/$deleteFromPrimitiveLst~1finalizers",
            ]
        );
        assert!(found[0].message.contains("did you mean \"$retainKeys\""));
        assert!(found[1].message.contains("did you mean \"$patch\""));
        assert!(found[2]
            .message
            .contains("did you mean \"$setElementOrder/containers\""));
        assert!(found[3]
            .message
            .contains("did you mean \"$deleteFromPrimitiveList/finalizers\""));
    }

    /// Short `$` fields of custom resources that are one or two edits from
    /// `$patch` are fields, not misspellings (no warning on every patch).
    #[test]
    fn short_dollar_fields_are_not_taken_for_directives() {
        assert!(run(r#"{"spec":{"$path":"/a","$patches":[1],"$pat":0,"$match":"x"}}"#).is_empty());
        // A long head one edit away still is.
        let found = run(r#"{"spec":{"$retainKey":["a"]}}"#);
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("did you mean \"$retainKeys\""));
    }
}
