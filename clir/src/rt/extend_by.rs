//! [`ExtendBy`]: a datafrog leaper over a sorted relation read by a key projection.
//!
//! What datafrog lacks: its `ExtendWith` reads a `Relation<(Key, Val)>`, so a literal looked up
//! by the leading columns of its own tuples must first be copied into key-value pairs, and it
//! finds each key by a binary search of the whole relation. `ExtendBy` reads the relation's own
//! tuples through two projections (the key of a tuple, the value it proposes) and finds each
//! key by galloping forward from the last one ([`Probe`]), which is what a leapjoin over a
//! sorted source asks for.

use super::{Prefix, Probe};
use datafrog::{Leaper, Leapers};
use std::marker::PhantomData;

/// Proposes, for a prefix, the values (`value_of`) of the tuples of a sorted relation whose key
/// (`key_of`) is the prefix's key (`key`); intersects proposed values with them.
///
/// The relation must be sorted with the tuples of one key adjacent and ordered by their value:
/// true when the key is the tuple's leading columns and the value the column after them (or the
/// whole tuple), as a relation sorted by its columns is.
pub struct ExtendBy<'leap, T, K, V, FP, FK, FV> {
    probe: Probe<'leap, T>,
    key: FP,
    key_of: FK,
    value_of: FV,
    /// The tuples of the last prefix counted.
    range: &'leap [T],
    key_type: PhantomData<(K, &'leap V)>,
}

impl<'leap, T, K, V, FP, FK, FV> ExtendBy<'leap, T, K, V, FP, FK, FV>
where
    FK: Fn(&T) -> K,
    FV: Fn(&'leap T) -> &'leap V,
{
    /// A leaper over the sorted `rows`, keyed by `key_of`, proposing `value_of`; `key` takes a
    /// prefix's key.
    pub fn new(rows: &'leap [T], key: FP, key_of: FK, value_of: FV) -> Self {
        ExtendBy { probe: Probe::new(rows), key, key_of, value_of, range: &[], key_type: PhantomData }
    }
}

impl<'leap, T, K, FP, FK> ExtendBy<'leap, T, K, T, FP, FK, fn(&'leap T) -> &'leap T>
where
    FK: Fn(&T) -> K,
{
    /// Proposes whole tuples of `rows`: a literal's lookup by its key, whose other columns the
    /// leapjoin's logic reads from the tuple.
    pub fn rows(rows: &'leap [T], key: FP, key_of: FK) -> Self {
        Self::new(rows, key, key_of, |t| t)
    }
}

/// The constructor whose key projection is implied: `ExtendBy::keyed(rows, key)`.
impl<'leap, T: 'leap> ExtendBy<'leap, T, (), T, (), (), ()> {
    /// [`ExtendBy::rows`] of `rows` keyed by their leading columns ([`Prefix`]): the lookup of
    /// a literal's view, whose key columns come first.
    #[allow(clippy::type_complexity)]
    pub fn keyed<K, FP>(
        rows: &'leap [T],
        key: FP,
    ) -> ExtendBy<'leap, T, K, T, FP, impl Fn(&T) -> K, fn(&'leap T) -> &'leap T>
    where
        T: Prefix<K>,
    {
        ExtendBy::new(rows, key, T::prefix, |t| t)
    }
}

impl<'leap, P, T, K, V, FP, FK, FV> Leaper<'leap, P, V> for ExtendBy<'leap, T, K, V, FP, FK, FV>
where
    K: Ord,
    V: Ord,
    FP: Fn(&P) -> K,
    FK: Fn(&T) -> K,
    FV: Fn(&'leap T) -> &'leap V,
{
    fn count(&mut self, prefix: &P) -> usize {
        self.range = self.probe.seek((self.key)(prefix), &self.key_of);
        self.range.len()
    }

    fn propose(&mut self, _prefix: &P, values: &mut Vec<&'leap V>) {
        values.extend(self.range.iter().map(&self.value_of));
    }

    fn intersect(&mut self, _prefix: &P, values: &mut Vec<&'leap V>) {
        let (range, value_of) = (self.range, &self.value_of);
        values.retain(|v| range.binary_search_by(|t| value_of(t).cmp(v)).is_ok());
    }
}

impl<'leap, P, T, K, V, FP, FK, FV> Leapers<'leap, P, V> for ExtendBy<'leap, T, K, V, FP, FK, FV>
where
    K: Ord,
    V: Ord,
    FP: Fn(&P) -> K,
    FK: Fn(&T) -> K,
    FV: Fn(&'leap T) -> &'leap V,
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

#[cfg(test)]
mod tests {
    use super::*;
    use datafrog::{ExtendWith, Relation};
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    fn rows() -> impl Strategy<Value = Vec<(u8, u8, u8)>> {
        prop::collection::vec((0u8..6, 0u8..6, 0u8..6), 0..60)
    }

    proptest! {
        /// `source(a, b) ⋈ edge(b, c)`: the model, datafrog's `ExtendWith` over `(b, c)` pairs,
        /// and `ExtendBy` over the triples `edge` holds, keyed by their first two columns.
        #[test]
        fn extend_by_joins_as_a_set_model_and_datafrog_do(
            source in prop::collection::vec((0u8..6, 0u8..6), 0..40),
            edge in rows(),
        ) {
            let source = Relation::from_vec(source);
            let edge = Relation::from_vec(edge);
            let model: BTreeSet<(u8, u8, u8, u8)> = source
                .iter()
                .flat_map(|&(a, b)| edge.iter().filter(move |e| (e.0, e.1) == (a, b)).map(move |e| (a, b, e.1, e.2)))
                .collect();
            // Keyed by (a, b) = the edge's first two columns, proposing its third.
            let ours = Relation::from_leapjoin(
                &source,
                ExtendBy::new(&edge[..], |&(a, b): &(u8, u8)| (a, b), |e: &(u8, u8, u8)| (e.0, e.1), |e: &(u8, u8, u8)| &e.2),
                |&(a, b), &c| (a, b, b, c),
            );
            let pairs = Relation::from_iter(edge.iter().map(|&(x, y, z)| ((x, y), z)));
            let theirs = Relation::from_leapjoin(
                &source,
                ExtendWith::from(&pairs, |&(a, b): &(u8, u8)| (a, b)),
                |&(a, b), &c| (a, b, b, c),
            );
            prop_assert_eq!(&ours.elements, &theirs.elements);
            prop_assert_eq!(ours.elements, model.into_iter().collect::<Vec<_>>());
        }

        /// Two `ExtendBy` leapers that intersect: `triangle(a, b, c) :- ab(a, b), bc(b, c), ac(a, c)`.
        #[test]
        fn extend_by_intersects_as_a_set_model_does(
            ab in prop::collection::vec((0u8..5, 0u8..5), 0..30),
            bc in prop::collection::vec((0u8..5, 0u8..5), 0..30),
            ac in prop::collection::vec((0u8..5, 0u8..5), 0..30),
        ) {
            let (ab, bc, ac) = (Relation::from_vec(ab), Relation::from_vec(bc), Relation::from_vec(ac));
            let model: BTreeSet<(u8, u8, u8)> = ab
                .iter()
                .flat_map(|&(a, b)| (0u8..5).map(move |c| (a, b, c)))
                .filter(|&(a, b, c)| bc.elements.contains(&(b, c)) && ac.elements.contains(&(a, c)))
                .collect();
            let ours = Relation::from_leapjoin(
                &ab,
                (
                    ExtendBy::new(&bc[..], |&(_, b): &(u8, u8)| b, |t: &(u8, u8)| t.0, |t: &(u8, u8)| &t.1),
                    ExtendBy::new(&ac[..], |&(a, _): &(u8, u8)| a, |t: &(u8, u8)| t.0, |t: &(u8, u8)| &t.1),
                ),
                |&(a, b), &c| (a, b, c),
            );
            prop_assert_eq!(ours.elements, model.into_iter().collect::<Vec<_>>());
        }
    }
}
