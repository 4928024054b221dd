//! Diagnostics: every pass reports failures as values that name the node and the JSON path.
//! They are rendered for people and tools by [`crate::render`].

use std::fmt;

/// One failure found by a pass, located by node id (when inside a node) and JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The pass or check that found it (`parse`, `seal`, `contentHash`, `resolve`, `strata`, ...).
    pub check: &'static str,
    /// The `id` of the node the failure is in, when it is inside a node.
    pub node: Option<String>,
    /// JSON path into the package document, for example `nodes[41].body.items[2].kind`.
    pub path: String,
    /// What is wrong, in words.
    pub message: String,
    /// A machine-readable category, where one is defined (`unbound_variable`,
    /// `safety_violations`, `cyclic_negation`, `arity_mismatch`, `type_mismatch`,
    /// `feature_not_declared`, `unsupported`); see docs/EXTENSIONS.md.
    pub code: Option<&'static str>,
    /// Located notes: where a cycle runs, where a variable occurs.
    pub notes: Vec<String>,
    /// What to do about it.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic found by `check` at `path`.
    pub fn new(check: &'static str, path: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            check,
            node: None,
            path: path.into(),
            message: message.into(),
            code: None,
            notes: Vec::new(),
            help: None,
        }
    }

    /// The same diagnostic, with the machine-readable category `code`.
    pub fn with_code(mut self, code: &'static str) -> Self {
        self.code = Some(code);
        self
    }

    /// The same diagnostic, with one more note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The same diagnostic, with a help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The same diagnostic, attributed to node `id`.
    pub fn in_node(mut self, id: &str) -> Self {
        if self.node.is_none() && !id.is_empty() {
            self.node = Some(id.to_string());
        }
        self
    }

    /// The code shown in `error[code]`: the category, or else the check that found it.
    pub fn code_or_check(&self) -> &'static str {
        self.code.unwrap_or(self.check)
    }
}

/// One line: `path (node): message`, leaving out what is unknown and a path that only repeats
/// the check's name (`semanticHash`, `schemaVersion`, ...). [`Diagnostic::render`] gives the
/// full form.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() || self.path == self.check { None } else { Some(&self.path) };
        match (path, &self.node) {
            (Some(p), Some(n)) => write!(f, "{p} ({n}): ")?,
            (Some(p), None) => write!(f, "{p}: ")?,
            (None, Some(n)) => write!(f, "({n}): ")?,
            (None, None) => {}
        }
        write!(f, "{}", self.message)
    }
}

/// The one wording of an arity error, for every pass that finds one.
pub fn arity_mismatch(path: impl Into<String>, relation: &str, expected: usize, got: usize) -> Diagnostic {
    let s = if expected == 1 { "" } else { "s" };
    Diagnostic::new("references", path, format!("`{relation}` takes {expected} argument{s}, got {got}"))
        .with_code("arity_mismatch")
}

/// Several diagnostics reported together; a pass fails with all it found, not only the first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics(vec![d])
    }
}

impl From<Vec<Diagnostic>> for Diagnostics {
    fn from(v: Vec<Diagnostic>) -> Self {
        Diagnostics(v)
    }
}
