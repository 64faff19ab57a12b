//! FieldsV1 JSON: the canonical writer and the reader (docs/FIELDSETS.md).
//!
//! Both readers (the streaming one over bytes and the one over a parsed
//! [`smpatch_value::Value`]) track where they are with the workspace's one
//! path type, [`smpatch_value::Path`], built on the call stack at no cost.
//! Their errors, however, do not print it as a JSON pointer: they name the
//! offending place as FieldsV1 path elements joined by `.` (`f:spec.i: 1`),
//! which is how the reference reports a bad FieldsV1 document and what a
//! reader of managedFields sees; [`render`] writes that form.

use std::cell::RefCell;
use std::fmt;

use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, Visitor};

use crate::error::{Error, ErrorKind};
use crate::pe::{write_escaped, write_string, PathElement};
use crate::set::FieldSet;
use smpatch_value::{Path, Step};

impl FieldSet {
    /// The canonical FieldsV1 bytes: entries in path-element order, `".":{}`
    /// first in the object of a node that is a member and has paths below
    /// it, no whitespace. The empty set is `{}`.
    pub fn to_json(&self) -> String {
        // About 16 bytes per path (`"f:name":{}` and the separators);
        // counting them is cheap next to growing the buffer repeatedly.
        let mut out = String::with_capacity(self.len().saturating_mul(16).max(2));
        out.push('{');
        self.write_body(&mut out, false);
        out.push('}');
        out
    }

    fn write_body(&self, out: &mut String, include_self: bool) {
        let mut first = true;
        let mut sep = |out: &mut String| {
            if !std::mem::take(&mut first) {
                out.push(',');
            }
        };
        if include_self && !self.is_empty() {
            sep(out);
            out.push_str("\".\":{}");
        }
        let mut key = String::new();
        for e in self.entries() {
            sep(out);
            if let PathElement::Field(name) = e.element {
                // `"f:` + the escaped name: the common case, no copy.
                out.push_str("\"f:");
                write_escaped(out, name);
                out.push('"');
            } else {
                key.clear();
                e.element.write(&mut key);
                write_string(out, &key, false);
            }
            out.push_str(":{");
            if let Some(ch) = e.below {
                ch.write_body(out, e.member);
            }
            out.push('}');
        }
    }

    /// The canonical FieldsV1 JSON as a `serde_json` value, built straight
    /// from the set: the value [`FieldSet::to_json`] parses to, members in
    /// canonical order (this crate enables serde_json's `preserve_order`).
    ///
    /// ```
    /// use smpatch_fieldsets::FieldSet;
    /// let s = FieldSet::from_json(br#"{"f:b":{},"f:a":{".":{},"f:x":{}}}"#).unwrap();
    /// let v = s.to_serde();
    /// assert_eq!(serde_json::to_string(&v).unwrap(), s.to_json());
    /// ```
    pub fn to_serde(&self) -> serde_json::Value {
        serde_json::Value::Object(self.serde_body(false))
    }

    fn serde_body(&self, include_self: bool) -> serde_json::Map<String, serde_json::Value> {
        let (lo, _) = self.entries().size_hint();
        let mut map = serde_json::Map::with_capacity(lo + usize::from(include_self));
        if include_self && !self.is_empty() {
            map.insert(".".to_owned(), empty_object());
        }
        for e in self.entries() {
            let mut key = String::new();
            e.element.write(&mut key);
            let v = match e.below {
                Some(ch) => serde_json::Value::Object(ch.serde_body(e.member)),
                None => empty_object(),
            };
            map.insert(key, v);
        }
        map
    }

    /// Reads FieldsV1 JSON (any member order and whitespace; escapes
    /// decoded; `null` is the empty set; a `"."` entry marks its node a
    /// member; elements of an unknown kind are dropped with their subtree; a
    /// key repeated in one object contributes both subtrees).
    ///
    /// Errors ([`ErrorKind::InvalidFieldsV1`]) name the offending path
    /// element: a key that is not a path element, a value that is not an
    /// object, invalid JSON, trailing data, nesting beyond [`crate::MAX_SET_DEPTH`] levels.
    ///
    /// ```
    /// use smpatch_fieldsets::FieldSet;
    /// let s = FieldSet::from_json(br#"{"f:b":{},"f:a":{".":{},"f:x":{}}}"#).unwrap();
    /// assert_eq!(s.to_json(), r#"{"f:a":{".":{},"f:x":{}},"f:b":{}}"#);
    /// let e = FieldSet::from_json(br#"{"f:spec":{"i: 1":{}}}"#).unwrap_err();
    /// assert_eq!(e.path(), "f:spec.i: 1");
    /// ```
    pub fn from_json(bytes: &[u8]) -> Result<FieldSet, Error> {
        let failed_at: RefCell<Option<String>> = RefCell::new(None);
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let seed = NodeSeed {
            at: &Path::Root,
            failed_at: &failed_at,
        };
        let result = seed.deserialize(&mut de).and_then(|r| de.end().map(|()| r));
        match result {
            Ok((set, _)) => Ok(set),
            // serde_json stops at 128 levels, while sets reach
            // `MAX_SET_DEPTH` (`fields_of` writes them that deep): read such
            // a document through the value parser, bounded there. (A key
            // repeated in one object then keeps its last subtree only.)
            Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
                let arena = smpatch_value::Arena::new();
                let opts = smpatch_value::ParseOptions::default()
                    .with_max_depth(crate::MAX_SET_DEPTH + 1)
                    .with_duplicate_keys(smpatch_value::DuplicateKeys::LastWins);
                match smpatch_value::parse_json(&arena, bytes, &opts) {
                    Ok(v) => FieldSet::from_value(&v),
                    Err(pe) => Err(Error::new(
                        ErrorKind::InvalidFieldsV1,
                        dotted(&pe.path),
                        format!(
                            "recursion limit exceeded: nesting deeper than {} levels ({pe})",
                            crate::MAX_SET_DEPTH
                        ),
                    )),
                }
            }
            Err(e) => {
                let path = failed_at.borrow_mut().take().unwrap_or_default();
                let msg = if e.is_eof() && bytes.iter().all(u8::is_ascii_whitespace) {
                    "expected a FieldsV1 object or null, found empty input".to_owned()
                } else if e.to_string().starts_with("trailing characters") {
                    format!("unexpected trailing data after JSON object ({e})")
                } else {
                    e.to_string()
                };
                Err(Error::new(ErrorKind::InvalidFieldsV1, path, msg))
            }
        }
    }

    /// [`FieldSet::from_json`] of an already parsed value (for example a
    /// `fieldsV1` member read from YAML).
    pub fn from_serde(v: &serde_json::Value) -> Result<FieldSet, Error> {
        match serde_json::to_vec(v) {
            Ok(bytes) => FieldSet::from_json(&bytes),
            Err(e) => Err(Error::new(ErrorKind::InvalidFieldsV1, "", e.to_string())),
        }
    }
}

fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(serde_json::Map::new())
}

/// A JSON pointer into a FieldsV1 document as its keys joined by `.` (the
/// form [`render`] writes).
fn dotted(pointer: &str) -> String {
    pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

/// The place `at` (then the key `last`, if any) as FieldsV1 path elements
/// joined by `.`: every step of a FieldsV1 document is an object key.
fn render(at: &Path<'_>, last: Option<&str>) -> String {
    let mut keys: Vec<String> = at
        .steps()
        .into_iter()
        .map(|step| match step {
            Step::Key(k) => k.to_owned(),
            Step::Index(i) => i.to_string(),
        })
        .collect();
    keys.extend(last.map(str::to_owned));
    keys.join(".")
}

#[derive(Clone, Copy)]
struct NodeSeed<'p> {
    at: &'p Path<'p>,
    failed_at: &'p RefCell<Option<String>>,
}

impl NodeSeed<'_> {
    fn fail(&self, last: Option<&str>) {
        let mut slot = self.failed_at.borrow_mut();
        if slot.is_none() {
            *slot = Some(render(self.at, last));
        }
    }
}

impl<'de> DeserializeSeed<'de> for NodeSeed<'_> {
    type Value = (FieldSet, bool);

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let r = d.deserialize_any(self);
        if r.is_err() {
            self.fail(None);
        }
        r
    }
}

impl<'de> Visitor<'de> for NodeSeed<'_> {
    type Value = (FieldSet, bool);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a FieldsV1 object or null")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok((FieldSet::new(), true))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut node = Node::default();
        let mut member = false;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "." {
                member = true;
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let pe = match PathElement::parse(&key) {
                Ok(Some(pe)) => pe,
                Ok(None) => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
                Err(msg) => {
                    self.fail(Some(&key));
                    return Err(A::Error::custom(msg));
                }
            };
            let (child, child_member) = map.next_value_seed(NodeSeed {
                at: &self.at.key(&key),
                failed_at: self.failed_at,
            })?;
            node.add(pe, child, child_member);
        }
        Ok(node.finish(member))
    }
}

impl FieldSet {
    /// [`FieldSet::from_json`] of a value already parsed into the arena (a
    /// `fieldsV1` member of a live object), without writing it back to text.
    /// Same rules and errors; nesting beyond [`crate::MAX_SET_DEPTH`] is an
    /// error.
    pub fn from_value(value: &smpatch_value::Value<'_>) -> Result<FieldSet, Error> {
        use smpatch_value::Value;
        match value {
            Value::Null => Ok(FieldSet::new()),
            Value::Object(_) => read_value_node(value, &Path::Root, 1).map(|(s, _)| s),
            other => Err(Error::new(
                ErrorKind::InvalidFieldsV1,
                "",
                format!(
                    "invalid type: {}, expected a FieldsV1 object or null",
                    other.kind().name()
                ),
            )),
        }
    }
}

fn read_value_node(
    value: &smpatch_value::Value<'_>,
    at: &Path<'_>,
    depth: usize,
) -> Result<(FieldSet, bool), Error> {
    use smpatch_value::Value;
    let obj = match value {
        Value::Null => return Ok((FieldSet::new(), true)),
        Value::Object(o) => o,
        other => {
            return Err(Error::new(
                ErrorKind::InvalidFieldsV1,
                render(at, None),
                format!(
                    "invalid type: {}, expected a FieldsV1 object or null",
                    other.kind().name()
                ),
            ))
        }
    };
    if depth > crate::MAX_SET_DEPTH {
        return Err(Error::new(
            ErrorKind::InvalidFieldsV1,
            render(at, None),
            format!("nesting deeper than {} levels", crate::MAX_SET_DEPTH),
        ));
    }
    let mut node = Node::default();
    let mut member = false;
    for (key, v) in obj.iter() {
        if key == "." {
            member = true;
            continue;
        }
        let pe = match PathElement::parse(key) {
            Ok(Some(pe)) => pe,
            Ok(None) => continue,
            Err(msg) => {
                return Err(Error::new(
                    ErrorKind::InvalidFieldsV1,
                    render(at, Some(key)),
                    msg,
                ))
            }
        };
        let (child, child_member) = read_value_node(&v, &at.key(key), depth + 1)?;
        node.add(pe, child, child_member);
    }
    Ok(node.finish(member))
}

/// A FieldsV1 object being read: its entries so far.
#[derive(Default)]
struct Node {
    members: Vec<PathElement>,
    children: Vec<(PathElement, FieldSet)>,
}

impl Node {
    /// The entry `pe`, whose object read as the set `child` (`child_member`:
    /// the entry names a member itself, by `"."` or by holding nothing).
    fn add(&mut self, pe: PathElement, child: FieldSet, child_member: bool) {
        if child_member {
            self.members.push(pe.clone());
        }
        if !child.is_empty() {
            self.children.push((pe, child));
        }
    }

    /// The node's set, and whether the node itself is a member (`member`:
    /// it holds `"."`; an empty object is a member too).
    fn finish(self, member: bool) -> (FieldSet, bool) {
        let set = FieldSet::from_parts(self.members, self.children);
        let member = member || set.is_empty();
        (set, member)
    }
}
