//! The plan of each rule's why-not walk: the asked literal binds the head's variables, then the
//! body is walked over the final relations of the case, in the package's order (so a reason
//! names the premise a reader meets first) except that a literal none of whose values is known
//! waits for the premises that bind them (`next_literal`). A literal whose arguments are all
//! bound is tested; one with unbound variables is enumerated by the longest bound prefix of its
//! columns.
//! Comparisons, negations and computed head arguments are tested as soon as their variables
//! are bound. Unlike the rule's evaluation plan, a failing test does not end the walk: every
//! failing item of a binding is a reason.

use super::Read;
use crate::ir::{CmpOp, Status};
use crate::resolve::{Program, RItem, RRule, RTerm};

/// How one argument of the asked literal meets the rule's head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadArg {
    /// The first occurrence of a variable: binds it.
    Bind(usize),
    /// A variable an earlier argument bound: the values must be equal.
    Equal(usize),
    /// A constant, Integer or String: the value must be it.
    Value(RTerm),
    /// Arithmetic: tested once its variables are bound ([`WhyStep::Head`]).
    Computed(RTerm),
}

/// One step of a why-not walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WhyStep {
    /// The rule's body holds `false`.
    False,
    /// A body literal whose arguments are all bound: one membership test.
    Test {
        /// Body item.
        item: usize,
        /// How it is read.
        read: Read,
    },
    /// A body literal with unbound variables: each tuple agreeing with what is bound, found by
    /// the first `prefix` columns (all bound).
    Each {
        /// Body item.
        item: usize,
        /// How it is read.
        read: Read,
        /// Leading columns bound before the step.
        prefix: usize,
        /// Columns bound before the step, in column order.
        bound: Vec<usize>,
    },
    /// A comparison that is false whatever the binding (between constants, or of a term with
    /// itself): reported as written, at the start of the walk.
    Decided {
        /// Body item.
        item: usize,
    },
    /// A comparison whose variables are bound.
    Compare {
        /// Body item.
        item: usize,
    },
    /// A negation as failure whose shared variables are bound; columns bound before the step.
    Negation {
        /// Body item.
        item: usize,
        /// Columns bound before the step, in column order.
        bound: Vec<usize>,
    },
    /// A computed head argument whose variables are bound: a binding where it differs from the
    /// asked value is not one for the asked literal.
    Head {
        /// Head argument.
        arg: usize,
    },
}

/// The why-not walk of one rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhyNotPlan {
    /// Index of the rule.
    pub rule: usize,
    /// Per head argument.
    pub head: Vec<HeadArg>,
    /// The steps, in order; each later step is inside the loops of the earlier `Each` steps.
    pub steps: Vec<WhyStep>,
}

fn term_bound(rule: &RRule, t: RTerm, bound: &[usize]) -> bool {
    let mut vars = Vec::new();
    rule.term_vars(t, &mut vars);
    vars.iter().all(|v| bound.contains(v))
}

/// Plans the why-not walk of rule `ri` of `p`.
pub fn plan_why_not(p: &Program, ri: usize) -> WhyNotPlan {
    let rule = &p.rules[ri];
    let mut bound: Vec<usize> = Vec::new();
    let mut head = Vec::new();
    for a in &rule.head.args {
        head.push(match *a {
            RTerm::Var(v) if bound.contains(&v) => HeadArg::Equal(v),
            RTerm::Var(v) => {
                bound.push(v);
                HeadArg::Bind(v)
            }
            RTerm::Arith(_) => HeadArg::Computed(*a),
            other => HeadArg::Value(other),
        });
    }
    let mut steps = Vec::new();
    if rule.never {
        steps.push(WhyStep::False);
    }
    // Filters waiting for their variables: body items, and head arguments (as `Head`).
    let mut pending: Vec<WhyStep> = Vec::new();
    for (arg, h) in head.iter().enumerate() {
        if matches!(h, HeadArg::Computed(_)) {
            pending.push(WhyStep::Head { arg });
        }
    }
    for (item, it) in rule.body.iter().enumerate() {
        match it {
            // Decided here, as the evaluation plan decides it: true ones test nothing.
            RItem::Comparison(op, a, b) if a == b => {
                if !CmpOp::holds(*op, 0, 0) {
                    steps.push(WhyStep::Decided { item });
                }
            }
            RItem::Comparison(op, RTerm::Int(a), RTerm::Int(b)) => {
                if !CmpOp::holds(*op, *a, *b) {
                    steps.push(WhyStep::Decided { item });
                }
            }
            RItem::Comparison(..) => pending.push(WhyStep::Compare { item }),
            RItem::Not(_) => pending.push(WhyStep::Negation { item, bound: Vec::new() }),
            RItem::Literal(..) => {}
        }
    }
    let ready = |step: &WhyStep, bound: &[usize]| match step {
        WhyStep::Head { arg } => term_bound(rule, rule.head.args[*arg], bound),
        WhyStep::Compare { item } | WhyStep::Negation { item, .. } => {
            rule.filter_vars(&rule.body[*item]).iter().all(|v| bound.contains(v))
        }
        _ => false,
    };
    let settle = |bound: &[usize], pending: &mut Vec<WhyStep>, steps: &mut Vec<WhyStep>| {
        let mut k = 0;
        while k < pending.len() {
            if !ready(&pending[k], bound) {
                k += 1;
                continue;
            }
            let mut step = pending.remove(k);
            if let WhyStep::Negation { item, bound: cols } = &mut step {
                let RItem::Not(l) = &rule.body[*item] else { unreachable!("a negation") };
                *cols = bound_columns(&l.args, bound);
            }
            steps.push(step);
        }
    };
    settle(&bound, &mut pending, &mut steps);
    let mut left: Vec<usize> = (0..rule.body.len()).filter(|&i| matches!(rule.body[i], RItem::Literal(..))).collect();
    while let Some(k) = next_literal(rule, &left, &bound) {
        let item = left.remove(k);
        let RItem::Literal(status, l) = &rule.body[item] else { continue };
        let read = match status {
            Status::Established => Read::Established,
            Status::Supported => Read::Supported,
        };
        let cols = bound_columns(&l.args, &bound);
        if cols.len() == l.args.len() {
            steps.push(WhyStep::Test { item, read });
        } else {
            let prefix = cols.iter().enumerate().take_while(|(i, &c)| *i == c).count();
            steps.push(WhyStep::Each { item, read, prefix, bound: cols });
            for v in l.vars() {
                if !bound.contains(&v) {
                    bound.push(v);
                }
            }
        }
        settle(&bound, &mut pending, &mut steps);
    }
    debug_assert!(pending.is_empty(), "safety binds every filter's variables");
    WhyNotPlan { rule: ri, head, steps }
}

/// Which of the body literals `left` (indices of `rule.body`, in the package's order) the walk
/// reads next, as a position in `left`: the first with a bound column (or none), else the
/// first. A literal none of whose values is known waits for the premises that bind them, so
/// that a reason about it names the values they bind (`king_cannot_be_checkmated(b)`, not
/// `king_cannot_be_checkmated(_)`; DECISIONS 50).
fn next_literal(rule: &RRule, left: &[usize], bound: &[usize]) -> Option<usize> {
    let known = |&i: &usize| match &rule.body[i] {
        RItem::Literal(_, l) => l.args.is_empty() || !bound_columns(&l.args, bound).is_empty(),
        _ => false,
    };
    left.iter().position(known).or(if left.is_empty() { None } else { Some(0) })
}

/// The columns of `args` whose value is known once `bound` is bound.
fn bound_columns(args: &[RTerm], bound: &[usize]) -> Vec<usize> {
    (0..args.len())
        .filter(|&j| match args[j] {
            RTerm::Var(v) => bound.contains(&v),
            _ => true,
        })
        .collect()
}
