//! What generated datafrog code reads: datafrog's own types, clir's leapers (extensions of
//! datafrog's leapjoin through its public `Leaper` trait, one type a file, each saying what
//! datafrog lacks), and the few set operations on relations that strata and explanations need.

pub use datafrog::{Iteration, PrefixFilter, Relation, ValueFilter, Variable};

mod budget;
mod contest;
mod extend_by;
mod filter_by;
mod holds;
mod once;
mod prefix;
mod record;
pub mod rules;
mod store;

pub use crate::value::Binding;
pub use budget::{Budget, Spend};
pub use contest::Contest;
pub use extend_by::ExtendBy;
pub use filter_by::FilterBy;
pub use holds::{Before, Holds};
pub use once::Once;
pub use prefix::Prefix;
pub use record::{Explain, Record};
pub use rules::RuleTable;
pub use store::{Layer, Layers, Slot};

/// The tuples of `a` that are not in `b` (both sorted): a full-tuple antijoin on two relations.
///
/// `datafrog::Relation::from_antijoin` returns wrong results in 2.0.1 (rust-lang/datafrog#39),
/// so generated code calls this instead.
pub fn difference<T: Ord + Clone>(a: &Relation<T>, b: &Relation<T>) -> Relation<T> {
    merge_filter(a, b, false)
}

/// The tuples in both `a` and `b`.
pub fn intersection<T: Ord + Clone>(a: &Relation<T>, b: &Relation<T>) -> Relation<T> {
    merge_filter(a, b, true)
}

/// The tuples of `a` whose presence in `b` is `present`. Sides of like size are walked together;
/// when `b` is much larger, each tuple of `a` gallops through it from the last one, so a small
/// `a` costs little however large `b` is.
fn merge_filter<T: Ord + Clone>(a: &Relation<T>, b: &Relation<T>, present: bool) -> Relation<T> {
    if b.is_empty() || a.is_empty() {
        return if present { empty() } else { Relation { elements: a.elements.clone() } };
    }
    if present && b.len() < a.len() {
        // An intersection looks the smaller side up in the larger.
        return merge_filter(b, a, true);
    }
    let elements = if b.len() > 8 * a.len() {
        let mut probe = Probe::new(&b.elements[..]);
        a.elements.iter().filter(|t| probe.contains(t) == present).cloned().collect()
    } else {
        let mut rest = &b.elements[..];
        let mut out = Vec::new();
        for t in a.elements.iter() {
            while rest.first().is_some_and(|first| first < t) {
                rest = &rest[1..];
            }
            if (rest.first() == Some(t)) == present {
                out.push(t.clone());
            }
        }
        out
    };
    Relation { elements }
}

/// The union of several relations. Two (a semi-naive round's growth, a closure's negatives)
/// are merged in one walk, for they are sorted already; more are sorted together.
pub fn union<T: Ord + Clone>(parts: &[&Relation<T>]) -> Relation<T> {
    if let [a, b] = parts {
        return Relation { elements: merge(&a.elements, &b.elements) };
    }
    let mut all: Vec<T> = Vec::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        all.extend(p.elements.iter().cloned());
    }
    Relation::from_vec(all)
}

/// The relation of the tuples of `start` and of every part: a layer several rules' heads (and
/// perhaps a layer below it) make.
pub fn gather<T: Ord, const N: usize>(start: Vec<T>, parts: [Relation<T>; N]) -> Relation<T> {
    let mut found = parts.into_iter().filter(|p| !p.is_empty()).peekable();
    let mut all = match (start.is_empty(), found.next()) {
        (_, None) => return Relation::from_vec(start),
        // Most rounds of a recursion find tuples by one rule at most: those are the layer as found.
        (true, Some(only)) if found.peek().is_none() => return only,
        (true, Some(first)) => first.elements,
        (false, Some(first)) => {
            let mut all = start;
            all.extend(first.elements);
            all
        }
    };
    for part in found {
        all.extend(part.elements);
    }
    Relation::from_vec(all)
}

/// The sorted, distinct tuples of the sorted, distinct `a` and `b`.
fn merge<T: Ord + Clone>(a: &[T], b: &[T]) -> Vec<T> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i].clone());
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j].clone());
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i].clone());
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The relation `r` held, leaving it empty: an input moved into the one stratum that reads it.
pub fn take<T: Ord>(r: &mut Relation<T>) -> Relation<T> {
    std::mem::replace(r, empty())
}

/// An empty relation.
pub fn empty<T: Ord>() -> Relation<T> {
    Relation::from_vec(Vec::new())
}

/// Whether the sorted `r` holds `t`: a rule's membership test (one binary search).
#[inline]
pub fn contains<T: Ord>(r: &[T], t: &T) -> bool {
    r.binary_search(t).is_ok()
}

/// A sorted relation a rule looks tuples up in, remembering where the last look-up ended.
///
/// A rule's loops run in sorted order, so the keys it looks up mostly grow: each look-up
/// gallops forward from the last one (a few comparisons when the next key is near), and
/// falls back to a binary search of the part before it when a key is smaller.
pub struct Probe<'r, T> {
    rows: &'r [T],
    at: usize,
}

impl<'r, T> Probe<'r, T> {
    /// A probe at the start of `rows`.
    #[inline]
    pub fn new(rows: &'r [T]) -> Self {
        Probe { rows, at: 0 }
    }

    /// The first position whose row is not `below` the key (`below` is monotone: true then false).
    ///
    /// The row at the last position is looked at first: a repeated key costs two comparisons,
    /// the next row's key two or three.
    #[inline]
    fn lower_bound(&mut self, below: impl Fn(&T) -> bool) -> usize {
        let rows = self.rows;
        let n = rows.len();
        let at = self.at.min(n);
        let pos = if at < n && !below(&rows[at]) {
            if at == 0 || below(&rows[at - 1]) {
                at
            } else {
                rows[..at - 1].partition_point(&below)
            }
        } else if at == n && at > 0 && !below(&rows[at - 1]) {
            rows[..at - 1].partition_point(&below)
        } else {
            // Every row up to `at` is below: gallop from the next one to a row that is not.
            let mut lo = (at + 1).min(n);
            let mut step = 1;
            while lo + step <= n && below(&rows[lo + step - 1]) {
                lo += step;
                step *= 2;
            }
            // rows[lo + step - 1], when there is one, is not below.
            let end = if lo + step <= n { lo + step - 1 } else { n };
            lo + rows[lo..end].partition_point(&below)
        };
        self.at = pos;
        pos
    }

    /// Whether the relation holds `t`: a rule's membership test.
    #[inline]
    pub fn contains(&mut self, t: &T) -> bool
    where
        T: Ord,
    {
        let pos = self.lower_bound(|r| r < t);
        self.rows.get(pos) == Some(t)
    }

    /// The tuples whose leading columns, as `key_of` takes them, equal `key`: a rule's lookup
    /// of a literal by the variables already bound.
    #[inline]
    pub fn seek<K: Ord>(&mut self, key: K, key_of: impl Fn(&T) -> K) -> &'r [T] {
        let start = self.lower_bound(|t| key_of(t) < key);
        let rest = &self.rows[start..];
        let len = rest.iter().take_while(|t| key_of(t) == key).count();
        &rest[..len]
    }
}

/// Records the binding `b` of a rule's last leapjoin when explanations ask for them
/// ([`Record::found`]).
#[inline]
pub fn bind<B>(bindings: &mut Option<Vec<B>>, b: B) {
    if let Some(found) = bindings.as_mut() {
        found.push(b);
    }
}

/// `r` with its columns reordered by `order` and sorted: a literal's view keyed by the columns
/// a rule looks it up by.
pub fn view<T, U: Ord>(r: &[T], order: impl FnMut(&T) -> U) -> Relation<U> {
    Relation::from_vec(r.iter().map(order).collect())
}

/// `r` keeping, of its tuples with the same `key` (a prefix of its columns), only the least:
/// where the columns after the key hold variables no later step of a rule nor its head needs,
/// one witness of them is enough, and the rule's next join is not multiplied by them.
pub fn least<T: Ord, K: PartialEq>(r: Relation<T>, key: impl Fn(&T) -> K) -> Relation<T> {
    let mut elements = r.elements;
    elements.dedup_by(|later, first| key(later) == key(first));
    Relation { elements }
}

/// `r` with its columns reordered by `order` and sorted, keeping of the tuples with the same
/// `key` (a prefix of the reordered columns) only the least ([`least`]): the view of a literal
/// whose last columns hold variables that occur nowhere else in its rule (lone variables), which
/// asks only that some tuple exists and takes the least as its witness. Its size is at most
/// `r`'s number of distinct keys, so a rule joining it never multiplies its other operands by
/// its lone values.
pub fn least_view<T, U: Ord, K: PartialEq>(r: &[T], order: impl FnMut(&T) -> U, key: impl Fn(&U) -> K) -> Relation<U> {
    least(view(r, order), key)
}

/// Every tuple of `variable` before its last round (its stable batches, merged): what a rule
/// that reads two or more of its stratum's variables reads of those it does not take the recent
/// tuples of.
pub fn stable<T: Ord + Clone>(variable: &Variable<T>) -> Relation<T> {
    let batches = variable.stable.borrow();
    match &batches[..] {
        [] => empty(),
        [one] => Relation { elements: one.elements.clone() },
        more => union(&more.iter().collect::<Vec<_>>()),
    }
}

/// Starts `variable` from `start` as tuples it holds already, not as new ones: its first round
/// takes only what the rules add beyond `start`, and a rule reading its recent tuples is not
/// called on `start` again. What datafrog lacks: `Variable::insert` makes every tuple new.
pub fn seed<T: Ord>(variable: &Variable<T>, start: Relation<T>) {
    if !start.is_empty() {
        variable.stable.borrow_mut().push(start);
    }
}

/// Every tuple of `variable` so far: [`stable`] and its last round's.
pub fn total<T: Ord + Clone>(variable: &Variable<T>) -> Relation<T> {
    union(&[&stable(variable), &variable.recent.borrow()])
}

/// Whether some tuple of the sorted `rows` whose key (`key_of`) is `key` `matches`: a negation
/// that leaves some columns unbound, tested inside a leapjoin's predicate.
#[inline]
pub fn any_by<T, K: Ord>(rows: &[T], key: K, key_of: impl Fn(&T) -> K, matches: impl Fn(&T) -> bool) -> bool {
    Probe::new(rows).seek(key, key_of).iter().any(matches)
}

/// [`any_by`] of `rows` keyed by their leading columns ([`Prefix`]).
#[inline]
pub fn any_keyed<T: Prefix<K>, K: Ord>(rows: &[T], key: K, matches: impl Fn(&T) -> bool) -> bool {
    any_by(rows, key, T::prefix, matches)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_find_what_a_binary_search_finds_in_any_key_order() {
        let rows: Vec<(u32, u32)> = (0..200).flat_map(|a| (0..(a % 4)).map(move |b| (a * 3, b))).collect();
        let mut probe = Probe::new(&rows[..]);
        // Growing keys, repeated keys, keys going back, keys past the end.
        let keys = (0..700).chain([5, 5, 3, 0, 600, 599, 1000, 0]).chain((0..700).rev());
        for k in keys {
            let a = k / 2;
            let want: Vec<_> = rows.iter().filter(|r| r.0 == a).collect();
            let got: Vec<_> = probe.seek(a, |t| t.0).iter().collect();
            assert_eq!(got, want, "seek {a}");
            let t = (a, k % 3);
            assert_eq!(probe.contains(&t), rows.binary_search(&t).is_ok(), "contains {t:?}");
        }
        assert!(!Probe::new(&[] as &[u32]).contains(&1));
        assert!(Probe::new(&[] as &[u32]).seek(1, |t| *t).is_empty());
    }

    /// A seeded variable's start is stable: what is found again is not new, a round takes only
    /// what the start lacks, and the variable completes to the start and the new tuples.
    #[test]
    fn a_seeded_variable_takes_only_what_its_start_lacks() {
        let mut iteration = Iteration::new();
        let v = iteration.variable::<(u32, u32)>("v");
        seed(&v, Relation::from_vec(vec![(1, 2), (2, 3)]));
        seed(&v, Relation::from_vec(Vec::new()));
        v.insert(Relation::from_vec(vec![(1, 2), (3, 4)]));
        let mut rounds = Vec::new();
        while iteration.changed() {
            rounds.push(v.recent.borrow().elements.clone());
            // Found again: (3, 4) from itself, (2, 3) from the start.
            v.insert(Relation::from_vec(vec![(2, 3), (3, 4)]));
        }
        assert_eq!(rounds, [vec![(3, 4)]]);
        assert_eq!(v.complete().elements, [(1, 2), (2, 3), (3, 4)]);
    }

    proptest::proptest! {
        /// A probe answers as a binary search does, whatever order the keys come in.
        #[test]
        fn probes_agree_with_binary_search(
            rows in proptest::collection::btree_set((0u8..12, 0u8..4), 0..40),
            keys in proptest::collection::vec((0u8..14, 0u8..5), 0..60),
            sorted in proptest::bool::ANY,
        ) {
            let rows: Vec<(u8, u8)> = rows.into_iter().collect();
            let mut keys = keys;
            if sorted {
                keys.sort();
            }
            let mut probe = Probe::new(&rows[..]);
            for t in keys {
                proptest::prop_assert_eq!(probe.contains(&t), rows.binary_search(&t).is_ok(), "contains {:?}", t);
                let want: Vec<_> = rows.iter().filter(|r| r.0 == t.0).collect();
                let got: Vec<_> = probe.seek(t.0, |r| r.0).iter().collect();
                proptest::prop_assert_eq!(got, want, "seek {}", t.0);
            }
        }
    }

    proptest::proptest! {
        /// A least view holds, for each key of the reordered rows, exactly the least row with
        /// that key: every key once, and no row it drops is smaller than the one it keeps.
        #[test]
        fn a_least_view_keeps_the_least_row_of_each_key(
            rows in proptest::collection::vec((0u8..4, 0u8..6, 0u8..6), 0..60),
        ) {
            // Columns reordered (c, a, b), keyed by (c, a): b is the lone column.
            let got = least_view(&rows, |&(a, b, c)| (c, a, b), |t| (t.0, t.1)).elements;
            let mut want: Vec<(u8, u8, u8)> = Vec::new();
            for &(a, b, c) in &rows {
                match want.iter_mut().find(|w| (w.0, w.1) == (c, a)) {
                    Some(w) => w.2 = w.2.min(b),
                    None => want.push((c, a, b)),
                }
            }
            want.sort();
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn difference_and_intersection_on_sorted_relations() {
        let a = Relation::from_vec(vec![1, 2, 3, 5, 8]);
        let b = Relation::from_vec(vec![0, 2, 5, 9]);
        assert_eq!(difference(&a, &b).elements, vec![1, 3, 8]);
        assert_eq!(intersection(&a, &b).elements, vec![2, 5]);
        assert_eq!(union(&[&a, &b]).elements, vec![0, 1, 2, 3, 5, 8, 9]);
        let c = Relation::from_vec(vec![4, 9]);
        assert_eq!(union(&[&a, &b, &c]).elements, vec![0, 1, 2, 3, 4, 5, 8, 9]);
        assert_eq!(union(&[&b, &a]).elements, union(&[&a, &b]).elements);
        // A side far larger than the other (galloped through) and empty sides.
        let big = Relation::from_vec((0..1000).map(|i| i * 2).collect::<Vec<i32>>());
        let small = Relation::from_vec(vec![-1, 4, 5, 998, 1998, 2001]);
        assert_eq!(difference(&small, &big).elements, vec![-1, 5, 2001]);
        assert_eq!(intersection(&small, &big).elements, vec![4, 998, 1998]);
        assert_eq!(intersection(&big, &small).elements, vec![4, 998, 1998]);
        let none = empty::<i32>();
        assert_eq!(difference(&small, &none).elements, small.elements);
        assert!(difference(&none, &small).is_empty() && intersection(&small, &none).is_empty());
    }

    proptest::proptest! {
        /// However many parts are empty, `gather` is the sorted, distinct union of its inputs.
        #[test]
        fn gather_is_the_union_of_its_parts(
            start in proptest::collection::vec(0u8..20, 0..6),
            parts in proptest::array::uniform3(proptest::collection::vec(0u8..20, 0..6)),
        ) {
            let start = Relation::from_vec(start).elements;
            let mut want: Vec<u8> = start.iter().chain(parts.iter().flatten()).copied().collect();
            want.sort();
            want.dedup();
            let got = gather(start, parts.map(Relation::from_vec));
            proptest::prop_assert_eq!(got.elements, want);
        }
    }

    #[test]
    fn a_variable_reads_as_its_stable_tuples_and_its_total() {
        let mut iteration = Iteration::new();
        let v = iteration.variable::<u32>("v");
        v.extend([3, 1]);
        assert!(iteration.changed());
        assert!(stable(&v).is_empty());
        assert_eq!(total(&v).elements, [1, 3]);
        v.extend([2, 3]);
        assert!(iteration.changed());
        assert_eq!((stable(&v).elements, v.recent.borrow().elements.clone()), (vec![1, 3], vec![2]));
        v.extend([9]);
        assert!(iteration.changed());
        assert_eq!((stable(&v).elements, total(&v).elements), (vec![1, 2, 3], vec![1, 2, 3, 9]));
        assert!(!iteration.changed());
        assert_eq!(v.complete().elements, [1, 2, 3, 9]);
    }

    #[test]
    fn any_by_finds_a_match_among_the_tuples_of_a_key() {
        let r = [(0, 1, 'a'), (0, 2, 'b'), (1, 2, 'd')];
        assert!(any_by(&r, 0, |t| t.0, |t| t.2 == 'b'));
        assert!(!any_by(&r, 0, |t| t.0, |t| t.2 == 'd'));
        assert!(!any_by(&r, 2, |t| t.0, |_| true));
    }

    #[test]
    fn seek_finds_the_range_of_a_key_and_view_reorders() {
        let r = [(0, 1, 'a'), (0, 2, 'b'), (0, 2, 'c'), (1, 2, 'd')];
        let mut probe = Probe::new(&r[..]);
        assert_eq!(probe.seek((0, 2), |t| (t.0, t.1)), &[(0, 2, 'b'), (0, 2, 'c')]);
        assert!(probe.seek((1, 1), |t| (t.0, t.1)).is_empty());
        assert_eq!(probe.seek((1,), |t| (t.0,)), &[(1, 2, 'd')]);
        assert!(contains(&r, &(0, 2, 'c')) && !contains(&r, &(0, 3, 'c')));
        let by_letter = view(&r, |&(c, n, l)| (c, l, n));
        assert_eq!(by_letter.elements, [(0, 'a', 1), (0, 'b', 2), (0, 'c', 2), (1, 'd', 2)]);
    }
}
