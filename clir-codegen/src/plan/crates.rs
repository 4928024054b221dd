//! The plan of a package built as several crates: its strata cut, in evaluation order, into
//! groups (a stratum is never cut), each group one crate that depends only on the runtime and
//! the package's base crate. So the crates build in parallel, none grows with the package, and a
//! changed rule changes only its group's crate (and the root, which holds every rule's text).
//!
//! Where a group ends is decided by the strata themselves, not by counting from the first: a
//! group ends after a stratum whose name (its first relation's) hashes to a cut, once it holds
//! at least half the bound, or before a stratum that would take it past the bound. An added or
//! removed rule moves at most the cuts up to the next cut by name, so the groups after it keep
//! their strata, and their crates' sources (content-defined chunking, as backup tools cut files).

use crate::strata::Strata;

/// The groups of a package's strata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CratesPlan {
    /// Per stratum, its group.
    pub group_of: Vec<usize>,
    /// How many groups there are.
    pub groups: usize,
}

/// One stratum in four, by name, ends a group that holds at least half the bound.
const CUT_ONE_IN: u64 = 4;

/// Whether a group may end after the stratum named `name`: a hash of the name (FNV-1a, fixed
/// here so that the cuts never change with the compiler's version of Rust).
fn cut_after(name: &str) -> bool {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h.is_multiple_of(CUT_ONE_IN)
}

/// Strata in order, each named by `names` (its first relation's name): a new group started
/// where adding a stratum's rules would take the group past `max_rules` (a stratum of more
/// rules is a group of its own; one of none joins the group before it), or after a stratum
/// whose name is a cut (its hash, see the module) once the group holds at least half of `max_rules`.
pub fn crates(s: &Strata, names: &[&str], max_rules: usize) -> CratesPlan {
    let mut group_of = Vec::with_capacity(s.strata.len());
    let (mut group, mut rules, mut cut) = (0, 0, false);
    for (st, name) in s.strata.iter().zip(names) {
        if rules > 0 && !st.rules.is_empty() && (cut || rules + st.rules.len() > max_rules) {
            group += 1;
            rules = 0;
        }
        if !st.rules.is_empty() {
            rules += st.rules.len();
            cut = 2 * rules >= max_rules && cut_after(name);
        }
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

    /// Names none of which is a cut.
    fn uncut(n: usize) -> Vec<String> {
        (0..).map(|i| format!("s{i}")).filter(|s| !cut_after(s)).take(n).collect()
    }

    fn plan(rules: &[usize], names: &[String], max: usize) -> CratesPlan {
        crates(&strata(rules), &names.iter().map(String::as_str).collect::<Vec<_>>(), max)
    }

    #[test]
    fn strata_are_grouped_in_order_up_to_the_bound() {
        let names = uncut(7);
        let plan = plan(&[0, 2, 3, 1, 5, 0, 1], &names, 4);
        assert_eq!(plan.group_of, vec![0, 0, 1, 1, 2, 2, 3]);
        assert_eq!(plan.groups, 4);
        // A stratum larger than the bound is a group of its own.
        assert_eq!(self::plan(&[1, 9, 1], &uncut(3), 4).group_of, vec![0, 1, 2]);
        assert_eq!(self::plan(&[], &[], 4).groups, 0);
    }

    #[test]
    fn a_name_that_is_a_cut_ends_a_group_half_full() {
        let cut = (0..).map(|i| format!("c{i}")).find(|s| cut_after(s)).unwrap();
        let mut names = uncut(4);
        names[1] = cut.clone();
        // 2 rules of 8 before the cut: not half full, no cut.
        assert_eq!(plan(&[1, 1, 1, 1], &names, 8).group_of, vec![0, 0, 0, 0]);
        // 4 of 8: half full, cut.
        assert_eq!(plan(&[2, 2, 1, 1], &names, 8).group_of, vec![0, 0, 1, 1]);
    }

    proptest::proptest! {
        /// A rule added to one stratum moves no group that begins after the next cut by name
        /// that follows it: those keep exactly their strata.
        #[test]
        fn an_added_rule_moves_groups_only_up_to_the_next_cut(
            rules in proptest::collection::vec(0usize..6, 1..80),
            at in 0usize..80,
            max in 4usize..20,
        ) {
            let names: Vec<String> = (0..rules.len()).map(|i| format!("r{i}")).collect();
            let at = at % rules.len();
            let mut more = rules.clone();
            more[at] += 1;
            let (a, b) = (plan(&rules, &names, max), plan(&more, &names, max));
            // The strata of each group, as sets of stratum indices.
            let groups = |p: &CratesPlan| -> Vec<Vec<usize>> {
                (0..p.groups).map(|g| (0..p.group_of.len()).filter(|&s| p.group_of[s] == g).collect()).collect()
            };
            let (ga, gb) = (groups(&a), groups(&b));
            // The groups both have that start after the changed stratum and after a cut by name
            // that both plans made there.
            let stable = |g: &Vec<usize>| g[0] > at + 1 && cut_after(&names[g[0] - 1])
                && a.group_of[g[0] - 1] != a.group_of[g[0]] && b.group_of[g[0] - 1] != b.group_of[g[0]];
            let after_a: Vec<&Vec<usize>> = ga.iter().filter(|g| stable(g)).collect();
            let after_b: Vec<&Vec<usize>> = gb.iter().filter(|g| stable(g)).collect();
            let common: Vec<&&Vec<usize>> = after_a.iter().filter(|g| after_b.contains(g)).collect();
            // Past the first common cut, every group is the same in both.
            if let Some(first) = common.first() {
                let from = first[0];
                let tail = |gs: &[Vec<usize>]| -> Vec<Vec<usize>> { gs.iter().filter(|g| g[0] >= from).cloned().collect() };
                proptest::prop_assert_eq!(tail(&ga), tail(&gb));
            }
        }
    }
}
