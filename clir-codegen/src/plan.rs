//! The plan of a program (the compiler's MIR): per rule, its operands, the order its body is
//! joined in, how each operand is read (a scan, a membership test, or a range of a sorted view),
//! where each comparison and negation filters, and the chain of datafrog leapjoins that does it;
//! per stratum, its shape, which of its rules compute which layer, and whether a layer is a
//! datafrog `Iteration`. `emit` prints a [`Plan`] and decides nothing itself; [`crate::show`]
//! writes it for people.
//!
//! A rule is one chain of leapjoins over its operands: the first literal is the source, and every
//! later literal that binds variables is one `from_leapjoin` extending the tuples bound so far
//! (an `ExtendBy` over the operand, or over a view of it sorted by the key where the key is not a
//! prefix of its columns), with the membership tests, negations and comparisons decidable by then
//! as filters of that leapjoin. A rule of tests alone is one leapjoin proposing `()` (`Once`).
//! The chain's last leapjoin hands every binding of the rule's variables to its caller, so the
//! same function serves each layer of evaluation, each round of a recursive stratum (with the
//! variable's recent tuples as the operand it changed) and explanations.
//!
//! The order is chosen from the rule's shape, never from the package's body order: in a recursive
//! stratum start with a literal of the stratum itself (its recent tuples are the round's source),
//! otherwise with the literal with the most constant arguments (then the most variables); then
//! repeatedly take the literal sharing the most variables with what is bound, preferring fewer
//! new variables. Every lookup is also keyed on the case, so no plan is a cross product across a
//! batch.

use crate::ir::{CmpOp, Status, Strength};
use crate::resolve::{Program, RItem, RLiteral, RRule, RTerm};
use crate::strata::Strata;

pub mod calls;
pub mod crates;
pub mod layers;
pub mod lines;
pub mod why_not;

/// How a rule reads one of its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    /// A body literal asked as concluded (`+d`; `+D` over definite premises).
    Established,
    /// A body literal asked as supported (`+S`; `+D` over definite premises).
    Supported,
    /// A negation as failure: the literal is not concluded (always the final `+d`).
    Negated,
}

/// One operand of a rule: a body literal or negation, and the relation it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operand {
    /// Index of the item in the rule body.
    pub item: usize,
    /// The literal.
    pub literal: RLiteral,
    /// How it is read.
    pub read: Read,
}

/// How a step reaches its operand's tuples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// Every tuple (the first literal).
    Scan,
    /// Every argument is bound: one membership test (a binary search).
    Contains,
    /// The tuples whose key columns equal the bound values: a range of `view` (or of the operand
    /// itself when `view` is `None`, the key columns being a prefix of its columns).
    Seek {
        /// Columns of the operand that are bound before the step, in column order.
        key: Vec<usize>,
        /// Index into [`RulePlan::views`].
        view: Option<usize>,
    },
}

/// A copy of an operand with its columns reordered (key columns first) and sorted by them. The
/// rule's function takes the view in place of the operand; its callers build it, once for every
/// call of a layer set (or of `explain`) that passes the same layer.
///
/// An operand with lone columns (variables that occur nowhere else in the rule, [`lone_columns`])
/// is always read through a view that puts them last and keeps, of the tuples that agree on the
/// other columns, only the least (`least_by`): the literal is an existence test on its other
/// columns with one witness, so a rule never enumerates combinations of values no head or other
/// item needs (a case's cost stays linear in its size, docs/SECURITY.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// Index into [`RulePlan::operands`].
    pub operand: usize,
    /// The operand's columns in the view's order: `key`, then the others in column order (the
    /// lone ones last).
    pub order: Vec<usize>,
    /// The key columns, in column order.
    pub key: Vec<usize>,
    /// `Some(n)`: of the tuples that agree on the case and the first `n` columns of `order`, the
    /// view keeps only the least (the columns after them are the operand's lone columns).
    pub least_by: Option<usize>,
}

impl View {
    /// The columns the view is named by: its key, or for a least view every column before the
    /// lone ones (it holds one tuple for each of their values).
    pub fn by(&self) -> &[usize] {
        match self.least_by {
            Some(n) => &self.order[..n],
            None => &self.key,
        }
    }
}

/// One step of a rule's nested loops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Index into [`RulePlan::operands`].
    pub operand: usize,
    /// How its tuples are reached.
    pub access: Access,
    /// Whether the step requires absence (a negation) rather than presence.
    pub negated: bool,
    /// Variables first bound by this step, in column order.
    pub binds: Vec<usize>,
    /// Comparisons (body indices) decidable once this step has bound its variables.
    pub checks: Vec<usize>,
}

/// A test a leapjoin makes in one of its predicate filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    /// A step that only tests (a membership, or a negation), by index into [`RulePlan::steps`].
    Step(usize),
    /// A comparison, by index into the rule's body.
    Comparison(usize),
}

/// One `from_leapjoin` of a rule's chain, over the tuples bound so far (the rule's source
/// literal, or the previous leapjoin's output).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Leapjoin {
    /// The step whose operand proposes the values extending each tuple (`ExtendBy`); `None`: the
    /// leapjoin only tests, its `Holds` proposing `()` (or `Once`, when it tests nothing).
    pub extend: Option<usize>,
    /// Tests of the tuples bound so far, in the order they are tried (comparisons first, then
    /// memberships and negations), in one predicate that stops at the first that fails
    /// (`Holds`), before the proposer is asked (`Holds::before`).
    pub prefix: Vec<Test>,
    /// Tests once `extend` has bound its variables, in one predicate (`ValueFilter`).
    pub value: Vec<Test>,
    /// The variables of the tuples it yields, after the case, in index order (the next
    /// leapjoin's source), those no later step nor the head needs last; the last leapjoin
    /// yields [`RulePlan::binding`].
    pub yields: Vec<usize>,
    /// `Some(n)`: of the tuples it yields that agree on the case and the first `n` of `yields`,
    /// only the least is kept. The variables after them were bound and tested by the steps so
    /// far and no later step nor the head reads them: one witness is enough, and the next
    /// leapjoin is not multiplied by their values.
    pub least_by: Option<usize>,
}

/// The plan of one rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulePlan {
    /// Index of the rule in the program.
    pub rule: usize,
    /// A comparison between constants is false, or the body holds `false`: the rule never applies.
    pub never: bool,
    /// The rule has no positive body literal: it is tried once per case.
    pub per_case: bool,
    /// Every operand, in body order: the function's parameters.
    pub operands: Vec<Operand>,
    /// The operands read through a view: at most one an operand, passed to the function instead
    /// of it.
    pub views: Vec<View>,
    /// The loops, outermost first.
    pub steps: Vec<Step>,
    /// Comparisons decided before any step (rules without body literals).
    pub checks: Vec<usize>,
    /// The variables of a binding, in index order: every variable a positive literal binds.
    pub binding: Vec<usize>,
    /// The chain of leapjoins doing `steps`, from the source (the first step's operand, or the
    /// batch's cases when `per_case`).
    pub joins: Vec<Leapjoin>,
}

impl RulePlan {
    /// Whether a leapjoin of the rule extends its tuples by an operand's values: only such a
    /// join can derive more tuples than its source has, and spends the case's budget
    /// (`clir::rt::Spend`).
    pub fn extends(&self) -> bool {
        self.joins.iter().any(|j| j.extend.is_some())
    }
}

/// How a stratum computes its relations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Input facts only.
    Inputs,
    /// `+D`, `+S` and `+d` coincide: one relation per sign.
    Collapsed,
    /// `+D`, then the joint `+S`/`+d` of every rule.
    Uncontested,
    /// One contested relation: `+D`, each rule's applicability, then team defeat.
    Contested,
}

/// The plan of one stratum.
#[derive(Debug, Clone)]
pub struct StratumPlan {
    /// Relations of the stratum.
    pub rels: Vec<usize>,
    /// Its shape.
    pub shape: Shape,
    /// The strict rules, computing `+D` (over definite premises).
    pub definite: Vec<usize>,
    /// Every rule, computing `+S`/`+d` (over applicable premises); empty when collapsed.
    pub applicable: Vec<usize>,
    /// Whether `+D` is a datafrog `Iteration` (a strict rule reads a relation of the stratum).
    pub definite_recursive: bool,
    /// Whether `+S`/`+d` is a datafrog `Iteration`.
    pub applicable_recursive: bool,
    /// Closure policies applied after the rules.
    pub closures: Vec<usize>,
    /// How `+D` is computed.
    pub definite_set: layers::LayerSet,
    /// How `+S`/`+d` are computed, when they are a layer set of their own (not collapsed, not
    /// contested).
    pub applicable_set: Option<layers::LayerSet>,
    /// Team defeat per sign, in a contested stratum.
    pub contests: Vec<layers::Contest>,
    /// In a contested stratum, each rule's applicability, in the order of `applicable`.
    pub applies: Vec<calls::Applies>,
    /// Some call of the stratum records explanation instances.
    pub records: bool,
    /// The stratum computes something: a rule that can apply, a layer set from a relation, a
    /// contest or a closure (else its function is left out; input facts only are read into the
    /// store).
    pub evaluates: bool,
    /// Its evaluation is one call of a rule over final layers, whose heads are the one layer it
    /// computes: its caller makes the call, and it has no function of its own.
    pub direct: bool,
    /// What its function takes and returns.
    pub frame: calls::Frame,
}

/// The plan of a program: what `emit` prints.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Per rule of the program.
    pub rules: Vec<RulePlan>,
    /// Per rule, the operands it reads from its own stratum (positive literals): in an
    /// `Iteration`, the ones read from its variables.
    pub own: Vec<Vec<usize>>,
    /// Per stratum, in evaluation order.
    pub strata: Vec<StratumPlan>,
    /// Per rule of the program: its why-not walk.
    pub why_not: Vec<why_not::WhyNotPlan>,
    /// Per rule of the program: the explaining calls no stratum made, left to `explain`.
    pub explain: Vec<Vec<calls::Call>>,
}

fn const_count(l: &RLiteral) -> usize {
    l.args.iter().filter(|a| !matches!(a, RTerm::Var(_))).count()
}

/// The columns of body item `item` of `rule` (a positive literal) that hold a variable occurring
/// nowhere else in the rule: not in the head, in no other item (comparison, negation or
/// literal), once in the literal. Such a variable only asks that some value exists.
pub fn lone_columns(rule: &RRule, item: usize) -> Vec<usize> {
    let RItem::Literal(_, l) = &rule.body[item] else { return Vec::new() };
    // Occurrences of each variable; one inside arithmetic or in the head counts twice, so that
    // it is never lone.
    let mut count = vec![0usize; rule.vars.len()];
    let mut add = |t: RTerm, weight: usize| match t {
        RTerm::Var(v) => count[v] += weight,
        RTerm::Arith(_) => {
            let mut vs = Vec::new();
            rule.term_vars(t, &mut vs);
            vs.into_iter().for_each(|v| count[v] += 2);
        }
        _ => {}
    };
    rule.head.args.iter().for_each(|&t| add(t, 2));
    for it in &rule.body {
        match it {
            RItem::Literal(_, l) | RItem::Not(l) => l.args.iter().for_each(|&t| add(t, 1)),
            RItem::Comparison(_, a, b) => {
                add(*a, 1);
                add(*b, 1);
            }
        }
    }
    (0..l.args.len()).filter(|&j| matches!(l.args[j], RTerm::Var(v) if count[v] == 1)).collect()
}

/// The greedy join order of a rule's positive literals (body indices), starting from body item
/// `first` when given.
fn join_order(rule: &RRule, first: Option<usize>) -> Vec<usize> {
    let lits: Vec<(usize, &RLiteral)> = rule
        .body
        .iter()
        .enumerate()
        .filter_map(|(i, it)| match it {
            RItem::Literal(_, l) => Some((i, l)),
            _ => None,
        })
        .collect();
    let mut order: Vec<usize> = Vec::new();
    let mut bound: Vec<usize> = Vec::new();
    let mut left: Vec<usize> = (0..lits.len()).collect();
    while !left.is_empty() {
        let best = *left
            .iter()
            .max_by_key(|&&li| {
                let vars = lits[li].1.vars();
                let shared = vars.iter().filter(|v| bound.contains(v)).count();
                let new = vars.len() - shared;
                if order.is_empty() && first.is_some() {
                    (i64::from(first == Some(lits[li].0)), 0, 0)
                } else if order.is_empty() {
                    (const_count(lits[li].1) as i64, vars.len() as i64, -(li as i64))
                } else {
                    (shared as i64, -(new as i64), -(li as i64))
                }
            })
            .expect("non-empty");
        left.retain(|&x| x != best);
        for v in lits[best].1.vars() {
            if !bound.contains(&v) {
                bound.push(v);
            }
        }
        order.push(lits[best].0);
    }
    order
}

/// Plans rule `ri` of `p`.
pub fn plan_rule(p: &Program, ri: usize) -> RulePlan {
    plan_rule_from(p, ri, None)
}

/// Plans rule `ri` of `p`, its loops starting from body item `first` when given (a semi-naive
/// round's call, from the operand the last round changed).
pub fn plan_rule_from(p: &Program, ri: usize, first: Option<usize>) -> RulePlan {
    let rule = &p.rules[ri];
    let mut never = rule.never;
    let mut operands: Vec<Operand> = Vec::new();
    for (item, it) in rule.body.iter().enumerate() {
        let (literal, read) = match it {
            RItem::Literal(Status::Established, l) => (l, Read::Established),
            RItem::Literal(Status::Supported, l) => (l, Read::Supported),
            RItem::Not(l) => (l, Read::Negated),
            RItem::Comparison(..) => continue,
        };
        operands.push(Operand { item, literal: literal.clone(), read });
    }
    let operand_of = |item: usize| operands.iter().position(|o| o.item == item).expect("an operand per literal");
    let mut pending: Vec<usize> = Vec::new();
    let mut checks = Vec::new();
    for (i, it) in rule.body.iter().enumerate() {
        match it {
            RItem::Comparison(op, RTerm::Int(a), RTerm::Int(b)) => never |= !CmpOp::holds(*op, *a, *b),
            // A term compared with itself: decided here, as a constant comparison is.
            RItem::Comparison(op, a, b) if a == b => never |= !CmpOp::holds(*op, 0, 0),
            RItem::Comparison(..) if rule.filter_vars(it).is_empty() => checks.push(i),
            RItem::Comparison(..) | RItem::Not(_) => pending.push(i),
            RItem::Literal(..) => {}
        }
    }
    let mut views: Vec<View> = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let mut bound: Vec<usize> = Vec::new();
    // Negations and comparisons whose variables are bound, as steps and checks of the last step.
    // A negation needs the case bound: by the first literal, or by the loop over cases.
    let per_case = !rule.body.iter().any(|it| matches!(it, RItem::Literal(..)));
    let mut settle = |bound: &[usize], pending: &mut Vec<usize>, steps: &mut Vec<Step>, views: &mut Vec<View>| {
        let mut k = 0;
        while k < pending.len() {
            let item = pending[k];
            let has_case = per_case || !steps.is_empty();
            let negation = matches!(rule.body[item], RItem::Not(_));
            if (negation && !has_case) || !rule.filter_vars(&rule.body[item]).iter().all(|v| bound.contains(v)) {
                k += 1;
                continue;
            }
            pending.remove(k);
            match &rule.body[item] {
                RItem::Not(l) => {
                    let operand = operand_of(item);
                    let access = access(l, bound, operand, views);
                    steps.push(Step { operand, access, negated: true, binds: Vec::new(), checks: Vec::new() });
                }
                _ => match steps.last_mut() {
                    Some(s) => s.checks.push(item),
                    None => checks.push(item),
                },
            }
        }
    };
    settle(&bound, &mut pending, &mut steps, &mut views);
    // The lone variables: each read through a least view, one witness per value of the rest.
    let mut witnessed: Vec<usize> = Vec::new();
    for item in join_order(rule, first) {
        let RItem::Literal(_, l) = &rule.body[item] else { unreachable!("join order holds literals") };
        let operand = operand_of(item);
        let lone = lone_columns(rule, item);
        witnessed.extend(lone.iter().filter_map(|&j| match l.args[j] {
            RTerm::Var(v) => Some(v),
            _ => None,
        }));
        let access = match (steps.is_empty(), lone.is_empty()) {
            (true, true) => Access::Scan,
            (true, false) => {
                witness_view(l, &[], &lone, operand, &mut views);
                Access::Scan
            }
            (false, true) => access(l, &bound, operand, &mut views),
            (false, false) => witness_view(l, &bound, &lone, operand, &mut views),
        };
        let binds: Vec<usize> = l.vars().into_iter().filter(|v| !bound.contains(v)).collect();
        bound.extend(binds.iter().copied());
        steps.push(Step { operand, access, negated: false, binds, checks: Vec::new() });
        settle(&bound, &mut pending, &mut steps, &mut views);
    }
    let mut binding = rule.bound_vars();
    binding.sort_unstable();
    // Per step, the variables it or a later step reads, and the head's.
    let mut needed: Vec<Vec<usize>> = vec![Vec::new(); steps.len() + 1];
    rule.head.args.iter().for_each(|&t| rule.term_vars(t, &mut needed[steps.len()]));
    for (k, s) in steps.iter().enumerate().rev() {
        let mut vars = needed[k + 1].clone();
        let literal = &operands[s.operand].literal;
        literal.args.iter().for_each(|&t| rule.term_vars(t, &mut vars));
        for &c in &s.checks {
            vars.extend(rule.filter_vars(&rule.body[c]));
        }
        needed[k] = vars;
    }
    let joins = chain(&steps, &binding, &needed, &witnessed);
    RulePlan { rule: ri, never, per_case, operands, views, steps, checks, binding, joins }
}

/// The leapjoins doing `steps`: one per step after the first that binds variables, each
/// with the tests decidable once it has; a leading one of tests alone when the source is
/// followed by tests (or by nothing, or when the source is the batch's cases). Before a step
/// that extends the tuples, the variables bound so far that no step from there on nor the head
/// reads (`needed[k]`, per step `k`) are cut to their least witness: the leapjoin before it
/// yields them last and keeps the least tuple of the others' values. Lone variables
/// (`witnessed`, one value already per value of their literal's other columns) cut nothing by
/// themselves.
fn chain(steps: &[Step], binding: &[usize], needed: &[Vec<usize>], witnessed: &[usize]) -> Vec<Leapjoin> {
    let mut joins = vec![Leapjoin::default()];
    let mut bound: Vec<usize> = Vec::new();
    let scan = steps.first().filter(|s| matches!(s.access, Access::Scan));
    if let Some(s) = scan {
        bound.extend(s.binds.iter().copied());
        joins[0].prefix.extend(s.checks.iter().map(|&c| Test::Comparison(c)));
    }
    for (k, s) in steps.iter().enumerate().skip(usize::from(scan.is_some())) {
        let extends = !s.negated && matches!(s.access, Access::Seek { .. });
        let j = joins.last_mut().expect("one leapjoin at least");
        if extends {
            let (live, dead): (Vec<usize>, Vec<usize>) =
                sorted(&bound).into_iter().partition(|v| needed[k].contains(v));
            let cut = dead.iter().any(|v| !witnessed.contains(v));
            if j.extend.is_some() || cut {
                j.least_by = cut.then_some(live.len());
                j.yields = live.into_iter().chain(dead).collect();
                joins.push(Leapjoin { extend: Some(k), ..Leapjoin::default() });
            } else {
                j.extend = Some(k);
            }
            bound.extend(s.binds.iter().copied());
            let j = joins.last_mut().expect("just pushed");
            j.value.extend(s.checks.iter().map(|&c| Test::Comparison(c)));
            continue;
        }
        let tests: Vec<Test> =
            std::iter::once(Test::Step(k)).chain(s.checks.iter().map(|&c| Test::Comparison(c))).collect();
        if j.extend.is_some() {
            j.value.extend(tests);
        } else {
            j.prefix.extend(tests);
        }
    }
    joins.last_mut().expect("one leapjoin at least").yields = binding.to_vec();
    // Comparisons cost less than lookups: tried first.
    for j in &mut joins {
        j.prefix.sort_by_key(|t| matches!(t, Test::Step(_)));
    }
    joins
}

fn sorted(vars: &[usize]) -> Vec<usize> {
    let mut v = vars.to_vec();
    v.sort_unstable();
    v
}

/// How literal `l` is reached once `bound` is bound: a membership test, or a range of the
/// operand or of a view of it (added to `views` unless an equal one is there).
fn access(l: &RLiteral, bound: &[usize], operand: usize, views: &mut Vec<View>) -> Access {
    let known = |a: &RTerm| match a {
        RTerm::Var(v) => bound.contains(v),
        _ => true,
    };
    if l.args.iter().all(known) {
        return Access::Contains;
    }
    let key: Vec<usize> = (0..l.args.len()).filter(|&j| known(&l.args[j])).collect();
    if key.iter().enumerate().all(|(i, &j)| i == j) {
        return Access::Seek { key, view: None };
    }
    let mut order = key.clone();
    order.extend((0..l.args.len()).filter(|j| !key.contains(j)));
    let view = View { operand, order, key: key.clone(), least_by: None };
    Access::Seek { key, view: Some(add_view(views, view)) }
}

/// `view`'s index in `views`, added unless an equal one is there.
fn add_view(views: &mut Vec<View>, view: View) -> usize {
    views.iter().position(|v| *v == view).unwrap_or_else(|| {
        views.push(view);
        views.len() - 1
    })
}

/// How literal `l`, whose columns `lone` hold lone variables, is reached once `bound` is bound:
/// through its witness view (the bound columns, the other columns, then the lone ones; the least
/// tuple of each value of the columns before the lone ones), a range of it by the bound columns
/// (or every tuple of it, as a rule's first step, when nothing is bound).
fn witness_view(l: &RLiteral, bound: &[usize], lone: &[usize], operand: usize, views: &mut Vec<View>) -> Access {
    let known = |j: usize| match l.args[j] {
        RTerm::Var(v) => bound.contains(&v),
        _ => true,
    };
    let cols = 0..l.args.len();
    let key: Vec<usize> = cols.clone().filter(|&j| !lone.contains(&j) && known(j)).collect();
    let mut order = key.clone();
    order.extend(cols.clone().filter(|&j| !lone.contains(&j) && !known(j)));
    let least_by = order.len();
    order.extend(lone.iter().copied());
    let view = View { operand, order, key: key.clone(), least_by: Some(least_by) };
    Access::Seek { key, view: Some(add_view(views, view)) }
}

/// Plans every rule and stratum of `p`.
pub fn plan_program(p: &Program, s: &Strata) -> Plan {
    let mut rules: Vec<RulePlan> = (0..p.rules.len()).map(|ri| plan_rule(p, ri)).collect();
    let mut strata: Vec<StratumPlan> = s
        .strata
        .iter()
        .enumerate()
        .map(|(si, st)| {
            let shape = if st.rules.is_empty() && st.closures.is_empty() {
                Shape::Inputs
            } else if st.collapsed {
                Shape::Collapsed
            } else if st.contested {
                Shape::Contested
            } else {
                Shape::Uncontested
            };
            let definite: Vec<usize> =
                st.rules.iter().copied().filter(|&r| p.rules[r].strength == Strength::Strict).collect();
            let applicable = if shape == Shape::Collapsed { Vec::new() } else { st.rules.clone() };
            let reads_own = |rs: &[usize], applicable: bool| {
                rs.iter().any(|&r| {
                    rules[r].operands.iter().any(|o| {
                        let info = &s.rels[o.literal.rel];
                        o.read != Read::Negated && info.stratum == si && !(applicable && info.collapsed)
                    })
                })
            };
            StratumPlan {
                rels: st.rels.clone(),
                shape,
                definite_recursive: reads_own(&definite, false),
                applicable_recursive: reads_own(&applicable, true),
                definite,
                applicable,
                closures: st.closures.clone(),
                definite_set: layers::LayerSet::default(),
                applicable_set: None,
                contests: Vec::new(),
                applies: Vec::new(),
                records: false,
                evaluates: false,
                direct: false,
                frame: calls::Frame::default(),
            }
        })
        .collect();
    let mut own: Vec<Vec<usize>> = vec![Vec::new(); p.rules.len()];
    for (si, st) in strata.iter().enumerate() {
        let definite = st.definite.iter().filter(|_| st.definite_recursive);
        for &ri in definite.chain(st.applicable.iter().filter(|_| st.applicable_recursive)) {
            if !own[ri].is_empty() {
                continue;
            }
            own[ri] = (rules[ri].operands.iter().enumerate())
                .filter(|(_, o)| o.read != Read::Negated && s.rels[o.literal.rel].stratum == si)
                .map(|(j, _)| j)
                .collect();
            // A round's source is the recent tuples of the stratum's own relation it reads.
            if let Some(&j) = own[ri].first() {
                rules[ri] = plan_rule_from(p, ri, Some(rules[ri].operands[j].item));
            }
        }
    }
    for (si, st) in strata.iter_mut().enumerate() {
        st.definite_set = layers::definite_set(p, s, &rules, &own, si, st.definite_recursive);
        if st.shape == Shape::Uncontested {
            let set = layers::applicable_set(p, s, &rules, &own, si, st.applicable_recursive, &st.definite_set);
            st.applicable_set = Some(set);
        }
        if st.shape == Shape::Contested {
            st.contests = layers::contests(p, s, si);
            if !st.definite_set.iteration {
                let same = |r: usize| {
                    rules[r].operands.iter().all(|o| {
                        let (rel, neg) = (o.literal.rel, o.literal.negative);
                        layers::operand_layer(s, o.read, rel, neg, true)
                            == layers::operand_layer(s, o.read, rel, neg, false)
                    })
                };
                st.definite_set.shared =
                    st.definite_set.heads.iter().map(|h| h.rule).filter(|&r| !rules[r].never && same(r)).collect();
            }
        }
    }
    let explain = calls::plan_calls(p, s, &rules, &mut strata);
    let why_not = (0..p.rules.len()).map(|ri| why_not::plan_why_not(p, ri)).collect();
    Plan { rules, own, strata, why_not, explain }
}
