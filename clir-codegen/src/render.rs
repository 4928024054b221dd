//! Diagnostics rendered for people and tools: rustc-style text ([`Diagnostic::render`]) and JSON
//! ([`Diagnostic::to_json`]), the rule the diagnostic is in printed as Datalog ([`crate::datalog`])
//! with the offending part marked. Kept apart from [`crate::diag`], which every pass (the parser
//! first) builds its diagnostics with, so that building one imports no printer.

use crate::datalog;
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Document, NodeKind};

/// What a diagnostic is rendered against: the package's name and, when it parsed, its model
/// (to print the rule as Datalog with the offending term marked).
#[derive(Debug, Clone, Copy, Default)]
pub struct Source<'a> {
    /// The package's name (law.toml's, or the document's own).
    pub package: Option<&'a str>,
    /// The parsed document.
    pub document: Option<&'a Document>,
}

impl<'a> Source<'a> {
    /// A source for `document`, named by its own `package.name`.
    pub fn of(document: &'a Document) -> Self {
        Source { package: Some(&document.package.name), document: Some(document) }
    }
}

/// A rule printed for a diagnostic, and the marked range (in characters).
struct Excerpt {
    kind: &'static str,
    text: String,
    mark: Option<(usize, usize)>,
}

impl Diagnostic {
    fn excerpt(&self, src: Source<'_>) -> Option<Excerpt> {
        let doc = src.document?;
        let node = doc.node(self.node.as_deref()?)?;
        match &node.kind {
            NodeKind::Rule(rule) => {
                let printed = datalog::rule(&datalog::Names::new(doc), rule);
                let mark = printed.span_of(&self.path).filter(|r| !r.is_empty() && self.path != node.path).map(|r| {
                    let start = printed.text[..r.start].chars().count();
                    (start, start + printed.text[r].chars().count())
                });
                Some(Excerpt { kind: "rule", text: printed.text, mark })
            }
            _ => None,
        }
    }

    /// The rustc-style form: `error[code]: headline`, the location (package, JSON path, node),
    /// the rule as Datalog with the offending part marked, then notes and help.
    pub fn render(&self, level: &str, src: Source<'_>) -> String {
        let mut out = format!("{level}[{}]: {}\n", self.code_or_check(), self.message);
        let excerpt = self.excerpt(src);
        let mut at = Vec::new();
        if let Some(p) = src.package {
            at.push(p.to_string());
        }
        if !self.path.is_empty() && self.path != self.check {
            at.push(self.path.clone());
        }
        if let Some(node) = &self.node {
            at.push(format!("({} {node})", excerpt.as_ref().map_or("node", |e| e.kind)));
        }
        if !at.is_empty() {
            out.push_str(&format!("  --> {}\n", at.join(" ")));
        }
        if let Some(e) = &excerpt {
            out.push_str(&format!("   |\n   | {}\n", e.text));
            if let Some((start, end)) = e.mark {
                out.push_str(&format!("   | {}{}\n", " ".repeat(start), "^".repeat(end - start)));
            }
        }
        if !self.notes.is_empty() || self.help.is_some() {
            out.push_str("   |\n");
        }
        for note in &self.notes {
            out.push_str(&format!("   = note: {note}\n"));
        }
        if let Some(help) = &self.help {
            out.push_str(&format!("   = help: {help}\n"));
        }
        out
    }

    /// The form for tools (`--message-format json`): one object with every field, the rule's
    /// Datalog text and the marked range (in characters) when there is one.
    pub fn to_json(&self, level: &str, src: Source<'_>) -> serde_json::Value {
        let excerpt = self.excerpt(src);
        serde_json::json!({
            "level": level,
            "code": self.code_or_check(),
            "check": self.check,
            "message": self.message,
            "package": src.package,
            "path": self.path,
            "node": self.node,
            "rule": excerpt.as_ref().map(|e| e.text.clone()),
            "span": excerpt.and_then(|e| e.mark).map(|(s, e)| [s, e]),
            "notes": self.notes,
            "help": self.help,
            "rendered": self.render(level, src),
        })
    }
}

impl Diagnostics {
    /// Every diagnostic in the rustc-style form, a blank line between them.
    pub fn render(&self, level: &str, src: Source<'_>) -> String {
        self.0.iter().map(|d| d.render(level, src)).collect::<Vec<_>>().join("\n")
    }
}
