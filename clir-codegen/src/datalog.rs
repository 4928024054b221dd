//! The one printer of rules and literals as Datalog, for every reader: diagnostics (over the
//! document, before resolution), the generated code's comments, the plan (`clir compile
//! --plan`) and the package shown as Datalog (`clir show`), all over a resolved program.
//!
//! `game_drawn(g) :- moves(g, n), n >= 75, supported ~p(g), not q(g).`: relations and constants
//! by their short names, `~` for strong negation, `supported` for a `+S` premise, `not` for
//! negation as failure (an `established` premise is written bare), a literal without arguments
//! as its bare name, arithmetic inside arithmetic parenthesized, strings as JSON strings, a rule
//! without body as a fact `p(a).` and a body holding `false` with `false` last. The rule's
//! strength is not part of its text: each reader says it beside the rule (docs/DECISIONS.md 32).
//!
//! Both sources are first read into one shape ([`Rule`]); the printer prints that shape and maps
//! the JSON path of every literal, comparison and term it knows to the text it became, so a
//! diagnostic can mark the offending term.

use crate::ir::{self, ArithOp, BodyItem, CmpOp, Document, NodeKind, Status};
use crate::resolve::{Program, RItem, RLiteral, RRule, RTerm};
use std::collections::HashMap;
use std::ops::Range;

/// A printed rule: its text and the byte range of each JSON path it printed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Printed {
    /// The rule as one line of Datalog.
    pub text: String,
    /// `(JSON path, byte range in text)`, in printing order.
    pub spans: Vec<(String, Range<usize>)>,
}

impl Printed {
    /// The range of the most specific path that is `path` or encloses it.
    pub fn span_of(&self, path: &str) -> Option<Range<usize>> {
        self.spans
            .iter()
            .filter(|(p, _)| {
                path == p || (path.starts_with(p.as_str()) && matches!(path.as_bytes()[p.len()], b'.' | b'['))
            })
            .max_by_key(|(p, _)| p.len())
            .map(|(_, r)| r.clone())
    }
}

/// A term as the printer reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term<'a> {
    /// A variable, by name.
    Var(&'a str),
    /// A constant, by its short name.
    Const(&'a str),
    /// An Integer.
    Int(i64),
    /// A String.
    Str(&'a str),
    /// Integer arithmetic.
    Arith(ArithOp, Box<Term<'a>>, Box<Term<'a>>),
}

/// A literal as the printer reads it: `~name(args)`, at JSON path `path` when it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lit<'a> {
    /// Strong negation.
    pub negative: bool,
    /// The relation's short name.
    pub name: &'a str,
    /// Arguments.
    pub args: Vec<Term<'a>>,
    /// JSON path (argument `i` is at `{path}.args[i]`).
    pub path: Option<&'a str>,
}

/// A body item as the printer reads it; `path` is the item's JSON path when it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item<'a> {
    /// A literal asked with a status (`supported` printed, `established` bare).
    Literal(Status, Lit<'a>, Option<String>),
    /// `not L` (the literal is not concluded) or `not supported L` (not even supported: what a
    /// closure policy asks of the relation it closes).
    Not(Status, Lit<'a>, Option<String>),
    /// `left op right` (the sides at `{path}.left` and `{path}.right`).
    Comparison(CmpOp, Term<'a>, Term<'a>, Option<&'a str>),
}

/// A rule as the printer reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule<'a> {
    /// The head.
    pub head: Lit<'a>,
    /// The body items, in the package's order.
    pub body: Vec<Item<'a>>,
    /// Whether the body holds `false`.
    pub body_false: bool,
}

/// Short names of a document's relations and constants, by id.
pub struct Names<'d> {
    names: HashMap<&'d str, &'d str>,
}

impl<'d> Names<'d> {
    /// The names declared in `doc`.
    pub fn new(doc: &'d Document) -> Self {
        let names = doc
            .nodes
            .iter()
            .filter_map(|n| match &n.kind {
                NodeKind::Relation(r) => Some((n.id.as_str(), r.name.as_str())),
                NodeKind::Constant(c) => Some((n.id.as_str(), c.name.as_str())),
                NodeKind::TypeDecl(t) => Some((n.id.as_str(), t.name.as_str())),
                _ => None,
            })
            .collect();
        Names { names }
    }

    /// The short name of `id`, or the id itself when nothing declares it.
    pub fn of<'a>(&'a self, id: &'a str) -> &'a str {
        self.names.get(id).copied().unwrap_or(id)
    }
}

impl<'a> Rule<'a> {
    /// A rule of the document, before resolution (names the document does not declare are
    /// printed as their ids).
    pub fn of_document(names: &'a Names, rule: &'a ir::Rule) -> Self {
        let body = rule
            .body
            .iter()
            .map(|item| match item {
                BodyItem::Literal(Status::Established, l) => {
                    Item::Literal(Status::Established, Lit::of_document(names, l), None)
                }
                // A `status` (or `not`) item's path is that of the literal's parent.
                BodyItem::Literal(s, l) => Item::Literal(*s, Lit::of_document(names, l), Some(parent(&l.path))),
                BodyItem::Not(l) => Item::Not(Status::Established, Lit::of_document(names, l), Some(parent(&l.path))),
                BodyItem::Comparison(c) => Item::Comparison(
                    c.op,
                    Term::of_document(names, &c.left),
                    Term::of_document(names, &c.right),
                    Some(&c.path),
                ),
            })
            .collect();
        Rule { head: Lit::of_document(names, &rule.head), body, body_false: rule.body_false }
    }

    /// A rule of a resolved program, its variables named as `rule` names them.
    pub fn of_program(p: &'a Program, rule: &'a RRule) -> Self {
        let body = rule
            .body
            .iter()
            .map(|item| match item {
                RItem::Literal(s, l) => Item::Literal(*s, Lit::of_program(p, rule, l), None),
                RItem::Not(l) => Item::Not(Status::Established, Lit::of_program(p, rule, l), None),
                RItem::Comparison(op, a, b) => {
                    Item::Comparison(*op, Term::of_program(p, rule, *a), Term::of_program(p, rule, *b), None)
                }
            })
            .collect();
        Rule { head: Lit::of_program(p, rule, &rule.head), body, body_false: rule.never }
    }

    /// The rule as one line of Datalog, with the span of every JSON path it knows.
    pub fn print(&self) -> Printed {
        let mut p = Printer::default();
        p.literal(&self.head);
        if !self.body.is_empty() || self.body_false {
            p.push(" :- ");
            for (i, item) in self.body.iter().enumerate() {
                if i > 0 {
                    p.push(", ");
                }
                p.item(item);
            }
            if self.body_false {
                p.push(if self.body.is_empty() { "false" } else { ", false" });
            }
        }
        p.push(".");
        p.out
    }
}

fn parent(path: &str) -> String {
    path.strip_suffix(".formula").unwrap_or(path).to_string()
}

impl<'a> Lit<'a> {
    /// A literal of the document.
    pub fn of_document(names: &'a Names, l: &'a ir::Literal) -> Self {
        Lit {
            negative: l.negative,
            name: names.of(&l.predicate),
            args: l.args.iter().map(|t| Term::of_document(names, t)).collect(),
            path: Some(&l.path),
        }
    }

    /// A literal of `rule` in a resolved program.
    pub fn of_program(p: &'a Program, rule: &'a RRule, l: &RLiteral) -> Self {
        Lit {
            negative: l.negative,
            name: &p.relations[l.rel].name,
            args: l.args.iter().map(|t| Term::of_program(p, rule, *t)).collect(),
            path: None,
        }
    }

    /// The literal alone: `~p(a, 3)` (`p` without arguments).
    pub fn print(&self) -> String {
        let mut p = Printer::default();
        p.literal(self);
        p.out.text
    }
}

impl<'a> Term<'a> {
    /// A term of the document.
    pub fn of_document(names: &'a Names, t: &'a ir::Term) -> Self {
        match t {
            ir::Term::Var(v) => Term::Var(v),
            ir::Term::Const(c) => Term::Const(names.of(c)),
            ir::Term::Int(i) => Term::Int(*i),
            ir::Term::Str(s) => Term::Str(s),
            ir::Term::Arith(op, a, b) => {
                Term::Arith(*op, Box::new(Term::of_document(names, a)), Box::new(Term::of_document(names, b)))
            }
        }
    }

    /// A term of `rule` in a resolved program.
    pub fn of_program(p: &'a Program, rule: &'a RRule, t: RTerm) -> Self {
        match t {
            RTerm::Var(v) => Term::Var(&rule.vars[v].0),
            RTerm::Const(c) => Term::Const(&p.constants[c].name),
            RTerm::Int(i) => Term::Int(i),
            RTerm::Str(i) => Term::Str(&p.strings[i]),
            RTerm::Arith(i) => {
                let (op, a, b) = rule.ariths[i];
                Term::Arith(op, Box::new(Term::of_program(p, rule, a)), Box::new(Term::of_program(p, rule, b)))
            }
        }
    }

    /// The term alone.
    pub fn print(&self) -> String {
        let mut p = Printer::default();
        p.term(self, None, false);
        p.out.text
    }
}

/// Prints `rule` of the document, with the spans of its JSON paths.
pub fn rule(names: &Names, rule: &ir::Rule) -> Printed {
    Rule::of_document(names, rule).print()
}

/// Prints a literal of the document alone: `~p(a, 3)` (`p` without arguments).
pub fn literal(names: &Names, lit: &ir::Literal) -> String {
    Lit::of_document(names, lit).print()
}

/// The lines that introduce a rule of `p` wherever it is shown (the generated code's comment
/// over its function, `clir show`): `id (strength), locator, ..` of its anchors, its label, and
/// the rule, its variables named as `rule` names them.
pub fn rule_lines(p: &Program, rule: &RRule) -> [String; 3] {
    let anchors: Vec<&str> = rule.anchors.iter().map(|&f| p.fragments[f].locator.as_str()).collect();
    let mut head = format!("{} ({})", rule.id, rule.strength.word());
    if anchors.is_empty() {
        head.push_str(", no article");
    } else {
        head = format!("{head}, {}", anchors.join(", "));
    }
    [head, rule.label.clone(), p.show_rule(rule)]
}

/// The printer's view of a resolved program's rules (the methods live here, with the printer, so
/// that `resolve` imports no printer).
impl Program {
    /// A literal of `rule` as Datalog, with the rule's variable names.
    pub fn show_literal(&self, rule: &RRule, lit: &RLiteral) -> String {
        Lit::of_program(self, rule, lit).print()
    }

    /// A term of `rule` as Datalog, with the rule's variable names.
    pub fn show_term(&self, rule: &RRule, t: RTerm) -> String {
        Term::of_program(self, rule, t).print()
    }

    /// The rule as one line of Datalog, `head :- body.`.
    pub fn show_rule(&self, rule: &RRule) -> String {
        Rule::of_program(self, rule).print().text
    }
}

#[derive(Default)]
struct Printer {
    out: Printed,
}

impl Printer {
    fn push(&mut self, s: &str) {
        self.out.text.push_str(s);
    }

    /// Runs `f`, recording what it printed as the span of `path` (when there is one).
    fn spanned(&mut self, path: Option<String>, f: impl FnOnce(&mut Self)) {
        let start = self.out.text.len();
        f(self);
        if let Some(path) = path {
            let end = self.out.text.len();
            self.out.spans.push((path, start..end));
        }
    }

    fn item(&mut self, item: &Item) {
        match item {
            Item::Literal(Status::Established, l, _) => self.literal(l),
            Item::Literal(Status::Supported, l, path) => self.spanned(path.clone(), |p| {
                p.push("supported ");
                p.literal(l);
            }),
            Item::Not(status, l, path) => self.spanned(path.clone(), |p| {
                p.push(if *status == Status::Supported { "not supported " } else { "not " });
                p.literal(l);
            }),
            Item::Comparison(op, a, b, path) => self.spanned(path.map(str::to_string), |p| {
                p.term(a, path.map(|c| format!("{c}.left")), false);
                p.push(" ");
                p.push(op.symbol());
                p.push(" ");
                p.term(b, path.map(|c| format!("{c}.right")), false);
            }),
        }
    }

    fn literal(&mut self, l: &Lit) {
        self.spanned(l.path.map(str::to_string), |p| {
            if l.negative {
                p.push("~");
            }
            p.push(l.name);
            if l.args.is_empty() {
                return;
            }
            p.push("(");
            for (i, t) in l.args.iter().enumerate() {
                if i > 0 {
                    p.push(", ");
                }
                p.term(t, l.path.map(|path| format!("{path}.args[{i}]")), false);
            }
            p.push(")");
        });
    }

    /// A term; arithmetic inside arithmetic is parenthesized.
    fn term(&mut self, t: &Term, path: Option<String>, nested: bool) {
        let child = |side: &str| path.as_ref().map(|p| format!("{p}.{side}"));
        let (left, right) = (child("left"), child("right"));
        self.spanned(path, |p| match t {
            Term::Var(v) | Term::Const(v) => p.push(v),
            Term::Int(i) => p.push(&i.to_string()),
            Term::Str(s) => p.push(&serde_json::Value::String(s.to_string()).to_string()),
            Term::Arith(op, a, b) => {
                if nested {
                    p.push("(");
                }
                p.term(a, left, true);
                p.push(" ");
                p.push(op.symbol());
                p.push(" ");
                p.term(b, right, true);
                if nested {
                    p.push(")");
                }
            }
        });
    }
}
