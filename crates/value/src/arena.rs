//! The arena that owns every node of a [`Value`](crate::Value) tree.

use bumpalo::Bump;

/// Owns the memory of value trees.
///
/// Every [`Value<'a>`](crate::Value) borrows from one `Arena`. Nodes are plain
/// `Copy` data (slices, string slices, numbers): nothing inside the arena has a
/// destructor, so dropping or [`reset`](Arena::reset)ting the arena frees a whole
/// tree at once, whatever its depth.
///
/// Callers own the arena and may reuse it between documents:
///
/// ```
/// use smpatch_value::{Arena, Value};
/// let mut arena = Arena::new();
/// for _ in 0..3 {
///     let s = arena.alloc_str("hello");
///     assert_eq!(Value::String(s).as_str(), Some("hello"));
///     arena.reset();
/// }
/// ```
#[derive(Default)]
pub struct Arena {
    bump: Bump,
}

impl Arena {
    /// An empty arena.
    pub fn new() -> Self {
        Self { bump: Bump::new() }
    }

    /// An arena with room for `bytes` bytes before it asks the allocator again.
    pub fn with_capacity(bytes: usize) -> Self {
        Self {
            bump: Bump::with_capacity(bytes),
        }
    }

    /// [`Arena::with_capacity`] that answers `None` instead of aborting when
    /// the allocator refuses the first chunk.
    ///
    /// ```
    /// use smpatch_value::Arena;
    /// assert!(Arena::try_with_capacity(4096).is_some());
    /// assert!(Arena::try_with_capacity(usize::MAX / 2).is_none());
    /// ```
    pub fn try_with_capacity(bytes: usize) -> Option<Self> {
        Bump::try_with_capacity(bytes)
            .ok()
            .map(|bump| Self { bump })
    }

    /// Frees every tree allocated so far, keeping the largest chunk for reuse.
    pub fn reset(&mut self) {
        self.bump.reset();
    }

    /// Bytes currently allocated from the system by this arena.
    pub fn allocated_bytes(&self) -> usize {
        self.bump.allocated_bytes()
    }

    /// Copies a string into the arena.
    pub fn alloc_str(&self, s: &str) -> &str {
        self.bump.alloc_str(s)
    }

    /// Moves one `Copy` value into the arena.
    pub fn alloc<T: Copy>(&self, value: T) -> &T {
        self.bump.alloc(value)
    }

    /// Copies a slice of `Copy` values into the arena.
    pub fn alloc_slice_copy<T: Copy>(&self, items: &[T]) -> &[T] {
        self.bump.alloc_slice_copy(items)
    }

    /// Copies a slice of `Copy` values into the arena, to be changed in
    /// place (one `memcpy`, where [`Arena::alloc_slice_fill_iter`] writes
    /// element by element).
    pub fn alloc_slice_copy_mut<T: Copy>(&self, items: &[T]) -> &mut [T] {
        self.bump.alloc_slice_copy(items)
    }

    /// `head` followed by `rest`, in one allocation (one fill, one copy).
    pub(crate) fn alloc_slice_with_head<T: Copy>(&self, head: T, rest: &[T]) -> &[T] {
        let slice = self.bump.alloc_slice_fill_copy(rest.len() + 1, head);
        if let Some(tail) = slice.get_mut(1..) {
            tail.copy_from_slice(rest);
        }
        slice
    }

    /// Fills a new arena slice from an iterator of known length.
    pub fn alloc_slice_fill_iter<T: Copy, I>(&self, iter: I) -> &[T]
    where
        I: IntoIterator<Item = T>,
        I::IntoIter: ExactSizeIterator,
    {
        self.bump.alloc_slice_fill_iter(iter)
    }
}

impl std::fmt::Debug for Arena {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Arena")
            .field("allocated_bytes", &self.allocated_bytes())
            .finish()
    }
}
