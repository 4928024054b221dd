//! Synthetic packages of N rules shaped like a compliance law, for benchmarks of the compiler
//! and of the build of its generated code. Shared by `examples/synthetic.rs` and
//! `tests/synthetic.rs` (each includes this file with `#[path]`).
//!
//! The shape, deterministic in (N, seed) (splitmix64, no external crate):
//!
//! - 8 entity types (Organisation, Person, Product, Contract, Site, Incident, Report,
//!   Jurisdiction) and 3 constants of Jurisdiction;
//! - about N/4 empirical relations: one register per type (`registered_<i>(x: T)`), a few
//!   binary links over one type (the edges of the recursive relations), the rest of 1-3 entity
//!   columns, every third with an Integer column (`amount`); every fourth of those has one
//!   column and is closed over the register of its type (a closure policy), and a fifth of the
//!   others that have an earlier relation of the same columns are closed over it;
//! - about N/2 institutional relations in one order: a rule's body only reads relations declared
//!   before its head (most often one of the 8 institutional relations just before it, so
//!   conclusions chain through deep strata), which makes every package stratifiable, as real
//!   law is; the only cycles are the few transitive relations (`r(x, y) :- link(x, y)`,
//!   `r(x, z) :- r(x, y), link(y, z)`), which are uncontested and never negated in their own
//!   stratum;
//! - rules of 1-4 body literals, strict and defeasible, joined on shared variables: the first
//!   literals bind the head's variables, further ones join on a bound variable; some literals
//!   are strong negations (`~p`: of empirical relations, which take explicit negative facts or
//!   closure negatives, and of contested institutional ones), some items are negation as
//!   failure (`not p(..)` over bound variables), some `supported`; comparisons on every other
//!   Integer variable (`n >= 250`, now and then `n1 <= n2`); a Jurisdiction argument is now and
//!   then a constant;
//! - a sixth of the institutional relations are contested: a general defeasible rule, an
//!   exception for the opposite sign with the general rule's body and one more condition, the
//!   priority "exception beats general rule" (heads of opposite sign), and in every third a
//!   defeater (either sign), sometimes overruled by a priority;
//! - the remaining rules (up to exactly N) are alternative rules of the plain relations;
//! - every relation and rule has a label, every rule an anchor to its article (a fragment per
//!   three institutional relations).

use clir_testkit::rng::Rng;
use clir_testkit::Package;
use std::fmt::Write;

/// The entity types: name and the prefix of their variables.
const TYPES: [(&str, &str); 8] = [
    ("Organisation", "o"),
    ("Person", "p"),
    ("Product", "g"),
    ("Contract", "c"),
    ("Site", "s"),
    ("Incident", "i"),
    ("Report", "r"),
    ("Jurisdiction", "j"),
];
/// The column type Integer (an index past the entity types).
const INTEGER: usize = TYPES.len();
/// The Jurisdiction type, whose constants rules name.
const JURISDICTION: usize = 7;
const CONSTANTS: [&str; 3] = ["Union", "MemberState", "ThirdCountry"];
const THRESHOLDS: [i64; 8] = [1, 10, 50, 250, 500, 1000, 10_000, 50_000_000];
const OPS: [&str; 6] = [">=", ">", "<", "<=", ">=", "!="];
const EMPIRICAL_WORDS: [&str; 12] = [
    "reported",
    "employs",
    "supplies",
    "located_in",
    "signed",
    "notified",
    "audited",
    "processes",
    "certified",
    "declared",
    "operates",
    "discloses",
];
const INSTITUTIONAL_WORDS: [&str; 10] = [
    "obliged",
    "permitted",
    "liable",
    "exempt",
    "compliant",
    "in_breach",
    "qualifies",
    "responsible",
    "prohibited",
    "entitled",
];

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Empirical,
    /// Institutional, one or more rules for the positive sign.
    Plain,
    /// Institutional: general rule, exception, maybe a defeater.
    Contested {
        defeater: bool,
    },
    /// Institutional, transitive over the empirical link relation it names.
    Transitive {
        link: usize,
    },
}

struct Rel {
    name: String,
    /// Column types (`INTEGER` for Integer).
    cols: Vec<usize>,
    role: Role,
    /// The fragment its rules anchor to (institutional relations).
    article: usize,
}

#[derive(Clone, Copy)]
enum Arg {
    Var(usize),
    Const(usize),
}

#[derive(Clone)]
struct Atom {
    rel: usize,
    negative: bool,
    args: Vec<Arg>,
}

#[derive(Clone)]
enum Item {
    /// A literal, `supported` when the flag is set.
    Lit(Atom, bool),
    Not(Atom),
    /// `var OP integer`.
    CmpInt(&'static str, usize, i64),
    /// `var OP var`.
    CmpVar(&'static str, usize, usize),
}

/// A rule body under construction: the rule's variables (by type) and its items.
#[derive(Clone)]
struct Body {
    vars: Vec<usize>,
    /// Whether a variable occurs in a literal of the body.
    bound: Vec<bool>,
    items: Vec<Item>,
}

impl Body {
    fn literals(&self) -> usize {
        self.items.iter().filter(|i| matches!(i, Item::Lit(..) | Item::Not(_))).count()
    }

    fn fresh(&mut self, ty: usize) -> usize {
        self.vars.push(ty);
        self.bound.push(true);
        self.vars.len() - 1
    }

    fn bound_of(&self, ty: usize) -> Vec<usize> {
        (0..self.vars.len()).filter(|&v| self.bound[v] && self.vars[v] == ty).collect()
    }
}

struct Rule {
    strength: &'static str,
    head: usize,
    head_negative: bool,
    /// The head's variables, one per column: variables `0..arity` of the body.
    body: Body,
    label: String,
}

struct Gen {
    rng: Rng,
    rels: Vec<Rel>,
    rules: Vec<Rule>,
    /// (relation, domain).
    closures: Vec<(usize, usize)>,
    /// (higher, lower) rule indexes.
    priorities: Vec<(usize, usize, &'static str)>,
}

impl Gen {
    fn add_rel(&mut self, word: &str, cols: Vec<usize>, role: Role, article: usize) -> usize {
        let name = format!("{word}_{}", self.rels.len());
        self.rels.push(Rel { name, cols, role, article });
        self.rels.len() - 1
    }

    /// A random entity type, Organisation and Person more often.
    fn entity_type(&mut self) -> usize {
        if self.rng.chance(45) {
            self.rng.below(2)
        } else {
            self.rng.below(TYPES.len())
        }
    }

    /// Whether a strong negation of `rel` can hold: explicit or closure negatives of an input,
    /// or the negative side of a contested relation.
    fn negation_useful(&self, rel: usize) -> bool {
        matches!(self.rels[rel].role, Role::Empirical | Role::Contested { .. })
    }

    /// Appends a literal over `rel`: columns take the unbound head variables of their type
    /// first, then (when `join`, for the first column that can) a bound variable, now and then a
    /// bound variable or a Jurisdiction constant, otherwise a fresh variable.
    fn literal(&mut self, body: &mut Body, rel: usize, join: bool) {
        let cols = self.rels[rel].cols.clone();
        let mut args = Vec::new();
        let mut joined = !join;
        for ty in cols {
            if let Some(v) = (0..body.vars.len()).find(|&v| !body.bound[v] && body.vars[v] == ty) {
                body.bound[v] = true;
                args.push(Arg::Var(v));
                joined = true;
                continue;
            }
            let bound = body.bound_of(ty);
            if ty != INTEGER && !bound.is_empty() && (!joined || self.rng.chance(40)) {
                args.push(Arg::Var(*self.rng.pick(&bound)));
                joined = true;
            } else if ty == JURISDICTION && self.rng.chance(30) {
                args.push(Arg::Const(self.rng.below(CONSTANTS.len())));
            } else {
                args.push(Arg::Var(body.fresh(ty)));
            }
        }
        let negative = self.negation_useful(rel) && self.rng.chance(12);
        let supported = !negative && self.rels[rel].role != Role::Empirical && self.rng.chance(6);
        body.items.push(Item::Lit(Atom { rel, negative, args }, supported));
    }

    /// A literal joined to the body on a bound entity variable, over a relation before `head`.
    fn join_literal(&mut self, body: &mut Body, head: usize) -> bool {
        let candidates: Vec<usize> = (0..head)
            .filter(|&r| self.rels[r].cols.iter().any(|&t| t != INTEGER && !body.bound_of(t).is_empty()))
            .collect();
        if candidates.is_empty() {
            return false;
        }
        let rel = *self.rng.pick(&candidates);
        self.literal(body, rel, true);
        true
    }

    /// `not p(..)` over bound variables (or constants), `p` before `head`.
    fn negation_as_failure(&mut self, body: &mut Body, head: usize) -> bool {
        let candidates: Vec<usize> = (0..head)
            .filter(|&r| self.rels[r].cols.iter().all(|&t| t == JURISDICTION || !body.bound_of(t).is_empty()))
            .collect();
        if candidates.is_empty() {
            return false;
        }
        let rel = *self.rng.pick(&candidates);
        let mut args = Vec::new();
        for ty in self.rels[rel].cols.clone() {
            let bound = body.bound_of(ty);
            if bound.is_empty() {
                args.push(Arg::Const(self.rng.below(CONSTANTS.len())));
            } else {
                args.push(Arg::Var(*self.rng.pick(&bound)));
            }
        }
        body.items.push(Item::Not(Atom { rel, negative: false, args }));
        true
    }

    /// A comparison on a bound Integer variable.
    fn comparison(&mut self, body: &mut Body) -> bool {
        let ints = body.bound_of(INTEGER);
        if ints.is_empty() {
            return false;
        }
        let (op, v) = (*self.rng.pick(&OPS), *self.rng.pick(&ints));
        if ints.len() > 1 && self.rng.chance(30) {
            let w = *self.rng.pick(&ints);
            if w != v {
                body.items.push(Item::CmpVar(if op == "!=" { "<=" } else { op }, v, w));
                return true;
            }
        }
        body.items.push(Item::CmpInt(op, v, *self.rng.pick(&THRESHOLDS)));
        true
    }

    /// A body for `head` of at most `max` literals (more only when binding the head needs them).
    fn body(&mut self, head: usize, max: usize) -> Body {
        let cols = self.rels[head].cols.clone();
        let mut body = Body { vars: cols.clone(), bound: vec![false; cols.len()], items: Vec::new() };
        let target = (*self.rng.pick(&[1, 2, 2, 3, 3, 3, 4])).min(max);
        let first_institutional = self.rels.iter().position(|r| r.role != Role::Empirical).unwrap_or(head);
        // Bind the head's variables: the first literal preferably over one of the institutional
        // relations just before the head (deep chains), later ones over any earlier relation.
        while let Some(v) = (0..body.vars.len()).find(|&v| !body.bound[v]) {
            let ty = body.vars[v];
            let has = |r: &Rel| r.cols.contains(&ty);
            let recent: Vec<usize> =
                (first_institutional.max(head.saturating_sub(8))..head).filter(|&r| has(&self.rels[r])).collect();
            let any: Vec<usize> = (0..head).filter(|&r| has(&self.rels[r])).collect();
            let rel = if !recent.is_empty() && (body.items.is_empty() && self.rng.chance(85) || self.rng.chance(25)) {
                *self.rng.pick(&recent)
            } else {
                *self.rng.pick(&any)
            };
            self.literal(&mut body, rel, false);
        }
        while body.literals() < target {
            if self.rng.chance(18) && self.negation_as_failure(&mut body, head) {
                continue;
            }
            if !self.join_literal(&mut body, head) {
                break;
            }
        }
        for v in body.bound_of(INTEGER) {
            if self.rng.chance(55) {
                let (op, t) = (*self.rng.pick(&OPS), *self.rng.pick(&THRESHOLDS));
                body.items.push(Item::CmpInt(op, v, t));
            }
        }
        if self.rng.chance(15) {
            self.comparison(&mut body);
        }
        body
    }

    fn push_rule(&mut self, strength: &'static str, head: usize, negative: bool, body: Body, what: &str) -> usize {
        let name = &self.rels[head].name;
        let label = format!("{what} for {}{name}", if negative { "not " } else { "" });
        self.rules.push(Rule { strength, head, head_negative: negative, body, label });
        self.rules.len() - 1
    }

    /// The body of `model` and one more condition: a literal, a negation as failure or a
    /// comparison.
    fn variant(&mut self, model: &Body, head: usize) -> Body {
        let mut body = model.clone();
        let done = match self.rng.below(5) {
            0 => self.negation_as_failure(&mut body, head),
            1 => self.comparison(&mut body),
            _ => false,
        };
        if !done && !self.join_literal(&mut body, head) {
            self.negation_as_failure(&mut body, head);
        }
        body
    }

    fn rules_for(&mut self, head: usize, alternatives: usize) {
        match self.rels[head].role {
            Role::Empirical => {}
            Role::Plain => {
                for k in 0..=alternatives {
                    let strength = if self.rng.chance(45) { "strict" } else { "defeasible" };
                    let body = self.body(head, 4);
                    let what = if k == 0 { "rule".to_string() } else { format!("alternative {k}") };
                    self.push_rule(strength, head, false, body, &what);
                }
            }
            Role::Contested { defeater } => {
                let general = self.body(head, 3);
                let exception = self.variant(&general, head);
                let g = self.push_rule("defeasible", head, false, general.clone(), "general rule");
                let e = self.push_rule("defeasible", head, true, exception, "exception");
                self.priorities.push((e, g, "the exception prevails over the general rule"));
                if defeater {
                    let body = self.variant(&general, head);
                    let negative = self.rng.chance(60);
                    let d = self.push_rule("defeater", head, negative, body, "defeater");
                    if self.rng.chance(40) {
                        let over = if negative { g } else { e };
                        self.priorities.push((over, d, "the defeater does not apply against this rule"));
                    }
                }
            }
            Role::Transitive { link } => {
                let ty = self.rels[head].cols[0];
                let atom =
                    |rel, a, b| Item::Lit(Atom { rel, negative: false, args: vec![Arg::Var(a), Arg::Var(b)] }, false);
                let base = Body { vars: vec![ty; 2], bound: vec![true; 2], items: vec![atom(link, 0, 1)] };
                self.push_rule("strict", head, false, base, "base case");
                let step =
                    Body { vars: vec![ty; 3], bound: vec![true; 3], items: vec![atom(head, 0, 2), atom(link, 2, 1)] };
                self.push_rule("strict", head, false, step, "transitive step");
            }
        }
    }

    fn build(&mut self, n: usize) {
        let institutional = (n / 2).max(1);
        let transitive = if n < 10 { 0 } else { (n / 100).clamp(1, institutional) };
        let contested = (institutional / 6).min(institutional - transitive);
        // At least three beyond the registers and links, so that one has an Integer column.
        let empirical = (n / 4).max(TYPES.len() + transitive + 3);

        // Empirical relations: a register per type, the links, the rest at random.
        for ty in 0..TYPES.len() {
            self.add_rel("registered", vec![ty], Role::Empirical, 0);
        }
        let links: Vec<usize> = (0..transitive)
            .map(|k| {
                let ty = k % 4;
                self.add_rel(["controls", "refers", "supplies_to", "amends"][ty], vec![ty, ty], Role::Empirical, 0)
            })
            .collect();
        // Every fourth is one column closed over the register of its type, others may be closed
        // over an earlier relation of the same columns; every third has an Integer column.
        let mut k = 0;
        while self.rels.len() < empirical {
            let mut cols = vec![self.entity_type()];
            if k % 4 != 1 {
                for _ in 1..*self.rng.pick(&[1, 1, 2, 2, 2, 3]) {
                    cols.push(self.rng.below(TYPES.len()));
                }
                if k % 3 == 0 {
                    cols.push(INTEGER);
                }
            }
            let word = *self.rng.pick(&EMPIRICAL_WORDS);
            let rel = self.add_rel(word, cols, Role::Empirical, 0);
            let domains: Vec<usize> = (0..rel).filter(|&d| self.rels[d].cols == self.rels[rel].cols).collect();
            if !domains.is_empty() && (k % 4 == 1 || self.rng.chance(20)) {
                let domain = *self.rng.pick(&domains);
                self.closures.push((rel, domain));
            }
            k += 1;
        }

        // Institutional relations: roles spread over the order, transitive ones early enough to
        // be used above them.
        let mut roles = vec![Role::Plain; institutional];
        for (k, &link) in links.iter().enumerate() {
            roles[(k * institutional / transitive + institutional / (3 * transitive)).min(institutional - 1)] =
                Role::Transitive { link };
        }
        let mut placed = 0;
        while placed < contested {
            let at = self.rng.below(institutional);
            if roles[at] == Role::Plain {
                roles[at] = Role::Contested { defeater: placed % 3 == 0 };
                placed += 1;
            } else if roles.iter().all(|r| *r != Role::Plain) {
                break;
            }
        }
        let rules_of = |role: &Role| match role {
            Role::Empirical => 0,
            Role::Plain => 1,
            Role::Contested { defeater } => 2 + usize::from(*defeater),
            Role::Transitive { .. } => 2,
        };
        // Exactly n rules: drop defeaters, then contested roles, while over; alternatives of the
        // plain relations fill what is left.
        let mut total: usize = roles.iter().map(rules_of).sum();
        for role in roles.iter_mut().rev() {
            if total <= n {
                break;
            }
            if let Role::Contested { defeater: true } = role {
                *role = Role::Contested { defeater: false };
                total -= 1;
            }
        }
        for role in roles.iter_mut().rev() {
            if total <= n {
                break;
            }
            if let Role::Contested { .. } = role {
                *role = Role::Plain;
                total -= 1;
            }
        }
        let plain: Vec<usize> = (0..institutional).filter(|&k| roles[k] == Role::Plain).collect();
        let mut alternatives = vec![0; institutional];
        let mut spare = n.saturating_sub(total);
        while spare > 0 && !plain.is_empty() {
            let k = *self.rng.pick(&plain);
            if alternatives[k] < 3 || plain.iter().all(|&p| alternatives[p] >= 3) {
                alternatives[k] += 1;
                spare -= 1;
            }
        }
        let first = self.rels.len();
        for (k, role) in roles.iter().enumerate() {
            let cols = match role {
                Role::Transitive { link } => self.rels[*link].cols.clone(),
                Role::Contested { .. } => {
                    (0..1 + usize::from(self.rng.chance(40))).map(|_| self.entity_type()).collect()
                }
                _ => {
                    let arity = *self.rng.pick(&[1, 1, 1, 2, 2, 2, 3]);
                    let mut cols: Vec<usize> = (0..arity).map(|_| self.entity_type()).collect();
                    if self.rng.chance(10) {
                        cols.push(INTEGER);
                    }
                    cols
                }
            };
            let word = match role {
                Role::Transitive { .. } => "chain",
                _ => *self.rng.pick(&INSTITUTIONAL_WORDS),
            };
            self.add_rel(word, cols, *role, 1 + k / 3);
        }
        for (k, &extra) in alternatives.iter().enumerate() {
            self.rules_for(first + k, extra);
        }
        assert_eq!(self.rules.len(), n.max(total), "the rule budget");
    }

    fn arg(&self, body: &Body, a: Arg) -> String {
        match a {
            Arg::Var(v) => var_name(body, v),
            Arg::Const(c) => CONSTANTS[c].to_string(),
        }
    }

    fn atom(&self, body: &Body, a: &Atom) -> String {
        let args: Vec<String> = a.args.iter().map(|&x| self.arg(body, x)).collect();
        format!("{}{}({})", if a.negative { "~" } else { "" }, self.rels[a.rel].name, args.join(", "))
    }

    fn notation(&self, n: usize, seed: u64, version: &str) -> String {
        let mut out = String::new();
        let w = &mut out;
        writeln!(w, "package synthetic.n{n}.s{seed} {version}").unwrap();
        writeln!(w, "features negation-as-failure").unwrap();
        for (name, _) in TYPES {
            writeln!(w, "type {name} \"{}\"", name.to_lowercase()).unwrap();
        }
        for c in CONSTANTS {
            writeln!(w, "const {c}: Jurisdiction \"jurisdiction {c}\"").unwrap();
        }
        for r in &self.rels {
            let mut taken: Vec<String> = Vec::new();
            let params: Vec<String> = r
                .cols
                .iter()
                .map(|&t| {
                    let (base, ty) = if t == INTEGER {
                        ("amount".to_string(), "Integer")
                    } else {
                        (TYPES[t].0.to_lowercase(), TYPES[t].0)
                    };
                    let count = taken.iter().filter(|b| **b == base).count();
                    let name = if count == 0 { base.clone() } else { format!("{base}_{}", count + 1) };
                    taken.push(base);
                    format!("{name}: {ty}")
                })
                .collect();
            let kind = if r.role == Role::Empirical { "empirical" } else { "institutional" };
            let what = match r.role {
                Role::Empirical => "facts",
                Role::Transitive { .. } => "transitive",
                Role::Contested { .. } => "contested provision",
                Role::Plain => "provision",
            };
            writeln!(w, "{kind} {}({}) \"{what} {}\"", r.name, params.join(", "), r.name.replace('_', " ")).unwrap();
        }
        for (rel, domain) in &self.closures {
            let (rel, domain) = (&self.rels[*rel].name, &self.rels[*domain].name);
            writeln!(w, "closure closed_{rel}: {rel} over {domain} \"{rel} is complete for {domain}\"").unwrap();
        }
        let articles = self.rels.iter().map(|r| r.article).max().unwrap_or(0);
        for a in 1..=articles {
            let names: Vec<&str> = self.rels.iter().filter(|r| r.article == a).map(|r| r.name.as_str()).collect();
            writeln!(w, "fragment ART_{a} article/{a} \"Article {a}. Provisions on {}.\"", names.join(", ")).unwrap();
        }
        for (k, r) in self.rules.iter().enumerate() {
            let b = &r.body;
            let vars: Vec<String> =
                (0..b.vars.len()).map(|v| format!("{}: {}", var_name(b, v), type_name(b.vars[v]))).collect();
            let head_rel = &self.rels[r.head];
            let head =
                Atom { rel: r.head, negative: r.head_negative, args: (0..head_rel.cols.len()).map(Arg::Var).collect() };
            let items: Vec<String> = b
                .items
                .iter()
                .map(|item| match item {
                    Item::Lit(a, false) => self.atom(b, a),
                    Item::Lit(a, true) => format!("supported {}", self.atom(b, a)),
                    Item::Not(a) => format!("not {}", self.atom(b, a)),
                    Item::CmpInt(op, v, t) => format!("{} {op} {t}", var_name(b, *v)),
                    Item::CmpVar(op, v, u) => format!("{} {op} {}", var_name(b, *v), var_name(b, *u)),
                })
                .collect();
            writeln!(
                w,
                "rule R{k} {} \"{}\" @ART_{} [{}]: {} :- {}",
                r.strength,
                r.label,
                head_rel.article,
                vars.join(", "),
                self.atom(b, &head),
                items.join(", ")
            )
            .unwrap();
        }
        for (k, (higher, lower, label)) in self.priorities.iter().enumerate() {
            writeln!(w, "priority P{k}: R{higher} > R{lower} \"{label}\"").unwrap();
        }
        out
    }
}

fn var_name(body: &Body, v: usize) -> String {
    match body.vars[v] {
        INTEGER => format!("n{v}"),
        t => format!("{}{v}", TYPES[t].1),
    }
}

fn type_name(t: usize) -> &'static str {
    if t == INTEGER {
        "Integer"
    } else {
        TYPES[t].0
    }
}

/// The generator of `n` rules for `seed`, its package built (`n` at least 1).
fn built(n: usize, seed: u64) -> Gen {
    let mut g = Gen {
        rng: Rng(seed ^ 0x5EED_0000_0000_0000),
        rels: Vec::new(),
        rules: Vec::new(),
        closures: Vec::new(),
        priorities: Vec::new(),
    };
    g.build(n.max(1));
    g
}

/// The package of `n` rules for `seed`, in the kit's notation (`n` at least 1).
pub fn notation(n: usize, seed: u64) -> String {
    let g = built(n, seed);
    g.notation(n.max(1), seed, "0.1.0")
}

/// The package of `n` rules for `seed`: name `synthetic.n<n>.s<seed>`, version 0.1.0.
pub fn package(n: usize, seed: u64) -> Package {
    Package::parse(&notation(n, seed)).unwrap_or_else(|e| panic!("the generated notation parses: {e}"))
}

/// [`notation`] amended as a publisher amends a law: one rule changed as an amended article
/// would change it (the first comparison with an integer threshold, from the middle rule on,
/// has its threshold raised by one) and the package published as a new version, 0.1.1 (a
/// benchmark's one-rule amendment). `None` when no rule from the middle on compares.
#[allow(dead_code)] // the example's `--bump`; clir-random includes this file too
pub fn notation_bumped(n: usize, seed: u64) -> Option<String> {
    let mut g = built(n, seed);
    let mid = g.rules.len() / 2;
    let threshold = g.rules[mid..].iter_mut().flat_map(|r| r.body.items.iter_mut()).find_map(|item| match item {
        Item::CmpInt(_, _, t) => Some(t),
        _ => None,
    })?;
    *threshold += 1;
    Some(g.notation(n.max(1), seed, "0.1.1"))
}

/// [`notation`] amended by one added rule, published as 0.1.1: a copy of the middle rule under
/// the next id (`R<rules>`), concluding what it concludes from the same premises.
#[allow(dead_code)] // the example's `--add-rule`; clir-random includes this file too
pub fn notation_added(n: usize, seed: u64) -> Option<String> {
    let g = built(n, seed);
    let (mid, next) = (g.rules.len() / 2, g.rules.len());
    let text = g.notation(n.max(1), seed, "0.1.1");
    let prefix = format!("rule R{mid} ");
    let line = text.lines().find(|l| l.starts_with(&prefix))?;
    let added = format!("rule R{next} {}", &line[prefix.len()..]);
    Some(format!("{text}{added}\n"))
}

/// [`notation`] amended by one priority dropped (the middle one), published as 0.1.1. `None`
/// when the package has no priority.
#[allow(dead_code)] // the example's `--drop-priority`; clir-random includes this file too
pub fn notation_priority_dropped(n: usize, seed: u64) -> Option<String> {
    let g = built(n, seed);
    let mid = g.priorities.len().checked_sub(1)? / 2;
    let text = g.notation(n.max(1), seed, "0.1.1");
    let prefix = format!("priority P{mid}:");
    Some(text.lines().filter(|l| !l.starts_with(&prefix)).map(|l| format!("{l}\n")).collect())
}
