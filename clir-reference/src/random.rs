//! Random valid packages and cases, for differential tests of the compiler against
//! [`evaluate`](crate::evaluate).
//!
//! A package is built in layers: layer 0 holds the input relations (empirical, at most one
//! judgment relation guarded by [`GRANT`], and the domains of closure policies); layer `k >= 1`
//! holds institutional predicates. A rule for a *contested* predicate (rules for both signs, or a
//! defeater) only uses predicates of strictly lower layers; a rule for an uncontested predicate
//! may also use the predicates of its own layer (recursion), except the strong negation of a
//! closed predicate, which is only used strictly above it. Closure domains lie in strictly lower
//! layers than the closed predicate and have its column types. Priorities only order the rules
//! of one contested predicate, along a random rank, so superiority is acyclic. Head and
//! comparison variables always occur in a body literal.
//!
//! Everything is deterministic in the seed (a splitmix64 generator, no external crate).

// The tests (random/tests.rs) check the document's bytes and hashes with these.
#[cfg(test)]
use clir_codegen::canonical::{canonical_bytes, node_content_hash};
use clir_codegen::ir::{self, BodyItem, NodeKind, RelationKind, Term};
use clir_testkit as kit;
use clir_testkit::rng::Rng;
use serde_json::{json, Map, Value};

/// The capability of the judgment relation of generated packages: pass it as a grant to rule
/// cases from [`facts`] that hold judgment facts.
pub const GRANT: &str = "judgment:RandomArbiter";

const INT: &str = ir::INTEGER_TYPE;

/// Sizes of generated packages (upper bounds; each package draws its own sizes below them).
#[derive(Debug, Clone)]
pub struct Config {
    /// Entity types besides Integer (0..=this, at most 3 are named in facts' universes).
    pub max_entity_types: usize,
    /// Input relations drawn at random (coverage and closure domains may add a few).
    pub max_inputs: usize,
    /// Layers of institutional predicates above the inputs (1..=this).
    pub max_layers: usize,
    /// Institutional predicates per layer (1..=this).
    pub max_preds_per_layer: usize,
    /// Rules per sign of a predicate (1..=this).
    pub max_rules_per_pred: usize,
    /// Body literals of a random rule (1..=this, plus one when a head type needs binding).
    pub max_body_literals: usize,
    /// Arity of relations (1..=this).
    pub max_arity: usize,
    /// Name everything from an adversarial alphabet (keywords, the runtime's and the typed
    /// API's names, `not_`/`_definite`/`_input` affixes, case and punctuation variants, CR, bidi
    /// controls, `*/`, comment markers), distinct within each kind.
    pub adversarial: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_entity_types: 3,
            max_inputs: 5,
            max_layers: 3,
            max_preds_per_layer: 3,
            max_rules_per_pred: 2,
            max_body_literals: 3,
            max_arity: 3,
            adversarial: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Empirical,
    Judgment,
    Institutional,
}

#[derive(Debug, Clone)]
struct GRel {
    name: String,
    /// Column type ids.
    params: Vec<String>,
    kind: Kind,
    layer: usize,
    /// Rules for both signs, or a defeater.
    contested: bool,
    /// Closed by a closure policy.
    closed: bool,
    /// Uncontested and derived by rules with negative heads.
    negative: bool,
}

#[derive(Debug, Clone)]
enum GTerm {
    Var(usize),
    /// A constant, by index, written as `const_ref` or (when the flag is set) `entity_ref`.
    Const(usize, bool),
    Int(i64),
}

#[derive(Debug, Clone)]
struct GLit {
    rel: usize,
    neg: bool,
    args: Vec<GTerm>,
}

#[derive(Debug, Clone)]
enum GItem {
    /// A body literal: `Some(status)` wraps it in a `status` formula, `None` writes it bare.
    Lit(Option<&'static str>, GLit),
    Cmp(&'static str, GTerm, GTerm),
}

#[derive(Debug, Clone)]
struct GRule {
    head: GLit,
    body: Vec<GItem>,
    /// Variable types, by variable index.
    vars: Vec<String>,
    strength: &'static str,
}

struct Gen<'a> {
    rng: Rng,
    cfg: &'a Config,
    ns: String,
    /// Entity type ids.
    types: Vec<String>,
    /// Constants: name and type id.
    consts: Vec<(String, String)>,
    /// Integer literals used by rules.
    ints: Vec<i64>,
    rels: Vec<GRel>,
    rules: Vec<GRule>,
    /// (higher, lower) rule indexes.
    prios: Vec<(usize, usize)>,
    /// (predicate, domain) relation indexes.
    closures: Vec<(usize, usize)>,
}

const OPS: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];

impl Gen<'_> {
    fn id(&self, local: &str) -> String {
        format!("{}#{}", self.ns, local)
    }

    fn random_type(&mut self) -> String {
        if self.types.is_empty() || self.rng.chance(25) {
            INT.to_string()
        } else {
            self.rng.pick(&self.types).clone()
        }
    }

    fn random_params(&mut self) -> Vec<String> {
        let arity = self.rng.range(1, self.cfg.max_arity.max(1));
        (0..arity).map(|_| self.random_type()).collect()
    }

    fn add_rel(&mut self, name: String, params: Vec<String>, kind: Kind, layer: usize) -> usize {
        self.rels.push(GRel { name, params, kind, layer, contested: false, closed: false, negative: false });
        self.rels.len() - 1
    }

    /// A relation of a layer below `layer` with exactly `params`, other than `not`, or a new
    /// empirical one.
    fn domain_for(&mut self, params: &[String], layer: usize, not: usize) -> usize {
        let candidates: Vec<usize> = (0..self.rels.len())
            .filter(|&r| r != not && self.rels[r].layer < layer && self.rels[r].params == params)
            .collect();
        if !candidates.is_empty() && self.rng.chance(60) {
            return *self.rng.pick(&candidates);
        }
        let name = format!("dom{}", self.rels.iter().filter(|r| r.name.starts_with("dom")).count());
        self.add_rel(name, params.to_vec(), Kind::Empirical, 0)
    }

    fn close(&mut self, p: usize) {
        let (params, layer) = (self.rels[p].params.clone(), self.rels[p].layer);
        let domain = if layer == 0 {
            // Inputs: the domain is an earlier input (so closures never form a cycle) or a new one.
            let candidates: Vec<usize> = (0..self.rels.len())
                .filter(|&r| r < p && self.rels[r].layer == 0 && self.rels[r].params == params)
                .collect();
            if !candidates.is_empty() && self.rng.chance(50) {
                *self.rng.pick(&candidates)
            } else {
                let name = format!("dom{}", self.rels.iter().filter(|r| r.name.starts_with("dom")).count());
                self.add_rel(name, params, Kind::Empirical, 0)
            }
        } else {
            self.domain_for(&params, layer, p)
        };
        self.rels[p].closed = true;
        self.closures.push((p, domain));
    }

    /// A constant term of type `ty`, if the package has one.
    fn constant_of(&mut self, ty: &str) -> Option<GTerm> {
        if ty == INT {
            return Some(GTerm::Int(*self.rng.pick(&self.ints)));
        }
        let cs: Vec<usize> = (0..self.consts.len()).filter(|&c| self.consts[c].1 == ty).collect();
        if cs.is_empty() {
            None
        } else {
            let c = *self.rng.pick(&cs);
            Some(GTerm::Const(c, self.rng.chance(20)))
        }
    }

    /// Arguments for a body literal over `params`: reused variables, constants or fresh ones.
    fn body_args(&mut self, params: &[String], vars: &mut Vec<String>) -> Vec<GTerm> {
        let mut args = Vec::new();
        for ty in params {
            let same: Vec<usize> = (0..vars.len()).filter(|&v| &vars[v] == ty).collect();
            if !same.is_empty() && self.rng.chance(55) {
                args.push(GTerm::Var(*self.rng.pick(&same)));
                continue;
            }
            if self.rng.chance(12) {
                if let Some(c) = self.constant_of(ty) {
                    args.push(c);
                    continue;
                }
            }
            vars.push(ty.clone());
            args.push(GTerm::Var(vars.len() - 1));
        }
        args
    }

    /// Whether a negative body literal over `rel` can ever hold (so is worth asking for often).
    fn negation_useful(&self, rel: usize) -> bool {
        let r = &self.rels[rel];
        r.kind != Kind::Institutional || r.closed || r.contested || r.negative
    }

    /// The body literals a rule for `head` may use: (relation, negative allowed).
    fn allowed(&self, head: usize) -> Vec<(usize, bool)> {
        let h = &self.rels[head];
        let mut out = Vec::new();
        for (i, r) in self.rels.iter().enumerate() {
            if r.layer < h.layer {
                out.push((i, true));
            } else if r.layer == h.layer && !h.contested {
                // Same layer: recursion through uncontested predicates; a closure negative is
                // only used strictly above its predicate.
                out.push((i, !r.closed));
            }
        }
        out
    }

    fn status(&mut self) -> Option<&'static str> {
        if self.rng.chance(8) {
            None
        } else if self.rng.chance(25) {
            Some("supported")
        } else {
            Some("established")
        }
    }

    /// A random rule for `head` with head sign `neg`.
    fn random_rule(&mut self, head: usize, neg: bool, strength: &'static str) -> GRule {
        let allowed = self.allowed(head);
        let mut vars: Vec<String> = Vec::new();
        let mut body = Vec::new();
        let n = self.rng.range(1, self.cfg.max_body_literals.max(1));
        for _ in 0..n {
            let (rel, neg_ok) = *self.rng.pick(&allowed);
            let neg_percent = if !neg_ok {
                0
            } else if self.negation_useful(rel) {
                35
            } else {
                5
            };
            let lit_neg = self.rng.chance(neg_percent);
            let params = self.rels[rel].params.clone();
            let args = self.body_args(&params, &mut vars);
            let status = self.status();
            body.push(GItem::Lit(status, GLit { rel, neg: lit_neg, args }));
        }
        // Head arguments: a constant now and then, otherwise a body variable of the column
        // type; when the body has none, bind one with an input literal.
        let head_params = self.rels[head].params.clone();
        let mut head_args = Vec::new();
        for ty in &head_params {
            if self.rng.chance(12) {
                if let Some(c) = self.constant_of(ty) {
                    head_args.push(c);
                    continue;
                }
            }
            let same: Vec<usize> = (0..vars.len()).filter(|&v| &vars[v] == ty).collect();
            if !same.is_empty() {
                head_args.push(GTerm::Var(*self.rng.pick(&same)));
                continue;
            }
            let inputs: Vec<usize> =
                (0..self.rels.len()).filter(|&r| self.rels[r].layer == 0 && self.rels[r].params.contains(ty)).collect();
            let input = *self.rng.pick(&inputs);
            let params = self.rels[input].params.clone();
            let mut args = Vec::new();
            let mut bound = None;
            for p in &params {
                vars.push(p.clone());
                args.push(GTerm::Var(vars.len() - 1));
                if p == ty && bound.is_none() {
                    bound = Some(vars.len() - 1);
                }
            }
            body.push(GItem::Lit(Some("established"), GLit { rel: input, neg: false, args }));
            head_args.push(GTerm::Var(bound.expect("the input has a column of the type")));
        }
        // Comparisons over Integer variables (and, rarely, over two literals).
        let int_vars: Vec<usize> = (0..vars.len()).filter(|&v| vars[v] == INT).collect();
        if !int_vars.is_empty() {
            let count = if self.rng.chance(60) { 1 } else { 0 } + if self.rng.chance(15) { 1 } else { 0 };
            for _ in 0..count {
                let op = *self.rng.pick(&OPS);
                let left = GTerm::Var(*self.rng.pick(&int_vars));
                let right = if self.rng.chance(75) {
                    GTerm::Int(*self.rng.pick(&self.ints))
                } else {
                    GTerm::Var(*self.rng.pick(&int_vars))
                };
                if self.rng.chance(30) {
                    body.push(GItem::Cmp(op, right, left));
                } else {
                    body.push(GItem::Cmp(op, left, right));
                }
            }
        }
        if self.rng.chance(3) {
            let op = *self.rng.pick(&OPS);
            let (a, b) = (*self.rng.pick(&self.ints), *self.rng.pick(&self.ints));
            body.push(GItem::Cmp(op, GTerm::Int(a), GTerm::Int(b)));
        }
        // Shuffle the body: item order must not matter.
        for i in (1..body.len()).rev() {
            let j = self.rng.below(i + 1);
            body.swap(i, j);
        }
        GRule { head: GLit { rel: head, neg, args: head_args }, body, vars, strength }
    }

    /// A rule for contested `p`: more often than not a variant of an earlier rule for `p` (rules from
    /// index `first`) with the other head sign, the same body and possibly one more literal
    /// (so that both signs apply to the same tuple and priorities and defeaters decide);
    /// otherwise a random rule.
    fn contested_rule(&mut self, p: usize, first: usize, neg: bool, strength: &'static str) -> GRule {
        if self.rules.len() > first && self.rng.chance(60) {
            let model = self.rules[self.rng.range(first, self.rules.len() - 1)].clone();
            let mut vars = model.vars.clone();
            let mut body = model.body.clone();
            if self.rng.chance(50) {
                let allowed = self.allowed(p);
                let (rel, _) = *self.rng.pick(&allowed);
                let params = self.rels[rel].params.clone();
                let args = self.body_args(&params, &mut vars);
                let lit_neg = self.negation_useful(rel) && self.rng.chance(35);
                let status = self.status();
                body.push(GItem::Lit(status, GLit { rel, neg: lit_neg, args }));
            }
            return GRule { head: GLit { rel: p, neg, args: model.head.args }, body, vars, strength };
        }
        self.random_rule(p, neg, strength)
    }

    /// `reach(x,y) :- edge(x,y).` and `reach(x,z) :- edge(x,y), reach(y,z).` (or the
    /// doubly recursive `reach(x,y), reach(y,z)`): recursion through an uncontested predicate.
    fn transitive_closure(&mut self, reach: usize, edge: usize) {
        let ty = self.rels[edge].params[0].clone();
        let strength = if self.rng.chance(50) { "strict" } else { "defeasible" };
        let base = GRule {
            head: GLit { rel: reach, neg: false, args: vec![GTerm::Var(0), GTerm::Var(1)] },
            body: vec![GItem::Lit(
                Some("established"),
                GLit { rel: edge, neg: false, args: vec![GTerm::Var(0), GTerm::Var(1)] },
            )],
            vars: vec![ty.clone(), ty.clone()],
            strength,
        };
        let first = if self.rng.chance(50) { edge } else { reach };
        let status = if self.rng.chance(30) { "supported" } else { "established" };
        let step = GRule {
            head: GLit { rel: reach, neg: false, args: vec![GTerm::Var(0), GTerm::Var(2)] },
            body: vec![
                GItem::Lit(
                    Some("established"),
                    GLit { rel: first, neg: false, args: vec![GTerm::Var(0), GTerm::Var(1)] },
                ),
                GItem::Lit(Some(status), GLit { rel: reach, neg: false, args: vec![GTerm::Var(1), GTerm::Var(2)] }),
            ],
            vars: vec![ty.clone(), ty.clone(), ty],
            strength: if self.rng.chance(50) { "strict" } else { "defeasible" },
        };
        self.rules.push(base);
        self.rules.push(step);
    }

    /// The rules (and priorities) of institutional predicate `p`.
    fn rules_for(&mut self, p: usize) {
        let max = self.cfg.max_rules_per_pred.max(1);
        if !self.rels[p].contested {
            let neg = self.rels[p].negative;
            for _ in 0..self.rng.range(1, max) {
                let strength = if self.rng.chance(50) { "strict" } else { "defeasible" };
                let r = self.random_rule(p, neg, strength);
                self.rules.push(r);
            }
            return;
        }
        let first = self.rules.len();
        let n_pos = self.rng.range(1, max);
        let n_neg = self.rng.range(0, max);
        for i in 0..n_pos + n_neg {
            let strength = if self.rng.chance(15) { "strict" } else { "defeasible" };
            let r = self.contested_rule(p, first, i >= n_pos, strength);
            self.rules.push(r);
        }
        if n_neg == 0 || self.rng.chance(30) {
            let neg = n_neg == 0 || self.rng.chance(50);
            let r = self.contested_rule(p, first, neg, "defeater");
            self.rules.push(r);
        }
        let mine: Vec<usize> = (first..self.rules.len()).collect();
        let rank: Vec<u64> = mine.iter().map(|_| self.rng.next()).collect();
        for (a, &t) in mine.iter().enumerate() {
            for (b, &s) in mine.iter().enumerate() {
                let opposite = self.rules[t].head.neg != self.rules[s].head.neg;
                if opposite && self.rules[t].strength != "defeater" && rank[a] < rank[b] && self.rng.chance(50) {
                    self.prios.push((t, s));
                }
            }
        }
    }

    fn build(&mut self) {
        // Types, constants, integer literals.
        for i in 0..self.rng.range(0, self.cfg.max_entity_types) {
            let id = self.id(&format!("T{i}"));
            self.types.push(id);
        }
        for t in self.types.clone() {
            for _ in 0..self.rng.range(0, 2) {
                let name = format!("K{}", self.consts.len());
                self.consts.push((name, t.clone()));
            }
        }
        let base = self.rng.range(0, 6) as i64;
        for _ in 0..self.rng.range(1, 3) {
            let v = base + self.rng.range(0, 4) as i64;
            if !self.ints.contains(&v) {
                self.ints.push(v);
            }
        }

        // Layer 0: inputs.
        for i in 0..self.rng.range(2, self.cfg.max_inputs.max(2)) {
            let params = self.random_params();
            self.add_rel(format!("e{i}"), params, Kind::Empirical, 0);
        }
        let mut all_types = self.types.clone();
        all_types.push(INT.to_string());
        for ty in all_types {
            if !self.rels.iter().any(|r| r.params.contains(&ty)) {
                let name = format!("e{}", self.rels.len());
                self.add_rel(name, vec![ty], Kind::Empirical, 0);
            }
        }
        let edge = if self.rng.chance(60) {
            let ty = self.random_type();
            Some(self.add_rel("edge".into(), vec![ty.clone(), ty], Kind::Empirical, 0))
        } else {
            None
        };
        if self.rng.chance(50) {
            let params = self.random_params();
            let params = params[..params.len().min(2)].to_vec();
            self.add_rel("j0".into(), params, Kind::Judgment, 0);
        }
        for r in 0..self.rels.len() {
            if self.rng.chance(25) {
                self.close(r);
            }
        }

        // Layers of institutional predicates.
        let layers = self.rng.range(1, self.cfg.max_layers.max(1));
        for layer in 1..=layers {
            let start = self.rels.len();
            let mut reach = None;
            if layer == 1 && self.rng.chance(70) {
                if let Some(e) = edge {
                    let params = self.rels[e].params.clone();
                    reach = Some(self.add_rel("reach".into(), params, Kind::Institutional, 1));
                }
            }
            for i in 0..self.rng.range(1, self.cfg.max_preds_per_layer.max(1)) {
                let params = self.random_params();
                let p = self.add_rel(format!("p{layer}_{i}"), params, Kind::Institutional, layer);
                self.rels[p].contested = self.rng.chance(40);
                self.rels[p].negative = !self.rels[p].contested && self.rng.chance(15);
            }
            let end = self.rels.len();
            for p in start..end {
                if self.rng.chance(25) {
                    self.close(p);
                }
            }
            for p in start..end {
                match (reach, edge) {
                    (Some(r), Some(e)) if r == p => self.transitive_closure(r, e),
                    _ => self.rules_for(p),
                }
            }
        }
    }

    // ----- The package -----

    fn term(&self, t: &GTerm) -> kit::Term {
        match t {
            GTerm::Var(v) => kit::Term::Var(format!("v{v}")),
            GTerm::Const(c, false) => kit::Term::Const(self.consts[*c].0.clone()),
            GTerm::Const(c, true) => kit::Term::Entity(self.consts[*c].0.clone()),
            GTerm::Int(i) => kit::Term::Int(*i),
        }
    }

    fn literal(&self, l: &GLit) -> kit::Lit {
        kit::Lit {
            rel: self.rels[l.rel].name.clone(),
            negative: l.neg,
            args: l.args.iter().map(|t| self.term(t)).collect(),
        }
    }

    fn item(&self, item: &GItem) -> kit::Item {
        match item {
            GItem::Lit(None, l) => kit::Item::Lit(self.literal(l)),
            GItem::Lit(Some(status), l) => kit::Item::Status(status.to_string(), self.literal(l)),
            GItem::Cmp(op, a, b) => kit::Item::Cmp(op.to_string(), self.term(a), self.term(b)),
        }
    }

    /// The package model: nodes sorted by id, a one-item body written without its `and`.
    fn model(&self, name: &str) -> kit::Package {
        let mut pkg = kit::Package::new(name, "0.1.0");
        pkg.namespace = self.ns.clone();
        pkg.metadata = json!({"localSources": {}});
        for (i, t) in self.types.iter().enumerate() {
            let local = t.rsplit('#').next().unwrap_or(t).to_string(); // T{i}
            pkg.nodes.push(kit::Node::Type {
                id: local,
                name: format!("T{i}"),
                label: Some(format!("entity type T{i}")),
            });
        }
        for (name, ty) in &self.consts {
            pkg.nodes.push(kit::Node::Constant {
                id: name.clone(),
                name: name.clone(),
                of: ty.clone(),
                label: Some(format!("constant {name}")),
            });
        }
        for r in &self.rels {
            let params = r
                .params
                .iter()
                .enumerate()
                .map(|(i, ty)| kit::Param { id: format!("a{i}"), name: format!("a{i}"), ty: ty.clone() })
                .collect();
            let kind = match r.kind {
                Kind::Empirical => kit::RelKind::Empirical,
                Kind::Judgment => kit::RelKind::Judgment,
                Kind::Institutional => kit::RelKind::Institutional,
            };
            pkg.nodes.push(kit::Node::Relation {
                id: r.name.clone(),
                name: r.name.clone(),
                kind,
                params,
                label: Some(format!("relation {}", r.name)),
            });
            if r.kind == Kind::Judgment {
                pkg.nodes.push(kit::Node::External {
                    id: format!("{}/external", r.name),
                    relation: r.name.clone(),
                    capability: GRANT.to_string(),
                    authority: Some("RandomArbiter".to_string()),
                });
            }
        }
        for (i, r) in self.rules.iter().enumerate() {
            pkg.nodes.push(kit::Node::Rule(kit::Rule {
                id: format!("r{i}"),
                strength: r.strength.to_string(),
                vars: r.vars.iter().enumerate().map(|(v, ty)| (format!("v{v}"), ty.clone())).collect(),
                head: self.literal(&r.head),
                body: r.body.iter().map(|it| self.item(it)).collect(),
                bare_body: true,
                label: Some(format!("rule r{i} for {}", self.rels[r.head.rel].name)),
                anchors: Vec::new(),
            }));
        }
        for (i, (t, s)) in self.prios.iter().enumerate() {
            pkg.nodes.push(kit::Node::Priority {
                id: format!("prio{i}"),
                higher: format!("r{t}"),
                lower: format!("r{s}"),
                label: Some(format!("r{t} beats r{s}")),
                reason: Some("lex_specialis".to_string()),
            });
        }
        for (p, d) in &self.closures {
            let (name, domain) = (&self.rels[*p].name, &self.rels[*d].name);
            pkg.nodes.push(kit::Node::Closure {
                id: format!("closure_{name}"),
                predicate: name.clone(),
                domain: domain.clone(),
                label: Some(format!("{name} is closed over {domain}")),
                complete_as_of: Some("2024-01-01T00:00:00Z".to_string()),
                snapshot: Some(format!("urn:random:snapshot:{name}")),
            });
        }
        pkg.nodes.sort_by(|a, b| a.id().cmp(&b.id()));
        pkg
    }
}

/// A small random valid package (a [`clir_testkit::Package`] model of `law.core.ir/0.2`,
/// shaped like the published package), deterministic in `seed`: name `random.p<seed>`,
/// namespace `urn:random:p<seed>`.
pub fn model(seed: u64, cfg: &Config) -> kit::Package {
    let name = format!("random.p{seed}");
    let mut g = Gen {
        rng: Rng::new(seed, 1),
        cfg,
        ns: format!("urn:random:p{seed}"),
        types: Vec::new(),
        consts: Vec::new(),
        ints: Vec::new(),
        rels: Vec::new(),
        rules: Vec::new(),
        prios: Vec::new(),
        closures: Vec::new(),
    };
    g.build();
    let mut pkg = g.model(&name);
    if cfg.adversarial {
        adversarial_names(&mut pkg, &mut Rng::new(seed, 7));
    }
    pkg
}

/// The pieces adversarial names are made of.
const CORES: &[&str] = &[
    "p",
    "q",
    "x",
    "X",
    "x_1",
    "e",
    "NotE",
    "case",
    "Case",
    "Cases",
    "Ruling",
    "Rulings",
    "Package",
    "Id",
    "Vec",
    "Some",
    "None",
    "Default",
    "self",
    "type",
    "fn",
    "batch",
    "out",
    "row",
    "t",
    "iteration",
    "instances",
    "closure_0_p",
    "a_0",
    "r1_1",
    "A-B",
    "A_B",
    "a-b",
    "a_b",
    "*/",
    "/*",
    "clir_comment!(1);",
    "x\r",
    "\u{202e}x",
    "\u{2066}y",
    "new",
    "len",
    "id",
    "Foo",
    "foo",
    "Grant",
];
const PREFIXES: &[&str] = &["", "", "not_", "Not"];
const SUFFIXES: &[&str] = &["", "", "_definite", "_input", "_concluded", "_supported", "_fact", "_2", "_applies"];

/// Renames the types, constants, relations, parameters, rules and variables of `pkg` with
/// names drawn from an adversarial alphabet, distinct within each kind (ids of types, constants
/// and relations stay, so references hold).
fn adversarial_names(pkg: &mut kit::Package, rng: &mut Rng) {
    let mut draw = |taken: &mut Vec<String>, forbidden: &[&str]| -> String {
        for _ in 0..40 {
            let n = format!("{}{}{}", rng.pick(PREFIXES), rng.pick(CORES), rng.pick(SUFFIXES));
            if !taken.contains(&n) && !forbidden.contains(&n.as_str()) {
                taken.push(n.clone());
                return n;
            }
        }
        let n = format!("{}_{}", rng.pick(CORES), taken.len());
        taken.push(n.clone());
        n
    };
    let (mut types, mut consts, mut rels, mut rules) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut rule_ids: Vec<(String, String)> = Vec::new();
    for node in &mut pkg.nodes {
        match node {
            // `Integer` and `String` name the built-in types in the kit.
            kit::Node::Type { name, .. } => *name = draw(&mut types, &["Integer", "String"]),
            kit::Node::Constant { name, .. } => *name = draw(&mut consts, &[]),
            kit::Node::Relation { name, params, .. } => {
                *name = draw(&mut rels, &[]);
                let mut taken = Vec::new();
                for p in params {
                    p.name = draw(&mut taken, &[]);
                }
            }
            kit::Node::Rule(r) => {
                let id = draw(&mut rules, &[]);
                rule_ids.push((r.id.clone(), id.clone()));
                r.id = id;
                let mut taken = Vec::new();
                let renamed: Vec<(String, String)> =
                    r.vars.iter().map(|(v, _)| (v.clone(), draw(&mut taken, &[]))).collect();
                for (v, (_, new)) in r.vars.iter_mut().zip(&renamed) {
                    v.0 = new.clone();
                }
                let rename = |t: &mut kit::Term| {
                    if let kit::Term::Var(v) = t {
                        *v = renamed.iter().find(|(old, _)| old == v).map(|(_, n)| n.clone()).unwrap_or(v.clone());
                    }
                };
                r.head.args.iter_mut().for_each(rename);
                for item in &mut r.body {
                    match item {
                        kit::Item::Lit(l) | kit::Item::Status(_, l) | kit::Item::Not(l) => {
                            l.args.iter_mut().for_each(rename)
                        }
                        kit::Item::Cmp(_, a, b) => {
                            rename(a);
                            rename(b);
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    for node in &mut pkg.nodes {
        if let kit::Node::Priority { higher, lower, .. } = node {
            for r in [higher, lower] {
                if let Some((_, new)) = rule_ids.iter().find(|(old, _)| old == r) {
                    *r = new.clone();
                }
            }
        }
    }
}

/// The document of [`model`]`(seed, cfg)`: every node with its `contentHash`, the top-level
/// `semanticHash` computed. Write it with `canonical::canonical_bytes`.
pub fn package(seed: u64, cfg: &Config) -> Value {
    model(seed, cfg).document()
}

/// The canonical bytes of [`package`]`(seed, cfg)`, as a package file holds them.
pub fn package_bytes(seed: u64, cfg: &Config) -> Vec<u8> {
    model(seed, cfg).bytes()
}

/// A few (1..=4) random valid case lines (docs/FORMAT.md "Case lines") for `doc`, deterministic in
/// `seed`: facts of every input relation over 2-3 entity names per type (and the type's
/// constants), Integers near the package's Integer literals, some explicit negatives `~rel`
/// (now and then the complement of a positive fact, a contradiction). Judgment facts appear in
/// some cases: rule those with the judgment's capability ([`GRANT`] for generated packages).
pub fn facts(seed: u64, doc: &ir::Document) -> Vec<Value> {
    let mut rng = Rng::new(seed, 2);
    // Universe per type.
    let mut type_names: Vec<(String, String)> = Vec::new();
    let mut constants: Vec<(String, String)> = Vec::new();
    let mut literals: Vec<i64> = Vec::new();
    for n in &doc.nodes {
        match &n.kind {
            NodeKind::TypeDecl(t) => type_names.push((n.id.clone(), t.name.clone())),
            NodeKind::Constant(c) => constants.push((c.name.clone(), c.return_type.clone())),
            NodeKind::Rule(r) => {
                let mut terms: Vec<&Term> = r.head.args.iter().collect();
                for item in &r.body {
                    match item {
                        BodyItem::Literal(_, l) | BodyItem::Not(l) => terms.extend(&l.args),
                        BodyItem::Comparison(c) => terms.extend([&c.left, &c.right]),
                    }
                }
                for t in terms {
                    if let Term::Int(i) = t {
                        literals.push(*i);
                    }
                }
            }
            _ => {}
        }
    }
    let mut ints: Vec<i64> = literals.iter().flat_map(|&i| [i.saturating_sub(1), i, i.saturating_add(1)]).collect();
    if ints.is_empty() {
        ints = vec![0, 1, 2];
    }
    ints.sort();
    ints.dedup();
    let mut universe: Vec<(String, Vec<String>)> = Vec::new();
    for (id, name) in &type_names {
        let lower = name.to_lowercase();
        let count = rng.range(2, 3);
        let mut names: Vec<String> = ["a", "b", "c"][..count].iter().map(|s| format!("{lower}{s}")).collect();
        names.extend(constants.iter().filter(|(_, t)| t == id).map(|(c, _)| c.clone()));
        universe.push((id.clone(), names));
    }
    let value = |rng: &mut Rng, ty: &str| -> Value {
        if ty == INT {
            return json!(*rng.pick(&ints));
        }
        match universe.iter().find(|(id, _)| id == ty) {
            Some((_, names)) => json!(rng.pick(names)),
            None => json!("x"),
        }
    };
    let inputs: Vec<&ir::RelationDecl> = doc
        .nodes
        .iter()
        .filter_map(|n| match &n.kind {
            NodeKind::Relation(r) if r.relation_kind != RelationKind::Institutional => Some(r),
            _ => None,
        })
        .collect();
    let mut cases = Vec::new();
    for c in 0..rng.range(1, 4) {
        let with_judgments = rng.chance(50);
        let mut facts = Map::new();
        for r in &inputs {
            if r.relation_kind == RelationKind::Judgment && !with_judgments {
                continue;
            }
            let tuple =
                |rng: &mut Rng| -> Value { Value::Array(r.parameters.iter().map(|p| value(rng, &p.ty)).collect()) };
            let mut pos: Vec<Value> = Vec::new();
            for _ in 0..rng.range(0, 4) {
                let t = tuple(&mut rng);
                if !pos.contains(&t) {
                    pos.push(t);
                }
            }
            let mut neg: Vec<Value> = Vec::new();
            if rng.chance(35) {
                for _ in 0..rng.range(1, 2) {
                    let t = if !pos.is_empty() && rng.chance(8) {
                        Some(rng.pick(&pos).clone())
                    } else {
                        // Mostly a tuple that is not a positive fact (the universe is tiny).
                        (0..3).map(|_| tuple(&mut rng)).find(|t| !pos.contains(t))
                    };
                    if let Some(t) = t.filter(|t| !neg.contains(t)) {
                        neg.push(t);
                    }
                }
            }
            if !pos.is_empty() {
                facts.insert(r.name.clone(), Value::Array(pos));
            }
            if !neg.is_empty() {
                facts.insert(format!("~{}", r.name), Value::Array(neg));
            }
        }
        cases.push(json!({"case": format!("c{c}"), "facts": facts}));
    }
    cases
}

#[cfg(test)]
mod tests;
