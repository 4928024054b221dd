//! The few operations generated datafrog code needs beyond datafrog itself.

pub use datafrog::Relation;

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

/// The tuples of `a` whose presence in `b` is `present`, by one merge walk over both.
fn merge_filter<T: Ord + Clone>(a: &Relation<T>, b: &Relation<T>, present: bool) -> Relation<T> {
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
    Relation::from_vec(out)
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

/// The tuples of the sorted `r` whose leading columns, as `key_of` takes them, equal `key`: a
/// rule's lookup of a literal by the variables already bound.
pub fn seek<T, K: Ord>(r: &[T], key: K, key_of: impl Fn(&T) -> K) -> &[T] {
    let start = r.partition_point(|t| key_of(t) < key);
    let rest = &r[start..];
    &rest[..rest.partition_point(|t| key_of(t) == key)]
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
pub struct Growing<T: Ord> {
    /// Every tuple so far.
    pub total: Relation<T>,
    /// The tuples the last round added (all of them before the first round).
    pub recent: Relation<T>,
}

impl<T: Ord + Clone> Growing<T> {
    /// Starts from `initial`.
    pub fn new(initial: Vec<T>) -> Growing<T> {
        let total = Relation::from_vec(initial);
        Growing { recent: total.clone(), total }
    }

    /// Ends a round that derived `derived`: keeps what is new; whether anything was.
    pub fn advance(&mut self, derived: Vec<T>) -> bool {
        self.recent = difference(&Relation::from_vec(derived), &self.total);
        if !self.recent.is_empty() {
            self.total = union(&[&self.total, &self.recent]);
        }
        !self.recent.is_empty()
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
    fn difference_and_intersection_on_sorted_relations() {
        let a = Relation::from_vec(vec![1, 2, 3, 5, 8]);
        let b = Relation::from_vec(vec![0, 2, 5, 9]);
        assert_eq!(difference(&a, &b).elements, vec![1, 3, 8]);
        assert_eq!(intersection(&a, &b).elements, vec![2, 5]);
        assert_eq!(union(&[&a, &b]).elements, vec![0, 1, 2, 3, 5, 8, 9]);
        let c = Relation::from_vec(vec![4, 9]);
        assert_eq!(union(&[&a, &b, &c]).elements, vec![0, 1, 2, 3, 4, 5, 8, 9]);
        assert_eq!(union(&[&b, &a]).elements, union(&[&a, &b]).elements);
    }

    #[test]
    fn seek_finds_the_range_of_a_key_and_view_reorders() {
        let r = [(0, 1, 'a'), (0, 2, 'b'), (0, 2, 'c'), (1, 2, 'd')];
        assert_eq!(seek(&r, (0, 2), |t| (t.0, t.1)), &[(0, 2, 'b'), (0, 2, 'c')]);
        assert!(seek(&r, (1, 1), |t| (t.0, t.1)).is_empty());
        assert_eq!(seek(&r, (1,), |t| (t.0,)), &[(1, 2, 'd')]);
        assert!(contains(&r, &(0, 2, 'c')) && !contains(&r, &(0, 3, 'c')));
        let by_letter = view(&r, |&(c, n, l)| (c, l, n));
        assert_eq!(by_letter, [(0, 'a', 1), (0, 'b', 2), (0, 'c', 2), (1, 'd', 2)]);
    }

    #[test]
    fn growing_keeps_only_what_a_round_adds() {
        let mut g = Growing::new(vec![3, 1]);
        assert_eq!(g.recent.elements, vec![1, 3]);
        assert!(g.advance(vec![3, 4, 4]));
        assert_eq!((g.recent.elements.clone(), g.total.elements.clone()), (vec![4], vec![1, 3, 4]));
        assert!(!g.advance(vec![1]));
        assert!(g.recent.is_empty());
    }
}
