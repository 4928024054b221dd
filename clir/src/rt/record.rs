//! [`Explain`]: what an evaluation records of its rules' bindings for explanations, as it goes;
//! [`Record`]: where one call of a rule's function records them.

use super::RuleTable;
use crate::instance::Instance;
use datafrog::Relation;

/// The explanation instances of one evaluation: off (nothing recorded, rules called without
/// bindings), or the package's rule table and the instances recorded so far. A stratum's call
/// of a rule over the final layers records through it while it evaluates, so that a rule is not
/// joined a second time to explain; the rest (recursive rules, closures) after the evaluation.
pub struct Explain {
    rules: Option<&'static RuleTable>,
    instances: Vec<Instance>,
    /// The rule table's index of each rule as the code calling now numbers it (a crate of a
    /// package split into several numbers its own rules from 0); `None`: the table's own.
    numbering: Option<&'static [usize]>,
}

impl std::fmt::Debug for Explain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Explain").field("on", &self.on()).field("instances", &self.instances.len()).finish()
    }
}

impl Explain {
    /// Records instances of the rules of `rules` when `on`, else nothing.
    pub fn new(rules: &'static RuleTable, on: bool) -> Self {
        Explain { rules: on.then_some(rules), instances: Vec::new(), numbering: None }
    }

    /// The rules the code called from now on records are numbered as `rules` says: its rule `k`
    /// is the table's `rules[k]`.
    pub fn numbering(&mut self, rules: &'static [usize]) {
        self.numbering = Some(rules);
    }

    /// Whether instances are recorded.
    pub fn on(&self) -> bool {
        self.rules.is_some()
    }

    /// Where a call of a rule's function records its bindings: as instances over applicable
    /// premises (`false`) or definite ones (`true`), once per entry of `definite`.
    pub fn to(&mut self, definite: &'static [bool]) -> Record<'_> {
        Record { to: if self.on() { Some((self, definite)) } else { None } }
    }

    /// Adds an instance made by other means (a closure's negative).
    pub fn push(&mut self, instance: Instance) {
        self.instances.push(instance);
    }

    /// Adds closure `closure`'s negatives of relation `rel` (its final tuples `negatives`), each
    /// over the concluded fact of relation `domain` with the same arguments.
    pub fn closure<T: crate::Fact>(&mut self, closure: usize, rel: usize, domain: usize, negatives: &Relation<T>) {
        let mut row = Vec::with_capacity(T::ARITY + 1);
        for t in negatives.iter() {
            row.clear();
            t.push_flat(&mut row);
            let case = crate::CaseId(row[0] as u32);
            self.instances.push(Instance::closure(closure, case, rel, row[1..].to_vec(), domain));
        }
    }

    /// The instances, in the order of the package's rules then closures
    /// ([`Instance::in_module_order`]), whatever order the strata recorded them in.
    pub fn finish(self) -> Vec<Instance> {
        let mut instances = self.instances;
        Instance::in_module_order(&mut instances);
        instances
    }
}

/// Where one call of a rule's function records its bindings: nowhere ([`Record::OFF`]), or an
/// evaluation's [`Explain`] under the modes of [`Explain::to`].
#[derive(Debug)]
pub struct Record<'a> {
    to: Option<(&'a mut Explain, &'static [bool])>,
}

impl Record<'_> {
    /// Records nothing.
    pub const OFF: Record<'static> = Record { to: None };

    /// Where the rule's function puts its bindings: a vector when recording.
    #[inline]
    pub fn found<B>(&self) -> Option<Vec<B>> {
        self.to.as_ref().map(|_| Vec::new())
    }

    /// Records `found`, the bindings of rule `rule` (its index in the rule table), as instances.
    pub fn record<B: super::Binding>(self, rule: usize, found: Option<Vec<B>>) {
        if let (Some((ex, definite)), Some(found)) = (self.to, found) {
            let rules = ex.rules.expect("a record is made only when recording");
            let rule = ex.numbering.map_or(rule, |numbering| numbering[rule]);
            rules.record(&mut ex.instances, rule, definite, found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CaseId, Sym};

    static TABLE: RuleTable = RuleTable::new(&[super::super::rules::tests::CASTLING]);

    type Binding = (CaseId, Sym, Sym, Sym, Sym);

    /// What a rule's function does with its record: one binding found.
    fn rule(record: Record<'_>) -> bool {
        let mut found: Option<Vec<Binding>> = record.found();
        let asked = found.is_some();
        super::super::bind(&mut found, (CaseId(0), Sym(1), Sym(2), Sym(3), Sym(4)));
        record.record(0, found);
        asked
    }

    #[test]
    fn off_asks_for_no_bindings_and_records_nothing() {
        let mut ex = Explain::new(&TABLE, false);
        assert!(!rule(ex.to(&[false])) && !rule(Record::OFF));
        assert!(!ex.on());
        assert!(ex.finish().is_empty());
    }

    #[test]
    fn a_numbering_maps_the_callers_rule_to_the_tables() {
        static TWO: RuleTable =
            RuleTable::new(&[super::super::rules::tests::CASTLING, super::super::rules::tests::CASTLING]);
        let mut ex = Explain::new(&TWO, true);
        ex.numbering(&[1]);
        assert!(rule(ex.to(&[false])));
        let rules: Vec<u32> = ex
            .finish()
            .iter()
            .map(|i| match i.source {
                crate::instance::Source::Rule { rule, .. } => rule,
                crate::instance::Source::Closure { .. } => unreachable!("no closure"),
            })
            .collect();
        assert_eq!(rules, [1]);
    }

    #[test]
    fn on_records_each_call_and_finishes_in_module_order() {
        let mut ex = Explain::new(&TABLE, true);
        // The definite call first, as a stratum makes it; the explanation lists it second.
        assert!(rule(ex.to(&[true])) && rule(ex.to(&[false])));
        assert!(!rule(Record::OFF));
        let definite: Vec<bool> = ex
            .finish()
            .iter()
            .map(|i| match i.source {
                crate::instance::Source::Rule { definite, .. } => definite,
                crate::instance::Source::Closure { .. } => unreachable!("no closure"),
            })
            .collect();
        assert_eq!(definite, [false, true]);
    }
}
