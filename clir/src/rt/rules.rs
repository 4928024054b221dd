//! Each rule of a package as data: its variables, head, body and why-not walk, written by the
//! compiler as a `static` table of the types below (relations by their `REL_*` constants) and
//! read as it is. Explanations and why-not work from it over any relation through [`Rows`], so
//! their code is compiled once for every package, not once a rule; evaluation stays native
//! joins per rule.
//!
//! A rule's [`Rule::binding`] is the order of the variables in the tuples its function records
//! for explanations, after the case.

use crate::instance::Instance;
use crate::reason::{Shown, Status, Trace};
use crate::value::CaseId;
use datafrog::Relation;
use std::ops::Range;

/// A relation's final tuples as flat rows `[case, args..]`, whatever its tuple type: what
/// why-not reads.
pub trait Rows {
    /// Whether the row is a tuple of the relation.
    fn holds(&self, row: &[i64]) -> bool;
    /// The positions of the tuples whose leading columns are `prefix` (the case first).
    fn seek(&self, prefix: &[i64]) -> Range<usize>;
    /// Writes the tuple at position `at` into `out`, as a flat row.
    fn row(&self, at: usize, out: &mut Vec<i64>);
}

impl<T: crate::Fact> Rows for Relation<T> {
    fn holds(&self, row: &[i64]) -> bool {
        super::contains(&self.elements, &T::from_flat_row(row))
    }

    fn seek(&self, prefix: &[i64]) -> Range<usize> {
        // Flat rows order as their tuples do (every column's flat form keeps its order).
        let mut flat = Vec::with_capacity(T::ARITY + 1);
        let mut key = |t: &T| {
            flat.clear();
            t.push_flat(&mut flat);
            flat[..prefix.len()].cmp(prefix)
        };
        let start = self.elements.partition_point(|t| key(t).is_lt());
        let len = self.elements[start..].partition_point(|t| key(t).is_eq());
        start..start + len
    }

    fn row(&self, at: usize, out: &mut Vec<i64>) {
        out.clear();
        self.elements[at].push_flat(out);
    }
}

/// The final layers of one relation and sign: `+D`, `+S`, `+d`.
pub type Final<'l> = [&'l dyn Rows; 3];

/// Where the row `[case, args..]` stands in `layers`.
pub fn status(layers: Final<'_>, row: &[i64]) -> Status {
    let [d, s, c] = layers.map(|l| l.holds(row));
    Status { definite: d, supported: s, concluded: c }
}

/// A term of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Term {
    /// Variable `i` of the rule.
    Var(usize),
    /// A value, flat (an Integer, or a constant's or string's symbol).
    Value(i64),
    /// `a OP b`, OP one of `b'+'`, `b'-'`, `b'*'`.
    Arith(u8, &'static Term, &'static Term),
}

/// A literal of a rule: relation, sign, arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Literal {
    /// The relation's index in the schema.
    pub rel: usize,
    /// Strong negation.
    pub negative: bool,
    /// The arguments.
    pub args: &'static [Term],
}

impl Literal {
    /// The literal `rel(args)`, or `~rel(args)` when `negative`.
    pub const fn new(rel: usize, negative: bool, args: &'static [Term]) -> Literal {
        Literal { rel, negative, args }
    }
}

/// One body item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// A premise, asked as supported (`true`) or established.
    Premise(bool, Literal),
    /// A negation as failure.
    Not(Literal),
    /// A comparison.
    Compare(Cmp, Term, Term),
}

/// A comparison's operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// How an argument of the asked literal meets the head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadArg {
    /// It binds variable `i`.
    Bind(usize),
    /// It must equal variable `i`, bound by an earlier argument.
    Equal(usize),
    /// It must equal this term.
    Value(Term),
    /// A computed head argument, compared once its variables are bound (`Step::Head`).
    Computed,
}

/// One step of a why-not walk (the compiler's plan of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The body holds `false`.
    False,
    /// A comparison of constants that fails: its text.
    Decided(&'static str),
    /// Body item `item` tested, all its variables bound (read as supported or not).
    Test {
        /// The body item.
        item: usize,
        /// Read as supported.
        supported: bool,
    },
    /// For each tuple of body item `item` whose first `prefix` columns are bound, the walk goes
    /// on with its other variables bound; `bound` lists the columns bound before.
    Each {
        /// The body item.
        item: usize,
        /// Read as supported.
        supported: bool,
        /// The leading columns bound before.
        prefix: usize,
        /// Every column bound before.
        bound: &'static [usize],
    },
    /// Comparison `item` tested: its text in `pieces`, cut where the values of `vars` go.
    Compare {
        /// The body item.
        item: usize,
        /// The text around the variables.
        pieces: &'static [&'static str],
        /// The variables shown between the pieces.
        vars: &'static [usize],
    },
    /// Negation `item` tested, the columns of `bound` bound.
    Negation {
        /// The body item.
        item: usize,
        /// The columns bound.
        bound: &'static [usize],
    },
    /// Head argument `arg` (computed) compared with the asked literal's.
    Head(usize),
}

/// One rule, as the compiler wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Per variable, whether it is an Integer.
    pub integer: &'static [bool],
    /// The variables of a recorded binding, in order.
    pub binding: &'static [usize],
    /// The head.
    pub head: Literal,
    /// The body.
    pub body: &'static [Item],
    /// How each argument of an asked literal meets the head.
    pub head_args: &'static [HeadArg],
    /// The why-not walk.
    pub steps: &'static [Step],
}

/// Every rule of a package, as the compiler wrote them, in the package's order.
pub struct RuleTable {
    rules: &'static [Rule],
}

impl RuleTable {
    /// The table of `rules`, in the package's order.
    pub const fn new(rules: &'static [Rule]) -> RuleTable {
        RuleTable { rules }
    }

    /// Adds to `instances` the explanation instance of each binding of rule `rule` (`bindings`, as
    /// its function recorded them, each once; taken in their order here, so that explanations do
    /// not depend on join order), once per entry of `definite` (over applicable premises, over
    /// definite ones).
    pub fn record<B: super::Binding>(
        &self,
        instances: &mut Vec<Instance>,
        rule: usize,
        definite: &[bool],
        mut bindings: Vec<B>,
    ) {
        bindings.sort_unstable();
        let r = self.rule(rule);
        let mut row = Vec::with_capacity(r.binding.len() + 1);
        let mut vars = vec![0; r.integer.len()];
        for &d in definite {
            for b in &bindings {
                row.clear();
                b.extend_row(&mut row);
                for (k, &v) in r.binding.iter().enumerate() {
                    vars[v] = row[k + 1];
                }
                let case = CaseId(row[0] as u32);
                let args = |l: &Literal| -> Vec<i64> { l.args.iter().map(|t| t.eval(&vars)).collect() };
                let mut instance = Instance::rule(rule, d, case).flat_head(r.head.rel, r.head.negative, args(&r.head));
                for item in r.body {
                    if let Item::Premise(supported, literal) = item {
                        instance = instance.flat_premise(literal.rel, literal.negative, *supported, args(literal));
                    }
                }
                instances.push(instance);
            }
        }
    }

    /// Walks rule `rule`'s body for the asked row `[case, args..]` over the final layers (`layers`
    /// of a slot, `crate::slot`), telling `t` every item that fails for a binding and every
    /// binding for which none does.
    pub fn walk<'l>(&self, rule: usize, row: &[i64], t: &mut Trace, layers: &dyn Fn(usize) -> Final<'l>) {
        let r = self.rule(rule);
        let mut vars = vec![0; r.integer.len()];
        for (j, h) in r.head_args.iter().enumerate() {
            let asked = row[j + 1];
            match h {
                HeadArg::Bind(v) => vars[*v] = asked,
                HeadArg::Equal(v) if asked != vars[*v] => return,
                HeadArg::Value(term) if asked != term.eval(&vars) => return,
                _ => {}
            }
        }
        let mut w = Walk { r, row, case: row[0], t, layers, vars };
        w.steps(0, true);
    }

    fn rule(&self, ri: usize) -> &'static Rule {
        &self.rules[ri]
    }
}

/// A walk in progress: the variables bound so far.
struct Walk<'w, 'l> {
    r: &'w Rule,
    row: &'w [i64],
    case: i64,
    t: &'w mut Trace,
    layers: &'w dyn Fn(usize) -> Final<'l>,
    vars: Vec<i64>,
}

impl<'w, 'l> Walk<'w, 'l> {
    fn literal(&self, item: usize) -> &'w Literal {
        match &self.r.body[item] {
            Item::Premise(_, literal) | Item::Not(literal) => literal,
            Item::Compare(..) => unreachable!("a literal item"),
        }
    }

    /// The final layer literal `l` is read in: `+S` asked as supported, `+d` otherwise.
    fn layer(&self, l: &Literal, supported: bool) -> &'l dyn Rows {
        (self.layers)(crate::schema::slot(l.rel, l.negative))[if supported { 1 } else { 2 }]
    }

    /// `[case, args..]` of the first `n` arguments of `l`, all bound.
    fn tuple(&self, l: &Literal, n: usize) -> Vec<i64> {
        std::iter::once(self.case).chain(l.args[..n].iter().map(|a| a.eval(&self.vars))).collect()
    }

    /// `l`'s arguments shown: the value where its column is in `bound`, `None` elsewhere.
    fn shown(&self, l: &Literal, bound: &[usize]) -> Vec<Option<i64>> {
        (0..l.args.len()).map(|j| bound.contains(&j).then(|| l.args[j].eval(&self.vars))).collect()
    }

    /// Tells the trace the premise `l` (arguments as `shown`) is not concluded, or
    /// (`supported`) not supported; returns `false`.
    fn missing(&mut self, l: &Literal, shown: &[Option<i64>], supported: bool) -> bool {
        if supported {
            self.t.supported(l.rel, l.negative, shown)
        } else {
            self.t.premise(l.rel, l.negative, shown)
        }
    }

    /// The values the tuple `found` (flat) gives `l`'s unbound variables, when it agrees with
    /// what is bound (`bound` columns) and with itself where a variable repeats.
    fn agreement(&self, l: &Literal, bound: &[usize], found: &[i64]) -> Option<Vec<(usize, i64)>> {
        let mut first: Vec<(usize, i64)> = Vec::new();
        for (j, a) in l.args.iter().enumerate() {
            let value = found[j + 1];
            if bound.contains(&j) {
                if value != a.eval(&self.vars) {
                    return None;
                }
                continue;
            }
            let Term::Var(v) = *a else { unreachable!("an unbound column holds a variable") };
            match first.iter().find(|(w, _)| *w == v) {
                Some(&(_, seen)) if seen != value => return None,
                Some(_) => {}
                None => first.push((v, value)),
            }
        }
        Some(first)
    }

    /// Steps `k..` inside the loops of the steps before, `ok` whether every test so far held;
    /// returns `false` when the walk ends (a computed head argument differs outside every loop).
    fn steps(&mut self, k: usize, ok: bool) -> bool {
        let r = self.r;
        let Some(step) = r.steps.get(k) else {
            if ok {
                self.t.applicable();
            }
            return true;
        };
        let mut ok = ok;
        match step {
            Step::False => {
                self.t.comparison(&["false"], &[]);
                return true;
            }
            Step::Decided(text) => {
                self.t.comparison(&[text], &[]);
            }
            Step::Test { item, supported } => {
                let l = self.literal(*item);
                let tuple = self.tuple(l, l.args.len());
                ok &= self.layer(l, *supported).holds(&tuple) || self.missing(l, &all(&tuple), *supported);
            }
            Step::Each { item, supported, prefix, bound } => {
                let l = self.literal(*item);
                let layer = self.layer(l, *supported);
                let mut any = false;
                let mut found = Vec::new();
                for at in layer.seek(&self.tuple(l, *prefix)) {
                    layer.row(at, &mut found);
                    let Some(binds) = self.agreement(l, bound, &found) else { continue };
                    for (v, value) in binds {
                        self.vars[v] = value;
                    }
                    any = true;
                    self.steps(k + 1, ok);
                }
                if !any {
                    self.missing(l, &self.shown(l, bound), *supported);
                }
                return true;
            }
            Step::Compare { item, pieces, vars } => {
                let Item::Compare(op, a, b) = &r.body[*item] else { unreachable!("a comparison") };
                if !op.holds(a.eval(&self.vars), b.eval(&self.vars)) {
                    let shown: Vec<Shown> = vars
                        .iter()
                        .map(|&v| if r.integer[v] { Shown::Int(self.vars[v]) } else { Shown::Name(self.vars[v]) })
                        .collect();
                    ok = self.t.comparison(pieces, &shown);
                }
            }
            Step::Negation { item, bound } => {
                let l = self.literal(*item);
                let layer = self.layer(l, false);
                if bound.len() == l.args.len() {
                    let tuple = self.tuple(l, l.args.len());
                    ok &= !layer.holds(&tuple) || self.t.negation(l.rel, l.negative, &all(&tuple));
                } else {
                    let prefix = bound.iter().enumerate().take_while(|(i, &c)| *i == c).count();
                    let mut found = Vec::new();
                    let holds = layer.seek(&self.tuple(l, prefix)).any(|at| {
                        layer.row(at, &mut found);
                        self.agreement(l, bound, &found).is_some()
                    });
                    if holds {
                        let shown = self.shown(l, bound);
                        ok = self.t.negation(l.rel, l.negative, &shown);
                    }
                }
            }
            Step::Head(arg) => {
                if self.row[arg + 1] != r.head.args[*arg].eval(&self.vars) {
                    return false;
                }
            }
        }
        self.steps(k + 1, ok)
    }
}

/// The arguments of the flat row `[case, args..]`, every one shown.
fn all(row: &[i64]) -> Vec<Option<i64>> {
    row[1..].iter().map(|&v| Some(v)).collect()
}

impl Term {
    fn eval(&self, vars: &[i64]) -> i64 {
        match self {
            Term::Var(v) => vars[*v],
            Term::Value(x) => *x,
            Term::Arith(op, a, b) => {
                let (a, b) = (a.eval(vars), b.eval(vars));
                match op {
                    b'+' => a.wrapping_add(b),
                    b'-' => a.wrapping_sub(b),
                    _ => a.wrapping_mul(b),
                }
            }
        }
    }
}

impl Cmp {
    fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::value::Sym;
    use proptest::prelude::*;

    // castling_legal(game, who, side) :- side_of(game, who, side, rook), not moved(rook),
    //     n > 3 + 1 (the last over an Integer variable n of has_count(game, n)).
    /// A rule's entry of a rule table: castling's, one premise.
    pub(in crate::rt) const CASTLING: Rule = Rule {
        integer: &[false, false, false, false, true],
        binding: &[0, 1, 2, 3],
        head: Literal::new(7, false, &[Term::Var(0), Term::Var(1), Term::Var(2)]),
        body: &[
            Item::Premise(false, Literal::new(1, false, &[Term::Var(0), Term::Var(1), Term::Var(2), Term::Var(3)])),
            Item::Not(Literal::new(2, false, &[Term::Var(3)])),
            Item::Compare(Cmp::Gt, Term::Var(4), Term::Arith(b'+', &Term::Value(3), &Term::Value(1))),
        ],
        head_args: &[HeadArg::Bind(0), HeadArg::Bind(1), HeadArg::Bind(2)],
        steps: &[
            Step::Each { item: 0, supported: false, prefix: 3, bound: &[0, 1, 2] },
            Step::Compare { item: 2, pieces: &["", " > 3 + 1"], vars: &[4] },
        ],
    };

    proptest! {
        #[test]
        fn seek_finds_the_tuples_a_filter_finds(
            mut tuples in proptest::collection::vec((0u32..3, 0u32..4, -2i64..3), 0..40),
            prefix in proptest::collection::vec(-2i64..4, 0..4),
        ) {
            tuples.sort();
            tuples.dedup();
            let relation = Relation::from_vec(tuples.iter().map(|&(c, s, i)| (CaseId(c), Sym(s), i)).collect());
            let want: Vec<Vec<i64>> = tuples
                .iter()
                .map(|&(c, s, i)| vec![c as i64, s as i64, i])
                .filter(|row| row[..prefix.len()] == prefix[..])
                .collect();
            let mut got = Vec::new();
            let mut row = Vec::new();
            for at in relation.seek(&prefix) {
                relation.row(at, &mut row);
                got.push(row.clone());
            }
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn bindings_become_instances_in_order_once_per_mode() {
        static TABLE: RuleTable = RuleTable::new(&[CASTLING]);
        let bindings = vec![(CaseId(1), Sym(5), Sym(6), Sym(7), Sym(8)), (CaseId(0), Sym(1), Sym(2), Sym(3), Sym(4))];
        let mut instances = Vec::new();
        TABLE.record(&mut instances, 0, &[false, true], bindings);
        let seen: Vec<(u32, Vec<i64>, usize)> =
            instances.iter().map(|i| (i.case, i.head.clone(), i.premises.len())).collect();
        let first = (0, vec![1, 2, 3], 1);
        let second = (1, vec![5, 6, 7], 1);
        assert_eq!(seen, [first.clone(), second.clone(), first, second]);
        assert_eq!(instances[0].premises[0].args, [1, 2, 3, 4]);
        assert_eq!(instances[2].premises[0].layer, crate::instance::Layer::Definite);
    }
}
