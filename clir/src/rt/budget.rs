//! [`Budget`] and [`Spend`]: a bound on the tuples one case's joins may derive in one evaluation.
//!
//! What datafrog lacks: a leapjoin gathers every tuple it derives before it returns, so a rule
//! whose head really multiplies its operands (`pair(x, y) :- a(x), b(y)`) holds the whole cross
//! product in memory, whatever the caller would do with it. [`Spend`] is a leaper that never
//! proposes and, as it intersects, counts the values each prefix keeps against its case's
//! allowance in a [`Budget`]; once a case has spent it, every further value of that case is
//! dropped, and the case is marked over budget. The caller answers such a case with an error line
//! and nothing else of the batch is lost: the budget is per case, and no other case's tuples are
//! dropped.

use crate::value::CaseId;
use datafrog::Leaper;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use super::Prefix;

/// Per case of a batch, the tuples its joins may still derive. One evaluation spends it, on
/// one thread; it is `Sync` (atomics, read and written apart) so that the layers it sits
/// beside can be shared once the evaluation is over.
#[derive(Debug)]
pub struct Budget {
    limit: u64,
    spent: Vec<AtomicU64>,
    over: AtomicBool,
}

/// What a case over budget has spent.
const OVER: u64 = u64::MAX;

impl Budget {
    /// No bound: every value is kept and nothing is counted.
    pub fn unlimited() -> Budget {
        Budget { limit: u64::MAX, spent: Vec::new(), over: AtomicBool::new(false) }
    }

    /// At most `limit` tuples derived for each of the cases `0..cases`.
    pub fn new(limit: u64, cases: u32) -> Budget {
        Budget { limit, spent: (0..cases).map(|_| AtomicU64::new(0)).collect(), over: AtomicBool::new(false) }
    }

    /// Whether case `case` may derive `n` more tuples; if not, it is over budget from now on.
    #[inline]
    pub fn spend(&self, case: CaseId, n: usize) -> bool {
        if self.limit == u64::MAX {
            return true;
        }
        let Some(s) = self.spent.get(case.0 as usize) else { return true };
        match s.load(Relaxed).checked_add(n as u64) {
            Some(total) if total <= self.limit => {
                s.store(total, Relaxed);
                true
            }
            _ => {
                s.store(OVER, Relaxed);
                self.over.store(true, Relaxed);
                false
            }
        }
    }

    /// A fresh allowance for every case (a second pass over the same layers, such as
    /// explanations), keeping those already over budget over it.
    pub fn restart(&self) {
        for s in self.spent.iter().filter(|s| s.load(Relaxed) != OVER) {
            s.store(0, Relaxed);
        }
    }

    /// The cases over budget, in order.
    pub fn over(&self) -> Vec<CaseId> {
        if !self.over.load(Relaxed) {
            return Vec::new();
        }
        (0..self.spent.len()).filter(|&c| self.spent[c].load(Relaxed) == OVER).map(|c| CaseId(c as u32)).collect()
    }

    /// The bound, `u64::MAX` when there is none.
    pub fn limit(&self) -> u64 {
        self.limit
    }
}

/// A leaper that never proposes and keeps a prefix's values only while its case's [`Budget`]
/// allows them: the last leaper of every leapjoin that extends its tuples.
#[derive(Clone, Copy, Debug)]
pub struct Spend<'b> {
    budget: &'b Budget,
}

impl<'b> Spend<'b> {
    /// Spends from `budget`.
    pub fn new(budget: &'b Budget) -> Self {
        Spend { budget }
    }
}

impl<'leap, P: Prefix<(CaseId,)>, V> Leaper<'leap, P, V> for Spend<'_> {
    /// Never the proposer: any other leaper counts fewer.
    #[inline]
    fn count(&mut self, _prefix: &P) -> usize {
        usize::MAX
    }

    /// Proposes nothing (never called: [`Self::count`] is never the least).
    #[inline]
    fn propose(&mut self, _prefix: &P, _values: &mut Vec<&'leap V>) {}

    #[inline]
    fn intersect(&mut self, prefix: &P, values: &mut Vec<&'leap V>) {
        if !values.is_empty() && !self.budget.spend(prefix.prefix().0, values.len()) {
            values.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rt::ExtendBy;
    use datafrog::Relation;
    use proptest::prelude::*;

    /// A cross product per case: each `a` of a case with each `b` of the same case.
    fn pairs(a: &Relation<(CaseId, u8)>, b: &Relation<(CaseId, u8)>, budget: &Budget) -> Relation<(CaseId, u8, u8)> {
        Relation::from_leapjoin(
            a,
            (ExtendBy::keyed(b, |&(case, _): &(CaseId, u8)| (case,)), Spend::new(budget)),
            |&(case, x), &(_, y)| (case, x, y),
        )
    }

    proptest! {
        /// Under its limit a case's tuples are those of the join without a budget; over it, the
        /// case is marked and keeps at most its limit, and every other case keeps all of its own.
        #[test]
        fn a_budget_drops_only_the_tuples_of_the_cases_over_it(
            a in proptest::collection::vec((0u32..4, 0u8..20), 0..60),
            b in proptest::collection::vec((0u32..4, 0u8..20), 0..60),
            limit in 0u64..80,
        ) {
            let rel = |v: &[(u32, u8)]| Relation::from_vec(v.iter().map(|&(c, x)| (CaseId(c), x)).collect());
            let (a, b) = (rel(&a), rel(&b));
            let all = pairs(&a, &b, &Budget::unlimited());
            let budget = Budget::new(limit, 4);
            let kept = pairs(&a, &b, &budget);
            let over = budget.over();
            for c in (0..4).map(CaseId) {
                let want: Vec<_> = all.iter().filter(|t| t.0 == c).collect();
                let got: Vec<_> = kept.iter().filter(|t| t.0 == c).collect();
                if over.contains(&c) {
                    prop_assert!(want.len() as u64 > limit && got.len() as u64 <= limit);
                    prop_assert!(got.iter().all(|t| want.contains(t)));
                } else {
                    prop_assert!(want.len() as u64 <= limit);
                    prop_assert_eq!(got, want);
                }
            }
        }
    }

    #[test]
    fn a_restart_keeps_the_cases_over_budget_over_it() {
        let budget = Budget::new(10, 3);
        assert!(budget.spend(CaseId(0), 10) && !budget.spend(CaseId(1), 11) && budget.spend(CaseId(2), 4));
        budget.restart();
        assert!(budget.spend(CaseId(0), 10), "a fresh allowance");
        assert!(!budget.spend(CaseId(1), 1), "still over");
        assert_eq!(budget.over(), [CaseId(1)]);
        assert!(Budget::unlimited().spend(CaseId(7), usize::MAX) && Budget::unlimited().over().is_empty());
    }
}
