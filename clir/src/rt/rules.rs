//! Each rule of a package as data: its variables, head, body and why-not walk, written by the
//! compiler as one line of text a rule and read once. Explanations and why-not work from it
//! over any relation through [`Rows`], so their code is compiled once for every package, not
//! once a rule; evaluation stays native joins per rule.
//!
//! A rule's text is a sequence of tokens separated by single spaces:
//!
//! ```text
//! rule     := NVARS TYPES  NBIND VAR*  literal  NITEMS item*  NHEAD harg*  NSTEPS step*
//! TYPES    := one letter a variable, `i` (Integer) or `n` (entity or String); `-` for none
//! literal  := REL NEG ARITY term*                      NEG: 0 or 1
//! item     := `L` READ literal | `N` literal | `C` OP term term
//! READ     := `E` (established) | `S` (supported)      OP: == != < <= > >=
//! term     := `v`VAR | `=`VALUE (flat) | `+` term term | `-` term term | `*` term term
//! harg     := `B` VAR | `Q` VAR | `X` term | `P`      bind, equal, value, computed
//! step     := `F` | `D` ITEM TEXT | `T` ITEM READ | `E` ITEM READ PREFIX NB COL*
//!           | `C` ITEM NP TEXT* NV VAR* | `N` ITEM NB COL* | `H` ARG
//! TEXT     := LEN`:`BYTES                               (may hold spaces)
//! ```
//!
//! The binding (`NBIND VAR*`) is the order of the variables in the tuples a rule's function
//! records for explanations, after the case.

use crate::instance::Instance;
use crate::reason::{Shown, Status, Trace};
use crate::value::CaseId;
use datafrog::Relation;
use std::ops::Range;
use std::sync::OnceLock;

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
#[derive(Debug, Clone, PartialEq, Eq)]
enum Term {
    Var(usize),
    Value(i64),
    Arith(u8, Box<Term>, Box<Term>),
}

/// A literal of a rule: relation, sign, arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Literal {
    rel: usize,
    negative: bool,
    args: Vec<Term>,
}

/// One body item.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    /// A premise, asked as supported or established.
    Premise { supported: bool, literal: Literal },
    /// A negation as failure.
    Not(Literal),
    /// A comparison.
    Compare(Cmp, Term, Term),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// How an argument of the asked literal meets the head.
#[derive(Debug, Clone, PartialEq, Eq)]
enum HeadArg {
    Bind(usize),
    Equal(usize),
    Value(Term),
    Computed,
}

/// One step of a why-not walk (the compiler's plan of it).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    False,
    Decided { text: String },
    Test { item: usize, supported: bool },
    Each { item: usize, supported: bool, prefix: usize, bound: Vec<usize> },
    Compare { item: usize, pieces: Vec<String>, vars: Vec<usize> },
    Negation { item: usize, bound: Vec<usize> },
    Head { arg: usize },
}

/// One rule, read from its text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    integer: Vec<bool>,
    binding: Vec<usize>,
    head: Literal,
    body: Vec<Item>,
    head_args: Vec<HeadArg>,
    steps: Vec<Step>,
}

/// Every rule of a package, as the compiler wrote them; read on first use.
pub struct RuleTable {
    texts: &'static [&'static str],
    rules: OnceLock<Vec<Rule>>,
}

impl RuleTable {
    /// The table of `texts`, one a rule in the package's order.
    pub const fn new(texts: &'static [&'static str]) -> RuleTable {
        RuleTable { texts, rules: OnceLock::new() }
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
                for item in &r.body {
                    if let Item::Premise { supported, literal } = item {
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

    fn rule(&self, ri: usize) -> &Rule {
        let rules = self.rules.get_or_init(|| {
            self.texts
                .iter()
                .enumerate()
                .map(|(ri, text)| {
                    Rule::parse(text).unwrap_or_else(|e| {
                        panic!("clir: rule {ri} of the generated table does not read ({e}): regenerate the module with this clir")
                    })
                })
                .collect()
        });
        &rules[ri]
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
            Item::Premise { literal, .. } | Item::Not(literal) => literal,
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
                self.t.comparison(&["false".to_string()], &[]);
                return true;
            }
            Step::Decided { text } => {
                self.t.comparison(std::slice::from_ref(text), &[]);
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
            Step::Head { arg } => {
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

/// The tokens of a rule's text.
struct Tokens<'t> {
    rest: &'t str,
}

type Parsed<T> = Result<T, String>;

impl<'t> Tokens<'t> {
    fn word(&mut self) -> Parsed<&'t str> {
        if self.rest.is_empty() {
            return Err("the text ends early".into());
        }
        let (w, rest) = self.rest.split_once(' ').unwrap_or((self.rest, ""));
        self.rest = rest;
        Ok(w)
    }

    fn number<N: std::str::FromStr>(&mut self) -> Parsed<N> {
        let w = self.word()?;
        w.parse().map_err(|_| format!("`{w}` is not a number"))
    }

    fn flag(&mut self) -> Parsed<bool> {
        match self.word()? {
            "0" => Ok(false),
            "1" => Ok(true),
            w => Err(format!("`{w}` is not 0 or 1")),
        }
    }

    fn read(&mut self) -> Parsed<bool> {
        match self.word()? {
            "E" => Ok(false),
            "S" => Ok(true),
            w => Err(format!("`{w}` is not E or S")),
        }
    }

    fn list<T>(&mut self, mut one: impl FnMut(&mut Self) -> Parsed<T>) -> Parsed<Vec<T>> {
        let n: usize = self.number()?;
        (0..n).map(|_| one(self)).collect()
    }

    fn text(&mut self) -> Parsed<String> {
        let (len, rest) = self.rest.split_once(':').ok_or("a text without its length")?;
        let len: usize = len.parse().map_err(|_| format!("`{len}` is not a length"))?;
        let text = rest.get(..len).ok_or("a text longer than the rule")?;
        self.rest = rest[len..].strip_prefix(' ').unwrap_or(&rest[len..]);
        Ok(text.to_string())
    }

    fn term(&mut self) -> Parsed<Term> {
        let w = self.word()?;
        match w.as_bytes() {
            [op @ (b'+' | b'-' | b'*')] => Ok(Term::Arith(*op, Box::new(self.term()?), Box::new(self.term()?))),
            [b'v', ..] => w[1..].parse().map(Term::Var).map_err(|_| format!("`{w}` is not a variable")),
            [b'=', ..] => w[1..].parse().map(Term::Value).map_err(|_| format!("`{w}` is not a value")),
            _ => Err(format!("`{w}` is not a term")),
        }
    }

    fn literal(&mut self) -> Parsed<Literal> {
        Ok(Literal { rel: self.number()?, negative: self.flag()?, args: self.list(Self::term)? })
    }
}

impl Rule {
    fn parse(text: &str) -> Parsed<Rule> {
        let mut t = Tokens { rest: text };
        let n: usize = t.number()?;
        let types = t.word()?;
        let integer: Vec<bool> = if n == 0 { Vec::new() } else { types.bytes().map(|b| b == b'i').collect() };
        if integer.len() != n {
            return Err(format!("{n} variables, {} types", integer.len()));
        }
        let binding = t.list(Tokens::number)?;
        let head = t.literal()?;
        let body = t.list(|t| match t.word()? {
            "L" => Ok(Item::Premise { supported: t.read()?, literal: t.literal()? }),
            "N" => Ok(Item::Not(t.literal()?)),
            "C" => {
                let op = match t.word()? {
                    "==" => Cmp::Eq,
                    "!=" => Cmp::Ne,
                    "<" => Cmp::Lt,
                    "<=" => Cmp::Le,
                    ">" => Cmp::Gt,
                    ">=" => Cmp::Ge,
                    w => return Err(format!("`{w}` is not a comparison")),
                };
                Ok(Item::Compare(op, t.term()?, t.term()?))
            }
            w => Err(format!("`{w}` is not a body item")),
        })?;
        let head_args = t.list(|t| match t.word()? {
            "B" => Ok(HeadArg::Bind(t.number()?)),
            "Q" => Ok(HeadArg::Equal(t.number()?)),
            "X" => Ok(HeadArg::Value(t.term()?)),
            "P" => Ok(HeadArg::Computed),
            w => Err(format!("`{w}` is not a head argument")),
        })?;
        let steps = t.list(|t| match t.word()? {
            "F" => Ok(Step::False),
            "D" => Ok(Step::Decided { text: t.text()? }),
            "T" => Ok(Step::Test { item: t.number()?, supported: t.read()? }),
            "E" => Ok(Step::Each {
                item: t.number()?,
                supported: t.read()?,
                prefix: t.number()?,
                bound: t.list(Tokens::number)?,
            }),
            "C" => {
                Ok(Step::Compare { item: t.number()?, pieces: t.list(Tokens::text)?, vars: t.list(Tokens::number)? })
            }
            "N" => Ok(Step::Negation { item: t.number()?, bound: t.list(Tokens::number)? }),
            "H" => Ok(Step::Head { arg: t.number()? }),
            w => Err(format!("`{w}` is not a step")),
        })?;
        if !t.rest.is_empty() {
            return Err(format!("`{}` after the rule", t.rest));
        }
        Ok(Rule { integer, binding, head, body, head_args, steps })
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
    pub(in crate::rt) const CASTLING: &str =
        "5 nnnni 4 0 1 2 3 7 0 3 v0 v1 v2 3 L E 1 0 4 v0 v1 v2 v3 N 2 0 1 v3 C > v4 + =3 =1 \
        3 B 0 B 1 B 2 2 E 0 E 3 3 0 1 2 C 2 2 0: 8: > 3 + 1 1 4";

    #[test]
    fn a_rule_reads_back_as_written() {
        let r = Rule::parse(CASTLING).unwrap();
        assert_eq!(r.integer, [false, false, false, false, true]);
        assert_eq!(r.binding, [0, 1, 2, 3]);
        assert_eq!(r.head, Literal { rel: 7, negative: false, args: vec![Term::Var(0), Term::Var(1), Term::Var(2)] });
        let sum = Term::Arith(b'+', Box::new(Term::Value(3)), Box::new(Term::Value(1)));
        assert_eq!(r.body[2], Item::Compare(Cmp::Gt, Term::Var(4), sum));
        assert_eq!(r.head_args, [HeadArg::Bind(0), HeadArg::Bind(1), HeadArg::Bind(2)]);
        assert_eq!(
            r.steps,
            [
                Step::Each { item: 0, supported: false, prefix: 3, bound: vec![0, 1, 2] },
                Step::Compare { item: 2, pieces: vec![String::new(), " > 3 + 1".into()], vars: vec![4] },
            ]
        );
    }

    #[test]
    fn a_text_that_does_not_read_is_an_error_naming_what() {
        for (text, error) in [
            ("", "the text ends early"),
            ("1 nn", "1 variables, 2 types"),
            ("0 - 0 1 0 1 vx", "`vx` is not a variable"),
            ("0 - 0 1 2 0", "`2` is not 0 or 1"),
            ("0 - 0 1 0 0 1 Z", "`Z` is not a body item"),
            ("0 - 0 1 0 0 0 0 1 D 9:short", "a text longer than the rule"),
            ("0 - 0 1 0 0 0 0 0 extra", "`extra` after the rule"),
        ] {
            assert_eq!(Rule::parse(text).unwrap_err(), error, "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn any_text_reads_or_is_an_error(text in ".{0,64}") {
            let _ = Rule::parse(&text);
        }

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
