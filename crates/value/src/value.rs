//! The value tree: [`Value`], [`Number`], [`Object`] and [`Member`].

use crate::Arena;

/// A JSON value whose nodes live in an [`Arena`].
///
/// `Value` is `Copy` (24 bytes): containers are arena slices, strings are
/// arena (or input) string slices and numbers keep their literal text.
/// Building a changed tree never touches the old one, so every operation on
/// values is atomic with respect to its inputs.
///
/// ```
/// use smpatch_value::{Arena, Value};
/// let arena = Arena::new();
/// let v = Value::object_from(&arena, &[("a", Value::Bool(true))]);
/// assert_eq!(v.get("a"), Some(Value::Bool(true)));
/// ```
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, kept as its literal text.
    Number(Number<'a>),
    /// A string (unescaped).
    String(&'a str),
    /// A list.
    Array(&'a [Value<'a>]),
    /// An object; members keep insertion order.
    Object(Object<'a>),
}

/// The kind of a value, as the merge rules distinguish them (Go's decoder
/// gives integers and floats different types): integers and floats are
/// different kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// `null`.
    Null,
    /// A boolean.
    Bool,
    /// An integer literal (no fraction, no exponent).
    Int,
    /// Any other number literal.
    Float,
    /// A string.
    String,
    /// A list.
    Array,
    /// An object.
    Object,
}

impl Kind {
    /// The name used in error messages (`object`, `list`, `string`, …).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool => "bool",
            Kind::Int => "int",
            Kind::Float => "float",
            Kind::String => "string",
            Kind::Array => "list",
            Kind::Object => "object",
        }
    }

    /// True for strings, numbers and booleans.
    pub fn is_scalar(self) -> bool {
        matches!(self, Kind::Bool | Kind::Int | Kind::Float | Kind::String)
    }
}

/// Whether a number literal is an integer or a float.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NumberKind {
    /// No fraction and no exponent in the literal (any size).
    Int,
    /// A fraction or an exponent in the literal.
    Float,
}

/// A JSON number kept as the literal text it was read from, so that output
/// writes it exactly as it was written (big integers and long decimals
/// included).
///
/// Equality: integers and floats never compare equal (`1` ≠ `1.0`); integers
/// compare by exact value, floats by their nearest `f64` (`1.0` = `1.00`).
/// The JSON parser refuses float literals beyond the `f64` range (`1e400`),
/// as Go's decoder does; such a literal made with
/// [`Number::from_literal_unchecked`] equals only its own text.
#[derive(Clone, Copy, Debug)]
pub struct Number<'a> {
    text: &'a str,
    kind: NumberKind,
}

impl<'a> Number<'a> {
    /// Wraps a literal that is already known to be valid JSON number syntax.
    ///
    /// The kind is derived from the text: a literal with `.`, `e` or `E` is a
    /// float. Use [`Number::parse_literal`] for text that was not validated.
    pub fn from_literal_unchecked(text: &'a str) -> Self {
        let kind = if text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
            NumberKind::Float
        } else {
            NumberKind::Int
        };
        Number { text, kind }
    }

    /// A literal whose grammar and kind the caller has already established.
    pub(crate) fn with_kind(text: &'a str, kind: NumberKind) -> Self {
        Number { text, kind }
    }

    /// Validates `text` as a JSON number literal (RFC 8259 grammar).
    pub fn parse_literal(text: &'a str) -> Option<Self> {
        if is_json_number(text.as_bytes()) {
            Some(Self::from_literal_unchecked(text))
        } else {
            None
        }
    }

    /// A number for an `i64`, written into the arena.
    pub fn from_i64(arena: &'a Arena, n: i64) -> Self {
        let text = arena.alloc_str(itoa::Buffer::new().format(n));
        Number {
            text,
            kind: NumberKind::Int,
        }
    }

    /// A float number for a finite `f64`, written into the arena with the
    /// shortest text that reads back as the same `f64` (always with a `.` or
    /// an exponent, so it stays a float). `None` for NaN and infinities.
    pub fn from_f64(arena: &'a Arena, f: f64) -> Option<Self> {
        if !f.is_finite() {
            return None;
        }
        // `{:?}` gives the shortest round-trip digits and keeps a `.0` or an
        // exponent, so the literal reads back as a float.
        let text = arena.alloc_str(&format!("{f:?}"));
        Some(Number {
            text,
            kind: NumberKind::Float,
        })
    }

    /// The literal text.
    pub fn literal(&self) -> &'a str {
        self.text
    }

    /// Integer or float.
    pub fn kind(&self) -> NumberKind {
        self.kind
    }

    /// True for integer literals.
    pub fn is_int(&self) -> bool {
        self.kind == NumberKind::Int
    }

    /// The value as `i64` when it is an integer literal in range.
    pub fn as_i64(&self) -> Option<i64> {
        if self.is_int() {
            self.text.parse().ok()
        } else {
            None
        }
    }

    /// The value as `u64` when it is a non-negative integer literal in range.
    pub fn as_u64(&self) -> Option<u64> {
        if self.is_int() {
            self.text.parse().ok()
        } else {
            None
        }
    }

    /// The nearest `f64` (may be infinite for huge literals).
    pub fn as_f64(&self) -> f64 {
        self.text.parse().unwrap_or(f64::NAN)
    }

    /// Numeric equality within a kind (see the type's docs).
    pub fn same_value(&self, other: &Number<'_>) -> bool {
        match (self.kind, other.kind) {
            (NumberKind::Int, NumberKind::Int) => {
                if self.text == other.text {
                    return true;
                }
                canonical_int(self.text) == canonical_int(other.text)
            }
            (NumberKind::Float, NumberKind::Float) => {
                if self.text == other.text {
                    return true;
                }
                // Literals beyond `f64` (refused by the parsers, possible
                // through `from_literal_unchecked`) equal only their own text.
                let (a, b) = (self.as_f64(), other.as_f64());
                a == b && a.is_finite()
            }
            _ => false,
        }
    }
}

/// `-0` and `0` are the same integer; JSON forbids other leading zeros.
fn canonical_int(text: &str) -> &str {
    if text == "-0" {
        "0"
    } else {
        text
    }
}

/// Two source texts `deep_eq` compared byte by byte (by address, so a
/// nested pair can tell where it lies in them): equal before `diff`,
/// different at `diff`. A nested pair at the same offset in both lies in
/// the same place of the same bracket structure, so it is decided from
/// this without another comparison when it ends before `diff` (equal) or
/// spans it (different); only a pair after `diff` compares its own texts.
/// Keys are unique in an object with a source text, so a nested pair
/// starting before `diff` is always at the same offset in both: every byte
/// is compared at most once, and the cost of the texts is bounded by their
/// size whatever the nesting depth.
#[derive(Clone, Copy)]
struct Compared {
    x: usize,
    y: usize,
    len: usize,
    diff: usize,
}

/// What comparing two source texts found.
enum TextEq {
    Equal,
    /// Not equal as texts (the values may still be equal); with the new
    /// comparison when one was made.
    Differs(Option<Compared>),
}

/// Compares two objects' source texts, using `known` (an enclosing
/// comparison) when it already decides them.
fn texts_equal(sx: &str, sy: &str, known: Option<Compared>) -> TextEq {
    if sx.len() != sy.len() {
        // Not the same text (the values may still be equal): nothing to
        // compare, nothing learned.
        return TextEq::Differs(None);
    }
    let (px, py) = (sx.as_ptr() as usize, sy.as_ptr() as usize);
    if let Some(k) = known {
        let (rx, ry) = (px.wrapping_sub(k.x), py.wrapping_sub(k.y));
        if rx == ry && rx < k.len {
            if rx + sx.len() <= k.diff {
                return TextEq::Equal;
            }
            if rx <= k.diff {
                return TextEq::Differs(None);
            }
        }
    }
    match first_difference(sx.as_bytes(), sy.as_bytes()) {
        None => TextEq::Equal,
        Some(diff) => TextEq::Differs(Some(Compared {
            x: px,
            y: py,
            len: sx.len(),
            diff,
        })),
    }
}

/// The first offset at which two slices of equal length differ. Reads the
/// bytes up to that offset (and the block holding it) twice at most.
fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    let found = if a == b {
        None
    } else {
        // Unequal: find where, a block at a time.
        const BLOCK: usize = 32;
        let mut at = 0;
        let mut found = Some(a.len().min(b.len()));
        for (ca, cb) in a.chunks(BLOCK).zip(b.chunks(BLOCK)) {
            if ca != cb {
                found = ca.iter().zip(cb).position(|(p, q)| p != q).map(|i| at + i);
                break;
            }
            at += ca.len();
        }
        found
    };
    #[cfg(test)]
    COMPARED_BYTES.with(|c| c.set(c.get() + found.map_or(a.len(), |d| d + 1)));
    found
}

#[cfg(test)]
thread_local! {
    /// Bytes of source text `first_difference` was asked to compare (tests).
    static COMPARED_BYTES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// RFC 8259 number grammar: `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`.
pub(crate) fn is_json_number(b: &[u8]) -> bool {
    matches!(scan_json_number(b, 0), Ok((end, _)) if end == b.len())
}

/// Scans the longest RFC 8259 number starting at `b[start]`: its end and
/// kind, or what is missing (the parser's error message).
#[inline]
pub(crate) fn scan_json_number(
    b: &[u8],
    start: usize,
) -> Result<(usize, NumberKind), &'static str> {
    let digits_from = |mut i: usize| {
        while matches!(b.get(i), Some(b'0'..=b'9')) {
            i += 1;
        }
        i
    };
    let mut i = start;
    let mut kind = NumberKind::Int;
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits_from(i + 1),
        _ => return Err("a digit must follow `-`"),
    }
    if b.get(i) == Some(&b'.') {
        kind = NumberKind::Float;
        let end = digits_from(i + 1);
        if end == i + 1 {
            return Err("a digit must follow the decimal point");
        }
        i = end;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        kind = NumberKind::Float;
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let end = digits_from(i);
        if end == i {
            return Err("a digit must follow the exponent");
        }
        i = end;
    }
    Ok((i, kind))
}

/// One `key: value` member of an [`Object`].
#[derive(Clone, Copy, Debug)]
pub struct Member<'a> {
    /// The key (unescaped).
    pub key: &'a str,
    /// The value.
    pub value: Value<'a>,
}

/// An object: members in insertion order. Keys are unique in objects built by
/// this workspace's parsers and algorithms.
///
/// An object of 256 bytes or more that [`parse_json`](crate::parse_json)
/// read from text exactly as [`to_json_string`](crate::to_json_string)
/// writes it (no whitespace, no escape written differently, no repeated
/// key) also remembers that text, so the compact writer copies the
/// unchanged subtree instead of rewriting it (docs/BENCHMARKS.md, issue 13).
/// The text rides in a hidden first member whose key is a private marker:
/// no field is added, `Value` stays 24 bytes, and [`Object::members`] and
/// every other accessor skip it.
///
/// ```
/// use smpatch_value::{parse_json, to_json_string, Arena, ParseOptions};
/// let arena = Arena::new();
/// let text = format!(r#"{{"a":"{}","b":[1.50,"x\n"]}}"#, "y".repeat(300));
/// let v = parse_json(&arena, text.as_bytes(), &ParseOptions::default()).unwrap();
/// let o = v.as_object().unwrap();
/// assert_eq!(o.len(), 2);
/// assert_eq!(o.iter().map(|(k, _)| k).collect::<Vec<_>>(), ["a", "b"]);
/// assert_eq!(to_json_string(&v), text);
/// ```
#[derive(Clone, Copy, Default)]
pub struct Object<'a> {
    /// The members, after the source marker when there is one.
    members: &'a [Member<'a>],
}

/// The key of the hidden member that carries an object's compact source
/// text. Identified by address (a `static` has one), never by content, so
/// no key read from input or built by a caller can be taken for it.
static SOURCE_MARK: [u8; 1] = [0];

/// The marker key, or `None` (never in practice: the bytes are UTF-8).
pub(crate) fn source_mark() -> Option<&'static str> {
    std::str::from_utf8(&SOURCE_MARK).ok()
}

#[inline(always)]
fn is_source_mark(key: &str) -> bool {
    std::ptr::eq(key.as_ptr(), SOURCE_MARK.as_ptr())
}

impl std::fmt::Debug for Object<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Object")
            .field("members", &self.members())
            .finish()
    }
}

impl<'a> Object<'a> {
    /// The empty object.
    pub const EMPTY: Object<'static> = Object { members: &[] };

    /// Wraps a member slice. The caller keeps keys unique.
    pub fn from_members(members: &'a [Member<'a>]) -> Self {
        Object { members }
    }

    /// The members in insertion order.
    #[inline]
    pub fn members(&self) -> &'a [Member<'a>] {
        match self.members.split_first() {
            Some((first, rest)) if is_source_mark(first.key) => rest,
            _ => self.members,
        }
    }

    /// The compact JSON text this object was parsed from, when that text is
    /// exactly what the compact writer would write for it: the JSON parser
    /// records it for objects of at least 256 bytes of text with
    /// no whitespace and no escape sequence anywhere inside (and no
    /// duplicate key). Objects built any other way have none.
    ///
    /// The text determines the value: two objects with equal texts are
    /// equal member by member, in the same order, down to each number's
    /// literal (the three-way diff skips subtrees the three documents hold
    /// as one text).
    #[inline]
    pub fn compact_source(&self) -> Option<&'a str> {
        match self.members.first() {
            Some(Member {
                key,
                value: Value::String(text),
            }) if is_source_mark(key) => Some(text),
            _ => None,
        }
    }

    /// Wraps members after a marker member carrying `source` (the parser's
    /// side of [`Object::compact_source`]); `with_mark` must start with it.
    pub(crate) fn from_marked(with_mark: &'a [Member<'a>]) -> Self {
        Object { members: with_mark }
    }

    /// Iterates `(key, value)` pairs in insertion order.
    #[inline]
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&'a str, Value<'a>)> + 'a {
        self.members().iter().map(|m| (m.key, m.value))
    }

    /// Number of members.
    #[inline]
    pub fn len(&self) -> usize {
        self.members().len()
    }

    /// True when there are no members.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.members().is_empty()
    }

    /// The value of `key` (linear scan; the last one if a key repeats).
    #[inline]
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        self.members()
            .iter()
            .rev()
            .find(|m| m.key == key)
            .map(|m| m.value)
    }

    /// True when `key` is present.
    #[inline]
    pub fn contains_key(&self, key: &str) -> bool {
        self.members().iter().any(|m| m.key == key)
    }
}

impl<'a> Value<'a> {
    /// An object from `(key, value)` pairs, copied into the arena.
    pub fn object_from(arena: &'a Arena, pairs: &[(&'a str, Value<'a>)]) -> Value<'a> {
        let members =
            arena.alloc_slice_fill_iter(pairs.iter().map(|&(key, value)| Member { key, value }));
        Value::Object(Object::from_members(members))
    }

    /// An object from members, copied into the arena.
    pub fn object_from_members(arena: &'a Arena, members: &[Member<'a>]) -> Value<'a> {
        Value::Object(Object::from_members(arena.alloc_slice_copy(members)))
    }

    /// A list, copied into the arena.
    pub fn array_from(arena: &'a Arena, items: &[Value<'a>]) -> Value<'a> {
        Value::Array(arena.alloc_slice_copy(items))
    }

    /// The empty object.
    pub fn empty_object() -> Value<'a> {
        Value::Object(Object::from_members(&[]))
    }

    /// The kind of this value.
    pub fn kind(&self) -> Kind {
        match self {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Bool,
            Value::Number(n) => match n.kind() {
                NumberKind::Int => Kind::Int,
                NumberKind::Float => Kind::Float,
            },
            Value::String(_) => Kind::String,
            Value::Array(_) => Kind::Array,
            Value::Object(_) => Kind::Object,
        }
    }

    /// True for `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// True for objects.
    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }

    /// True for lists.
    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<Object<'a>> {
        match self {
            Value::Object(o) => Some(*o),
            _ => None,
        }
    }

    /// The list, if this is one.
    pub fn as_array(&self) -> Option<&'a [Value<'a>]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&'a str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_number(&self) -> Option<Number<'a>> {
        match self {
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// `self[key]` when `self` is an object holding `key`.
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        self.as_object().and_then(|o| o.get(key))
    }

    /// The value an RFC 6901 JSON pointer names (`""` is `self`; `~1` stands
    /// for `/` and `~0` for `~` in a token). Every smpatch error carries such
    /// a pointer (into the patch, or the document it names), so this finds
    /// the offending value. `None` when a step is missing, a list index is
    /// not a plain decimal number (`0`, `12`, never `01` or `-`), or the
    /// pointer is malformed. A key that repeats resolves to its last value,
    /// like [`Object::get`].
    ///
    /// ```
    /// use smpatch_value::{from_serde, Arena};
    /// let arena = Arena::new();
    /// let v = from_serde(&arena, &serde_json::json!({"a/b": [{"c~": 1}]}), 256).unwrap();
    /// assert_eq!(v.pointer("/a~1b/0/c~0").and_then(|n| n.as_number()).map(|n| n.literal()), Some("1"));
    /// assert!(v.pointer("/a~1b/1").is_none());
    /// assert!(v.pointer("").is_some());
    /// ```
    pub fn pointer(&self, pointer: &str) -> Option<Value<'a>> {
        let mut cur = *self;
        for tok in crate::path::pointer_tokens(pointer)? {
            cur = match cur {
                Value::Object(o) => o.get(&tok)?,
                Value::Array(items) => {
                    let valid = !tok.is_empty()
                        && tok.bytes().all(|b| b.is_ascii_digit())
                        && (tok.len() == 1 || !tok.starts_with('0'));
                    if !valid {
                        return None;
                    }
                    *items.get(tok.parse::<usize>().ok()?)?
                }
                _ => return None,
            };
        }
        Some(cur)
    }

    /// Deep equality as the reference compares values: same kind, integers and floats
    /// distinct, numbers numerically within a kind, lists in order, objects as
    /// key sets. Iterative: safe on trees of any depth.
    pub fn deep_eq(&self, other: &Value<'_>) -> bool {
        // Each pair carries what the nearest compared pair of source texts
        // around it found (see `Compared`), so no byte is compared twice.
        let mut stack: Vec<(Value<'_>, Value<'_>, Option<Compared>)> = vec![(*self, *other, None)];
        while let Some((a, b, known)) = stack.pop() {
            match (a, b) {
                (Value::Null, Value::Null) => {}
                (Value::Bool(x), Value::Bool(y)) if x == y => {}
                (Value::Number(x), Value::Number(y)) if x.same_value(&y) => {}
                (Value::String(x), Value::String(y)) if x == y => {}
                (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                    stack.extend(
                        x.iter()
                            .copied()
                            .zip(y.iter().copied())
                            .map(|(a, b)| (a, b, known)),
                    );
                }
                (Value::Object(x), Value::Object(y)) if x.len() == y.len() => {
                    // Two objects read from the same compact text are equal
                    // without a walk (the text determines the value; see
                    // `Object::compact_source`). Different texts may still
                    // be equal (key order, `1.0` and `1.00`): walk them.
                    let mut known = known;
                    if let (Some(sx), Some(sy)) = (x.compact_source(), y.compact_source()) {
                        match texts_equal(sx, sy, known) {
                            TextEq::Equal => continue,
                            TextEq::Differs(c) => known = c.or(known),
                        }
                    }
                    if x.len() <= 16 {
                        for m in x.members() {
                            match y.get(m.key) {
                                Some(v) => stack.push((m.value, v, known)),
                                None => return false,
                            }
                        }
                    } else {
                        let index: std::collections::HashMap<&str, Value<'_>> = y.iter().collect();
                        for m in x.members() {
                            match index.get(m.key) {
                                Some(v) => stack.push((m.value, *v, known)),
                                None => return false,
                            }
                        }
                    }
                }
                _ => return false,
            }
        }
        true
    }

    /// A hash consistent with [`Value::deep_eq`] (equal values hash
    /// equally; objects hash as key sets), the canonical form behind hash
    /// indexes of list elements. `Value` implements `Hash` and `Eq` with it.
    /// Iterative: safe on trees of any depth.
    ///
    /// ```
    /// use smpatch_value::{parse_json, Arena, ParseOptions};
    /// let arena = Arena::new();
    /// let p = |s: &'static str| parse_json(&arena, s.as_bytes(), &ParseOptions::default()).unwrap();
    /// assert_eq!(p(r#"{"a":[1.0],"b":2}"#).deep_hash(), p(r#"{"b":2,"a":[1.00]}"#).deep_hash());
    /// assert_ne!(p("[1]").deep_hash(), p("[1.0]").deep_hash());
    /// ```
    pub fn deep_hash(&self) -> u64 {
        crate::hash::deep_hash(self)
    }

    /// Depth of the tree: 0 for scalars, 1 for a flat container. Iterative.
    pub fn depth(&self) -> usize {
        let mut max = 0;
        let mut stack = vec![(*self, 0usize)];
        while let Some((v, d)) = stack.pop() {
            match v {
                Value::Array(items) => {
                    max = max.max(d + 1);
                    stack.extend(items.iter().map(|i| (*i, d + 1)));
                }
                Value::Object(o) => {
                    max = max.max(d + 1);
                    stack.extend(o.members().iter().map(|m| (m.value, d + 1)));
                }
                _ => {}
            }
        }
        max
    }
}

impl PartialEq for Value<'_> {
    /// Same as [`Value::deep_eq`].
    fn eq(&self, other: &Self) -> bool {
        self.deep_eq(other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_literals() {
        for ok in [
            "0",
            "-0",
            "1",
            "12.5",
            "1e3",
            "1E+3",
            "-1.5e-7",
            "123456789012345678901234567890",
        ] {
            assert!(is_json_number(ok.as_bytes()), "{ok}");
        }
        for bad in [
            "", "-", "01", "1.", ".5", "1e", "+1", "NaN", "Infinity", "1.5.5", "0x10",
        ] {
            assert!(!is_json_number(bad.as_bytes()), "{bad}");
        }
    }

    #[test]
    fn number_equality_follows_kinds() {
        let n = |t| Value::Number(Number::from_literal_unchecked(t));
        assert!(n("1") != n("1.0"));
        assert!(n("1.0") == n("1.00"));
        assert!(n("0") == n("-0"));
        assert!(n("18446744073709551615") != n("18446744073709551614"));
        assert!(n("1e2") == n("100.0"));
    }

    /// `deep_eq` on nested objects with source texts that differ only in
    /// their innermost value: every level's text has the same length, so
    /// comparing each level's text again would read depth x size bytes;
    /// the comparison of the outermost pair decides every level inside it.
    /// Also: equal nested pairs after the first difference are still
    /// found equal by their texts, and the answers match a walk without
    /// texts.
    #[test]
    fn deep_eq_compares_each_source_byte_at_most_once() {
        use crate::{parse_json, ParseOptions};
        let arena = Arena::new();
        let opts = ParseOptions {
            max_depth: 1000,
            ..ParseOptions::default()
        };
        let pad = "p".repeat(300);
        let nested = |leaf: &str, tail: &str| {
            let depth = 200;
            let mut t = String::new();
            for _ in 0..depth {
                t.push_str(&format!(r#"{{"pad":"{pad}","in":"#));
            }
            t.push_str(leaf);
            for _ in 0..depth {
                t.push('}');
            }
            format!(r#"{{"n":{t},"tail":{{"pad":"{pad}","v":{tail}}}}}"#)
        };
        let (ta, tb, tc) = (nested("1", "1"), nested("2", "1"), nested("1", "2"));
        let size = ta.len();
        let a = parse_json(&arena, ta.as_bytes(), &opts).unwrap();
        let b = parse_json(&arena, tb.as_bytes(), &opts).unwrap();
        let c = parse_json(&arena, tc.as_bytes(), &opts).unwrap();
        let run = |x: Value<'_>, y: Value<'_>| {
            COMPARED_BYTES.with(|n| n.set(0));
            let eq = x.deep_eq(&y);
            (eq, COMPARED_BYTES.with(|n| n.get()))
        };
        let (eq, bytes) = run(a, b);
        assert!(!eq);
        assert!(
            bytes <= size,
            "{bytes} bytes compared for a {size}-byte text"
        );
        let (eq, bytes) = run(a, c);
        assert!(!eq);
        assert!(
            bytes <= size,
            "{bytes} bytes compared for a {size}-byte text"
        );
        // The inner chains are equal in `a` and `c`: decided by the text.
        let (eq, _) = run(a.get("n").unwrap(), c.get("n").unwrap());
        assert!(eq);
        let (eq, bytes) = run(a, a);
        assert!(eq && bytes == size);
        // The same answers from copies without source texts.
        for (x, y) in [(a, b), (a, c), (b, c), (a, a)] {
            let (sx, sy) = (
                crate::from_serde(&arena, &crate::to_serde(&x).unwrap(), 1000).unwrap(),
                crate::from_serde(&arena, &crate::to_serde(&y).unwrap(), 1000).unwrap(),
            );
            assert_eq!(x.deep_eq(&y), sx.deep_eq(&sy));
            assert_eq!(x.deep_eq(&sy), sx.deep_eq(&y));
        }
    }
}
