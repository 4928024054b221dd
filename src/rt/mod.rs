//! The few operations generated datafrog code needs beyond datafrog itself, and clir's
//! leapers: extensions of datafrog's leapjoin (its public `Leaper` trait), one type a file,
//! each saying what datafrog lacks.

pub use datafrog::Relation;

mod extend_by;
mod filter_by;
mod once;

pub use extend_by::ExtendBy;
pub use filter_by::FilterBy;
pub use once::Once;

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
pub fn contains<T: Ord>(r: &[T], t: &T) -> bool {
    r.binary_search(t).is_ok()
}

/// Where the tuple of flat row `[case, args..]` stands in a relation's final layers.
pub fn status<T: crate::Fact>(definite: &[T], supported: &[T], concluded: &[T], row: &[i64]) -> crate::why_not::Status {
    let t = T::from_flat_row(row);
    crate::why_not::Status {
        definite: contains(definite, &t),
        supported: contains(supported, &t),
        concluded: contains(concluded, &t),
    }
}

/// [`status`] of a relation whose `+D`, `+S` and `+d` coincide (one layer).
pub fn status_of<T: crate::Fact>(layer: &[T], row: &[i64]) -> crate::why_not::Status {
    let holds = contains(layer, &T::from_flat_row(row));
    crate::why_not::Status { definite: holds, supported: holds, concluded: holds }
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
    pub fn new(rows: &'r [T]) -> Self {
        Probe { rows, at: 0 }
    }

    /// The first position whose row is not `below` the key (`below` is monotone: true then false).
    fn lower_bound(&mut self, below: impl Fn(&T) -> bool) -> usize {
        let rows = self.rows;
        let at = self.at.min(rows.len());
        let pos = if at > 0 && !below(&rows[at - 1]) {
            rows[..at].partition_point(&below)
        } else {
            // Gallop: rows[at - 1] (if any) is below; find a row that is not.
            let mut step = 1;
            let mut lo = at;
            while lo + step <= rows.len() && below(&rows[lo + step - 1]) {
                lo += step;
                step *= 2;
            }
            let hi = (lo + step).min(rows.len());
            lo + rows[lo..hi].partition_point(&below)
        };
        self.at = pos;
        pos
    }

    /// Whether the relation holds `t`: a rule's membership test.
    pub fn contains(&mut self, t: &T) -> bool
    where
        T: Ord,
    {
        let pos = self.lower_bound(|r| r < t);
        self.rows.get(pos) == Some(t)
    }

    /// The tuples whose leading columns, as `key_of` takes them, equal `key`: a rule's lookup
    /// of a literal by the variables already bound.
    pub fn seek<K: Ord>(&mut self, key: K, key_of: impl Fn(&T) -> K) -> &'r [T] {
        let start = self.lower_bound(|t| key_of(t) < key);
        let rest = &self.rows[start..];
        let len = rest.iter().take_while(|t| key_of(t) == key).count();
        &rest[..len]
    }
}

/// `r` with its columns reordered by `order` and sorted: a literal's view keyed by the columns
/// a rule looks it up by.
pub fn view<T, U: Ord>(r: &[T], order: impl FnMut(&T) -> U) -> Vec<U> {
    let mut v: Vec<U> = r.iter().map(order).collect();
    v.sort_unstable();
    v
}

/// A relation a recursive stratum grows round by round (semi-naive evaluation): everything
/// derived so far, and what the last round added.
///
/// What is known so far is kept in sorted runs of decreasing size, the newest last, and two runs
/// are merged only when the newer is at least half the older (as datafrog's `Variable` and an
/// LSM tree do): a round costs about what it adds, not what came before it, so a case that
/// needs many rounds (a long path) costs time linear in its size.
pub struct Growing<T: Ord> {
    /// Everything before the last round (and the last round too, once settled), newest run last.
    runs: Vec<Relation<T>>,
    /// The tuples the last round added (all of them before the first round).
    pub recent: Relation<T>,
    /// Whether `recent` is in `runs` already ([`Growing::settle`] put it there).
    settled: bool,
}

impl<T: Ord + Clone> Growing<T> {
    /// Starts from `initial`.
    pub fn new(initial: Vec<T>) -> Growing<T> {
        Growing { runs: Vec::new(), recent: Relation::from_vec(initial), settled: false }
    }

    /// Ends a round that derived `derived`: keeps what is new; whether anything was.
    pub fn advance(&mut self, derived: Vec<T>) -> bool {
        let previous = std::mem::replace(&mut self.recent, empty());
        if !std::mem::replace(&mut self.settled, false) {
            self.push_run(previous);
        }
        let mut recent = Relation::from_vec(derived);
        for run in self.runs.iter().rev() {
            if recent.is_empty() {
                break;
            }
            recent = difference(&recent, run);
        }
        self.recent = recent;
        !self.recent.is_empty()
    }

    /// Adds `run` as the newest run, merging while it is at least half the one before it.
    fn push_run(&mut self, run: Relation<T>) {
        if run.is_empty() {
            return;
        }
        self.runs.push(run);
        while let [.., older, newer] = &self.runs[..] {
            if newer.len() * 2 < older.len() {
                break;
            }
            let merged = union(&[older, newer]);
            self.runs.truncate(self.runs.len() - 2);
            self.runs.push(merged);
        }
    }

    /// Everything so far, the runs and the last round merged into one.
    fn merged(&mut self) -> Relation<T> {
        if !std::mem::replace(&mut self.settled, true) {
            let recent = self.recent.clone();
            self.push_run(recent);
        }
        let mut total = self.runs.pop().unwrap_or_else(empty);
        while let Some(older) = self.runs.pop() {
            total = union(&[&older, &total]);
        }
        total
    }

    /// Merges everything so far into one run, so that [`Growing::total`] can be read.
    pub fn settle(&mut self) {
        let total = self.merged();
        self.runs.push(total);
    }

    /// Every tuple so far, after [`Growing::settle`] (a rule that reads two relations of its
    /// stratum reads the others' totals in each round).
    pub fn total(&self) -> &Relation<T> {
        debug_assert!(self.settled && self.runs.len() == 1, "settle() before total()");
        &self.runs[0]
    }

    /// Every tuple derived, when the rounds are over.
    pub fn into_total(mut self) -> Relation<T> {
        self.merged()
    }
}

/// Adds to `instances` the explanation instance of every binding `rule` finds, once per
/// entry of `definite` (over applicable premises, over definite ones), in the order of the
/// bindings, so that explanations do not depend on join order. The bindings are kept as flat
/// rows and sorted by one function for every rule (a row orders as its tuple does).
pub fn record<B: crate::Fact>(
    instances: &mut Vec<crate::Instance>,
    rule: usize,
    definite: &[bool],
    find: impl FnOnce(&mut dyn FnMut(&B)),
    instance: impl Fn(crate::Instance, &B) -> crate::Instance,
) {
    let mut rows: Vec<i64> = Vec::new();
    find(&mut |b| b.push_flat(&mut rows));
    let width = B::ARITY + 1;
    let order = sorted_rows(&rows, width);
    for &d in definite {
        instances.extend(order.iter().map(|&i| {
            let b = B::from_flat_row(&rows[i * width..(i + 1) * width]);
            instance(crate::Instance::rule(rule, d, crate::CaseId(rows[i * width] as u32)), &b)
        }));
    }
}

/// The indices of the rows of `width` in `rows`, in the order of the rows.
fn sorted_rows(rows: &[i64], width: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rows.len() / width).collect();
    order.sort_unstable_by(|&a, &b| rows[a * width..(a + 1) * width].cmp(&rows[b * width..(b + 1) * width]));
    order
}

/// [`record`] for a rule of more variables than a [`Fact`](crate::Fact) holds (11): in join order.
/// The case of a binding is `case_of` it.
pub fn record_unsorted<B: Copy>(
    instances: &mut Vec<crate::Instance>,
    rule: usize,
    definite: &[bool],
    find: impl FnOnce(&mut dyn FnMut(&B)),
    instance: impl Fn(crate::Instance, &B) -> crate::Instance,
    case_of: impl Fn(&B) -> crate::CaseId,
) {
    let mut found: Vec<B> = Vec::new();
    find(&mut |b| found.push(*b));
    for &d in definite {
        instances.extend(found.iter().map(|b| instance(crate::Instance::rule(rule, d, case_of(b)), b)));
    }
}

/// The relation of the tuples `rule` adds: a rule's applicability in a contested stratum.
pub fn collect<T: Ord>(rule: impl FnOnce(&mut Vec<T>)) -> Relation<T> {
    let mut out = Vec::new();
    rule(&mut out);
    Relation::from_vec(out)
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

    #[test]
    fn seek_finds_the_range_of_a_key_and_view_reorders() {
        let r = [(0, 1, 'a'), (0, 2, 'b'), (0, 2, 'c'), (1, 2, 'd')];
        let mut probe = Probe::new(&r[..]);
        assert_eq!(probe.seek((0, 2), |t| (t.0, t.1)), &[(0, 2, 'b'), (0, 2, 'c')]);
        assert!(probe.seek((1, 1), |t| (t.0, t.1)).is_empty());
        assert_eq!(probe.seek((1,), |t| (t.0,)), &[(1, 2, 'd')]);
        assert!(contains(&r, &(0, 2, 'c')) && !contains(&r, &(0, 3, 'c')));
        let by_letter = view(&r, |&(c, n, l)| (c, l, n));
        assert_eq!(by_letter, [(0, 'a', 1), (0, 'b', 2), (0, 'c', 2), (1, 'd', 2)]);
    }

    #[test]
    fn growing_keeps_only_what_a_round_adds() {
        let mut g = Growing::new(vec![3, 1]);
        assert_eq!(g.recent.elements, vec![1, 3]);
        assert!(g.advance(vec![3, 4, 4]));
        g.settle();
        assert_eq!((g.recent.elements.clone(), g.total().elements.clone()), (vec![4], vec![1, 3, 4]));
        assert!(!g.advance(vec![1]));
        assert!(g.recent.is_empty());
        // Many rounds of one tuple each: runs merge, nothing is lost or repeated.
        for i in 10..1000 {
            assert!(g.advance(vec![i, i - 1, 3]));
            assert!(g.runs.len() <= 12, "runs of decreasing size: {}", g.runs.len());
        }
        assert_eq!(g.into_total().elements, [1, 3, 4].into_iter().chain(9..1000).collect::<Vec<_>>());
    }
}
