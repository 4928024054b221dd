//! [`FilterBy`]: a datafrog leaper that keeps a prefix when a tuple built from it is (or is not)
//! in a sorted relation: a rule's membership test and its negation.
//!
//! What datafrog lacks: its `FilterWith` and `FilterAnti` read a `Relation<(Key, Val)>` and find
//! each tuple by a binary search of the whole relation, and its `Relation::from_antijoin`
//! returns nothing in 2.0.1 (rust-lang/datafrog#39). `FilterBy` tests the relation's own tuples,
//! galloping forward from the last one tested ([`Probe`]), and is right for both signs.

use super::Probe;
use datafrog::{Leaper, Leapers};

/// Keeps a prefix when `tuple(prefix)` is in a sorted relation (`present`), or when it is not
/// (an antijoin). It never proposes values: in a leapjoin it needs a proposer beside it
/// ([`super::Once`] when the rule has no other).
pub struct FilterBy<'leap, T, F> {
    probe: Probe<'leap, T>,
    tuple: F,
    present: bool,
}

impl<'leap, T: Ord, F> FilterBy<'leap, T, F> {
    /// Keeps a prefix when `tuple(prefix)` is in the sorted `rows`.
    pub fn with(rows: &'leap [T], tuple: F) -> Self {
        FilterBy { probe: Probe::new(rows), tuple, present: true }
    }

    /// Keeps a prefix when `tuple(prefix)` is not in the sorted `rows`.
    pub fn without(rows: &'leap [T], tuple: F) -> Self {
        FilterBy { probe: Probe::new(rows), tuple, present: false }
    }
}

impl<'leap, P, T, V, F> Leaper<'leap, P, V> for FilterBy<'leap, T, F>
where
    T: Ord,
    F: Fn(&P) -> T,
{
    /// 0 when the prefix is dropped (nothing is proposed), otherwise "any number" (it proposes
    /// nothing itself).
    fn count(&mut self, prefix: &P) -> usize {
        if self.probe.contains(&(self.tuple)(prefix)) == self.present {
            usize::MAX
        } else {
            0
        }
    }

    fn propose(&mut self, _prefix: &P, _values: &mut Vec<&'leap V>) {
        unreachable!("FilterBy never proposes: its count is 0 or usize::MAX")
    }

    fn intersect(&mut self, _prefix: &P, _values: &mut Vec<&'leap V>) {
        // A prefix that reaches here passed the test in `count`.
    }
}

impl<'leap, P, T, V, F> Leapers<'leap, P, V> for FilterBy<'leap, T, F>
where
    T: Ord,
    F: Fn(&P) -> T,
{
    fn for_each_count(&mut self, prefix: &P, mut op: impl FnMut(usize, usize)) {
        op(0, Leaper::<P, V>::count(self, prefix))
    }

    fn propose(&mut self, _prefix: &P, _min_index: usize, _values: &mut Vec<&'leap V>) {
        unreachable!("FilterBy never proposes: pair it with a proposer")
    }

    fn intersect(&mut self, _prefix: &P, _min_index: usize, _values: &mut Vec<&'leap V>) {}
}

#[cfg(test)]
mod tests {
    use super::super::Once;
    use super::*;
    use datafrog::{FilterAnti, FilterWith, Relation};
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// `kept(a, b) :- source(a, b), [not] seen(b, a)`: the set model, datafrog's
        /// `FilterWith`/`FilterAnti` over `(b, a)` pairs, and `FilterBy` beside [`Once`].
        #[test]
        fn filter_by_keeps_what_a_set_model_and_datafrog_keep(
            source in prop::collection::vec((0u8..6, 0u8..6), 0..40),
            seen in prop::collection::vec((0u8..6, 0u8..6), 0..40),
        ) {
            let (source, seen) = (Relation::from_vec(source), Relation::from_vec(seen));
            let set: BTreeSet<(u8, u8)> = seen.iter().copied().collect();
            for present in [true, false] {
                let model: Vec<(u8, u8)> =
                    source.iter().copied().filter(|&(a, b)| set.contains(&(b, a)) == present).collect();
                let flip = |&(a, b): &(u8, u8)| (b, a);
                let ours = if present {
                    Relation::from_leapjoin(&source, (Once, FilterBy::with(&seen[..], flip)), |&t, &()| t)
                } else {
                    Relation::from_leapjoin(&source, (Once, FilterBy::without(&seen[..], flip)), |&t, &()| t)
                };
                let theirs = if present {
                    Relation::from_leapjoin(&source, (Once, FilterWith::from(&seen, flip)), |&t, &()| t)
                } else {
                    Relation::from_leapjoin(&source, (Once, FilterAnti::from(&seen, flip)), |&t, &()| t)
                };
                prop_assert_eq!(&ours.elements, &model);
                prop_assert_eq!(&theirs.elements, &model);
            }
        }
    }

    #[test]
    fn an_antijoin_is_right_where_datafrog_2_0_1_returns_nothing() {
        let (source, seen) = (Relation::from_vec(vec![(1u8, 1u8), (2, 2)]), Relation::from_vec(vec![(1u8, 1u8)]));
        let ours =
            Relation::from_leapjoin(&source, (Once, FilterBy::without(&seen[..], |&t: &(u8, u8)| t)), |&t, &()| t);
        assert_eq!(ours.elements, [(2, 2)]);
    }
}
