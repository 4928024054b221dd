//! What an evaluation records for explanations: each ground application of a rule or closure in
//! a case ([`Instance`]), with its premises and the layer each asks for. Generated code builds
//! them (through `rt::Record` or directly); [`crate::explain`] chooses among them and
//! [`crate::certificate`] writes them.

use crate::value::{CaseId, Row};

/// Which conclusions a premise asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layer {
    /// `+D`.
    Definite,
    /// `+S`.
    Supported,
    /// `+d`.
    Concluded,
}

/// One premise of an instance.
#[derive(Clone, Debug)]
pub struct Premise {
    /// Relation index.
    pub rel: u32,
    /// Strong negation.
    pub negative: bool,
    /// The layer asked for.
    pub layer: Layer,
    /// Arguments, flat.
    pub args: Vec<i64>,
}

/// Where an instance comes from.
#[derive(Clone, Copy, Debug)]
pub enum Source {
    /// A rule applied: over definite premises (`definite`) or applicable ones.
    Rule {
        /// Rule index.
        rule: u32,
        /// Premises are definite (a strict rule deriving `+D`).
        definite: bool,
    },
    /// A closure policy derived the negative.
    Closure {
        /// Closure index.
        closure: u32,
    },
}

/// One ground application of a rule or closure in a case.
#[derive(Clone, Debug)]
pub struct Instance {
    /// The case.
    pub case: u32,
    /// Rule or closure.
    pub source: Source,
    /// Head relation.
    pub rel: u32,
    /// Head sign.
    pub negative: bool,
    /// Head arguments, flat.
    pub head: Vec<i64>,
    /// Premises.
    pub premises: Vec<Premise>,
}

impl Premise {
    /// A premise of relation `rel` (its index in the schema) and sign, asked in `layer`.
    pub fn new(rel: usize, negative: bool, layer: Layer, args: impl Row) -> Premise {
        Premise { rel: rel as u32, negative, layer, args: args.to_row() }
    }
}

impl Instance {
    /// Orders `instances` as explanations list them: every rule's in rule order (over
    /// applicable premises, then over definite ones), then every closure's in closure order,
    /// each source's own order kept (a stable sort). An evaluation records them stratum by
    /// stratum (and a package built as several crates, group by group), then calls this.
    pub fn in_module_order(instances: &mut [Instance]) {
        instances.sort_by_key(|i| match i.source {
            Source::Rule { rule, definite } => (0, rule, definite),
            Source::Closure { closure } => (1, closure, false),
        });
    }

    /// An instance of rule `rule` (its index in the schema) in `case`, over definite premises or
    /// applicable ones; its head and premises are added next.
    pub fn rule(rule: usize, definite: bool, case: CaseId) -> Instance {
        Instance {
            case: case.0,
            source: Source::Rule { rule: rule as u32, definite },
            rel: 0,
            negative: false,
            head: Vec::new(),
            premises: Vec::new(),
        }
    }

    /// Sets the head: `rel`(`args`) with its sign.
    pub fn head(self, rel: usize, negative: bool, args: impl Row) -> Instance {
        self.flat_head(rel, negative, args.to_row())
    }

    /// [`Self::head`] of arguments already flat.
    pub(crate) fn flat_head(mut self, rel: usize, negative: bool, args: Vec<i64>) -> Instance {
        (self.rel, self.negative, self.head) = (rel as u32, negative, args);
        self
    }

    /// Adds the premise `rel`(`args`) with its sign, asked as concluded (as definite over
    /// definite premises).
    pub fn premise(self, rel: usize, negative: bool, args: impl Row) -> Instance {
        self.flat_premise(rel, negative, false, args.to_row())
    }

    /// Adds the premise `rel`(`args`) with its sign, asked as supported (as definite over
    /// definite premises).
    pub fn supported(self, rel: usize, negative: bool, args: impl Row) -> Instance {
        self.flat_premise(rel, negative, true, args.to_row())
    }

    /// Adds a premise of arguments already flat, asked as supported or concluded (as definite
    /// over definite premises).
    pub(crate) fn flat_premise(mut self, rel: usize, negative: bool, supported: bool, args: Vec<i64>) -> Instance {
        let layer = match (self.source, supported) {
            (Source::Rule { definite: true, .. }, _) => Layer::Definite,
            (_, true) => Layer::Supported,
            (_, false) => Layer::Concluded,
        };
        self.premises.push(Premise { rel: rel as u32, negative, layer, args });
        self
    }

    /// A negative of relation `rel` that closure `closure` (its index in the schema) derived in
    /// `case`, its arguments `args` flat, over the concluded fact of relation `domain` with the
    /// same arguments.
    pub fn closure(closure: usize, case: CaseId, rel: usize, args: Vec<i64>, domain: usize) -> Instance {
        let domain = Premise { rel: domain as u32, negative: false, layer: Layer::Concluded, args: args.clone() };
        Instance {
            case: case.0,
            source: Source::Closure { closure: closure as u32 },
            rel: rel as u32,
            negative: true,
            head: args,
            premises: vec![domain],
        }
    }
}
