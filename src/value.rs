//! Values of a case: interned entity names, case ids, and the column trait of typed tuples.

use std::collections::HashMap;

/// An interned entity name (or constant), valid within the [`Interner`] that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Sym(pub u32);

/// The case a fact belongs to, within one batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct CaseId(pub u32);

/// Interns entity names. A package's constants take the first ids, in declaration order.
#[derive(Debug, Clone, Default)]
pub struct Interner {
    ids: HashMap<Box<str>, u32>,
    names: Vec<Box<str>>,
}

impl Interner {
    /// An interner holding `constants` as ids `0..constants.len()`.
    pub fn with_constants(constants: &[&str]) -> Self {
        let mut i = Interner::default();
        for c in constants {
            i.intern(c);
        }
        i
    }

    /// The id of `name`, new or existing.
    pub fn intern(&mut self, name: &str) -> Sym {
        if let Some(&id) = self.ids.get(name) {
            return Sym(id);
        }
        let id = self.names.len() as u32;
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        Sym(id)
    }

    /// The name of `sym`.
    pub fn name(&self, sym: Sym) -> &str {
        self.names.get(sym.0 as usize).map(|s| &**s).unwrap_or("<unknown>")
    }

    /// Number of interned names.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether nothing is interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// A column type of a typed tuple: an entity newtype or `i64`, stored as `i64` in flat rows.
pub trait Column: Copy + Ord + std::fmt::Debug {
    /// From the flat representation.
    fn from_flat(v: i64) -> Self;
    /// To the flat representation.
    fn to_flat(self) -> i64;
}

impl Column for i64 {
    fn from_flat(v: i64) -> Self {
        v
    }
    fn to_flat(self) -> i64 {
        self
    }
}

impl Column for Sym {
    fn from_flat(v: i64) -> Self {
        Sym(v as u32)
    }
    fn to_flat(self) -> i64 {
        self.0 as i64
    }
}

/// A typed tuple decoded from a flat row (without its case column).
pub trait Row: Sized {
    /// Decodes `row` (exactly the tuple's arity).
    fn from_row(row: &[i64]) -> Self;
}

impl Row for () {
    fn from_row(_: &[i64]) -> Self {}
}

macro_rules! row_tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Column),+> Row for ($($t,)+) {
            fn from_row(row: &[i64]) -> Self {
                ($($t::from_flat(row[$i]),)+)
            }
        }
    };
}
row_tuple!(A 0);
row_tuple!(A 0, B 1);
row_tuple!(A 0, B 1, C 2);
row_tuple!(A 0, B 1, C 2, D 3);
row_tuple!(A 0, B 1, C 2, D 3, E 4);
row_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
row_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
row_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

/// Declares an entity newtype over [`Sym`] usable as a typed column.
#[macro_export]
macro_rules! entity_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub $crate::Sym);
        impl $crate::Column for $name {
            fn from_flat(v: i64) -> Self {
                $name($crate::Sym(v as u32))
            }
            fn to_flat(self) -> i64 {
                self.0 .0 as i64
            }
        }
    };
}

entity_type!(
    /// A value of the built-in `urn:law:std#String` type (feature `string-values`): interned
    /// like an entity name, but a column type of its own. Cases write it as a JSON string.
    Str
);
