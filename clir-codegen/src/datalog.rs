//! A package's rules as readable Datalog, with the JSON path of every literal, comparison and
//! term mapped to the text it became (so a diagnostic can mark the offending term).
//!
//! `game_drawn(g) :- established moves(g, n), n >= 75, supported ~p(g), not q(g).`: relations
//! and constants by their short names, `~` for strong negation, `supported` for a `+S` premise,
//! `not` for negation as failure (an `established` premise is written bare).

use crate::ir::{BodyItem, Document, Literal, NodeKind, Rule, Status, Term};
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

/// Prints `rule` (at JSON path `path`, e.g. `nodes[6]`).
pub fn rule(names: &Names, rule: &Rule, path: &str) -> Printed {
    let mut p = Printer { names, out: Printed::default() };
    p.literal(&rule.head, &format!("{path}.head"));
    if !rule.body.is_empty() || rule.body_false {
        p.push(" :- ");
        for (i, item) in rule.body.iter().enumerate() {
            if i > 0 {
                p.push(", ");
            }
            p.item(item);
        }
        if rule.body_false {
            p.push(if rule.body.is_empty() { "false" } else { ", false" });
        }
    }
    p.push(".");
    p.out
}

/// Prints a literal alone: `~p(a, 3)` (`p` without arguments).
pub fn literal(names: &Names, lit: &Literal) -> String {
    let mut p = Printer { names, out: Printed::default() };
    p.literal(lit, &lit.path);
    p.out.text
}

struct Printer<'n, 'd> {
    names: &'n Names<'d>,
    out: Printed,
}

impl Printer<'_, '_> {
    fn push(&mut self, s: &str) {
        self.out.text.push_str(s);
    }

    fn spanned(&mut self, path: String, f: impl FnOnce(&mut Self)) {
        let start = self.out.text.len();
        f(self);
        let end = self.out.text.len();
        self.out.spans.push((path, start..end));
    }

    fn item(&mut self, item: &BodyItem) {
        match item {
            BodyItem::Literal(Status::Established, l) => self.literal(l, &l.path),
            BodyItem::Literal(Status::Supported, l) => {
                // A `status` item's path is that of the literal's parent.
                let parent = l.path.strip_suffix(".formula").unwrap_or(&l.path).to_string();
                self.spanned(parent, |p| {
                    p.push("supported ");
                    p.literal(l, &l.path);
                });
            }
            BodyItem::Not(l) => {
                let parent = l.path.strip_suffix(".formula").unwrap_or(&l.path).to_string();
                self.spanned(parent, |p| {
                    p.push("not ");
                    p.literal(l, &l.path);
                });
            }
            BodyItem::Comparison(c) => self.spanned(c.path.clone(), |p| {
                p.term(&c.left, format!("{}.left", c.path), false);
                p.push(" ");
                p.push(c.op.symbol());
                p.push(" ");
                p.term(&c.right, format!("{}.right", c.path), false);
            }),
        }
    }

    fn literal(&mut self, l: &Literal, path: &str) {
        self.spanned(path.to_string(), |p| {
            if l.negative {
                p.push("~");
            }
            let name = p.names.of(&l.predicate).to_string();
            p.push(&name);
            if l.args.is_empty() {
                return;
            }
            p.push("(");
            for (i, t) in l.args.iter().enumerate() {
                if i > 0 {
                    p.push(", ");
                }
                p.term(t, format!("{path}.args[{i}]"), false);
            }
            p.push(")");
        });
    }

    /// A term; arithmetic inside arithmetic is parenthesized.
    fn term(&mut self, t: &Term, path: String, nested: bool) {
        self.spanned(path.clone(), |p| match t {
            Term::Var(v) => p.push(v),
            Term::Const(c) => {
                let name = p.names.of(c).to_string();
                p.push(&name);
            }
            Term::Int(i) => p.push(&i.to_string()),
            Term::Str(s) => p.push(&serde_json::Value::String(s.clone()).to_string()),
            Term::Arith(op, a, b) => {
                if nested {
                    p.push("(");
                }
                p.term(a, format!("{path}.left"), true);
                p.push(" ");
                p.push(op.symbol());
                p.push(" ");
                p.term(b, format!("{path}.right"), true);
                if nested {
                    p.push(")");
                }
            }
        });
    }
}
