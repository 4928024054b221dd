//! A test kit for CLIR packages: write a package in a compact notation (or build it with the
//! [`Package`] model), get the canonical document with every hash computed.
//!
//! ```
//! let pkg = clir_testkit::Package::parse(
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
//! ```
//!
//! The notation is described in [`notation`]. Every node gets its `contentHash`, every fragment
//! text its hash, the document its top-level `semanticHash` as this project publishes it
//! (SEMANTICS §1: sha256 of the canonical array of the executable nodes' contentHashes, sorted;
//! `package.semanticHash` stays the all-zero placeholder), and [`Package::seal`] is the sha256
//! of the canonical bytes.

pub mod notation;
pub mod rng;

use clir_codegen::canonical::{canonical_bytes, node_content_hash, seal, sha256_hex};
use serde_json::{json, Map, Value};

pub use notation::ParseError;

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

fn is_executable(kind: &str) -> bool {
    matches!(kind, "type_decl" | "symbol_decl" | "rule" | "priority_rule" | "closure_policy" | "external_decl")
}

impl Package {
    /// An empty package `name` `version` with namespace `urn:` + the name's dot-separated parts.
    pub fn new(name: &str, version: &str) -> Package {
        Package {
            name: name.to_string(),
            namespace: format!("urn:{}", name.replace('.', ":")),
            version: version.to_string(),
            features: Vec::new(),
            metadata: json!({}),
            nodes: Vec::new(),
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
        match name {
            "Integer" => INTEGER.to_string(),
            "String" => STRING.to_string(),
            _ if name.contains('#') => name.to_string(),
            _ => {
                let local = self
                    .nodes
                    .iter()
                    .find_map(|n| match n {
                        Node::Type { id, name: n, .. } if n == name => Some(id.as_str()),
                        _ => None,
                    })
                    .unwrap_or(name);
                self.id(local)
            }
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
        self.nodes.iter().map(|n| self.node_value(n)).collect()
    }

    fn node_value(&self, node: &Node) -> Value {
        let ns = &self.namespace;
        let mut v = match node {
            Node::Type { id, name, label } => json!({
                "id": self.id(id), "kind": "type_decl", "package": ns, "labels": labels(label),
                "name": name, "typeKind": "entity",
            }),
            Node::Constant { id, name, of, label } => json!({
                "id": self.id(id), "kind": "symbol_decl", "package": ns, "labels": labels(label),
                "name": name, "symbolKind": "constant", "parameters": [], "returnType": { "name": self.type_ref(of) },
                "value": { "kind": "entity_ref", "id": self.id(id) },
            }),
            Node::Relation { id, name, kind, params, label } => {
                let params: Vec<Value> = params
                    .iter()
                    .map(|p| json!({ "id": self.id(&format!("{id}/arg/{}", p.id)), "name": p.name, "type": { "name": self.type_ref(&p.ty) } }))
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
                let vars: Vec<Value> =
                    r.vars.iter().map(|(v, t)| json!({ "id": v, "type": { "name": self.type_ref(t) } })).collect();
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
                "texts": [{
                    "contentHash": sha256_hex(text.as_bytes()), "language": "en", "status": "official", "text": text,
                }],
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
            Node::Raw(v) => v.clone(),
        };
        if v.is_object() {
            let hash = node_content_hash(&v);
            v["contentHash"] = Value::String(hash);
        }
        v
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
        semantic_hash_of(&self.node_values())
    }

    /// `metadata`, with a `localSources` entry (publication id -> path) for every
    /// [`Node::Publication`] added to what [`Package::metadata`] holds.
    pub fn metadata_value(&self) -> Value {
        let mut metadata = self.metadata.clone();
        for node in &self.nodes {
            let Node::Publication { id, path, .. } = node else { continue };
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
            if let Node::Publication { path, document_hash, .. } = node {
                let full = root.join(path.as_str());
                let text = std::fs::read(&full)
                    .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", full.display())))?;
                *document_hash = Some(sha256_hex(&text));
            }
        }
        Ok(())
    }

    /// The whole document.
    pub fn document(&self) -> Value {
        let nodes = self.node_values();
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
        doc.insert("semanticHash".into(), json!(semantic_hash_of(&nodes)));
        doc.insert("features".into(), json!(self.feature_list()));
        doc.insert("imports".into(), json!([]));
        doc.insert("metadata".into(), self.metadata_value());
        doc.insert("strata".into(), json!([]));
        doc.insert("nodes".into(), Value::Array(nodes));
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

impl Node {
    /// The node's local id (none for a raw node).
    pub fn id(&self) -> Option<&str> {
        Some(match self {
            Node::Type { id, .. }
            | Node::Constant { id, .. }
            | Node::Relation { id, .. }
            | Node::External { id, .. }
            | Node::Priority { id, .. }
            | Node::Closure { id, .. }
            | Node::Fragment { id, .. }
            | Node::Publication { id, .. } => id,
            Node::Rule(r) => &r.id,
            Node::Raw(_) => return None,
        })
    }
}

/// The publisher's semanticHash of a list of nodes (each with its contentHash).
pub fn semantic_hash_of(nodes: &[Value]) -> String {
    let mut hashes: Vec<&str> = nodes
        .iter()
        .filter(|n| n["kind"].as_str().is_some_and(is_executable))
        .filter_map(|n| n["contentHash"].as_str())
        .collect();
    hashes.sort_unstable();
    sha256_hex(&canonical_bytes(&json!(hashes)))
}
