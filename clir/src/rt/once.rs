//! [`Once`]: a datafrog leaper that proposes `()` once for every prefix.
//!
//! What datafrog lacks: a leapjoin needs one leaper that proposes values (it asserts so), so a
//! rule whose later literals are all membership tests and negations ([`super::FilterBy`],
//! datafrog's `FilterWith`, `FilterAnti`, `PrefixFilter`) has nothing to propose. With `Once`
//! beside them, such a rule is a well-formed leapjoin whose values are `()`.

use datafrog::{Leaper, Leapers};

/// Proposes the one value `()` for every prefix; intersecting with it keeps every value.
#[derive(Clone, Copy, Debug, Default)]
pub struct Once;

impl<'leap, P> Leaper<'leap, P, ()> for Once {
    #[inline]
    fn count(&mut self, _prefix: &P) -> usize {
        1
    }

    #[inline]
    fn propose(&mut self, _prefix: &P, values: &mut Vec<&'leap ()>) {
        values.push(&());
    }

    #[inline]
    fn intersect(&mut self, _prefix: &P, _values: &mut Vec<&'leap ()>) {}
}

impl<'leap, P> Leapers<'leap, P, ()> for Once {
    #[inline]
    fn for_each_count(&mut self, _prefix: &P, mut op: impl FnMut(usize, usize)) {
        op(0, 1)
    }

    #[inline]
    fn propose(&mut self, _prefix: &P, _min_index: usize, values: &mut Vec<&'leap ()>) {
        values.push(&());
    }

    #[inline]
    fn intersect(&mut self, _prefix: &P, _min_index: usize, _values: &mut Vec<&'leap ()>) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafrog::{PrefixFilter, Relation};
    use proptest::prelude::*;

    proptest! {
        /// `even(x) :- number(x), x % 2 = 0` as a leapjoin of `Once` and a prefix filter, against
        /// the model; `Once` alone copies its source.
        #[test]
        fn once_makes_a_join_of_filters_alone_a_leapjoin(numbers in prop::collection::vec(0u32..100, 0..50)) {
            let numbers = Relation::from_vec(numbers);
            let even = Relation::from_leapjoin(
                &numbers,
                (Once, PrefixFilter::from(|x: &u32| x.is_multiple_of(2))),
                |&x, &()| x,
            );
            let model: Vec<u32> = numbers.iter().copied().filter(|x| x.is_multiple_of(2)).collect();
            prop_assert_eq!(even.elements, model);
            let copy = Relation::from_leapjoin(&numbers, Once, |&x, &()| x);
            prop_assert_eq!(copy.elements, numbers.elements.clone());
        }
    }
}
