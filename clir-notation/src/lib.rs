//! CLIR law packages in a readable notation (`.law` files, docs/NOTATION.md): [`parse`] reads
//! the notation into the [`Package`] model, [`Package::bytes`] builds the canonical package
//! document with every hash computed, and [`print()`] writes any package document back as
//! notation that builds the same bytes.
//!
//! ```
//! let pkg = clir_notation::Package::parse(
//!     "package demo.reach 0.1.0
//!      type Node
//!      empirical edge(from: Node, to: Node)
//!      institutional reach(from: Node, to: Node)
//!      rule Step strict: reach(x, y) :- edge(x, y)
//!      rule Trans strict: reach(x, z) :- reach(x, y), edge(y, z)",
//! )
//! .unwrap();
//! let bytes = pkg.bytes();
//! assert!(clir_codegen::verify::verify_bytes(&bytes, &Default::default()).ok());
//! assert_eq!(clir_notation::pack(&clir_notation::print(&bytes).unwrap()).unwrap(), bytes);
//! ```
//!
//! Every node gets its `contentHash`, every fragment text its hash, the document its top-level
//! `semanticHash` as clir derives it ([`clir_codegen::seal::semantic_hash`], DECISIONS 87:
//! sha256 of the canonical array of the executable nodes' contentHashes, sorted;
//! `package.semanticHash` stays the all-zero placeholder), and [`Package::seal`] is the sha256
//! of the canonical bytes.

pub mod notation;
mod print;

pub use print::{print, PrintError};

use clir_codegen::canonical::{canonical_bytes, node_content_hash, seal, sha256_hex};
use clir_codegen::seal::semantic_hash;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

pub use notation::{parse, parse_located, Located, ParseError};

/// Parses notation and builds the package's canonical bytes, every hash computed
/// ([`Package::bytes`]).
pub fn pack(text: &str) -> Result<Vec<u8>, ParseError> {
    Ok(parse(text)?.bytes())
}

/// The built-in Integer type.
pub const INTEGER: &str = "urn:law:std#Integer";
/// The built-in String type (feature `string-values`).
pub const STRING: &str = "urn:law:std#String";
/// The feature every package declares first.
pub const CORE: &str = "core-executable";

/// A package: header and nodes in document order.
#[derive(Debug, Clone, PartialEq)]
pub struct Package {
    /// `package.name`, e.g. `demo.reach`.
    pub name: String,
    /// `package.namespace`; node ids are `namespace#local`.
    pub namespace: String,
    /// `package.version` and `semanticVersion`.
    pub version: String,
    /// Features besides `core-executable`.
    pub features: Vec<String>,
    /// `metadata` (an object).
    pub metadata: Value,
    /// The nodes, in document order.
    pub nodes: Vec<Node>,
    /// `order by-id`: the document's nodes sorted by id, whatever the order they are written in.
    pub order_by_id: bool,
    /// `omit-empty KEY..`: node keys (`labels`, `anchors`) left out of a node when their list is
    /// empty, rather than written as `[]`.
    pub omit_empty: Vec<String>,
    /// `document set KEY = VALUE` and `document unset KEY`: top-level keys of the document,
    /// applied last (after the semanticHash is derived); `None` removes the key.
    pub document: Vec<(String, Option<Value>)>,
    /// `semantic-hash PUBLISHER for DERIVED`: the publisher's semanticHash, kept while the nodes
    /// still derive `DERIVED` (their meaning unchanged, as `clir seal` keeps it); once a node
    /// changes, the document gets the semanticHash clir derives.
    pub semantic_hash: Option<(String, String)>,
}

/// A label: a text in a language, with its status (`official`, `unofficial`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// The language, e.g. `en`.
    pub language: String,
    /// The status, e.g. `official`.
    pub status: String,
    /// The text.
    pub text: String,
}

/// What a statement says of its node beyond its typed form: its labels in full, and keys set or
/// removed (the generic escape of docs/NOTATION.md).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attrs {
    /// Every label, in order (replaces the typed form's single English label).
    pub labels: Option<Vec<Label>>,
    /// `set KEY = VALUE`: keys set, in order (a later one wins).
    pub set: Vec<(String, Value)>,
    /// `unset KEY`: keys removed.
    pub unset: Vec<String>,
}

impl Attrs {
    /// Whether it says nothing.
    pub fn is_empty(&self) -> bool {
        self.labels.is_none() && self.set.is_empty() && self.unset.is_empty()
    }
}

/// A relation's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelKind {
    /// Input facts.
    Empirical,
    /// Input facts under a capability.
    Judgment,
    /// Derived only.
    Institutional,
}

impl RelKind {
    /// The `relationKind` string.
    pub fn as_str(self) -> &'static str {
        match self {
            RelKind::Empirical => "empirical",
            RelKind::Judgment => "judgment",
            RelKind::Institutional => "institutional",
        }
    }
}

/// One node of the package. Ids are local (the part after `#`); types, relations, constants
/// and rules are referred to by id.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// `type_decl`.
    Type { id: String, name: String, label: Option<String> },
    /// `symbol_decl` of symbolKind `constant`; `of` is a type reference (see [`Package::type_ref`]).
    Constant { id: String, name: String, of: String, label: Option<String> },
    /// `symbol_decl` of symbolKind `relation`: parameters are `(parameter id, name, type)`.
    Relation { id: String, name: String, kind: RelKind, params: Vec<Param>, label: Option<String> },
    /// `external_decl` for a judgment relation.
    External { id: String, relation: String, capability: String, authority: Option<String> },
    /// `rule`.
    Rule(Rule),
    /// `priority_rule`: `higher` beats `lower` (rule ids).
    Priority { id: String, higher: String, lower: String, label: Option<String>, reason: Option<String> },
    /// `closure_policy` of `predicate` over `domain` (relation ids).
    Closure {
        id: String,
        predicate: String,
        domain: String,
        label: Option<String>,
        complete_as_of: Option<String>,
        snapshot: Option<String>,
    },
    /// `fragment` (an article text that rules anchor to).
    Fragment { id: String, locator: String, text: String },
    /// `publication` of a source text kept with the package: `path` (relative to the project
    /// root) becomes its `metadata.localSources` entry, `document_hash` its `documentHash`
    /// (see [`Package::hash_sources`]).
    Publication { id: String, path: String, label: Option<String>, document_hash: Option<String> },
    /// A node given as JSON, kept as is (its `contentHash` is computed).
    Raw(Value),
    /// A node of any kind: `id`, `kind`, `package` and empty `labels`, the rest given by the
    /// [`Attrs`] of a [`Node::With`] around it.
    Other { kind: String, id: String },
    /// A node with what its statement says beyond the typed form.
    With(Box<Node>, Attrs),
}

/// A relation parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// The parameter's id suffix (`<relation id>/arg/<id>`).
    pub id: String,
    /// The parameter's name.
    pub name: String,
    /// A type reference.
    pub ty: String,
}

/// A rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// Local id.
    pub id: String,
    /// `strict`, `defeasible` or `defeater` (any other string is written as is).
    pub strength: String,
    /// `(variable, type reference)`, in order.
    pub vars: Vec<(String, String)>,
    /// The head.
    pub head: Lit,
    /// The body items (an `and`; one item alone is still wrapped unless `bare_body`).
    pub body: Vec<Item>,
    /// Write a one-item body without its `and`.
    pub bare_body: bool,
    /// The label.
    pub label: Option<String>,
    /// Fragment ids.
    pub anchors: Vec<String>,
}

/// A literal: relation id, strong negation, arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Lit {
    /// Relation id (local).
    pub rel: String,
    /// `~rel(..)`.
    pub negative: bool,
    /// Arguments.
    pub args: Vec<Term>,
}

/// A body item.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A bare literal (reads as established).
    Lit(Lit),
    /// `{"kind":"status","status":..,"formula":lit}`.
    Status(String, Lit),
    /// Negation as failure (feature `negation-as-failure`).
    Not(Lit),
    /// A comparison `op` (eq, ne, lt, le, gt, ge).
    Cmp(String, Term, Term),
    /// `{"kind":"boolean"}`.
    Bool(bool),
    /// A nested `and`.
    And(Vec<Item>),
}

/// A term.
#[derive(Debug, Clone, PartialEq)]
pub enum Term {
    /// A rule variable.
    Var(String),
    /// A constant by id, as `const_ref`.
    Const(String),
    /// A constant by id, as `entity_ref`.
    Entity(String),
    /// An Integer.
    Int(i64),
    /// A String value.
    Str(String),
    /// Integer arithmetic `op` (add, sub, mul).
    Arith(String, Box<Term>, Box<Term>),
}

fn labels(label: &Option<String>) -> Value {
    match label {
        Some(text) => json!([{ "language": "en", "status": "official", "text": text }]),
        None => json!([]),
    }
}

impl Package {
    /// An empty package `name` `version` with namespace `urn:` + the name's dot-separated parts.
    pub fn new(name: &str, version: &str) -> Package {
        Package {
            name: name.to_string(),
            namespace: default_namespace(name),
            version: version.to_string(),
            features: Vec::new(),
            metadata: json!({}),
            nodes: Vec::new(),
            order_by_id: false,
            omit_empty: Vec::new(),
            document: Vec::new(),
            semantic_hash: None,
        }
    }

    /// Parses the notation of [`notation`].
    pub fn parse(text: &str) -> Result<Package, ParseError> {
        notation::parse(text)
    }

    /// The full id of local id `local`.
    pub fn id(&self, local: &str) -> String {
        format!("{}#{local}", self.namespace)
    }

    /// A type reference: `Integer` and `String` are the built-ins, a full id (with `#` or `:`)
    /// stays as is, a declared type's name is its id, anything else is a local id.
    pub fn type_ref(&self, name: &str) -> String {
        self.type_ref_in(&Index::new(self), name)
    }

    /// [`Package::type_ref`] with the declarations looked up in `idx`.
    pub(crate) fn type_ref_in(&self, idx: &Index, name: &str) -> String {
        match name {
            "Integer" => INTEGER.to_string(),
            "String" => STRING.to_string(),
            _ if name.contains('#') => name.to_string(),
            _ => self.id(idx.types.get(name).map_or(name, String::as_str)),
        }
    }

    /// The features, `core-executable` first and the rest sorted.
    pub fn feature_list(&self) -> Vec<String> {
        let mut rest: Vec<String> = self.features.iter().filter(|f| *f != CORE).cloned().collect();
        rest.sort();
        rest.dedup();
        std::iter::once(CORE.to_string()).chain(rest).collect()
    }

    /// The nodes as JSON, each with its `contentHash`.
    pub fn node_values(&self) -> Vec<Value> {
        let idx = Index::new(self);
        self.nodes.iter().map(|n| self.node_value_in(&idx, n)).collect()
    }

    /// The JSON of one node, with its `contentHash`.
    pub fn node_value(&self, node: &Node) -> Value {
        self.node_value_in(&Index::new(self), node)
    }

    /// [`Package::node_value`] with the declarations looked up in `idx`.
    pub(crate) fn node_value_in(&self, idx: &Index, node: &Node) -> Value {
        let mut v = self.node_json(idx, node);
        if v.is_object() {
            let hash = node_content_hash(&v);
            v["contentHash"] = Value::String(hash);
        }
        v
    }

    /// The JSON of one node without its `contentHash` (a fragment's texts hashed).
    fn node_json(&self, idx: &Index, node: &Node) -> Value {
        let mut v = match node {
            Node::With(inner, attrs) => {
                let mut v = self.node_json(idx, inner);
                if let Value::Object(map) = &mut v {
                    if let Some(labels) = &attrs.labels {
                        let list = labels
                            .iter()
                            .map(|l| json!({ "language": l.language, "status": l.status, "text": l.text }))
                            .collect();
                        map.insert("labels".into(), Value::Array(list));
                    }
                    for (k, val) in &attrs.set {
                        map.insert(k.clone(), val.clone());
                    }
                    for k in &attrs.unset {
                        map.remove(k);
                    }
                }
                v
            }
            Node::Raw(v) => return v.clone(),
            base => {
                let mut v = self.base_json(idx, base);
                if let Value::Object(map) = &mut v {
                    for key in &self.omit_empty {
                        if map.get(key).and_then(Value::as_array).is_some_and(Vec::is_empty) {
                            map.remove(key);
                        }
                    }
                }
                v
            }
        };
        hash_texts(&mut v);
        v.as_object_mut().map(|m| m.remove("contentHash"));
        v
    }

    fn base_json(&self, idx: &Index, node: &Node) -> Value {
        let ns = &self.namespace;
        match node {
            Node::Type { id, name, label } => json!({
                "id": self.id(id), "kind": "type_decl", "package": ns, "labels": labels(label),
                "name": name, "typeKind": "entity",
            }),
            Node::Constant { id, name, of, label } => json!({
                "id": self.id(id), "kind": "symbol_decl", "package": ns, "labels": labels(label),
                "name": name, "symbolKind": "constant", "parameters": [], "returnType": { "name": self.type_ref_in(idx, of) },
                "value": { "kind": "entity_ref", "id": self.id(id) },
            }),
            Node::Relation { id, name, kind, params, label } => {
                let params: Vec<Value> = params
                    .iter()
                    .map(|p| json!({ "id": self.id(&format!("{id}/arg/{}", p.id)), "name": p.name, "type": { "name": self.type_ref_in(idx, &p.ty) } }))
                    .collect();
                json!({
                    "id": self.id(id), "kind": "symbol_decl", "package": ns, "labels": labels(label),
                    "name": name, "symbolKind": "relation", "relationKind": kind.as_str(), "parameters": params,
                })
            }
            Node::External { id, relation, capability, authority } => {
                let mut v = json!({
                    "id": self.id(id), "kind": "external_decl", "package": ns, "labels": [],
                    "symbol": self.id(relation), "capability": capability, "effect": "judgment",
                });
                if let Some(a) = authority {
                    v["authority"] = json!({ "kind": "const_ref", "id": self.id(a) });
                }
                v
            }
            Node::Rule(r) => {
                let vars: Vec<Value> = r
                    .vars
                    .iter()
                    .map(|(v, t)| json!({ "id": v, "type": { "name": self.type_ref_in(idx, t) } }))
                    .collect();
                let items: Vec<Value> = r.body.iter().map(|i| self.item(i)).collect();
                let body = if r.bare_body && items.len() == 1 {
                    items.into_iter().next().unwrap()
                } else {
                    json!({ "kind": "and", "items": items })
                };
                json!({
                    "id": self.id(&r.id), "kind": "rule", "package": ns, "labels": labels(&r.label),
                    "anchors": r.anchors.iter().map(|a| self.id(a)).collect::<Vec<_>>(),
                    "interpretations": [], "scope": { "kind": "boolean", "value": true },
                    "strength": r.strength, "variables": vars, "head": self.lit(&r.head), "body": body,
                })
            }
            Node::Priority { id, higher, lower, label, reason } => {
                let mut v = json!({
                    "id": self.id(id), "kind": "priority_rule", "package": ns, "labels": labels(label), "anchors": [],
                    "condition": { "kind": "boolean", "value": true },
                    "higher": { "kind": "const_ref", "id": self.id(higher) },
                    "lower": { "kind": "const_ref", "id": self.id(lower) },
                    "priorityKind": "direct",
                });
                if let Some(r) = reason {
                    v["reason"] = json!(self.id(r));
                }
                v
            }
            Node::Closure { id, predicate, domain, label, complete_as_of, snapshot } => {
                let mut v = json!({
                    "id": self.id(id), "kind": "closure_policy", "package": ns, "labels": labels(label),
                    "predicate": self.id(predicate), "domain": { "kind": "const_ref", "id": self.id(domain) },
                    "deriveExplicitNegative": true,
                });
                if let Some(t) = complete_as_of {
                    v["completeAsOf"] = json!(t);
                }
                if let Some(s) = snapshot {
                    v["snapshot"] = json!(s);
                }
                v
            }
            Node::Fragment { id, locator, text } => json!({
                "id": self.id(id), "kind": "fragment", "package": ns, "fragmentKind": "article", "locator": locator,
                "texts": [{ "language": "en", "status": "official", "text": text }],
            }),
            Node::Publication { id, label, document_hash, .. } => {
                let mut v = json!({
                    "id": self.id(id), "kind": "publication", "package": ns, "labels": labels(label),
                    "mediaType": "text/plain; charset=utf-8",
                });
                if let Some(h) = document_hash {
                    v["documentHash"] = json!(h);
                }
                v
            }
            Node::Other { kind, id } => json!({ "id": self.id(id), "kind": kind, "package": ns, "labels": [] }),
            Node::Raw(v) => v.clone(),
            Node::With(inner, _) => self.base_json(idx, inner),
        }
    }

    fn lit(&self, l: &Lit) -> Value {
        json!({
            "kind": "literal", "predicate": self.id(&l.rel),
            "polarity": if l.negative { "negative" } else { "positive" },
            "args": l.args.iter().map(|t| self.term(t)).collect::<Vec<_>>(),
        })
    }

    fn item(&self, item: &Item) -> Value {
        match item {
            Item::Lit(l) => self.lit(l),
            Item::Status(s, l) => json!({ "kind": "status", "status": s, "formula": self.lit(l) }),
            Item::Not(l) => json!({ "kind": "not", "formula": self.lit(l) }),
            Item::Cmp(op, a, b) => {
                json!({ "kind": "comparison", "op": op, "left": self.term(a), "right": self.term(b) })
            }
            Item::Bool(b) => json!({ "kind": "boolean", "value": b }),
            Item::And(items) => {
                json!({ "kind": "and", "items": items.iter().map(|i| self.item(i)).collect::<Vec<_>>() })
            }
        }
    }

    fn term(&self, t: &Term) -> Value {
        match t {
            Term::Var(v) => json!({ "kind": "var", "var": v }),
            Term::Const(c) => json!({ "kind": "const_ref", "id": self.id(c) }),
            Term::Entity(c) => json!({ "kind": "entity_ref", "id": self.id(c) }),
            Term::Int(i) => json!({ "kind": "value", "type": { "name": INTEGER }, "value": i }),
            Term::Str(s) => json!({ "kind": "value", "type": { "name": STRING }, "value": s }),
            Term::Arith(op, a, b) => json!({ "kind": "arith", "op": op, "left": self.term(a), "right": self.term(b) }),
        }
    }

    /// The top-level `semanticHash` as this project publishes it: sha256 of the canonical JSON
    /// array of the executable nodes' contentHashes, sorted.
    pub fn semantic_hash(&self) -> String {
        semantic_hash(&self.node_values())
    }

    /// `metadata`, with a `localSources` entry (publication id -> path) for every
    /// [`Node::Publication`] added to what [`Package::metadata`] holds.
    pub fn metadata_value(&self) -> Value {
        let mut metadata = self.metadata.clone();
        for node in &self.nodes {
            let Node::Publication { id, path, .. } = node.base() else { continue };
            if path == "-" {
                continue;
            }
            if !metadata.is_object() {
                metadata = json!({});
            }
            let sources = metadata.as_object_mut().unwrap().entry("localSources").or_insert_with(|| json!({}));
            if !sources.is_object() {
                *sources = json!({});
            }
            sources[self.id(id)] = json!(path);
        }
        metadata
    }

    /// Sets the `documentHash` of every publication to the sha256 of its source text, read
    /// from `root` joined with its path (`root` is the project root, the folder of `law.toml`).
    pub fn hash_sources(&mut self, root: &std::path::Path) -> std::io::Result<()> {
        for node in &mut self.nodes {
            if let Node::Publication { path, document_hash, .. } = node.base_mut() {
                if path == "-" {
                    continue;
                }
                let full = root.join(path.as_str());
                let text = std::fs::read(&full)
                    .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", full.display())))?;
                *document_hash = Some(sha256_hex(&text));
            }
        }
        Ok(())
    }

    /// Sets the `documentHash` of every publication that has none and whose source text is
    /// present under `root`: the ids (local) of those hashed.
    pub fn hash_present_sources(&mut self, root: &std::path::Path) -> Vec<String> {
        let mut hashed = Vec::new();
        for node in &mut self.nodes {
            if let Node::Publication { id, path, document_hash: hash @ None, .. } = node.base_mut() {
                if path == "-" {
                    continue;
                }
                if let Ok(text) = clir_codegen::files::read_regular_file(&root.join(path.as_str())) {
                    *hash = Some(sha256_hex(&text));
                    hashed.push(id.clone());
                }
            }
        }
        hashed
    }

    /// The whole document.
    pub fn document(&self) -> Value {
        let mut nodes = self.node_values();
        if self.order_by_id {
            nodes.sort_by(|a, b| a.get("id").and_then(Value::as_str).cmp(&b.get("id").and_then(Value::as_str)));
        }
        let mut doc = Map::new();
        doc.insert("schemaVersion".into(), json!("law.core.ir/0.2"));
        doc.insert(
            "package".into(),
            json!({
                "name": self.name, "namespace": self.namespace, "version": self.version,
                "semanticHash": format!("sha256:{}", "0".repeat(64)),
            }),
        );
        doc.insert("semanticVersion".into(), json!(self.version));
        let derived = semantic_hash(&nodes);
        let kept = self.semantic_hash.as_ref().filter(|(_, for_hash)| *for_hash == derived);
        doc.insert("semanticHash".into(), json!(kept.map_or(derived, |(publisher, _)| publisher.clone())));
        doc.insert("features".into(), json!(self.feature_list()));
        doc.insert("imports".into(), json!([]));
        doc.insert("metadata".into(), self.metadata_value());
        doc.insert("strata".into(), json!([]));
        doc.insert("nodes".into(), Value::Array(nodes));
        for (key, value) in &self.document {
            match value {
                Some(v) => doc.insert(key.clone(), v.clone()),
                None => doc.remove(key),
            };
        }
        Value::Object(doc)
    }

    /// The canonical bytes of the document, as a package file holds them.
    pub fn bytes(&self) -> Vec<u8> {
        canonical_bytes(&self.document())
    }

    /// The seal of [`Package::bytes`].
    pub fn seal(&self) -> String {
        seal(&self.bytes())
    }

    /// The file name a project keeps it under: `<name>-<version>.lawir.json`.
    pub fn file_name(&self) -> String {
        format!("{}-{}.lawir.json", self.name, self.version)
    }

    /// The index of the node with local id `local`.
    pub fn position(&self, local: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.id() == Some(local))
    }
}

/// The declarations of a package by name and by id, the first of each as the notation resolves
/// names (built once, not searched for every reference).
#[derive(Debug, Clone, Default)]
pub(crate) struct Index {
    /// Type name -> local id.
    pub types: HashMap<String, String>,
    /// Relation name -> local id.
    pub relations: HashMap<String, String>,
    /// Relation local id -> name.
    pub relation_names: HashMap<String, String>,
    /// Relation local id -> parameters.
    pub params: HashMap<String, Vec<Param>>,
    /// Constant name -> local id.
    pub constants: HashMap<String, String>,
    /// Constant local id -> name.
    pub constant_names: HashMap<String, String>,
}

impl Index {
    /// The index of `pkg`'s declarations.
    pub fn new(pkg: &Package) -> Index {
        let mut idx = Index::default();
        for node in &pkg.nodes {
            match node.base() {
                Node::Type { id, name, .. } => {
                    idx.types.entry(name.clone()).or_insert_with(|| id.clone());
                }
                Node::Relation { id, name, params, .. } => {
                    idx.relations.entry(name.clone()).or_insert_with(|| id.clone());
                    idx.relation_names.entry(id.clone()).or_insert_with(|| name.clone());
                    idx.params.entry(id.clone()).or_insert_with(|| params.clone());
                }
                Node::Constant { id, name, .. } => {
                    idx.constants.entry(name.clone()).or_insert_with(|| id.clone());
                    idx.constant_names.entry(id.clone()).or_insert_with(|| name.clone());
                }
                _ => {}
            }
        }
        idx
    }
}

/// The namespace a package gets when the notation names none: `urn:` and its name's
/// dot-separated parts.
pub fn default_namespace(name: &str) -> String {
    format!("urn:{}", name.replace('.', ":"))
}

/// Sets the `contentHash` of every text of a fragment node to the sha256 of its text.
fn hash_texts(v: &mut Value) {
    if v.get("kind").and_then(Value::as_str) != Some("fragment") {
        return;
    }
    if let Some(texts) = v.get_mut("texts").and_then(Value::as_array_mut) {
        for t in texts.iter_mut().filter_map(Value::as_object_mut) {
            if let Some(text) = t.get("text").and_then(Value::as_str) {
                let hash = sha256_hex(text.as_bytes());
                t.insert("contentHash".into(), Value::String(hash));
            }
        }
    }
}

impl Node {
    /// The node without its [`Node::With`] attributes.
    pub fn base(&self) -> &Node {
        match self {
            Node::With(inner, _) => inner.base(),
            other => other,
        }
    }

    /// [`Node::base`], mutably.
    pub fn base_mut(&mut self) -> &mut Node {
        match self {
            Node::With(inner, _) => inner.base_mut(),
            other => other,
        }
    }

    /// The node's local id (none for a raw node).
    pub fn id(&self) -> Option<&str> {
        Some(match self.base() {
            Node::Type { id, .. }
            | Node::Constant { id, .. }
            | Node::Relation { id, .. }
            | Node::External { id, .. }
            | Node::Priority { id, .. }
            | Node::Closure { id, .. }
            | Node::Fragment { id, .. }
            | Node::Publication { id, .. } => id,
            Node::Other { id, .. } => id,
            Node::Rule(r) => &r.id,
            Node::Raw(_) | Node::With(..) => return None,
        })
    }
}

/// The semanticHash clir derives for a list of nodes (each with its contentHash):
/// [`clir_codegen::seal::semantic_hash`].
pub fn semantic_hash_of(nodes: &[Value]) -> String {
    semantic_hash(nodes)
}
