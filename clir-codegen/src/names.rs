//! The one name allocator of a generated module: every package name (types, constants,
//! relations and the layers derived from them, rules and their temporaries, variables,
//! capabilities, typed-API methods) mapped to a unique Rust identifier, disjoint from the
//! runtime's and the typed API's own names and from every other derived name. Clashes are
//! resolved deterministically (declaration order; `_2`, `_3`, ... appended), so the same package
//! always gets the same names. The case conversions every name starts from ([`snake`], [`camel`],
//! [`screaming`]) are here too.

use crate::plan::layers::{Layer, LayerId};
use crate::plan::RulePlan;
use crate::resolve::{Program, RItem, RRule, RTerm};
use std::collections::{BTreeSet, HashSet};

/// Locals of the generated evaluation that no relation layer may take.
const LOCALS: &[&str] = &[
    "batch",
    "case",
    "cases",
    "out",
    "iteration",
    "instances",
    "premises",
    "definite",
    "established",
    "supported",
    "l",
    "t",
    "row",
    "found",
    "key",
    "applies",
    "tuple",
    "bindings",
    "heads",
    "record",
    "ex",
];

/// Names in a generated module's scope that no entity type or grant may take: the typed API's
/// own types and what generated code uses unqualified from the prelude.
const MODULE_TYPES: &[&str] = &[
    "Bound",
    "ExtendBy",
    "Holds",
    "Once",
    "ValueFilter",
    "Case",
    "Cases",
    "Ruling",
    "Rulings",
    "Package",
    "Self",
    "Vec",
    "Some",
    "None",
    "String",
    "Option",
    "Default",
    "Ok",
    "Err",
    "Result",
    "Box",
    "Sized",
    "Clone",
    "Copy",
    "Send",
    "Sync",
    "Iterator",
    "IntoIterator",
    "From",
    "Into",
    "Fn",
    "FnMut",
    "FnOnce",
    "Drop",
    "PartialEq",
    "Eq",
    "PartialOrd",
    "Ord",
    "Hash",
    "Debug",
    "ToString",
    "ToOwned",
    "AsRef",
    "Extend",
    "SCHEMA",
    "Relation",
    "CaseId",
    "Sym",
    "layer",
];

/// Methods of the typed API's `Case` and `Ruling` that no relation or entity type may take.
const METHODS: &[&str] =
    &["id", "new", "case", "contradictions", "evaluate", "len", "is_empty", "batch", "why_not", "name_of"];

/// The layers and temporaries the evaluation derives from a relation's identifier `c`.
fn relation_derived(c: &str) -> Vec<String> {
    let mut out = Vec::new();
    for sign in ["", "not_"] {
        for layer in std::iter::once("").chain(LAYER_SUFFIX.iter().map(|(_, x)| *x)) {
            let l = format!("{sign}{c}{layer}");
            out.push(format!("{l}_candidates"));
            out.push(format!("{l}_unbeaten_attacks"));
            out.push(format!("{l}_new"));
            out.push(l);
        }
        out.push(format!("{sign}{c}_input"));
    }
    out.push(format!("{c}_contradicted"));
    out
}

/// Whether `name` lies in the space of temporaries of the rule with identifier `r`:
/// `r_applies`, `instances_of_r`, `r_<digit>...`, `r_not_<digit>...`.
fn in_rule_space(r: &str, name: &str) -> bool {
    // No allocation: this runs for every rule against every local.
    let digit = |s: &str| s.starts_with(|c: char| c.is_ascii_digit());
    if let Some(rest) = name.strip_prefix(r).and_then(|x| x.strip_prefix('_')) {
        return rest == "applies" || digit(rest) || rest.strip_prefix("not_").is_some_and(digit);
    }
    name.strip_prefix("instances_of_") == Some(r)
}

/// Whether some name of `names` lies in the space of temporaries of rule `r` ([`in_rule_space`]),
/// by lookups and range queries: this runs once per rule, against every name of the module.
fn space_taken(names: &BTreeSet<String>, r: &str) -> bool {
    // The names between `{prefix}0` and `{prefix}:` are those `{prefix}<digit>..` (':' follows '9').
    let numbered = |prefix: String| names.range(format!("{prefix}0")..format!("{prefix}:")).next().is_some();
    names.contains(&format!("{r}_applies"))
        || names.contains(&format!("instances_of_{r}"))
        || numbered(format!("{r}_"))
        || numbered(format!("{r}_not_"))
}

/// Whether `name` lies in the space of temporaries of some rule of `rules` ([`in_rule_space`]),
/// by one lookup per `_` of `name`.
fn in_a_space(rules: &BTreeSet<String>, name: &str) -> bool {
    if name.strip_prefix("instances_of_").is_some_and(|r| rules.contains(r)) {
        return true;
    }
    name.match_indices('_').any(|(i, _)| rules.contains(&name[..i]) && in_rule_space(&name[..i], name))
}

/// The numbered locals of closures and why-not walks: `a_<i>`, `ok_<i>`, `any_<i>`.
fn is_closure_local(c: &str) -> bool {
    ["a_", "b_", "ok_", "any_"].iter().any(|p| c.strip_prefix(p).is_some_and(|i| i.chars().all(|d| d.is_ascii_digit())))
}

/// The first candidate that `free` accepts: the `alternatives` (or `base` when there are none),
/// then `base_2`, `base_3`, ... `free` holds for all but finitely many names, so this ends.
fn claim(base: &str, alternatives: &[String], free: impl Fn(&str) -> bool) -> String {
    claim_numbered(base, alternatives, |k| format!("{base}_{k}"), free)
}

/// [`claim`] with other numbered candidates: a name in a rule's space of temporaries
/// (`r_<digit>..`) stays there whatever is appended, so those number in front (`v2_x`).
fn claim_numbered(
    base: &str,
    alternatives: &[String],
    numbered: impl Fn(u64) -> String,
    free: impl Fn(&str) -> bool,
) -> String {
    alternatives
        .iter()
        .cloned()
        .chain(std::iter::once(base.to_string()).filter(|_| alternatives.is_empty()))
        .chain((2..).map(numbered))
        .find(|c| free(c))
        .expect("an unbounded sequence of candidates")
}

/// The suffix a relation's identifier takes for each of its layers (none where it has one).
const LAYER_SUFFIX: [(Layer, &str); 3] =
    [(Layer::Definite, "_definite"), (Layer::Concluded, "_concluded"), (Layer::Supported, "_supported")];

/// Which of a variable's tuples a semi-naive round reads whole, in a local of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Round {
    /// Before the last round (`<variable>_stable`).
    Stable,
    /// So far, the last round's included (`<variable>_total`).
    Total,
}

/// Every identifier of one generated module.
#[derive(Debug, Clone, Default)]
pub struct ModuleNames {
    /// Per relation: the identifier its layers derive from (`p` -> `p`, `not_p_input`, ...).
    pub relations: Vec<String>,
    /// Per rule: the identifier its temporaries derive from.
    pub rules: Vec<String>,
    /// Per entity type: its `CamelCase` type.
    pub types: Vec<String>,
    /// Per constant: its associated const.
    pub constants: Vec<String>,
    /// Per relation: the typed API's method (`not_` + it for the negative sign).
    pub methods: Vec<String>,
    /// Per entity type: the `Case` method that names an entity.
    pub entity_methods: Vec<String>,
    /// Per capability, in order of first use: its grant type.
    pub grants: Vec<(String, String)>,
    /// The evaluation's locals and every relation-derived one, for variables to avoid.
    locals: HashSet<String>,
    /// [`Self::rules`] as a set, for variables to stay out of their temporaries' spaces.
    rule_set: BTreeSet<String>,
}

impl ModuleNames {
    /// Allocates every name of `p`.
    pub fn allocate(p: &Program) -> ModuleNames {
        let mut n = ModuleNames::default();
        let mut locals: HashSet<String> = LOCALS.iter().map(|s| s.to_string()).collect();
        for r in &p.relations {
            let base = snake(&r.name);
            // Closures' temporaries are `closure_<i>_<relation>`.
            let base = if base.starts_with("closure_") { format!("rel_{base}") } else { base };
            let alternatives = if LOCALS.contains(&base.as_str()) { vec![format!("{base}_relation")] } else { vec![] };
            let c = claim(&base, &alternatives, |c| relation_derived(c).iter().all(|d| !locals.contains(d)));
            locals.extend(relation_derived(&c));
            n.relations.push(c);
        }
        let sorted_locals: BTreeSet<String> = locals.iter().cloned().collect();
        let mut rules: Vec<String> = Vec::new();
        let mut taken: BTreeSet<String> = BTreeSet::new();
        for r in &p.rules {
            let base = snake(r.id.rsplit('#').next().unwrap_or(&r.id));
            // A rule's identifier only prefixes its temporaries: it may equal a relation's.
            let c = claim_numbered(
                &base,
                &[],
                |k| format!("r{k}_{base}"),
                |c| {
                    !space_taken(&sorted_locals, c)
                        && !taken.contains(c)
                        && !in_a_space(&taken, c)
                        && !space_taken(&taken, c)
                },
            );
            taken.insert(c.clone());
            rules.push(c);
        }
        n.rules = rules;
        n.rule_set = taken;
        n.locals = locals;

        let mut types: HashSet<String> = MODULE_TYPES.iter().map(|s| s.to_string()).collect();
        for t in &p.types {
            let c = claim(&camel(&t.name), &[], |c| !types.contains(c));
            types.insert(c.clone());
            n.types.push(c);
        }
        for r in &p.relations {
            if let Some(cap) = &r.capability {
                if !n.grants.iter().any(|(k, _)| k == cap) {
                    let c = claim(&format!("{}Grant", camel(cap)), &[], |c| !types.contains(c));
                    types.insert(c.clone());
                    n.grants.push((cap.clone(), c));
                }
            }
        }
        let mut consts: HashSet<(usize, String)> = HashSet::new();
        for k in &p.constants {
            let c = claim(&screaming(&k.name), &[], |c| !consts.contains(&(k.ty, c.to_string())) && c != "CAPABILITY");
            consts.insert((k.ty, c.clone()));
            n.constants.push(c);
        }

        let mut methods: HashSet<String> = METHODS.iter().map(|s| s.to_string()).collect();
        for t in &p.types {
            let c = claim(&snake(&t.name), &[], |c| !methods.contains(c));
            methods.insert(c.clone());
            n.entity_methods.push(c);
        }
        for r in &p.relations {
            let base = snake(&r.name);
            let both =
                |c: &str| [c.to_string(), format!("not_{c}"), format!("why_not_{c}"), format!("why_not_not_{c}")];
            let c =
                claim(&base, &[base.clone(), format!("{base}_fact")], |c| both(c).iter().all(|m| !methods.contains(m)));
            methods.extend(both(&c));
            n.methods.push(c);
        }
        n
    }

    /// The identifiers of `rule`'s variables: snake case, unique in the rule, clear of the
    /// evaluation's locals and of the closures' own `a_<i>`. A variable the package names
    /// `v0`, `v1`, .. is named after the parameter it first fills (`game`, `player`).
    pub fn variables(&self, p: &Program, rule: &RRule) -> Vec<String> {
        let mut taken: Vec<String> = Vec::new();
        for (i, (name, _)) in rule.vars.iter().enumerate() {
            let generic =
                name.strip_prefix('v').is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
            let base = match first_parameter(p, rule, i).filter(|_| generic) {
                Some(param) => snake(param),
                None => snake(name),
            };
            let alternatives = vec![base.clone(), format!("{base}_{i}")];
            let c = claim_numbered(
                &base,
                &alternatives,
                |k| format!("v{k}_{base}"),
                |c| {
                    !taken.iter().any(|t| t == c)
                        && !self.locals.contains(c)
                        && !in_a_space(&self.rule_set, c)
                        && !is_closure_local(c)
                },
            );
            taken.push(c);
        }
        taken
    }

    /// `rule` with its variables named as [`Self::variables`] names them: as the generated code,
    /// its comments, the plan and `clir show` write it.
    pub fn renamed(&self, p: &Program, rule: &RRule) -> RRule {
        rule.renamed(self.variables(p, rule))
    }

    /// The identifiers of a rule function's parameters (one per operand) and views, clear of
    /// the rule's variables `vars` and of each other.
    pub fn rule_locals(&self, p: &Program, rp: &RulePlan, vars: &[String]) -> RuleLocals {
        let mut taken: Vec<String> = vars.to_vec();
        let free =
            |taken: &[String], c: &str| !taken.iter().any(|t| t == c) && !LOCALS.contains(&c) && !is_closure_local(c);
        let mut operands = Vec::new();
        for o in &rp.operands {
            let l = &o.literal;
            // Named after the literal alone: one function is called over definite layers, over
            // applicable ones, and over a variable's recent tuples.
            let base = format!("{}{}", if l.negative { "not_" } else { "" }, self.relations[l.rel]);
            let c = claim(&base, &[], |c| free(&taken, c));
            taken.push(c.clone());
            operands.push(c);
        }
        let mut views = Vec::new();
        for v in &rp.views {
            let params = &p.relations[rp.operands[v.operand].literal.rel].params;
            let base = view_name(&operands[v.operand], v.by().iter().map(|&j| params[j].0.as_str()));
            let c = claim(&base, &[], |c| free(&taken, c));
            taken.push(c.clone());
            views.push(c);
        }
        // Each leapjoin but the last yields the tuples bound once its operand is joined.
        let mut joined = Vec::new();
        for j in &rp.joins[..rp.joins.len().saturating_sub(1)] {
            let from = j.extend.map_or("tested", |s| operands[rp.steps[s].operand].as_str());
            let c = claim(&format!("{from}_joined"), &[], |c| free(&taken, c));
            taken.push(c.clone());
            joined.push(c);
        }
        RuleLocals { operands, views, joined }
    }

    /// A local of a stratum function or of `explain` (a view built for the calls there), from
    /// `base`: clear of `taken` and of every name those functions derive from a relation (its
    /// layers, inputs, and a round's `_stable`/`_total` copies) or a rule (`_found`, `_applies`).
    pub fn stratum_local(&self, base: &str, taken: &[String]) -> String {
        const LAYER: [&str; 5] = ["", "_definite", "_concluded", "_supported", "_input"];
        const ROUND: [&str; 3] = ["", "_stable", "_total"];
        let derived = |c: &str| {
            let c = c.strip_prefix("not_").unwrap_or(c);
            let of_relation = self.relations.iter().any(|r| {
                c.strip_prefix(r.as_str()).is_some_and(|rest| {
                    LAYER
                        .iter()
                        .any(|l| ROUND.iter().any(|x| rest.len() == l.len() + x.len() && rest == format!("{l}{x}")))
                })
            });
            let of_rule = ["_found", "_applies"]
                .iter()
                .any(|x| c.strip_suffix(x).is_some_and(|r| self.rules.iter().any(|n| n == r)));
            of_relation || of_rule
        };
        claim(base, &[], |c| !taken.iter().any(|t| t == c) && !LOCALS.contains(&c) && !derived(c))
    }

    /// The identifier of layer `id` (of a relation that is `collapsed` into one layer, or not).
    pub fn layer(&self, id: LayerId, collapsed: bool) -> String {
        let sign = if id.negative { "not_" } else { "" };
        let suffix = LAYER_SUFFIX.iter().find(|(l, _)| *l == id.layer).map_or("", |(_, x)| x);
        let suffix = if collapsed { "" } else { suffix };
        format!("{sign}{}{suffix}", self.relations[id.rel])
    }

    /// The identifier of the input facts of relation `rel` with sign `negative`.
    pub fn input(&self, rel: usize, negative: bool) -> String {
        format!("{}{}_input", if negative { "not_" } else { "" }, self.relations[rel])
    }

    /// The local holding a round's `round` tuples of the variable `layer` (a [`Self::layer`]).
    pub fn round(layer: &str, round: Round) -> String {
        match round {
            Round::Stable => format!("{layer}_stable"),
            Round::Total => format!("{layer}_total"),
        }
    }

    /// The constant holding relation `rel`'s index in `SCHEMA.relations`.
    pub fn rel_const(&self, rel: usize) -> String {
        format!("REL_{}", self.relations[rel].to_ascii_uppercase())
    }

    /// The constant holding rule `ri`'s index in `SCHEMA.rules`.
    pub fn rule_const(&self, ri: usize) -> String {
        format!("RULE_{}", self.rules[ri].to_ascii_uppercase())
    }

    /// Rule `ri`'s function.
    pub fn rule_fn(&self, ri: usize) -> String {
        format!("rule_{}", self.rules[ri])
    }

    /// The local holding where rule `ri` applies in a contested stratum.
    pub fn applies(&self, ri: usize) -> String {
        format!("{}_applies", self.rules[ri])
    }

    /// The local holding what rule `ri` found in a call (`nth` of a round's, when it has several),
    /// and the one holding those of them whose complement is not definite.
    pub fn found(&self, ri: usize, nth: Option<usize>) -> (String, String) {
        let found = match nth {
            Some(i) => format!("{}_found_{i}", self.rules[ri]),
            None => format!("{}_found", self.rules[ri]),
        };
        let unless = format!("{found}_unless");
        (found, unless)
    }

    /// The team defeat of the sign whose concluded layer is `concluded` (a [`Self::layer`]).
    pub fn contest(concluded: &str) -> String {
        format!("{concluded}_contest")
    }

    /// The layer of closure `ci`, of relation `rel`: the negatives it adds.
    pub fn closure(&self, ci: usize, rel: usize) -> String {
        format!("closure_{ci}_{}", self.relations[rel])
    }

    /// The function of the stratum whose first relation is `rel`.
    pub fn stratum_fn(&self, rel: usize) -> String {
        format!("stratum_{}", self.relations[rel])
    }

    /// The `k`th function a long list of statements `prefix` is split into.
    pub fn chunk(prefix: &str, k: usize) -> String {
        format!("{prefix}_{k}")
    }

    /// The local of column `j` of a tuple taken apart: `a_<j>`, or `<letter>_<j>` for one of
    /// several (a pattern's own columns, compared with the value they must hold).
    pub fn column(letter: &str, j: usize) -> String {
        format!("{letter}_{j}")
    }

    /// The crates a package is split into, for the caller's `prefix`: the base crate's, and
    /// group `g`'s.
    pub fn base_crate(prefix: &str) -> String {
        format!("{prefix}_base")
    }

    /// The io crate, for the caller's `prefix` ([`Self::base_crate`]).
    pub fn io_crate(prefix: &str) -> String {
        format!("{prefix}_io")
    }

    /// The table of the rule indices of crate `krate`'s rules, in the order it numbers them.
    pub fn group_rules(krate: &str) -> String {
        format!("{}_RULES", krate.to_ascii_uppercase())
    }

    /// The groups' crates, for the caller's `prefix` ([`Self::base_crate`]), each named after
    /// its first relation (`firsts`, identifiers): `<prefix>_g_<relation>`, the relation's part
    /// cut to 40 characters, and `_2`, `_3`, ... where two would be the same.
    pub fn group_crates(prefix: &str, firsts: &[&str]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for first in firsts {
            let part: String = first
                .chars()
                .take(40)
                .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
                .collect();
            let name = claim(&format!("{prefix}_g_{part}"), &[], |c| !out.iter().any(|o| o == c));
            out.push(name);
        }
        out
    }

    /// The grant type of capability `cap`.
    pub fn grant(&self, cap: &str) -> Option<&str> {
        self.grants.iter().find(|(k, _)| k == cap).map(|(_, g)| g.as_str())
    }
}

/// The base name of a view of `of` keyed by the columns named `key`: `of_by_key`.
pub fn view_name<'a>(of: &str, key: impl Iterator<Item = &'a str>) -> String {
    let by: Vec<String> = key.map(snake).collect();
    format!("{}_by_{}", of, if by.is_empty() { "case".to_string() } else { by.join("_") })
}

/// The local identifiers of one rule's function.
#[derive(Debug, Clone, Default)]
pub struct RuleLocals {
    /// Per operand of the rule's plan: its parameter.
    pub operands: Vec<String>,
    /// Per view of the plan.
    pub views: Vec<String>,
    /// Per leapjoin of the plan but the last: the relation it yields.
    pub joined: Vec<String>,
}

/// The name of the relation parameter variable `v` of `rule` first fills: in a positive body
/// literal, then a negation, then the head.
fn first_parameter<'p>(p: &'p Program, rule: &RRule, v: usize) -> Option<&'p str> {
    let positive = rule.body.iter().filter_map(|it| match it {
        RItem::Literal(_, l) => Some(l),
        _ => None,
    });
    let negated = rule.body.iter().filter_map(|it| match it {
        RItem::Not(l) => Some(l),
        _ => None,
    });
    positive.chain(negated).chain(std::iter::once(&rule.head)).find_map(|l| {
        let j = l.args.iter().position(|a| *a == RTerm::Var(v))?;
        Some(p.relations[l.rel].params[j].0.as_str())
    })
}

/// The identifiers of a typed-API method's parameters, from the relation's parameter names:
/// snake case, unique, clear of the method's own `_grant`.
pub fn parameters<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut taken: Vec<String> = Vec::new();
    for name in names {
        let base = snake(name);
        let c = claim(&base, &[], |c| c != "_grant" && !taken.iter().any(|t| t == c));
        taken.push(c);
    }
    taken
}

/// `snake_case` identifier from any name (`GamePlay/StartPlay/valid` -> `game_play_start_play_valid`).
pub fn snake(name: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    let chars: Vec<char> = name.chars().collect();
    for (i, &ch) in chars.iter().enumerate() {
        if ch.is_ascii_alphanumeric() {
            if ch.is_ascii_uppercase() {
                // `fooBar` -> `foo_bar`; `FIDEArbiter` -> `fide_arbiter`.
                let acronym_end = i > 0
                    && chars[i - 1].is_ascii_uppercase()
                    && chars.get(i + 1).is_some_and(|c| c.is_ascii_lowercase());
                if (prev_lower || acronym_end) && !out.is_empty() && !out.ends_with('_') {
                    out.push('_');
                }
                out.push(ch.to_ascii_lowercase());
                prev_lower = false;
            } else {
                out.push(ch);
                prev_lower = true;
            }
        } else {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            prev_lower = false;
        }
    }
    let out = out.trim_matches('_').to_string();
    fix(out, "x")
}

/// `CamelCase` identifier from any name.
pub fn camel(name: &str) -> String {
    let mut out = String::new();
    for part in snake(name).split('_') {
        let mut cs = part.chars();
        if let Some(c) = cs.next() {
            out.push(c.to_ascii_uppercase());
            out.extend(cs);
        }
    }
    fix(out, "T")
}

/// `SCREAMING_SNAKE` identifier.
pub fn screaming(name: &str) -> String {
    snake(name).to_ascii_uppercase()
}

/// `s` as an identifier: `prefix` when empty, `prefix` in front of a leading digit, `_` after a
/// keyword.
fn fix(s: String, prefix: &str) -> String {
    let s = if s.is_empty() { prefix.to_string() } else { s };
    let s = if s.starts_with(|c: char| c.is_ascii_digit()) { format!("{prefix}{s}") } else { s };
    if syn::parse_str::<syn::Ident>(&s).is_err() {
        format!("{s}_")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_end_when_every_numbered_name_is_a_rule_temporary() {
        // Rule `x`'s temporaries are `x_<digit>..`: a variable `x_0` must still get a name.
        let c = claim_numbered("x_0", &[], |k| format!("v{k}_x_0"), |c| !in_rule_space("x", c));
        assert_eq!(c, "v2_x_0");
        assert!(in_rule_space("r", "r_1_edge") && in_rule_space("r", "r_not_0") && in_rule_space("r", "r_applies"));
        assert!(!in_rule_space("r", "r_input") && !in_rule_space("r", "r"));
    }

    proptest::proptest! {
        /// The lookups that make name allocation linear answer what comparing every pair does.
        #[test]
        fn space_lookups_agree_with_every_pair(
            names in proptest::collection::btree_set("(instances_of_)?[ab](_(not_)?[0-9a]|_applies){0,3}", 0..12),
            probe in "(instances_of_)?[ab](_(not_)?[0-9a]|_applies){0,3}",
        ) {
            proptest::prop_assert_eq!(space_taken(&names, &probe), names.iter().any(|l| in_rule_space(&probe, l)));
            proptest::prop_assert_eq!(in_a_space(&names, &probe), names.iter().any(|q| in_rule_space(q, &probe)));
        }
    }
}
