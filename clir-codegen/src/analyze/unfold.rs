//! Backwards unfolding: premises replaced by the bodies of the rules (and closures) that derive
//! them, down to input relations, depth-first within a depth and a step bound; each complete
//! branch, its comparisons solved, grounded into the facts of a case.

use super::solve::{self, Solved};
use super::term::{Subst, T};
use super::{Bounds, Fact, Value};
use crate::ir::{RelationKind, Strength};
use crate::resolve::{Program, RItem, RRule, Ty};

/// A premise still to derive.
#[derive(Debug, Clone)]
struct Goal {
    rel: usize,
    negative: bool,
    args: Vec<T>,
    /// Rule applications above it.
    depth: u32,
}

/// One branch of the search: its substitution, the input facts it states, what is left.
#[derive(Debug, Clone, Default)]
pub(crate) struct Branch {
    pub s: Subst,
    facts: Vec<(usize, bool, Vec<T>)>,
    /// The `not` items of the rules applied: a witness must state no fact they match.
    nots: Vec<(usize, bool, Vec<T>)>,
    goals: Vec<Goal>,
    /// Terms to ground with the facts (the heads asked about).
    pub keep: Vec<Vec<T>>,
}

impl Branch {
    /// `rule`'s variables renamed apart, its body to derive at depth 0, its head's terms; the
    /// index of its variable 0.
    pub fn add_rule(&mut self, rule: &RRule) -> (u32, Vec<T>) {
        let base = self.s.rename(rule);
        let head = rule.head.args.iter().map(|&a| Subst::term(rule, base, a)).collect();
        self.push_body(rule, base, 0);
        (base, head)
    }

    /// The items of `rule`'s body as goals, comparisons and `not` items (checked against the
    /// witness's facts; what they say of institutional relations is left to the ruling).
    fn push_body(&mut self, rule: &RRule, base: u32, depth: u32) {
        for item in rule.body.iter().rev() {
            match item {
                RItem::Literal(_, l) => {
                    let args = l.args.iter().map(|&a| Subst::term(rule, base, a)).collect();
                    self.goals.push(Goal { rel: l.rel, negative: l.negative, args, depth });
                }
                RItem::Comparison(op, a, b) => {
                    let (a, b) = (Subst::term(rule, base, *a), Subst::term(rule, base, *b));
                    self.s.cmps.push((*op, a, b));
                }
                RItem::Not(l) => {
                    let args = l.args.iter().map(|&a| Subst::term(rule, base, a)).collect();
                    self.nots.push((l.rel, l.negative, args));
                }
            }
        }
    }
}

/// A branch grounded: the facts of a case and the values of the kept terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ground {
    pub facts: Vec<Fact>,
    pub keep: Vec<Vec<Value>>,
}

/// How one search ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cut {
    /// A premise was left underived because the depth bound was reached.
    pub depth: bool,
    /// The step bound was reached.
    pub steps: bool,
    /// A branch's comparisons were neither solved nor proven impossible.
    pub unsolved: bool,
}

impl Cut {
    /// Whether the search covered every way to derive the body: no bound was reached.
    pub fn complete(self) -> bool {
        !self.depth && !self.steps && !self.unsolved
    }
}

/// The rules and closures that derive each relation, computed once per program.
pub(crate) struct Index {
    /// Per relation, the concluding rules (no defeater, no `false` item) for its positive and
    /// for its negative literals.
    derivers: Vec<[Vec<usize>; 2]>,
    /// Per relation, the closures that close it.
    closures: Vec<Vec<usize>>,
}

impl Index {
    /// The index of `p`.
    pub fn new(p: &Program) -> Index {
        let mut derivers = vec![[Vec::new(), Vec::new()]; p.relations.len()];
        for (i, r) in p.rules.iter().enumerate() {
            if r.strength != Strength::Defeater && !r.never {
                if let Some(d) = derivers.get_mut(r.head.rel) {
                    d[usize::from(r.head.negative)].push(i);
                }
            }
        }
        let mut closures = vec![Vec::new(); p.relations.len()];
        for (i, c) in p.closures.iter().enumerate() {
            if let Some(x) = closures.get_mut(c.rel) {
                x.push(i);
            }
        }
        Index { derivers, closures }
    }
}

/// Depth-first unfolding of `start`: at most `want` distinct grounded branches, and how the
/// search was cut.
pub(crate) fn unfold(p: &Program, index: &Index, bounds: &Bounds, start: Branch, want: usize) -> (Vec<Ground>, Cut) {
    let mut cut = Cut::default();
    let mut out: Vec<Ground> = Vec::new();
    let mut stack: Vec<Branch> = vec![start];
    let mut steps = 0usize;
    while let Some(mut b) = stack.pop() {
        if out.len() >= want {
            break;
        }
        if steps >= bounds.steps {
            cut.steps = true;
            break;
        }
        steps += 1;
        let Some(goal) = b.goals.pop() else {
            match ground(p, &b, bounds, 0) {
                Some(Ok(g)) => {
                    // The same branch with its Integers inside their bounds, not on them: an
                    // exception whose threshold meets the rule's (`n <= 250` against
                    // `n >= 250`) does not apply there.
                    let inside = ground(p, &b, bounds, 1).and_then(Result::ok);
                    for g in std::iter::once(g).chain(inside) {
                        if !out.contains(&g) {
                            out.push(g);
                        }
                    }
                }
                Some(Err(())) => cut.unsolved = true,
                None => {}
            }
            continue;
        };
        let rel = &p.relations[goal.rel];
        if rel.kind != RelationKind::Institutional {
            b.facts.push((goal.rel, goal.negative, goal.args));
            stack.push(b);
            continue;
        }
        let mut children: Vec<Branch> = Vec::new();
        let side = index.derivers.get(goal.rel).map(|d| &d[usize::from(goal.negative)]);
        let derivers = side.into_iter().flatten().map(|&r| &p.rules[r]);
        let closures =
            index.closures.get(goal.rel).filter(|_| goal.negative).into_iter().flatten().map(|&c| &p.closures[c]);
        if goal.depth >= bounds.depth {
            if derivers.count() + closures.count() > 0 {
                cut.depth = true;
            }
            continue;
        }
        for r in derivers {
            let mut c = b.clone();
            let base = c.s.rename(r);
            let ok = r.head.args.iter().zip(&goal.args).all(|(&h, g)| {
                let h = Subst::term(r, base, h);
                c.s.unify(&h, g)
            });
            if ok {
                c.push_body(r, base, goal.depth + 1);
                children.push(c);
            }
        }
        for cl in closures {
            let mut c = b.clone();
            c.goals.push(Goal { rel: cl.domain, negative: false, args: goal.args.clone(), depth: goal.depth + 1 });
            children.push(c);
        }
        // The first rule is tried first.
        stack.extend(children.into_iter().rev());
    }
    if !stack.is_empty() && out.len() < want {
        cut.steps = true;
    }
    (out, cut)
}

/// The branch `b` grounded, its inequalities tightened by `margin` ([`solve::solve`]): `None`
/// when its comparisons exclude each other, `Err` when they were not solved within the bound
/// (or the values found overflow an arithmetic term, or a fact matches a `not` item).
fn ground(p: &Program, b: &Branch, bounds: &Bounds, margin: i128) -> Option<Result<Ground, ()>> {
    let s = &b.s;
    let cmps = solve::constraints(s);
    // The Integer variables the facts and kept terms use.
    let mut ints: Vec<u32> = Vec::new();
    let collect = |t: &T, ints: &mut Vec<u32>| {
        let mut stack = vec![s.resolve(t)];
        while let Some(t) = stack.pop() {
            match t {
                T::V(v) if s.tys.get(v as usize) == Some(&Ty::Integer) && !ints.contains(&v) => ints.push(v),
                T::A(x) => {
                    stack.push(x.1);
                    stack.push(x.2);
                }
                _ => {}
            }
        }
    };
    for (_, _, args) in &b.facts {
        for a in args {
            collect(a, &mut ints);
        }
    }
    for k in &b.keep {
        for a in k {
            collect(a, &mut ints);
        }
    }
    let vals = match solve::solve(&cmps, &ints, bounds.tries, margin) {
        Solved::Sat(v) => v,
        Solved::Unsat => return None,
        Solved::Unknown => return Some(Err(())),
    };
    // Fresh names: one per unbound variable, never a constant's name.
    let mut names: Vec<(u32, String)> = Vec::new();
    let mut next = 0usize;
    let mut value = |t: &T, names: &mut Vec<(u32, String)>| -> Option<Value> {
        let t = s.resolve(t);
        Some(match &t {
            T::C(c) => Value::Name(p.constants.get(*c)?.name.clone()),
            T::S(i) => Value::Str(p.strings.get(*i)?.clone()),
            T::I(_) | T::A(_) => Value::Int(solve::eval(&t, &vals)?),
            T::V(v) => match s.tys.get(*v as usize)? {
                Ty::Integer => Value::Int(vals.get(v).copied().unwrap_or(0)),
                ty => {
                    if let Some((_, n)) = names.iter().find(|(w, _)| w == v) {
                        return Some(if *ty == Ty::String { Value::Str(n.clone()) } else { Value::Name(n.clone()) });
                    }
                    let n = loop {
                        next += 1;
                        let n = format!("e{next}");
                        if !p.constants.iter().any(|c| c.name == n) {
                            break n;
                        }
                    };
                    names.push((*v, n.clone()));
                    if *ty == Ty::String {
                        Value::Str(n)
                    } else {
                        Value::Name(n)
                    }
                }
            },
        })
    };
    let mut facts: Vec<Fact> = Vec::new();
    for (rel, negative, args) in &b.facts {
        let args: Option<Vec<Value>> = args.iter().map(|a| value(a, &mut names)).collect();
        // Arithmetic that overflows at these values grounds nothing; other values might.
        let Some(args) = args else { return Some(Err(())) };
        let fact = Fact { rel: *rel, negative: *negative, args };
        if !facts.contains(&fact) {
            facts.push(fact);
        }
    }
    // A `not` item of an input relation that a fact of the branch matches: this branch's facts
    // (which every instance of it states) make the rule that has it inapplicable.
    for (rel, negative, args) in &b.nots {
        if p.relations.get(*rel).is_none_or(|r| r.kind == RelationKind::Institutional) {
            continue;
        }
        // Each argument's value, `None` for a variable no fact or comparison binds (any value).
        let pattern: Vec<Option<Value>> = args
            .iter()
            .map(|a| match s.resolve(a) {
                T::V(v) if !names.iter().any(|(w, _)| *w == v) && !vals.contains_key(&v) => None,
                t => value(&t, &mut names),
            })
            .collect();
        let matched = facts.iter().any(|f| {
            f.rel == *rel
                && f.negative == *negative
                && f.args.iter().zip(&pattern).all(|(x, y)| y.as_ref().is_none_or(|y| x == y))
        });
        if matched {
            return Some(Err(()));
        }
    }
    let mut keep = Vec::new();
    for k in &b.keep {
        let Some(values) = k.iter().map(|a| value(a, &mut names)).collect::<Option<Vec<Value>>>() else {
            return Some(Err(()));
        };
        keep.push(values);
    }
    Some(Ok(Ground { facts, keep }))
}
