//! The plan of a package built as several crates: its strata cut, in evaluation order, into
//! groups of at most a given number of rules (a stratum is never cut), each group one crate that
//! depends only on the runtime and the package's base crate. So the crates build in parallel,
//! none grows with the package, and a changed rule changes only its group's crate (and the root,
//! which holds every rule's text).

use crate::strata::Strata;

/// The groups of a package's strata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CratesPlan {
    /// Per stratum, its group.
    pub group_of: Vec<usize>,
    /// How many groups there are.
    pub groups: usize,
}

/// Strata in order, a new group started where adding a stratum's rules would take the group
/// past `max_rules` (a stratum of more rules is a group of its own; one of none joins the group
/// before it).
pub fn crates(s: &Strata, max_rules: usize) -> CratesPlan {
    let mut group_of = Vec::with_capacity(s.strata.len());
    let (mut group, mut rules) = (0, 0);
    for st in &s.strata {
        if rules > 0 && !st.rules.is_empty() && rules + st.rules.len() > max_rules {
            group += 1;
            rules = 0;
        }
        rules += st.rules.len();
        group_of.push(group);
    }
    let groups = if group_of.is_empty() { 0 } else { group + 1 };
    CratesPlan { group_of, groups }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strata::Stratum;

    fn strata(rules: &[usize]) -> Strata {
        let mut next = 0;
        let strata = rules
            .iter()
            .map(|&n| {
                let st = Stratum {
                    rels: vec![],
                    rules: (next..next + n).collect(),
                    closures: vec![],
                    recursive: false,
                    collapsed: true,
                    contested: false,
                };
                next += n;
                st
            })
            .collect();
        Strata { strata, rels: vec![] }
    }

    #[test]
    fn strata_are_grouped_in_order_up_to_the_bound() {
        let plan = crates(&strata(&[0, 2, 3, 1, 5, 0, 1]), 4);
        assert_eq!(plan.group_of, vec![0, 0, 1, 1, 2, 2, 3]);
        assert_eq!(plan.groups, 4);
        // A stratum larger than the bound is a group of its own.
        assert_eq!(crates(&strata(&[1, 9, 1]), 4).group_of, vec![0, 1, 2]);
        assert_eq!(crates(&strata(&[]), 4).groups, 0);
    }
}
