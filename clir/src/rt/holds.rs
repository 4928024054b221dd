//! [`Holds`]: a datafrog leaper that keeps the tuples bound so far for which a predicate holds,
//! the predicate free to keep state.
//!
//! What datafrog lacks: its `PrefixFilter` takes an `Fn`, so the membership tests inside it
//! cannot remember where their last lookup ended ([`Probe`](super::Probe)), and its
//! `FilterWith`/`FilterAnti` are one leaper a test, each asked by the leapjoin for every tuple
//! even after another has refused it. `Holds` runs a rule's tests as one `FnMut` predicate
//! that stops at the first that fails, each membership test galloping through its relation.
//! Alone it proposes `()` for each tuple that passes, as `PrefixFilter` does, so a rule of tests
//! alone is one leapjoin of one leaper.

use datafrog::{Leaper, Leapers};

/// Keeps the prefixes for which `predicate` holds; never proposes a value itself but `()`.
pub struct Holds<F> {
    predicate: F,
}

impl<F> Holds<F> {
    /// The tests `predicate` makes of each prefix.
    pub fn new(predicate: F) -> Self {
        Holds { predicate }
    }
}

impl<F> Holds<F> {
    /// `leaper`, asked only for the prefixes that pass: a proposer behind the tests that come
    /// before it, so that a prefix they refuse costs no lookup (datafrog asks every leaper of a
    /// tuple for its count, a refusal or not).
    pub fn before<L>(self, leaper: L) -> Before<F, L> {
        Before { predicate: self.predicate, leaper }
    }
}

/// A leaper asked only for the prefixes a predicate passes ([`Holds::before`]).
pub struct Before<F, L> {
    predicate: F,
    leaper: L,
}

impl<'leap, P, V, F, L> Leaper<'leap, P, V> for Before<F, L>
where
    F: FnMut(&P) -> bool,
    L: Leaper<'leap, P, V>,
{
    fn count(&mut self, prefix: &P) -> usize {
        if (self.predicate)(prefix) {
            self.leaper.count(prefix)
        } else {
            0
        }
    }

    fn propose(&mut self, prefix: &P, values: &mut Vec<&'leap V>) {
        self.leaper.propose(prefix, values)
    }

    fn intersect(&mut self, prefix: &P, values: &mut Vec<&'leap V>) {
        self.leaper.intersect(prefix, values)
    }
}

impl<'leap, P, V, F, L> Leapers<'leap, P, V> for Before<F, L>
where
    F: FnMut(&P) -> bool,
    L: Leaper<'leap, P, V>,
{
    fn for_each_count(&mut self, prefix: &P, mut op: impl FnMut(usize, usize)) {
        op(0, Leaper::count(self, prefix))
    }

    fn propose(&mut self, prefix: &P, min_index: usize, values: &mut Vec<&'leap V>) {
        debug_assert_eq!(min_index, 0, "one leaper");
        Leaper::propose(self, prefix, values)
    }

    fn intersect(&mut self, _prefix: &P, min_index: usize, _values: &mut Vec<&'leap V>) {
        debug_assert_eq!(min_index, 0, "one leaper");
    }
}

impl<'leap, P, V, F> Leaper<'leap, P, V> for Holds<F>
where
    F: FnMut(&P) -> bool,
{
    fn count(&mut self, prefix: &P) -> usize {
        if (self.predicate)(prefix) {
            usize::MAX
        } else {
            0
        }
    }

    fn propose(&mut self, _prefix: &P, _values: &mut Vec<&'leap V>) {
        unreachable!("Holds never proposes beside a proposer: its count is 0 or usize::MAX")
    }

    fn intersect(&mut self, _prefix: &P, _values: &mut Vec<&'leap V>) {
        // Only reached when the count was usize::MAX: the prefix passed.
    }
}

impl<'leap, P, F> Leapers<'leap, P, ()> for Holds<F>
where
    F: FnMut(&P) -> bool,
{
    fn for_each_count(&mut self, prefix: &P, mut op: impl FnMut(usize, usize)) {
        op(0, usize::from((self.predicate)(prefix)))
    }

    fn propose(&mut self, _prefix: &P, min_index: usize, values: &mut Vec<&'leap ()>) {
        debug_assert_eq!(min_index, 0, "one leaper");
        values.push(&());
    }

    fn intersect(&mut self, _prefix: &P, min_index: usize, _values: &mut Vec<&'leap ()>) {
        debug_assert_eq!(min_index, 0, "one leaper");
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ExtendBy, Once, Probe};
    use super::*;
    use datafrog::{FilterWith, PrefixFilter, Relation};
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// `p(x, y) :- a(x, y), x < y, b(y, x)` as one leaper, against a set model and
        /// datafrog's `PrefixFilter` and `FilterWith` (beside `Once`).
        #[test]
        fn holds_keeps_what_a_set_model_and_datafrog_keep(
            a in prop::collection::vec((0u8..6, 0u8..6), 0..40),
            b in prop::collection::vec((0u8..6, 0u8..6), 0..40),
        ) {
            let (a, b) = (Relation::from_vec(a), Relation::from_vec(b));
            let set: BTreeSet<(u8, u8)> = b.iter().copied().collect();
            let model: Vec<(u8, u8)> = a.iter().copied().filter(|&(x, y)| x < y && set.contains(&(y, x))).collect();
            let mut seen = Probe::new(&b[..]);
            let ours = Relation::from_leapjoin(&a, Holds::new(|&(x, y): &(u8, u8)| x < y && seen.contains(&(y, x))), |&t, &()| t);
            let theirs = Relation::from_leapjoin(
                &a,
                (Once, PrefixFilter::from(|&(x, y): &(u8, u8)| x < y), FilterWith::from(&b, |&(x, y): &(u8, u8)| (y, x))),
                |&t, &()| t,
            );
            prop_assert_eq!(&ours.elements, &model);
            prop_assert_eq!(&theirs.elements, &model);
        }

        /// Beside a proposer, or before it, `Holds` only filters:
        /// `p(x, z) :- a(x, y), y != 0, c(y, z)`.
        #[test]
        fn holds_filters_beside_and_before_a_proposer(
            a in prop::collection::vec((0u8..6, 0u8..6), 0..40),
            c in prop::collection::vec((0u8..6, 0u8..6), 0..40),
        ) {
            let (a, c) = (Relation::from_vec(a), Relation::from_vec(c));
            let model: BTreeSet<(u8, u8)> = a
                .iter()
                .filter(|&&(_, y)| y != 0)
                .flat_map(|&(x, y)| c.iter().filter(move |t| t.0 == y).map(move |t| (x, t.1)))
                .collect();
            let ours = Relation::from_leapjoin(
                &a,
                (
                    ExtendBy::rows(&c[..], |&(_, y): &(u8, u8)| y, |t: &(u8, u8)| t.0),
                    Holds::new(|&(_, y): &(u8, u8)| y != 0),
                ),
                |&(x, _), &(_, z)| (x, z),
            );
            let before = Relation::from_leapjoin(
                &a,
                Holds::new(|&(_, y): &(u8, u8)| y != 0).before(ExtendBy::rows(&c[..], |&(_, y): &(u8, u8)| y, |t: &(u8, u8)| t.0)),
                |&(x, _), &(_, z)| (x, z),
            );
            prop_assert_eq!(&before.elements, &ours.elements);
            prop_assert_eq!(ours.elements, model.into_iter().collect::<Vec<_>>());
        }
    }
}
