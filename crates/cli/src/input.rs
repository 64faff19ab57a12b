//! Reading the objects of `-f`, the way `kubectl` does: several `-f`, a
//! directory's `*.json`, `*.yaml` and `*.yml` files in name order (`-R`
//! descends into subdirectories), several documents per file, and `kind: List`
//! documents expanded to their items.
//!
//! A file that cannot be read or parsed, or a document that is not an object,
//! is a failure of its own: the other files' objects are still returned, so
//! the command reports every result and every error, as kubectl does.

use crate::{parse_texts, read_input, Failure, Limits};
use smpatch_value::{Arena, Value};
use std::path::{Path, PathBuf};

/// Where an object came from: its file, its document and, for the items of
/// a `kind: List` document, its item (for a List inside a List, the item of
/// each List from the outside in).
#[derive(Clone, Debug)]
pub(crate) struct Origin {
    /// The file name as given (`-` for stdin).
    pub file: String,
    /// The document's number in the file, from 1.
    pub document: usize,
    /// How many documents the file holds.
    pub documents: usize,
    /// The item's index in each enclosing `kind: List`'s `items`, outermost
    /// first; empty for a document that is no list item.
    pub items: Vec<usize>,
}

impl Origin {
    /// The object without a pointer, for errors located in something else
    /// (a JSON patch operation): `file`, `file: document N of M`, then
    /// `: item K` for a list item (`: item K/J` for item J of a List that
    /// is item K).
    pub fn label(&self) -> String {
        let mut s = if self.documents <= 1 {
            self.file.clone()
        } else {
            format!(
                "{}: document {} of {}",
                self.file, self.document, self.documents
            )
        };
        if !self.items.is_empty() {
            let path: Vec<String> = self.items.iter().map(usize::to_string).collect();
            s.push_str(&format!(": item {}", path.join("/")));
        }
        s
    }

    /// The location of `pointer` (a JSON pointer inside the object) for an
    /// error message: the file (`-` for stdin), then the document number
    /// when the file holds several, then the pointer (list items are
    /// located under `/items/N`, nested ones under `/items/N/items/M`),
    /// e.g. `deploy.yaml: /spec/replicas` or `all.yaml: document 2 of 3:
    /// /spec/replicas`.
    pub fn locate(&self, pointer: &str) -> String {
        let pointer = if self.items.is_empty() {
            if pointer.is_empty() {
                "/".to_owned()
            } else {
                pointer.to_owned()
            }
        } else {
            let mut p: String = self.items.iter().map(|i| format!("/items/{i}")).collect();
            p.push_str(pointer.trim_end_matches('/'));
            p
        };
        if self.documents <= 1 {
            format!("{}: {pointer}", self.file)
        } else {
            format!(
                "{}: document {} of {}: {pointer}",
                self.file, self.document, self.documents
            )
        }
    }

    /// Item `k` of the `kind: List` this origin locates.
    fn item(&self, k: usize) -> Origin {
        let mut o = self.clone();
        o.items.push(k);
        o
    }
}

/// One object to work on.
pub(crate) struct Object<'a> {
    pub value: Value<'a>,
    pub origin: Origin,
}

/// The files `-f` names: `-` and plain files as given; for a directory its
/// `*.json`, `*.yaml` and `*.yml` files in name order, and with `recursive`
/// those of its subdirectories too (each directory's entries in name order,
/// as kubectl walks them).
pub(crate) fn expand_paths(paths: &[PathBuf], recursive: bool) -> Result<Vec<PathBuf>, Failure> {
    let mut files = Vec::new();
    for p in paths {
        if p.as_os_str() != "-" && p.is_dir() {
            walk(p, recursive, &mut files)?;
        } else {
            files.push(p.clone());
        }
    }
    Ok(files)
}

fn walk(dir: &Path, recursive: bool, files: &mut Vec<PathBuf>) -> Result<(), Failure> {
    let name = dir.display().to_string();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Failure::unreadable(&name, &e))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(|e| Failure::unreadable(&name, &e))?;
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if recursive {
                walk(&p, recursive, files)?;
            }
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "json" | "yaml" | "yml"))
        {
            files.push(p);
        }
    }
    Ok(())
}

/// Reads and parses every file; returns the objects and, separately, the
/// failures of the files and documents that could not be read.
pub(crate) fn read_objects<'a>(
    arena: &'a Arena,
    files: &[PathBuf],
    limits: &Limits,
) -> (Vec<Object<'a>>, Vec<Failure>) {
    let mut objects = Vec::new();
    let mut failures = Vec::new();
    for path in files {
        let name = path.display().to_string();
        let bytes = match read_input(path, limits) {
            Ok(b) => arena.alloc_slice_copy(&b),
            Err(f) => {
                failures.push(f);
                continue;
            }
        };
        let docs = match parse_documents(arena, bytes, &name, limits) {
            Ok(d) => d,
            Err(f) => {
                failures.push(f);
                continue;
            }
        };
        objects_in(docs, &name, &mut objects, &mut failures);
    }
    (objects, failures)
}

/// The objects of `docs` (the documents of file `name`), every `kind:
/// List` replaced by its items, with their origins; a document or list
/// item that is not an object is a failure of its own, and the others are
/// still returned (kubectl's reader collects such errors and carries on).
pub(crate) fn objects_in<'a>(
    docs: Vec<Value<'a>>,
    name: &str,
    objects: &mut Vec<Object<'a>>,
    failures: &mut Vec<Failure>,
) {
    let documents = docs.len();
    for (i, doc) in docs.into_iter().enumerate() {
        let origin = Origin {
            file: name.to_owned(),
            document: i + 1,
            documents,
            items: Vec::new(),
        };
        match as_object(doc) {
            Ok(v) => expand_list(v, origin, objects, failures),
            Err(message) => {
                let at = if documents <= 1 {
                    name.to_owned()
                } else {
                    origin.locate("/")
                };
                failures.push(Failure::at(at, message));
            }
        }
    }
}

/// `doc` when it is an object (`null`, an empty document, is `{}`);
/// otherwise the message saying what it is. The caller names the file.
pub(crate) fn as_object(doc: Value<'_>) -> Result<Value<'_>, String> {
    match doc {
        Value::Null => Ok(Value::empty_object()),
        Value::Object(_) => Ok(doc),
        other => Err(format!(
            "the document must be an object, found {} [invalid_document]",
            other.kind().name()
        )),
    }
}

/// `v` as the objects it stands for: itself, or, for a `kind: List`, its
/// items, Lists inside Lists included. Nested Lists are expanded breadth
/// first, in kubectl's order (its `FlattenListVisitor`): the items of
/// `[A, List[B], C]` come as A, C, B. The walk is a loop over a queue, not
/// a recursion, so nesting is bounded by the parser's `--max-depth` alone
/// and cannot exhaust the stack.
fn expand_list<'a>(
    v: Value<'a>,
    origin: Origin,
    objects: &mut Vec<Object<'a>>,
    failures: &mut Vec<Failure>,
) {
    let mut queue = vec![(v, origin)];
    let mut next = 0;
    while let Some((v, origin)) = queue.get(next).cloned() {
        next += 1;
        match list_items(v) {
            ListItems::NotAList => objects.push(Object { value: v, origin }),
            ListItems::Items(items) => {
                for (k, item) in items.iter().enumerate() {
                    let origin = origin.item(k);
                    if item.is_object() {
                        queue.push((*item, origin));
                    } else {
                        failures.push(Failure::at(
                            origin.locate(""),
                            format!(
                                "a list item must be an object, found {} [invalid_document]",
                                item.kind().name()
                            ),
                        ));
                    }
                }
            }
            ListItems::Invalid(found) => failures.push(Failure::at(
                origin.locate("/items"),
                format!("the items of a List must be a list, found {found} [invalid_document]"),
            )),
        }
    }
}

/// What a document holds as a `kind: List`.
enum ListItems<'a> {
    /// Its kind does not end in `List`: one object.
    NotAList,
    /// The items (none for `items: null` or no `items`, as kubectl decodes
    /// a `v1.List` without items: nothing to work on).
    Items(&'a [Value<'a>]),
    /// `items` is neither a list nor null: the name of what it is.
    Invalid(&'static str),
}

/// The items of a document whose kind ends in `List` (what `kubectl get -o
/// yaml` prints for several objects).
fn list_items<'a>(v: Value<'a>) -> ListItems<'a> {
    let is_list = v
        .get("kind")
        .and_then(|k| k.as_str())
        .is_some_and(|k| k.ends_with("List"));
    if !is_list {
        return ListItems::NotAList;
    }
    match v.get("items") {
        None | Some(Value::Null) => ListItems::Items(&[]),
        Some(items) => match items.as_array() {
            Some(items) => ListItems::Items(items),
            None => ListItems::Invalid(items.kind().name()),
        },
    }
}

/// Every document of a JSON or YAML stream; empty YAML documents are skipped.
pub(crate) fn parse_documents<'a>(
    arena: &'a Arena,
    bytes: &'a [u8],
    name: &str,
    limits: &Limits,
) -> Result<Vec<Value<'a>>, Failure> {
    let docs = parse_texts(arena, bytes, name, limits, false)?;
    // The empty (`null`) documents of a YAML stream.
    Ok(docs.into_iter().filter(|d| !d.is_null()).collect())
}

/// `f` without a second statement of its position: a schema parse error is
/// located `file:LINE:COLUMN` and its message ends `at line LINE column
/// COLUMN (byte N)` again; the suffix goes.
pub(crate) fn once(f: Failure) -> Failure {
    let Some((head, tail)) = f.message.rsplit_once(" at line ") else {
        return f;
    };
    let Some((pos, kind)) = tail.split_once(')') else {
        return f;
    };
    let Some((line_col, _byte)) = pos.split_once(" (byte ") else {
        return f;
    };
    let Some((line, col)) = line_col.split_once(" column ") else {
        return f;
    };
    if f.location.ends_with(&format!(":{line}:{col}")) {
        let message = format!("{head}{kind}");
        Failure::at(f.location, message)
    } else {
        f
    }
}
