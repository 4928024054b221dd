//! A test-only reference evaluator for CLIR packages and a random package generator.
//!
//! [`evaluate`] follows SEMANTICS.md §4 literally, by naive grounding: every rule is matched
//! against the current sets of literals (`+D`, `+S`, `+d`) with nested loops until nothing
//! changes. It is the oracle the generated datafrog code is tested against, so it is written to
//! be obviously correct, not fast. [`random`] generates small valid packages and cases for
//! differential tests.
//!
//! The evaluator assumes a package that the compiler accepts (resolved names, matching types,
//! safe rules, a stratifiable dependency graph); on a package it cannot make sense of it panics.

use clir_codegen::ir::{self, BodyItem, CmpOp, NodeKind, RelationKind, Status, Strength, Term};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

pub mod random;

/// One value of a tuple: an Integer or an entity (constants are entities named by their name).
///
/// The derived order is the order of output tuples: integers before strings, integers
/// numerically, strings by bytes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Val {
    /// An `urn:law:std#Integer`.
    Int(i64),
    /// An entity, or a constant written by its name.
    Str(String),
}

impl Val {
    fn to_json(&self) -> Value {
        match self {
            Val::Int(i) => json!(i),
            Val::Str(s) => json!(s),
        }
    }

    /// The value inside a written literal (CONTRACT.md; an entity name that could be misread is
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
    /// The body contains `false`.
    never: bool,
    strength: Strength,
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
    fn new(doc: &ir::Document) -> Model {
        let mut rels = Vec::new();
        let mut type_names = BTreeMap::new();
        type_names.insert(ir::INTEGER_TYPE.to_string(), "Integer".to_string());
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
        let rel_index = |id: &str| -> usize {
            rels.iter().position(|r| r.id == id).unwrap_or_else(|| invalid(format!("unknown relation {id}")))
        };
        let term = |t: &Term| -> T {
            match t {
                Term::Var(v) => T::Var(v.clone()),
                Term::Int(i) => T::Val(Val::Int(*i)),
                Term::Const(id) => match constants.get(id) {
                    Some(name) => T::Val(Val::Str(name.clone())),
                    None => invalid(format!("unknown constant {id}")),
                },
                Term::Str(_) | Term::Arith(..) => {
                    invalid("the reference evaluator covers the core language only".to_string())
                }
            }
        };
        let lit = |l: &ir::Literal| -> RLit {
            RLit { rel: rel_index(&l.predicate), neg: l.negative, args: l.args.iter().map(term).collect() }
        };
        let mut rules = Vec::new();
        let mut rule_ids = Vec::new();
        for n in &doc.nodes {
            if let NodeKind::Rule(r) = &n.kind {
                let mut lits = Vec::new();
                let mut cmps = Vec::new();
                for item in &r.body {
                    match item {
                        BodyItem::Literal(status, l) => lits.push((*status, lit(l))),
                        BodyItem::Comparison(c) => cmps.push((c.op, term(&c.left), term(&c.right))),
                        BodyItem::Not(_) => {
                            invalid("the reference evaluator covers the core language only".to_string())
                        }
                    }
                }
                rule_ids.push(n.id.clone());
                rules.push(Rule {
                    id: n.id.clone(),
                    head: lit(&r.head),
                    lits,
                    cmps,
                    never: r.body_false,
                    strength: r.strength,
                });
            }
        }
        let rule_index = |id: &str| -> usize {
            rule_ids.iter().position(|r| r == id).unwrap_or_else(|| invalid(format!("unknown rule {id}")))
        };
        let mut superior = BTreeSet::new();
        let mut closures = Vec::new();
        for n in &doc.nodes {
            match &n.kind {
                NodeKind::Priority(p) => {
                    superior.insert((rule_index(&p.higher), rule_index(&p.lower)));
                }
                NodeKind::Closure(c) => closures.push((rel_index(&c.predicate), rel_index(&c.domain))),
                _ => {}
            }
        }
        Model { rels, type_names, rules, superior, closures }
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

    /// Reads the `facts` of a case (CONTRACT.md "Cases in"), or says why the case is rejected.
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
    /// bindings; comparisons are checked on the complete bindings.
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
            let holds = rule.cmps.iter().all(|(op, l, r)| op.holds(int_of(l, &b, rule), int_of(r, &b, rule)));
            if holds {
                let args = rule.head.args.iter().map(|t| value_of(t, &b, rule)).collect();
                heads.insert(Lit { rel: rule.head.rel, neg: rule.head.neg, args });
            }
        }
        heads
    }

    /// The strata: strongly connected components of the predicate dependency graph (rule body
    /// predicate -> head predicate, closure domain -> closed predicate), in topological order.
    fn strata(&self) -> Vec<Vec<usize>> {
        let n = self.rels.len();
        let mut edges = vec![BTreeSet::new(); n];
        for r in &self.rules {
            for (_, l) in &r.lits {
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
        // Kahn's algorithm on the condensation; ties by component index (deterministic).
        let mut done = vec![false; comps.len()];
        let mut order = Vec::new();
        while order.len() < comps.len() {
            let next = (0..comps.len())
                .find(|&c| {
                    !done[c]
                        && comps[c]
                            .iter()
                            .all(|&p| (0..n).all(|q| !(edges[q].contains(&p) && comp_of[q] != c && !done[comp_of[q]])))
                })
                .expect("the condensation of a graph is acyclic");
            done[next] = true;
            order.push(comps[next].clone());
        }
        order
    }

    /// Computes `+D`, `+S` and `+d` for the input facts (SEMANTICS §4), stratum by stratum.
    fn run(&self, facts: LitSet) -> Conclusions {
        let mut c = Conclusions::default();
        for l in facts.iter() {
            c.add_definite(l);
        }
        for stratum in self.strata() {
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

    /// The ruling object of CONTRACT.md "Rulings out".
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
    }
}

fn int_of(t: &T, b: &BTreeMap<String, Val>, rule: &Rule) -> i64 {
    match value_of(t, b, rule) {
        Val::Int(i) => i,
        Val::Str(s) => invalid(format!("rule {}: comparison over the entity {s:?}", rule.id)),
    }
}

/// Rules one case (a CONTRACT.md "Cases in" object) with `doc`, following SEMANTICS §4.
///
/// Returns the CONTRACT.md ruling `{"case","concluded","definite","contradictions"}`, or
/// `{"case","error"}` when the case is rejected (not an object, keys other than `case` and
/// `facts`, unknown relation, wrong arity or type, institutional input, or judgment input whose
/// external_decl `capability` is not among `grants`). `case` is echoed when it is a string,
/// `null` otherwise.
pub fn evaluate(doc: &ir::Document, case_line: &Value, grants: &[String]) -> Value {
    let model = Model::new(doc);
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

/// `+D`, `+S` and `+d` of every literal of one case (a CONTRACT.md "Cases in" object), as
/// [`evaluate`] computes them; `Err` with [`evaluate`]'s message when the case is rejected.
pub fn standing(doc: &ir::Document, case_line: &Value, grants: &[String]) -> Result<Standing, String> {
    let model = Model::new(doc);
    let facts = case_line.get("facts").ok_or("missing key `facts`")?;
    let c = model.run(model.read_facts(facts, grants)?);
    let layer = |set: &LitSet| -> Layer {
        set.0.iter().map(|(&(rel, neg), ts)| ((model.rels[rel].name.clone(), neg), ts.clone())).collect()
    };
    Ok(Standing { definite: layer(&c.definite), supported: layer(&c.supported), concluded: layer(&c.defeasible) })
}

pub mod explanations;

#[cfg(test)]
mod fide_tests;
