//! An independent checker of explanations (`--explain`, docs/DECISIONS.md 31): every
//! explanation must be a proof on its own, rebuilt here against the package document and the
//! reference evaluator's conclusions ([`standing`]), never against the code that wrote it.
//!
//! A node asked at a layer (`+D`, `+S` or `+d`) is sound when its literal holds at that layer per
//! the reference, its `definite` mark is the reference's `+D`, and:
//! - a `+D` literal is an input fact of the case, a closure negative (the policy exists, closes
//!   that predicate, its domain premise is concluded and the positive is not supported), or a
//!   strict rule whose head and body literals match the literal and the premises under one
//!   substitution, whose comparisons hold, whose negations as failure hold (no `+d` literal
//!   matches them), whose arithmetic head terms evaluate to the literal's values, and whose
//!   premises are sound at `+D`;
//! - any other literal cites a strict or defeasible rule (never a defeater) matched the same way,
//!   each premise sound at the layer its body item asks (`established`: `+d`, `supported`: `+S`,
//!   marked `asked: supported`); asked at `+d`, its complement is not `+D` and every rule for the
//!   complement (defeaters included) that the checker finds applicable by grounding it against
//!   the reference is listed in `overcame`, beaten by a named applicable strict or defeasible
//!   rule for the literal through a priority of the package that puts it above the attack.
//!
//! Rule labels, strengths and article locators must be the package's. The language is the
//! evaluator's: the core and the extensions of EXTENSIONS.md. A negation as failure is no
//! premise: it is checked against the reference's `+d`, as the evaluator reads it.

use crate::{resolved, Layer, Reference, Standing, Val};
use clir_codegen::ir::{self, ArithOp, BodyItem, NodeKind, RelationKind, Status, Strength, Term};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// The layer a node is asked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ask {
    Definite,
    Supported,
    Concluded,
}

impl Ask {
    fn name(self) -> &'static str {
        match self {
            Ask::Definite => "+D",
            Ask::Supported => "+S",
            Ask::Concluded => "+d",
        }
    }
}

/// A ground literal: relation name, strong negation, arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
struct G {
    rel: String,
    neg: bool,
    args: Vec<Val>,
}

impl G {
    fn complement(&self) -> G {
        G { rel: self.rel.clone(), neg: !self.neg, args: self.args.clone() }
    }

    fn text(&self) -> String {
        let args: Vec<String> = self.args.iter().map(Val::to_text).collect();
        format!("{}{}({})", if self.neg { "~" } else { "" }, self.rel, args.join(","))
    }
}

fn holds(layer: &Layer, g: &G) -> bool {
    layer.get(&(g.rel.clone(), g.neg)).is_some_and(|s| s.contains(&g.args))
}

struct Rel {
    name: String,
    integer: Vec<bool>,
    institutional: bool,
}

struct RuleRef<'a> {
    id: &'a str,
    labels: Vec<&'a str>,
    rule: &'a ir::Rule,
}

struct ClosureRef<'a> {
    id: &'a str,
    labels: Vec<&'a str>,
    predicate: &'a str,
    domain: &'a str,
}

type Binding = BTreeMap<String, Val>;

/// The package, resolved for checking explanations of its rulings.
pub struct Checker<'a> {
    rels: HashMap<&'a str, Rel>,
    by_name: HashMap<&'a str, &'a str>,
    constants: HashMap<&'a str, &'a str>,
    rules: Vec<RuleRef<'a>>,
    rule_ix: HashMap<&'a str, usize>,
    /// (higher, lower) rule ids -> the priority's id and labels.
    priorities: HashMap<(&'a str, &'a str), (&'a str, Vec<&'a str>)>,
    closures: Vec<ClosureRef<'a>>,
    /// Fragment id -> locator.
    locators: HashMap<&'a str, &'a str>,
    reference: Reference,
}

/// What checking one case's explanations found.
#[derive(Debug, Clone, Default)]
pub struct Verdict {
    /// Explanations checked (one per concluded institutional literal).
    pub checked: usize,
    /// The explanations that are not proofs, or missing: (literal, why).
    pub unsound: Vec<(String, String)>,
}

impl<'a> Checker<'a> {
    /// Resolves `doc` (a package the compiler accepts; panics, saying why, on one the
    /// reference evaluator cannot evaluate).
    pub fn new(doc: &'a ir::Document) -> Checker<'a> {
        let labels = |n: &'a ir::Node| n.labels.iter().map(|l| l.text.as_str()).collect::<Vec<_>>();
        let mut c = Checker {
            rels: HashMap::new(),
            by_name: HashMap::new(),
            constants: HashMap::new(),
            rules: Vec::new(),
            rule_ix: HashMap::new(),
            priorities: HashMap::new(),
            closures: Vec::new(),
            locators: HashMap::new(),
            reference: resolved(doc),
        };
        for n in &doc.nodes {
            match &n.kind {
                NodeKind::Relation(r) => {
                    c.rels.insert(
                        &n.id,
                        Rel {
                            name: r.name.clone(),
                            integer: r.parameters.iter().map(|p| p.ty == ir::INTEGER_TYPE).collect(),
                            institutional: r.relation_kind == RelationKind::Institutional,
                        },
                    );
                    c.by_name.insert(&r.name, &n.id);
                }
                NodeKind::Constant(k) => {
                    c.constants.insert(&n.id, &k.name);
                }
                NodeKind::Rule(r) => {
                    c.rule_ix.insert(&n.id, c.rules.len());
                    c.rules.push(RuleRef { id: &n.id, labels: labels(n), rule: r });
                }
                NodeKind::Priority(p) => {
                    c.priorities.insert((&p.higher, &p.lower), (&n.id, labels(n)));
                }
                NodeKind::Closure(k) => c.closures.push(ClosureRef {
                    id: &n.id,
                    labels: labels(n),
                    predicate: &k.predicate,
                    domain: &k.domain,
                }),
                NodeKind::Fragment(f) => {
                    c.locators.insert(&n.id, &f.locator);
                }
                _ => {}
            }
        }
        c
    }

    /// Checks the explanations of `ruling` (a ruling line of `clir rule --explain` for
    /// `case_line`, ruled with `grants`): one verdict per concluded institutional literal.
    pub fn check(&self, case_line: &Value, grants: &[String], ruling: &Value) -> Verdict {
        let mut v = Verdict::default();
        let st = match self.reference.standing(case_line, grants) {
            Ok(st) => st,
            Err(e) => {
                if ruling.get("error").is_none() {
                    v.unsound.push((String::new(), format!("the reference rejects the case ({e}) but it was ruled")));
                }
                return v;
            }
        };
        let cx = Cx { ch: self, st: &st, facts: input_facts(case_line) };
        let empty = serde_json::Map::new();
        let explanations = ruling.get("explanations").and_then(Value::as_object).unwrap_or(&empty);
        // Every concluded institutional literal is explained, and nothing else is.
        for ((name, neg), tuples) in &st.concluded {
            let institutional = self.by_name.get(name.as_str()).is_some_and(|id| self.rels[id].institutional);
            if institutional {
                for args in tuples {
                    let key = G { rel: name.clone(), neg: *neg, args: args.clone() }.text();
                    if !explanations.contains_key(&key) {
                        v.unsound.push((key, "concluded but not explained".into()));
                    }
                }
            }
        }
        for (key, node) in explanations {
            v.checked += 1;
            let r = match node.get("literal").and_then(Value::as_str) {
                Some(l) if l == key => cx.node(node, Ask::Concluded, 0),
                other => Err(format!("explanation of {key} is about {other:?}")),
            };
            if let Err(why) = r {
                v.unsound.push((key.clone(), why));
            }
        }
        v
    }

    fn parse(&self, text: &str) -> Result<G, String> {
        let bad = || format!("`{text}` is not a literal of the package");
        let (neg, rest) = match text.strip_prefix('~') {
            Some(r) => (true, r),
            None => (false, text),
        };
        // A relation's name may hold `(`: the name is the prefix that names a relation and
        // leaves arguments that read.
        let inner = rest.strip_suffix(')').ok_or_else(bad)?;
        let mut last = Err(bad());
        for (open, _) in inner.match_indices('(') {
            if let Some(id) = self.by_name.get(&inner[..open]) {
                last = self.parse_args(text, neg, &self.rels[id], &inner[open + 1..]);
                if last.is_ok() {
                    break;
                }
            }
        }
        last
    }

    fn parse_args(&self, text: &str, neg: bool, rel: &Rel, inner: &str) -> Result<G, String> {
        let bad = || format!("`{text}` is not a literal of the package");
        let mut tokens: Vec<String> = Vec::new();
        let mut s = inner;
        while !s.is_empty() || tokens.len() < rel.integer.len() {
            if tokens.len() == rel.integer.len() {
                return Err(bad());
            }
            let (tok, after) = if s.starts_with('"') {
                let bytes = s.as_bytes();
                let mut i = 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let quoted = s.get(..=i).ok_or_else(bad)?;
                (serde_json::from_str::<String>(quoted).map_err(|_| bad())?, &s[i + 1..])
            } else {
                let end = s.find(',').unwrap_or(s.len());
                (s[..end].to_string(), &s[end..])
            };
            tokens.push(tok);
            s = match after.strip_prefix(',') {
                Some(r) if tokens.len() < rel.integer.len() => r,
                None if after.is_empty() => after,
                _ => return Err(bad()),
            };
        }
        let args = tokens
            .into_iter()
            .zip(&rel.integer)
            .map(|(t, &int)| if int { t.parse().map(Val::Int).map_err(|_| bad()) } else { Ok(Val::Str(t)) })
            .collect::<Result<Vec<_>, _>>()?;
        let g = G { rel: rel.name.clone(), neg, args };
        if g.text() != text {
            return Err(format!("`{text}` is not written as docs/FORMAT.md writes literals (`{}`)", g.text()));
        }
        Ok(g)
    }

    fn rel_name(&self, id: &str) -> &str {
        &self.rels[id].name
    }

    fn is_for(&self, l: &ir::Literal, g: &G) -> bool {
        self.rel_name(&l.predicate) == g.rel && l.negative == g.neg
    }

    fn term(&self, t: &Term, b: &Binding) -> Option<Val> {
        match t {
            Term::Var(v) => b.get(v).cloned(),
            Term::Const(id) => Some(Val::Str(self.constants.get(id.as_str())?.to_string())),
            Term::Int(i) => Some(Val::Int(*i)),
            Term::Str(s) => Some(Val::Str(s.clone())),
            // 64-bit two's complement, wrapping (EXTENSIONS.md §3); the evaluator's own.
            Term::Arith(op, l, r) => match (self.term(l, b)?, self.term(r, b)?) {
                (Val::Int(x), Val::Int(y)) => Some(Val::Int(match op {
                    ArithOp::Add => x.wrapping_add(y),
                    ArithOp::Sub => x.wrapping_sub(y),
                    ArithOp::Mul => x.wrapping_mul(y),
                })),
                _ => None,
            },
        }
    }

    /// Extends `b` so that `terms` are `vals`; false when they clash. An arithmetic term (only
    /// a head has one) binds nothing and is left to [`Checker::closes`].
    fn unify(&self, terms: &[Term], vals: &[Val], b: &mut Binding) -> bool {
        terms.len() == vals.len()
            && terms.iter().zip(vals).all(|(t, v)| match t {
                Term::Var(x) => match b.get(x) {
                    Some(bound) => bound == v,
                    None => {
                        b.insert(x.clone(), v.clone());
                        true
                    }
                },
                Term::Arith(..) => true,
                other => self.term(other, b).as_ref() == Some(v),
            })
    }

    /// With every body literal matched under `b`: the head's arithmetic terms are `head`'s
    /// values, every comparison holds, and no `+d` literal matches a negation as failure.
    fn closes(&self, st: &Standing, rule: &ir::Rule, head: &G, b: &Binding) -> bool {
        let head_ok = rule
            .head
            .args
            .iter()
            .zip(&head.args)
            .all(|(t, v)| !matches!(t, Term::Arith(..)) || self.term(t, b).as_ref() == Some(v));
        head_ok
            && rule.body.iter().all(|i| match i {
                BodyItem::Comparison(c) => match (self.term(&c.left, b), self.term(&c.right, b)) {
                    (Some(Val::Int(x)), Some(Val::Int(y))) => c.op.holds(x, y),
                    _ => false,
                },
                BodyItem::Not(l) => {
                    let key = (self.rel_name(&l.predicate).to_string(), l.negative);
                    !st.concluded.get(&key).into_iter().flatten().any(|t| self.unify(&l.args, t, &mut b.clone()))
                }
                BodyItem::Literal(..) => true,
            })
    }

    /// Whether some instance of `rule` with head `head` has every `established` body literal
    /// `+d`, every `supported` one `+S` and every comparison true, per the reference.
    fn applicable(&self, st: &Standing, rule: &ir::Rule, head: &G) -> bool {
        let mut b = Binding::new();
        if rule.body_false || !self.is_for(&rule.head, head) || !self.unify(&rule.head.args, &head.args, &mut b) {
            return false;
        }
        let lits = body_literals(rule);
        self.ground(st, rule, head, &lits, b)
    }

    fn ground(&self, st: &Standing, rule: &ir::Rule, head: &G, lits: &[(Status, &ir::Literal)], b: Binding) -> bool {
        let Some(((status, l), rest)) = lits.split_first() else { return self.closes(st, rule, head, &b) };
        let layer = if *status == Status::Supported { &st.supported } else { &st.concluded };
        let key = (self.rel_name(&l.predicate).to_string(), l.negative);
        layer.get(&key).into_iter().flatten().any(|tuple| {
            let mut b2 = b.clone();
            self.unify(&l.args, tuple, &mut b2) && self.ground(st, rule, head, rest, b2)
        })
    }

    /// Assigns the body literals of `rule` to `premises` (each used once) under one substitution
    /// that also makes the head `head` and closes the rule ([`Checker::closes`]); returns each
    /// premise's status.
    fn instantiate(&self, st: &Standing, rule: &RuleRef, head: &G, premises: &[G]) -> Result<Vec<Status>, String> {
        let r = rule.rule;
        if r.body_false {
            return Err(format!("rule {} has a false body", rule.id));
        }
        let mut b = Binding::new();
        if !self.is_for(&r.head, head) || !self.unify(&r.head.args, &head.args, &mut b) {
            return Err(format!("the head of rule {} is not {}", rule.id, head.text()));
        }
        let lits = body_literals(r);
        if lits.len() != premises.len() {
            return Err(format!(
                "rule {} has {} body literals, the explanation {} premises",
                rule.id,
                lits.len(),
                premises.len()
            ));
        }
        let mut statuses = vec![None; premises.len()];
        if !self.assign(st, (r, head), &lits, premises, &mut statuses, b) {
            return Err(format!(
                "no substitution makes rule {} derive {} from [{}] with its comparisons and negations true",
                rule.id,
                head.text(),
                premises.iter().map(G::text).collect::<Vec<_>>().join(", ")
            ));
        }
        Ok(statuses.into_iter().map(|s| s.expect("every premise is assigned")).collect())
    }

    fn assign(
        &self,
        st: &Standing,
        (rule, head): (&ir::Rule, &G),
        lits: &[(Status, &ir::Literal)],
        premises: &[G],
        used: &mut [Option<Status>],
        b: Binding,
    ) -> bool {
        let Some(((status, l), rest)) = lits.split_first() else { return self.closes(st, rule, head, &b) };
        for (i, p) in premises.iter().enumerate() {
            if used[i].is_none() && self.is_for(l, p) {
                let mut b2 = b.clone();
                if self.unify(&l.args, &p.args, &mut b2) {
                    used[i] = Some(*status);
                    if self.assign(st, (rule, head), rest, premises, used, b2) {
                        return true;
                    }
                    used[i] = None;
                }
            }
        }
        false
    }
}

fn input_facts(case_line: &Value) -> Layer {
    let mut out = Layer::new();
    for (key, tuples) in case_line.get("facts").and_then(Value::as_object).into_iter().flatten() {
        let (neg, name) = match key.strip_prefix('~') {
            Some(r) => (true, r),
            None => (false, key.as_str()),
        };
        for t in tuples.as_array().into_iter().flatten() {
            let args = t
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| match v.as_i64() {
                    Some(i) => Val::Int(i),
                    None => Val::Str(v.as_str().unwrap_or_default().to_string()),
                })
                .collect();
            out.entry((name.to_string(), neg)).or_default().insert(args);
        }
    }
    out
}

/// One case being checked.
struct Cx<'c, 'a> {
    ch: &'c Checker<'a>,
    st: &'c Standing,
    facts: Layer,
}

impl Cx<'_, '_> {
    fn node(&self, v: &Value, ask: Ask, depth: usize) -> Result<(), String> {
        let ch = self.ch;
        let text = v.get("literal").and_then(Value::as_str).ok_or("a node without a literal")?;
        let g = ch.parse(text)?;
        let at = |e: String| format!("{text}: {e}");
        let layer = match ask {
            Ask::Definite => &self.st.definite,
            Ask::Supported => &self.st.supported,
            Ask::Concluded => &self.st.concluded,
        };
        if !holds(layer, &g) {
            return Err(at(format!("asked at {}, which the reference does not conclude", ask.name())));
        }
        if depth > 512 || v.get("truncated").is_some() || v.get("unexplained").is_some() {
            return Err(at("not explained down to facts".into()));
        }
        let definite = holds(&self.st.definite, &g);
        match v.get("definite").and_then(Value::as_bool) {
            Some(d) if d == definite => {}
            other => return Err(at(format!("marked definite {other:?}, but the reference's +D is {definite}"))),
        }
        let premises: Vec<&Value> = v.get("premises").and_then(Value::as_array).into_iter().flatten().collect();
        let lits = premises
            .iter()
            .map(|p| ch.parse(p.get("literal").and_then(Value::as_str).unwrap_or_default()))
            .collect::<Result<Vec<G>, String>>()
            .map_err(at)?;
        if definite {
            if v.get("fact").and_then(Value::as_str) == Some("input") {
                if !holds(&self.facts, &g) {
                    return Err(at("cited as an input fact, but the case does not give it".into()));
                }
                if !premises.is_empty() {
                    return Err(at("an input fact with premises".into()));
                }
                return Ok(());
            }
            if let Some(cid) = v.get("closure") {
                let c = ch
                    .closures
                    .iter()
                    .find(|c| Some(c.id) == cid.as_str())
                    .ok_or_else(|| at(format!("no closure policy {cid}")))?;
                if ch.rel_name(c.predicate) != g.rel || !g.neg {
                    return Err(at(format!("closure {} does not derive it", c.id)));
                }
                check_label(v, &c.labels).map_err(at)?;
                let domain = G { rel: ch.rel_name(c.domain).to_string(), neg: false, args: g.args.clone() };
                if lits != [domain.clone()] {
                    return Err(at(format!("closure {} must rest on its domain {}", c.id, domain.text())));
                }
                if holds(&self.st.supported, &g.complement()) {
                    return Err(at(format!("closed by {}, but {} is supported", c.id, g.complement().text())));
                }
                return self.node(premises[0], Ask::Concluded, depth + 1);
            }
            let rule = self.rule(v).map_err(at)?;
            if rule.rule.strength != Strength::Strict {
                return Err(at(format!("+D by rule {}, which is not strict", rule.id)));
            }
            ch.instantiate(self.st, rule, &g, &lits).map_err(at)?;
            for p in &premises {
                self.node(p, Ask::Definite, depth + 1)?;
            }
            if v.get("overcame").is_some() {
                return Err(at("a definite derivation has no attacks to overcome".into()));
            }
            return Ok(());
        }
        if v.get("fact").is_some() || v.get("closure").is_some() {
            return Err(at("cited as a fact or closure, but it is not +D".into()));
        }
        let rule = self.rule(v).map_err(at)?;
        if rule.rule.strength == Strength::Defeater {
            return Err(at(format!("derived by the defeater {}", rule.id)));
        }
        let statuses = ch.instantiate(self.st, rule, &g, &lits).map_err(at)?;
        for (p, status) in premises.iter().zip(statuses) {
            let asked_supported = p.get("asked").and_then(Value::as_str) == Some("supported");
            let supported = status == Status::Supported;
            if asked_supported != supported {
                return Err(at(format!("premise {} is marked as asked supported: {asked_supported}", p["literal"])));
            }
            self.node(p, if supported { Ask::Supported } else { Ask::Concluded }, depth + 1)?;
        }
        self.attacks(v, &g, ask).map_err(at)
    }

    /// The rule a node cites, with its strength, label and articles as the package has them.
    fn rule(&self, v: &Value) -> Result<&RuleRef<'_>, String> {
        let ch = self.ch;
        let id = v.get("rule").and_then(Value::as_str).ok_or("neither a fact, a closure nor a rule")?;
        let rule = ch.rule_ix.get(id).map(|&i| &ch.rules[i]).ok_or_else(|| format!("no rule {id}"))?;
        let strength = match rule.rule.strength {
            Strength::Strict => "strict",
            Strength::Defeasible => "defeasible",
            Strength::Defeater => "defeater",
        };
        if v.get("strength").and_then(Value::as_str) != Some(strength) {
            return Err(format!("rule {id} is {strength}, the explanation says {:?}", v.get("strength")));
        }
        check_label(v, &rule.labels)?;
        let locators: Vec<Option<&str>> =
            v.get("articles").and_then(Value::as_array).into_iter().flatten().map(|a| a["locator"].as_str()).collect();
        let want: Vec<Option<&str>> = rule.rule.anchors.iter().map(|a| ch.locators.get(a.as_str()).copied()).collect();
        if locators != want {
            return Err(format!("rule {id} cites articles {want:?}, the explanation {locators:?}"));
        }
        Ok(rule)
    }

    /// `overcame` of a node that is not `+D`: asked at `+d`, every applicable rule for the
    /// complement with an applicable strict or defeasible rule for the literal above it; every
    /// entry (at any layer) a real, beaten attack.
    fn attacks(&self, v: &Value, g: &G, ask: Ask) -> Result<(), String> {
        let ch = self.ch;
        let not_g = g.complement();
        let entries: Vec<&Value> = v.get("overcame").and_then(Value::as_array).into_iter().flatten().collect();
        if ask == Ask::Concluded {
            if holds(&self.st.definite, &not_g) {
                return Err(format!("concluded by a rule, but {} is +D", not_g.text()));
            }
            for s in &ch.rules {
                if ch.applicable(self.st, s.rule, &not_g) && !entries.iter().any(|e| e["attack"] == s.id) {
                    return Err(format!("the applicable attack {} is not listed as overcome", s.id));
                }
            }
        }
        for e in entries {
            let sid = e.get("attack").and_then(Value::as_str).unwrap_or_default();
            let s = ch.rule_ix.get(sid).map(|&i| &ch.rules[i]).ok_or_else(|| format!("no attacking rule {sid}"))?;
            if !ch.applicable(self.st, s.rule, &not_g) {
                return Err(format!("{sid} is listed as an attack, but it is not applicable for {}", not_g.text()));
            }
            if e.get("attack_label").and_then(Value::as_str).is_some_and(|l| !label_ok(l, &s.labels)) {
                return Err(format!("attack {sid} has the label {:?}", e["attack_label"]));
            }
            let tid = e
                .get("beaten_by")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("the attack {sid} is overcome by no rule"))?;
            let t = ch.rule_ix.get(tid).map(|&i| &ch.rules[i]).ok_or_else(|| format!("no beating rule {tid}"))?;
            if t.rule.strength == Strength::Defeater || !ch.applicable(self.st, t.rule, g) {
                return Err(format!("{sid} is beaten by {tid}, which is no applicable strict or defeasible rule here"));
            }
            let (pid, plabels) =
                ch.priorities.get(&(t.id, s.id)).ok_or_else(|| format!("no priority puts {tid} above {sid}"))?;
            if e.get("priority").and_then(Value::as_str) != Some(pid) {
                return Err(format!("{tid} beats {sid} by the priority {pid}, not {:?}", e.get("priority")));
            }
            if e.get("priority_label").and_then(Value::as_str).is_some_and(|l| !label_ok(l, plabels)) {
                return Err(format!("priority {pid} has the label {:?}", e["priority_label"]));
            }
        }
        Ok(())
    }
}

fn label_ok(label: &str, labels: &[&str]) -> bool {
    labels.contains(&label) || (labels.is_empty() && label.is_empty())
}

fn check_label(v: &Value, labels: &[&str]) -> Result<(), String> {
    match v.get("label").and_then(Value::as_str) {
        Some(l) if label_ok(l, labels) => Ok(()),
        other => Err(format!("label {other:?} is none of {labels:?}")),
    }
}

/// The literals of `rule`'s body with the status each is asked with, in order.
fn body_literals(rule: &ir::Rule) -> Vec<(Status, &ir::Literal)> {
    rule.body
        .iter()
        .filter_map(|i| match i {
            BodyItem::Literal(s, l) => Some((*s, l)),
            _ => None,
        })
        .collect()
}
