//! Error locations built on the stack and only materialised on error.

use smpatch_patch_apply::push_pointer_token;

/// One step of the path from the document root to the value being processed.
/// A linked list on the call stack: building it costs nothing, turning it into
/// an RFC 6901 pointer happens only when an error is reported.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Seg<'p> {
    /// The document root.
    Root,
    /// An object member.
    Key(&'p Seg<'p>, &'p str),
    /// A list element.
    Index(&'p Seg<'p>, usize),
}

impl Seg<'_> {
    /// The RFC 6901 pointer of this position (`""` for the root).
    pub(crate) fn pointer(&self) -> String {
        let mut steps = Vec::new();
        let mut cur = self;
        loop {
            match cur {
                Seg::Root => break,
                Seg::Key(parent, k) => {
                    steps.push(Step::Key(k));
                    cur = parent;
                }
                Seg::Index(parent, i) => {
                    steps.push(Step::Index(*i));
                    cur = parent;
                }
            }
        }
        let mut out = String::new();
        for step in steps.iter().rev() {
            match step {
                Step::Key(k) => push_pointer_token(&mut out, k),
                Step::Index(i) => push_pointer_token(&mut out, &i.to_string()),
            }
        }
        out
    }
}

enum Step<'p> {
    Key(&'p str),
    Index(usize),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_escapes_tokens() {
        let root = Seg::Root;
        let a = Seg::Key(&root, "a/b");
        let i = Seg::Index(&a, 3);
        let c = Seg::Key(&i, "c~");
        assert_eq!(c.pointer(), "/a~1b/3/c~0");
        assert_eq!(root.pointer(), "");
    }
}
