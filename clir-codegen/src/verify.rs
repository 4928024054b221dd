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
use crate::ir::{Document, INTEGER_TYPE};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

/// The only schema version this compiler understands.
pub const SCHEMA_VERSION: &str = "law.core.ir/0.2";

/// The features this compiler understands; any other feature fails verification.
pub const KNOWN_FEATURES: &[&str] =
    &["core-executable", crate::ir::FEATURE_NAF, crate::ir::FEATURE_STRINGS, crate::ir::FEATURE_ARITH];

/// The deepest formula nesting the reference check follows.
const MAX_FORMULA_DEPTH: usize = 64;

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
    pub fn into_document(self) -> Result<Document, Diagnostics> {
        let failures = self.failures();
        match self.document {
            Some(doc) if failures.0.is_empty() => Ok(doc),
            Some(_) => Err(failures),
            None if failures.0.is_empty() => Err(Diagnostic::new("parse", "", "the document did not parse").into()),
            None => Err(failures),
        }
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
        };
    } else {
        match serde_json::from_slice(bytes) {
            Ok(v) => v,
            Err(e) => {
                let d = Diagnostic::new("parse", "", format!("not valid JSON: {e}"));
                return Report { checks: vec![fail_one("parse", d), seal], document: None };
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
    let references = check_references(top, nodes);
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

    Report {
        checks: vec![
            parse, seal, semantic, name, version, canonical, schema, features, imports, strata, content, texts, ids,
            references, sources,
        ],
        document,
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
        (None, Some(f)) => pass(name, format!("{f} (no pin given)")),
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

/// What the nodes of a document declare, by id.
struct Decls<'a> {
    /// Node id -> kind of its first declaration.
    kinds: HashMap<&'a str, &'a str>,
    types: HashSet<&'a str>,
    constants: HashSet<&'a str>,
    /// Relation id -> arity.
    relations: HashMap<&'a str, usize>,
    /// Relation id -> short name.
    names: HashMap<&'a str, &'a str>,
    rules: HashSet<&'a str>,
    fragments: HashSet<&'a str>,
    publications: HashSet<&'a str>,
}

impl<'a> Decls<'a> {
    fn of(nodes: &'a [Value]) -> Decls<'a> {
        let mut d = Decls {
            kinds: HashMap::new(),
            types: HashSet::from([INTEGER_TYPE, crate::ir::STRING_TYPE]),
            constants: HashSet::new(),
            relations: HashMap::new(),
            names: HashMap::new(),
            rules: HashSet::new(),
            fragments: HashSet::new(),
            publications: HashSet::new(),
        };
        for node in nodes {
            let (Some(id), Some(kind)) = (node_id(node), node.get("kind").and_then(Value::as_str)) else {
                continue;
            };
            d.kinds.entry(id).or_insert(kind);
            match kind {
                "type_decl" => {
                    d.types.insert(id);
                }
                "symbol_decl" => match node.get("symbolKind").and_then(Value::as_str) {
                    Some("constant") => {
                        d.constants.insert(id);
                    }
                    Some("relation") => {
                        let arity = node.get("parameters").and_then(Value::as_array).map_or(0, Vec::len);
                        d.relations.entry(id).or_insert(arity);
                        if let Some(name) = node.get("name").and_then(Value::as_str) {
                            d.names.entry(id).or_insert(name);
                        }
                    }
                    _ => {}
                },
                "rule" => {
                    d.rules.insert(id);
                }
                "fragment" => {
                    d.fragments.insert(id);
                }
                "publication" => {
                    d.publications.insert(id);
                }
                _ => {}
            }
        }
        d
    }

    /// Why `id` is not a `what`: undeclared, or declared as something else.
    fn not_a(&self, id: &str, what: &str) -> String {
        match self.kinds.get(id) {
            Some(kind) => format!("{id} is a {kind}, not a {what}"),
            None => format!("unknown {what} {id}: no node declares it"),
        }
    }
}

/// The referential-integrity walk: every diagnostic it finds and how many references held.
struct RefWalk<'a> {
    decls: Decls<'a>,
    diags: Vec<Diagnostic>,
    resolved: usize,
}

impl<'a> RefWalk<'a> {
    fn fail(&mut self, node: &Value, path: String, message: String) {
        self.diags.push(located("references", path, node, message));
    }

    /// `ok` counts a resolved reference; otherwise reports `message()` at `path`.
    fn expect(&mut self, ok: bool, node: &Value, path: String, message: impl FnOnce(&Decls<'a>) -> String) {
        if ok {
            self.resolved += 1;
        } else {
            let m = message(&self.decls);
            self.fail(node, path, m);
        }
    }

    /// A `{"name": type}` reference at `v` (path `path`).
    fn type_ref(&mut self, node: &Value, v: Option<&Value>, path: String) {
        let Some(name) = v.and_then(|t| t.get("name")).and_then(Value::as_str) else { return };
        let ok = self.decls.types.contains(name);
        self.expect(ok, node, format!("{path}.name"), |d| d.not_a(name, "type"));
    }

    fn id_list(&mut self, node: &Value, key: &str, path: &str, target: Target) {
        let Some(items) = node.get(key).and_then(Value::as_array) else { return };
        for (k, item) in items.iter().enumerate() {
            let Some(id) = item.as_str() else { continue };
            self.target(node, id, format!("{path}.{key}[{k}]"), target);
        }
    }

    fn target(&mut self, node: &Value, id: &str, path: String, target: Target) {
        let (ok, what) = match target {
            Target::Rule => (self.decls.rules.contains(id), "rule"),
            Target::Fragment => (self.decls.fragments.contains(id), "fragment"),
            Target::Relation => (self.decls.relations.contains_key(id), "relation"),
        };
        self.expect(ok, node, path, |d| d.not_a(id, what));
    }

    fn node(&mut self, node: &'a Value, i: usize) {
        let path = format!("nodes[{i}]");
        let Some(kind) = node.get("kind").and_then(Value::as_str) else { return };
        match kind {
            "symbol_decl" => {
                if let Some(params) = node.get("parameters").and_then(Value::as_array) {
                    for (k, p) in params.iter().enumerate() {
                        self.type_ref(node, p.get("type"), format!("{path}.parameters[{k}].type"));
                    }
                }
                if node.get("returnType").is_some() {
                    self.type_ref(node, node.get("returnType"), format!("{path}.returnType"));
                }
            }
            "rule" => self.rule(node, &path),
            "priority_rule" => {
                for key in ["higher", "lower"] {
                    if let Some(id) = node.get(key).and_then(|r| r.get("id")).and_then(Value::as_str) {
                        self.target(node, id, format!("{path}.{key}.id"), Target::Rule);
                    }
                }
                self.id_list(node, "anchors", &path, Target::Fragment);
            }
            "closure_policy" => {
                let predicate = node.get("predicate").and_then(Value::as_str);
                let domain = node.get("domain").and_then(|r| r.get("id")).and_then(Value::as_str);
                if let Some(p) = predicate {
                    self.target(node, p, format!("{path}.predicate"), Target::Relation);
                }
                if let Some(d) = domain {
                    self.target(node, d, format!("{path}.domain.id"), Target::Relation);
                }
                if let (Some(p), Some(d)) = (predicate, domain) {
                    if let (Some(&pa), Some(&da)) = (self.decls.relations.get(p), self.decls.relations.get(d)) {
                        self.expect(pa == da, node, format!("{path}.domain.id"), |_| {
                            format!("the domain {d} has {da} parameters, the closed predicate {p} has {pa}: they must be equal")
                        });
                    }
                }
            }
            "external_decl" => {
                if let Some(s) = node.get("symbol").and_then(Value::as_str) {
                    self.target(node, s, format!("{path}.symbol"), Target::Relation);
                }
            }
            // Provenance and declarations without references; `authority`, `jurisdiction` and
            // the like are non-executable and may name undeclared ids.
            _ => {}
        }
    }

    fn rule(&mut self, node: &'a Value, path: &str) {
        let mut vars: HashSet<&str> = HashSet::new();
        if let Some(list) = node.get("variables").and_then(Value::as_array) {
            for (k, v) in list.iter().enumerate() {
                if let Some(id) = v.get("id").and_then(Value::as_str) {
                    vars.insert(id);
                }
                self.type_ref(node, v.get("type"), format!("{path}.variables[{k}].type"));
            }
        }
        if let Some(head) = node.get("head") {
            self.formula(node, head, &format!("{path}.head"), &vars, 0);
        }
        if let Some(body) = node.get("body") {
            self.formula(node, body, &format!("{path}.body"), &vars, 0);
        }
        self.id_list(node, "anchors", path, Target::Fragment);
    }

    fn formula(&mut self, node: &Value, f: &Value, path: &str, vars: &HashSet<&str>, depth: usize) {
        if depth > MAX_FORMULA_DEPTH {
            return; // reported by `parse`
        }
        match f.get("kind").and_then(Value::as_str) {
            Some("and") => {
                if let Some(items) = f.get("items").and_then(Value::as_array) {
                    for (k, item) in items.iter().enumerate() {
                        self.formula(node, item, &format!("{path}.items[{k}]"), vars, depth + 1);
                    }
                }
            }
            Some("status" | "not") => {
                if let Some(inner) = f.get("formula") {
                    self.formula(node, inner, &format!("{path}.formula"), vars, depth + 1);
                }
            }
            Some("literal") => self.literal(node, f, path, vars),
            Some("comparison") => {
                for key in ["left", "right"] {
                    if let Some(t) = f.get(key) {
                        self.term(node, t, &format!("{path}.{key}"), vars);
                    }
                }
            }
            _ => {} // `boolean`, or reported by `parse`
        }
    }

    fn literal(&mut self, node: &Value, lit: &Value, path: &str, vars: &HashSet<&str>) {
        let args: &[Value] = lit.get("args").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        if let Some(p) = lit.get("predicate").and_then(Value::as_str) {
            match self.decls.relations.get(p).copied() {
                Some(arity) => {
                    self.resolved += 1;
                    if lit.get("args").is_some_and(Value::is_array) {
                        if arity == args.len() {
                            self.resolved += 1;
                        } else {
                            let name = self.decls.names.get(p).copied().unwrap_or(p);
                            let d = crate::diag::arity_mismatch(format!("{path}.args"), name, arity, args.len());
                            self.diags.push(match node_id(node) {
                                Some(id) => d.in_node(id),
                                None => d,
                            });
                        }
                    }
                }
                None => {
                    let m = self.decls.not_a(p, "relation");
                    self.fail(node, format!("{path}.predicate"), m);
                }
            }
        }
        for (k, a) in args.iter().enumerate() {
            self.term(node, a, &format!("{path}.args[{k}]"), vars);
        }
    }

    fn term(&mut self, node: &Value, t: &Value, path: &str, vars: &HashSet<&str>) {
        match t.get("kind").and_then(Value::as_str) {
            Some("var") => {
                if let Some(v) = t.get("var").and_then(Value::as_str) {
                    self.expect(vars.contains(v), node, format!("{path}.var"), |_| {
                        format!("variable {v} is not among the rule's variables")
                    });
                }
            }
            Some("const_ref" | "entity_ref") => {
                if let Some(id) = t.get("id").and_then(Value::as_str) {
                    let ok = self.decls.constants.contains(id);
                    self.expect(ok, node, format!("{path}.id"), |d| d.not_a(id, "constant"));
                }
            }
            Some("value") => self.type_ref(node, t.get("type"), format!("{path}.type")),
            Some("arith") => {
                for key in ["left", "right"] {
                    if let Some(x) = t.get(key) {
                        self.term(node, x, &format!("{path}.{key}"), vars);
                    }
                }
            }
            _ => {} // reported by `parse`
        }
    }
}

#[derive(Clone, Copy)]
enum Target {
    Rule,
    Fragment,
    Relation,
}

fn check_references(top: &Map<String, Value>, nodes: &[Value]) -> Check {
    let mut walk = RefWalk { decls: Decls::of(nodes), diags: Vec::new(), resolved: 0 };
    for (i, node) in nodes.iter().enumerate() {
        walk.node(node, i);
    }
    if let Some(sources) = top.get("metadata").and_then(|m| m.get("localSources")).and_then(Value::as_object) {
        for id in sources.keys() {
            let ok = walk.decls.publications.contains(id.as_str());
            let path = format!("metadata.localSources.{id}");
            walk.expect(ok, &Value::Null, path, |d| d.not_a(id, "publication"));
        }
    }
    let detail = format!("{} references resolve", walk.resolved);
    from_diagnostics("references", detail, "dangling or ill-formed references", walk.diags)
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
        if rel_path.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
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
        match std::fs::read(&full) {
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
                    format!("{rel} is not available: documentHash {declared} not checked"),
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
