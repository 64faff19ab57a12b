//! Documents across the Python boundary, numbers kept exactly.
//!
//! In: a Python object tree (`dict`, `list`/`tuple`, `str`, `int` of any
//! size, `float`, `bool`, `None`, and their subclasses, read as the base
//! type) is read straight into the engine's arena value tree ([`Reader`]:
//! no JSON text in between); for the operations this binding runs on bytes
//! only (`validate`, `fields`, `extract`) that tree is then written as
//! compact JSON. `str`/`bytes` input is JSON text (passed through) or YAML
//! (read with the value crate's YAML reader, which resolves scalars as
//! kubectl does, and written as JSON with every literal kept).
//!
//! Out: answers are built straight from the arena tree ([`value_to_py`];
//! [`json_to_py`] reads the JSON answers of the bytes-only operations
//! first): integer literals become `int` (any size, never through a float),
//! float literals `float`.
//!
//! Floats are read with Rust's shortest round-trip formatting, so a `float`
//! comes back as the same `float` (same `repr`). NaN and infinities are not
//! JSON and are refused; so are non-`str` keys and other types, each error
//! naming the document and the JSON pointer of the bad value.
//!
//! Depth is bounded (the call's `max_depth` when it is above [`MAX_DEPTH`],
//! the facade's default, else that default: as text is parsed, so a
//! lower `max_depth` is the engine's to enforce), so a deep Python
//! structure is a `too_deep` error naming the path and the limit (one that
//! contains itself is caught past the default depth whatever the limit),
//! never a stack overflow (the reader and [`value_to_py`] grow the stack
//! on demand, as the engines do, for limits raised far above the
//! default); size is
//! bounded as the parser bounds text (512 MiB of JSON per document, 256 MiB
//! per string). Nothing here calls Python code of the caller's objects
//! (dicts are read entry by entry, lists item by item, whatever their
//! subclass overrides), and nothing is written to them.

use crate::facade::Error;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple,
};
use smpatch::{ErrorKind, FacadeKind};
use smpatch_value::hashing::{HashMap, HashSet};
use smpatch_value::{
    parse_json, parse_yaml, to_json_string, Arena, Member, Number, Object, ParseOptions, Value,
};
use std::fmt::Write;

/// Deepest nesting read from Python objects by default (the facade's
/// document limit, `smpatch::DEFAULT_MAX_DEPTH`): it bounds the recursion
/// of reading (a structure that contains itself is an error, not a loop).
/// A call's `max_depth` above it raises it ([`depth_limit`]).
pub(crate) const MAX_DEPTH: usize = 256;

/// The depth limit of reading a call's documents: its `max_depth` when
/// that is above [`MAX_DEPTH`], else `MAX_DEPTH` (text is parsed the same
/// way: a lower `max_depth` is the engine's limit, with the engine's error).
pub(crate) fn depth_limit(max_depth: Option<usize>) -> usize {
    max_depth.map_or(MAX_DEPTH, |d| d.max(MAX_DEPTH))
}

/// Red zone and growth step of the recursive walks over documents (as in
/// the engines): deep documents grow the stack instead of overflowing it,
/// whatever thread the call runs on.
const STACK_RED_ZONE: usize = 64 * 1024;
const STACK_GROWTH: usize = 1024 * 1024;

fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(STACK_RED_ZONE, STACK_GROWTH, f)
}

/// Why a Python object could not be read as a JSON document.
pub(crate) enum ConvertError {
    /// Bad input: becomes an `smpatch.Error` (a `ValueError`).
    Doc(Error),
    /// A Python exception raised while reading the object (e.g. `str()` of
    /// an `int` beyond Python's digit limit); re-raised as is.
    Py(PyErr),
}

/// A located conversion error; `tokens` holds the pointer tokens from the
/// error outwards (the path is built only when something fails).
struct Fail {
    kind: FacadeKind,
    message: String,
    tokens: Vec<String>,
    py: Option<PyErr>,
}

impl Fail {
    fn new(kind: FacadeKind, message: impl Into<String>) -> Box<Self> {
        Box::new(Fail {
            kind,
            message: message.into(),
            tokens: Vec::new(),
            py: None,
        })
    }

    fn at(mut self: Box<Self>, token: String) -> Box<Self> {
        self.tokens.push(token);
        self
    }
}

fn escape_token(t: &str) -> String {
    t.replace('~', "~0").replace('/', "~1")
}

/// Writes a document given as a Python object or text as JSON bytes. `what`
/// names the document in messages (`original`, `patch`, …); `max_depth` is
/// the call's option ([`depth_limit`]).
pub(crate) fn document_bytes(
    obj: &Bound<'_, PyAny>,
    what: &str,
    max_depth: Option<usize>,
) -> Result<Vec<u8>, ConvertError> {
    if let Some(text) = document_text(obj, what) {
        return text;
    }
    let arena = Arena::new();
    let value = Reader::new(&arena, max_depth).document(obj, what)?;
    Ok(to_json_string(&value).into_bytes())
}

/// A document given as text (`str`, `bytes`, `bytearray`) as JSON bytes
/// ([`text_bytes`]); `None` for any other object.
pub(crate) fn document_text(
    obj: &Bound<'_, PyAny>,
    what: &str,
) -> Option<Result<Vec<u8>, ConvertError>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Some(
            s.to_cow()
                .map_err(ConvertError::Py)
                .and_then(|t| text_bytes(t.as_bytes(), what).map_err(ConvertError::Doc)),
        );
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Some(text_bytes(b.as_bytes(), what).map_err(ConvertError::Doc));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Some(text_bytes(&b.to_vec(), what).map_err(ConvertError::Doc));
    }
    None
}

/// kubectl's sniffing: text whose first non-space character opens an object
/// or a list is JSON, anything else YAML.
fn looks_like_json(text: &[u8]) -> bool {
    matches!(
        text.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{' | b'[')
    )
}

/// JSON text passes through (the facade parses and checks it); YAML is read
/// and written as JSON. Blank text and a YAML stream without documents pass
/// as empty input, which the facade treats as `{}` for patch creation and
/// as an error for `apply`.
pub(crate) fn text_bytes(text: &[u8], what: &str) -> Result<Vec<u8>, Error> {
    if looks_like_json(text) || text.iter().all(u8::is_ascii_whitespace) {
        return Ok(text.to_vec());
    }
    let s = std::str::from_utf8(text).map_err(|e| {
        Error::new(
            ErrorKind::Facade(FacadeKind::InvalidDocument),
            "",
            format!("invalid YAML document ({what}): not UTF-8: {e}"),
        )
    })?;
    let arena = Arena::new();
    // The facade's names for the parser's kinds (`ErrorKind::name`):
    // `too_deep`, `too_large` for its limits, `invalid_document` otherwise.
    let docs = parse_yaml(&arena, s, &ParseOptions::default()).map_err(|e| {
        Error::new(
            ErrorKind::Parse(e.kind),
            e.path.clone(),
            // The error's path leads `str(error)`: the message says the
            // parser's words and the position, not the pointer again.
            format!(
                "invalid YAML document ({what}): {} at line {} column {} (byte {})",
                e.message, e.line, e.column, e.offset
            ),
        )
    })?;
    match docs.as_slice() {
        [] => Ok(Vec::new()),
        [one] => Ok(to_json_string(one).into_bytes()),
        more => Err(Error::new(
            ErrorKind::Facade(FacadeKind::InvalidDocument),
            "",
            format!(
                "invalid YAML document ({what}): expected one YAML document, found {}",
                more.len()
            ),
        )),
    }
}

/// Largest document read from Python objects, counted as the size of its
/// compact JSON text without escapes (the parser's default input limit).
const MAX_INPUT_BYTES: usize = 512 << 20;
/// Longest string read from Python objects, in UTF-8 bytes (the parser's
/// default string limit).
const MAX_STRING_BYTES: usize = 256 << 20;

/// Reads Python objects straight into an [`Arena`] value tree: no JSON text
/// in between. The documents of one call share one reader (and its caches).
pub(crate) struct Reader<'a, 'py> {
    arena: &'a Arena,
    /// Object keys by the address of their `str` object, which the entry
    /// keeps alive (so the address cannot be reused during the call):
    /// Kubernetes objects repeat a few keys thousands of times, and
    /// `json.loads` and dict literals share one `str` per distinct key.
    keys: HashMap<usize, (&'a str, Bound<'py, PyString>)>,
    /// Members of the objects being read (a stack: each object takes its
    /// own from its start and truncates it back).
    members: Vec<Member<'a>>,
    /// Items of the lists being read (a stack, as `members`).
    items: Vec<Value<'a>>,
    /// JSON size of the document so far (see [`MAX_INPUT_BYTES`]).
    size: usize,
    /// Deepest nesting read ([`depth_limit`]).
    max_depth: usize,
    /// Addresses of the dicts and lists being read at depth
    /// [`MAX_DEPTH`] and below (the ones deeper than the default limit
    /// that are still open): a container met again among them contains
    /// itself. Above that depth the limit of [`MAX_DEPTH`] levels already
    /// stops a cycle; below it, with a raised `max_depth`, only this does
    /// before memory runs out.
    open: HashSet<usize>,
}

impl<'a, 'py> Reader<'a, 'py> {
    /// A reader into `arena` for a call whose `max_depth` option is
    /// `max_depth` ([`depth_limit`]).
    pub(crate) fn new(arena: &'a Arena, max_depth: Option<usize>) -> Self {
        Reader {
            arena,
            keys: HashMap::default(),
            members: Vec::new(),
            items: Vec::new(),
            size: 0,
            max_depth: depth_limit(max_depth),
            open: HashSet::default(),
        }
    }

    /// Reads one document given as a Python object (not text). `what`
    /// names it in messages (`original`, `patch`, …). The top level is not
    /// checked here (the caller applies the facade's `check_object`).
    pub(crate) fn document(
        &mut self,
        obj: &Bound<'py, PyAny>,
        what: &str,
    ) -> Result<Value<'a>, ConvertError> {
        self.size = 0;
        self.open.clear();
        self.read(obj, 0).map_err(|f| located(*f, what))
    }

    /// The keys read so far with their `str` objects, to seed the
    /// [`KeyCache`] of the answer: its dicts then reuse the caller's key
    /// objects (and their cached hashes).
    ///
    /// Only keys: reusing string values too (by arena address) measured
    /// slower than making new `str` objects (a map entry per string read).
    pub(crate) fn into_keys(self) -> Vec<(&'a str, Py<PyString>)> {
        // Only exact `str` keys: the answer's keys are plain `str`, never
        // the caller's subclass instances.
        self.keys
            .into_values()
            .filter(|(_, obj)| obj.is_exact_instance_of::<PyString>())
            .map(|(text, obj)| (text, obj.unbind()))
            .collect()
    }

    fn count(&mut self, bytes: usize) -> Result<(), Box<Fail>> {
        self.size = self.size.saturating_add(bytes);
        if self.size > MAX_INPUT_BYTES {
            return Err(Fail::new(
                FacadeKind::TooLarge,
                format!("the document is larger than {MAX_INPUT_BYTES} bytes as JSON"),
            ));
        }
        Ok(())
    }

    fn read(&mut self, obj: &Bound<'py, PyAny>, depth: usize) -> Result<Value<'a>, Box<Fail>> {
        if let Ok(s) = obj.cast::<PyString>() {
            return Ok(Value::String(self.string(s)?));
        }
        if let Ok(d) = obj.cast::<PyDict>() {
            if depth >= self.max_depth {
                return Err(too_deep(self.max_depth));
            }
            self.enter(obj, depth)?;
            self.count(2)?;
            let base = self.members.len();
            for (k, v) in d.iter() {
                let key = self.key(&k)?;
                let value = grow(|| self.read(&v, depth + 1)).map_err(|f| f.at(key.to_owned()))?;
                self.members.push(Member { key, value });
            }
            let members = self
                .arena
                .alloc_slice_copy(self.members.get(base..).unwrap_or(&[]));
            self.members.truncate(base);
            self.leave(obj, depth);
            return Ok(Value::Object(Object::from_members(members)));
        }
        if let Ok(l) = obj.cast::<PyList>() {
            if depth < self.max_depth {
                self.enter(obj, depth)?;
            }
            let v = self.list(l.iter(), depth)?;
            self.leave(obj, depth);
            return Ok(v);
        }
        if let Ok(t) = obj.cast::<PyTuple>() {
            return self.list(t.iter(), depth);
        }
        if obj.is_none() {
            self.count(4)?;
            return Ok(Value::Null);
        }
        if let Ok(b) = obj.cast::<PyBool>() {
            self.count(5)?;
            return Ok(Value::Bool(b.is_true()));
        }
        if obj.cast::<PyInt>().is_ok() {
            return self.int(obj);
        }
        if let Ok(f) = obj.cast::<PyFloat>() {
            let v = f.value();
            if !v.is_finite() {
                return Err(Fail::new(
                    FacadeKind::InvalidDocument,
                    format!("{v} is not a JSON number (NaN and infinities cannot be written)"),
                ));
            }
            // `{:?}` is the shortest text that reads back as the same f64
            // and keeps a `.` or an exponent, so it stays a float.
            let mut buf = NumberText::default();
            let _ = write!(buf, "{v:?}");
            return self.number(buf.as_str());
        }
        Err(Fail::new(
            FacadeKind::InvalidDocument,
            format!(
                "a {} is not a JSON value (use dict, list, tuple, str, int, float, bool or None; \
                 for a kubernetes client model, pass ApiClient().sanitize_for_serialization(obj))",
                type_name(obj)
            ),
        ))
    }

    /// Records `obj` as open when it lies deeper than [`MAX_DEPTH`]; a
    /// container already open contains itself.
    fn enter(&mut self, obj: &Bound<'py, PyAny>, depth: usize) -> Result<(), Box<Fail>> {
        if depth >= MAX_DEPTH && !self.open.insert(obj.as_ptr() as usize) {
            return Err(Fail::new(
                FacadeKind::InvalidDocument,
                format!(
                    "a {} that contains itself is not a JSON value",
                    type_name(obj)
                ),
            ));
        }
        Ok(())
    }

    fn leave(&mut self, obj: &Bound<'py, PyAny>, depth: usize) {
        if depth >= MAX_DEPTH {
            self.open.remove(&(obj.as_ptr() as usize));
        }
    }

    fn list(
        &mut self,
        items: impl Iterator<Item = Bound<'py, PyAny>>,
        depth: usize,
    ) -> Result<Value<'a>, Box<Fail>> {
        if depth >= self.max_depth {
            return Err(too_deep(self.max_depth));
        }
        self.count(2)?;
        let base = self.items.len();
        for (i, v) in items.enumerate() {
            let value = grow(|| self.read(&v, depth + 1)).map_err(|f| f.at(i.to_string()))?;
            self.items.push(value);
        }
        let items = self
            .arena
            .alloc_slice_copy(self.items.get(base..).unwrap_or(&[]));
        self.items.truncate(base);
        Ok(Value::Array(items))
    }

    fn key(&mut self, k: &Bound<'py, PyAny>) -> Result<&'a str, Box<Fail>> {
        if let Some((text, _)) = self.keys.get(&(k.as_ptr() as usize)) {
            self.size = self.size.saturating_add(text.len() + 3);
            return Ok(text);
        }
        let Ok(ks) = k.cast::<PyString>() else {
            let tn = type_name(k);
            let shown = k.repr().map(|r| r.to_string()).unwrap_or_default();
            return Err(Fail::new(
                FacadeKind::InvalidDocument,
                format!("object keys must be str, not {tn} ({shown})"),
            ));
        };
        let text = self.string(ks)?;
        self.count(1)?;
        self.keys.insert(k.as_ptr() as usize, (text, ks.clone()));
        Ok(text)
    }

    /// A Python `str` copied into the arena. Under the 3.9 stable ABI the
    /// UTF-8 text is only reachable as a new `bytes` object; the copy is
    /// taken from it.
    fn string(&mut self, s: &Bound<'py, PyString>) -> Result<&'a str, Box<Fail>> {
        let bytes = s.encode_utf8().map_err(|_| {
            Fail::new(
                FacadeKind::InvalidDocument,
                "a string is not valid Unicode (lone surrogate); JSON cannot hold it",
            )
        })?;
        // Python's UTF-8 encoder only produces valid UTF-8.
        let text = std::str::from_utf8(bytes.as_bytes()).map_err(|e| {
            Fail::new(
                FacadeKind::InvalidDocument,
                format!("a string is not UTF-8: {e}"),
            )
        })?;
        if text.len() > MAX_STRING_BYTES {
            return Err(Fail::new(
                FacadeKind::TooLarge,
                format!("a string is longer than {MAX_STRING_BYTES} bytes"),
            ));
        }
        self.count(text.len() + 2)?;
        Ok(self.arena.alloc_str(text))
    }

    fn int(&mut self, obj: &Bound<'py, PyAny>) -> Result<Value<'a>, Box<Fail>> {
        if let Ok(n) = obj.extract::<i64>() {
            let mut buf = NumberText::default();
            let _ = write!(buf, "{n}");
            return self.number(buf.as_str());
        }
        // Beyond i64: int's own decimal text (exact at any size).
        let text = obj
            .py()
            .get_type::<PyInt>()
            .getattr("__repr__")
            .and_then(|r| r.call1((obj,)))
            .and_then(|t| t.extract::<String>())
            .map_err(|e| {
                let mut f = Fail::new(FacadeKind::InvalidDocument, "");
                f.py = Some(e);
                f
            })?;
        self.number(&text)
    }

    /// A number literal copied into the arena; `text` is Rust's or
    /// Python's own writing of an int or a finite float, so valid JSON.
    fn number(&mut self, text: &str) -> Result<Value<'a>, Box<Fail>> {
        self.count(text.len())?;
        let text = self.arena.alloc_str(text);
        Number::parse_literal(text)
            .map(Value::Number)
            .ok_or_else(|| {
                Fail::new(
                    FacadeKind::InvalidDocument,
                    format!("{text} is not a JSON number"),
                )
            })
    }
}

/// A number's text, written on the stack (an `i64` or an `f64`'s shortest
/// form is at most 24 bytes; longer text is cut, and then refused as not a
/// JSON number).
#[derive(Default)]
struct NumberText {
    buf: [u8; 32],
    len: usize,
}

impl NumberText {
    fn as_str(&self) -> &str {
        std::str::from_utf8(self.buf.get(..self.len).unwrap_or(&[])).unwrap_or("")
    }
}

impl std::fmt::Write for NumberText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let dest = self.buf.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        dest.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// A located conversion error as the facade error it stands for (or the
/// Python exception raised while reading).
fn located(mut f: Fail, what: &str) -> ConvertError {
    if let Some(e) = f.py.take() {
        return ConvertError::Py(e);
    }
    let path: String = f
        .tokens
        .iter()
        .rev()
        .map(|t| format!("/{}", escape_token(t)))
        .collect();
    ConvertError::Doc(Error::new(
        ErrorKind::Facade(f.kind),
        path,
        format!("invalid document ({what}): {}", f.message),
    ))
}

fn too_deep(limit: usize) -> Box<Fail> {
    Fail::new(
        FacadeKind::TooDeep,
        format!(
            "nesting deeper than {limit} levels (or a structure that contains itself); \
             max_depth= raises the limit for deeper trusted documents"
        ),
    )
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

/// Builds Python objects from a JSON answer of the facade.
pub(crate) fn json_to_py<'py>(py: Python<'py>, json: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let arena = Arena::new();
    // The facade's answers nest no deeper than its inputs (bounded by the
    // call's limit) plus the directives a created patch adds; the parser
    // never recurses, so no second limit is needed here.
    let opts = ParseOptions::default().with_max_depth(usize::MAX);
    let v = parse_json(&arena, json, &opts)
        .map_err(|e| PyValueError::new_err(format!("smpatch answered unreadable JSON: {e}")))?;
    value_to_py(py, v, &mut KeyCache::default())
}

/// The keys of an answer: one Python `str` per distinct object key.
/// Kubernetes objects repeat a few keys (`name`, `value`, `image`, ...)
/// thousands of times, and a reused `str` also keeps its hash for the dict
/// insert. Keys the engine carried over from documents read from Python
/// objects (same arena text: same address and length, see
/// [`Reader::into_keys`]) come back as the caller's own key objects.
#[derive(Default)]
pub(crate) struct KeyCache<'a, 'py> {
    keys: HashMap<&'a str, Bound<'py, PyString>>,
    /// Caller's key objects by the (address, length) of their arena text.
    read: HashMap<(usize, usize), Bound<'py, PyString>>,
    /// Items of the lists being built (a stack, as in [`Reader`]).
    items: Vec<Bound<'py, PyAny>>,
}

impl<'a, 'py> KeyCache<'a, 'py> {
    /// A cache holding the keys of [`Reader::into_keys`].
    pub(crate) fn seeded(py: Python<'py>, keys: Vec<(&'a str, Py<PyString>)>) -> Self {
        let mut read = HashMap::default();
        read.reserve(keys.len());
        for (text, obj) in keys {
            read.insert((text.as_ptr() as usize, text.len()), obj.into_bound(py));
        }
        KeyCache {
            read,
            ..KeyCache::default()
        }
    }

    fn key(&mut self, py: Python<'py>, key: &'a str) -> Bound<'py, PyString> {
        if !self.read.is_empty() {
            if let Some(s) = self.read.get(&(key.as_ptr() as usize, key.len())) {
                return s.clone();
            }
        }
        self.keys
            .entry(key)
            .or_insert_with(|| PyString::new(py, key))
            .clone()
    }
}

/// Builds the Python objects of an answer: `dict`, `list`, `str`, `int`
/// (any size, from the literal, never through a float), `float`, `bool`,
/// `None`.
pub(crate) fn value_to_py<'a, 'py>(
    py: Python<'py>,
    v: Value<'a>,
    keys: &mut KeyCache<'a, 'py>,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Number(n) => {
            if n.is_int() {
                match n.as_i64() {
                    Some(i) => i.into_pyobject(py)?.into_any(),
                    // Beyond i64: Python's int() of the literal, exact.
                    None => py.get_type::<PyInt>().call1((n.literal(),))?,
                }
            } else {
                PyFloat::new(py, n.as_f64()).into_any()
            }
        }
        Value::Array(items) => {
            // Built at its final size (no appends).
            let base = keys.items.len();
            for item in items {
                let obj = grow(|| value_to_py(py, *item, keys))?;
                keys.items.push(obj);
            }
            let list = PyList::new(py, keys.items.drain(base..))?;
            list.into_any()
        }
        Value::Object(o) => {
            let dict = PyDict::new(py);
            for (k, item) in o.iter() {
                dict.set_item(keys.key(py, k), grow(|| value_to_py(py, item, keys))?)?;
            }
            dict.into_any()
        }
    })
}
