//! The few operations generated datafrog code needs beyond datafrog itself.

pub use datafrog::{Iteration, Relation, Variable};

/// Adds to `output` the tuples of `input`'s recent batch that `logic` keeps, as `logic` maps them.
///
/// This is datafrog's `from_map` with a filter: generated code uses it to key a literal for its
/// join, and to apply constant arguments, repeated variables and comparisons in the same pass.
pub fn filter_map_into<T1: Ord, T2: Ord>(
    input: &Variable<T1>,
    output: &Variable<T2>,
    logic: impl FnMut(&T1) -> Option<T2>,
) {
    let results: Vec<T2> = input.recent.borrow().iter().filter_map(logic).collect();
    output.insert(Relation::from_vec(results));
}

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

/// The union of several relations.
pub fn union<T: Ord + Clone>(parts: &[&Relation<T>]) -> Relation<T> {
    let mut all: Vec<T> = Vec::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        all.extend(p.elements.iter().cloned());
    }
    Relation::from_vec(all)
}

/// Joins `a` and `b` (each sorted, keyed by its first component) and adds to `output` what
/// `logic` keeps of every pair of tuples with equal keys: the straight-line join of a stratum
/// that reads only lower strata (no datafrog iteration).
pub fn join_into<K: Ord, V1, V2, T>(
    a: &Relation<(K, V1)>,
    b: &Relation<(K, V2)>,
    output: &mut Vec<T>,
    mut logic: impl FnMut(&K, &V1, &V2) -> Option<T>,
) where
    (K, V1): Ord,
    (K, V2): Ord,
{
    let (mut x, mut y) = (&a.elements[..], &b.elements[..]);
    while let (Some(first_x), Some(first_y)) = (x.first(), y.first()) {
        match first_x.0.cmp(&first_y.0) {
            std::cmp::Ordering::Less => x = &x[x.partition_point(|t| t.0 < first_y.0)..],
            std::cmp::Ordering::Greater => y = &y[y.partition_point(|t| t.0 < first_x.0)..],
            std::cmp::Ordering::Equal => {
                let n = x.partition_point(|t| t.0 <= first_x.0);
                let m = y.partition_point(|t| t.0 <= first_y.0);
                for (k, v1) in &x[..n] {
                    for (_, v2) in &y[..m] {
                        output.extend(logic(k, v1, v2));
                    }
                }
                x = &x[n..];
                y = &y[m..];
            }
        }
    }
}

/// [`join_into`] a new relation.
pub fn join<K: Ord, V1, V2, T: Ord>(
    a: &Relation<(K, V1)>,
    b: &Relation<(K, V2)>,
    logic: impl FnMut(&K, &V1, &V2) -> Option<T>,
) -> Relation<T>
where
    (K, V1): Ord,
    (K, V2): Ord,
{
    let mut out = Vec::new();
    join_into(a, b, &mut out, logic);
    Relation::from_vec(out)
}

/// The relation `r` held, leaving it empty: an input moved into the one stratum that reads it.
pub fn take<T: Ord>(r: &mut Relation<T>) -> Relation<T> {
    std::mem::replace(r, Relation::from_vec(Vec::new()))
}

/// Runs `iteration` to its fixpoint.
pub fn fixpoint(iteration: &mut Iteration, mut round: impl FnMut()) {
    while iteration.changed() {
        round();
    }
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
    }

    #[test]
    fn join_pairs_every_tuple_of_equal_keys() {
        let a = Relation::from_vec(vec![(1, 'a'), (1, 'b'), (2, 'c'), (4, 'd')]);
        let b = Relation::from_vec(vec![(0, 'x'), (1, 'y'), (1, 'z'), (4, 'w'), (5, 'v')]);
        let all = join(&a, &b, |k, v1, v2| Some((*k, *v1, *v2)));
        assert_eq!(all.elements, vec![(1, 'a', 'y'), (1, 'a', 'z'), (1, 'b', 'y'), (1, 'b', 'z'), (4, 'd', 'w')]);
        let kept = join(&a, &b, |k, v1, _| (*k == 1).then_some(*v1));
        assert_eq!(kept.elements, vec!['a', 'b']);
        let datafrog = Relation::from_join(&a, &b, |k, v1, v2| (*k, *v1, *v2));
        assert_eq!(all.elements, datafrog.elements);
    }
}
