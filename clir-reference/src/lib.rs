//! A test-only reference evaluator for CLIR packages and a random package generator.
//!
//! [`evaluate`] follows SEMANTICS.md §4 literally, by naive grounding: every rule is matched
//! against the current sets of literals (`+D`, `+S`, `+d`) with nested loops until nothing
//! changes. It is the oracle the generated datafrog code is tested against, so it is written to
//! be obviously correct, not fast. [`random`] generates small valid packages and cases for
//! differential tests.
//!
//! It covers the core language (SEMANTICS.md) and the extensions of EXTENSIONS.md: negation as
//! failure, String values and Integer arithmetic. The evaluator assumes a package that the
//! compiler accepts (resolved names, matching types, safe rules, a stratifiable dependency
//! graph). [`Reference::new`] says why when it cannot resolve a package; [`evaluate`] and
//! [`standing`] panic with that message.

use clir_codegen::ir::{self, ArithOp, BodyItem, CmpOp, NodeKind, RelationKind, Status, Strength, Term};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

pub mod agree;
pub mod random;

/// One value of a tuple: an Integer, an entity (constants are entities named by their name) or a
/// String (EXTENSIONS.md §2).
///
/// The derived order is the order of output tuples: integers before strings, integers
/// numerically, strings by bytes. A String and an entity share [`Val::Str`]: a column has one
/// type, so the two never meet, and both are written alike (docs/DECISIONS.md 62).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Val {
    /// An `urn:law:std#Integer`.
    Int(i64),
    /// An entity, a constant written by its name, or an `urn:law:std#String`.
    Str(String),
}

impl Val {
    fn to_json(&self) -> Value {
        match self {
            Val::Int(i) => json!(i),
            Val::Str(s) => json!(s),
        }
    }

    /// The value inside a written literal (docs/FORMAT.md "Common pieces"; an entity name that could be misread is
    /// a JSON string: docs/DECISIONS.md 14).
    pub(crate) fn to_text(&self) -> String {
        match self {
            Val::Int(i) => i.to_string(),
            Val::Str(s)
                if s.is_empty()
                    || s.chars()
                        .any(|c| matches!(c, ',' | '(' | ')' | '"' | '\\') || c.is_whitespace() || c.is_control()) =>
            {
                Value::String(s.clone()).to_string()
            }
            Val::Str(s) => s.clone(),
        }
    }
}

/// A ground tuple.
type Tuple = Vec<Val>;

/// A ground literal: relation index, strong negation, arguments.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Lit {
    rel: usize,
    neg: bool,
    args: Tuple,
}

impl Lit {
    fn complement(&self) -> Lit {
        Lit { rel: self.rel, neg: !self.neg, args: self.args.clone() }
    }
}

/// A set of ground literals, grouped by relation and sign.
#[derive(Debug, Clone, Default)]
struct LitSet(BTreeMap<(usize, bool), BTreeSet<Tuple>>);

impl LitSet {
    fn contains(&self, l: &Lit) -> bool {
        self.0.get(&(l.rel, l.neg)).is_some_and(|s| s.contains(&l.args))
    }

    /// Adds `l`; true when it was new.
    fn insert(&mut self, l: Lit) -> bool {
        self.0.entry((l.rel, l.neg)).or_default().insert(l.args)
    }

    fn tuples(&self, rel: usize, neg: bool) -> impl Iterator<Item = &Tuple> {
        self.0.get(&(rel, neg)).into_iter().flatten()
    }

    fn iter(&self) -> impl Iterator<Item = Lit> + '_ {
        self.0.iter().flat_map(|(&(rel, neg), ts)| ts.iter().map(move |t| Lit { rel, neg, args: t.clone() }))
    }
}

/// A declared relation.
#[derive(Debug, Clone)]
struct Rel {
    id: String,
    name: String,
    kind: RelationKind,
    /// Parameter names and type ids.
    params: Vec<(String, String)>,
    /// The capability of its `external_decl`, for judgment relations.
    capability: Option<String>,
}

/// A term of a rule, with constants resolved to their names.
#[derive(Debug, Clone)]
enum T {
    Var(String),
    Val(Val),
    /// Integer arithmetic (EXTENSIONS.md §3), evaluated once the rule's literals bind its
    /// variables.
    Arith(ArithOp, Box<T>, Box<T>),
}

/// A rule literal.
#[derive(Debug, Clone)]
struct RLit {
    rel: usize,
    neg: bool,
    args: Vec<T>,
}

/// A rule, with predicates resolved to relation indexes.
#[derive(Debug, Clone)]
struct Rule {
    id: String,
    head: RLit,
    /// Body literals with what they ask of their literal.
    lits: Vec<(Status, RLit)>,
    /// Comparisons, checked once all literals are matched (rules are safe).
    cmps: Vec<(CmpOp, T, T)>,
    /// Negations as failure (`not L`, EXTENSIONS.md §1), checked once all literals are matched.
    nots: Vec<RLit>,
    /// The body contains `false`.
    never: bool,
    strength: Strength,
}

impl Rule {
    /// What evaluation assumes of a rule the compiler accepts: arithmetic only in the head and
    /// comparisons, and every variable of the head and of a comparison bound by a body literal
    /// (SEMANTICS §3; EXTENSIONS.md §1, §3).
    fn check_safe(&self) -> Result<(), String> {
        fn vars<'t>(t: &'t T, out: &mut BTreeSet<&'t str>) {
            match t {
                T::Var(v) => {
                    out.insert(v);
                }
                T::Val(_) => {}
                T::Arith(_, l, r) => {
                    vars(l, out);
                    vars(r, out);
                }
            }
        }
        let in_literals = self.lits.iter().map(|(_, l)| l).chain(&self.nots);
        if in_literals.flat_map(|l| &l.args).any(|t| matches!(t, T::Arith(..))) {
            return Err("arithmetic inside a body literal (only heads and comparisons may hold it)".to_string());
        }
        let mut bound = BTreeSet::new();
        self.lits.iter().flat_map(|(_, l)| &l.args).for_each(|t| vars(t, &mut bound));
        let mut used = BTreeSet::new();
        self.head.args.iter().chain(self.cmps.iter().flat_map(|(_, l, r)| [l, r])).for_each(|t| vars(t, &mut used));
        match used.difference(&bound).next() {
            Some(v) if !self.never => Err(format!("variable {v} is not bound by a body literal")),
            _ => Ok(()),
        }
    }
}

/// The package, resolved for evaluation.
#[derive(Debug, Clone)]
struct Model {
    rels: Vec<Rel>,
    /// Type id -> short name (for messages).
    type_names: BTreeMap<String, String>,
    rules: Vec<Rule>,
    /// (higher, lower) rule indexes of the priority rules: `higher > lower`.
    superior: BTreeSet<(usize, usize)>,
    /// (predicate, domain) relation indexes of the closure policies.
    closures: Vec<(usize, usize)>,
    /// The strata, in evaluation order ([`Model::strata`]).
    strata: Vec<Vec<usize>>,
}

/// How a body literal is matched.
#[derive(Debug, Clone, Copy)]
enum Mode {
    /// Every body literal must be `+D` (strict rules, definite provability).
    Definite,
    /// `established` literals must be `+d`, `supported` ones `+S` (applicability).
    Applicable,
}

/// The three sets of SEMANTICS §4.
#[derive(Debug, Clone, Default)]
struct Conclusions {
    /// `+D`.
    definite: LitSet,
    /// `+S`.
    supported: LitSet,
    /// `+d`.
    defeasible: LitSet,
}

impl Conclusions {
    /// Adds a `+D` literal (which is also `+S` and `+d`); true when it was new.
    fn add_definite(&mut self, l: Lit) -> bool {
        self.supported.insert(l.clone());
        self.defeasible.insert(l.clone());
        self.definite.insert(l)
    }
}

fn invalid(msg: String) -> ! {
    panic!("clir-reference: the package is not valid for evaluation: {msg}")
}

impl Model {
    fn new(doc: &ir::Document) -> Result<Model, String> {
        let mut rels = Vec::new();
        let mut type_names = BTreeMap::new();
        type_names.insert(ir::INTEGER_TYPE.to_string(), "Integer".to_string());
        type_names.insert(ir::STRING_TYPE.to_string(), "String".to_string());
        let mut constants = BTreeMap::new();
        let mut capabilities = BTreeMap::new();
        for n in &doc.nodes {
            match &n.kind {
                NodeKind::TypeDecl(t) => {
                    type_names.insert(n.id.clone(), t.name.clone());
                }
                NodeKind::Constant(c) => {
                    constants.insert(n.id.clone(), c.name.clone());
                }
                NodeKind::Relation(r) => rels.push(Rel {
                    id: n.id.clone(),
                    name: r.name.clone(),
                    kind: r.relation_kind,
                    params: r.parameters.iter().map(|p| (p.name.clone(), p.ty.clone())).collect(),
                    capability: None,
                }),
                NodeKind::External(e) => {
                    capabilities.insert(e.symbol.clone(), e.capability.clone());
                }
                _ => {}
            }
        }
        for r in &mut rels {
            r.capability = capabilities.get(&r.id).cloned();
        }
        let rel_index = |id: &str| -> Result<usize, String> {
            rels.iter().position(|r| r.id == id).ok_or_else(|| format!("unknown relation {id}"))
        };
        fn term(t: &Term, constants: &BTreeMap<String, String>) -> Result<T, String> {
            Ok(match t {
                Term::Var(v) => T::Var(v.clone()),
                Term::Int(i) => T::Val(Val::Int(*i)),
                Term::Str(s) => T::Val(Val::Str(s.clone())),
                Term::Const(id) => match constants.get(id) {
                    Some(name) => T::Val(Val::Str(name.clone())),
                    None => return Err(format!("unknown constant {id}")),
                },
                Term::Arith(op, l, r) => T::Arith(*op, Box::new(term(l, constants)?), Box::new(term(r, constants)?)),
            })
        }
        let lit = |l: &ir::Literal| -> Result<RLit, String> {
            Ok(RLit {
                rel: rel_index(&l.predicate)?,
                neg: l.negative,
                args: l.args.iter().map(|t| term(t, &constants)).collect::<Result<_, _>>()?,
            })
        };
        let mut rules = Vec::new();
        let mut rule_ids = Vec::new();
        for n in &doc.nodes {
            if let NodeKind::Rule(r) = &n.kind {
                let in_rule = |e: String| format!("rule {}: {e}", n.id);
                let (mut lits, mut cmps, mut nots) = (Vec::new(), Vec::new(), Vec::new());
                for item in &r.body {
                    match item {
                        BodyItem::Literal(status, l) => lits.push((*status, lit(l).map_err(in_rule)?)),
                        BodyItem::Comparison(c) => cmps.push((
                            c.op,
                            term(&c.left, &constants).map_err(in_rule)?,
                            term(&c.right, &constants).map_err(in_rule)?,
                        )),
                        BodyItem::Not(l) => nots.push(lit(l).map_err(in_rule)?),
                    }
                }
                let rule = Rule {
                    id: n.id.clone(),
                    head: lit(&r.head).map_err(in_rule)?,
                    lits,
                    cmps,
                    nots,
                    never: r.body_false,
                    strength: r.strength,
                };
                rule.check_safe().map_err(in_rule)?;
                rule_ids.push(n.id.clone());
                rules.push(rule);
            }
        }
        let rule_index = |id: &str| -> Result<usize, String> {
            rule_ids.iter().position(|r| r == id).ok_or_else(|| format!("unknown rule {id}"))
        };
        let mut superior = BTreeSet::new();
        let mut closures = Vec::new();
        for n in &doc.nodes {
            match &n.kind {
                NodeKind::Priority(p) => {
                    superior.insert((rule_index(&p.higher)?, rule_index(&p.lower)?));
                }
                NodeKind::Closure(c) => closures.push((rel_index(&c.predicate)?, rel_index(&c.domain)?)),
                _ => {}
            }
        }
        let mut model = Model { rels, type_names, rules, superior, closures, strata: Vec::new() };
        model.strata = model.strata()?;
        Ok(model)
    }

    fn type_name<'a>(&'a self, ty: &'a str) -> &'a str {
        self.type_names.get(ty).map(String::as_str).unwrap_or(ty)
    }

    fn signature(&self, rel: &Rel) -> String {
        rel.params.iter().map(|(n, t)| format!("{n}: {}", self.type_name(t))).collect::<Vec<_>>().join(", ")
    }

    fn literal_text(&self, l: &Lit) -> String {
        let args: Vec<String> = l.args.iter().map(Val::to_text).collect();
        format!("{}{}({})", if l.neg { "~" } else { "" }, self.rels[l.rel].name, args.join(","))
    }

    /// Reads the `facts` of a case (docs/FORMAT.md "Case lines"), or says why the case is rejected.
    fn read_facts(&self, facts: &Value, grants: &[String]) -> Result<LitSet, String> {
        let facts = facts.as_object().ok_or("`facts` must be an object")?;
        let mut out = LitSet::default();
        for (key, tuples) in facts {
            let (neg, name) = match key.strip_prefix('~') {
                Some(rest) => (true, rest),
                None => (false, key.as_str()),
            };
            let rel_idx =
                self.rels.iter().position(|r| r.name == name).ok_or_else(|| format!("unknown relation `{name}`"))?;
            let rel = &self.rels[rel_idx];
            match rel.kind {
                RelationKind::Empirical => {}
                RelationKind::Institutional => {
                    return Err(format!(
                        "relation `{name}` is institutional (derived by rules only) and cannot be given as input"
                    ))
                }
                RelationKind::Judgment => match &rel.capability {
                    Some(cap) if grants.iter().any(|g| g == cap) => {}
                    Some(cap) => {
                        return Err(format!(
                            "relation `{name}` is a judgment: it is accepted only under the capability `{cap}` (--grant {cap})"
                        ))
                    }
                    None => {
                        return Err(format!(
                            "relation `{name}` is a judgment without an external_decl: no grant admits it"
                        ))
                    }
                },
            }
            let tuples = tuples.as_array().ok_or_else(|| format!("`{key}` must be an array of tuples"))?;
            for tuple in tuples {
                let items =
                    tuple.as_array().ok_or_else(|| format!("a tuple of `{key}` must be an array, found {tuple}"))?;
                if items.len() != rel.params.len() {
                    return Err(format!(
                        "relation `{name}` takes {} arguments ({}), got {}",
                        rel.params.len(),
                        self.signature(rel),
                        items.len()
                    ));
                }
                let mut args = Vec::new();
                for (v, (pname, ty)) in items.iter().zip(&rel.params) {
                    let val = if ty == ir::INTEGER_TYPE {
                        v.as_i64().map(Val::Int)
                    } else {
                        v.as_str().map(|s| Val::Str(s.to_string()))
                    };
                    match val {
                        Some(val) => args.push(val),
                        None => {
                            return Err(format!(
                                "relation `{name}`: argument `{pname}` must be {}, got {v}",
                                if ty == ir::INTEGER_TYPE {
                                    "an Integer (a JSON integer)".to_string()
                                } else {
                                    format!("a {} (a JSON string)", self.type_name(ty))
                                }
                            ))
                        }
                    }
                }
                out.insert(Lit { rel: rel_idx, neg, args });
            }
        }
        Ok(out)
    }

    /// The heads of every ground instance of `rule` whose body holds in `c` under `mode`.
    ///
    /// Body literals are matched in order against the stored literals, extending the variable
    /// bindings; comparisons and negations are checked on the complete bindings. `not L` holds
    /// when no `+d` literal matches `L` under the binding (a variable only `L` has matches any
    /// value), whatever the mode: `L` lies in a lower stratum, so its `+d` is final.
    fn instances(&self, rule: &Rule, mode: Mode, c: &Conclusions) -> BTreeSet<Lit> {
        let mut heads = BTreeSet::new();
        if rule.never {
            return heads;
        }
        let mut bindings: Vec<BTreeMap<String, Val>> = vec![BTreeMap::new()];
        for (status, lit) in &rule.lits {
            let source = match (mode, status) {
                (Mode::Definite, _) => &c.definite,
                (Mode::Applicable, Status::Established) => &c.defeasible,
                (Mode::Applicable, Status::Supported) => &c.supported,
            };
            let mut next = Vec::new();
            for b in &bindings {
                for tuple in source.tuples(lit.rel, lit.neg) {
                    if let Some(b2) = unify(&lit.args, tuple, b) {
                        next.push(b2);
                    }
                }
            }
            bindings = next;
        }
        for b in bindings {
            let holds = rule.cmps.iter().all(|(op, l, r)| op.holds(int_of(l, &b, rule), int_of(r, &b, rule)))
                && rule
                    .nots
                    .iter()
                    .all(|l| !c.defeasible.tuples(l.rel, l.neg).any(|t| unify(&l.args, t, &b).is_some()));
            if holds {
                let args = rule.head.args.iter().map(|t| value_of(t, &b, rule)).collect();
                heads.insert(Lit { rel: rule.head.rel, neg: rule.head.neg, args });
            }
        }
        heads
    }

    /// The strata: strongly connected components of the predicate dependency graph (rule body
    /// predicate, negated ones included -> head predicate; closure domain -> closed predicate),
    /// in topological order. A negation inside its head's component (a cycle through negation,
    /// which the compiler rejects) is an error.
    fn strata(&self) -> Result<Vec<Vec<usize>>, String> {
        let n = self.rels.len();
        let mut edges = vec![BTreeSet::new(); n];
        for r in &self.rules {
            for l in r.lits.iter().map(|(_, l)| l).chain(&r.nots) {
                edges[l.rel].insert(r.head.rel);
            }
        }
        for &(p, dom) in &self.closures {
            edges[dom].insert(p);
        }
        // reach[i][j]: j is reachable from i (reflexively).
        let mut reach = vec![vec![false; n]; n];
        for (i, row) in reach.iter_mut().enumerate() {
            let mut stack = vec![i];
            while let Some(x) = stack.pop() {
                if !row[x] {
                    row[x] = true;
                    stack.extend(edges[x].iter().copied());
                }
            }
        }
        let mut comp_of = vec![usize::MAX; n];
        let mut comps: Vec<Vec<usize>> = Vec::new();
        for i in 0..n {
            if comp_of[i] == usize::MAX {
                let members: Vec<usize> = (0..n).filter(|&j| reach[i][j] && reach[j][i]).collect();
                for &j in &members {
                    comp_of[j] = comps.len();
                }
                comps.push(members);
            }
        }
        for r in &self.rules {
            if let Some(l) = r.nots.iter().find(|l| comp_of[l.rel] == comp_of[r.head.rel]) {
                return Err(format!(
                    "rule {}: `not {}` depends on its own head `{}` (a cycle through negation)",
                    r.id, self.rels[l.rel].name, self.rels[r.head.rel].name
                ));
            }
        }
        // Kahn's algorithm on the condensation; ties by component index (deterministic).
        let mut after = vec![BTreeSet::new(); comps.len()];
        for (p, targets) in edges.iter().enumerate() {
            for &q in targets {
                if comp_of[p] != comp_of[q] {
                    after[comp_of[p]].insert(comp_of[q]);
                }
            }
        }
        let mut waiting = vec![0usize; comps.len()];
        for &d in after.iter().flatten() {
            waiting[d] += 1;
        }
        let mut ready: BTreeSet<usize> = (0..comps.len()).filter(|&c| waiting[c] == 0).collect();
        let mut order = Vec::new();
        while let Some(c) = ready.pop_first() {
            for &d in &after[c] {
                waiting[d] -= 1;
                if waiting[d] == 0 {
                    ready.insert(d);
                }
            }
            order.push(std::mem::take(&mut comps[c]));
        }
        Ok(order)
    }

    /// Computes `+D`, `+S` and `+d` for the input facts (SEMANTICS §4), stratum by stratum.
    fn run(&self, facts: LitSet) -> Conclusions {
        let mut c = Conclusions::default();
        for l in facts.iter() {
            c.add_definite(l);
        }
        for stratum in &self.strata {
            let in_stratum = |rel: usize| stratum.contains(&rel);
            let rules: Vec<usize> = (0..self.rules.len()).filter(|&i| in_stratum(self.rules[i].head.rel)).collect();

            // 1. +D: least fixpoint of the strict rules.
            loop {
                let mut changed = false;
                for &i in &rules {
                    let rule = &self.rules[i];
                    if rule.strength == Strength::Strict {
                        for head in self.instances(rule, Mode::Definite, &c) {
                            changed |= c.add_definite(head);
                        }
                    }
                }
                if !changed {
                    break;
                }
            }

            // 2. +S and +d: one joint least fixpoint.
            loop {
                // The applicable ground instances of every rule of the stratum, by rule index.
                let applicable: BTreeMap<usize, BTreeSet<Lit>> =
                    rules.iter().map(|&i| (i, self.instances(&self.rules[i], Mode::Applicable, &c))).collect();
                let mut changed = false;
                for (&i, heads) in &applicable {
                    if self.rules[i].strength == Strength::Defeater {
                        continue; // a defeater never supports or concludes: it only attacks
                    }
                    for q in heads {
                        changed |= c.supported.insert(q.clone());
                        if !c.defeasible.contains(q) && self.defeasibly_concluded(q, &c, &applicable) {
                            changed |= c.defeasible.insert(q.clone());
                        }
                    }
                }
                if !changed {
                    break;
                }
            }

            // 3. Closure negatives for the predicates of the stratum.
            for &(p, dom) in &self.closures {
                if in_stratum(p) {
                    let domain: Vec<Tuple> = c.defeasible.tuples(dom, false).cloned().collect();
                    for args in domain {
                        let q = Lit { rel: p, neg: false, args };
                        if !c.supported.contains(&q) {
                            c.add_definite(q.complement());
                        }
                    }
                }
            }
        }
        c
    }

    /// Conditions 2 and 3 of `+d q` (condition 1, an applicable strict or defeasible rule for
    /// `q`, holds for the caller's `q`), with team defeat under the priority rules.
    fn defeasibly_concluded(&self, q: &Lit, c: &Conclusions, applicable: &BTreeMap<usize, BTreeSet<Lit>>) -> bool {
        let not_q = q.complement();
        // 2. ~q is not +D.
        if c.definite.contains(&not_q) {
            return false;
        }
        let applies_to = |rule: usize, l: &Lit| applicable.get(&rule).is_some_and(|h| h.contains(l));
        // 3. every applicable rule s for ~q is beaten by an applicable strict or defeasible
        //    rule t for q with t > s.
        (0..self.rules.len()).filter(|&s| applies_to(s, &not_q)).all(|s| {
            self.superior
                .iter()
                .any(|&(t, lower)| lower == s && self.rules[t].strength != Strength::Defeater && applies_to(t, q))
        })
    }

    /// The ruling object of docs/FORMAT.md "Ruling lines".
    fn ruling(&self, case: Value, c: &Conclusions) -> Value {
        let contradictions: BTreeSet<String> = c
            .definite
            .iter()
            .filter(|l| !l.neg && c.definite.contains(&l.complement()))
            .map(|l| self.literal_text(&l))
            .collect();
        json!({
            "case": case,
            "concluded": self.institutional(&c.defeasible),
            "definite": self.institutional(&c.definite),
            "contradictions": contradictions.into_iter().collect::<Vec<_>>(),
        })
    }

    /// Institutional literals of `set`, by relation name (`~name` for negatives), tuples sorted,
    /// empty relations left out.
    fn institutional(&self, set: &LitSet) -> Value {
        let mut out = Map::new();
        for (&(rel, neg), tuples) in &set.0 {
            let r = &self.rels[rel];
            if r.kind == RelationKind::Institutional && !tuples.is_empty() {
                let key = format!("{}{}", if neg { "~" } else { "" }, r.name);
                let rows: Vec<Value> =
                    tuples.iter().map(|t| Value::Array(t.iter().map(Val::to_json).collect())).collect();
                out.insert(key, Value::Array(rows));
            }
        }
        Value::Object(out)
    }
}

/// Matches rule arguments against a stored tuple, extending `binding`; `None` if they clash.
fn unify(args: &[T], tuple: &[Val], binding: &BTreeMap<String, Val>) -> Option<BTreeMap<String, Val>> {
    if args.len() != tuple.len() {
        invalid(format!("a literal with {} arguments matched against a tuple of {}", args.len(), tuple.len()));
    }
    let mut b = binding.clone();
    for (t, v) in args.iter().zip(tuple) {
        match t {
            T::Val(c) if c != v => return None,
            T::Val(_) => {}
            T::Var(name) => match b.get(name) {
                Some(bound) if bound != v => return None,
                Some(_) => {}
                None => {
                    b.insert(name.clone(), v.clone());
                }
            },
            T::Arith(..) => invalid("arithmetic inside a body literal".to_string()),
        }
    }
    Some(b)
}

fn value_of(t: &T, b: &BTreeMap<String, Val>, rule: &Rule) -> Val {
    match t {
        T::Val(v) => v.clone(),
        T::Var(name) => b
            .get(name)
            .cloned()
            .unwrap_or_else(|| invalid(format!("rule {}: variable {name} is not bound by a body literal", rule.id))),
        // Written here rather than taken from clir-codegen, so that the oracle shares no
        // evaluation with the compiler: 64-bit two's complement, wrapping (EXTENSIONS.md §3).
        T::Arith(op, l, r) => {
            let (x, y) = (int_of(l, b, rule), int_of(r, b, rule));
            Val::Int(match op {
                ArithOp::Add => x.wrapping_add(y),
                ArithOp::Sub => x.wrapping_sub(y),
                ArithOp::Mul => x.wrapping_mul(y),
            })
        }
    }
}

fn int_of(t: &T, b: &BTreeMap<String, Val>, rule: &Rule) -> i64 {
    match value_of(t, b, rule) {
        Val::Int(i) => i,
        Val::Str(s) => invalid(format!("rule {}: Integer arithmetic or comparison over {s:?}", rule.id)),
    }
}

/// A package resolved for evaluation once, to rule many cases.
#[derive(Debug, Clone)]
pub struct Reference(Model);

impl Reference {
    /// Resolves `doc`, or says why it cannot be evaluated (an unknown id, an unsafe rule,
    /// arithmetic inside a body literal, a cycle through negation).
    pub fn new(doc: &ir::Document) -> Result<Reference, String> {
        Model::new(doc).map(Reference)
    }

    /// Rules one case (a docs/FORMAT.md "Case lines" object), following SEMANTICS §4.
    ///
    /// Returns the docs/FORMAT.md ruling `{"case","concluded","definite","contradictions"}`, or
    /// `{"case","error"}` when the case is rejected (not an object, keys other than `case` and
    /// `facts`, unknown relation, wrong arity or type, institutional input, or judgment input
    /// whose external_decl `capability` is not among `grants`). `case` is echoed when it is a
    /// string, `null` otherwise.
    pub fn rule(&self, case_line: &Value, grants: &[String]) -> Value {
        let model = &self.0;
        let error = |case: Value, msg: String| json!({"case": case, "error": msg});
        let Some(obj) = case_line.as_object() else {
            return error(Value::Null, format!("a case must be a JSON object, found {case_line}"));
        };
        let case = match obj.get("case") {
            Some(Value::String(s)) => Value::String(s.clone()),
            Some(other) => return error(Value::Null, format!("`case` must be a string, found {other}")),
            None => return error(Value::Null, "missing key `case`".to_string()),
        };
        if let Some(k) = obj.keys().find(|k| *k != "case" && *k != "facts") {
            return error(case, format!("unknown key `{k}` (a case has only `case` and `facts`)"));
        }
        let Some(facts) = obj.get("facts") else {
            return error(case, "missing key `facts`".to_string());
        };
        match model.read_facts(facts, grants) {
            Ok(facts) => {
                let c = model.run(facts);
                model.ruling(case, &c)
            }
            Err(msg) => error(case, msg),
        }
    }

    /// `+D`, `+S` and `+d` of every literal of one case, as [`Reference::rule`] computes them;
    /// `Err` with its message when the case is rejected.
    pub fn standing(&self, case_line: &Value, grants: &[String]) -> Result<Standing, String> {
        let model = &self.0;
        let facts = case_line.get("facts").ok_or("missing key `facts`")?;
        let c = model.run(model.read_facts(facts, grants)?);
        let layer = |set: &LitSet| -> Layer {
            set.0.iter().map(|(&(rel, neg), ts)| ((model.rels[rel].name.clone(), neg), ts.clone())).collect()
        };
        Ok(Standing { definite: layer(&c.definite), supported: layer(&c.supported), concluded: layer(&c.defeasible) })
    }
}

/// [`Reference::new`], panicking with its message on a package it cannot evaluate.
fn resolved(doc: &ir::Document) -> Reference {
    Reference::new(doc).unwrap_or_else(|e| invalid(e))
}

/// Rules one case with `doc`: [`Reference::rule`]. Panics when the package cannot be
/// evaluated ([`Reference::new`] says why).
pub fn evaluate(doc: &ir::Document, case_line: &Value, grants: &[String]) -> Value {
    resolved(doc).rule(case_line, grants)
}

/// The literals of one layer of a case, every relation's (not only the institutional ones):
/// per relation name and strong negation, its tuples.
pub type Layer = BTreeMap<(String, bool), BTreeSet<Vec<Val>>>;

/// What one case concludes per SEMANTICS §4, for every relation: the oracle the explanation
/// checker ([`explanations`]) rebuilds derivations against.
#[derive(Debug, Clone, Default)]
pub struct Standing {
    /// `+D`, input facts and closure negatives included.
    pub definite: Layer,
    /// `+S`.
    pub supported: Layer,
    /// `+d`.
    pub concluded: Layer,
}

/// `+D`, `+S` and `+d` of every literal of one case with `doc`: [`Reference::standing`]. Panics
/// when the package cannot be evaluated.
pub fn standing(doc: &ir::Document, case_line: &Value, grants: &[String]) -> Result<Standing, String> {
    resolved(doc).standing(case_line, grants)
}

pub mod explanations;

#[cfg(test)]
mod fide_tests;

#[cfg(test)]
mod extension_tests;
