//! [`Binding`]: a rule's binding, or a [`Fact`](crate::Fact), as the flat row `[case, values..]`
//! the runtime reads.

use super::{CaseId, Column};

/// A binding, or part of one, written as flat values: a case, a column, or a tuple of them.
/// Generated code nests a tuple of more than 12 items (`(a, .., k, (l, ..))`), so a tuple's
/// items may be tuples again; the row is the same as the flat tuple's, and so is the order.
pub trait Binding: Ord {
    /// Appends its flat values to `out`, in order.
    fn extend_row(&self, out: &mut Vec<i64>);
}

impl<T: Column> Binding for T {
    #[inline]
    fn extend_row(&self, out: &mut Vec<i64>) {
        out.push(self.to_flat());
    }
}

impl Binding for CaseId {
    #[inline]
    fn extend_row(&self, out: &mut Vec<i64>) {
        out.push(i64::from(self.0));
    }
}

macro_rules! binding_tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Binding),+> Binding for ($($t,)+) {
            #[inline]
            fn extend_row(&self, out: &mut Vec<i64>) {
                $(self.$i.extend_row(out);)+
            }
        }
    };
}
binding_tuple!(A 0);
binding_tuple!(A 0, B 1);
binding_tuple!(A 0, B 1, C 2);
binding_tuple!(A 0, B 1, C 2, D 3);
binding_tuple!(A 0, B 1, C 2, D 3, E 4);
binding_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
binding_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
binding_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
binding_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
binding_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
binding_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
binding_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Fact, Sym};

    fn flat(b: &impl Binding) -> Vec<i64> {
        let mut out = Vec::new();
        b.extend_row(&mut out);
        out
    }

    #[test]
    fn a_nested_binding_is_the_row_of_the_flat_one() {
        let wide = (CaseId(7), 1i64, Sym(2), 3i64, 4i64, 5i64, 6i64, 7i64, 8i64, 9i64, 10i64, (11i64, Sym(12), 13i64));
        assert_eq!(flat(&wide), [7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
        let deeper = (CaseId(0), 1i64, 2i64, 3i64, 4i64, 5i64, 6i64, 7i64, 8i64, 9i64, 10i64, (11i64, (12i64,)));
        assert_eq!(flat(&deeper), (0..13).collect::<Vec<i64>>());
    }

    #[test]
    fn a_flat_binding_is_its_fact_row() {
        let fact = (CaseId(3), Sym(1), -4i64);
        assert_eq!(flat(&fact), [3, 1, -4]);
        assert_eq!(<(CaseId, Sym, i64) as Fact>::from_flat_row(&flat(&fact)), fact);
    }
}
