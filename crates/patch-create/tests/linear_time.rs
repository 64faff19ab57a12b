//! Time linearity (issue 8): for generated list shapes — every merge-key
//! kind (string, int, float, bool, null-free lists and objects, wide
//! objects), compound keys, the list directives and duplicate keys — apply,
//! create2, create3, conflicts and compose on `4n` elements must take at most
//! a bounded multiple of the time on `n` elements. A pairwise scan makes the
//! ratio about 16; linear work about 4.
//!
//! Timing is the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`, through
//! rustix), so a busy CI machine that deschedules the test does not count;
//! each size is timed as the minimum of several runs, a shape that exceeds
//! the bound is measured again before it fails, and the bound (`MAX_RATIO`)
//! leaves room for cache effects. Sizes are small so the test stays fast in debug builds; the
//! `list_shapes` criterion benchmark (benches/) measures large `n`.
#![allow(clippy::unwrap_used)] // test helpers: a failure is a test failure

use proptest::prelude::*;
use smpatch_patch_apply::{apply, ApplyOptions};
use smpatch_patch_create::{compose, conflicts, create_three_way, create_two_way, CreateOptions};
use smpatch_schema::Schema;
use smpatch_value::{parse_json, Arena, ParseOptions, Value};
use std::path::Path;
use std::time::Duration;

/// Elements of the small size; the large one has four times as many.
const N: usize = 300;
/// Largest accepted `time(4n) / time(n)`: linear is 4, quadratic 16.
const MAX_RATIO: f64 = 9.0;
/// Runs per size; the minimum counts.
const RUNS: usize = 5;
/// Measurements of a shape before it fails.
const ATTEMPTS: usize = 3;

#[derive(Clone, Copy, Debug)]
enum KeyKind {
    String,
    Int,
    Float,
    Bool,
    List,
    Object,
    WideObject,
}

#[derive(Clone, Copy, Debug)]
enum Directive {
    /// Plain merge: every element patched, in reverse order.
    Merge,
    /// `$patch: delete` of every element.
    Delete,
    /// `$setElementOrder` reversing the list, one element patched.
    Order,
    /// `$patch: replace` of the whole list.
    Replace,
}

#[derive(Clone, Copy, Debug)]
enum Field {
    /// `items`: merge key `id`.
    Keyed,
    /// `rules`: list-map keys `host`, `path` (compound identity).
    Compound,
    /// `nums`: a primitive merge list (scalar kinds only).
    Primitive,
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Apply,
    Create2,
    Create3,
    Conflicts,
    Compose,
}

#[derive(Clone, Copy, Debug)]
struct Shape {
    kind: KeyKind,
    field: Field,
    directive: Directive,
    /// Keys repeat: element `i` has key `i % (n / 2)`.
    duplicates: bool,
    op: Op,
}

fn key(kind: KeyKind, i: usize) -> String {
    match kind {
        KeyKind::String => format!("\"k{i}\""),
        KeyKind::Int => format!("{i}"),
        KeyKind::Float => format!("{i}.5"),
        KeyKind::Bool => format!("{}", i % 2 == 0),
        KeyKind::List => format!("[\"k\",{i},[{i}]]"),
        // Scalar members: merging the key into itself looks nested members
        // up in the schema, where `id` is a string.
        KeyKind::Object => format!("{{\"k\":{i},\"s\":\"v{i}\",\"b\":true}}"),
        KeyKind::WideObject => {
            let fields: Vec<String> = (0..12).map(|f| format!("\"f{f}\":{i}")).collect();
            format!("{{{}}}", fields.join(","))
        }
    }
}

fn list(n: usize, f: impl Fn(usize) -> String) -> String {
    let items: Vec<String> = (0..n).map(f).collect();
    format!("[{}]", items.join(","))
}

/// Element `i` of a list, with extra members (`,"v":"x"`).
type Element<'f> = dyn Fn(usize, &str) -> String + 'f;

/// `(live, patch)` of a shape with `n` elements.
fn documents(s: Shape, n: usize) -> (String, String) {
    let k = |i: usize| key(s.kind, if s.duplicates { i % (n / 2) } else { i });
    let (name, elem): (&str, Box<Element<'_>>) = match s.field {
        Field::Keyed => (
            "items",
            Box::new(move |i, extra| format!("{{\"id\":{}{extra}}}", k(i))),
        ),
        Field::Compound => (
            "rules",
            Box::new(move |i, extra| format!("{{\"host\":{},\"path\":{}{extra}}}", k(i), k(i + 1))),
        ),
        Field::Primitive => ("nums", Box::new(move |i, _| k(i))),
    };
    let primitive = matches!(s.field, Field::Primitive);
    let live = format!("{{\"{name}\":{}}}", list(n, |i| elem(i, "")));
    let patch = match s.directive {
        Directive::Merge if primitive => {
            format!("{{\"{name}\":{}}}", list(n, |i| elem(n + i, "")))
        }
        Directive::Merge => format!(
            "{{\"{name}\":{}}}",
            list(n, |i| elem(
                n - 1 - i,
                if primitive { "" } else { ",\"v\":\"x\"" }
            ))
        ),
        Directive::Delete if primitive => format!(
            "{{\"$deleteFromPrimitiveList/{name}\":{}}}",
            list(n, |i| elem(n - 1 - i, ""))
        ),
        Directive::Delete => format!(
            "{{\"{name}\":{}}}",
            list(n, |i| elem(i, ",\"$patch\":\"delete\""))
        ),
        Directive::Order => format!(
            "{{\"$setElementOrder/{name}\":{},\"{name}\":[{}]}}",
            list(n, |i| elem(n - 1 - i, "")),
            elem(n - 1, if primitive { "" } else { ",\"v\":\"x\"" })
        ),
        Directive::Replace => format!(
            "{{\"{name}\":{}}}",
            list(n + 1, |i| if i == n {
                "{\"$patch\":\"replace\"}".to_owned()
            } else {
                elem(n - 1 - i, "")
            })
        ),
    };
    (live, patch)
}

fn schema() -> Schema {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/schemas/widget.v2.json");
    Schema::load_path(p).unwrap()
}

/// The time of one run of `s` at size `n` (parsing excluded), or `None`
/// when the shape is an error (errors are fast by construction; a shape the
/// engine refuses says nothing about time).
fn time_once(schema: &Schema, s: Shape, n: usize) -> Option<Duration> {
    let cursor = schema.cursor("Widget").unwrap();
    let (live, patch) = documents(s, n);
    let arena = Arena::new();
    let opts = ParseOptions::default();
    let (live, patch) = (arena.alloc_str(&live), arena.alloc_str(&patch));
    let live: Value<'_> = parse_json(&arena, live.as_bytes(), &opts).unwrap();
    let patch: Value<'_> = parse_json(&arena, patch.as_bytes(), &opts).unwrap();
    let aopts = ApplyOptions::default();
    let copts = CreateOptions::default();
    // Inputs of the create operations are prepared outside the timing.
    let modified = match s.op {
        Op::Create2 | Op::Create3 => Some(apply(&arena, live, patch, cursor, &aopts).ok()?),
        _ => None,
    };
    let start = cpu_now();
    let ok = match (s.op, modified) {
        (Op::Apply, _) => apply(&arena, live, patch, cursor, &aopts).is_ok(),
        (Op::Create2, Some(m)) => create_two_way(&arena, live, m, cursor, &copts, &[]).is_ok(),
        (Op::Create3, Some(m)) => {
            create_three_way(&arena, live, m, live, cursor, false, &copts, &[]).is_ok()
        }
        (Op::Conflicts, _) => conflicts(patch, patch, cursor, &copts).is_ok(),
        (Op::Compose, _) => compose(&arena, patch, patch, cursor, &copts).is_ok(),
        _ => false,
    };
    let t = cpu_now().saturating_sub(start);
    ok.then_some(t)
}

/// CPU time of this thread.
fn cpu_now() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

fn min_time(schema: &Schema, s: Shape, n: usize) -> Option<Duration> {
    (0..RUNS).map(|_| time_once(schema, s, n)).min()?
}

/// `time(4n) / time(n)`, the best of [`ATTEMPTS`] measurements that stays
/// within the bound (or the last one).
fn ratio(schema: &Schema, s: Shape) -> Option<f64> {
    let mut last = None;
    for _ in 0..ATTEMPTS {
        let small = min_time(schema, s, N)?;
        let large = min_time(schema, s, 4 * N)?;
        // Below a few microseconds the clock says nothing: count as linear.
        let r = large.as_secs_f64() / small.as_secs_f64().max(20e-6);
        if r <= MAX_RATIO {
            return Some(r);
        }
        last = Some(r);
    }
    last
}

fn shapes() -> impl Strategy<Value = Shape> {
    let kind = prop_oneof![
        Just(KeyKind::String),
        Just(KeyKind::Int),
        Just(KeyKind::Float),
        Just(KeyKind::Bool),
        Just(KeyKind::List),
        Just(KeyKind::Object),
        Just(KeyKind::WideObject),
    ];
    let field = prop_oneof![
        Just(Field::Keyed),
        Just(Field::Compound),
        Just(Field::Primitive)
    ];
    let directive = prop_oneof![
        Just(Directive::Merge),
        Just(Directive::Delete),
        Just(Directive::Order),
        Just(Directive::Replace),
    ];
    let op = prop_oneof![
        3 => Just(Op::Apply),
        1 => Just(Op::Create2),
        1 => Just(Op::Create3),
        1 => Just(Op::Conflicts),
        1 => Just(Op::Compose),
    ];
    (kind, field, directive, any::<bool>(), op).prop_map(
        |(kind, field, directive, duplicates, op)| {
            // Primitive lists hold scalars.
            let kind = match (field, kind) {
                (Field::Primitive, KeyKind::List | KeyKind::Object | KeyKind::WideObject) => {
                    KeyKind::Float
                }
                (_, k) => k,
            };
            Shape {
                kind,
                field,
                directive,
                duplicates,
                op,
            }
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn four_times_the_elements_take_at_most_linear_time(s in shapes()) {
        let schema = schema();
        if let Some(r) = ratio(&schema, s) {
            prop_assert!(r <= MAX_RATIO, "{s:?}: time(4n)/time(n) = {r:.1} (n = {N})");
        }
    }
}

/// The shapes of issue 8 that were quadratic, always checked.
#[test]
fn issue_8_shapes_are_linear() {
    let schema = schema();
    let mut checked = 0;
    for kind in [
        KeyKind::List,
        KeyKind::Object,
        KeyKind::WideObject,
        KeyKind::Float,
    ] {
        for (field, directive, op) in [
            (Field::Keyed, Directive::Merge, Op::Apply),
            (Field::Keyed, Directive::Order, Op::Apply),
            (Field::Keyed, Directive::Delete, Op::Apply),
            (Field::Compound, Directive::Merge, Op::Apply),
            (Field::Keyed, Directive::Merge, Op::Compose),
        ] {
            let s = Shape {
                kind,
                field,
                directive,
                duplicates: false,
                op,
            };
            let r = ratio(&schema, s).unwrap_or_else(|| panic!("{s:?} failed"));
            assert!(r <= MAX_RATIO, "{s:?}: time(4n)/time(n) = {r:.1} (n = {N})");
            checked += 1;
        }
    }
    assert_eq!(checked, 20);
}
