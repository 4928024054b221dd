//! Join planning: per rule, the order its body literals are joined in, the key of every join,
//! the variables carried between joins, and where each comparison filters.
//!
//! The order is chosen from the rule's shape, never from the package's body order: start with
//! the literal with the most constant arguments (then the most variables), then repeatedly take
//! the literal sharing the most variables with what is bound, preferring fewer new variables.
//! Every join is also keyed on the case, so no plan is a cross product across a batch.

use crate::ir::{CmpOp, Status};
use crate::resolve::{Program, RItem, RLiteral, RRule, RTerm};

/// One body literal in join order.
#[derive(Debug, Clone)]
pub struct Step {
    /// Index of the literal in the rule body.
    pub item: usize,
    /// The literal.
    pub literal: RLiteral,
    /// Status it is asked with.
    pub status: Status,
    /// Join key with what is bound before this step (besides the case).
    pub key: Vec<usize>,
    /// Variables this literal contributes that are needed later.
    pub new: Vec<usize>,
    /// Comparisons and negations (body indices) over this literal's own variables, filtered in
    /// its view.
    pub local: Vec<usize>,
    /// Comparisons (body indices) that become decidable only after this step's join.
    pub after: Vec<usize>,
    /// Variables carried after this step (the accumulated tuple), in order.
    pub carry: Vec<usize>,
}

/// The join plan of one rule.
#[derive(Debug, Clone)]
pub struct RulePlan {
    /// Literals in join order (empty for a rule without body literals).
    pub steps: Vec<Step>,
    /// A comparison between constants is false, or the body holds `false`: the rule never applies.
    pub never: bool,
}

fn const_count(l: &RLiteral) -> usize {
    l.args.iter().filter(|a| !matches!(a, RTerm::Var(_))).count()
}

/// Plans the joins of `rule`, producing its head.
pub fn plan_rule(p: &Program, rule: &RRule) -> RulePlan {
    plan_rule_keeping(p, rule, &rule.head.vars())
}

/// Plans the joins of `rule`, carrying `keep` (for example every variable, for explanations)
/// to the end.
pub fn plan_rule_keeping(_p: &Program, rule: &RRule, keep: &[usize]) -> RulePlan {
    let mut never = rule.never;
    let lits: Vec<(usize, Status, &RLiteral)> = rule
        .body
        .iter()
        .enumerate()
        .filter_map(|(i, it)| match it {
            RItem::Literal(s, l) => Some((i, *s, l)),
            _ => None,
        })
        .collect();
    let cmps: Vec<usize> = rule
        .body
        .iter()
        .enumerate()
        .filter(|(_, it)| matches!(it, RItem::Comparison(..) | RItem::Not(..)))
        .map(|(i, _)| i)
        .collect();
    for &c in &cmps {
        if let RItem::Comparison(op, RTerm::Int(a), RTerm::Int(b)) = &rule.body[c] {
            if !CmpOp::holds(*op, *a, *b) {
                never = true;
            }
        }
    }
    // Greedy order.
    let mut order: Vec<usize> = Vec::new();
    let mut bound: Vec<usize> = Vec::new();
    let mut left: Vec<usize> = (0..lits.len()).collect();
    while !left.is_empty() {
        let best = *left
            .iter()
            .max_by_key(|&&li| {
                let vars = lits[li].2.vars();
                let shared = vars.iter().filter(|v| bound.contains(v)).count();
                let new = vars.len() - shared;
                if order.is_empty() {
                    (const_count(lits[li].2) as i64, vars.len() as i64, -(li as i64))
                } else {
                    (shared as i64, -(new as i64), -(li as i64))
                }
            })
            .expect("non-empty");
        left.retain(|&x| x != best);
        for v in lits[best].2.vars() {
            if !bound.contains(&v) {
                bound.push(v);
            }
        }
        order.push(best);
    }
    // Steps: keys, carried variables, comparison placement.
    let head_vars = keep.to_vec();
    let mut steps: Vec<Step> = Vec::new();
    let mut bound: Vec<usize> = Vec::new();
    let mut placed: Vec<usize> = cmps
        .iter()
        .copied()
        .filter(|&c| matches!(rule.body[c], RItem::Comparison(_, RTerm::Int(_), RTerm::Int(_))))
        .collect();
    for (pos, &li) in order.iter().enumerate() {
        let (item, status, lit) = lits[li];
        let vars = lit.vars();
        let key: Vec<usize> = vars.iter().copied().filter(|v| bound.contains(v)).collect();
        let mut local = Vec::new();
        for &c in &cmps {
            if !placed.contains(&c) && rule.filter_vars(&rule.body[c]).iter().all(|v| vars.contains(v)) {
                local.push(c);
                placed.push(c);
            }
        }
        for v in &vars {
            if !bound.contains(v) {
                bound.push(*v);
            }
        }
        let mut after = Vec::new();
        for &c in &cmps {
            if !placed.contains(&c) && rule.filter_vars(&rule.body[c]).iter().all(|v| bound.contains(v)) {
                after.push(c);
                placed.push(c);
            }
        }
        // Needed after this step: head, later literals, later comparisons.
        let mut needed: Vec<usize> = head_vars.clone();
        for &lj in &order[pos + 1..] {
            needed.extend(lits[lj].2.vars());
        }
        for &c in &cmps {
            if !placed.contains(&c) {
                needed.extend(rule.filter_vars(&rule.body[c]));
            }
        }
        let carry: Vec<usize> = {
            let mut c: Vec<usize> = bound.iter().copied().filter(|v| needed.contains(v)).collect();
            c.sort();
            c
        };
        let after_needed: Vec<usize> = after.iter().flat_map(|&c| rule.filter_vars(&rule.body[c])).collect();
        let new: Vec<usize> = vars
            .iter()
            .copied()
            .filter(|v| !key.contains(v) && (needed.contains(v) || after_needed.contains(v)))
            .collect();
        steps.push(Step { item, literal: lit.clone(), status, key, new, local, after, carry });
    }
    RulePlan { steps, never }
}
