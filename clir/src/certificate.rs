//! Certificates (docs/CERTIFICATES.md): for one ruled case, every literal of its three layers
//! (`+D`, `+S` beyond `+D`, `+d` beyond `+D`) with a rank and the rule instance, closure or input
//! fact that puts it there, so that a checker that trusts neither this engine nor its compiler
//! (`clir-check`) can confirm the ruling is the package's fixpoint for the case line.
//!
//! A certificate is built from the ground rule and closure instances the generated code records
//! (`Batch::explain`): every recorded instance holds in the case's final relations, so the layers
//! are read off them, and each literal's rank is the least height of a derivation of it, found
//! breadth first (linear in the instances).

use crate::batch::{case_range, slot, Batch, Output};
use crate::explain::{Instance, Layer, Source};
use crate::schema::Schema;
use crate::value::{FastMap, Sym};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::VecDeque;

/// The format name every certificate carries.
pub const FORMAT: &str = "clir.certificate/1";

type Lit = (u32, bool, Vec<i64>);

/// An entry: its layer and its index in the layer's list.
type EntryId = (Tier, usize);

/// A layer of the certificate: `+D`, `+S` beyond `+D`, `+d` beyond `+D`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Tier {
    D,
    S,
    C,
}

impl Tier {
    fn key(self) -> &'static str {
        match self {
            Tier::D => "D",
            Tier::S => "S",
            Tier::C => "d",
        }
    }
}

/// One way to put a literal in a layer: an instance (by index) whose premises are these entries.
struct Way {
    target: EntryId,
    instance: usize,
    premises: Vec<EntryId>,
}

/// `sha256:` and the hex sha256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(71);
    out.push_str("sha256:");
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The certificate of case `case` of `batch`, ruled into `out` (instances sorted by case,
/// [`Output::sort_instances`]), whose case line is `line`.
pub fn certificate(schema: &Schema, batch: &Batch, out: &Output, case: u32, line: &str) -> Value {
    let from = out.instances.partition_point(|i| i.case < case);
    let to = out.instances.partition_point(|i| i.case <= case);
    let instances = &out.instances[from..to];
    let mut layers = Layers::default();
    let mut facts = Vec::new();
    for (rel, info) in schema.relations.iter().enumerate() {
        let stride = info.params.len() + 1;
        for neg in [false, true] {
            let rows = &batch.facts[slot(rel, neg)];
            for row in rows[case_range(rows, stride, case)].chunks_exact(stride) {
                let l = (rel as u32, neg, row[1..].to_vec());
                if layers.add(Tier::D, l) {
                    facts.push(layers.d.len() - 1);
                }
            }
        }
    }
    // Every recorded instance holds in the final relations: the layers are their heads.
    let mut applicable: FastMap<Lit, Vec<u32>> = FastMap::default();
    for i in instances {
        if is_definite(i) {
            layers.add(Tier::D, head(i));
        }
    }
    for i in instances {
        if let Source::Rule { rule, definite: false } = i.source {
            applicable.entry(head(i)).or_default().push(rule);
        }
    }
    let beats = |t: u32, s: u32| schema.priorities.iter().position(|p| p.higher == t && p.lower == s);
    let mut overcame: FastMap<Lit, Vec<(u32, u32, usize)>> = FastMap::default();
    for i in instances {
        let h = head(i);
        if !is_rule_for(schema, i) || layers.find(Tier::D, &h).is_some() {
            continue;
        }
        layers.add(Tier::S, h.clone());
        let complement = (h.0, !h.1, h.2.clone());
        if layers.find(Tier::D, &complement).is_some() || layers.find(Tier::C, &h).is_some() {
            continue;
        }
        let winners: Vec<u32> =
            applicable[&h].iter().copied().filter(|&t| schema.rules[t as usize].strength != "defeater").collect();
        let mut beaten = Vec::new();
        let mut all = true;
        let mut attackers: Vec<u32> = applicable.get(&complement).cloned().unwrap_or_default();
        attackers.sort_unstable();
        attackers.dedup();
        for s in attackers {
            match winners.iter().find_map(|&t| beats(t, s).map(|p| (s, t, p))) {
                Some(b) => beaten.push(b),
                None => all = false,
            }
        }
        if all {
            layers.add(Tier::C, h.clone());
            overcame.insert(h, beaten);
        }
    }
    let ways = ways(schema, &layers, instances);
    let (ranks, chosen) = rank(&ways, &facts);
    let mut w = Writer { schema, batch, nodes: Vec::new(), node_ix: FastMap::default(), renumber: FastMap::default() };
    let orders = [Tier::D, Tier::S, Tier::C].map(|t| {
        let mut order: Vec<usize> = (0..layers.list(t).len()).filter(|&e| ranks.contains_key(&(t, e))).collect();
        order.sort_by_key(|&e| (ranks[&(t, e)], e));
        for (new, &e) in order.iter().enumerate() {
            w.renumber.insert((t, e), new);
        }
        (t, order)
    });
    let mut tiers = serde_json::Map::new();
    for (t, order) in orders {
        tiers.insert(
            t.key().into(),
            Value::Array(
                order
                    .into_iter()
                    .map(|e| {
                        let key = (t, e);
                        let mut entry = vec![json!(ranks[&key]), w.literal(&layers.list(t)[e])];
                        match chosen.get(&key) {
                            None => entry.push(json!("fact")),
                            Some(&way) => {
                                let way = &ways[way];
                                let i = &instances[way.instance];
                                let node = match i.source {
                                    Source::Rule { rule, .. } => w.node(NodeRef::Rule(rule)),
                                    Source::Closure { closure } => w.node(NodeRef::Closure(closure)),
                                };
                                let refs: Vec<Value> = way.premises.iter().map(|&p| w.reference(p)).collect();
                                entry.push(json!([node, refs]));
                                if t == Tier::C {
                                    if let Some(beaten) = overcame.get(&layers.c[e]).filter(|b| !b.is_empty()) {
                                        let beaten: Vec<Value> = beaten
                                            .iter()
                                            .map(|&(s, t, p)| {
                                                json!([
                                                    w.node(NodeRef::Rule(s)),
                                                    w.node(NodeRef::Rule(t)),
                                                    w.node(NodeRef::Priority(p as u32))
                                                ])
                                            })
                                            .collect();
                                        entry.push(Value::Array(beaten));
                                    }
                                }
                            }
                        }
                        Value::Array(entry)
                    })
                    .collect(),
            ),
        );
    }
    let mut cert = serde_json::Map::new();
    cert.insert("format".into(), json!(FORMAT));
    cert.insert("seal".into(), json!(schema.seal));
    cert.insert("case".into(), json!(sha256(line.as_bytes())));
    cert.insert("nodes".into(), json!(w.nodes));
    cert.extend(tiers);
    Value::Object(cert)
}

fn head(i: &Instance) -> Lit {
    (i.rel, i.negative, i.head.clone())
}

/// Whether `i` is an applicable instance of a strict or defeasible rule: one that supports its
/// head (a defeater only attacks).
fn is_rule_for(schema: &Schema, i: &Instance) -> bool {
    matches!(i.source, Source::Rule { rule, definite: false } if schema.rules[rule as usize].strength != "defeater")
}

fn is_definite(i: &Instance) -> bool {
    matches!(i.source, Source::Closure { .. } | Source::Rule { definite: true, .. })
}

/// The literals of each layer, indexed.
#[derive(Default)]
struct Layers {
    d: Vec<Lit>,
    s: Vec<Lit>,
    c: Vec<Lit>,
    index: FastMap<(Tier, Lit), usize>,
}

impl Layers {
    fn list(&self, t: Tier) -> &Vec<Lit> {
        match t {
            Tier::D => &self.d,
            Tier::S => &self.s,
            Tier::C => &self.c,
        }
    }

    /// Adds `l` to layer `t`; whether it was new.
    fn add(&mut self, t: Tier, l: Lit) -> bool {
        if self.index.contains_key(&(t, l.clone())) {
            return false;
        }
        let list = match t {
            Tier::D => &mut self.d,
            Tier::S => &mut self.s,
            Tier::C => &mut self.c,
        };
        list.push(l.clone());
        self.index.insert((t, l), list.len() - 1);
        true
    }

    fn find(&self, t: Tier, l: &Lit) -> Option<usize> {
        self.index.get(&(t, l.clone())).copied()
    }

    /// The entry a premise asked in `layer` rests on: its `+D` entry when it is definite.
    fn premise(&self, layer: Layer, l: &Lit) -> Option<EntryId> {
        if let Some(i) = self.find(Tier::D, l) {
            return Some((Tier::D, i));
        }
        match layer {
            Layer::Definite => None,
            Layer::Supported => self.find(Tier::S, l).map(|i| (Tier::S, i)),
            Layer::Concluded => self.find(Tier::C, l).map(|i| (Tier::C, i)),
        }
    }
}

/// Every way an instance puts its head in a layer it is listed in.
fn ways(schema: &Schema, layers: &Layers, instances: &[Instance]) -> Vec<Way> {
    let mut out = Vec::new();
    for (ix, i) in instances.iter().enumerate() {
        let h = head(i);
        let premises: Option<Vec<EntryId>> =
            i.premises.iter().map(|p| layers.premise(p.layer, &(p.rel, p.negative, p.args.clone()))).collect();
        let Some(premises) = premises else { continue };
        let mut targets = Vec::new();
        if is_definite(i) {
            targets.extend(layers.find(Tier::D, &h).map(|e| (Tier::D, e)));
        } else if is_rule_for(schema, i) {
            targets.extend(layers.find(Tier::S, &h).map(|e| (Tier::S, e)));
            targets.extend(layers.find(Tier::C, &h).map(|e| (Tier::C, e)));
        }
        for target in targets {
            out.push(Way { target, instance: ix, premises: premises.clone() });
        }
    }
    out
}

/// Each entry's rank (the least height of a derivation) and the way that gives it, breadth
/// first: a way is ready when its last premise is ranked, and ranks come out in order.
fn rank(ways: &[Way], facts: &[usize]) -> (FastMap<EntryId, u32>, FastMap<EntryId, usize>) {
    let mut ranks: FastMap<EntryId, u32> = FastMap::default();
    let mut chosen: FastMap<EntryId, usize> = FastMap::default();
    let mut waiting: FastMap<EntryId, Vec<usize>> = FastMap::default();
    let mut left: Vec<usize> = Vec::with_capacity(ways.len());
    let mut queue: VecDeque<(EntryId, u32)> = VecDeque::new();
    for &f in facts {
        ranks.insert((Tier::D, f), 0);
        queue.push_back(((Tier::D, f), 0));
    }
    for (w, way) in ways.iter().enumerate() {
        let mut distinct = way.premises.clone();
        distinct.sort_unstable_by_key(|&(t, i)| (t.key(), i));
        distinct.dedup();
        left.push(distinct.len());
        for p in distinct {
            waiting.entry(p).or_default().push(w);
        }
        if way.premises.is_empty() && !ranks.contains_key(&way.target) {
            ranks.insert(way.target, 1);
            chosen.insert(way.target, w);
            queue.push_back((way.target, 1));
        }
    }
    while let Some((node, r)) = queue.pop_front() {
        for &w in waiting.get(&node).map_or(&[][..], Vec::as_slice) {
            left[w] -= 1;
            let target = ways[w].target;
            if left[w] == 0 && !ranks.contains_key(&target) {
                ranks.insert(target, r + 1);
                chosen.insert(target, w);
                queue.push_back((target, r + 1));
            }
        }
    }
    (ranks, chosen)
}

/// A package node a certificate names.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum NodeRef {
    Rule(u32),
    Closure(u32),
    Priority(u32),
}

/// Writes entries: the node table as it fills, literals, and references renumbered by rank.
struct Writer<'a> {
    schema: &'a Schema,
    batch: &'a Batch,
    nodes: Vec<&'static str>,
    node_ix: FastMap<NodeRef, usize>,
    renumber: FastMap<EntryId, usize>,
}

impl Writer<'_> {
    fn node(&mut self, n: NodeRef) -> usize {
        if let Some(&i) = self.node_ix.get(&n) {
            return i;
        }
        let id = match n {
            NodeRef::Rule(r) => self.schema.rules[r as usize].id,
            NodeRef::Closure(c) => self.schema.closures[c as usize].id,
            NodeRef::Priority(p) => self.schema.priorities[p as usize].id,
        };
        self.nodes.push(id);
        self.node_ix.insert(n, self.nodes.len() - 1);
        self.nodes.len() - 1
    }

    fn reference(&self, (t, e): EntryId) -> Value {
        json!(format!("{}{}", t.key(), self.renumber.get(&(t, e)).copied().unwrap_or(usize::MAX)))
    }

    /// `["name", args..]`, `~name` for a negative; Integers as numbers, names as strings.
    fn literal(&self, (rel, neg, args): &Lit) -> Value {
        let info = &self.schema.relations[*rel as usize];
        let mut out = Vec::with_capacity(args.len() + 1);
        out.push(json!(if *neg { format!("~{}", info.name) } else { info.name.to_string() }));
        for (p, &v) in info.params.iter().zip(args) {
            out.push(if p.integer { json!(v) } else { json!(self.batch.interner.name(Sym(v as u32))) });
        }
        Value::Array(out)
    }
}
