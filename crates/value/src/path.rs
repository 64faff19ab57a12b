//! Locations inside a document: the one path type every smpatch error uses.
//!
//! A walk over a tree keeps its position as a [`Path`], a linked list on the
//! call stack (building it costs nothing); only when an error is reported is
//! it turned into an RFC 6901 JSON pointer ([`Path::pointer`]). The parsers,
//! which are iterative and keep an explicit stack, push [`Step`]s instead and
//! render them with [`pointer_of`]. [`Value::pointer`](crate::Value::pointer) reads a pointer
//! back.
//!
//! ```
//! use smpatch_value::Path;
//! let root = Path::Root;
//! let spec = root.key("spec");
//! let first = spec.index(0);
//! assert_eq!(first.pointer(), "/spec/0");
//! ```

/// The nesting depth every smpatch entry point accepts by default (parsers,
/// apply, create, compose). serde_json uses 128; Kubernetes objects are
/// shallow, 256 leaves room for CRDs.
pub const DEFAULT_MAX_DEPTH: usize = 256;

/// One step from a container to a child.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step<'a> {
    /// An object member.
    Key(&'a str),
    /// A list element.
    Index(usize),
}

/// A position in a document: the root, or one [`Step`] below a parent
/// position that lives further up the call stack.
#[derive(Clone, Copy, Debug)]
pub enum Path<'p> {
    /// The document root (pointer `""`).
    Root,
    /// An object member of the parent.
    Key(&'p Path<'p>, &'p str),
    /// A list element of the parent.
    Index(&'p Path<'p>, usize),
}

impl<'p> Path<'p> {
    /// The member `key` of this position.
    #[inline]
    pub fn key(&'p self, key: &'p str) -> Path<'p> {
        Path::Key(self, key)
    }

    /// The element `i` of this position.
    #[inline]
    pub fn index(&'p self, i: usize) -> Path<'p> {
        Path::Index(self, i)
    }

    /// The steps from the root to here, outermost first.
    pub fn steps(&self) -> Vec<Step<'p>> {
        let mut steps = Vec::new();
        let mut cur = self;
        loop {
            match cur {
                Path::Root => break,
                Path::Key(parent, k) => {
                    steps.push(Step::Key(k));
                    cur = parent;
                }
                Path::Index(parent, i) => {
                    steps.push(Step::Index(*i));
                    cur = parent;
                }
            }
        }
        steps.reverse();
        steps
    }

    /// The RFC 6901 pointer of this position (`""` for the root).
    pub fn pointer(&self) -> String {
        pointer_of(self.steps())
    }

    /// The pointer of this position followed by `extra` steps.
    pub fn pointer_with<'s>(&self, extra: impl IntoIterator<Item = Step<'s>>) -> String {
        let mut out = self.pointer();
        for s in extra {
            push_step(&mut out, s);
        }
        out
    }
}

/// The RFC 6901 pointer of a sequence of steps, outermost first.
///
/// ```
/// use smpatch_value::{pointer_of, Step};
/// assert_eq!(pointer_of([Step::Key("a/b"), Step::Index(2)]), "/a~1b/2");
/// ```
pub fn pointer_of<'s>(steps: impl IntoIterator<Item = Step<'s>>) -> String {
    let mut out = String::new();
    for s in steps {
        push_step(&mut out, s);
    }
    out
}

/// Appends one step to a pointer.
pub fn push_step(pointer: &mut String, step: Step<'_>) {
    match step {
        Step::Key(k) => push_pointer_token(pointer, k),
        Step::Index(i) => {
            pointer.push('/');
            pointer.push_str(&i.to_string());
        }
    }
}

/// Appends one RFC 6901 reference token (escaping `~` and `/`) to a pointer.
///
/// ```
/// let mut p = String::new();
/// smpatch_value::push_pointer_token(&mut p, "a/b~c");
/// assert_eq!(p, "/a~1b~0c");
/// ```
pub fn push_pointer_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// The reference tokens of a pointer, unescaped (`~1` → `/`, `~0` → `~`);
/// `None` when the pointer is neither empty nor starts with `/`, or holds a
/// `~` not followed by `0` or `1`.
pub(crate) fn pointer_tokens(pointer: &str) -> Option<Vec<std::borrow::Cow<'_, str>>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    let mut out = Vec::new();
    for raw in rest.split('/') {
        if !raw.contains('~') {
            out.push(std::borrow::Cow::Borrowed(raw));
            continue;
        }
        let mut tok = String::with_capacity(raw.len());
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if c == '~' {
                match chars.next() {
                    Some('0') => tok.push('~'),
                    Some('1') => tok.push('/'),
                    _ => return None,
                }
            } else {
                tok.push(c);
            }
        }
        out.push(std::borrow::Cow::Owned(tok));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_escapes_tokens() {
        let root = Path::Root;
        let a = root.key("a/b");
        let i = a.index(3);
        let c = i.key("c~");
        assert_eq!(c.pointer(), "/a~1b/3/c~0");
        assert_eq!(root.pointer(), "");
        assert_eq!(i.pointer_with([Step::Key("x")]), "/a~1b/3/x");
    }

    #[test]
    fn value_pointer_lookup() {
        let arena = crate::Arena::new();
        let v = crate::parse_json(
            &arena,
            br#"{"a/b":{"c~d":[10,{"":"empty"}]},"l":[0,1,2,3,4,5,6,7,8,9,10,11]}"#,
            &crate::ParseOptions::default(),
        )
        .unwrap();
        let text = |p: &str| v.pointer(p).map(|x| crate::render(&x).into_owned());
        assert_eq!(text("/a~1b/c~0d/0").as_deref(), Some("10"));
        assert_eq!(text("/a~1b/c~0d/1/").as_deref(), Some("empty"));
        assert_eq!(text("/l/11").as_deref(), Some("11"));
        assert!(v.pointer("").is_some_and(|r| r.is_object()));
        // Not plain decimal indexes, out of range, through a scalar, malformed.
        for bad in [
            "/l/01",
            "/l/-",
            "/l/12",
            "/l/+1",
            "/l/",
            "/a~1b/c~0d/0/x",
            "a",
            "/a~2b",
            "/missing",
        ] {
            assert!(v.pointer(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn tokens_unescape() {
        assert_eq!(pointer_tokens("").unwrap().len(), 0);
        assert_eq!(pointer_tokens("/a~1b/~0c/").unwrap(), ["a/b", "~c", ""]);
        assert!(pointer_tokens("a").is_none());
        assert!(pointer_tokens("/a~2").is_none());
        assert!(pointer_tokens("/a~").is_none());
    }
}
