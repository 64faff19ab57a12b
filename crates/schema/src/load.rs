//! Loading documents: format detection, CRDs, files, directories, merging.

use std::path::{Path, PathBuf};

use crate::compile::{open_crd_metadata, shift_node, Builder, Root};
use crate::doc::Doc;
use crate::error::{SchemaError, SchemaErrorKind};
use crate::model::{Gvk, Schema};
use smpatch_value::{
    parse_json, parse_yaml, Arena, DuplicateKeys, ParseError, ParseErrorKind, ParseOptions,
};

impl Schema {
    /// Compiles one parsed document: an OpenAPI v2 document (`definitions`),
    /// an OpenAPI v3 document (`components.schemas`), a JSON-Schema document
    /// with `$defs`, a CustomResourceDefinition, or a `List` of those.
    /// `source_name` prefixes error pointers.
    ///
    /// Where the schema keeps an order from the document (union members),
    /// it is the iteration order of `serde_json::Map`: document order when
    /// the build turns on serde_json's `preserve_order` feature, sorted keys
    /// otherwise. [`Schema::from_bytes`] always keeps document order.
    pub fn from_json_value(
        doc: &serde_json::Value,
        source_name: &str,
    ) -> Result<Schema, SchemaError> {
        let mut b = Builder::default();
        add_document(&mut b, doc, source_name)?;
        Ok(b.finish())
    }

    /// Parses and compiles one document from bytes. JSON is recognised by its
    /// first non-blank byte (`{`); anything else is read as YAML (possibly
    /// several `---`-separated documents, e.g. CRD manifests; the `n`-th
    /// document's errors name the source `source_name[n]`).
    pub fn from_bytes(bytes: &[u8], source_name: &str) -> Result<Schema, SchemaError> {
        Schema::from_bytes_with(bytes, source_name, &LoadOptions::default())
    }

    /// [`Schema::from_bytes`] with explicit reading limits.
    ///
    /// ```
    /// use smpatch_schema::{LoadOptions, Schema};
    /// let deep = format!("{}{}", "[".repeat(50), "]".repeat(50));
    /// let doc = format!(r#"{{"definitions":{{"a":{{"type":"object","x":{deep}}}}}}}"#);
    /// let opts = LoadOptions::default().with_max_depth(16);
    /// let err = Schema::from_bytes_with(doc.as_bytes(), "deep.json", &opts).unwrap_err();
    /// assert_eq!(err.kind.name(), "too_deep");
    /// assert!(Schema::from_bytes(doc.as_bytes(), "deep.json").is_ok());
    /// ```
    pub fn from_bytes_with(
        bytes: &[u8],
        source_name: &str,
        opts: &LoadOptions,
    ) -> Result<Schema, SchemaError> {
        let mut b = Builder::default();
        add_bytes(&mut b, bytes, source_name, opts)?;
        Ok(b.finish())
    }

    /// Loads a file, or every `*.json`, `*.yaml` and `*.yml` file directly in
    /// a directory (not recursively; in file-name order).
    ///
    /// Definitions with the same name in several documents: the last one
    /// loaded wins the name (and its GVKs); earlier documents keep pointing at
    /// their own definitions. Each document's `$ref`s resolve within that
    /// document only.
    pub fn load_path(path: impl AsRef<Path>) -> Result<Schema, SchemaError> {
        Schema::load_paths(&[path])
    }

    /// [`Schema::load_path`] for several files or directories, merged in order
    /// (later names win).
    pub fn load_paths<P: AsRef<Path>>(paths: &[P]) -> Result<Schema, SchemaError> {
        Schema::load_paths_with(paths, &LoadOptions::default())
    }

    /// [`Schema::load_paths`] with explicit reading limits (each file is
    /// held to them on its own).
    pub fn load_paths_with<P: AsRef<Path>>(
        paths: &[P],
        opts: &LoadOptions,
    ) -> Result<Schema, SchemaError> {
        let mut b = Builder::default();
        for p in paths {
            for file in expand(p.as_ref())? {
                let name = file.display().to_string();
                let bytes = read_capped(&file, &name, opts.max_input_bytes)?;
                add_bytes(&mut b, &bytes, &name, opts)?;
            }
        }
        Ok(b.finish())
    }

    /// Combines two schemas. `other`'s names and GVKs win over `self`'s.
    pub fn merge(mut self, other: Schema) -> Schema {
        let offset = self.nodes.len() as u32;
        self.nodes
            .extend(other.nodes.into_iter().map(|n| shift_node(n, offset)));
        for (name, id) in other.by_name {
            self.by_name
                .insert(name, crate::model::NodeId(id.0 + offset));
        }
        for (gvk, id) in other.by_gvk {
            self.by_gvk.insert(gvk, crate::model::NodeId(id.0 + offset));
        }
        self.index_checks();
        self
    }
}

/// Reads a file, stopping at `max` bytes: an endless or huge input
/// (`/dev/zero`, a FIFO) is refused with `too_large` after at most
/// `max + 1` bytes were read, never loaded first.
fn read_capped(file: &Path, name: &str, max: usize) -> Result<Vec<u8>, SchemaError> {
    use std::io::Read;
    let io = |e: std::io::Error| {
        SchemaError::new(SchemaErrorKind::Io, name, format!("cannot read: {e}"))
    };
    let f = std::fs::File::open(file).map_err(io)?;
    // The reported size (0 for devices and pipes) only presizes the buffer.
    let hint = f.metadata().map_or(0, |m| m.len());
    let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
    let mut bytes = Vec::with_capacity(usize::try_from(hint.min(limit)).unwrap_or(0));
    f.take(limit).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() > max {
        return Err(SchemaError::new(
            SchemaErrorKind::TooLarge,
            name,
            format!(
                "the file is larger than the limit of {max} bytes (LoadOptions::max_input_bytes); \
                 reading stopped there"
            ),
        ));
    }
    Ok(bytes)
}

fn expand(path: &Path) -> Result<Vec<PathBuf>, SchemaError> {
    let io = |e: std::io::Error| {
        SchemaError::new(
            SchemaErrorKind::Io,
            path.display().to_string(),
            format!("cannot read: {e}"),
        )
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).map_err(io)? {
        let p = entry.map_err(io)?.path();
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        if p.is_file() && matches!(ext, "json" | "yaml" | "yml") {
            files.push(p);
        }
    }
    if files.is_empty() {
        return Err(SchemaError::new(
            SchemaErrorKind::NotASchema,
            path.display().to_string(),
            "the directory holds no *.json, *.yaml or *.yml file",
        ));
    }
    files.sort();
    Ok(files)
}

/// Limits for reading schema documents (OpenAPI, CRDs). The parser and the
/// compiler are both iterative, so no depth overflows the stack; the limits
/// bound time and memory on hostile files.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Deepest JSON/YAML nesting accepted in one document. Default 2,048:
    /// real documents stay under 100 (a CRD nests two levels per field), the
    /// full Kubernetes swagger under 20.
    pub max_depth: usize,
    /// Largest file accepted, in bytes. Default 512 MiB.
    pub max_input_bytes: usize,
    /// YAML only: the most nodes alias expansion may add (see
    /// [`ParseOptions::max_yaml_alias_expansions`]). Default 1,000,000.
    pub max_yaml_alias_expansions: usize,
}

impl Default for LoadOptions {
    fn default() -> Self {
        let p = ParseOptions::default();
        LoadOptions {
            max_depth: 2048,
            max_input_bytes: p.max_input_bytes,
            max_yaml_alias_expansions: p.max_yaml_alias_expansions,
        }
    }
}

/// Builder-style setters (the struct is `#[non_exhaustive]`: start from
/// [`LoadOptions::default`] and set what differs).
///
/// ```
/// use smpatch_schema::LoadOptions;
/// let opts = LoadOptions::default().with_max_depth(16);
/// assert_eq!(opts.max_depth, 16);
/// ```
impl LoadOptions {
    /// Sets [`LoadOptions::max_depth`]: deepest nesting accepted in one document.
    #[must_use]
    pub fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// Sets [`LoadOptions::max_input_bytes`]: largest file accepted, in bytes.
    #[must_use]
    pub fn with_max_input_bytes(mut self, max_input_bytes: usize) -> Self {
        self.max_input_bytes = max_input_bytes;
        self
    }

    /// Sets [`LoadOptions::max_yaml_alias_expansions`]: the YAML alias expansion budget.
    #[must_use]
    pub fn with_max_yaml_alias_expansions(mut self, max_yaml_alias_expansions: usize) -> Self {
        self.max_yaml_alias_expansions = max_yaml_alias_expansions;
        self
    }
}

impl LoadOptions {
    /// The parser options for schema documents: these limits, and the last
    /// duplicate key wins (as the Go loaders have it).
    fn parse_options(&self) -> ParseOptions {
        ParseOptions::default()
            .with_max_depth(self.max_depth)
            .with_max_input_bytes(self.max_input_bytes)
            .with_max_yaml_alias_expansions(self.max_yaml_alias_expansions)
            .with_duplicate_keys(DuplicateKeys::LastWins)
    }
}

pub(crate) fn parse_error(e: &ParseError, source: &str) -> SchemaError {
    let kind = match e.kind {
        ParseErrorKind::TooDeep => SchemaErrorKind::TooDeep,
        ParseErrorKind::TooLarge => SchemaErrorKind::TooLarge,
        _ => SchemaErrorKind::Parse,
    };
    SchemaError::new(
        kind,
        format!("{source}:{}:{}", e.line, e.column),
        e.to_string(),
    )
}

pub(crate) fn add_bytes(
    b: &mut Builder,
    bytes: &[u8],
    source: &str,
    opts: &LoadOptions,
) -> Result<(), SchemaError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let first = bytes.iter().find(|c| !c.is_ascii_whitespace());
    let arena = Arena::with_capacity(bytes.len());
    if first == Some(&b'{') {
        let doc = parse_json(&arena, bytes, &opts.parse_options())
            .map_err(|e| parse_error(&e, source))?;
        return add_document(b, doc, source);
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        SchemaError::new(
            SchemaErrorKind::Parse,
            source,
            format!("the input is not UTF-8: {e}"),
        )
    })?;
    let docs =
        parse_yaml(&arena, text, &opts.parse_options()).map_err(|e| parse_error(&e, source))?;
    if docs.is_empty() {
        return Err(SchemaError::new(
            SchemaErrorKind::NotASchema,
            source,
            "the input holds no document",
        ));
    }
    for (i, doc) in docs.into_iter().enumerate() {
        let name = if i == 0 {
            source.to_owned()
        } else {
            format!("{source}[{i}]")
        };
        add_document(b, doc, &name)?;
    }
    Ok(())
}

/// Compiles one parsed document (see [`Schema::from_json_value`]).
pub(crate) fn add_document<'d, D: Doc<'d>>(
    b: &mut Builder,
    doc: D,
    source: &str,
) -> Result<(), SchemaError> {
    if !doc.is_object() {
        return Err(SchemaError::new(
            SchemaErrorKind::NotASchema,
            format!("{source}#"),
            format!(
                "expected a schema document (an object), but received a {}",
                doc.go_type()
            ),
        ));
    }
    let kind = doc.get("kind").and_then(|k| k.as_str());
    if kind == Some("CustomResourceDefinition") {
        return add_crd(b, doc, source);
    }
    if kind.is_some_and(|k| k.ends_with("List")) {
        if let Some(items) = doc.get("items").and_then(|i| i.elements()) {
            for item in items {
                add_document(b, item, source)?;
            }
            return Ok(());
        }
    }
    if doc.get("swagger").is_some() || doc.get("definitions").is_some() {
        let defs = doc.get("definitions").map(|d| (d, "/definitions"));
        b.add(source, defs, Vec::new())?;
        return Ok(());
    }
    if doc.get("openapi").is_some() || doc.get("components").is_some() {
        let defs = doc
            .get("components")
            .and_then(|c| c.get("schemas"))
            .map(|d| (d, "/components/schemas"));
        b.add(source, defs, Vec::new())?;
        return Ok(());
    }
    if let Some(defs) = doc.get("$defs") {
        b.add(source, Some((defs, "/$defs")), Vec::new())?;
        return Ok(());
    }
    Err(SchemaError::new(
        SchemaErrorKind::NotASchema,
        format!("{source}#"),
        "not an OpenAPI v2 document (definitions), an OpenAPI v3 document (components.schemas), a $defs document or a CustomResourceDefinition",
    ))
}

/// The definition name the API server publishes for a CRD version:
/// the group's DNS labels reversed, then version and kind
/// (`container.cnrm.cloud.google.com`, `v1beta1`, `ContainerCluster` →
/// `com.google.cloud.cnrm.container.v1beta1.ContainerCluster`).
pub fn crd_definition_name(group: &str, version: &str, kind: &str) -> String {
    let mut labels: Vec<&str> = group.split('.').collect();
    labels.reverse();
    format!("{}.{version}.{kind}", labels.join("."))
}

fn add_crd<'d, D: Doc<'d>>(b: &mut Builder, doc: D, source: &str) -> Result<(), SchemaError> {
    let bad = |ptr: &str, m: &str| {
        SchemaError::new(SchemaErrorKind::InvalidCrd, format!("{source}#{ptr}"), m)
    };
    let spec = doc
        .get("spec")
        .ok_or_else(|| bad("/spec", "a CustomResourceDefinition needs a spec"))?;
    let group = spec
        .get("group")
        .and_then(|g| g.as_str())
        .ok_or_else(|| bad("/spec/group", "spec.group must be a string"))?;
    let kind = spec
        .get("names")
        .and_then(|n| n.get("kind"))
        .and_then(|k| k.as_str())
        .ok_or_else(|| bad("/spec/names/kind", "spec.names.kind must be a string"))?;
    let legacy = spec
        .get("validation")
        .and_then(|v| v.get("openAPIV3Schema"))
        .filter(|s| s.is_object());
    let mut roots = Vec::new();
    let mut push = |version: &str, schema: D, pointer: String| {
        roots.push(Root {
            name: crd_definition_name(group, version, kind),
            schema,
            pointer,
            gvk: Some(Gvk {
                group: group.into(),
                version: version.into(),
                kind: kind.into(),
            }),
        })
    };
    match spec.get("versions").and_then(|v| v.elements()) {
        Some(versions) if !versions.is_empty() => {
            for (i, v) in versions.into_iter().enumerate() {
                let name = v.get("name").and_then(|n| n.as_str()).ok_or_else(|| {
                    bad(
                        &format!("/spec/versions/{i}/name"),
                        "version name must be a string",
                    )
                })?;
                let own = v
                    .get("schema")
                    .and_then(|s| s.get("openAPIV3Schema"))
                    .filter(|s| s.is_object());
                match (own, legacy) {
                    (Some(s), _) => push(
                        name,
                        s,
                        format!("/spec/versions/{i}/schema/openAPIV3Schema"),
                    ),
                    (None, Some(s)) => push(name, s, "/spec/validation/openAPIV3Schema".into()),
                    (None, None) => return Err(bad(
                        &format!("/spec/versions/{i}/schema"),
                        "the version has no schema.openAPIV3Schema and the CRD no spec.validation",
                    )),
                }
            }
        }
        _ => {
            let version = spec
                .get("version")
                .and_then(|v| v.as_str())
                .ok_or_else(|| {
                    bad(
                        "/spec/versions",
                        "a CustomResourceDefinition needs spec.versions",
                    )
                })?;
            let s = legacy
                .ok_or_else(|| bad("/spec/validation", "no spec.validation.openAPIV3Schema"))?;
            push(version, s, "/spec/validation/openAPIV3Schema".into());
        }
    }
    let ids = b.add(source, None, roots)?;
    for id in ids {
        open_crd_metadata(b, id);
    }
    Ok(())
}
