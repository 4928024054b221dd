//! Explanations: for a concluded literal, a proof of it down to input facts and closure
//! policies (docs/DECISIONS.md 31). A `+D` literal is always explained by a definite derivation
//! (an input fact, a closure negative, or a strict rule over definite premises), marked
//! `definite`; any other literal by an applicable strict or defeasible rule whose premises are
//! explained at the layer they ask, and, asked as concluded, every applicable attack on it with
//! the applicable strict or defeasible rule that beats it and the priority. Among the proofs of
//! each kind the one of minimal height is chosen. The rule instances come from the generated code
//! (`Batch::explain`); this module only chooses among them.

use crate::batch::{slot, Batch, Output};
pub use crate::instance::{Instance, Layer, Premise, Source};
use crate::schema::Schema;
use crate::value::Interner;
use hashbrown::{Equivalent, HashMap, HashSet};
use serde_json::{json, Map, Value};
use std::hash::Hash;

type Lit = (u32, bool, Vec<i64>);

/// A [`Lit`] borrowed, to look one up without building it: it hashes as a `Lit` does (a tuple's
/// fields in order, a vector as its slice).
#[derive(Hash)]
struct LitRef<'a>(u32, bool, &'a [i64]);

impl Equivalent<Lit> for LitRef<'_> {
    fn equivalent(&self, l: &Lit) -> bool {
        self.0 == l.0 && self.1 == l.1 && self.2 == &l.2[..]
    }
}

/// The maps and sets of literals of one case's explanations (foldhash, as `FastMap`).
type LitMap<V> = HashMap<Lit, V, foldhash::fast::RandomState>;

#[derive(Clone, Copy, PartialEq, Eq)]
enum How {
    Input,
    Instance(usize),
}

struct Heights {
    definite: LitMap<(u32, How)>,
    supported: LitMap<(u32, usize)>,
    concluded: LitMap<(u32, usize)>,
}

impl Heights {
    /// The height of the proof `l` gets asked at `layer`: a definite one whenever `l` is `+D`.
    fn get<Q: Hash + Equivalent<Lit>>(&self, layer: Layer, l: &Q) -> Option<u32> {
        if let Some(&(d, _)) = self.definite.get(l) {
            return Some(d);
        }
        match layer {
            Layer::Definite => None,
            Layer::Supported => self.supported.get(l).map(|x| x.0),
            Layer::Concluded => self.concluded.get(l).map(|x| x.0),
        }
    }
}

fn better<V: Copy>(m: &mut LitMap<(u32, V)>, k: Lit, h: u32, v: V) -> bool {
    match m.get(&k) {
        Some(&(old, _)) if old <= h => false,
        _ => {
            m.insert(k, (h, v));
            true
        }
    }
}

/// Explanations of one case's concluded institutional literals, keyed `name(a,b)`. The
/// output's instances must be sorted by case ([`Output::sort_instances`]).
pub fn explain_case(schema: &Schema, batch: &Batch, out: &Output, case: u32) -> Map<String, Value> {
    with_proofs(schema, batch, out, case, |ctx, wanted| {
        let mut map = Map::new();
        for l in wanted {
            let key = ctx.literal(l);
            map.insert(key, ctx.explain(Layer::Concluded, l, 0));
        }
        map
    })
}

/// The same proofs as [`explain_case`] as one flat table of derivations, keyed `name(a,b)`
/// (`--explain=refs`, docs/EXPLAIN.md): every concluded literal and every premise of a chosen
/// derivation once, its premises by their literal, rules, closures and priorities by id. What
/// the package says of them (labels, strengths, articles) is left to the package; an input fact
/// has an entry only as a concluded literal (`"fact":"input"`), never as a premise.
pub fn explain_case_refs(schema: &Schema, batch: &Batch, out: &Output, case: u32) -> Map<String, Value> {
    with_proofs(schema, batch, out, case, |ctx, wanted| ctx.refs(wanted))
}

/// Computes the minimal proofs of `case` and hands them, with its concluded institutional
/// literals, to `f`.
fn with_proofs<R>(schema: &Schema, batch: &Batch, out: &Output, case: u32, f: impl FnOnce(&Ctx<'_>, &[Lit]) -> R) -> R {
    let from = out.instances.partition_point(|i| i.case < case);
    let to = out.instances.partition_point(|i| i.case <= case);
    let instances: Vec<&Instance> = out.instances[from..to].iter().collect();
    let mut h = Heights { definite: LitMap::default(), supported: LitMap::default(), concluded: LitMap::default() };
    for (rel, info) in schema.relations.iter().enumerate() {
        for neg in [false, true] {
            let Some(rows) = batch.facts.get(slot(rel, neg)) else { continue };
            for row in rows.chunks_exact(info.params.len() + 1) {
                if row[0] == case as i64 {
                    h.definite.insert((rel as u32, neg, row[1..].to_vec()), (0, How::Input));
                }
            }
        }
    }
    // The literals known to be concluded: premises asked at +d, and the institutional output.
    let mut concluded_set: HashSet<Lit, foldhash::fast::RandomState> = HashSet::default();
    for i in &instances {
        for p in &i.premises {
            if p.layer == Layer::Concluded {
                concluded_set.insert((p.rel, p.negative, p.args.clone()));
            }
        }
    }
    let mut wanted: Vec<Lit> = Vec::new();
    for (rel, info) in schema.relations.iter().enumerate() {
        for neg in [false, true] {
            let Some(rows) = out.concluded.get(slot(rel, neg)) else { continue };
            for row in rows.chunks_exact(info.params.len() + 1) {
                if row[0] == case as i64 {
                    let l = (rel as u32, neg, row[1..].to_vec());
                    concluded_set.insert(l.clone());
                    wanted.push(l);
                }
            }
        }
    }
    // Minimal heights: relax until nothing improves (every height is bounded by the instance count).
    loop {
        let mut changed = false;
        for (ix, i) in instances.iter().enumerate() {
            let mut max = 0;
            let mut all = true;
            for p in &i.premises {
                match h.get(p.layer, &LitRef(p.rel, p.negative, &p.args)) {
                    Some(x) => max = max.max(x),
                    None => {
                        all = false;
                        break;
                    }
                }
            }
            if !all {
                continue;
            }
            let height = max + 1;
            let head: Lit = (i.rel, i.negative, i.head.clone());
            match i.source {
                Source::Closure { .. } | Source::Rule { definite: true, .. } => {
                    changed |= better(&mut h.definite, head, height, How::Instance(ix));
                }
                Source::Rule { rule, definite: false } => {
                    if schema.rules[rule as usize].strength == "defeater" {
                        continue;
                    }
                    changed |= better(&mut h.supported, head.clone(), height, ix);
                    if concluded_set.contains(&head) {
                        changed |= better(&mut h.concluded, head, height, ix);
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    // The applicable instances per head, for the attacks on a literal and their beaters.
    let mut applicable: LitMap<Vec<usize>> = LitMap::default();
    for (ix, i) in instances.iter().enumerate() {
        if matches!(i.source, Source::Rule { definite: false, .. }) {
            applicable.entry((i.rel, i.negative, i.head.clone())).or_default().push(ix);
        }
    }
    let ctx = Ctx { schema, names: &batch.interner, instances: &instances, h: &h, applicable: &applicable };
    f(&ctx, &wanted)
}

struct Ctx<'a> {
    schema: &'a Schema,
    names: &'a Interner,
    instances: &'a [&'a Instance],
    h: &'a Heights,
    applicable: &'a LitMap<Vec<usize>>,
}

impl Ctx<'_> {
    fn literal(&self, l: &Lit) -> String {
        let text = crate::batch::literal_string(&self.schema.relations[l.0 as usize], self.names, &l.2);
        if l.1 {
            format!("~{text}")
        } else {
            text
        }
    }

    fn rule_json(&self, rule: u32) -> Map<String, Value> {
        let r = &self.schema.rules[rule as usize];
        let mut m = Map::new();
        m.insert("rule".into(), json!(r.id));
        m.insert("label".into(), json!(self.schema.rule_label(rule as usize)));
        m.insert("strength".into(), json!(r.strength));
        m.insert("articles".into(), crate::schema::articles(self.schema, rule as usize));
        m
    }

    /// The fields of a derivation of `l` by closure `closure`, in both forms of explanation:
    /// its id, its snapshot and date of completeness when it has them, and why (the literal's
    /// positive is not supported).
    fn closure_fields(&self, closure: u32, l: &Lit, m: &mut Map<String, Value>) {
        let c = &self.schema.closures[closure as usize];
        m.insert("closure".into(), json!(c.id));
        if !c.snapshot.is_empty() {
            m.insert("snapshot".into(), json!(c.snapshot));
        }
        if !c.complete_as_of.is_empty() {
            m.insert("complete_as_of".into(), json!(c.complete_as_of));
        }
        let positive = (l.0, false, l.2.clone());
        m.insert("because".into(), json!(format!("{} is not supported", self.literal(&positive))));
    }

    /// Marks a derivation by a rule or closure that rests on no article of the package:
    /// `"unanchored":"rule"` when some derivation among its premises cites one, `"proof"` when
    /// none of its whole proof does (DECISIONS 50).
    fn mark_unanchored(m: &mut Map<String, Value>) {
        if m.get("articles").and_then(Value::as_array).is_some_and(|a| !a.is_empty()) {
            return;
        }
        let cites = |p: &Value| {
            p.get("articles").and_then(Value::as_array).is_some_and(|a| !a.is_empty())
                || p.get("unanchored").and_then(Value::as_str) == Some("rule")
        };
        let below = m.get("premises").and_then(Value::as_array).is_some_and(|ps| ps.iter().any(cites));
        m.insert("unanchored".into(), json!(if below { "rule" } else { "proof" }));
    }

    fn explain(&self, layer: Layer, l: &Lit, depth: usize) -> Value {
        let mut m = Map::new();
        m.insert("literal".into(), json!(self.literal(l)));
        if depth > 256 {
            m.insert("truncated".into(), json!(true));
            return Value::Object(m);
        }
        // A +D literal is explained by a definite derivation, however short another route is: an
        // applicable rule justifies it only with its attacks beaten, which +D does not need.
        if let Some(&(_, how)) = self.h.definite.get(l) {
            m.insert("definite".into(), json!(true));
            match how {
                How::Input => {
                    m.insert("fact".into(), json!("input"));
                }
                How::Instance(ix) => {
                    let i = self.instances[ix];
                    match i.source {
                        Source::Closure { closure } => {
                            self.closure_fields(closure, l, &mut m);
                            m.insert("label".into(), json!(self.schema.closure_label(closure as usize)));
                            m.insert("articles".into(), json!([]));
                        }
                        Source::Rule { rule, .. } => m.extend(self.rule_json(rule)),
                    }
                    m.insert("premises".into(), self.premises(i, depth));
                    Self::mark_unanchored(&mut m);
                }
            }
            return Value::Object(m);
        }
        let other = match layer {
            Layer::Definite => None,
            Layer::Supported => self.h.supported.get(l).copied(),
            Layer::Concluded => self.h.concluded.get(l).copied(),
        };
        let Some((_, ix)) = other else {
            m.insert("unexplained".into(), json!(true));
            return Value::Object(m);
        };
        let i = self.instances[ix];
        let Source::Rule { rule, .. } = i.source else { unreachable!("applicable instances come from rules") };
        m.insert("definite".into(), json!(false));
        m.extend(self.rule_json(rule));
        m.insert("premises".into(), self.premises(i, depth));
        Self::mark_unanchored(&mut m);
        if layer == Layer::Concluded {
            let attacks = self.overcame(l, rule);
            if !attacks.is_empty() {
                m.insert("overcame".into(), Value::Array(attacks));
            }
        }
        Value::Object(m)
    }

    fn premises(&self, i: &Instance, depth: usize) -> Value {
        Value::Array(
            i.premises
                .iter()
                .map(|p| {
                    let mut v = self.explain(p.layer, &(p.rel, p.negative, p.args.clone()), depth + 1);
                    if p.layer == Layer::Supported {
                        v["asked"] = json!("supported");
                    }
                    v
                })
                .collect(),
        )
    }

    /// Every applicable rule for the complement (defeaters included), with the applicable strict
    /// or defeasible rule for `l` that beats it.
    fn overcame(&self, l: &Lit, _used: u32) -> Vec<Value> {
        let mut out = Vec::new();
        let applicable_for = |neg: bool| {
            let ixs = self.applicable.get(&LitRef(l.0, neg, &l.2)).map_or(&[][..], Vec::as_slice);
            ixs.iter().map(|&ix| self.instances[ix])
        };
        let mut seen = Vec::new();
        for s in applicable_for(!l.1) {
            let Source::Rule { rule: sr, .. } = s.source else { continue };
            if seen.contains(&sr) {
                continue;
            }
            seen.push(sr);
            let beater = applicable_for(l.1).find_map(|t| {
                let Source::Rule { rule: tr, .. } = t.source else { return None };
                if self.schema.rules[tr as usize].strength == "defeater" {
                    return None; // a defeater attacks, it never beats an attack
                }
                self.schema.priorities.iter().position(|p| p.higher == tr && p.lower == sr).map(|p| (tr, p))
            });
            let mut a = Map::new();
            a.insert("attack".into(), json!(self.schema.rules[sr as usize].id));
            a.insert("attack_label".into(), json!(self.schema.rule_label(sr as usize)));
            if let Some((tr, p)) = beater {
                let priority = &self.schema.priorities[p];
                a.insert("beaten_by".into(), json!(self.schema.rules[tr as usize].id));
                a.insert("priority".into(), json!(priority.id));
                a.insert("priority_label".into(), json!(self.schema.priority_label(p)));
                if !priority.reason.is_empty() {
                    a.insert("priority_reason".into(), json!(priority.reason));
                }
            }
            out.push(Value::Object(a));
        }
        out
    }

    /// The instance chosen to explain `l` asked at `layer`, as [`Self::explain`] chooses it: a
    /// definite derivation whenever `l` is `+D` (`None` for an input fact), else the applicable
    /// rule of the layer (`None`: unexplained).
    fn chosen(&self, layer: Layer, l: &Lit) -> Option<usize> {
        if let Some(&(_, how)) = self.h.definite.get(l) {
            return match how {
                How::Input => None,
                How::Instance(ix) => Some(ix),
            };
        }
        match layer {
            Layer::Definite => None,
            Layer::Supported => self.h.supported.get(l).map(|x| x.1),
            Layer::Concluded => self.h.concluded.get(l).map(|x| x.1),
        }
    }

    /// The flat table of [`explain_case_refs`] for the concluded literals `wanted`.
    fn refs(&self, wanted: &[Lit]) -> Map<String, Value> {
        // Every literal the proofs reach, once, with the layers it is asked at (a bit each) and
        // whether it is concluded by the case (asked at the top).
        const TOP: u8 = 8;
        let bit = |layer: Layer| match layer {
            Layer::Definite => 1u8,
            Layer::Supported => 2,
            Layer::Concluded => 4,
        };
        let mut index: LitMap<usize> = LitMap::default();
        let mut nodes: Vec<(Lit, u8)> = Vec::new();
        let mut stack: Vec<(Lit, Layer, u8)> =
            wanted.iter().rev().map(|l| (l.clone(), Layer::Concluded, TOP)).collect();
        while let Some((l, layer, top)) = stack.pop() {
            let n = match index.get(&l) {
                Some(&n) => n,
                None => {
                    index.insert(l.clone(), nodes.len());
                    nodes.push((l.clone(), 0));
                    nodes.len() - 1
                }
            };
            let asked = bit(layer) | top;
            if nodes[n].1 & asked == asked {
                continue;
            }
            let seen = nodes[n].1 & 7 != 0;
            nodes[n].1 |= asked;
            if seen && self.h.definite.contains_key(&l) {
                continue; // a definite derivation is chosen at every layer: its premises are listed
            }
            if let Some(ix) = self.chosen(layer, &l) {
                for p in &self.instances[ix].premises {
                    stack.push(((p.rel, p.negative, p.args.clone()), p.layer, 0));
                }
            }
        }
        // The layer each literal's entry answers (the highest it is asked at) and its derivation.
        let layer_of = |bits: u8| {
            if bits & 4 != 0 {
                Layer::Concluded
            } else if bits & 2 != 0 {
                Layer::Supported
            } else {
                Layer::Definite
            }
        };
        let chosen: Vec<Option<usize>> = nodes.iter().map(|(l, bits)| self.chosen(layer_of(*bits), l)).collect();
        // Which derivations cite an article, and which have one citing below them (reached up
        // the premises from every citing derivation): `unanchored` as the full form marks it.
        let cites = |n: usize| match chosen[n].map(|ix| self.instances[ix].source) {
            Some(Source::Rule { rule, .. }) => !self.schema.rules[rule as usize].anchors.is_empty(),
            _ => false,
        };
        let premises_of = |n: usize| {
            chosen[n]
                .map_or(&[][..], |ix| &self.instances[ix].premises[..])
                .iter()
                .filter_map(|p| index.get(&LitRef(p.rel, p.negative, &p.args)).copied())
        };
        let mut parents: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for n in 0..nodes.len() {
            for q in premises_of(n) {
                parents[q].push(n);
            }
        }
        let mut reaches: Vec<bool> = (0..nodes.len()).map(cites).collect();
        let mut work: Vec<usize> = (0..nodes.len()).filter(|&n| reaches[n]).collect();
        while let Some(n) = work.pop() {
            for &m in &parents[n] {
                if !reaches[m] {
                    reaches[m] = true;
                    work.push(m);
                }
            }
        }
        let texts: Vec<String> = nodes.iter().map(|(l, _)| self.literal(l)).collect();
        let mut table = Map::new();
        for (n, (l, bits)) in nodes.iter().enumerate() {
            let mut m = Map::new();
            let definite = self.h.definite.get(l).map(|x| x.1);
            if definite == Some(How::Input) {
                if bits & TOP == 0 {
                    continue;
                }
                m.insert("definite".into(), json!(true));
                m.insert("fact".into(), json!("input"));
                table.insert(texts[n].clone(), Value::Object(m));
                continue;
            }
            let Some(ix) = chosen[n] else {
                m.insert("unexplained".into(), json!(true));
                table.insert(texts[n].clone(), Value::Object(m));
                continue;
            };
            let i = self.instances[ix];
            m.insert("definite".into(), json!(definite.is_some()));
            match i.source {
                Source::Closure { closure } => self.closure_fields(closure, l, &mut m),
                Source::Rule { rule, .. } => {
                    m.insert("rule".into(), json!(self.schema.rules[rule as usize].id));
                }
            }
            // Every premise was reached, so has a node (an input fact's writes no entry).
            let text = |p: &Premise| json!(texts[index[&LitRef(p.rel, p.negative, &p.args)]]);
            let premises: Vec<Value> = i.premises.iter().map(text).collect();
            let supported: Vec<Value> = i.premises.iter().filter(|p| p.layer == Layer::Supported).map(text).collect();
            m.insert("premises".into(), Value::Array(premises));
            if !supported.is_empty() {
                m.insert("asked_supported".into(), Value::Array(supported));
            }
            if !cites(n) {
                let below = premises_of(n).any(|q| reaches[q]);
                m.insert("unanchored".into(), json!(if below { "rule" } else { "proof" }));
            }
            if let (None, Source::Rule { rule, .. }, Layer::Concluded) = (definite, i.source, layer_of(*bits)) {
                let attacks: Vec<Value> = self
                    .overcame(l, rule)
                    .into_iter()
                    .map(|mut a| {
                        if let Some(a) = a.as_object_mut() {
                            a.retain(|k, _| matches!(k.as_str(), "attack" | "beaten_by" | "priority"));
                        }
                        a
                    })
                    .collect();
                if !attacks.is_empty() {
                    m.insert("overcame".into(), Value::Array(attacks));
                }
            }
            table.insert(texts[n].clone(), Value::Object(m));
        }
        table
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::hash::BuildHasher;

    proptest! {
        /// A borrowed literal hashes as the literal does and finds exactly it in a map.
        #[test]
        fn a_borrowed_literal_finds_its_literal(lits in prop::collection::vec((0u32..3, any::<bool>(), prop::collection::vec(-2i64..3, 0..4)), 0..12), probe in (0u32..3, any::<bool>(), prop::collection::vec(-2i64..3, 0..4))) {
            let mut map: LitMap<usize> = LitMap::default();
            for (i, l) in lits.iter().enumerate() {
                map.entry(l.clone()).or_insert(i);
            }
            let hasher = map.hasher();
            prop_assert_eq!(hasher.hash_one(&probe), hasher.hash_one(LitRef(probe.0, probe.1, &probe.2)));
            prop_assert_eq!(map.get(&LitRef(probe.0, probe.1, &probe.2)), map.get(&probe));
            prop_assert_eq!(map.get(&probe).is_some(), lits.contains(&probe));
        }
    }
}
