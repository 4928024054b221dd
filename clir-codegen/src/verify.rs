//! Verification of a package file (SEMANTICS §1): parse, seal and semanticHash against pins,
//! canonical bytes, node and text hashes, schema version, must-understand features, empty
//! imports and strata, unique ids, referential integrity and the source texts' document hashes.
//!
//! Every check runs on the raw JSON tree as far as it can, so one report lists every failure,
//! not only the first. Nothing here panics on any input, prints or exits.
//!
//! The checks, in report order: `parse`, `seal`, `semanticHash`, `name`, `version`,
//! `canonical`, `schemaVersion`, `features`, `imports`, `strata`, `contentHash`, `textHash`,
//! `ids`, `references`, `documentHash`. When the file is not JSON at all, only `parse` and
//! `seal` are reported.

use crate::canonical;
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::Document;
use crate::validate;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The only schema version this compiler understands.
pub const SCHEMA_VERSION: &str = "law.core.ir/0.2";

/// The features this compiler understands; any other feature fails verification.
pub const KNOWN_FEATURES: &[&str] =
    &["core-executable", crate::ir::FEATURE_NAF, crate::ir::FEATURE_STRINGS, crate::ir::FEATURE_ARITH];

/// What a verification is compared against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerifyOptions {
    /// The pinned seal (`sha256:` of the file bytes).
    pub seal: Option<String>,
    /// The pinned top-level `semanticHash`.
    pub semantic_hash: Option<String>,
    /// The pinned `package.version`.
    pub version: Option<String>,
    /// The pinned `package.name`.
    pub name: Option<String>,
    /// The folder `metadata.localSources` paths are resolved against (the current folder when
    /// `None`).
    pub root: Option<PathBuf>,
    /// Whether a source text that is not available fails verification (otherwise a warning).
    pub strict_sources: bool,
}

/// The result of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The check holds.
    Pass,
    /// The check could not be completed, but that does not make the package unusable.
    Warn,
    /// The check failed: the package must not be used.
    Fail,
    /// Nothing was compared: no pin was given for a value the file declares (`seal`,
    /// `semanticHash`, `name`, `version`); the detail says the value found.
    Skipped,
}

/// One line of a report: a named check, its outcome, a summary and what it found.
#[derive(Debug, Clone)]
pub struct Check {
    /// The check's name (`seal`, `contentHash`, ...); the `check` of its diagnostics.
    pub name: &'static str,
    /// Pass, warn or fail.
    pub outcome: Outcome,
    /// A one-line summary (the value checked, or how many failures).
    pub detail: String,
    /// Every failure (or warning) found, located.
    pub diagnostics: Vec<Diagnostic>,
}

/// Every check run on one package file, and its model when it parsed.
#[derive(Debug, Clone)]
pub struct Report {
    /// The checks in report order.
    pub checks: Vec<Check>,
    /// The parsed model, when the document parsed (even if other checks failed).
    pub document: Option<Document>,
    /// The model's symbol table, when its references, arities and types held.
    pub symbols: Option<validate::Symbols>,
}

impl Report {
    /// Whether no check failed (warnings allowed).
    pub fn ok(&self) -> bool {
        self.checks.iter().all(|c| c.outcome != Outcome::Fail)
    }

    /// The check named `name`, if it was run.
    pub fn check(&self, name: &str) -> Option<&Check> {
        self.checks.iter().find(|c| c.name == name)
    }

    /// The names of the failed checks, in report order.
    pub fn failed_checks(&self) -> Vec<&'static str> {
        self.checks.iter().filter(|c| c.outcome == Outcome::Fail).map(|c| c.name).collect()
    }

    /// The diagnostics of every failed check (a failed check without diagnostics yields one
    /// made of its detail).
    pub fn failures(&self) -> Diagnostics {
        self.collect(Outcome::Fail)
    }

    /// The diagnostics of every check that warned.
    pub fn warnings(&self) -> Diagnostics {
        self.collect(Outcome::Warn)
    }

    fn collect(&self, outcome: Outcome) -> Diagnostics {
        let mut out = Vec::new();
        for c in self.checks.iter().filter(|c| c.outcome == outcome) {
            if c.diagnostics.is_empty() {
                out.push(Diagnostic::new(c.name, "", c.detail.clone()));
            } else {
                out.extend(c.diagnostics.iter().cloned());
            }
        }
        Diagnostics(out)
    }

    /// The model, when every check passed (or only warned); otherwise all the failures.
    pub fn into_document(self) -> Result<Verified, Diagnostics> {
        let failures = self.failures();
        match self.document {
            Some(document) if failures.0.is_empty() => match self.symbols {
                Some(symbols) => Ok(Verified { document, symbols }),
                // A report built by hand, without the `references` check's table.
                None => match validate::validate(&document) {
                    validate::Validation { symbols: Some(symbols), .. } => Ok(Verified { document, symbols }),
                    v => Err(Diagnostics(v.diagnostics)),
                },
            },
            Some(_) => Err(failures),
            None if failures.0.is_empty() => Err(Diagnostic::new("parse", "", "the document did not parse").into()),
            None => Err(failures),
        }
    }
}

/// A document that passed verification: its references, arities and types hold (the
/// validator of [`crate::validate`]), its hashes recompute, its features are understood. The
/// compiler's passes take this type and rely on it. Only [`Report::into_document`] makes one.
#[derive(Debug, Clone)]
pub struct Verified {
    document: Document,
    symbols: validate::Symbols,
}

impl Verified {
    /// The model.
    pub fn document(&self) -> &Document {
        &self.document
    }

    /// What the document declares, as the validator found it.
    pub fn symbols(&self) -> &validate::Symbols {
        &self.symbols
    }
}

impl std::ops::Deref for Verified {
    type Target = Document;

    fn deref(&self) -> &Document {
        &self.document
    }
}

/// Runs every check of SEMANTICS §1 on the bytes of a package file.
pub fn verify_bytes(bytes: &[u8], opts: &VerifyOptions) -> Report {
    let found_seal = canonical::seal(bytes);
    let seal = pin_check("seal", opts.seal.as_deref(), Some(&found_seal), "");

    let json: Value = if bytes.is_empty() {
        return Report {
            checks: vec![fail_one("parse", Diagnostic::new("parse", "", "empty file: expected a JSON object")), seal],
            document: None,
            symbols: None,
        };
    } else {
        match serde_json::from_slice(bytes) {
            Ok(v) => v,
            Err(e) => {
                let d = Diagnostic::new("parse", "", format!("not valid JSON: {e}"));
                return Report { checks: vec![fail_one("parse", d), seal], document: None, symbols: None };
            }
        }
    };

    let empty = Map::new();
    let top = json.as_object().unwrap_or(&empty);
    let package = top.get("package").and_then(Value::as_object).unwrap_or(&empty);
    let nodes: &[Value] = top.get("nodes").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);

    let semantic = pin_check(
        "semanticHash",
        opts.semantic_hash.as_deref(),
        top.get("semanticHash").and_then(Value::as_str),
        "semanticHash",
    );
    let name = pin_check("name", opts.name.as_deref(), package.get("name").and_then(Value::as_str), "package.name");
    let version = pin_check(
        "version",
        opts.version.as_deref(),
        package.get("version").and_then(Value::as_str),
        "package.version",
    );
    let canonical = check_canonical(&json, bytes);
    let schema = check_schema_version(top);
    let features = check_features(top);
    let imports = check_empty_list(top, "imports", "imports are not supported yet");
    let strata = check_empty_list(top, "strata", "strata are computed by the compiler, not read");
    let content = check_node_hashes(nodes);
    let texts = check_text_hashes(nodes);
    let ids = check_ids(nodes);
    let sources = check_sources(top, nodes, opts);

    // The model last: it takes the JSON tree.
    let node_count = nodes.len();
    let (parse, document) = match Document::from_json(json) {
        Ok(doc) => {
            let detail = format!("{} {}: {} nodes", doc.package.name, doc.package.version, node_count);
            (pass("parse", detail), Some(doc))
        }
        Err(diags) => (fail_many("parse", "model error", diags.0), None),
    };
    let (references, symbols) = match &document {
        Some(doc) => {
            let v = validate::validate(doc);
            let detail = format!("{} references, arities and types hold", v.held);
            let check =
                from_diagnostics(validate::CHECK, detail, "dangling references, wrong arities or types", v.diagnostics);
            (check, v.symbols)
        }
        None => (
            Check {
                name: validate::CHECK,
                outcome: Outcome::Warn,
                detail: "not checked: the document does not parse".into(),
                diagnostics: Vec::new(),
            },
            None,
        ),
    };

    Report {
        checks: vec![
            parse, seal, semantic, name, version, canonical, schema, features, imports, strata, content, texts, ids,
            references, sources,
        ],
        document,
        symbols,
    }
}

fn pass(name: &'static str, detail: impl Into<String>) -> Check {
    Check { name, outcome: Outcome::Pass, detail: detail.into(), diagnostics: Vec::new() }
}

fn fail_one(name: &'static str, d: Diagnostic) -> Check {
    Check { name, outcome: Outcome::Fail, detail: d.message.clone(), diagnostics: vec![d] }
}

/// A failed check with its diagnostics; the detail counts them (`3 nodes do not recompute`).
fn fail_many(name: &'static str, what: &str, diagnostics: Vec<Diagnostic>) -> Check {
    if diagnostics.len() == 1 {
        return fail_one(name, diagnostics.into_iter().next().unwrap_or_else(|| Diagnostic::new(name, "", what)));
    }
    let detail = format!("{} {what}", diagnostics.len());
    Check { name, outcome: Outcome::Fail, detail, diagnostics }
}

fn from_diagnostics(name: &'static str, ok_detail: String, what: &str, diagnostics: Vec<Diagnostic>) -> Check {
    if diagnostics.is_empty() {
        pass(name, ok_detail)
    } else {
        fail_many(name, what, diagnostics)
    }
}

/// Compares a value of the document with its pin; without a pin, only reports the value.
fn pin_check(name: &'static str, pin: Option<&str>, found: Option<&str>, path: &str) -> Check {
    match (pin, found) {
        (Some(p), Some(f)) if p == f => pass(name, f),
        (Some(p), Some(f)) => fail_one(name, Diagnostic::new(name, path, format!("expected {p}, found {f}"))),
        (Some(p), None) => fail_one(
            name,
            Diagnostic::new(name, path, format!("expected {p}, found nothing (the document has no `{path}` string)")),
        ),
        (None, Some(f)) => Check {
            name,
            outcome: Outcome::Skipped,
            detail: format!("{f} (no pin given: not compared)"),
            diagnostics: Vec::new(),
        },
        (None, None) => fail_one(name, Diagnostic::new(name, path, format!("the document has no `{path}` string"))),
    }
}

fn check_canonical(json: &Value, bytes: &[u8]) -> Check {
    let canon = canonical::canonical_bytes(json);
    if canon == bytes {
        return pass("canonical", format!("{} bytes", bytes.len()));
    }
    let at = canon.iter().zip(bytes).position(|(a, b)| a != b).unwrap_or(canon.len().min(bytes.len()));
    let message = format!(
        "not canonical: first difference at byte {at}: the file has {}, the canonical form has {} \
         ({} bytes in the file, {} canonical)",
        excerpt(bytes, at),
        excerpt(&canon, at),
        bytes.len(),
        canon.len()
    );
    fail_one("canonical", Diagnostic::new("canonical", "", message))
}

/// A few bytes from `at`, quoted, or `the end`.
fn excerpt(bytes: &[u8], at: usize) -> String {
    if at >= bytes.len() {
        return "the end".to_string();
    }
    let end = (at + 24).min(bytes.len());
    format!("{:?}", String::from_utf8_lossy(&bytes[at..end]))
}

fn check_schema_version(top: &Map<String, Value>) -> Check {
    match top.get("schemaVersion").and_then(Value::as_str) {
        Some(SCHEMA_VERSION) => pass("schemaVersion", SCHEMA_VERSION),
        Some(other) => fail_one(
            "schemaVersion",
            Diagnostic::new("schemaVersion", "schemaVersion", format!("expected {SCHEMA_VERSION}, found {other}")),
        ),
        None => fail_one(
            "schemaVersion",
            Diagnostic::new(
                "schemaVersion",
                "schemaVersion",
                format!("expected {SCHEMA_VERSION}, found no schemaVersion string"),
            ),
        ),
    }
}

fn check_features(top: &Map<String, Value>) -> Check {
    let Some(list) = top.get("features").and_then(Value::as_array) else {
        return fail_one("features", Diagnostic::new("features", "features", "expected a list of feature names"));
    };
    let mut diags = Vec::new();
    let mut names = Vec::new();
    for (i, f) in list.iter().enumerate() {
        let path = format!("features[{i}]");
        match f.as_str() {
            Some(name) if KNOWN_FEATURES.contains(&name) => names.push(name),
            Some(name) => diags.push(Diagnostic::new(
                "features",
                path,
                format!("feature {name:?} is not understood (must understand; known: {})", KNOWN_FEATURES.join(", ")),
            )),
            None => diags.push(Diagnostic::new("features", path, "expected a feature name")),
        }
    }
    let detail = if names.is_empty() { "none".to_string() } else { names.join(", ") };
    from_diagnostics("features", detail, "features not understood", diags)
}

fn check_empty_list(top: &Map<String, Value>, key: &'static str, why: &str) -> Check {
    match top.get(key) {
        Some(Value::Array(items)) if items.is_empty() => pass(key, "none"),
        Some(Value::Array(items)) => fail_one(
            key,
            Diagnostic::new(
                key,
                key,
                format!(
                    "must be empty, found {} {}: {why}",
                    items.len(),
                    if items.len() == 1 { "entry" } else { "entries" }
                ),
            ),
        ),
        _ => fail_one(key, Diagnostic::new(key, key, "expected an empty list")),
    }
}

fn node_id(node: &Value) -> Option<&str> {
    node.get("id").and_then(Value::as_str)
}

fn located(check: &'static str, path: String, node: &Value, message: String) -> Diagnostic {
    let d = Diagnostic::new(check, path, message);
    match node_id(node) {
        Some(id) => d.in_node(id),
        None => d,
    }
}

fn check_node_hashes(nodes: &[Value]) -> Check {
    let mut diags = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        if !node.is_object() {
            continue; // reported by `parse`
        }
        let computed = canonical::node_content_hash(node);
        match node.get("contentHash").and_then(Value::as_str) {
            Some(written) if written == computed => {}
            Some(written) => diags.push(located(
                "contentHash",
                format!("nodes[{i}]"),
                node,
                format!("expected {computed}, found {written}"),
            )),
            None => diags.push(located(
                "contentHash",
                format!("nodes[{i}]"),
                node,
                format!("expected {computed}, found no contentHash"),
            )),
        }
    }
    from_diagnostics("contentHash", format!("{} nodes", nodes.len()), "nodes do not recompute", diags)
}

fn check_text_hashes(nodes: &[Value]) -> Check {
    let mut diags = Vec::new();
    let mut count = 0;
    for (i, node) in nodes.iter().enumerate() {
        if node.get("kind").and_then(Value::as_str) != Some("fragment") {
            continue;
        }
        let Some(texts) = node.get("texts").and_then(Value::as_array) else { continue };
        for (j, t) in texts.iter().enumerate() {
            let Some(text) = t.get("text").and_then(Value::as_str) else { continue };
            count += 1;
            let computed = canonical::sha256_hex(text.as_bytes());
            let path = format!("nodes[{i}].texts[{j}].contentHash");
            match t.get("contentHash").and_then(Value::as_str) {
                Some(written) if written == computed => {}
                Some(written) => {
                    diags.push(located("textHash", path, node, format!("expected {computed}, found {written}")))
                }
                None => {
                    diags.push(located("textHash", path, node, format!("expected {computed}, found no contentHash")))
                }
            }
        }
    }
    from_diagnostics("textHash", format!("{count} fragment texts"), "texts do not recompute", diags)
}

fn check_ids(nodes: &[Value]) -> Check {
    let mut first: HashMap<&str, usize> = HashMap::new();
    let mut diags = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let Some(id) = node_id(node) else { continue }; // reported by `parse`
        if let Some(&j) = first.get(id) {
            diags.push(located(
                "ids",
                format!("nodes[{i}].id"),
                node,
                format!("duplicate node id {id}, first declared at nodes[{j}]"),
            ));
        } else {
            first.insert(id, i);
        }
    }
    from_diagnostics("ids", format!("{} distinct", first.len()), "duplicate node ids", diags)
}

/// `documentHash` of each publication against the sha256 of its local source text.
fn check_sources(top: &Map<String, Value>, nodes: &[Value], opts: &VerifyOptions) -> Check {
    const NAME: &str = "documentHash";
    let sources: Vec<(&str, &str)> = top
        .get("metadata")
        .and_then(|m| m.get("localSources"))
        .and_then(Value::as_object)
        .map(|m| m.iter().filter_map(|(k, v)| Some((k.as_str(), v.as_str()?))).collect())
        .unwrap_or_default();
    let mut fails = Vec::new();
    let mut warns = Vec::new();
    let mut matched = 0;
    let mut absent = |d: Diagnostic, fails: &mut Vec<Diagnostic>| {
        if opts.strict_sources {
            fails.push(d)
        } else {
            warns.push(d)
        }
    };
    for (i, node) in nodes.iter().enumerate() {
        if node.get("kind").and_then(Value::as_str) != Some("publication") {
            continue;
        }
        let Some(id) = node_id(node) else { continue };
        let hash_path = format!("nodes[{i}].documentHash");
        let declared = node.get("documentHash").and_then(Value::as_str);
        let Some(rel) = sources.iter().find(|(k, _)| *k == id).map(|(_, p)| *p) else {
            if declared.is_some() {
                let d = located(
                    NAME,
                    hash_path,
                    node,
                    "no local source text is named in metadata.localSources: not checked".into(),
                );
                absent(d, &mut fails);
            }
            continue;
        };
        let Some(declared) = declared else {
            let d =
                located(NAME, hash_path, node, format!("the publication has no documentHash to check {rel} against"));
            absent(d, &mut fails);
            continue;
        };
        let rel_path = Path::new(rel);
        if !crate::files::stays_inside(rel_path) {
            fails.push(located(
                NAME,
                format!("metadata.localSources.{id}"),
                node,
                format!("{rel}: a source path must be relative and stay inside the project root"),
            ));
            continue;
        }
        let full = match &opts.root {
            Some(root) => root.join(rel_path),
            None => rel_path.to_path_buf(),
        };
        match crate::files::read_regular_file(&full) {
            Ok(text) => {
                let found = canonical::sha256_hex(&text);
                if found == declared {
                    matched += 1;
                } else {
                    fails.push(located(NAME, hash_path, node, format!("{rel}: expected {declared}, found {found}")));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let d = located(
                    NAME,
                    hash_path,
                    node,
                    format!(
                        "{rel} is not here: it is the law's published text this package quotes ({}), which its \
                         publisher distributes, not the package; its documentHash {declared} was not checked, \
                         while the seal and every node's contentHash, the quoted articles included, still are \
                         (put the file at {rel} to check it too)",
                        node.get("uri").and_then(Value::as_str).unwrap_or("no uri given")
                    ),
                );
                absent(d, &mut fails);
            }
            Err(e) => {
                let d = located(
                    NAME,
                    hash_path,
                    node,
                    format!("{rel} cannot be read ({e}): documentHash {declared} not checked"),
                );
                absent(d, &mut fails);
            }
        }
    }
    if !fails.is_empty() {
        let mut c = fail_many(NAME, "source texts do not match", fails);
        c.diagnostics.extend(warns);
        return c;
    }
    if !warns.is_empty() {
        let detail = format!("{} source texts not checked, {matched} match", warns.len());
        return Check { name: NAME, outcome: Outcome::Warn, detail, diagnostics: warns };
    }
    pass(NAME, format!("{matched} source texts match"))
}
