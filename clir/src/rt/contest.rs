//! [`Contest`]: team defeat over one contested literal of a stratum (SEMANTICS, defeasible
//! rules), computed from the relations of where each rule for or against it applies.
//!
//! Generated code builds one per contested literal instead of spelling out its unions and
//! differences, so a contested stratum's code grows by a line or two a rule, not a dozen.

use super::{difference, empty, union};
use datafrog::Relation;

/// The tuples a contested literal's rules support, and the attacks on them no rule beats.
pub struct Contest<T: Ord> {
    candidates: Relation<T>,
    unbeaten: Relation<T>,
}

impl<T: Ord + Clone> Contest<T> {
    /// The contest of the rules `supporters` (where each applies) against `attacks`: where each
    /// attacking rule applies, with where each rule that beats it applies. An attack is beaten
    /// on a tuple where one of its beaters applies.
    pub fn new(supporters: &[&Relation<T>], attacks: &[(&Relation<T>, &[&Relation<T>])]) -> Self {
        let unbeaten: Vec<Relation<T>> = attacks
            .iter()
            .map(|&(attack, beaters)| match beaters {
                [] => attack.clone(),
                _ => difference(attack, &union(beaters)),
            })
            .collect();
        Contest { candidates: union_of(supporters), unbeaten: union_of(&unbeaten.iter().collect::<Vec<_>>()) }
    }

    /// The literal's supported tuples: the `definite` ones and those a rule for it applies to.
    pub fn supported(&self, definite: &Relation<T>) -> Relation<T> {
        union(&[definite, &self.candidates])
    }

    /// The literal's concluded tuples: the `definite` ones, and those a rule for it applies to
    /// that are neither in the definite `complement` nor attacked unbeaten.
    pub fn concluded(&self, definite: &Relation<T>, complement: &Relation<T>) -> Relation<T> {
        let won = difference(&difference(&self.candidates, complement), &self.unbeaten);
        union(&[definite, &won])
    }
}

/// The union of `parts`, empty for none.
fn union_of<T: Ord + Clone>(parts: &[&Relation<T>]) -> Relation<T> {
    if parts.is_empty() {
        empty()
    } else {
        union(parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    fn rel(v: &BTreeSet<u8>) -> Relation<u8> {
        Relation::from_vec(v.iter().copied().collect())
    }

    fn set() -> impl Strategy<Value = BTreeSet<u8>> {
        proptest::collection::btree_set(0u8..24, 0..12)
    }

    proptest! {
        /// Team defeat as SEMANTICS states it, tuple by tuple, against the contest's relations.
        #[test]
        fn a_contest_concludes_what_team_defeat_concludes_tuple_by_tuple(
            definite in set(),
            complement in set(),
            supporters in proptest::collection::vec(set(), 0..4),
            attacks in proptest::collection::vec((set(), proptest::collection::vec(set(), 0..3)), 0..4),
        ) {
            let sup: Vec<Relation<u8>> = supporters.iter().map(rel).collect();
            let att: Vec<(Relation<u8>, Vec<Relation<u8>>)> =
                attacks.iter().map(|(a, bs)| (rel(a), bs.iter().map(rel).collect())).collect();
            let att_refs: Vec<Vec<&Relation<u8>>> = att.iter().map(|(_, bs)| bs.iter().collect()).collect();
            let attacks_arg: Vec<(&Relation<u8>, &[&Relation<u8>])> =
                att.iter().zip(&att_refs).map(|((a, _), bs)| (a, &bs[..])).collect();
            let contest = Contest::new(&sup.iter().collect::<Vec<_>>(), &attacks_arg);
            let (d, c) = (rel(&definite), rel(&complement));
            let supported = contest.supported(&d);
            let concluded = contest.concluded(&d, &c);
            for t in 0u8..24 {
                let applies = supporters.iter().any(|s| s.contains(&t));
                let unbeaten = attacks.iter().any(|(a, bs)| a.contains(&t) && !bs.iter().any(|b| b.contains(&t)));
                let want_supported = definite.contains(&t) || applies;
                let want_concluded = definite.contains(&t) || (applies && !complement.contains(&t) && !unbeaten);
                prop_assert_eq!(supported.elements.binary_search(&t).is_ok(), want_supported, "supported {}", t);
                prop_assert_eq!(concluded.elements.binary_search(&t).is_ok(), want_concluded, "concluded {}", t);
            }
        }
    }

    #[test]
    fn an_attack_no_rule_beats_defeats_every_tuple_it_reaches() {
        let (r1, r2) = (Relation::from_vec(vec![1u8, 2, 3]), Relation::from_vec(vec![2u8]));
        let contest = Contest::new(&[&r1], &[(&r2, &[])]);
        assert_eq!(contest.concluded(&empty(), &empty()).elements, vec![1, 3]);
        let beaten = Contest::new(&[&r1], &[(&r2, &[&r1])]);
        assert_eq!(beaten.concluded(&empty(), &Relation::from_vec(vec![3])).elements, vec![1, 2]);
    }
}
