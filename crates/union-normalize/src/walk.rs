//! The walker: visits, in one pass, the objects of a merged result whose
//! schema declares a union and the strings whose schema declares an `enum`,
//! each with its counterpart in the old object, and rebuilds only the spine
//! above objects a visitor changed.
//!
//! Self-contained on purpose: it is the one place that knows how to pair old
//! and new values and how to build JSON pointers, so it can later be replaced
//! by the engine-wide walk context without touching the rules.
//!
//! Architecture Invariant: no recursion on input depth. Work is an explicit
//! stack of frames bounded by `max_depth`; subtrees whose schema reaches no
//! union and no enum ([`Cursor::reaches_checks`]) are never entered, and no
//! subtree is entered twice.

use rustc_hash::FxHashMap;
use smpatch_schema::{Cursor, ListType, NodeKind, PatchMeta};
use smpatch_value::{push_pointer_token, render, Arena, Member, Object, Value};

/// One step of a JSON pointer.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// The path of the value being visited, kept as segments; the pointer text
/// is built only when something is reported.
#[derive(Default)]
pub(crate) struct Path<'a> {
    segs: Vec<Seg<'a>>,
}

impl Path<'_> {
    /// The JSON pointer of the current value.
    pub(crate) fn pointer(&self) -> String {
        let mut out = String::new();
        for s in &self.segs {
            match s {
                Seg::Key(k) => push_pointer_token(&mut out, k),
                Seg::Index(i) => push_pointer_token(&mut out, &i.to_string()),
            }
        }
        out
    }

    /// The JSON pointer of member `key` of the current value.
    pub(crate) fn pointer_to(&self, key: &str) -> String {
        let mut out = self.pointer();
        push_pointer_token(&mut out, key);
        out
    }
}

/// What the walker calls back.
pub(crate) trait Visitor<'a, 'o> {
    /// An object whose struct schema declares unions. Returns the object's
    /// new members when it changed them (allocated by the visitor).
    fn unions(
        &mut self,
        old: Option<Object<'o>>,
        new: Object<'a>,
        cursor: Cursor<'_>,
        path: &Path<'a>,
    ) -> Option<&'a [Member<'a>]>;

    /// A value whose schema declares an `enum` and that is not a union
    /// discriminator (those are checked with their union).
    fn enum_value(
        &mut self,
        old: Option<Value<'o>>,
        new: Value<'a>,
        allowed: &[Box<str>],
        path: &Path<'a>,
    );
}

/// The walk went deeper than the limit.
pub(crate) struct TooDeep {
    pub pointer: String,
}

enum Items<'a> {
    Members(&'a [Member<'a>]),
    Elements(&'a [Value<'a>]),
}

enum Rebuilt<'a> {
    None,
    Members(Vec<Member<'a>>),
    Elements(Vec<Value<'a>>),
}

/// One merge-key value of a list element: strings borrowed, other values
/// as their kind and text (so `1` and `"1"` differ).
#[derive(Clone, PartialEq, Eq, Hash)]
enum KeyPart<'v> {
    Absent,
    Str(&'v str),
    Other(&'static str, String),
}

fn key_part<'v>(e: Value<'v>, key: &str) -> KeyPart<'v> {
    match e.get(key) {
        None => KeyPart::Absent,
        Some(Value::String(s)) => KeyPart::Str(s),
        Some(v) => KeyPart::Other(v.kind().name(), render(&v).into_owned()),
    }
}

/// How a list's elements find their old counterparts.
enum OldElems<'o> {
    None,
    ByIndex(&'o [Value<'o>]),
    ByKey(FxHashMap<KeyPart<'o>, Value<'o>>),
    ByKeys(FxHashMap<Vec<KeyPart<'o>>, Value<'o>>),
}

struct Frame<'a, 'o, 's> {
    cursor: Cursor<'s>,
    items: Items<'a>,
    old: Option<Value<'o>>,
    old_elems: OldElems<'o>,
    keys: Vec<&'s str>,
    next: usize,
    /// The visitor replaced this object's members (already in the arena).
    replaced: bool,
    /// The struct's union discriminators, sorted (built when first needed).
    discs: Option<Vec<&'s str>>,
    rebuilt: Rebuilt<'a>,
}

/// Walks `new` (with `old` as its counterpart) below `cursor`. Returns the
/// changed value when a visitor changed anything; `arena` is used only to
/// rebuild the spine above changed objects.
pub(crate) fn walk<'a, 'o, 's, V: Visitor<'a, 'o>>(
    arena: &'a Arena,
    old: Option<Value<'o>>,
    new: Value<'a>,
    cursor: Cursor<'s>,
    max_depth: usize,
    visitor: &mut V,
) -> Result<Option<Value<'a>>, TooDeep> {
    let mut path: Path<'a> = Path::default();
    let mut stack: Vec<Frame<'a, 'o, 's>> = Vec::new();
    let root = match enter(new, old, cursor, &EMPTY, false, &path, visitor) {
        Entered::Leaf(changed) => return Ok(changed),
        Entered::Frame(f) => f,
    };
    stack.push(root);
    loop {
        if stack.len() > max_depth {
            return Err(TooDeep {
                pointer: path.pointer(),
            });
        }
        let Some(top) = stack.last_mut() else {
            return Ok(None);
        };
        // Next child worth entering.
        let mut child = None;
        while child.is_none() {
            let i = top.next;
            match top.items {
                Items::Members(ms) => {
                    let Some(m) = ms.get(i) else { break };
                    top.next += 1;
                    let (c, meta, is_disc) = match top.cursor.kind() {
                        Some(NodeKind::Struct { .. }) => {
                            // Only fields whose schema reaches a union or an
                            // enum are looked up at all.
                            let checked = top.cursor.checked_fields();
                            if checked.binary_search_by(|f| (**f).cmp(m.key)).is_err() {
                                continue;
                            }
                            match top.cursor.lookup_object(m.key) {
                                Ok(f) => {
                                    // Only enum fields need to know whether
                                    // they are a discriminator; the sorted
                                    // list is built once per object.
                                    let is_disc = f.cursor.enum_values().is_some() && {
                                        let cursor = top.cursor;
                                        let discs = top.discs.get_or_insert_with(|| {
                                            let mut d: Vec<&'s str> = cursor
                                                .unions()
                                                .iter()
                                                .filter_map(|u| u.discriminator.as_deref())
                                                .collect();
                                            d.sort_unstable();
                                            d
                                        });
                                        discs.binary_search(&m.key).is_ok()
                                    };
                                    (f.cursor, f.meta, is_disc)
                                }
                                Err(_) => continue,
                            }
                        }
                        Some(NodeKind::Map { .. }) => match top.cursor.map_value() {
                            Some(c) => (c, &EMPTY, false),
                            None => continue,
                        },
                        _ => continue,
                    };
                    if !c.reaches_checks() {
                        continue;
                    }
                    let old = top.old.and_then(|o| o.get(m.key));
                    child = Some((i, Seg::Key(m.key), m.value, old, c, meta, is_disc));
                }
                Items::Elements(es) => {
                    let Some(&e) = es.get(i) else { break };
                    top.next += 1;
                    let Some(c) = top.cursor.list_items() else {
                        break;
                    };
                    let old = match &top.old_elems {
                        OldElems::None => None,
                        OldElems::ByIndex(o) => o.get(i).copied(),
                        OldElems::ByKey(map) => {
                            top.keys.first().and_then(|k| lookup(map, &key_part(e, k)))
                        }
                        OldElems::ByKeys(map) => {
                            let parts: Vec<KeyPart<'_>> =
                                top.keys.iter().map(|k| key_part(e, k)).collect();
                            lookup(map, &parts)
                        }
                    };
                    child = Some((i, Seg::Index(i), e, old, c, &EMPTY, false));
                }
            }
        }
        let Some((index, seg, value, old, c, meta, is_disc)) = child else {
            // Frame finished: hand its (possibly changed) value to the parent.
            let Some(done) = stack.pop() else {
                return Ok(None);
            };
            let changed = finish(arena, done);
            let Some(parent) = stack.last_mut() else {
                return Ok(changed);
            };
            path.segs.pop();
            if let Some(v) = changed {
                set_child(parent, parent.next - 1, v);
            }
            continue;
        };
        path.segs.push(seg);
        match enter(value, old, c, meta, is_disc, &path, visitor) {
            Entered::Leaf(changed) => {
                path.segs.pop();
                if let (Some(v), Some(top)) = (changed, stack.last_mut()) {
                    set_child(top, index, v);
                }
            }
            Entered::Frame(f) => stack.push(f),
        }
    }
}

static EMPTY: PatchMeta = PatchMeta::EMPTY;

enum Entered<'a, 'o, 's> {
    Leaf(Option<Value<'a>>),
    Frame(Frame<'a, 'o, 's>),
}

fn enter<'a, 'o, 's, V: Visitor<'a, 'o>>(
    new: Value<'a>,
    old: Option<Value<'o>>,
    cursor: Cursor<'s>,
    meta: &'s PatchMeta,
    is_discriminator: bool,
    path: &Path<'a>,
    visitor: &mut V,
) -> Entered<'a, 'o, 's> {
    if !cursor.reaches_checks() {
        return Entered::Leaf(None);
    }
    let frame = |items, old, old_elems, keys, replaced| Frame {
        cursor,
        items,
        old,
        old_elems,
        keys,
        next: 0,
        replaced,
        discs: None,
        rebuilt: Rebuilt::None,
    };
    match (cursor.kind(), new) {
        (Some(NodeKind::Struct { unions, .. }), Value::Object(obj)) => {
            let old_obj = old.and_then(|o| o.as_object());
            let mut members = obj.members();
            let mut replaced = false;
            if !unions.is_empty() {
                if let Some(ms) = visitor.unions(old_obj, obj, cursor, path) {
                    members = ms;
                    replaced = true;
                }
            }
            let old = old.filter(Value::is_object);
            Entered::Frame(frame(
                Items::Members(members),
                old,
                OldElems::None,
                Vec::new(),
                replaced,
            ))
        }
        (Some(NodeKind::Map { .. }), Value::Object(obj)) => Entered::Frame(frame(
            Items::Members(obj.members()),
            old.filter(Value::is_object),
            OldElems::None,
            Vec::new(),
            false,
        )),
        (Some(NodeKind::List { .. }), Value::Array(elems)) => {
            let keys = list_keys(meta);
            let old_elems = match (old.and_then(|o| o.as_array()), keys.as_slice()) {
                (None, _) => OldElems::None,
                (Some(o), []) => OldElems::ByIndex(o),
                (Some(o), [k]) => {
                    let mut map = FxHashMap::default();
                    map.reserve(o.len());
                    for e in o {
                        map.entry(key_part(*e, k)).or_insert(*e);
                    }
                    OldElems::ByKey(map)
                }
                (Some(o), ks) => {
                    let mut map = FxHashMap::default();
                    map.reserve(o.len());
                    for e in o {
                        map.entry(ks.iter().map(|k| key_part(*e, k)).collect())
                            .or_insert(*e);
                    }
                    OldElems::ByKeys(map)
                }
            };
            Entered::Frame(frame(Items::Elements(elems), None, old_elems, keys, false))
        }
        (
            Some(NodeKind::Scalar {
                enum_values: Some(allowed),
            }),
            v,
        ) => {
            if !is_discriminator && !v.is_null() {
                visitor.enum_value(old, v, allowed, path);
            }
            Entered::Leaf(None)
        }
        _ => Entered::Leaf(None),
    }
}

/// The keys that identify a list element: the patch merge key, else the
/// `x-kubernetes-list-map-keys` of a `list-type: map`; none means the list
/// is paired by position.
fn list_keys(meta: &PatchMeta) -> Vec<&str> {
    if let Some(k) = meta.merge_key() {
        return vec![k];
    }
    if meta.list_type == Some(ListType::Map) {
        return meta.list_map_keys.iter().map(|k| &**k).collect();
    }
    Vec::new()
}

/// Looks a new element's key up among the old elements (the key's
/// lifetime is shortened to the map's, which `HashMap` allows).
fn lookup<'o, K: Eq + std::hash::Hash>(
    map: &FxHashMap<K, Value<'o>>,
    key: &K,
) -> Option<Value<'o>> {
    map.get(key).copied()
}

fn set_child<'a>(frame: &mut Frame<'a, '_, '_>, index: usize, v: Value<'a>) {
    match (&frame.items, &mut frame.rebuilt) {
        (Items::Members(ms), r @ Rebuilt::None) => {
            let mut copy = ms.to_vec();
            if let Some(m) = copy.get_mut(index) {
                m.value = v;
            }
            *r = Rebuilt::Members(copy);
        }
        (Items::Elements(es), r @ Rebuilt::None) => {
            let mut copy = es.to_vec();
            if let Some(e) = copy.get_mut(index) {
                *e = v;
            }
            *r = Rebuilt::Elements(copy);
        }
        (_, Rebuilt::Members(copy)) => {
            if let Some(m) = copy.get_mut(index) {
                m.value = v;
            }
        }
        (_, Rebuilt::Elements(copy)) => {
            if let Some(e) = copy.get_mut(index) {
                *e = v;
            }
        }
    }
}

fn finish<'a>(arena: &'a Arena, frame: Frame<'a, '_, '_>) -> Option<Value<'a>> {
    match frame.rebuilt {
        Rebuilt::Members(ms) => Some(Value::object_from_members(arena, &ms)),
        Rebuilt::Elements(es) => Some(Value::array_from(arena, &es)),
        Rebuilt::None if frame.replaced => match frame.items {
            Items::Members(ms) => Some(Value::Object(Object::from_members(ms))),
            Items::Elements(es) => Some(Value::Array(es)),
        },
        Rebuilt::None => None,
    }
}
