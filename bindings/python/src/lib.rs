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
//! Python objects are read straight into the engine's arena and answers
//! built straight from it (`call_tree`); only text in and bytes out goes
//! through the facade's bytes API (`call`).

mod convert;
mod facade;

use convert::{
    document_bytes, document_text, json_to_py, value_to_py, ConvertError, KeyCache, Reader,
};
use facade::{
    Answer, ApplyArgs, ApplyUnionFlags, CreateArgs, Error, ExtractArgs, FieldsArgs, Op, SchemaRef,
    TreeAnswer, UnionArgs, ViolationParts,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyList};
use smpatch_value::{to_json_string, Arena};
use std::path::PathBuf;

/// Violations as a list of `{"path", "rule", "message"}` dicts.
fn violation_list(py: Python<'_>, found: Vec<ViolationParts>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for (path, rule, message) in found {
        let d = PyDict::new(py);
        d.set_item("path", path)?;
        d.set_item("rule", rule)?;
        d.set_item("message", message)?;
        list.append(d)?;
    }
    Ok(list)
}

/// Raises a facade error as `smpatch.Conflict` (kind `conflict`) or
/// `smpatch.Error` (every other kind; a subclass of `ValueError`). A
/// `validation` error carries its violations in `.violations`.
fn raise(py: Python<'_>, e: Error) -> PyErr {
    let class = if e.name() == "conflict" {
        "Conflict"
    } else {
        "Error"
    };
    // The library's message for a document without apiVersion/kind goes on
    // with the Rust `TypeRef` forms: say the keyword arguments instead.
    let message = if e.is_untyped_document() {
        format!(
            "{}; add them, or name the type with type=\"group/version/Kind\" \
             (\"apps/v1/Deployment\"), or merge without one with \
             schema=smpatch.Schema.schemaless()",
            Error::UNTYPED_DOCUMENT
        )
    } else if e.name() == "unknown_type" {
        // The keyword arguments that fix it, in Python's words.
        format!(
            "{} (schema=smpatch.Schema.load(path, builtin=True) adds a CRD or OpenAPI \
             document; type=\"group/version/Kind\" names the type)",
            e.message()
        )
    } else {
        e.message().to_owned()
    };
    let made = violation_list(py, facade::violations(&e)).and_then(|found| {
        PyModule::import(py, "smpatch")
            .and_then(|m| m.getattr(class))
            .and_then(|c| c.call1((message, e.name(), e.path(), found)))
    });
    match made {
        Ok(instance) => PyErr::from_value(instance),
        Err(err) => err,
    }
}

/// [`raise`] where no `py` token is at hand (the engine functions' option
/// checks).
fn raise_attached(e: Error) -> PyErr {
    Python::attach(|py| raise(py, e))
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
    let all_text = docs.iter().all(|(o, _)| {
        o.is_instance_of::<PyString>()
            || o.is_instance_of::<PyBytes>()
            || o.is_instance_of::<PyByteArray>()
    });
    if let Some(tree) = facade::tree_op(&op).filter(|_| !(all_text && as_bytes)) {
        let call = TreeCall {
            op: &tree,
            patch_type: op.patch_type(),
            max_depth: op.max_depth(),
        };
        return call_tree(py, &call, docs, &schema, type_name, as_bytes)
            .map_err(|e| convert_error(py, e));
    }
    let mut bytes = Vec::with_capacity(docs.len());
    for (obj, what) in docs {
        bytes.push(document_bytes(obj, what, op.max_depth()).map_err(|e| convert_error(py, e))?);
    }
    let answer = py
        .detach(|| facade::run(op, &bytes, &schema, type_name))
        .map_err(|e| raise(py, e))?;
    Ok(match answer {
        Answer::Json(b) if as_bytes => PyBytes::new(py, &b).into_any().unbind(),
        Answer::Json(b) => json_to_py(py, &b)?.unbind(),
        Answer::Bool(b) => PyBool::new(py, b).to_owned().into_any().unbind(),
        Answer::Normalized(b, cleared) => {
            let object = if as_bytes {
                PyBytes::new(py, &b).into_any()
            } else {
                json_to_py(py, &b)?
            };
            (object, cleared).into_pyobject(py)?.into_any().unbind()
        }
        Answer::Violations(found) => violation_list(py, found)?.into_any().unbind(),
    })
}

/// [`call`] for Python objects (or a mix of objects and text): the
/// documents are read straight into the engine's arena and the answer is
/// built straight from it (no JSON text in between; text documents are
/// parsed into the same arena). Only text in and bytes out takes the bytes
/// API, which is the same engine call.
///
/// The arena cannot cross threads, so the call detaches from the
/// interpreter first and attaches again to read the documents and to build
/// the answer: the engine itself runs without the GIL.
/// What [`call_tree`] runs: the engine op, the patch type of `apply` and
/// `create_three_way`, and the call's `max_depth` option (`None`: not
/// given), which sets how deep Python objects are read.
struct TreeCall<'o> {
    op: &'o smpatch::ops::Op,
    patch_type: smpatch::apply_flow::ApplyPatchType,
    max_depth: Option<usize>,
}

fn call_tree(
    py: Python<'_>,
    call: &TreeCall<'_>,
    docs: &[(&Bound<'_, PyAny>, &str)],
    schema: &SchemaRef,
    type_name: Option<&str>,
    as_bytes: bool,
) -> Result<Py<PyAny>, ConvertError> {
    let op = call.op;
    // Text documents as JSON bytes (YAML converted), owned here so that the
    // values parsed from them (which borrow their strings) outlive the arena.
    let mut texts = Vec::with_capacity(docs.len());
    let mut objects = Vec::with_capacity(docs.len());
    // The first text that fails to convert waits for its turn below, so
    // that the first bad document in argument order is the one reported.
    let mut text_error: Option<(usize, ConvertError)> = None;
    for (i, (obj, what)) in docs.iter().enumerate() {
        texts.push(match document_text(obj, what) {
            Some(Ok(t)) => Some(t),
            Some(Err(e)) => {
                text_error.get_or_insert((i, e));
                None
            }
            None => None,
        });
        objects.push(((*obj).clone().unbind(), *what));
    }
    py.detach(|| {
        let arena = Arena::new();
        let (values, keys) = Python::attach(|py| {
            let mut reader = Reader::new(&arena, call.max_depth);
            let mut values = Vec::with_capacity(objects.len());
            for (i, ((obj, what), text)) in objects.iter().zip(&texts).enumerate() {
                if text_error.as_ref().is_some_and(|(at, _)| *at == i) {
                    if let Some((_, e)) = text_error.take() {
                        return Err(e);
                    }
                }
                let value = match text {
                    Some(t) => facade::read_text(&arena, t, op, what),
                    None => facade::check_object(reader.document(obj.bind(py), what)?, what),
                };
                values.push(value.map_err(ConvertError::Doc)?);
            }
            Ok::<_, ConvertError>((values, reader.into_keys()))
        })?;
        // `keys` holds references to Python objects: it is dropped while
        // attached (a reference dropped while detached is queued by PyO3 and
        // released later, at a cost per object).
        let answer = match facade::run_tree(&arena, op, call.patch_type, values, schema, type_name)
        {
            Ok(answer) => answer,
            Err(e) => {
                Python::attach(move |_| drop(keys));
                return Err(ConvertError::Doc(e));
            }
        };
        let text = match &answer {
            TreeAnswer::Document(v) | TreeAnswer::Normalized(v, _) if as_bytes => {
                Some(to_json_string(v).into_bytes())
            }
            _ => None,
        };
        Python::attach(move |py| {
            let mut keys = if text.is_some() {
                KeyCache::default()
            } else {
                KeyCache::seeded(py, keys)
            };
            let mut object = |v| match &text {
                Some(t) => Ok(PyBytes::new(py, t).into_any()),
                None => value_to_py(py, v, &mut keys),
            };
            let answer = match answer {
                TreeAnswer::Document(v) => object(v)?,
                TreeAnswer::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
                TreeAnswer::Normalized(v, cleared) => {
                    (object(v)?, cleared).into_pyobject(py)?.into_any()
                }
            };
            Ok(answer.unbind())
        })
        .map_err(ConvertError::Py)
    })
}

/// Defines the engine functions: each is a `#[pyfunction]` taking `py`,
/// its documents and leading arguments (before `;`), then `schema` and
/// `type` (every function has them), then its keyword options (after `;`).
/// The block turns the arguments into the op, the documents to convert
/// (with their names for errors) and `as_bytes`; [`call`] does the rest.
macro_rules! engine_functions {
    ($(
        $(#[doc = $doc:literal])*
        #[pyo3($($sig:tt)*)]
        fn $name:ident($($arg:ident: $arg_ty:ty),+; $($opt:ident: $opt_ty:ty),+) $build:block
    )+) => {$(
        $(#[doc = $doc])*
        #[pyfunction]
        #[pyo3($($sig)*)]
        #[allow(clippy::too_many_arguments)] // Python keyword arguments, one per option
        fn $name(
            py: Python<'_>,
            $($arg: $arg_ty,)+
            schema: Option<&Bound<'_, PySchema>>,
            r#type: Option<&str>,
            $($opt: $opt_ty,)+
        ) -> PyResult<Py<PyAny>> {
            let (op, docs, as_bytes): (Op, Vec<(&Bound<'_, PyAny>, &str)>, bool) = $build;
            call(py, op, &docs, schema, r#type, as_bytes)
        }
    )+};
}

/// `new`, and `old` when given, as documents to convert.
fn new_and_old<'a, 'py>(
    new: &'a Bound<'py, PyAny>,
    old: Option<&'a Bound<'py, PyAny>>,
) -> Vec<(&'a Bound<'py, PyAny>, &'static str)> {
    let mut docs = vec![(new, "new")];
    docs.extend(old.map(|o| (o, "old")));
    docs
}

engine_functions! {
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
    /// `patch_type` (the names of `smpatch apply --type`): `"strategic"`
    /// (default), `"merge"` (`patch` is an RFC 7386 JSON merge patch, merged
    /// as the API server merges one: no schema, lists replaced whole, `None`
    /// deletes; kubernetes/kubernetes#58414) or `"auto"` (strategic when the
    /// embedded Kubernetes schema has the documents' `apiVersion`/`kind`,
    /// merge for every other kind, as kubectl chooses).
    ///
    /// `normalize_unions=True` runs the server's write pipeline after the
    /// merge, as the batch protocol's `apply` option of that name and
    /// `smpatch patch --normalize-unions` do: the merged object's unions are
    /// normalized against `original` (KEP-1027) and validated, and the call
    /// answers `(object, cleared)` as `server_apply` does (the same call).
    /// It takes the union options of `normalize` by the same names:
    /// `ratcheting` (default `False`), `check_enums` (default `True`),
    /// `non_discriminated_update` (default `False`); `max_depth` is one
    /// limit for the merge and the union pass. A union option without
    /// `normalize_unions=True`, or `normalize_unions=True` with a
    /// `patch_type` other than `"strategic"`, raises `smpatch.Error` kind
    /// `invalid_request`.
    ///
    /// Raises `smpatch.Error` (a `ValueError`) with `.kind`, `.path` (a JSON
    /// pointer into the patch) and `.message`.
    #[pyo3(signature = (original, patch, *, schema = None, r#type = None, as_bytes = false,
        fix_quirks = false, compound_keys = false, reject_duplicate_keys = false, max_depth = None,
        patch_type = "strategic", normalize_unions = false, ratcheting = None, check_enums = None,
        non_discriminated_update = None))]
    fn apply(original: &Bound<'_, PyAny>, patch: &Bound<'_, PyAny>;
        as_bytes: bool, fix_quirks: bool, compound_keys: bool, reject_duplicate_keys: bool,
        max_depth: Option<usize>, patch_type: &str, normalize_unions: bool,
        ratcheting: Option<bool>, check_enums: Option<bool>,
        non_discriminated_update: Option<bool>) {
        let patch_type = facade::patch_type(patch_type).map_err(raise_attached)?;
        let args = ApplyArgs {
            fix_quirks, compound_keys, reject_duplicate_keys, max_depth, patch_type,
        };
        let flags = ApplyUnionFlags { ratcheting, check_enums, non_discriminated_update };
        let op = facade::apply_op(args, normalize_unions, flags).map_err(raise_attached)?;
        (op, vec![(original, "original"), (patch, "patch")], as_bytes)
    }

    /// The two-way patch that turns `original` into `modified` (what
    /// `kubectl edit` sends). Empty text counts as `{}`.
    ///
    /// Options: `fix_quirks`, `compound_keys`, `ignore_changes_and_additions`
    /// (emit only deletions), `ignore_deletions` (emit no deletions),
    /// `max_depth`. Other arguments as for `apply`.
    #[pyo3(signature = (original, modified, *, schema = None, r#type = None, as_bytes = false,
        fix_quirks = false, compound_keys = false, ignore_changes_and_additions = false,
        ignore_deletions = false, max_depth = None))]
    fn create_two_way(original: &Bound<'_, PyAny>, modified: &Bound<'_, PyAny>;
        as_bytes: bool, fix_quirks: bool, compound_keys: bool, ignore_changes_and_additions: bool,
        ignore_deletions: bool, max_depth: Option<usize>) {
        let args = CreateArgs {
            fix_quirks, compound_keys, ignore_changes_and_additions, ignore_deletions, max_depth,
        };
        (Op::CreateTwoWay(args), vec![(original, "original"), (modified, "modified")], as_bytes)
    }

    /// The three-way patch of `kubectl apply`: `original` is the last applied
    /// configuration, `modified` the new one, `current` the live object.
    ///
    /// With `overwrite=False`, changes made on the server that the patch would
    /// undo raise `smpatch.Conflict` (whose `.path` is the first conflicting
    /// location). Options: `fix_quirks`, `compound_keys`, `max_depth`.
    ///
    /// `patch_type="merge"` answers kubectl's three-way JSON merge patch for
    /// kinds without a Go type (custom resources; kubernetes/kubernetes#58414):
    /// no schema, lists replaced whole, no conflict check (`overwrite` does
    /// not apply, as in kubectl); `"auto"` chooses as kubectl does (strategic
    /// when the embedded Kubernetes schema has the documents' type, merge
    /// otherwise); `"strategic"` is the default.
    #[pyo3(signature = (original, modified, current, *, overwrite = true, schema = None,
        r#type = None, as_bytes = false, fix_quirks = false, compound_keys = false,
        max_depth = None, patch_type = "strategic"))]
    fn create_three_way(original: &Bound<'_, PyAny>, modified: &Bound<'_, PyAny>,
        current: &Bound<'_, PyAny>, overwrite: bool;
        as_bytes: bool, fix_quirks: bool, compound_keys: bool, max_depth: Option<usize>,
        patch_type: &str) {
        let patch_type = facade::patch_type(patch_type).map_err(raise_attached)?;
        let args = CreateArgs::common(fix_quirks, compound_keys, max_depth);
        let docs = vec![(original, "original"), (modified, "modified"), (current, "current")];
        (Op::CreateThreeWay { overwrite, args, patch_type }, docs, as_bytes)
    }

    /// Whether two patches change the same path differently (`True`) or can
    /// be applied in either order with the same result (`False`).
    ///
    /// Options: `fix_quirks`, `compound_keys`, `max_depth`.
    #[pyo3(signature = (left, right, *, schema = None, r#type = None, fix_quirks = false,
        compound_keys = false, max_depth = None))]
    fn conflicts(left: &Bound<'_, PyAny>, right: &Bound<'_, PyAny>;
        fix_quirks: bool, compound_keys: bool, max_depth: Option<usize>) {
        let args = CreateArgs::common(fix_quirks, compound_keys, max_depth);
        (Op::Conflicts(args), vec![(left, "left"), (right, "right")], false)
    }

    /// One patch equivalent to applying `first` and then `second`, when the two
    /// do not conflict (check with `conflicts`). `$patch` directives of both
    /// are carried through.
    ///
    /// Options: `fix_quirks`, `compound_keys`, `max_depth`.
    #[pyo3(signature = (first, second, *, schema = None, r#type = None, as_bytes = false,
        fix_quirks = false, compound_keys = false, max_depth = None))]
    fn compose(first: &Bound<'_, PyAny>, second: &Bound<'_, PyAny>;
        as_bytes: bool, fix_quirks: bool, compound_keys: bool, max_depth: Option<usize>) {
        let args = CreateArgs::common(fix_quirks, compound_keys, max_depth);
        (Op::Compose(args), vec![(first, "first"), (second, "second")], as_bytes)
    }

    /// Normalizes the unions (one-of fields) of `new` against `old` as the API
    /// server does on write (KEP-1027), then validates the result.
    ///
    /// `old` is the stored object; `None` means `new` is being created (which
    /// is not the same as a stored `{}`). Returns a tuple `(object, cleared)`:
    /// the normalized object (a dict, or compact JSON `bytes` with
    /// `as_bytes=True`) and the JSON pointers of the members normalization
    /// cleared, in document order. The inputs are never changed.
    ///
    /// Options keep their Rust names (`UnionOptions`) and defaults, the same
    /// as the batch protocol's and the CLI's: `non_discriminated_update`,
    /// `ratcheting`, `check_enums` (default `True`), `max_depth` (default
    /// 256, for reading the documents too). Other arguments as for `apply`.
    ///
    /// Raises `smpatch.Error` of kind `validation` when the normalized object
    /// breaks a union or enum rule; its `.violations` lists every one found as
    /// dicts `{"path", "rule", "message"}` (rules `V1`…`V5`, `enum`).
    #[pyo3(signature = (new, old = None, *, schema = None, r#type = None, as_bytes = false,
        non_discriminated_update = false, ratcheting = false, check_enums = true, max_depth = None))]
    fn normalize(new: &Bound<'_, PyAny>, old: Option<&Bound<'_, PyAny>>;
        as_bytes: bool, non_discriminated_update: bool, ratcheting: bool, check_enums: bool,
        max_depth: Option<usize>) {
        let args = UnionArgs { non_discriminated_update, ratcheting, check_enums, max_depth };
        let op = Op::Normalize { args, has_old: old.is_some() };
        (op, new_and_old(new, old), as_bytes)
    }

    /// Every union (KEP-1027 rules `V1`…`V5`) and enum (KEP-2887) violation of
    /// `new` as written, judged against `old` (`None`: `new` is being
    /// created); nothing is normalized.
    ///
    /// Returns a list of dicts `{"path": <JSON pointer>, "rule": "V3",
    /// "message": ...}` in document order; an empty list means valid. Options
    /// and other arguments as for `normalize`.
    #[pyo3(signature = (new, old = None, *, schema = None, r#type = None,
        non_discriminated_update = false, ratcheting = false, check_enums = true, max_depth = None))]
    fn validate(new: &Bound<'_, PyAny>, old: Option<&Bound<'_, PyAny>>;
        non_discriminated_update: bool, ratcheting: bool, check_enums: bool, max_depth: Option<usize>) {
        let args = UnionArgs { non_discriminated_update, ratcheting, check_enums, max_depth };
        let op = Op::Validate { args, has_old: old.is_some() };
        (op, new_and_old(new, old), false)
    }

    /// The server's write pipeline (KEP-1027): merges `patch` into `original`
    /// (as `apply`), normalizes the result's unions against `original` and
    /// validates it.
    ///
    /// Returns `(object, cleared)` as `normalize` does and raises as
    /// `normalize` does. Options: those of `apply` (`fix_quirks`,
    /// `compound_keys`, `reject_duplicate_keys`, `max_depth`) and of
    /// `normalize` (`non_discriminated_update`, `ratcheting`, `check_enums`).
    #[pyo3(signature = (original, patch, *, schema = None, r#type = None, as_bytes = false,
        fix_quirks = false, compound_keys = false, reject_duplicate_keys = false, max_depth = None,
        non_discriminated_update = false, ratcheting = false, check_enums = true))]
    fn server_apply(original: &Bound<'_, PyAny>, patch: &Bound<'_, PyAny>;
        as_bytes: bool, fix_quirks: bool, compound_keys: bool, reject_duplicate_keys: bool,
        max_depth: Option<usize>, non_discriminated_update: bool, ratcheting: bool, check_enums: bool) {
        let apply = ApplyArgs {
            fix_quirks, compound_keys, reject_duplicate_keys, max_depth,
            patch_type: Default::default(),
        };
        let unions = UnionArgs { non_discriminated_update, ratcheting, check_enums, max_depth };
        let op = Op::ServerApply { apply, unions };
        (op, vec![(original, "original"), (patch, "patch")], as_bytes)
    }

    /// The field set of `obj` as server-side apply records it (KEP-2155): a
    /// FieldsV1 dict (`{"f:spec": {"f:replicas": {}}}`), or its canonical JSON
    /// `bytes` (as the API server stores it) with `as_bytes=True`.
    ///
    /// `shape` (the batch protocol's `options.shape`, `smpatch fields
    /// --shape`): `"apply"` (default: what the server records for an applier
    /// that sent `obj`) or `"update"` (what an `Update` that created `obj`
    /// records: every node a member, `"."` included); another name raises
    /// `smpatch.Error` kind `invalid_request`.
    ///
    /// Options keep their Rust names (`FieldsOptions`): `strip_server_fields`
    /// (default `True`: drops `f:apiVersion`, `f:kind`, `f:metadata.f:name`, …),
    /// `allow_duplicates` (default: `False` for `"apply"`, `True` for
    /// `"update"`), `max_depth`. Other arguments as for `apply`.
    #[pyo3(signature = (obj, *, schema = None, r#type = None, as_bytes = false,
        strip_server_fields = true, allow_duplicates = None, max_depth = None, shape = "apply"))]
    fn fields(obj: &Bound<'_, PyAny>;
        as_bytes: bool, strip_server_fields: bool, allow_duplicates: Option<bool>,
        max_depth: Option<usize>, shape: &str) {
        let update = facade::fields_shape(shape).map_err(raise_attached)?;
        let args = FieldsArgs { update, strip_server_fields, allow_duplicates, max_depth };
        (Op::Fields(args), vec![(obj, "object")], as_bytes)
    }

    /// The apply configuration that field manager `manager` owns in the live
    /// object `obj` (client-go's "extract", KEP-2155): the object's values at
    /// the leaves of the manager's `Apply` entry in `metadata.managedFields`,
    /// plus `apiVersion`, `kind`, `metadata.name` and `metadata.namespace`.
    ///
    /// Options keep their Rust names (`ExtractOptions`): `subresource` (whose
    /// entry is used; default the main resource), `include_key_fields`,
    /// `validate` (check the object against the schema first; default `True`),
    /// `max_depth`; `strict_api_version=True` is `api_version_check = Strict`
    /// (the entry's apiVersion must match the object's) and `reference=True`
    /// starts from `ExtractOptions::reference()` (client-go's behaviour:
    /// `None` for emptied nodes, identity only when the manager has no entry).
    ///
    /// Raises `smpatch.Error` of kind `no_apply_entry` when the manager has no
    /// `Apply` entry (unless `reference=True`). `missing_entry` (the batch
    /// protocol's option of that name) decides that case by itself:
    /// `"error"` (the default) raises, `"identity"` answers the identity
    /// fields only (`apiVersion`, `kind`, name, namespace); another value
    /// raises kind `invalid_request`.
    #[pyo3(signature = (obj, manager, *, subresource = None, schema = None, r#type = None,
        as_bytes = false, reference = false, strict_api_version = false,
        include_key_fields = false, validate = true, max_depth = None, missing_entry = None))]
    fn extract(obj: &Bound<'_, PyAny>, manager: String, subresource: Option<String>;
        as_bytes: bool, reference: bool, strict_api_version: bool, include_key_fields: bool,
        validate: bool, max_depth: Option<usize>, missing_entry: Option<&str>) {
        let subresource = subresource.unwrap_or_default();
        let missing_entry = missing_entry
            .map(facade::missing_entry)
            .transpose()
            .map_err(raise_attached)?;
        let args = ExtractArgs {
            manager, subresource, reference, strict_api_version, include_key_fields, validate,
            max_depth, missing_entry,
        };
        (Op::Extract(args), vec![(obj, "object")], as_bytes)
    }
}

/// Which field managers own each path of the live object `obj` (its
/// `metadata.managedFields`, Apply and Update entries; KEP-2155), as
/// `smpatch owners` prints it: a list of `{"path": "f:spec.f:replicas",
/// "owners": [{"manager", "operation", "subresource" (when set),
/// "apiVersion"}]}` dicts sorted by path, or compact JSON `bytes` with
/// `as_bytes=True`. Needs no schema. Documents as for `apply`; nested
/// deeper than `max_depth` levels (default 256, as the batch op `owners`)
/// raises kind `too_deep` naming the first node past the limit, a malformed
/// entry kind `malformed_managed_fields` naming it.
#[pyfunction]
#[pyo3(signature = (obj, *, as_bytes = false, max_depth = None))]
fn owners(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    as_bytes: bool,
    max_depth: Option<usize>,
) -> PyResult<Py<PyAny>> {
    let bytes = document_bytes(obj, "object", max_depth).map_err(|e| convert_error(py, e))?;
    let table = py
        .detach(|| facade::owners(&bytes, max_depth))
        .map_err(|e| raise(py, e))?;
    Ok(if as_bytes {
        PyBytes::new(py, &table).into_any().unbind()
    } else {
        json_to_py(py, &table)?.unbind()
    })
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
    m.add_function(wrap_pyfunction!(normalize, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(server_apply, m)?)?;
    m.add_function(wrap_pyfunction!(fields, m)?)?;
    m.add_function(wrap_pyfunction!(extract, m)?)?;
    m.add_function(wrap_pyfunction!(owners, m)?)?;
    m.add_function(wrap_pyfunction!(_time_facade_apply, m)?)?;
    Ok(())
}
