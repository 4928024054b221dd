//! The calls of the rules' functions (ascent's `MirRelationVersion` is the model): per layer
//! set, each call with what it passes for each operand (a final layer, or a variable's recent,
//! stable or total tuples in a semi-naive round) and whether it records explanation instances;
//! per contested stratum, each rule's applicability; per rule, the explaining calls no stratum
//! makes, left to `explain`. `emit` prints these calls as they are.
//!
//! A call records explanations when it is one of the rule's explaining calls ([`explaining`]),
//! over final layers, and no earlier call (in evaluation order) recorded that one already.

use super::layers::{layer, operand_layer, Layer, LayerId, LayerSet, Start};
use super::{RulePlan, Shape, StratumPlan};
use crate::ir::Strength;
use crate::resolve::Program;
use crate::strata::Strata;

/// What a call passes for one operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// A final layer (of a lower stratum, or computed before the call).
    Layer(LayerId),
    /// The tuples a variable of the iteration gained in the last round.
    Recent(LayerId),
    /// A variable's tuples before the last round.
    Stable(LayerId),
    /// A variable's tuples so far, the last round's included.
    Total(LayerId),
}

impl Arg {
    /// The layer the operand is read from.
    pub fn layer(self) -> LayerId {
        match self {
            Arg::Layer(id) | Arg::Recent(id) | Arg::Stable(id) | Arg::Total(id) => id,
        }
    }
}

/// Which explanation instances a call records: over applicable premises, definite ones, or both
/// (a strict rule whose premises are read from the same layers either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modes {
    /// Over applicable premises.
    Applicable,
    /// Over definite premises.
    Definite,
    /// Both.
    Both,
}

impl Modes {
    /// Per mode recorded, whether it is the definite one (`::clir::rt::Explain::to`'s flags).
    pub fn flags(self) -> &'static [bool] {
        match self {
            Modes::Applicable => &[false],
            Modes::Definite => &[true],
            Modes::Both => &[false, true],
        }
    }
}

/// One call of a rule's function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// The rule.
    pub rule: usize,
    /// Per operand, in the rule's operand order, what is passed.
    pub args: Vec<Arg>,
    /// The explanation instances it records (when explanations are compiled in).
    pub record: Option<Modes>,
    /// In a round, each of the rule's calls numbered when it has several.
    pub nth: Option<usize>,
    /// Made in each round of the iteration, rather than once before the rounds.
    pub round: bool,
    /// Its heads are also the rule's applicability in the stratum's contest (kept, not found
    /// again: [`LayerSet::shared`]).
    pub kept: bool,
}

impl Call {
    fn over(rule: usize, args: Vec<Arg>) -> Call {
        Call { rule, args, record: None, nth: None, round: false, kept: false }
    }
}

/// Per rule, its explaining calls: the layers its operands read and the modes recorded. Every
/// rule's over applicable premises; a strict rule's over definite ones too, in the same call
/// when those are the layers it reads anyway.
pub fn explaining(p: &Program, s: &Strata, rp: &RulePlan) -> Vec<(Vec<LayerId>, Modes)> {
    let layers = |definite: bool| -> Vec<LayerId> {
        rp.operands.iter().map(|o| operand_layer(s, o.read, o.literal.rel, o.literal.negative, definite)).collect()
    };
    let applicable = layers(false);
    if p.rules[rp.rule].strength != Strength::Strict {
        return vec![(applicable, Modes::Applicable)];
    }
    let definite = layers(true);
    if definite == applicable {
        vec![(applicable, Modes::Both)]
    } else {
        vec![(applicable, Modes::Applicable), (definite, Modes::Definite)]
    }
}

/// Which explaining calls each rule has made so far, in evaluation order.
struct Recorder<'a> {
    explaining: Vec<Vec<(Vec<LayerId>, Modes)>>,
    made: Vec<Vec<usize>>,
    rules: &'a [RulePlan],
}

impl Recorder<'_> {
    /// The modes a call of rule `ri` over the final layers `layers` records: those of one of its
    /// explaining calls over them not made yet (now made).
    fn record(&mut self, ri: usize, layers: &[LayerId]) -> Option<Modes> {
        let calls = &self.explaining[ri];
        let k = (0..calls.len()).find(|&k| calls[k].0 == layers && !self.made[ri].contains(&k))?;
        self.made[ri].push(k);
        Some(calls[k].1)
    }

    /// A call of rule `ri` over final layers `layers`, recording what it may.
    fn once(&mut self, ri: usize, layers: &[LayerId]) -> Call {
        let mut call = Call::over(ri, layers.iter().map(|&id| Arg::Layer(id)).collect());
        call.record = self.record(ri, layers);
        call
    }

    /// The layers rule `ri`'s operands read, over definite premises or applicable ones.
    fn layers(&self, s: &Strata, ri: usize, definite: bool) -> Vec<LayerId> {
        let ops = &self.rules[ri].operands;
        ops.iter().map(|o| operand_layer(s, o.read, o.literal.rel, o.literal.negative, definite)).collect()
    }

    /// The calls of layer set `set`, head by head: without an iteration, one call over final
    /// layers; in one, a rule that reads no variable once before the rounds, one that may find
    /// over the variables' start what `+D` lacks once over it, then semi-naive: one call per
    /// operand read from a variable, its recent tuples against the stable ones of those before
    /// it and all so far of those after it.
    fn layer_set(&mut self, s: &Strata, set: &mut LayerSet) {
        let mut calls = Vec::new();
        let (mut stable, mut total) = (Vec::new(), Vec::new());
        for h in &set.heads {
            let ri = h.rule;
            let layers = self.layers(s, ri, set.definite);
            if !set.iteration || h.own.is_empty() {
                let mut call = self.once(ri, &layers);
                call.kept = set.shared.contains(&ri);
                calls.push(call);
                continue;
            }
            if h.over_start {
                let definite = self.layers(s, ri, true);
                let args =
                    (0..layers.len()).map(|k| Arg::Layer(if h.own.contains(&k) { definite[k] } else { layers[k] }));
                calls.push(Call::over(ri, args.collect()));
            }
            let several = h.own.len() > 1;
            for i in 0..h.own.len() {
                let args = layers.iter().enumerate().map(|(k, &id)| match h.own.iter().position(|&d| d == k) {
                    Some(x) if x == i => Arg::Recent(id),
                    Some(x) if x < i => {
                        stable.push(id);
                        Arg::Stable(id)
                    }
                    Some(_) => {
                        total.push(id);
                        Arg::Total(id)
                    }
                    None => Arg::Layer(id),
                });
                let mut call = Call::over(ri, args.collect());
                call.round = true;
                call.nth = several.then_some(i);
                calls.push(call);
            }
        }
        for ids in [&mut stable, &mut total] {
            ids.sort();
            ids.dedup();
        }
        (set.calls, set.stable, set.total) = (calls, stable, total);
    }
}

/// A rule's applicability in a contested stratum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applies {
    /// Found by this call.
    Call(Call),
    /// Kept from the rule's call for `+D` ([`LayerSet::shared`]).
    Kept(usize),
    /// The rule never applies: empty.
    Never(usize),
}

/// Fills in the calls of every layer set and contest of `strata`, in evaluation order; returns,
/// per rule, the explaining calls no stratum made (over the final layers, for `explain`).
pub fn plan_calls(p: &Program, s: &Strata, rules: &[RulePlan], strata: &mut [StratumPlan]) -> Vec<Vec<Call>> {
    let explaining: Vec<_> = rules.iter().map(|rp| explaining(p, s, rp)).collect();
    let mut rec = Recorder { explaining, made: vec![Vec::new(); rules.len()], rules };
    for st in strata.iter_mut() {
        rec.layer_set(s, &mut st.definite_set);
        if let Some(set) = &mut st.applicable_set {
            rec.layer_set(s, set);
        }
        if st.shape == Shape::Contested {
            st.applies = (st.applicable.iter())
                .map(|&ri| match () {
                    _ if st.definite_set.shared.contains(&ri) => Applies::Kept(ri),
                    _ if rules[ri].never => Applies::Never(ri),
                    _ => Applies::Call(rec.once(ri, &rec.layers(s, ri, false))),
                })
                .collect();
        }
        let sets = std::iter::once(&st.definite_set).chain(st.applicable_set.as_ref());
        let calls: Vec<&Call> = sets.clone().flat_map(|set| &set.calls).collect();
        let applies = st.applies.iter().filter_map(|a| match a {
            Applies::Call(c) => Some(c),
            _ => None,
        });
        st.records = calls.iter().copied().chain(applies).any(|c| c.record.is_some());
        // A stratum of input facts only is read into the store, not evaluated.
        st.evaluates = st.shape != Shape::Inputs
            && (st.shape == Shape::Contested
                || !st.closures.is_empty()
                || sets.into_iter().any(|set| !set.heads.is_empty() || !set.fixed.is_empty()));
        st.frame = frame(p, s, rules, st);
        st.direct = direct(st, rules);
    }
    (0..rules.len())
        .map(|ri| {
            if rules[ri].never {
                return Vec::new();
            }
            let calls = &rec.explaining[ri];
            (0..calls.len())
                .filter(|k| !rec.made[ri].contains(k))
                .map(|k| {
                    let mut call = Call::over(ri, calls[k].0.iter().map(|&id| Arg::Layer(id)).collect());
                    call.record = Some(calls[k].1);
                    call
                })
                .collect()
        })
        .collect()
}

/// Whether stratum `st` is evaluated by one call over final layers, whose heads are its one
/// layer, and no view of the call's operands is built first.
fn direct(st: &StratumPlan, rules: &[RulePlan]) -> bool {
    let set = &st.definite_set;
    st.evaluates
        && st.shape == Shape::Collapsed
        && st.closures.is_empty()
        && st.frame.inputs.is_empty()
        && st.frame.writes.len() == 1
        && !set.iteration
        && set.fixed.is_empty()
        && matches!(set.layers.as_slice(), [(_, Start::Empty)])
        && matches!(set.heads.as_slice(), [h] if h.unless.is_none())
        && matches!(set.calls.as_slice(), [c] if rules[c.rule].views.is_empty()
            && c.args.iter().all(|a| matches!(a, Arg::Layer(_))))
}

/// What a stratum's function takes and returns: the final layers it reads (of lower strata, or
/// of its own relations that nothing builds), by reference; the input facts its layers start
/// from, by value; and the layers it computes, returned. Its caller moves them in and out of
/// the evaluation's store, so that the function names no other layer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frame {
    /// The layers read before the stratum computes them, in the order first read.
    pub reads: Vec<LayerId>,
    /// The input facts taken, as (relation, negative).
    pub inputs: Vec<(usize, bool)>,
    /// It reads the batch's cases (a rule tried once per case).
    pub cases: bool,
    /// A join of it spends the case's budget.
    pub budget: bool,
    /// The layers it computes, in the order first computed.
    pub writes: Vec<LayerId>,
    /// The closures it applies (each's negatives a layer it returns).
    pub closures: Vec<usize>,
}

impl Frame {
    fn read(&mut self, id: LayerId) {
        if !self.writes.contains(&id) && !self.reads.contains(&id) {
            self.reads.push(id);
        }
    }

    fn write(&mut self, id: LayerId) {
        if !self.writes.contains(&id) {
            self.writes.push(id);
        }
    }

    /// Adds what `other` reads (a function doing both).
    pub fn merge(&mut self, other: &Frame) {
        other.reads.iter().for_each(|&id| self.read(id));
        self.inputs.extend(other.inputs.iter().copied());
        self.cases |= other.cases;
        self.budget |= other.budget;
    }

    /// Adds what `call` reads.
    pub fn call(&mut self, call: &Call, rules: &[RulePlan]) {
        for a in &call.args {
            if let Arg::Layer(id) = a {
                self.read(*id);
            }
        }
        self.cases |= rules[call.rule].per_case;
        self.budget |= rules[call.rule].extends();
    }

    fn layer_set(&mut self, set: &LayerSet, rules: &[RulePlan]) {
        for &(id, start) in set.fixed.iter().chain(&set.layers) {
            match start {
                Start::Empty => {}
                Start::Input => self.inputs.push((id.rel, id.negative)),
                Start::Copy(d) => self.read(d),
            }
        }
        set.calls.iter().for_each(|c| self.call(c, rules));
        set.heads.iter().filter_map(|h| h.unless).for_each(|(_, d)| self.read(d));
        set.fixed.iter().chain(&set.layers).for_each(|&(id, _)| self.write(id));
    }
}

/// The frame of stratum `st`, its statements taken in the order its function makes them.
pub fn frame(p: &Program, s: &Strata, rules: &[RulePlan], st: &StratumPlan) -> Frame {
    let mut f = Frame::default();
    f.layer_set(&st.definite_set, rules);
    if let Some(set) = &st.applicable_set {
        f.layer_set(set, rules);
    }
    for a in &st.applies {
        if let Applies::Call(c) = a {
            f.call(c, rules);
        }
    }
    for c in &st.contests {
        let rel = st.rels[0];
        f.read(layer(s, rel, c.negative, Layer::Definite));
        f.read(layer(s, rel, !c.negative, Layer::Definite));
        f.write(layer(s, rel, c.negative, Layer::Supported));
        f.write(layer(s, rel, c.negative, Layer::Concluded));
    }
    for &ci in &st.closures {
        let c = &p.closures[ci];
        f.read(layer(s, c.domain, false, Layer::Concluded));
        f.read(layer(s, c.rel, false, Layer::Supported));
        for l in [Layer::Definite, Layer::Supported, Layer::Concluded] {
            let id = layer(s, c.rel, true, l);
            f.read(id);
            f.write(id);
        }
        f.closures.push(ci);
    }
    f
}
