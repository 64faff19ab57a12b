//! The walk context every recursive engine carries: where it is in the
//! document ([`Path`], rendered only on error), where it is in the schema
//! ([`Cursor`]), and how deep it went (a guard against deep input, with the
//! call stack grown on the heap when it runs low).
//!
//! Apply's merge, the diff, conflict detection and compose walk value and
//! schema together; so do the union pass and field sets. Each takes a
//! [`Walk`] and descends with [`Walk::key`] / [`Walk::index`], which check
//! the depth limit; the engine maps [`TooDeep`] to its own error kind.
//!
//! ```
//! use smpatch_schema::{Cursor, Walk};
//! use smpatch_value::Path;
//!
//! fn depth_of(v: &serde_json::Value, w: Walk<'_, '_>) -> Result<usize, String> {
//!     smpatch_schema::grow_stack(|| match v {
//!         serde_json::Value::Array(items) => {
//!             let mut deepest = w.depth();
//!             for (i, item) in items.iter().enumerate() {
//!                 let here = w.path().index(i);
//!                 let child = w.descend(&here, Cursor::UNKNOWN).map_err(|e| e.to_string())?;
//!                 deepest = deepest.max(depth_of(item, child)?);
//!             }
//!             Ok(deepest)
//!         }
//!         _ => Ok(w.depth()),
//!     })
//! }
//!
//! let root = Path::Root;
//! let w = Walk::new(&root, Cursor::UNKNOWN, 3);
//! assert_eq!(depth_of(&serde_json::json!([[1]]), w), Ok(3)); // the 1 is at depth 3
//! let err = depth_of(&serde_json::json!([[[[1]]]]), w).unwrap_err();
//! assert_eq!(err, "/0/0/0: nested deeper than the limit of 3 levels");
//! ```

use crate::model::Cursor;
use smpatch_value::Path;

/// Free stack below which [`grow_stack`] switches to a new segment.
pub const STACK_RED_ZONE: usize = 64 * 1024;

/// Size of each stack segment [`grow_stack`] allocates.
pub const STACK_SEGMENT: usize = 1024 * 1024;

/// Runs `f`, first moving to a fresh heap-allocated stack segment when less
/// than [`STACK_RED_ZONE`] bytes of stack are left. Every recursive engine
/// wraps each level in it, so a depth limit far above the default never
/// overflows the thread's stack.
#[inline]
pub fn grow_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, f)
}

/// Where a recursive walk stands: document path, schema cursor, depth.
///
/// `Copy`; a child context borrows the child [`Path`] step its caller keeps
/// on the stack (`let here = w.path().key(k); w.descend(&here, cursor)?`).
#[derive(Clone, Copy, Debug)]
pub struct Walk<'p, 's> {
    path: &'p Path<'p>,
    cursor: Cursor<'s>,
    depth: usize,
    limit: usize,
}

/// A walk went below its depth limit; the engine reports it as its own
/// `too_deep` error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooDeep {
    /// The pointer of the value that was too deep.
    pub pointer: String,
    /// The limit in force.
    pub limit: usize,
}

impl std::fmt::Display for TooDeep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: nested deeper than the limit of {} levels",
            self.pointer, self.limit
        )
    }
}

impl std::error::Error for TooDeep {}

impl<'p, 's> Walk<'p, 's> {
    /// The context at `path` (usually [`Path::Root`]) with depth 1 and the
    /// given limit (levels deeper than `limit` are refused).
    #[inline]
    pub fn new(path: &'p Path<'p>, cursor: Cursor<'s>, limit: usize) -> Self {
        Walk {
            path,
            cursor,
            depth: 1,
            limit,
        }
    }

    /// The document path of this position.
    #[inline]
    pub fn path(&self) -> &'p Path<'p> {
        self.path
    }

    /// The schema of the value at this position.
    #[inline]
    pub fn cursor(&self) -> Cursor<'s> {
        self.cursor
    }

    /// Nesting depth (1 at the root).
    #[inline]
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The depth limit.
    #[inline]
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The same position with another schema cursor (no depth step).
    #[inline]
    pub fn with_cursor(&self, cursor: Cursor<'s>) -> Self {
        Walk { cursor, ..*self }
    }

    /// The same depth and schema at another path (a sibling step the
    /// caller built, no depth step).
    #[inline]
    pub fn at<'q>(&self, path: &'q Path<'q>) -> Walk<'q, 's>
    where
        'p: 'q,
    {
        Walk {
            path,
            cursor: self.cursor,
            depth: self.depth,
            limit: self.limit,
        }
    }

    /// One level down, at `path` (a child of [`Walk::path`]) with `cursor`;
    /// [`TooDeep`] past the limit.
    #[inline]
    pub fn descend<'q>(
        &self,
        path: &'q Path<'q>,
        cursor: Cursor<'s>,
    ) -> Result<Walk<'q, 's>, TooDeep>
    where
        'p: 'q,
    {
        if self.depth >= self.limit {
            return Err(TooDeep {
                pointer: path.pointer(),
                limit: self.limit,
            });
        }
        Ok(Walk {
            path,
            cursor,
            depth: self.depth + 1,
            limit: self.limit,
        })
    }

    /// One level down without checking the limit (for engines that check
    /// on entry with [`Walk::check`], or count only some levels).
    #[inline]
    pub fn step<'q>(&self, path: &'q Path<'q>, cursor: Cursor<'s>) -> Walk<'q, 's>
    where
        'p: 'q,
    {
        Walk {
            path,
            cursor,
            depth: self.depth + 1,
            limit: self.limit,
        }
    }

    /// [`TooDeep`] when this position is already past the limit (for
    /// engines that count depth from 0 and check on entry).
    #[inline]
    pub fn check(&self) -> Result<(), TooDeep> {
        if self.depth > self.limit {
            return Err(TooDeep {
                pointer: self.path.pointer(),
                limit: self.limit,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_limit_and_paths() {
        let root = Path::Root;
        let w = Walk::new(&root, Cursor::UNKNOWN, 2);
        assert_eq!((w.depth(), w.limit()), (1, 2));
        let a = root.key("a");
        let wa = w.descend(&a, Cursor::UNKNOWN).unwrap();
        assert_eq!(wa.depth(), 2);
        let b = a.index(0);
        let err = wa.descend(&b, Cursor::UNKNOWN).unwrap_err();
        assert_eq!(
            err,
            TooDeep {
                pointer: "/a/0".into(),
                limit: 2
            }
        );
        // `step` does not check; `check` does.
        let wb = wa.step(&b, Cursor::UNKNOWN);
        assert_eq!(wb.check().unwrap_err().pointer, "/a/0");
        assert!(wa.check().is_ok());
        assert_eq!(wb.at(&a).path().pointer(), "/a");
    }

    #[test]
    fn grow_stack_survives_deep_recursion() {
        fn down(n: usize) -> usize {
            grow_stack(|| if n == 0 { 0 } else { 1 + down(n - 1) })
        }
        assert_eq!(down(100_000), 100_000);
    }
}
