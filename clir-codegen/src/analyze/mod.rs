//! Static analysis of a resolved program (`clir analyze`, docs/ANALYZE.md): conflicts between
//! rules with complementary heads, dead rules and idle priorities.
//!
//! [`analyze`] proposes, [`confirm`] decides. The first unfolds rule bodies backwards to input
//! relations (`unfold`: bounded depth and steps, fresh entities, the package's constants),
//! joins two unfoldings on their heads' arguments, solves their Integer comparisons
//! (`solve`) and grounds each branch into a witness case; it also proves what it can prove
//! exactly (a `false` item, comparisons that exclude each other, a premise nothing derives, an
//! unfolding that fails on every branch). The second takes what ruling each witness showed and
//! keeps only the findings a ruling confirms. Nothing here rules a case or prints.

mod dead;
mod solve;
mod term;
mod unfold;

use crate::ir::Strength;
use crate::resolve::Program;
pub use dead::DeadProof;
pub use unfold::Cut;
use unfold::{unfold, Branch, Index};

/// The bounds of the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Rule applications on a path from a rule's body down to input facts.
    pub depth: u32,
    /// Branches visited per search (a rule's body, or a pair of rules).
    pub steps: usize,
    /// Complete branches kept per search (each grounded into one or two witness cases).
    pub candidates: usize,
    /// Value assignments tried per branch beyond difference constraints.
    pub tries: usize,
    /// Pairs of opposite rules searched for a conflict at most (the package's first ones).
    pub pairs: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds { depth: 6, steps: 2_000, candidates: 3, tries: 2_000, pairs: 10_000 }
    }
}

/// A value of a witness case.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Value {
    /// An entity: a fresh name or a constant's name.
    Name(String),
    /// An Integer.
    Int(i64),
    /// A String.
    Str(String),
}

/// A fact of a witness case.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Fact {
    /// Relation index.
    pub rel: usize,
    /// Strong negation.
    pub negative: bool,
    /// Arguments.
    pub args: Vec<Value>,
}

/// What a witness case is meant to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Rule `pos` (for `q`) and rule `neg` (for `~q`) applicable for the same `q`, with no
    /// priority between them.
    Conflict {
        /// The rule for the positive literal.
        pos: usize,
        /// The rule for its strong negation.
        neg: usize,
    },
    /// The rule applicable.
    Applicable(usize),
    /// The two rules of the priority applicable for the same literal.
    Together(usize),
}

/// A witness case proposed by the search, to be ruled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// What it is meant to show.
    pub target: Target,
    /// The case's facts.
    pub facts: Vec<Fact>,
    /// For a pair of rules, the positive literal `q` their heads meet on: relation, arguments.
    pub literal: Option<(usize, Vec<Value>)>,
}

/// Why a priority can never decide anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdleProof {
    /// Its two rules do not conclude complementary literals of one relation.
    NotComplementary,
    /// Its higher rule is a defeater, which never beats anything.
    HigherDefeater,
    /// One of its rules is dead.
    DeadRule(usize),
    /// Their heads never unify.
    HeadsNeverMeet,
    /// Unfolded without reaching any bound, every way to make both applicable for one literal
    /// fails on comparisons that exclude each other.
    NeverTogether,
}

/// What [`analyze`] found before any ruling.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// The bounds it ran with.
    pub bounds: Bounds,
    /// Witness cases to rule.
    pub candidates: Vec<Candidate>,
    /// Rules proven dead, with the proof.
    pub dead: Vec<(usize, DeadProof)>,
    /// Priorities proven idle.
    pub idle: Vec<(usize, IdleProof)>,
    /// The pairs of rules searched for a conflict.
    pub pairs: usize,
    /// The pairs of rules not searched, past [`Bounds::pairs`].
    pub pairs_skipped: usize,
    /// Searches cut by a bound, per kind of bound (depth, steps, unsolved comparisons).
    pub cut: (usize, usize, usize),
}

/// Whether `a` and `b` are the two sides of an attack: complementary heads of one relation.
fn complementary(p: &Program, a: usize, b: usize) -> bool {
    let (x, y) = (&p.rules[a].head, &p.rules[b].head);
    x.rel == y.rel && x.negative != y.negative
}

/// Searches the program for candidates: one search per rule, per pair of concluding rules with
/// complementary heads, per priority; proves dead rules and idle priorities where it can.
pub fn analyze(p: &Program, bounds: &Bounds) -> Analysis {
    let mut a = Analysis { bounds: *bounds, ..Analysis::default() };
    let note_cut = |a: &mut Analysis, cut: Cut| {
        a.cut.0 += usize::from(cut.depth);
        a.cut.1 += usize::from(cut.steps);
        a.cut.2 += usize::from(cut.unsolved);
    };
    a.dead = dead::proofs(p);
    let index = Index::new(p);
    let is_dead = |a: &Analysis, r: usize| a.dead.iter().any(|&(d, _)| d == r);
    // Each rule alone.
    for (r, rule) in p.rules.iter().enumerate() {
        if is_dead(&a, r) {
            continue;
        }
        let mut b = Branch::default();
        let (_, head) = b.add_rule(rule);
        b.keep.push(head);
        let (found, cut) = unfold(p, &index, bounds, b, bounds.candidates);
        note_cut(&mut a, cut);
        if found.is_empty() && cut.complete() {
            a.dead.push((r, DeadProof::EveryUnfoldingFails));
            continue;
        }
        for g in found {
            a.candidates.push(Candidate { target: Target::Applicable(r), facts: g.facts, literal: None });
        }
    }
    // Pairs: the rules of `q` against the rules of `~q`, and the two rules of each priority.
    let concluding = |r: usize| p.rules[r].strength != Strength::Defeater;
    let mut jobs: Vec<(Target, usize, usize)> = Vec::new();
    // The concluding rules by the relation of their head: those for `q`, those for `~q`.
    let mut by_rel: Vec<(Vec<usize>, Vec<usize>)> = vec![(Vec::new(), Vec::new()); p.relations.len()];
    for (r, rule) in p.rules.iter().enumerate() {
        if let Some(sides) = by_rel.get_mut(rule.head.rel).filter(|_| concluding(r)) {
            if rule.head.negative { &mut sides.1 } else { &mut sides.0 }.push(r);
        }
    }
    for (xs, ys) in &by_rel {
        for (&x, &y) in xs.iter().flat_map(|x| ys.iter().map(move |y| (x, y))) {
            if is_dead(&a, x) || is_dead(&a, y) {
                continue;
            }
            let ranked = p.superiority.iter().any(|s| (s.higher, s.lower) == (x, y) || (s.higher, s.lower) == (y, x));
            if !ranked {
                jobs.push((Target::Conflict { pos: x, neg: y }, x, y));
            }
        }
    }
    a.pairs_skipped = jobs.len().saturating_sub(bounds.pairs);
    jobs.truncate(bounds.pairs);
    a.pairs = jobs.len();
    for (i, s) in p.superiority.iter().enumerate() {
        let proof = if !complementary(p, s.higher, s.lower) {
            Some(IdleProof::NotComplementary)
        } else if p.rules[s.higher].strength == Strength::Defeater {
            Some(IdleProof::HigherDefeater)
        } else if is_dead(&a, s.higher) {
            Some(IdleProof::DeadRule(s.higher))
        } else if is_dead(&a, s.lower) {
            Some(IdleProof::DeadRule(s.lower))
        } else {
            None
        };
        match proof {
            Some(proof) => a.idle.push((i, proof)),
            None => {
                let (pos, neg) =
                    if p.rules[s.higher].head.negative { (s.lower, s.higher) } else { (s.higher, s.lower) };
                jobs.push((Target::Together(i), pos, neg));
            }
        }
    }
    for (target, x, y) in jobs {
        let mut b = Branch::default();
        let (_, hx) = b.add_rule(&p.rules[x]);
        let (_, hy) = b.add_rule(&p.rules[y]);
        let meet = hx.iter().zip(&hy).all(|(u, v)| b.s.unify(u, v));
        if !meet {
            if let Target::Together(i) = target {
                a.idle.push((i, IdleProof::HeadsNeverMeet));
            }
            continue;
        }
        b.keep.push(hx);
        let (found, cut) = unfold(p, &index, bounds, b, bounds.candidates);
        note_cut(&mut a, cut);
        if let (true, true, Target::Together(i)) = (found.is_empty(), cut.complete(), target) {
            a.idle.push((i, IdleProof::NeverTogether));
        }
        for g in found {
            let literal = g.keep.first().map(|args| (p.rules[x].head.rel, args.clone()));
            a.candidates.push(Candidate { target, facts: g.facts, literal });
        }
    }
    a
}

/// What the ruling of a witness says of one sign of its literal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Standing {
    /// `+D`.
    pub definite: bool,
    /// `+S`: some strict or defeasible rule for it applicable (or `+D`).
    pub supported: bool,
    /// `+d`.
    pub concluded: bool,
}

/// What the ruling of one witness case showed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ruled {
    /// Of the candidate's literal `q`.
    pub q: Standing,
    /// Of `~q`.
    pub not_q: Standing,
    /// The rules the ruling shows applicable for `q` or `~q` (`None`: the ruler does not say,
    /// and the literal's standing alone decides).
    pub applicable: Option<Vec<usize>>,
}

/// What the ruling of every witness case showed together: per rule whether some case made it
/// applicable, per priority whether it decided some attack.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exercised {
    /// By rule index.
    pub applied: Vec<bool>,
    /// By priority index.
    pub decided: Vec<bool>,
}

/// A conflict's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConflictKind {
    /// Both rules strict, both signs definite: a contradiction.
    Strict,
    /// Neither sign concluded, both supported: the literal is left undecided.
    Defeasible,
}

/// A finding, confirmed by ruling or proven.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// Two rules conflict; `witness` indexes [`Analysis::candidates`].
    Conflict {
        /// Strict or defeasible.
        kind: ConflictKind,
        /// The rule for `q`.
        pos: usize,
        /// The rule for `~q`.
        neg: usize,
        /// The witness case.
        witness: usize,
    },
    /// A rule no case can make applicable.
    Dead {
        /// The rule.
        rule: usize,
        /// Why.
        proof: DeadProof,
    },
    /// A rule no witness within the bounds made applicable.
    NotFoundApplicable {
        /// The rule.
        rule: usize,
    },
    /// A priority that never decides anything (`proof`), or that no witness within the bounds
    /// made decide.
    IdlePriority {
        /// The priority.
        priority: usize,
        /// Why, when it is exact.
        proof: Option<IdleProof>,
    },
}

/// The findings that rulings confirm: `ruled[i]` is what candidate `i` showed (`None`: its
/// case was not ruled), `exercised` what all of them did together. Conflicts first (one per
/// pair), then dead rules, then idle priorities, each in the package's order.
pub fn confirm(p: &Program, a: &Analysis, ruled: &[Option<Ruled>], exercised: &Exercised) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    for (i, c) in a.candidates.iter().enumerate() {
        let Target::Conflict { pos, neg } = c.target else { continue };
        let Some(Some(r)) = ruled.get(i) else { continue };
        if out.iter().any(|f| matches!(f, Finding::Conflict { pos: x, neg: y, .. } if (*x, *y) == (pos, neg))) {
            continue;
        }
        let both = r.applicable.as_ref().is_none_or(|v| v.contains(&pos) && v.contains(&neg));
        let strict = |r: usize| p.rules[r].strength == Strength::Strict;
        let kind = if r.q.definite && r.not_q.definite && strict(pos) && strict(neg) {
            ConflictKind::Strict
        } else if !r.q.concluded && !r.not_q.concluded && r.q.supported && r.not_q.supported {
            ConflictKind::Defeasible
        } else {
            continue;
        };
        if both {
            out.push(Finding::Conflict { kind, pos, neg, witness: i });
        }
    }
    let applied = |r: usize| exercised.applied.get(r).copied().unwrap_or(false);
    for r in 0..p.rules.len() {
        if applied(r) {
            continue;
        }
        match a.dead.iter().find(|&&(d, _)| d == r) {
            Some(&(_, proof)) => out.push(Finding::Dead { rule: r, proof }),
            None => out.push(Finding::NotFoundApplicable { rule: r }),
        }
    }
    for i in 0..p.superiority.len() {
        if exercised.decided.get(i).copied().unwrap_or(false) {
            continue;
        }
        let proof = a.idle.iter().find(|&&(x, _)| x == i).map(|&(_, proof)| proof);
        out.push(Finding::IdlePriority { priority: i, proof });
    }
    out
}
