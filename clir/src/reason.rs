//! A why-not answer as data: the literal a case asks about ([`Asked`]), what one rule's walk
//! over the final relations found ([`Trace`], as `rt::RuleTable::walk` tells it), and the answer
//! with its reasons ([`WhyNot`]), each written as a ruling line writes it. [`crate::why_not`]
//! makes the answer.

use crate::schema::Schema;
use crate::value::CaseId;

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
pub(crate) enum Failure {
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
    pub(crate) failures: Vec<Failure>,
    pub(crate) omitted: usize,
    pub(crate) applicable: bool,
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
    pub(crate) fn matched(&self) -> bool {
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
