//! A perfect hash of a package's relation keys, built by `const` evaluation: generated code
//! declares `static KEYS: KeyTable<M, B> = KeyTable::new(&[..])`, so rustc computes the table
//! when it compiles the package, and a key is found at run time by one hash, one displacement and
//! one comparison.
//!
//! The scheme is hash and displace (Belazzougui, Botelho, Dietzfelbinger: CHD): a key's hash
//! picks its bucket and two offsets `f1`, `f2`; the bucket's displacement `(d0, d1)`, searched
//! at build time, places it at `(f1 + d0 * f2 + d1) mod M`, distinct from every other key's place.

/// A place no key takes.
const EMPTY: u16 = u16::MAX;

/// The high and low halves of the 128-bit product of `a` and `b`, folded.
const fn folded(a: u64, b: u64) -> u64 {
    let p = (a as u128) * (b as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

/// The word of the first `N` (4 or 8) bytes of `b`, which has at least `N`.
const fn word<const N: usize>(b: &[u8]) -> u64 {
    match b.first_chunk::<N>() {
        Some(w) => {
            let mut v = 0u64;
            let mut i = 0;
            while i < N {
                v |= (w[i] as u64) << (8 * i);
                i += 1;
            }
            v
        }
        None => 0,
    }
}

/// The hash of a key (any bytes) under `seed`, as [`KeyTable`] computes it at build time and at
/// run time: a few folded multiplications (as foldhash does), the first and last words of a
/// key read overlapping.
pub const fn hash(key: &[u8], seed: u64) -> u64 {
    const K: [u64; 3] = [0x243F_6A88_85A3_08D3, 0x1319_8A2E_0370_7344, 0xA409_3822_299F_31D0];
    let len = key.len();
    let mut h = folded(seed ^ K[0], (len as u64) ^ K[1]);
    let mut rest = key;
    while rest.len() > 16 {
        h = folded(h ^ word::<8>(rest), word::<8>(rest.split_at(8).1) ^ K[1]);
        rest = rest.split_at(16).1;
    }
    // The last 16 bytes (overlapping what came before), or what there is of them.
    let (a, b) = if len >= 16 {
        (word::<8>(key.split_at(len - 16).1), word::<8>(key.split_at(len - 8).1))
    } else if len >= 8 {
        (word::<8>(key), word::<8>(key.split_at(len - 8).1))
    } else if len >= 4 {
        (word::<4>(key), word::<4>(key.split_at(len - 4).1))
    } else if len > 0 {
        ((key[0] as u64) << 16 | (key[len / 2] as u64) << 8 | key[len - 1] as u64, 0)
    } else {
        (0, 0)
    };
    folded(folded(h ^ a, b ^ K[2]), K[0])
}

/// Where displacement `d` (`d0 << 16 | d1`) puts a key of hash `h` in a table of `m` places.
const fn place(h: u64, d: u32, m: usize) -> usize {
    let (f1, f2) = ((h >> 16) as u32, ((h >> 40) as u32) | 1);
    (f1.wrapping_add((d >> 16).wrapping_mul(f2)).wrapping_add(d & 0xFFFF) as usize) & (m - 1)
}

/// A perfect hash of up to `M / 2` keys into `M` places through `B` buckets (`M` and `B`
/// powers of two, `M` at most 65,536): [`KeyTable::find`] gives a key's index in the list it was
/// built from, or `None` for any other key.
#[derive(Debug)]
pub struct KeyTable<const M: usize, const B: usize> {
    keys: &'static [&'static str],
    seed: u64,
    displacement: [u32; B],
    places: [u16; M],
}

impl<const M: usize, const B: usize> KeyTable<M, B> {
    /// The table of `keys` (distinct). Evaluated as a constant, a list it cannot place (more
    /// keys than `M / 2`, a duplicate, sizes that are not powers of two) fails the build.
    pub const fn new(keys: &'static [&'static str]) -> Self {
        assert!(M.is_power_of_two() && B.is_power_of_two() && M <= 1 << 16, "M and B are powers of two, M <= 2^16");
        assert!(keys.len() * 2 <= M, "at most M / 2 keys");
        let mut seed = 0;
        loop {
            // Two keys of one bucket that agree on both offsets cannot be told apart by any
            // displacement: then another seed.
            if let Some(table) = Self::with_seed(keys, seed) {
                return table;
            }
            seed += 1;
            assert!(seed < 64, "no seed places the keys (a duplicate key?)");
        }
    }

    /// The table of `keys` hashed with `seed`, if every bucket can be placed.
    const fn with_seed(keys: &'static [&'static str], seed: u64) -> Option<Self> {
        let mut hashes = [0u64; M];
        // Per bucket, its keys as a linked list: `first[b]`, then `next[k]`.
        let mut first = [EMPTY; B];
        let mut next = [EMPTY; M];
        let mut size = [0u16; B];
        let mut largest = 0;
        let mut k = 0;
        while k < keys.len() {
            hashes[k] = hash(keys[k].as_bytes(), seed);
            let b = hashes[k] as usize & (B - 1);
            next[k] = first[b];
            first[b] = k as u16;
            size[b] += 1;
            if size[b] as usize > largest {
                largest = size[b] as usize;
            }
            k += 1;
        }
        let mut places = [EMPTY; M];
        let mut displacement = [0u32; B];
        // The largest buckets first: they are the hardest to place. One pass over the buckets
        // for each size a bucket has (not for each up to the number of keys: rustc's constant
        // evaluator is slow enough for that to take a minute at 5,000 keys).
        let mut want = largest;
        while want > 0 {
            let mut b = 0;
            while b < B {
                if size[b] as usize == want {
                    match Self::displace(&hashes, first[b], &next, &mut places) {
                        Some(d) => displacement[b] = d,
                        None => return None,
                    }
                }
                b += 1;
            }
            want -= 1;
        }
        Some(KeyTable { keys, seed, displacement, places })
    }

    /// Finds a displacement `(d0, d1)`, each below `M`, that puts every key of a bucket
    /// (`first`, then `next`) in an empty place, takes the places, and returns it.
    const fn displace(hashes: &[u64; M], first: u16, next: &[u16; M], places: &mut [u16; M]) -> Option<u32> {
        let mut d0 = 0;
        while d0 < M as u32 {
            let mut d1 = 0;
            while d1 < M as u32 {
                let d = d0 << 16 | d1;
                // Whether each key's place is empty and distinct from the others' of the bucket.
                let mut fits = true;
                let mut k = first;
                while k != EMPTY && fits {
                    let p = place(hashes[k as usize], d, M);
                    fits = places[p] == EMPTY;
                    let mut o = first;
                    while o != k && fits {
                        fits = place(hashes[o as usize], d, M) != p;
                        o = next[o as usize];
                    }
                    k = next[k as usize];
                }
                if fits {
                    let mut k = first;
                    while k != EMPTY {
                        places[place(hashes[k as usize], d, M)] = k;
                        k = next[k as usize];
                    }
                    return Some(d);
                }
                d1 += 1;
            }
            d0 += 1;
        }
        None
    }

    /// The index of `key` in the list the table was built from.
    #[inline]
    pub fn find(&self, key: &[u8]) -> Option<usize> {
        let h = hash(key, self.seed);
        let k = self.places[place(h, self.displacement[h as usize & (B - 1)], M)];
        self.keys.get(k as usize).filter(|s| s.as_bytes() == key).map(|_| k as usize)
    }

    /// The keys, as given.
    pub fn keys(&self) -> &'static [&'static str] {
        self.keys
    }
}

/// A [`KeyTable`] of any size, as [`super::Codec`] holds it.
pub trait FindKey: Sync {
    /// The index of `key` in the table's list, if it is one of them.
    fn find(&self, key: &[u8]) -> Option<usize>;
}

impl<const M: usize, const B: usize> FindKey for KeyTable<M, B> {
    fn find(&self, key: &[u8]) -> Option<usize> {
        KeyTable::find(self, key)
    }
}

/// The sizes `(M, B)` of a [`KeyTable`] for `n` keys: `M` places (at least twice the keys)
/// and `B` buckets (about one for two keys).
pub const fn table_sizes(n: usize) -> (usize, usize) {
    let m = if n < 4 { 8 } else { (2 * n).next_power_of_two() };
    let b = if n < 4 { 2 } else { (n / 2).next_power_of_two() };
    (m, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    static FEW: KeyTable<8, 2> = KeyTable::new(&["player_of", "~player_of", "count"]);

    #[test]
    fn a_table_built_at_compile_time_finds_its_keys_and_nothing_else() {
        assert_eq!(FEW.find(b"player_of"), Some(0));
        assert_eq!(FEW.find(b"~player_of"), Some(1));
        assert_eq!(FEW.find(b"count"), Some(2));
        for other in [&b""[..], b"player", b"player_of ", b"~count", b"\xff\xfe"] {
            assert_eq!(FEW.find(other), None);
        }
    }

    proptest! {
        /// Any set of distinct keys is placed (built at run time by the same `const fn`), and
        /// each is found at its index while other strings are not.
        #[test]
        fn every_key_set_is_placed(keys in prop::collection::btree_set("[a-z_~]{0,24}", 0..600), others in prop::collection::vec("[a-z_~]{0,24}", 0..20)) {
            let keys: &'static [&'static str] = Vec::leak(keys.into_iter().map(|k| &*String::leak(k)).collect());
            let table: Box<KeyTable<2048, 512>> = Box::new(KeyTable::new(keys));
            for (i, k) in keys.iter().enumerate() {
                prop_assert_eq!(table.find(k.as_bytes()), Some(i));
            }
            for o in &others {
                prop_assert_eq!(table.find(o.as_bytes()), keys.iter().position(|k| k == o));
            }
        }
    }
}
