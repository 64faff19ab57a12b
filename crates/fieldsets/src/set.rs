//! [`FieldSet`]: a set of paths stored as a tree, and its algebra.

use std::cmp::Ordering;

use crate::pe::{Path, PathElement};

/// The deepest path a [`FieldSet`] holds. Every producer (the FieldsV1
/// reader, `fields_of`, [`FieldSet::insert`]) respects it, so the recursive
/// set operations are bounded.
pub const MAX_SET_DEPTH: usize = 512;

/// A set of field paths (docs/FIELDSETS.md, KEP-2155 managed fields).
///
/// Stored as a tree: `members` are the paths of length 1 below this node,
/// `children` group the longer paths by their first element. Both are kept
/// sorted by [`PathElement`] order without duplicates, and no child is
/// empty, so two sets are equal (`==`) exactly when they hold the same paths.
///
/// ```
/// use smpatch_fieldsets::{FieldSet, PathElement};
/// let f = |s: &str| PathElement::Field(s.into());
/// let mut a = FieldSet::new();
/// a.insert(&[f("spec"), f("replicas")]);
/// let mut b = FieldSet::new();
/// b.insert(&[f("spec")]);
/// assert!(a.has(&[f("spec"), f("replicas")]));
/// assert!(!a.has(&[f("spec")]));
/// assert_eq!(a.union(&b).to_json(), r#"{"f:spec":{".":{},"f:replicas":{}}}"#);
/// assert_eq!(a.difference(&b), a);
/// assert!(a.recursive_difference(&b).is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSet {
    pub(crate) members: Vec<PathElement>,
    pub(crate) children: Vec<(PathElement, FieldSet)>,
}

impl FieldSet {
    /// The empty set.
    pub fn new() -> FieldSet {
        FieldSet::default()
    }

    /// Builds a node from unsorted parts: members are sorted and
    /// de-duplicated, children sorted, repeated children united, empty
    /// children dropped.
    pub(crate) fn from_parts(
        mut members: Vec<PathElement>,
        mut children: Vec<(PathElement, FieldSet)>,
    ) -> FieldSet {
        members.sort();
        members.dedup();
        children.retain(|(_, c)| !c.is_empty());
        children.sort_by(|a, b| a.0.cmp(&b.0));
        let mut merged: Vec<(PathElement, FieldSet)> = Vec::with_capacity(children.len());
        for (pe, c) in children {
            match merged.last_mut() {
                Some((last, set)) if *last == pe => *set = set.union(&c),
                _ => merged.push((pe, c)),
            }
        }
        FieldSet {
            members,
            children: merged,
        }
    }

    /// True when the set holds no path.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty() && self.children.is_empty()
    }

    /// The paths of length 1 (sorted).
    pub fn members(&self) -> &[PathElement] {
        &self.members
    }

    /// The longer paths, grouped by their first element (sorted).
    pub fn children(&self) -> &[(PathElement, FieldSet)] {
        &self.children
    }

    /// The paths below `pe` (relative to it), if any.
    pub fn with_prefix(&self, pe: &PathElement) -> Option<&FieldSet> {
        self.children
            .binary_search_by(|(p, _)| p.cmp(pe))
            .ok()
            .and_then(|i| self.children.get(i))
            .map(|(_, c)| c)
    }

    /// True when `pe` (a path of length 1) is a member.
    pub fn has_member(&self, pe: &PathElement) -> bool {
        self.members.binary_search(pe).is_ok()
    }

    /// Adds a path. The empty path is never a member (a no-op); a path longer
    /// than [`MAX_SET_DEPTH`] is refused. Returns whether the path is in the
    /// set afterwards.
    pub fn insert(&mut self, path: &[PathElement]) -> bool {
        let Some((last, prefix)) = path.split_last() else {
            return false;
        };
        if path.len() > MAX_SET_DEPTH {
            return false;
        }
        let mut node = self;
        for pe in prefix {
            let i = match node.children.binary_search_by(|(p, _)| p.cmp(pe)) {
                Ok(i) => i,
                Err(i) => {
                    node.children.insert(i, (pe.clone(), FieldSet::new()));
                    i
                }
            };
            node = match node.children.get_mut(i) {
                Some((_, c)) => c,
                None => return false,
            };
        }
        if let Err(i) = node.members.binary_search(last) {
            node.members.insert(i, last.clone());
        }
        true
    }

    /// Membership test.
    pub fn has(&self, path: &[PathElement]) -> bool {
        let Some((last, prefix)) = path.split_last() else {
            return false;
        };
        let mut node = self;
        for pe in prefix {
            match node.with_prefix(pe) {
                Some(c) => node = c,
                None => return false,
            }
        }
        node.has_member(last)
    }

    /// [`FieldSet::has_member`] of `f:name`, without building the element.
    pub fn has_field(&self, name: &str) -> bool {
        self.members
            .binary_search_by(|p| field_cmp(p, name))
            .is_ok()
    }

    /// [`FieldSet::with_prefix`] of `f:name`, without building the element.
    pub fn field_child(&self, name: &str) -> Option<&FieldSet> {
        self.children
            .binary_search_by(|(p, _)| field_cmp(p, name))
            .ok()
            .and_then(|i| self.children.get(i))
            .map(|(_, c)| c)
    }

    /// Removes the path `[pe]` (not the paths below `pe`).
    pub(crate) fn remove_member(&mut self, pe: &PathElement) {
        if let Ok(i) = self.members.binary_search(pe) {
            self.members.remove(i);
        }
    }

    /// Applies `f` to the child set below `pe` (if any) and drops it when
    /// it became empty.
    pub(crate) fn edit_child(&mut self, pe: &PathElement, f: impl FnOnce(&mut FieldSet)) {
        if let Ok(i) = self.children.binary_search_by(|(p, _)| p.cmp(pe)) {
            if let Some((_, c)) = self.children.get_mut(i) {
                f(c);
                if c.is_empty() {
                    self.children.remove(i);
                }
            }
        }
    }

    /// Every path in `self` or `other`.
    pub fn union(&self, other: &FieldSet) -> FieldSet {
        let members = merge_sorted(&self.members, &other.members, Keep::Either);
        let mut children = Vec::with_capacity(self.children.len().max(other.children.len()));
        zip_children(&self.children, &other.children, |pe, a, b| {
            let c = match (a, b) {
                (Some(a), Some(b)) => a.union(b),
                (Some(x), None) | (None, Some(x)) => x.clone(),
                (None, None) => return,
            };
            children.push((pe.clone(), c));
        });
        FieldSet { members, children }
    }

    /// Every path in both.
    pub fn intersection(&self, other: &FieldSet) -> FieldSet {
        let members = merge_sorted(&self.members, &other.members, Keep::Both);
        let mut children = Vec::new();
        zip_children(&self.children, &other.children, |pe, a, b| {
            if let (Some(a), Some(b)) = (a, b) {
                let c = a.intersection(b);
                if !c.is_empty() {
                    children.push((pe.clone(), c));
                }
            }
        });
        FieldSet { members, children }
    }

    /// Every path of `self` that is not in `other`, compared as exact paths:
    /// `{a.b} − {a} = {a.b}`.
    pub fn difference(&self, other: &FieldSet) -> FieldSet {
        let members = merge_sorted(&self.members, &other.members, Keep::FirstOnly);
        let mut children = Vec::new();
        zip_children(&self.children, &other.children, |pe, a, b| {
            let c = match (a, b) {
                (Some(a), Some(b)) => a.difference(b),
                (Some(a), None) => a.clone(),
                _ => return,
            };
            if !c.is_empty() {
                children.push((pe.clone(), c));
            }
        });
        FieldSet { members, children }
    }

    /// Every path of `self` none of whose prefixes (itself included) is in
    /// `other`: `{a.b} ⊖ {a} = {}`.
    pub fn recursive_difference(&self, other: &FieldSet) -> FieldSet {
        let members = merge_sorted(&self.members, &other.members, Keep::FirstOnly);
        let mut children = Vec::new();
        for (pe, c) in &self.children {
            if other.has_member(pe) {
                continue;
            }
            let c = match other.with_prefix(pe) {
                Some(o) => c.recursive_difference(o),
                None => c.clone(),
            };
            if !c.is_empty() {
                children.push((pe.clone(), c));
            }
        }
        FieldSet { members, children }
    }

    /// The paths that are not a proper prefix of another path of the set.
    pub fn leaves(&self) -> FieldSet {
        let members = self
            .members
            .iter()
            .filter(|m| self.with_prefix(m).is_none())
            .cloned()
            .collect();
        let children = self
            .children
            .iter()
            .map(|(pe, c)| (pe.clone(), c.leaves()))
            .collect();
        FieldSet { members, children }
    }

    /// True when every path of `self` is in `other`.
    pub fn is_subset(&self, other: &FieldSet) -> bool {
        self.difference(other).is_empty()
    }

    /// The node's entries in canonical order (path-element order, as the
    /// FieldsV1 writer lists them): each path element once, with whether the
    /// one-element path is a member and the set below it, if any. A traversal
    /// for building other representations (a JSON value, say) without going
    /// through FieldsV1 text.
    ///
    /// ```
    /// use smpatch_fieldsets::{FieldSet, PathElement};
    /// let s = FieldSet::from_json(br#"{"f:a":{".":{},"f:x":{}},"f:b":{}}"#).unwrap();
    /// let e: Vec<_> = s.entries().map(|e| (e.element.to_string(), e.member, e.below.is_some())).collect();
    /// assert_eq!(e, [("f:a".to_owned(), true, true), ("f:b".to_owned(), true, false)]);
    /// ```
    pub fn entries(&self) -> Entries<'_> {
        Entries {
            members: &self.members,
            children: &self.children,
        }
    }

    /// Every path, in order (a node before the paths below it).
    pub fn paths(&self) -> Vec<Path> {
        let mut out = Vec::new();
        let mut prefix = Vec::new();
        self.collect(&mut prefix, &mut out, false);
        out
    }

    /// The leaf paths ([`FieldSet::leaves`]), in order.
    pub fn leaf_paths(&self) -> Vec<Path> {
        let mut out = Vec::new();
        let mut prefix = Vec::new();
        self.collect(&mut prefix, &mut out, true);
        out
    }

    /// Number of paths in the set.
    pub fn len(&self) -> usize {
        self.members.len() + self.children.iter().map(|(_, c)| c.len()).sum::<usize>()
    }

    fn collect(&self, prefix: &mut Path, out: &mut Vec<Path>, leaves_only: bool) {
        for e in self.entries() {
            prefix.push(e.element.clone());
            if e.member && (e.below.is_none() || !leaves_only) {
                out.push(prefix.clone());
            }
            if let Some(ch) = e.below {
                ch.collect(prefix, out, leaves_only);
            }
            prefix.pop();
        }
    }
}

/// One entry of a [`FieldSet`] node (see [`FieldSet::entries`]).
#[derive(Clone, Copy, Debug)]
pub struct Entry<'s> {
    /// The path element.
    pub element: &'s PathElement,
    /// Whether the one-element path `[element]` is in the set.
    pub member: bool,
    /// The (non-empty) set of the longer paths starting with `element`.
    pub below: Option<&'s FieldSet>,
}

/// The iterator of [`FieldSet::entries`].
#[derive(Clone, Debug)]
pub struct Entries<'s> {
    members: &'s [PathElement],
    children: &'s [(PathElement, FieldSet)],
}

impl<'s> Iterator for Entries<'s> {
    type Item = Entry<'s>;

    fn next(&mut self) -> Option<Entry<'s>> {
        let (member, below) = match (self.members.first(), self.children.first()) {
            (None, None) => return None,
            (Some(m), None) => (Some(m), None),
            (None, Some(c)) => (None, Some(c)),
            (Some(m), Some(c)) => match m.cmp(&c.0) {
                Ordering::Less => (Some(m), None),
                Ordering::Greater => (None, Some(c)),
                Ordering::Equal => (Some(m), Some(c)),
            },
        };
        if member.is_some() {
            self.members = self.members.get(1..).unwrap_or_default();
        }
        if below.is_some() {
            self.children = self.children.get(1..).unwrap_or_default();
        }
        let element = match (member, below) {
            (Some(m), _) => m,
            (None, Some((p, _))) => p,
            (None, None) => return None,
        };
        Some(Entry {
            element,
            member: member.is_some(),
            below: below.map(|(_, c)| c),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (m, c) = (self.members.len(), self.children.len());
        (m.max(c), Some(m + c))
    }
}

/// `p` compared with `f:name` (fields sort before every other kind).
fn field_cmp(p: &PathElement, name: &str) -> Ordering {
    match p {
        PathElement::Field(n) => n.as_bytes().cmp(name.as_bytes()),
        _ => Ordering::Greater,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    Either,
    Both,
    FirstOnly,
}

fn merge_sorted(a: &[PathElement], b: &[PathElement], keep: Keep) -> Vec<PathElement> {
    let mut out = Vec::with_capacity(match keep {
        Keep::Either => a.len() + b.len(),
        _ => a.len(),
    });
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => match x.cmp(y) {
                Ordering::Less => {
                    if keep != Keep::Both {
                        out.push(x.clone());
                    }
                    i += 1;
                }
                Ordering::Greater => {
                    if keep == Keep::Either {
                        out.push(y.clone());
                    }
                    j += 1;
                }
                Ordering::Equal => {
                    if keep != Keep::FirstOnly {
                        out.push(x.clone());
                    }
                    i += 1;
                    j += 1;
                }
            },
            (Some(x), None) => {
                if keep != Keep::Both {
                    out.push(x.clone());
                }
                i += 1;
            }
            (None, Some(y)) => {
                if keep == Keep::Either {
                    out.push(y.clone());
                }
                j += 1;
            }
            (None, None) => break,
        }
    }
    out
}

type Children = [(PathElement, FieldSet)];

fn zip_children(
    a: &Children,
    b: &Children,
    mut f: impl FnMut(&PathElement, Option<&FieldSet>, Option<&FieldSet>),
) {
    let (mut i, mut j) = (0, 0);
    loop {
        match (a.get(i), b.get(j)) {
            (Some((p, x)), Some((q, y))) => match p.cmp(q) {
                Ordering::Less => {
                    f(p, Some(x), None);
                    i += 1;
                }
                Ordering::Greater => {
                    f(q, None, Some(y));
                    j += 1;
                }
                Ordering::Equal => {
                    f(p, Some(x), Some(y));
                    i += 1;
                    j += 1;
                }
            },
            (Some((p, x)), None) => {
                f(p, Some(x), None);
                i += 1;
            }
            (None, Some((q, y))) => {
                f(q, None, Some(y));
                j += 1;
            }
            (None, None) => break,
        }
    }
}
