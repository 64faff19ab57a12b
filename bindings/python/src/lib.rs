//! smpatch for Python: the `smpatch._native` extension module (PyO3, abi3).
//!
//! Owns: the Python API (functions, `Schema`, the mapping of facade errors to
//! `smpatch.Error` / `smpatch.Conflict`) and the conversion of documents
//! between Python objects and JSON (`convert`). The Python package
//! (`python/smpatch/__init__.py`) defines the exception classes and
//! re-exports this module; `smpatch.pyi` is the typed surface.
//!
//! Must not: hold merge or diff logic, or call the engine crates except
//! through `facade` (the one module that couples to the smpatch facade).
//!
//! Invariant: documents are converted while holding the GIL; the facade call
//! itself runs detached from the interpreter (`Python::detach`), so threads
//! merge in parallel. A `Schema` is immutable and shared by reference.

mod convert;
mod facade;

use convert::{document_bytes, json_to_py, ConvertError};
use facade::{Answer, ApplyArgs, CreateArgs, Error, Op, SchemaRef};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes};
use std::path::PathBuf;

/// Raises a facade error as `smpatch.Conflict` (kind `conflict`) or
/// `smpatch.Error` (every other kind; a subclass of `ValueError`).
fn raise(py: Python<'_>, e: Error) -> PyErr {
    let class = if e.name() == "conflict" {
        "Conflict"
    } else {
        "Error"
    };
    let made = PyModule::import(py, "smpatch")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1((e.message(), e.name(), e.path())));
    match made {
        Ok(instance) => PyErr::from_value(instance),
        Err(err) => err,
    }
}

fn convert_error(py: Python<'_>, e: ConvertError) -> PyErr {
    match e {
        ConvertError::Doc(e) => raise(py, e),
        ConvertError::Py(e) => e,
    }
}

/// A compiled patch schema: which lists merge by which key, which use
/// `$retainKeys`, which are atomic. Immutable; share one across threads.
///
/// Build one with `Schema.embedded()` (the Kubernetes v1.37 built-in API),
/// `Schema.load(path_or_paths)` (OpenAPI v2/v3 JSON documents, CRD YAML, or
/// directories of them) or `Schema.schemaless()` (objects merge, every list
/// is replaced). `"apps/v1/Deployment" in schema` tells whether a type
/// (definition name or group/version/kind) is known.
#[pyclass(frozen, name = "Schema", module = "smpatch")]
struct PySchema {
    inner: SchemaRef,
}

#[pymethods]
impl PySchema {
    /// The embedded Kubernetes v1.37 built-in API schema (compiled once, on
    /// first use, and shared).
    #[staticmethod]
    fn embedded(py: Python<'_>) -> PyResult<Self> {
        let inner = py.detach(facade::embedded).map_err(|e| raise(py, e))?;
        Ok(PySchema { inner })
    }

    /// Loads schema files or directories: OpenAPI v2 (`definitions`), v3
    /// (`components.schemas`) or `$defs` JSON documents, and CRD YAML.
    /// Several paths merge in order (later names win). With
    /// `builtin=True` they are merged over the embedded Kubernetes schema,
    /// so one schema serves both built-in types and custom resources.
    #[staticmethod]
    #[pyo3(signature = (path_or_paths, *, builtin = false))]
    fn load(py: Python<'_>, path_or_paths: &Bound<'_, PyAny>, builtin: bool) -> PyResult<Self> {
        let paths: Vec<PathBuf> = match path_or_paths.extract::<PathBuf>() {
            Ok(p) => vec![p],
            Err(_) => path_or_paths.extract::<Vec<PathBuf>>().map_err(|_| {
                PyTypeError::new_err(
                    "Schema.load() takes a path (str or os.PathLike) or a list of paths",
                )
            })?,
        };
        let inner = py
            .detach(|| facade::load(&paths, builtin))
            .map_err(|e| raise(py, e))?;
        Ok(PySchema { inner })
    }

    /// No schema: objects merge key by key, every list is replaced whole,
    /// and no field lookup fails (the `type` argument is ignored).
    #[staticmethod]
    fn schemaless() -> Self {
        PySchema {
            inner: SchemaRef::Schemaless,
        }
    }

    /// True when the schema defines `name`: a definition name
    /// (`io.k8s.api.apps.v1.Deployment`) or a group/version/kind
    /// (`apps/v1/Deployment`, `v1/Pod`).
    fn __contains__(&self, name: &str) -> bool {
        self.inner.has_type(name)
    }

    fn __repr__(&self) -> &'static str {
        match self.inner {
            SchemaRef::Embedded(_) => "Schema.embedded()",
            SchemaRef::Loaded(_) => "<smpatch.Schema loaded from files>",
            SchemaRef::Schemaless => "Schema.schemaless()",
        }
    }
}

/// Converts the documents, runs `op` without the GIL and builds the answer.
fn call(
    py: Python<'_>,
    op: Op,
    docs: &[(&Bound<'_, PyAny>, &str)],
    schema: Option<&Bound<'_, PySchema>>,
    type_name: Option<&str>,
    as_bytes: bool,
) -> PyResult<Py<PyAny>> {
    let schema = match schema {
        Some(s) => s.get().inner.clone(),
        None => py.detach(facade::embedded).map_err(|e| raise(py, e))?,
    };
    let mut bytes = Vec::with_capacity(docs.len());
    for (obj, what) in docs {
        bytes.push(document_bytes(obj, what).map_err(|e| convert_error(py, e))?);
    }
    let answer = py
        .detach(|| facade::run(op, &bytes, &schema, type_name))
        .map_err(|e| raise(py, e))?;
    Ok(match answer {
        Answer::Json(b) if as_bytes => PyBytes::new(py, &b).into_any().unbind(),
        Answer::Json(b) => json_to_py(py, &b)?.unbind(),
        Answer::Bool(b) => PyBool::new(py, b).to_owned().into_any().unbind(),
    })
}

/// Merges a strategic merge `patch` into `original`, as the API server does.
///
/// Documents are dicts (what the kubernetes client returns), `str` or
/// `bytes` (JSON or YAML), or `None` (same as `{}`). Returns the merged
/// object as a dict, or as compact JSON `bytes` with `as_bytes=True`
/// (numbers written exactly as they were given). The inputs are never
/// changed.
///
/// `schema` defaults to `Schema.embedded()`; `type` names the document's
/// type (definition name or group/version/kind such as
/// `"apps/v1/Deployment"`) and defaults to the documents' `apiVersion` and
/// `kind`. Options keep their Rust names: `fix_quirks`, `compound_keys`,
/// `reject_duplicate_keys`, `max_depth` (see docs/ERRORS.md and the
/// smpatch crate's `ApplyOptions`).
///
/// Raises `smpatch.Error` (a `ValueError`) with `.kind`, `.path` (a JSON
/// pointer into the patch) and `.message`.
#[pyfunction]
#[pyo3(signature = (original, patch, *, schema = None, r#type = None, as_bytes = false,
    fix_quirks = false, compound_keys = false, reject_duplicate_keys = false, max_depth = None))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments, one per option
fn apply(
    py: Python<'_>,
    original: &Bound<'_, PyAny>,
    patch: &Bound<'_, PyAny>,
    schema: Option<&Bound<'_, PySchema>>,
    r#type: Option<&str>,
    as_bytes: bool,
    fix_quirks: bool,
    compound_keys: bool,
    reject_duplicate_keys: bool,
    max_depth: Option<usize>,
) -> PyResult<Py<PyAny>> {
    let op = Op::Apply(ApplyArgs {
        fix_quirks,
        compound_keys,
        reject_duplicate_keys,
        max_depth,
    });
    call(
        py,
        op,
        &[(original, "original"), (patch, "patch")],
        schema,
        r#type,
        as_bytes,
    )
}

/// The two-way patch that turns `original` into `modified` (what
/// `kubectl edit` sends). Empty text counts as `{}`.
///
/// Options: `fix_quirks`, `compound_keys`, `ignore_changes_and_additions`
/// (emit only deletions), `ignore_deletions` (emit no deletions),
/// `max_depth`. Other arguments as for `apply`.
#[pyfunction]
#[pyo3(signature = (original, modified, *, schema = None, r#type = None, as_bytes = false,
    fix_quirks = false, compound_keys = false, ignore_changes_and_additions = false,
    ignore_deletions = false, max_depth = None))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments, one per option
fn create_two_way(
    py: Python<'_>,
    original: &Bound<'_, PyAny>,
    modified: &Bound<'_, PyAny>,
    schema: Option<&Bound<'_, PySchema>>,
    r#type: Option<&str>,
    as_bytes: bool,
    fix_quirks: bool,
    compound_keys: bool,
    ignore_changes_and_additions: bool,
    ignore_deletions: bool,
    max_depth: Option<usize>,
) -> PyResult<Py<PyAny>> {
    let op = Op::CreateTwoWay(CreateArgs {
        fix_quirks,
        compound_keys,
        ignore_changes_and_additions,
        ignore_deletions,
        max_depth,
    });
    call(
        py,
        op,
        &[(original, "original"), (modified, "modified")],
        schema,
        r#type,
        as_bytes,
    )
}

/// The three-way patch of `kubectl apply`: `original` is the last applied
/// configuration, `modified` the new one, `current` the live object.
///
/// With `overwrite=False`, changes made on the server that the patch would
/// undo raise `smpatch.Conflict` (whose `.path` is the first conflicting
/// location). Options: `fix_quirks`, `compound_keys`, `max_depth`.
#[pyfunction]
#[pyo3(signature = (original, modified, current, *, overwrite = true, schema = None,
    r#type = None, as_bytes = false, fix_quirks = false, compound_keys = false,
    max_depth = None))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments, one per option
fn create_three_way(
    py: Python<'_>,
    original: &Bound<'_, PyAny>,
    modified: &Bound<'_, PyAny>,
    current: &Bound<'_, PyAny>,
    overwrite: bool,
    schema: Option<&Bound<'_, PySchema>>,
    r#type: Option<&str>,
    as_bytes: bool,
    fix_quirks: bool,
    compound_keys: bool,
    max_depth: Option<usize>,
) -> PyResult<Py<PyAny>> {
    let args = CreateArgs {
        fix_quirks,
        compound_keys,
        max_depth,
        ..CreateArgs::default()
    };
    call(
        py,
        Op::CreateThreeWay { overwrite, args },
        &[
            (original, "original"),
            (modified, "modified"),
            (current, "current"),
        ],
        schema,
        r#type,
        as_bytes,
    )
}

/// Whether two patches change the same path differently (`True`) or can
/// be applied in either order with the same result (`False`).
///
/// Options: `fix_quirks`, `compound_keys`, `max_depth`.
#[pyfunction]
#[pyo3(signature = (left, right, *, schema = None, r#type = None, fix_quirks = false,
    compound_keys = false, max_depth = None))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments, one per option
fn conflicts(
    py: Python<'_>,
    left: &Bound<'_, PyAny>,
    right: &Bound<'_, PyAny>,
    schema: Option<&Bound<'_, PySchema>>,
    r#type: Option<&str>,
    fix_quirks: bool,
    compound_keys: bool,
    max_depth: Option<usize>,
) -> PyResult<Py<PyAny>> {
    let args = CreateArgs {
        fix_quirks,
        compound_keys,
        max_depth,
        ..CreateArgs::default()
    };
    call(
        py,
        Op::Conflicts(args),
        &[(left, "left"), (right, "right")],
        schema,
        r#type,
        false,
    )
}

/// One patch equivalent to applying `first` and then `second`, when the two
/// do not conflict (check with `conflicts`). `$patch` directives of both
/// are carried through.
///
/// Options: `fix_quirks`, `compound_keys`, `max_depth`.
#[pyfunction]
#[pyo3(signature = (first, second, *, schema = None, r#type = None, as_bytes = false,
    fix_quirks = false, compound_keys = false, max_depth = None))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments, one per option
fn compose(
    py: Python<'_>,
    first: &Bound<'_, PyAny>,
    second: &Bound<'_, PyAny>,
    schema: Option<&Bound<'_, PySchema>>,
    r#type: Option<&str>,
    as_bytes: bool,
    fix_quirks: bool,
    compound_keys: bool,
    max_depth: Option<usize>,
) -> PyResult<Py<PyAny>> {
    let args = CreateArgs {
        fix_quirks,
        compound_keys,
        max_depth,
        ..CreateArgs::default()
    };
    call(
        py,
        Op::Compose(args),
        &[(first, "first"), (second, "second")],
        schema,
        r#type,
        as_bytes,
    )
}

/// Bench support (bindings/python/bench): seconds per call of the Rust
/// facade's `apply_bytes` and `apply_json` on the same JSON documents, with
/// the embedded schema and the type detected. Not part of the API.
#[pyfunction]
fn _time_facade_apply(
    py: Python<'_>,
    original: Vec<u8>,
    patch: Vec<u8>,
    iterations: u32,
) -> PyResult<(f64, f64)> {
    let schema = py.detach(facade::embedded).map_err(|e| raise(py, e))?;
    py.detach(|| facade::time_facade_apply(&original, &patch, &schema, iterations))
        .map_err(|e| raise(py, e))
}

/// The compiled part of the `smpatch` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Lets the bench refuse to time a debug build.
    m.add(
        "_build",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
    )?;
    m.add_class::<PySchema>()?;
    m.add_function(wrap_pyfunction!(apply, m)?)?;
    m.add_function(wrap_pyfunction!(create_two_way, m)?)?;
    m.add_function(wrap_pyfunction!(create_three_way, m)?)?;
    m.add_function(wrap_pyfunction!(conflicts, m)?)?;
    m.add_function(wrap_pyfunction!(compose, m)?)?;
    m.add_function(wrap_pyfunction!(_time_facade_apply, m)?)?;
    Ok(())
}
