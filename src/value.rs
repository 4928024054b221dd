//! Values of a case: interned entity names, case ids, and the column trait of typed tuples.

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

/// A fast hasher for short names (relation names, entity names), seeded per process so that
/// no input can be made to collide on purpose.
#[derive(Clone, Copy)]
pub(crate) struct Fast(u64);

impl Hasher for Fast {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes(w.try_into().unwrap_or_default()));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64)
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64)
    }
    fn finish(&self) -> u64 {
        // A final mix, so that the low bits the table uses depend on every input bit.
        let mut z = self.0;
        z = (z ^ (z >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        z ^ (z >> 33)
    }
}

impl Fast {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

#[derive(Clone, Copy)]
pub(crate) struct FastState(u64);

impl Default for FastState {
    fn default() -> Self {
        static SEED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
        FastState(*SEED.get_or_init(|| RandomState::new().hash_one(0x636c_6972u64)))
    }
}

impl BuildHasher for FastState {
    type Hasher = Fast;
    fn build_hasher(&self) -> Fast {
        Fast(self.0)
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, FastState>;

/// An interned entity name (or constant), valid within the [`Interner`] that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Sym(pub u32);

/// The case a fact belongs to, within one batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct CaseId(pub u32);

/// Interns entity names. A package's constants take the first ids, in declaration order.
#[derive(Debug, Clone, Default)]
pub struct Interner {
    ids: FastMap<Box<str>, u32>,
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
    /// How many columns.
    const ARITY: usize;
    /// Decodes `row` (exactly the tuple's arity).
    fn from_row(row: &[i64]) -> Self;
    /// Encodes the tuple as a flat row.
    fn to_row(&self) -> Vec<i64>;
}

impl Row for () {
    const ARITY: usize = 0;
    fn from_row(_: &[i64]) -> Self {}
    fn to_row(&self) -> Vec<i64> {
        Vec::new()
    }
}

/// A tuple of a relation as generated code holds it: the case, then the columns. Reading input
/// facts from a [`Batch`](crate::Batch) and writing conclusions to an [`Output`](crate::Output)
/// go through it, so generated code never touches the flat layout.
pub trait Fact: Ord + Clone {
    /// Columns besides the case.
    const ARITY: usize;
    /// From a flat row `[case, columns..]`.
    fn from_flat_row(row: &[i64]) -> Self;
    /// Appends the flat row `[case, columns..]`.
    fn push_flat(&self, out: &mut Vec<i64>);
}

impl Fact for (CaseId,) {
    const ARITY: usize = 0;
    fn from_flat_row(row: &[i64]) -> Self {
        (CaseId(row[0] as u32),)
    }
    fn push_flat(&self, out: &mut Vec<i64>) {
        out.push(self.0 .0 as i64);
    }
}

macro_rules! row_tuple {
    ($n:literal; $($t:ident $i:tt $j:tt),+) => {
        impl<$($t: Column),+> Row for ($($t,)+) {
            const ARITY: usize = $n;
            fn from_row(row: &[i64]) -> Self {
                ($($t::from_flat(row[$i]),)+)
            }
            fn to_row(&self) -> Vec<i64> {
                vec![$(self.$i.to_flat()),+]
            }
        }
        impl<$($t: Column),+> Fact for (CaseId, $($t,)+) {
            const ARITY: usize = $n;
            fn from_flat_row(row: &[i64]) -> Self {
                (CaseId(row[0] as u32), $($t::from_flat(row[$j]),)+)
            }
            fn push_flat(&self, out: &mut Vec<i64>) {
                out.push(self.0 .0 as i64);
                $(out.push(self.$j.to_flat());)+
            }
        }
    };
}
row_tuple!(1; A 0 1);
row_tuple!(2; A 0 1, B 1 2);
row_tuple!(3; A 0 1, B 1 2, C 2 3);
row_tuple!(4; A 0 1, B 1 2, C 2 3, D 3 4);
row_tuple!(5; A 0 1, B 1 2, C 2 3, D 3 4, E 4 5);
row_tuple!(6; A 0 1, B 1 2, C 2 3, D 3 4, E 4 5, F 5 6);
row_tuple!(7; A 0 1, B 1 2, C 2 3, D 3 4, E 4 5, F 5 6, G 6 7);
row_tuple!(8; A 0 1, B 1 2, C 2 3, D 3 4, E 4 5, F 5 6, G 6 7, H 7 8);
row_tuple!(9; A 0 1, B 1 2, C 2 3, D 3 4, E 4 5, F 5 6, G 6 7, H 7 8, I 8 9);
row_tuple!(10; A 0 1, B 1 2, C 2 3, D 3 4, E 4 5, F 5 6, G 6 7, H 7 8, I 8 9, J 9 10);
row_tuple!(11; A 0 1, B 1 2, C 2 3, D 3 4, E 4 5, F 5 6, G 6 7, H 7 8, I 8 9, J 9 10, K 10 11);

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
