//! The layers of one evaluation, as a store the runtime owns: a generated module names each
//! layer by a typed [`Slot`] constant and reads and writes it as `l[slot]`, so that no generated
//! type or function grows with the package's relations (one `Slot` and one table entry a layer).

use super::rules::{Final, Rows};
use super::Budget;
use crate::Fact;
use datafrog::Relation;
use std::any::Any;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// A layer behind the store: a relation of some tuple type, read back by its type or as rows.
pub trait Layer: Rows + Any + Send + Sync {
    /// The relation, to be downcast to its tuple type.
    fn as_any(&self) -> &dyn Any;
    /// The relation, to be downcast to its tuple type, mutably.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Fact + Send + Sync + 'static> Layer for Relation<T> {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// The place of one layer in [`Layers`], and the type of its tuples.
pub struct Slot<T> {
    id: usize,
    /// An empty layer of this type: what the store starts the slot from.
    pub empty: fn() -> Box<dyn Layer>,
    tuple: PhantomData<fn() -> T>,
}

impl<T> Clone for Slot<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Slot<T> {}

impl<T: Fact + Send + Sync + 'static> Slot<T> {
    /// The slot at position `id` of the store.
    pub const fn new(id: usize) -> Self {
        Slot { id, empty: empty_layer::<T>, tuple: PhantomData }
    }
}

impl<T> Slot<T> {
    /// Its position in the store.
    pub const fn id(self) -> usize {
        self.id
    }
}

fn empty_layer<T: Fact + Send + Sync + 'static>() -> Box<dyn Layer> {
    Box::new(super::empty::<T>())
}

/// Every layer of one evaluation, each at its [`Slot`], and the [`Budget`] its joins spend.
pub struct Layers {
    layers: Vec<Box<dyn Layer>>,
    budget: Budget,
}

impl Layers {
    /// Every layer empty: `empty` holds, at each slot's position, its [`Slot::empty`]; no
    /// budget.
    pub fn new(empty: &[fn() -> Box<dyn Layer>]) -> Self {
        Layers { layers: empty.iter().map(|make| make()).collect(), budget: Budget::unlimited() }
    }

    /// At most `limit` tuples derived for each of a batch's `cases` (`None`: no bound).
    pub fn limit(&mut self, limit: Option<u64>, cases: u32) {
        self.budget = limit.map_or_else(Budget::unlimited, |limit| Budget::new(limit, cases));
    }

    /// What the evaluation's joins spend.
    #[inline]
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// The final `+D`, `+S` and `+d` of one relation and sign, at the slots of `ids`.
    pub fn finals(&self, ids: [usize; 3]) -> Final<'_> {
        ids.map(|id| -> &dyn Rows { &*self.layers[id] })
    }
}

impl<T: Fact + Send + Sync + 'static> Index<Slot<T>> for Layers {
    type Output = Relation<T>;

    /// The layer at `slot`. Panics if the store was not made from the slots' own table (a
    /// slot of another tuple type at that position): a defect of the generated module.
    #[inline]
    fn index(&self, slot: Slot<T>) -> &Relation<T> {
        self.layers[slot.id].as_any().downcast_ref().expect("a layer of its slot's tuple type")
    }
}

impl<T: Fact + Send + Sync + 'static> IndexMut<Slot<T>> for Layers {
    #[inline]
    fn index_mut(&mut self, slot: Slot<T>) -> &mut Relation<T> {
        self.layers[slot.id].as_any_mut().downcast_mut().expect("a layer of its slot's tuple type")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{CaseId, Sym};
    use proptest::prelude::*;

    const A: Slot<(CaseId, Sym)> = Slot::new(0);
    const B: Slot<(CaseId, Sym, Sym)> = Slot::new(1);
    const EMPTY: [fn() -> Box<dyn Layer>; 2] = [A.empty, B.empty];

    fn sym(i: u32) -> Sym {
        Sym(i)
    }

    #[test]
    fn layers_start_empty_and_keep_what_is_set() {
        let mut l = Layers::new(&EMPTY);
        assert!(l[A].is_empty() && l[B].is_empty());
        l[B] = Relation::from_vec(vec![(CaseId(0), sym(1), sym(2))]);
        l[A] = Relation::from_vec(l[B].iter().map(|&(c, x, _)| (c, x)).collect());
        assert_eq!(l[A].elements, vec![(CaseId(0), sym(1))]);
        let [d, s, c] = l.finals([B.id(), B.id(), B.id()]);
        let row = [0, 1, 2];
        assert!(d.holds(&row) && s.holds(&row) && c.holds(&row));
        assert!(!l.finals([A.id(); 3])[0].holds(&[0, 2]));
    }

    #[test]
    #[should_panic(expected = "a layer of its slot's tuple type")]
    fn a_slot_of_another_type_is_refused() {
        let l = Layers::new(&[B.empty]);
        let _ = &l[A];
    }

    proptest! {
        /// A layer read through its slot, or as rows, is the relation set there.
        #[test]
        fn a_layer_reads_back_as_set(rows in proptest::collection::vec((0u32..4, 0u32..6), 0..40)) {
            let mut l = Layers::new(&EMPTY);
            let rel = Relation::from_vec(rows.iter().map(|&(c, x)| (CaseId(c), sym(x))).collect());
            l[A] = rel.clone();
            prop_assert_eq!(&l[A].elements, &rel.elements);
            let rows_of = l.finals([A.id(); 3])[0];
            for &(c, x) in &rows {
                prop_assert!(rows_of.holds(&[c as i64, x as i64]));
            }
            prop_assert!(l[B].is_empty());
        }
    }
}
