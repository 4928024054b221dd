//! Values of a case: interned entity names, case ids, and the column trait of typed tuples.

mod binding;

pub use binding::Binding;
use hashbrown::HashTable;
use std::collections::HashMap;
use std::hash::BuildHasher;

/// The hash map of interned names and relation names, which come from untrusted input (case
/// files, `clir serve` requests). Hashed by the `foldhash` crate's fast variant
/// (`foldhash::fast::RandomState`): a seed for the process, drawn once from address-space
/// randomization, the clock and an allocator address (not the operating system's random
/// source), mixed with a seed of each map's own. foldhash calls itself "minimally
/// DoS-resistant": no list of inputs collides for every seed, and each map's access pattern
/// differs; it says plainly that it does not claim HashDoS resistance against an attacker who
/// can observe its outputs (timings, iteration order) and derive the seeds. The tests below check
/// that names built to collide under a word-at-a-time hasher (the hand-made one this replaced)
/// spread out.
pub(crate) type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// An interned entity name (or constant), valid within the [`Interner`] that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Sym(pub u32);

/// The case a fact belongs to, within one batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct CaseId(pub u32);

/// Interns entity names. A package's constants take the first ids, in declaration order.
///
/// The names are kept one after another in one string, and found by their hash in a table of
/// ids: interning a new name copies it once, with no allocation of its own.
#[derive(Debug, Clone, Default)]
pub struct Interner {
    /// Every name, in id order, one after another.
    text: String,
    /// Where each name ends in `text`, by id.
    ends: Vec<usize>,
    /// The ids, found by their name's hash.
    ids: HashTable<u32>,
    hasher: foldhash::fast::RandomState,
}

/// The name of `id` in an [`Interner`]'s `text` and `ends`.
fn name_in<'t>(text: &'t str, ends: &[usize], id: u32) -> &'t str {
    let id = id as usize;
    let start = if id == 0 { 0 } else { ends[id - 1] };
    &text[start..ends[id]]
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
        let Interner { text, ends, ids, hasher } = self;
        let hash = hasher.hash_one(name);
        if let Some(&id) = ids.find(hash, |&id| name_in(text, ends, id) == name) {
            return Sym(id);
        }
        let id = ends.len() as u32;
        text.push_str(name);
        ends.push(text.len());
        ids.insert_unique(hash, id, |&id| hasher.hash_one(name_in(text, ends, id)));
        Sym(id)
    }

    /// The name of `sym`.
    pub fn name(&self, sym: Sym) -> &str {
        if (sym.0 as usize) < self.ends.len() {
            name_in(&self.text, &self.ends, sym.0)
        } else {
            "<unknown>"
        }
    }

    /// Number of interned names.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether nothing is interned.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

/// A value named by a string: an entity type of a package (a newtype of [`Sym`]), `Str`, or
/// `Sym` itself; `Ruling::name_of` turns one back into its name.
pub trait Entity: Copy {
    /// Its interned name.
    fn sym(self) -> Sym;
}

impl Entity for Sym {
    fn sym(self) -> Sym {
        self
    }
}

/// A column type of a typed tuple: an entity newtype or `i64`, stored as `i64` in flat rows.
/// The flat form keeps the order (`a < b` exactly when `a.to_flat() < b.to_flat()`), so flat
/// rows sort as their tuples do (what `rt::rules::Rows` looks tuples up by).
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
pub trait Fact: Ord + Clone + Binding {
    /// Columns besides the case.
    const ARITY: usize;
    /// From a flat row `[case, columns..]`.
    fn from_flat_row(row: &[i64]) -> Self;
    /// Appends the flat row `[case, columns..]`.
    #[inline]
    fn push_flat(&self, out: &mut Vec<i64>) {
        self.extend_row(out);
    }
}

impl Fact for (CaseId,) {
    const ARITY: usize = 0;
    fn from_flat_row(row: &[i64]) -> Self {
        (CaseId(row[0] as u32),)
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
        impl $crate::Entity for $name {
            fn sym(self) -> $crate::Sym {
                self.0
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::hash::Hasher;

    proptest! {
        /// Interning gives one id a name, distinct names distinct ids in the order first seen,
        /// and each id its name back.
        #[test]
        fn an_interned_name_keeps_its_id_and_gives_it_back(names in prop::collection::vec("[ab\u{e9}]{0,6}", 0..40)) {
            let mut interner = Interner::with_constants(&["Open", "Closed"]);
            let mut first: Vec<&str> = vec!["Open", "Closed"];
            for n in &names {
                let id = interner.intern(n);
                match first.iter().position(|f| f == n) {
                    Some(i) => prop_assert_eq!(id, Sym(i as u32)),
                    None => {
                        prop_assert_eq!(id, Sym(first.len() as u32));
                        first.push(n);
                    }
                }
            }
            prop_assert_eq!(interner.len(), first.len());
            for (i, f) in first.iter().enumerate() {
                prop_assert_eq!(interner.name(Sym(i as u32)), *f);
            }
            prop_assert_eq!(interner.name(Sym(first.len() as u32)), "<unknown>");
        }
    }

    /// The largest number of `names` sharing one 64-bit hash, and one bucket of a table of 2^20
    /// buckets (the low 20 bits, which hashbrown indexes by).
    fn max_sharing(state: &impl BuildHasher, names: &[String]) -> (usize, usize) {
        let (mut full, mut bucket) = (HashMap::new(), HashMap::new());
        for n in names {
            let h = state.hash_one(n.as_str());
            *full.entry(h).or_insert(0usize) += 1;
            *bucket.entry(h & ((1 << 20) - 1)).or_insert(0usize) += 1;
        }
        (full.values().copied().max().unwrap_or(0), bucket.values().copied().max().unwrap_or(0))
    }

    /// The hand-made hasher `FastMap` used before foldhash, with a seed the caller knows.
    #[derive(Clone, Copy)]
    struct OldFast(u64);

    impl OldFast {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        fn add(&mut self, w: u64) {
            self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(Self::K);
        }
    }

    impl Hasher for OldFast {
        fn write(&mut self, bytes: &[u8]) {
            let mut words = bytes.chunks_exact(8);
            for w in &mut words {
                self.add(u64::from_le_bytes(w.try_into().unwrap()));
            }
            if !words.remainder().is_empty() {
                let mut w = [0u8; 8];
                w[..words.remainder().len()].copy_from_slice(words.remainder());
                self.add(u64::from_le_bytes(w));
            }
        }
        fn write_u8(&mut self, i: u8) {
            self.add(i as u64)
        }
        fn finish(&self) -> u64 {
            let mut z = self.0;
            z = (z ^ (z >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
            z ^ (z >> 33)
        }
    }

    impl BuildHasher for OldFast {
        type Hasher = OldFast;
        fn build_hasher(&self) -> OldFast {
            *self
        }
    }

    const N: usize = 100_000;
    const SEED: u64 = 0x636c_6972;

    /// Names that collide under the old hasher whatever its seed: its zero padding of the last
    /// word made a 9-byte name and the same name with 1 to 7 NULs after it one input. 12,500
    /// groups of 8.
    fn padded_names() -> Vec<String> {
        (0..N / 8).flat_map(|i| (0..8).map(move |k| format!("e{i:08}{}", "\0".repeat(k)))).collect()
    }

    /// 100,000 distinct ASCII names of two words that all have one hash under the old hasher
    /// with a known seed: each of its steps can be undone, so the second word is solved for
    /// (and kept when its bytes are 1..=0x7f).
    fn forged_names() -> Vec<String> {
        let k_inv = {
            // The inverse of the odd constant modulo 2^64, by Newton's iteration.
            let mut x = OldFast::K;
            for _ in 0..6 {
                x = x.wrapping_mul(2u64.wrapping_sub(OldFast::K.wrapping_mul(x)));
            }
            x
        };
        assert_eq!(OldFast::K.wrapping_mul(k_inv), 1);
        let target = 0x0123_4567_89ab_cdefu64.wrapping_mul(k_inv);
        let mut names = Vec::with_capacity(N);
        let mut i = 0u64;
        while names.len() < N {
            // The first word: i in base 64 over '0'..'o', eight characters.
            let first: [u8; 8] = std::array::from_fn(|d| b'0' + ((i >> (6 * d)) & 63) as u8);
            i += 1;
            let mut h = OldFast(SEED);
            h.add(u64::from_le_bytes(first));
            let second = (h.0.rotate_left(5) ^ target).to_le_bytes();
            if second.iter().all(|&b| (1..0x80).contains(&b)) {
                names.push(String::from_utf8([first, second].concat()).unwrap());
            }
        }
        names
    }

    /// Names with a long shared prefix that differ only in their last word.
    fn shared_prefix_names() -> Vec<String> {
        let prefix = "urn:law:example.org/packages/a-rather-long-shared-prefix#".repeat(2);
        (0..N).map(|i| format!("{prefix}{i:08}")).collect()
    }

    #[test]
    fn the_old_hasher_collides_on_the_adversarial_names() {
        // What the measure shows for a degenerate hasher: the padded names collide at least in
        // eights for any seed (16 here: a carry of the multiply into the top bits, rotated into
        // the low ones, meets a difference in the last word), the forged ones all at once for
        // the seed they were forged for.
        let padded = max_sharing(&OldFast(0x9e37_79b9), &padded_names());
        eprintln!("old hasher, padded names: {padded:?} (full hash, bucket of 2^20)");
        assert!(padded.0 >= 8, "{padded:?}");
        assert_eq!(max_sharing(&OldFast(SEED), &forged_names()), (N, N));
    }

    #[test]
    fn adversarial_names_spread_out_in_an_interner() {
        for names in [padded_names(), forged_names(), shared_prefix_names()] {
            let mut interner = Interner::default();
            for n in &names {
                interner.intern(n);
            }
            assert_eq!(interner.len(), N);
            // The hasher of the interner's own map, random for this process and this map.
            let (full, bucket) = max_sharing(&interner.hasher, &names);
            eprintln!("foldhash: {full} names at most share a hash, {bucket} a bucket of 2^20");
            assert_eq!(full, 1, "two names share a 64-bit hash");
            assert!(bucket <= 8, "{bucket} names share one of 2^20 buckets");
        }
    }
}
