//! Why not: for a literal a case asks about, whether it is concluded and, when it is not, every
//! rule for it with the reason it did not conclude it.
//!
//! `rt::RuleTable::walk` walks each rule's body, as the compiler planned it, over the final
//! relations of the case and tells a [`Trace`] every item that fails for a binding (a premise not concluded
//! or not supported, a comparison that is false, a negation whose literal is concluded) and
//! every binding where none does. This module adds what strengths, priorities and closures say
//! (SEMANTICS §4): an applicable rule fails because an applicable attacker is beaten by no
//! applicable rule for the literal, because it is a defeater, or because the complement is
//! definite.

use crate::batch::{entity_text, slot};
use crate::schema::Schema;
use crate::value::{CaseId, Interner, Sym};

/// The most failing bindings reported per rule; the others are counted.
pub const MAX_REASONS_PER_RULE: usize = 16;

/// A literal a case asks about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    /// The case.
    pub case: CaseId,
    /// Relation index.
    pub rel: u32,
    /// Strong negation.
    pub negative: bool,
    /// Arguments, flat.
    pub args: Vec<i64>,
}

impl Asked {
    /// The flat row `[case, args..]`.
    pub fn row(&self) -> Vec<i64> {
        let mut row = Vec::with_capacity(self.args.len() + 1);
        row.push(self.case.0 as i64);
        row.extend_from_slice(&self.args);
        row
    }

    /// The complement: the same tuple with the other sign.
    pub fn complement(&self) -> Asked {
        Asked { negative: !self.negative, ..self.clone() }
    }
}

/// Where a literal stands in the final relations of its case.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Status {
    /// `+D`.
    pub definite: bool,
    /// `+S`.
    pub supported: bool,
    /// `+d`.
    pub concluded: bool,
}

/// A value a failing comparison shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// An Integer.
    Int(i64),
    /// An entity or String, by its interned id.
    Name(i64),
}

/// One body item that failed for one binding, as generated code reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Failure {
    /// A premise (relation, sign, arguments; `None` for a variable no value binds) not
    /// concluded, or (`supported`) not supported.
    Premise { rel: u32, negative: bool, args: Vec<Option<i64>>, supported: bool },
    /// A negation as failure whose literal is concluded.
    Negation { rel: u32, negative: bool, args: Vec<Option<i64>> },
    /// A comparison: its text around the values, and the values.
    Comparison { text: Vec<String>, values: Vec<Shown> },
}

/// What one rule's walk over the final relations found for one asked literal.
#[derive(Debug, Default)]
pub struct Trace {
    failures: Vec<Failure>,
    omitted: usize,
    applicable: bool,
}

impl Trace {
    fn fail(&mut self, f: Failure) -> bool {
        if self.failures.len() < MAX_REASONS_PER_RULE {
            self.failures.push(f);
        } else {
            self.omitted += 1;
        }
        false
    }

    /// The premise `rel`(`args`) with its sign is not concluded; returns `false`.
    pub fn premise(&mut self, rel: usize, negative: bool, args: &[Option<i64>]) -> bool {
        self.fail(Failure::Premise { rel: rel as u32, negative, args: args.to_vec(), supported: false })
    }

    /// The premise `rel`(`args`) with its sign, asked as supported, is not supported; returns
    /// `false`.
    pub fn supported(&mut self, rel: usize, negative: bool, args: &[Option<i64>]) -> bool {
        self.fail(Failure::Premise { rel: rel as u32, negative, args: args.to_vec(), supported: true })
    }

    /// The negation `not rel(args)` fails: the literal is concluded; returns `false`.
    pub fn negation(&mut self, rel: usize, negative: bool, args: &[Option<i64>]) -> bool {
        self.fail(Failure::Negation { rel: rel as u32, negative, args: args.to_vec() })
    }

    /// A comparison is false: `text` are the pieces of its Datalog text around its variables,
    /// `values` the variables' values; returns `false`.
    pub fn comparison(&mut self, text: &[String], values: &[Shown]) -> bool {
        self.fail(Failure::Comparison { text: text.to_vec(), values: values.to_vec() })
    }

    /// A binding for which no item fails: the rule is applicable for the literal.
    pub fn applicable(&mut self) {
        self.applicable = true;
    }

    /// Whether the rule's head matched the literal: a walk that returns at the head (another
    /// constant, unequal repeated variables, a computed argument no binding gives) says nothing.
    fn matched(&self) -> bool {
        self.applicable || !self.failures.is_empty()
    }
}

/// Why a rule, a closure, or the package did not conclude a literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReasonKind {
    /// The premise is not concluded.
    PremiseNotConcluded {
        /// The premise, `_` for a variable no value binds.
        premise: String,
    },
    /// The premise, asked as supported, is not supported.
    PremiseNotSupported {
        /// The premise.
        premise: String,
    },
    /// A negation as failure's literal is concluded.
    NegationConcluded {
        /// The negated literal.
        premise: String,
    },
    /// A comparison is false.
    ComparisonFalse {
        /// The comparison, values substituted where bound.
        comparison: String,
    },
    /// An applicable rule for the complement that no applicable rule for the literal beats.
    Attacked {
        /// Index of the attacking rule.
        by: usize,
    },
    /// The rule is a defeater: it concludes nothing.
    Defeater,
    /// The rule failed for more bindings than are listed.
    More {
        /// How many more.
        count: usize,
    },
    /// A closure policy did not derive the negative: the positive is supported.
    Supported {
        /// The positive literal.
        premise: String,
    },
    /// The complement is definite.
    ComplementDefinite {
        /// The complement.
        complement: String,
    },
    /// No rule (and no closure) concludes the literal.
    NoRule,
}

impl ReasonKind {
    /// The kind's name in a ruling line.
    pub fn name(&self) -> &'static str {
        match self {
            ReasonKind::PremiseNotConcluded { .. } => "premise_not_concluded",
            ReasonKind::PremiseNotSupported { .. } => "premise_not_supported",
            ReasonKind::NegationConcluded { .. } => "negation_concluded",
            ReasonKind::ComparisonFalse { .. } => "comparison_false",
            ReasonKind::Attacked { .. } => "attacked",
            ReasonKind::Defeater => "defeater",
            ReasonKind::More { .. } => "more",
            ReasonKind::Supported { .. } => "premise_supported",
            ReasonKind::ComplementDefinite { .. } => "complement_definite",
            ReasonKind::NoRule => "no_rule",
        }
    }
}

/// What a reason is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A rule (index into [`Schema::rules`]).
    Rule(usize),
    /// A closure policy (index into [`Schema::closures`]).
    Closure(usize),
    /// Neither: the complement, or the absence of any rule.
    None,
}

/// One reason a literal is not concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    /// The rule or closure it is about.
    pub source: Source,
    /// What failed.
    pub kind: ReasonKind,
}

/// The answer for one asked literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhyNot {
    /// The literal, written as in `contradictions`.
    pub literal: String,
    /// Whether it is concluded (`+d`).
    pub concluded: bool,
    /// Whether it is definite (`+D`).
    pub definite: bool,
    /// When it is not concluded: why, rule by rule.
    pub reasons: Vec<Reason>,
}

/// An entity inside a why-not literal: as [`entity_text`] writes it (bare, or a JSON string when
/// it could be misread), and also as a JSON string when it is `_` (which bare stands for an
/// argument no value binds) or holds a character a reader would not see or would see as
/// something else: a control character, a bidi control, a zero-width character, the byte-order
/// mark or a soft hyphen, each written as its `\uXXXX` JSON escape. A quoted name reads back as
/// the same entity where a literal is read (`why_not`, law tests), and `_` never names one.
pub fn shown_entity(name: &str) -> std::borrow::Cow<'_, str> {
    if name != "_" && !name.contains(unseen) {
        return entity_text(name);
    }
    let mut out = String::with_capacity(name.len() + 8);
    for c in serde_json::Value::String(name.to_string()).to_string().chars() {
        if unseen(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Characters that change how text reads without being seen, or are not text: C0 and C1
/// controls and DEL, bidi embeddings, overrides, isolates and marks (U+061C, U+200E, U+200F,
/// U+202A-U+202E, U+2066-U+2069), zero-width and invisible characters (U+180E, U+200B-U+200D,
/// U+2060-U+2064, U+FEFF), the soft hyphen, the line and paragraph separators and the
/// interlinear annotation characters.
fn unseen(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{00ad}' | '\u{061c}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2069}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}')
}

/// `name(a,b)` (`~` first when negative), `_` for an unbound argument; entities as
/// [`shown_entity`] writes them, so that an entity named `_` is `"_"`.
pub fn literal_text(schema: &Schema, names: &Interner, rel: usize, negative: bool, args: &[Option<i64>]) -> String {
    let info = &schema.relations[rel];
    let mut out = String::new();
    if negative {
        out.push('~');
    }
    out.push_str(info.name);
    out.push('(');
    for (i, (p, v)) in info.params.iter().zip(args).enumerate() {
        if i > 0 {
            out.push(',');
        }
        match v {
            None => out.push('_'),
            Some(v) if p.integer => out.push_str(&v.to_string()),
            Some(v) => out.push_str(&shown_entity(names.name(Sym(*v as u32)))),
        }
    }
    out.push(')');
    out
}

fn bound(args: &[i64]) -> Vec<Option<i64>> {
    args.iter().map(|&a| Some(a)).collect()
}

/// Answers `asked`: `walk(rule, row, trace)` runs rule `rule`'s generated walk for the literal
/// of flat row `[case, args..]` and sign of the rule's head, `status(slot, row)` reads the final
/// relations of `slot(rel, negative)`.
pub fn answer(
    schema: &Schema,
    names: &Interner,
    asked: &Asked,
    walk: &dyn Fn(usize, &[i64], &mut Trace),
    status: &dyn Fn(usize, &[i64]) -> Status,
) -> WhyNot {
    let (rel, neg) = (asked.rel as usize, asked.negative);
    let row = asked.row();
    let text = |rel: usize, negative: bool, args: &[Option<i64>]| literal_text(schema, names, rel, negative, args);
    let own = status(slot(rel, neg), &row);
    let mut answer = WhyNot {
        literal: text(rel, neg, &bound(&asked.args)),
        concluded: own.concluded,
        definite: own.definite,
        reasons: Vec::new(),
    };
    if own.concluded {
        return answer;
    }
    let traces = |negative: bool| -> Vec<(usize, Trace)> {
        let rules = schema.rules.iter().enumerate().filter(|(_, r)| r.head == asked.rel && r.negative == negative);
        rules
            .map(|(ri, _)| {
                let mut t = Trace::default();
                walk(ri, &row, &mut t);
                (ri, t)
            })
            .filter(|(_, t)| t.matched())
            .collect()
    };
    let (mine, theirs) = (traces(neg), traces(!neg));
    let beats = |t: usize, s: usize| schema.priorities.iter().any(|p| p.higher as usize == t && p.lower as usize == s);
    let is_defeater = |r: usize| schema.rules[r].strength == "defeater";
    let winners: Vec<usize> = mine.iter().filter(|(r, t)| t.applicable && !is_defeater(*r)).map(|(r, _)| *r).collect();
    let unbeaten: Vec<usize> = theirs
        .iter()
        .filter(|(s, t)| t.applicable && !winners.iter().any(|&w| beats(w, *s)))
        .map(|(s, _)| *s)
        .collect();
    for (ri, t) in &mine {
        let source = Source::Rule(*ri);
        let mut push = |kind| answer.reasons.push(Reason { source, kind });
        // A binding with no failing item makes the rule applicable: what failed for other
        // bindings does not matter then.
        if t.applicable {
            if is_defeater(*ri) {
                push(ReasonKind::Defeater);
            } else {
                for &by in &unbeaten {
                    push(ReasonKind::Attacked { by });
                }
            }
            continue;
        }
        for f in &t.failures {
            push(match f {
                Failure::Premise { rel, negative, args, supported: false } => {
                    ReasonKind::PremiseNotConcluded { premise: text(*rel as usize, *negative, args) }
                }
                Failure::Premise { rel, negative, args, supported: true } => {
                    ReasonKind::PremiseNotSupported { premise: text(*rel as usize, *negative, args) }
                }
                Failure::Negation { rel, negative, args } => {
                    ReasonKind::NegationConcluded { premise: text(*rel as usize, *negative, args) }
                }
                Failure::Comparison { text, values } => {
                    ReasonKind::ComparisonFalse { comparison: comparison_text(names, text, values) }
                }
            });
        }
        if t.omitted > 0 {
            push(ReasonKind::More { count: t.omitted });
        }
    }
    let mut closed = false;
    if neg {
        for (ci, c) in schema.closures.iter().enumerate().filter(|(_, c)| c.rel == asked.rel) {
            closed = true;
            let source = Source::Closure(ci);
            let positive = text(rel, false, &bound(&asked.args));
            if status(slot(rel, false), &row).supported {
                answer.reasons.push(Reason { source, kind: ReasonKind::Supported { premise: positive } });
            } else if !status(slot(c.domain as usize, false), &row).concluded {
                let premise = text(c.domain as usize, false, &bound(&asked.args));
                answer.reasons.push(Reason { source, kind: ReasonKind::PremiseNotConcluded { premise } });
            }
        }
    }
    if status(slot(rel, !neg), &row).definite {
        let complement = text(rel, !neg, &bound(&asked.args));
        answer.reasons.push(Reason { source: Source::None, kind: ReasonKind::ComplementDefinite { complement } });
    }
    if mine.is_empty() && !closed {
        answer.reasons.push(Reason { source: Source::None, kind: ReasonKind::NoRule });
    }
    answer
}

fn comparison_text(names: &Interner, text: &[String], values: &[Shown]) -> String {
    let mut out = String::new();
    for (i, piece) in text.iter().enumerate() {
        out.push_str(piece);
        match values.get(i) {
            Some(Shown::Int(v)) => out.push_str(&v.to_string()),
            Some(Shown::Name(v)) => out.push_str(&shown_entity(names.name(Sym(*v as u32)))),
            None => {}
        }
    }
    out
}

/// The rule `rule` as a reason names it: `id`, `label`, and its `articles` as explanations
/// cite them.
pub fn rule_object(schema: &Schema, rule: usize) -> serde_json::Map<String, serde_json::Value> {
    let r = &schema.rules[rule];
    let mut m = serde_json::Map::new();
    m.insert("id".into(), r.id.into());
    m.insert("label".into(), schema.rule_label(rule).into());
    m.insert("articles".into(), crate::schema::articles(schema, rule));
    m
}

impl Reason {
    /// The reason as a ruling line writes it.
    pub fn to_json(&self, schema: &Schema) -> serde_json::Value {
        use serde_json::{json, Value};
        let mut m = serde_json::Map::new();
        match self.source {
            Source::Rule(r) => {
                m.insert("rule".into(), Value::Object(rule_object(schema, r)));
            }
            Source::Closure(c) => {
                let (id, label) = (schema.closures[c].id, schema.closure_label(c));
                m.insert("closure".into(), json!({"id": id, "label": label}));
            }
            Source::None => {}
        }
        m.insert("kind".into(), json!(self.kind.name()));
        match &self.kind {
            ReasonKind::PremiseNotConcluded { premise }
            | ReasonKind::PremiseNotSupported { premise }
            | ReasonKind::NegationConcluded { premise }
            | ReasonKind::Supported { premise } => {
                m.insert("premise".into(), json!(premise));
            }
            ReasonKind::ComparisonFalse { comparison } => {
                m.insert("comparison".into(), json!(comparison));
            }
            ReasonKind::Attacked { by } => {
                m.insert("by".into(), json!(schema.rules[*by].id));
                m.insert("by_label".into(), json!(schema.rule_label(*by)));
            }
            ReasonKind::More { count } => {
                m.insert("count".into(), json!(count));
            }
            ReasonKind::ComplementDefinite { complement } => {
                m.insert("complement".into(), json!(complement));
            }
            ReasonKind::Defeater | ReasonKind::NoRule => {}
        }
        Value::Object(m)
    }
}

impl WhyNot {
    /// The answer as a ruling line's `why_not` entry writes it; `explanation` is the
    /// derivation of a concluded literal.
    pub fn to_json(&self, schema: &Schema, explanation: Option<serde_json::Value>) -> serde_json::Value {
        use serde_json::{json, Value};
        if self.concluded {
            let explanation =
                explanation.unwrap_or_else(|| json!({"literal": self.literal, "definite": self.definite}));
            return json!({"concluded": true, "explanation": explanation});
        }
        let reasons: Vec<Value> = self.reasons.iter().map(|r| r.to_json(schema)).collect();
        json!({"concluded": false, "reasons": reasons})
    }
}

#[cfg(test)]
mod tests {
    use super::shown_entity;

    /// An entity named `_` cannot be read as the unbound `_`, and one holding a character a
    /// reader would not see shows it as an escape; every quoted name reads back as the entity.
    #[test]
    fn entities_that_read_as_something_else_are_quoted_and_escaped() {
        assert_eq!(shown_entity("w"), "w");
        assert_eq!(shown_entity("a,b"), "\"a,b\"");
        assert_eq!(shown_entity("_"), "\"_\"");
        assert_eq!(shown_entity("__"), "__");
        assert_eq!(shown_entity("g\u{202e}x"), "\"g\\u202ex\"");
        for name in ["_", "g\u{202e}x", "a\u{200b}\u{2066}\u{feff}\u{ad}b", "c\u{9b}1m\u{7f}", "d\u{1b}[2J\n"] {
            let shown = shown_entity(name);
            assert!(shown.chars().all(|c| !c.is_control() && c.is_ascii() || c.is_alphanumeric()), "{shown:?}");
            assert_eq!(serde_json::from_str::<String>(&shown).unwrap(), name, "{shown}");
        }
    }
}
