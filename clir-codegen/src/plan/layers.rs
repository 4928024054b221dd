//! Which layers a stratum computes, what each starts from, which rule adds its heads to which,
//! whether a layer set is a datafrog `Iteration`, which layers are always empty (never built),
//! and, in a contested stratum, who supports and who attacks each sign.

use super::{Read, RulePlan};
use crate::ir::{RelationKind, Strength};
use crate::resolve::Program;
use crate::strata::Strata;

/// Which conclusions a layer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layer {
    /// `+D`.
    Definite,
    /// `+S`.
    Supported,
    /// `+d`.
    Concluded,
}

/// One relation of the evaluation: `layer` of relation `rel` with sign `negative`, as the
/// layers that coincide with it share it (see [`layer`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LayerId {
    /// The relation.
    pub rel: usize,
    /// Its sign.
    pub negative: bool,
    /// The layer holding it.
    pub layer: Layer,
}

/// The layer that holds `layer` of relation `rel` with sign `negative`: a collapsed relation has
/// one (its `+d`), and `+S` is `+d` where no definite complement can defeat it.
pub fn layer(s: &Strata, rel: usize, negative: bool, layer: Layer) -> LayerId {
    let info = &s.rels[rel];
    let layer = match layer {
        _ if info.collapsed => Layer::Concluded,
        Layer::Supported if info.supported_is_concluded(negative) => Layer::Concluded,
        other => other,
    };
    LayerId { rel, negative, layer }
}

/// The layer operand `o` of a rule reads: over definite premises (`+D`), or over applicable ones.
pub fn operand_layer(s: &Strata, read: Read, rel: usize, negative: bool, definite: bool) -> LayerId {
    let l = match (read, definite) {
        (Read::Negated, _) => Layer::Concluded,
        (_, true) => Layer::Definite,
        (Read::Established, false) => Layer::Concluded,
        (Read::Supported, false) => Layer::Supported,
    };
    layer(s, rel, negative, l)
}

/// What a computed layer starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// Nothing.
    Empty,
    /// The input facts of its relation and sign.
    Input,
    /// A copy of a layer computed before it (`+S`/`+d` start from `+D`).
    Copy(LayerId),
}

/// One rule's heads and the layers they go into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heads {
    /// The rule.
    pub rule: usize,
    /// The layer every head goes into.
    pub into: LayerId,
    /// `(+d, the complement's +D)`: the heads also go into `+d`, but for those whose complement
    /// is definite.
    pub unless: Option<(LayerId, LayerId)>,
    /// In an iteration, the operands read from its variables (the rule's relations of its own
    /// stratum); empty: the rule's heads are added once, before the rounds.
    pub own: Vec<usize>,
    /// In a [seeded](LayerSet::seeded) iteration, a rule reading its variables that may find,
    /// over their start, heads `+D` lacks (it is not strict, or one of its other operands reads
    /// another layer than in `+D`): called once over the start, before the rounds. Any other
    /// rule found all it finds over the start when `+D` was computed.
    pub over_start: bool,
}

/// How one layer set (`+D`, or `+S` and `+d`) of a stratum is computed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LayerSet {
    /// Over definite premises (`+D`) rather than applicable ones.
    pub definite: bool,
    /// The layers some rule adds to, each with what it starts from: in an iteration, its
    /// variables.
    pub layers: Vec<(LayerId, Start)>,
    /// The layers no rule adds to but that start from a relation: that relation, set before the
    /// rules run.
    pub fixed: Vec<(LayerId, Start)>,
    /// The rules that can apply, in order.
    pub heads: Vec<Heads>,
    /// A datafrog `Iteration` (some rule reads a layer of the set), else one pass of the rules.
    pub iteration: bool,
    /// Layers that are always empty (nothing starts them, no rule adds to them): never built.
    pub empty: Vec<LayerId>,
    /// An iteration of `+S`/`+d` whose every variable starts from a `+D` layer: what it starts
    /// from is its stable tuples, not its new ones, so a round finds only what `+D` lacks (and
    /// a batch whose `+D` is the whole answer costs the rules marked `over_start` alone).
    pub seeded: bool,
    /// In the one pass of a contested stratum's `+D`: the strict rules whose call is also
    /// their applicability, every premise read from the same layer either way. Their heads
    /// are found once, kept for the contest, and not found again.
    pub shared: Vec<usize>,
    /// The calls of the rules' functions, head by head ([`super::calls`]).
    pub calls: Vec<super::calls::Call>,
    /// The variables some round reads as they were before the last round.
    pub stable: Vec<LayerId>,
    /// The variables some round reads whole, the last round's tuples included.
    pub total: Vec<LayerId>,
}

/// A rule that attacks a sign of a contested relation, and the supporters that beat it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attack {
    /// The attacking rule.
    pub rule: usize,
    /// The rules for the sign that rank above it: where one applies, the attack is beaten.
    pub beaten_by: Vec<usize>,
}

/// Team defeat for one sign of a contested relation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contest {
    /// The sign.
    pub negative: bool,
    /// The rules concluding it (not defeaters).
    pub supporters: Vec<usize>,
    /// The rules for the other sign, defeaters too.
    pub attacks: Vec<Attack>,
}

/// The layer set of `+D` of stratum `si`: the input facts, then every strict rule.
pub fn definite_set(
    p: &Program,
    s: &Strata,
    rules: &[RulePlan],
    own: &[Vec<usize>],
    si: usize,
    recursive: bool,
) -> LayerSet {
    let st = &s.strata[si];
    let mut layers = Vec::new();
    for &rel in &st.rels {
        for negative in [false, true] {
            let start = if p.relations[rel].kind == RelationKind::Institutional { Start::Empty } else { Start::Input };
            layers.push((layer(s, rel, negative, Layer::Definite), start));
        }
    }
    let heads = st
        .rules
        .iter()
        .filter(|&&r| p.rules[r].strength == Strength::Strict)
        .map(|&r| {
            let h = &p.rules[r].head;
            let into = layer(s, h.rel, h.negative, Layer::Definite);
            Heads { rule: r, into, unless: None, own: own[r].clone(), over_start: false }
        })
        .collect();
    settle(LayerSet { definite: true, layers, heads, iteration: recursive, ..LayerSet::default() }, s, rules)
}

/// The layer set of `+S`/`+d` of stratum `si` (not collapsed, not contested): each starts from
/// `+D` (unless that is always empty); every rule adds to `+S`, and to `+d` but for the heads
/// whose complement is definite.
pub fn applicable_set(
    p: &Program,
    s: &Strata,
    rules: &[RulePlan],
    own: &[Vec<usize>],
    si: usize,
    recursive: bool,
    definite: &LayerSet,
) -> LayerSet {
    let st = &s.strata[si];
    let mut layers: Vec<(LayerId, Start)> = Vec::new();
    for &rel in &st.rels {
        for negative in [false, true] {
            let d = layer(s, rel, negative, Layer::Definite);
            for l in [Layer::Concluded, Layer::Supported] {
                let id = layer(s, rel, negative, l);
                if !layers.iter().any(|(m, _)| *m == id) {
                    let start = if definite.empty.contains(&d) { Start::Empty } else { Start::Copy(d) };
                    layers.push((id, start));
                }
            }
        }
    }
    let heads = st
        .rules
        .iter()
        .map(|&r| {
            let h = &p.rules[r].head;
            let c = layer(s, h.rel, h.negative, Layer::Concluded);
            let supported = layer(s, h.rel, h.negative, Layer::Supported);
            let unless = (c != supported).then(|| (c, layer(s, h.rel, !h.negative, Layer::Definite)));
            Heads { rule: r, into: supported, unless, own: own[r].clone(), over_start: false }
        })
        .collect();
    let mut set =
        settle(LayerSet { definite: false, layers, heads, iteration: recursive, ..LayerSet::default() }, s, rules);
    set.seeded = set.iteration && set.layers.iter().all(|(_, start)| matches!(start, Start::Copy(_)));
    if set.seeded {
        for h in &mut set.heads {
            let strict_in_definite = definite.heads.iter().any(|d| d.rule == h.rule);
            let same_reads = rules[h.rule].operands.iter().enumerate().all(|(j, o)| {
                let read = |definite| operand_layer(s, o.read, o.literal.rel, o.literal.negative, definite);
                h.own.contains(&j) || read(true) == read(false)
            });
            let found_in_definite = strict_in_definite && same_reads;
            h.over_start = !h.own.is_empty() && !found_in_definite;
        }
    }
    set
}

/// `set` with the rules that never apply left out; the layers no rule adds to set from what
/// they start from (`fixed`) or, when that is nothing, never built (`empty`); and an iteration
/// only where some rule reads a layer that a rule of the set adds to (its variables).
fn settle(mut set: LayerSet, s: &Strata, rules: &[RulePlan]) -> LayerSet {
    set.heads.retain(|h| !rules[h.rule].never);
    let filled: Vec<LayerId> =
        set.heads.iter().flat_map(|h| std::iter::once(h.into).chain(h.unless.map(|(c, _)| c))).collect();
    let definite = set.definite;
    for h in &mut set.heads {
        let operands = &rules[h.rule].operands;
        h.own.retain(|&j| {
            let o = &operands[j];
            filled.contains(&operand_layer(s, o.read, o.literal.rel, o.literal.negative, definite))
        });
    }
    set.iteration &= set.heads.iter().any(|h| !h.own.is_empty());
    if !set.iteration {
        for h in &mut set.heads {
            h.own.clear();
        }
    }
    let (layers, rest): (Vec<_>, Vec<_>) = set.layers.iter().partition(|(id, _)| filled.contains(id));
    let (empty, fixed): (Vec<_>, Vec<_>) = rest.into_iter().partition(|(_, start)| *start == Start::Empty);
    set.layers = layers;
    set.fixed = fixed;
    set.empty = empty.into_iter().map(|(id, _)| id).collect();
    set
}

/// Team defeat in contested stratum `si` (one relation): per sign, its supporters and the
/// attacks on it, each with the supporters that rank above the attacker.
pub fn contests(p: &Program, s: &Strata, si: usize) -> Vec<Contest> {
    let st = &s.strata[si];
    [false, true]
        .into_iter()
        .map(|negative| {
            let supporters: Vec<usize> = st
                .rules
                .iter()
                .copied()
                .filter(|&r| p.rules[r].head.negative == negative && p.rules[r].strength != Strength::Defeater)
                .collect();
            let attacks = st
                .rules
                .iter()
                .copied()
                .filter(|&r| p.rules[r].head.negative != negative)
                .map(|a| Attack {
                    rule: a,
                    beaten_by: supporters
                        .iter()
                        .copied()
                        .filter(|&t| p.superiority.iter().any(|x| x.higher == t && x.lower == a))
                        .collect(),
                })
                .collect();
            Contest { negative, supporters, attacks }
        })
        .collect()
}
