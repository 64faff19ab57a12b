//! Go's `sort.Sort` (pattern-defeating quicksort, Go 1.19 and later), as the
//! reference sorts merge lists before diffing them.
//!
//! The reference's comparators (`SortableSliceOfMaps`,
//! `SortableSliceOfScalars`) answer `Less(i, j)` with
//! `sort.StringsAreSorted([]string{a, b})`, i.e. `a <= b`: equal renderings
//! count as "less". With that comparator the order of equal elements after
//! `sort.Sort` is deterministic but neither stable nor reversed in general
//! (insertion sort, used up to 12 elements, reverses runs of equal elements;
//! longer lists go through pivots and partitions). Which duplicate merge key
//! pairs with which therefore depends on this exact algorithm, so it is
//! reproduced step by step here (`src/sort/zsortinterface.go`). The
//! `breakPatterns` xorshift uses the constants 13, 17, 5 of the Go releases
//! kubectl v1.32 is built with (checked against it on lists of 50+ elements;
//! later Go releases use 13, 7, 17).

/// The sort state: the data and the comparator.
struct Sorter<'d, T, F> {
    d: &'d mut [T],
    less: F,
}

impl<T, F: Fn(&T, &T) -> bool> Sorter<'_, T, F> {
    fn less(&self, i: usize, j: usize) -> bool {
        (self.less)(&self.d[i], &self.d[j])
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.d.swap(i, j);
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Hint {
    Unknown,
    Increasing,
    Decreasing,
}

/// Sorts `d` exactly as Go's `sort.Sort` would with `Less(i, j) =
/// less(&d[i], &d[j])`, whatever the comparator (it need not be strict).
pub(crate) fn go_sort<T, F: Fn(&T, &T) -> bool>(d: &mut [T], less: F) {
    let n = d.len();
    if n <= 1 {
        return;
    }
    let limit = bits_len(n);
    let mut s = Sorter { d, less };
    pdqsort(&mut s, 0, n, limit);
}

/// Go's `bits.Len`: the number of bits needed to represent `n`.
fn bits_len(n: usize) -> u32 {
    usize::BITS - n.leading_zeros()
}

fn insertion_sort<T, F: Fn(&T, &T) -> bool>(s: &mut Sorter<'_, T, F>, a: usize, b: usize) {
    for i in a + 1..b {
        let mut j = i;
        while j > a && s.less(j, j - 1) {
            s.swap(j, j - 1);
            j -= 1;
        }
    }
}

fn sift_down<T, F: Fn(&T, &T) -> bool>(
    s: &mut Sorter<'_, T, F>,
    lo: usize,
    hi: usize,
    first: usize,
) {
    let mut root = lo;
    loop {
        let mut child = 2 * root + 1;
        if child >= hi {
            break;
        }
        if child + 1 < hi && s.less(first + child, first + child + 1) {
            child += 1;
        }
        if !s.less(first + root, first + child) {
            return;
        }
        s.swap(first + root, first + child);
        root = child;
    }
}

fn heap_sort<T, F: Fn(&T, &T) -> bool>(s: &mut Sorter<'_, T, F>, a: usize, b: usize) {
    let first = a;
    let hi = b - a;
    if hi == 0 {
        return;
    }
    for i in (0..=(hi - 1) / 2).rev() {
        sift_down(s, i, hi, first);
    }
    for i in (0..hi).rev() {
        s.swap(first, first + i);
        sift_down(s, 0, i, first);
    }
}

fn pdqsort<T, F: Fn(&T, &T) -> bool>(
    s: &mut Sorter<'_, T, F>,
    mut a: usize,
    mut b: usize,
    mut limit: u32,
) {
    const MAX_INSERTION: usize = 12;
    let mut was_balanced = true;
    let mut was_partitioned = true;
    loop {
        let length = b - a;
        if length <= MAX_INSERTION {
            insertion_sort(s, a, b);
            return;
        }
        if limit == 0 {
            heap_sort(s, a, b);
            return;
        }
        if !was_balanced {
            break_patterns(s, a, b);
            limit -= 1;
        }
        let (mut pivot, mut hint) = choose_pivot(s, a, b);
        if hint == Hint::Decreasing {
            reverse_range(s, a, b);
            pivot = (b - 1) - (pivot - a);
            hint = Hint::Increasing;
        }
        if was_balanced
            && was_partitioned
            && hint == Hint::Increasing
            && partial_insertion_sort(s, a, b)
        {
            return;
        }
        if a > 0 && !s.less(a - 1, pivot) {
            a = partition_equal(s, a, b, pivot);
            continue;
        }
        let (mid, already) = partition(s, a, b, pivot);
        was_partitioned = already;
        let (left, right) = (mid - a, b - mid);
        let threshold = length / 8;
        if left < right {
            was_balanced = left >= threshold;
            pdqsort(s, a, mid, limit);
            a = mid + 1;
        } else {
            was_balanced = right >= threshold;
            pdqsort(s, mid + 1, b, limit);
            b = mid;
        }
    }
}

fn partition<T, F: Fn(&T, &T) -> bool>(
    s: &mut Sorter<'_, T, F>,
    a: usize,
    b: usize,
    pivot: usize,
) -> (usize, bool) {
    s.swap(a, pivot);
    // `i` and `j` are inclusive; `j` never drops below `a` (i >= a + 1).
    let (mut i, mut j) = (a + 1, b - 1);
    while i <= j && s.less(i, a) {
        i += 1;
    }
    while i <= j && !s.less(j, a) {
        j -= 1;
    }
    if i > j {
        s.swap(j, a);
        return (j, true);
    }
    s.swap(i, j);
    i += 1;
    j -= 1;
    loop {
        while i <= j && s.less(i, a) {
            i += 1;
        }
        while i <= j && !s.less(j, a) {
            j -= 1;
        }
        if i > j {
            break;
        }
        s.swap(i, j);
        i += 1;
        j -= 1;
    }
    s.swap(j, a);
    (j, false)
}

fn partition_equal<T, F: Fn(&T, &T) -> bool>(
    s: &mut Sorter<'_, T, F>,
    a: usize,
    b: usize,
    pivot: usize,
) -> usize {
    s.swap(a, pivot);
    let (mut i, mut j) = (a + 1, b - 1);
    loop {
        while i <= j && !s.less(a, i) {
            i += 1;
        }
        while i <= j && s.less(a, j) {
            j -= 1;
        }
        if i > j {
            break;
        }
        s.swap(i, j);
        i += 1;
        j -= 1;
    }
    i
}

fn partial_insertion_sort<T, F: Fn(&T, &T) -> bool>(
    s: &mut Sorter<'_, T, F>,
    a: usize,
    b: usize,
) -> bool {
    const MAX_STEPS: usize = 5;
    const SHORTEST_SHIFTING: usize = 50;
    let mut i = a + 1;
    for _ in 0..MAX_STEPS {
        while i < b && !s.less(i, i - 1) {
            i += 1;
        }
        if i == b {
            return true;
        }
        if b - a < SHORTEST_SHIFTING {
            return false;
        }
        s.swap(i, i - 1);
        // Shift the smaller one to the left (Go loops down to index 1, not a+1).
        if i - a >= 2 {
            let mut j = i - 1;
            while j >= 1 {
                if !s.less(j, j - 1) {
                    break;
                }
                s.swap(j, j - 1);
                j -= 1;
            }
        }
        // Shift the greater one to the right.
        if b - i >= 2 {
            for j in i + 1..b {
                if !s.less(j, j - 1) {
                    break;
                }
                s.swap(j, j - 1);
            }
        }
    }
    false
}

fn break_patterns<T, F: Fn(&T, &T) -> bool>(s: &mut Sorter<'_, T, F>, a: usize, b: usize) {
    let length = b - a;
    if length >= 8 {
        let mut random = length as u64;
        let modulus = 1usize << bits_len(length);
        let mid = a + (length / 4) * 2;
        for idx in mid - 1..=mid + 1 {
            random ^= random << 13;
            random ^= random >> 17;
            random ^= random << 5;
            let mut other = (random as usize) & (modulus - 1);
            if other >= length {
                other -= length;
            }
            s.swap(idx, a + other);
        }
    }
}

fn choose_pivot<T, F: Fn(&T, &T) -> bool>(
    s: &mut Sorter<'_, T, F>,
    a: usize,
    b: usize,
) -> (usize, Hint) {
    const SHORTEST_NINTHER: usize = 50;
    const MAX_SWAPS: usize = 4 * 3;
    let l = b - a;
    let mut swaps = 0;
    let mut i = a + l / 4;
    let mut j = a + l / 4 * 2;
    let mut k = a + l / 4 * 3;
    if l >= 8 {
        if l >= SHORTEST_NINTHER {
            i = median(s, i - 1, i, i + 1, &mut swaps);
            j = median(s, j - 1, j, j + 1, &mut swaps);
            k = median(s, k - 1, k, k + 1, &mut swaps);
        }
        j = median(s, i, j, k, &mut swaps);
    }
    match swaps {
        0 => (j, Hint::Increasing),
        MAX_SWAPS => (j, Hint::Decreasing),
        _ => (j, Hint::Unknown),
    }
}

fn order2<T, F: Fn(&T, &T) -> bool>(
    s: &Sorter<'_, T, F>,
    a: usize,
    b: usize,
    swaps: &mut usize,
) -> (usize, usize) {
    if s.less(b, a) {
        *swaps += 1;
        (b, a)
    } else {
        (a, b)
    }
}

fn median<T, F: Fn(&T, &T) -> bool>(
    s: &Sorter<'_, T, F>,
    a: usize,
    b: usize,
    c: usize,
    swaps: &mut usize,
) -> usize {
    let (a, b) = order2(s, a, b, swaps);
    let (b, _c) = order2(s, b, c, swaps);
    let (_a, b) = order2(s, a, b, swaps);
    b
}

fn reverse_range<T, F: Fn(&T, &T) -> bool>(s: &mut Sorter<'_, T, F>, a: usize, b: usize) {
    let (mut i, mut j) = (a, b - 1);
    while i < j {
        s.swap(i, j);
        i += 1;
        j -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::go_sort;

    /// Sorts (key, original index) pairs with the reference's `<=` comparator.
    fn order(keys: &[u32]) -> Vec<usize> {
        let mut v: Vec<(u32, usize)> = keys.iter().copied().zip(0..).collect();
        go_sort(&mut v, |x, y| x.0 <= y.0);
        v.into_iter().map(|(_, i)| i).collect()
    }

    #[test]
    fn sorts_like_a_sort() {
        for n in 0..300u32 {
            let keys: Vec<u32> = (0..n).map(|i| (i * 7919 + 13) % 17).collect();
            let mut got: Vec<u32> = keys.clone();
            go_sort(&mut got, |a, b| a <= b);
            let mut want = keys.clone();
            want.sort_unstable();
            assert_eq!(got, want, "n = {n}");
            let mut strict: Vec<u32> = keys.clone();
            go_sort(&mut strict, |a, b| a < b);
            assert_eq!(strict, want, "n = {n}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, failure_persistence: None, ..Default::default() })]

        /// Any length (past the insertion-sort and heap-sort thresholds),
        /// few distinct keys (long equal runs), presorted or reversed
        /// inputs (the pattern-breaking path): never panics, always sorts,
        /// keeps every element, for both the `<=` and the strict comparator.
        #[test]
        fn sorts_any_input(
            keys in proptest::collection::vec(0u8..6, 0..3000),
            shape in 0u8..3,
        ) {
            let mut keys = keys;
            match shape {
                1 => keys.sort_unstable(),
                2 => keys.sort_unstable_by(|a, b| b.cmp(a)),
                _ => {}
            }
            let mut want = keys.clone();
            want.sort_unstable();
            let mut idx: Vec<(u8, usize)> = keys.iter().copied().zip(0..).collect();
            go_sort(&mut idx, |x, y| x.0 <= y.0);
            let got: Vec<u8> = idx.iter().map(|p| p.0).collect();
            proptest::prop_assert_eq!(&got, &want);
            let mut seen: Vec<usize> = idx.iter().map(|p| p.1).collect();
            seen.sort_unstable();
            proptest::prop_assert!(seen.iter().copied().eq(0..keys.len()));
            let mut strict = keys.clone();
            go_sort(&mut strict, |a, b| a < b);
            proptest::prop_assert_eq!(strict, want);
        }
    }

    #[test]
    fn insertion_sort_reverses_equal_runs() {
        // Up to 12 elements Go uses insertion sort: with `<=` every element
        // moves in front of the equal ones before it.
        assert_eq!(order(&[1, 0, 1]), vec![1, 2, 0]);
        assert_eq!(order(&[5, 5, 5, 1]), vec![3, 2, 1, 0]);
    }
}
