//! Documents across the Python boundary, numbers kept exactly.
//!
//! In: a Python object tree (`dict`, `list`/`tuple`, `str`, `int` of any
//! size, `float`, `bool`, `None`) is written straight to compact JSON bytes;
//! `str`/`bytes` input is JSON text (passed through) or YAML (read with the
//! value crate's YAML reader, which resolves scalars as kubectl does, and
//! written as JSON with every literal kept). Out: JSON bytes are read with the
//! value crate's exact parser and built into Python objects: integer literals
//! become `int` (any size, never through a float), float literals `float`.
//!
//! Floats are written with Rust's shortest round-trip formatting, so a
//! `float` comes back as the same `float` (same `repr`). NaN and infinities
//! are not JSON and are refused.
//!
//! Depth is bounded ([`MAX_DEPTH`], the facade's default), so a deep or
//! cyclic Python structure is an error, never a stack overflow.

use crate::facade::Error;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple,
};
use smpatch::{ErrorKind, FacadeKind};
use smpatch_value::{parse_json, parse_yaml, to_json_string, Arena, ParseOptions, Value};
use std::io::Write;

/// Deepest nesting read from Python objects (the facade's document limit).
pub(crate) const MAX_DEPTH: usize = 256;

/// Why a Python object could not be written as JSON.
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
/// names the document in messages (`original`, `patch`, …).
pub(crate) fn document_bytes(obj: &Bound<'_, PyAny>, what: &str) -> Result<Vec<u8>, ConvertError> {
    if let Ok(s) = obj.cast::<PyString>() {
        let text = s.to_cow().map_err(ConvertError::Py)?;
        return text_bytes(text.as_bytes(), what).map_err(ConvertError::Doc);
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return text_bytes(b.as_bytes(), what).map_err(ConvertError::Doc);
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return text_bytes(&b.to_vec(), what).map_err(ConvertError::Doc);
    }
    let mut out = Vec::with_capacity(256);
    match write_value(&mut out, obj, 0) {
        Ok(()) => Ok(out),
        Err(mut f) => {
            if let Some(e) = f.py.take() {
                return Err(ConvertError::Py(e));
            }
            let path: String = f
                .tokens
                .iter()
                .rev()
                .map(|t| format!("/{}", escape_token(t)))
                .collect();
            Err(ConvertError::Doc(Error::new(
                ErrorKind::Facade(f.kind),
                path,
                format!("invalid document ({what}): {}", f.message),
            )))
        }
    }
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
fn text_bytes(text: &[u8], what: &str) -> Result<Vec<u8>, Error> {
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
            format!("invalid YAML document ({what}): {e}"),
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

fn write_str(out: &mut Vec<u8>, s: &str) {
    // serde_json's escaper: quotes, backslashes and control characters.
    // Writing into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// Writes a Python `str` as a JSON string. Under the 3.9 stable ABI the
/// UTF-8 text is only reachable as a new `bytes` object; borrowing from it
/// avoids a second copy.
fn write_py_str(out: &mut Vec<u8>, s: &Bound<'_, PyString>) -> Result<(), Box<Fail>> {
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
    write_str(out, text);
    Ok(())
}

fn write_value(out: &mut Vec<u8>, obj: &Bound<'_, PyAny>, depth: usize) -> Result<(), Box<Fail>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return write_py_str(out, s);
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        if depth >= MAX_DEPTH {
            return Err(too_deep());
        }
        out.push(b'{');
        for (i, (k, v)) in d.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let Ok(ks) = k.cast::<PyString>() else {
                let tn = type_name(&k);
                let shown = k.repr().map(|r| r.to_string()).unwrap_or_default();
                return Err(Fail::new(
                    FacadeKind::InvalidDocument,
                    format!("object keys must be str, not {tn} ({shown})"),
                ));
            };
            write_py_str(out, ks)?;
            out.push(b':');
            write_value(out, &v, depth + 1).map_err(|f| f.at(ks.to_string_lossy().into_owned()))?;
        }
        out.push(b'}');
        return Ok(());
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return write_items(out, l.iter(), depth);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return write_items(out, t.iter(), depth);
    }
    if obj.is_none() {
        out.extend_from_slice(b"null");
        return Ok(());
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        out.extend_from_slice(if b.is_true() { b"true" } else { b"false" });
        return Ok(());
    }
    if obj.cast::<PyInt>().is_ok() {
        if let Ok(n) = obj.extract::<i64>() {
            let _ = write!(out, "{n}");
            return Ok(());
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
        out.extend_from_slice(text.as_bytes());
        return Ok(());
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        if !v.is_finite() {
            return Err(Fail::new(
                FacadeKind::InvalidDocument,
                format!("{v} is not a JSON number (NaN and infinities cannot be written)"),
            ));
        }
        // `{:?}` is the shortest text that reads back as the same f64 and
        // keeps a `.` or an exponent, so it stays a float.
        let _ = write!(out, "{v:?}");
        return Ok(());
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

fn write_items<'py>(
    out: &mut Vec<u8>,
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    depth: usize,
) -> Result<(), Box<Fail>> {
    if depth >= MAX_DEPTH {
        return Err(too_deep());
    }
    out.push(b'[');
    for (i, v) in items.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_value(out, &v, depth + 1).map_err(|f| f.at(i.to_string()))?;
    }
    out.push(b']');
    Ok(())
}

fn too_deep() -> Box<Fail> {
    Fail::new(
        FacadeKind::TooDeep,
        format!("nesting deeper than {MAX_DEPTH} levels (or a structure that contains itself)"),
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
    // The facade's answers nest no deeper than its inputs; the margin
    // covers directives a created patch adds.
    let opts = ParseOptions::default().with_max_depth(4 * MAX_DEPTH);
    let v = parse_json(&arena, json, &opts)
        .map_err(|e| PyValueError::new_err(format!("smpatch answered unreadable JSON: {e}")))?;
    let mut keys = KeyCache::default();
    value_to_py(py, v, &mut keys)
}

/// One Python `str` per distinct object key of an answer: Kubernetes objects
/// repeat a few keys (`name`, `value`, `image`, ...) thousands of times, and
/// a reused `str` also keeps its hash for the dict insert.
#[derive(Default)]
struct KeyCache<'a, 'py> {
    map: rustc_hash::FxHashMap<&'a str, Bound<'py, PyString>>,
}

impl<'a, 'py> KeyCache<'a, 'py> {
    fn get(&mut self, py: Python<'py>, key: &'a str) -> Bound<'py, PyString> {
        self.map
            .entry(key)
            .or_insert_with(|| PyString::new(py, key))
            .clone()
    }
}

fn value_to_py<'a, 'py>(
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
            let list = PyList::empty(py);
            for item in items {
                list.append(value_to_py(py, *item, keys)?)?;
            }
            list.into_any()
        }
        Value::Object(o) => {
            let dict = PyDict::new(py);
            for (k, item) in o.iter() {
                dict.set_item(keys.get(py, k), value_to_py(py, item, keys)?)?;
            }
            dict.into_any()
        }
    })
}
