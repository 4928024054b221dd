//! Exact proofs that a rule is never applicable, whatever the case says.

use super::solve::{self, Solved};
use super::term::Subst;
use crate::ir::{RelationKind, Strength};
use crate::resolve::{Program, RItem};

/// Why a rule is never applicable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeadProof {
    /// Its body holds a `false` item.
    False,
    /// Its comparisons exclude each other.
    Comparisons,
    /// The premise at this body index is of an institutional relation (sign) that no live rule
    /// or closure derives, so no case can make it hold.
    Underivable(usize),
    /// Unfolded without reaching any bound, every way to derive its premises fails on
    /// comparisons that exclude each other.
    EveryUnfoldingFails,
}

/// The rules dead by a `false` item, by their own comparisons, or by a premise that nothing
/// derives (to a fixpoint: a rule dead makes its head underivable when it was the only way).
pub(crate) fn proofs(p: &Program) -> Vec<(usize, DeadProof)> {
    let mut dead: Vec<Option<DeadProof>> = vec![None; p.rules.len()];
    for (r, rule) in p.rules.iter().enumerate() {
        if rule.never {
            dead[r] = Some(DeadProof::False);
            continue;
        }
        let mut s = Subst::default();
        let base = s.rename(rule);
        for item in &rule.body {
            if let RItem::Comparison(op, a, b) = item {
                s.cmps.push((*op, Subst::term(rule, base, *a), Subst::term(rule, base, *b)));
            }
        }
        if !s.cmps.is_empty() && solve::solve(&solve::constraints(&s), &[], 0, 0) == Solved::Unsat {
            dead[r] = Some(DeadProof::Comparisons);
        }
    }
    // Derivable (relation, negative): input relations either sign; others by a live concluding
    // rule whose literal premises are derivable, or (negatives) by a closure whose domain is.
    let n = p.relations.len();
    let mut derivable = vec![[false; 2]; n];
    for (i, rel) in p.relations.iter().enumerate() {
        if rel.kind != RelationKind::Institutional {
            derivable[i] = [true, true];
        }
    }
    let premises_ok = |rule: &crate::resolve::RRule, d: &[[bool; 2]]| {
        rule.body.iter().all(|item| match item {
            RItem::Literal(_, l) => d.get(l.rel).is_some_and(|x| x[usize::from(l.negative)]),
            _ => true,
        })
    };
    loop {
        let mut changed = false;
        for (r, rule) in p.rules.iter().enumerate() {
            let h = (rule.head.rel, usize::from(rule.head.negative));
            if dead[r].is_some() || rule.strength == Strength::Defeater || derivable[h.0][h.1] {
                continue;
            }
            if premises_ok(rule, &derivable) {
                derivable[h.0][h.1] = true;
                changed = true;
            }
        }
        for c in &p.closures {
            if !derivable[c.rel][1] && derivable.get(c.domain).is_some_and(|x| x[0]) {
                derivable[c.rel][1] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (r, rule) in p.rules.iter().enumerate() {
        if dead[r].is_some() {
            continue;
        }
        let first = rule.body.iter().position(|item| match item {
            RItem::Literal(_, l) => !derivable.get(l.rel).is_some_and(|x| x[usize::from(l.negative)]),
            _ => false,
        });
        if let Some(i) = first {
            dead[r] = Some(DeadProof::Underivable(i));
        }
    }
    dead.into_iter().enumerate().filter_map(|(r, d)| d.map(|d| (r, d))).collect()
}
