//! [`Prefix`]: a tuple's leading columns, what a relation sorted by its columns is keyed by, so
//! that generated code names a lookup's key once (the prefix's side) instead of twice.

/// The first columns of a tuple as the tuple `K` (of one to all of its columns). Implemented for
/// tuples of up to 12 columns of `Clone` types; a longer tuple is read through an explicit
/// projection ([`super::ExtendBy::rows`]).
pub trait Prefix<K> {
    /// The leading columns.
    fn prefix(&self) -> K;
}

/// `impl Prefix<(the taken columns)> for (all columns)`.
macro_rules! prefix_impl {
    ([$($all:ident)+] $($taken:ident)+) => {
        #[allow(non_snake_case)]
        impl<$($all: Clone),+> Prefix<($($taken,)+)> for ($($all,)+) {
            #[inline]
            fn prefix(&self) -> ($($taken,)+) {
                let ($($taken,)+ ..) = self;
                ($($taken.clone(),)+)
            }
        }
    };
}

/// Every prefix of the tuple of columns `all`: the first one, two, .. all of them.
macro_rules! prefixes {
    ([$($all:ident)+] [$($taken:ident)*]) => {};
    ([$($all:ident)+] [$($taken:ident)*] $next:ident $($rest:ident)*) => {
        prefix_impl!([$($all)+] $($taken)* $next);
        prefixes!([$($all)+] [$($taken)* $next] $($rest)*);
    };
}

/// Every prefix of every arity up to the list's length.
macro_rules! arities {
    ([$($all:ident)*]) => {};
    ([$($all:ident)*] $next:ident $($rest:ident)*) => {
        prefixes!([$($all)* $next] [] $($all)* $next);
        arities!([$($all)* $next] $($rest)*);
    };
}

arities!([] A B C D E F G H I J K L);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_is_the_leading_columns() {
        let t = (1u32, "b", 3i64, 'd');
        assert_eq!(Prefix::<(u32,)>::prefix(&t), (1,));
        assert_eq!(Prefix::<(u32, &str, i64)>::prefix(&t), (1, "b", 3));
        assert_eq!(Prefix::<(u32, &str, i64, char)>::prefix(&t), t);
        let long = (0u8, 1u8, 2u8, 3u8, 4u8, 5u8, 6u8, 7u8, 8u8, 9u8, 10u8, 11u8);
        assert_eq!(Prefix::<(u8, u8)>::prefix(&long), (0, 1));
        assert_eq!(Prefix::<(u8, u8, u8, u8, u8, u8, u8, u8, u8, u8, u8, u8)>::prefix(&long), long);
    }
}
