//! The `law.core.ir/0.2` document model, read from the JSON tree with a path for every error.
//!
//! The model is built from a `serde_json::Value` rather than with `#[derive(Deserialize)]`:
//! node, formula and term kinds are internally tagged, and serde's buffering of such enums loses
//! the JSON path inside them; users need `nodes[41].body.items[2].kind: unknown formula kind "or"`.
//! Executable nodes reject fields they do not know (a field we do not understand could change
//! what a rule means); provenance nodes keep theirs as JSON for explanations.

use crate::diag::{Diagnostic, Diagnostics};
use serde_json::{Map, Value};

/// The built-in signed 64-bit integer type.
pub const INTEGER_TYPE: &str = "urn:law:std#Integer";

/// The built-in String type (feature `string-values`): interned text, compared by its bytes.
pub const STRING_TYPE: &str = "urn:law:std#String";

/// Feature: negation as failure (`{"kind":"not","formula":literal}` body items).
pub const FEATURE_NAF: &str = "negation-as-failure";
/// Feature: String `value` terms and the built-in `urn:law:std#String` type.
pub const FEATURE_STRINGS: &str = "string-values";
/// Feature: Integer arithmetic terms (`{"kind":"arith","op":"add"|"sub"|"mul",...}`).
pub const FEATURE_ARITH: &str = "integer-arithmetic";

/// A parsed package document: the JSON tree it came from and its typed model.
#[derive(Debug, Clone)]
pub struct Document {
    /// The whole document as parsed (used for canonical bytes and hashes).
    pub json: Value,
    /// `schemaVersion`.
    pub schema_version: String,
    /// `package`.
    pub package: PackageInfo,
    /// `semanticVersion`.
    pub semantic_version: String,
    /// `semanticHash` (verified against the pin, never recomputed).
    pub semantic_hash: String,
    /// `features` (must-understand).
    pub features: Vec<String>,
    /// `imports` (must be empty).
    pub imports: Vec<Value>,
    /// `metadata.localSources`: publication id -> path of the source text.
    pub local_sources: Vec<(String, String)>,
    /// `strata` (must be empty: strata are computed).
    pub strata: Vec<Value>,
    /// `nodes`, in document order.
    pub nodes: Vec<Node>,
}

/// `package` of the document.
#[derive(Debug, Clone)]
pub struct PackageInfo {
    /// Registry name, e.g. `some.laws.pkg`.
    pub name: String,
    /// Namespace URN that prefixes node ids.
    pub namespace: String,
    /// Published version.
    pub version: String,
    /// The package-level semantic hash (a placeholder in published packages).
    pub semantic_hash: String,
}

/// One node: its id, its declared contentHash, where it is, and what it is.
#[derive(Debug, Clone)]
pub struct Node {
    /// `id`.
    pub id: String,
    /// `contentHash` as written.
    pub content_hash: String,
    /// JSON path of the node (`nodes[i]`).
    pub path: String,
    /// Labels (text per language).
    pub labels: Vec<Label>,
    /// The kind-specific content.
    pub kind: NodeKind,
}

/// A human-readable label of a node.
#[derive(Debug, Clone)]
pub struct Label {
    /// BCP 47 language tag.
    pub language: String,
    /// The text.
    pub text: String,
    /// Whether its `status` is `official`.
    pub official: bool,
}

/// The node kinds of `law.core.ir/0.2`.
#[derive(Debug, Clone)]
pub enum NodeKind {
    /// `type_decl`.
    TypeDecl(TypeDecl),
    /// `symbol_decl` with `symbolKind: constant`.
    Constant(ConstantDecl),
    /// `symbol_decl` with `symbolKind: relation`.
    Relation(RelationDecl),
    /// `rule`.
    Rule(Rule),
    /// `priority_rule`.
    Priority(PriorityRule),
    /// `closure_policy`.
    Closure(ClosurePolicy),
    /// `external_decl`.
    External(ExternalDecl),
    /// `fragment`: article texts addressed by rule anchors.
    Fragment(Fragment),
    /// `source_work`, `source_edition`: provenance, kept as JSON.
    Provenance(Provenance),
    /// `publication`: provenance with a document hash.
    Publication(Publication),
}

/// `type_decl`.
#[derive(Debug, Clone)]
pub struct TypeDecl {
    /// Short name, e.g. `Game`.
    pub name: String,
}

/// A named entity of a declared type.
#[derive(Debug, Clone)]
pub struct ConstantDecl {
    /// Short name, e.g. `Playing`.
    pub name: String,
    /// Type id.
    pub return_type: String,
}

/// How facts of a relation come to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RelationKind {
    /// Given as input facts.
    Empirical,
    /// Given as input facts only under the capability of its `external_decl`.
    Judgment,
    /// Derived by rules only.
    Institutional,
}

impl RelationKind {
    /// `empirical`, `judgment` or `institutional`, as the package writes it.
    pub fn word(self) -> &'static str {
        match self {
            RelationKind::Empirical => "empirical",
            RelationKind::Judgment => "judgment",
            RelationKind::Institutional => "institutional",
        }
    }
}

/// A typed predicate.
#[derive(Debug, Clone)]
pub struct RelationDecl {
    /// Short name, e.g. `game_drawn`.
    pub name: String,
    /// `relationKind`.
    pub relation_kind: RelationKind,
    /// Parameters in order.
    pub parameters: Vec<Parameter>,
    /// `judgment.authority`, when present.
    pub authority: Option<String>,
}

/// One parameter of a relation.
#[derive(Debug, Clone)]
pub struct Parameter {
    /// Short name, e.g. `game`.
    pub name: String,
    /// Type id.
    pub ty: String,
}

/// Rule strength.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strength {
    /// Concludes definitely from definite premises.
    Strict,
    /// Concludes unless defeated.
    Defeasible,
    /// Only attacks.
    Defeater,
}

impl Strength {
    /// `strict`, `defeasible` or `defeater`, as the package writes it.
    pub fn word(self) -> &'static str {
        match self {
            Strength::Strict => "strict",
            Strength::Defeasible => "defeasible",
            Strength::Defeater => "defeater",
        }
    }
}

/// `rule`.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The head literal.
    pub head: Literal,
    /// The body, flattened to its items (an `and` is flattened, `true` dropped).
    pub body: Vec<BodyItem>,
    /// Whether the body contains `false` (the rule can never apply).
    pub body_false: bool,
    /// Rule variables with their types.
    pub variables: Vec<(String, String)>,
    /// `strength`.
    pub strength: Strength,
    /// Anchored fragment ids.
    pub anchors: Vec<String>,
}

/// What a body literal asks of its literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// The literal must be concluded (+d).
    Established,
    /// The literal must be supported (+S).
    Supported,
}

/// One item of a rule body.
#[derive(Debug, Clone)]
pub enum BodyItem {
    /// A literal asked with a status.
    Literal(Status, Literal),
    /// An integer comparison.
    Comparison(Comparison),
    /// Negation as failure (feature `negation-as-failure`): the literal is not concluded.
    Not(Literal),
}

/// A literal `p(t..)` or `~p(t..)`.
#[derive(Debug, Clone)]
pub struct Literal {
    /// Predicate id.
    pub predicate: String,
    /// Strong negation.
    pub negative: bool,
    /// Arguments.
    pub args: Vec<Term>,
    /// JSON path of the literal.
    pub path: String,
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `eq`
    Eq,
    /// `ne`
    Ne,
    /// `lt`
    Lt,
    /// `le`
    Le,
    /// `gt`
    Gt,
    /// `ge`
    Ge,
}

impl CmpOp {
    /// The Rust operator.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }

    /// The operator that holds exactly when this one does not.
    pub fn negated(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
        }
    }

    /// Applies the operator.
    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
}

/// `comparison`.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// Operator.
    pub op: CmpOp,
    /// Left term.
    pub left: Term,
    /// Right term.
    pub right: Term,
    /// JSON path.
    pub path: String,
}

/// A term.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Term {
    /// A rule variable.
    Var(String),
    /// A constant (`const_ref` or `entity_ref`).
    Const(String),
    /// An Integer literal.
    Int(i64),
    /// A String literal (feature `string-values`).
    Str(String),
    /// Integer arithmetic (feature `integer-arithmetic`).
    Arith(ArithOp, Box<Term>, Box<Term>),
}

/// Integer arithmetic operators (feature `integer-arithmetic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArithOp {
    /// `add`
    Add,
    /// `sub`
    Sub,
    /// `mul`
    Mul,
}

impl ArithOp {
    /// The operator as written in rule text.
    pub fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
        }
    }

    /// Applies the operator (two's-complement wraparound on overflow).
    pub fn apply(self, a: i64, b: i64) -> i64 {
        match self {
            ArithOp::Add => a.wrapping_add(b),
            ArithOp::Sub => a.wrapping_sub(b),
            ArithOp::Mul => a.wrapping_mul(b),
        }
    }
}

impl Term {
    /// Whether the term uses an extension feature, and which.
    pub fn feature(&self) -> Option<&'static str> {
        match self {
            Term::Str(_) => Some(FEATURE_STRINGS),
            Term::Arith(..) => Some(FEATURE_ARITH),
            _ => None,
        }
    }
}

/// `priority_rule`: `higher` beats `lower`.
#[derive(Debug, Clone)]
pub struct PriorityRule {
    /// Winning rule id.
    pub higher: String,
    /// Losing rule id.
    pub lower: String,
    /// Anchored fragment ids.
    pub anchors: Vec<String>,
    /// `reason`: why `higher` wins, an id (such as `...#lex_specialis`), if given.
    pub reason: Option<String>,
}

/// `closure_policy`: closed world for `predicate` over `domain`.
#[derive(Debug, Clone)]
pub struct ClosurePolicy {
    /// The closed predicate.
    pub predicate: String,
    /// The domain relation id.
    pub domain: String,
    /// `completeAsOf`, carried into explanations.
    pub complete_as_of: Option<String>,
    /// `snapshot`, carried into explanations.
    pub snapshot: Option<String>,
}

/// `external_decl`: who may assert a judgment relation.
#[derive(Debug, Clone)]
pub struct ExternalDecl {
    /// The relation id.
    pub symbol: String,
    /// The capability, e.g. `judgment:SomeAuthority`.
    pub capability: String,
}

/// `fragment`: an article and its texts.
#[derive(Debug, Clone)]
pub struct Fragment {
    /// Locator, e.g. `article/9`.
    pub locator: String,
    /// Texts with their declared hashes.
    pub texts: Vec<FragmentText>,
}

/// One text of a fragment.
#[derive(Debug, Clone)]
pub struct FragmentText {
    /// Language.
    pub language: String,
    /// Whether its `status` is `official`.
    pub official: bool,
    /// The text.
    pub text: String,
    /// Declared `sha256:` of the text's UTF-8 bytes.
    pub content_hash: String,
    /// JSON path.
    pub path: String,
}

/// A provenance node kept as JSON.
#[derive(Debug, Clone)]
pub struct Provenance {
    /// `source_work` or `source_edition`.
    pub kind: String,
    /// The node's JSON.
    pub json: Value,
}

/// `publication`.
#[derive(Debug, Clone)]
pub struct Publication {
    /// `documentHash`, when present.
    pub document_hash: Option<String>,
    /// The node's JSON.
    pub json: Value,
}

/// When the law of a package applies, from the `lifecycle` of its source editions: each entry a
/// `status` and the date (`extent`, `YYYY-MM-DD`) it took effect. Entries whose extent is not
/// such a date are not read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lifecycle {
    /// The earliest date an edition was adopted.
    pub adopted: Option<String>,
    /// The earliest date an edition is in force from: cases dated before it are refused.
    pub in_force: Option<String>,
    /// The earliest date an edition stopped being in force (`superseded`, `repealed`,
    /// `expired`, `revoked`): cases dated on or after it are refused.
    pub until: Option<String>,
}

/// Whether `s` is a calendar date written `YYYY-MM-DD` (month 01-12, day 01-31).
pub fn is_iso_date(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    let num = |r: std::ops::Range<usize>| s[r].parse::<u32>().unwrap_or(0);
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && digits(0..4)
        && digits(5..7)
        && digits(8..10)
        && (1..=12).contains(&num(5..7))
        && (1..=31).contains(&num(8..10))
}

impl Document {
    /// Every language the package's labels and fragment texts are in, in node order, the
    /// default first: the first official one (else the first one).
    pub fn languages(&self) -> Vec<String> {
        let mut all: Vec<(&str, bool)> = Vec::new();
        for n in &self.nodes {
            all.extend(n.labels.iter().map(|l| (l.language.as_str(), l.official)));
            if let NodeKind::Fragment(f) = &n.kind {
                all.extend(f.texts.iter().map(|t| (t.language.as_str(), t.official)));
            }
        }
        let mut out: Vec<String> = Vec::new();
        if let Some((l, _)) = all.iter().find(|(_, official)| *official) {
            out.push(l.to_string());
        }
        for (l, _) in all {
            if !out.iter().any(|o| o == l) {
                out.push(l.to_string());
            }
        }
        out
    }

    /// The package's lifecycle, read from its `source_edition` nodes (DECISIONS 45).
    pub fn lifecycle(&self) -> Lifecycle {
        let mut out = Lifecycle::default();
        let earliest = |slot: &mut Option<String>, date: &str| {
            if slot.as_deref().is_none_or(|d| date < d) {
                *slot = Some(date.to_string());
            }
        };
        for n in &self.nodes {
            let NodeKind::Provenance(p) = &n.kind else { continue };
            if p.kind != "source_edition" {
                continue;
            }
            for entry in p.json.get("lifecycle").and_then(Value::as_array).into_iter().flatten() {
                let (Some(status), Some(date)) =
                    (entry.get("status").and_then(Value::as_str), entry.get("extent").and_then(Value::as_str))
                else {
                    continue;
                };
                if !is_iso_date(date) {
                    continue;
                }
                match status {
                    "adopted" => earliest(&mut out.adopted, date),
                    "in_force" => earliest(&mut out.in_force, date),
                    "superseded" | "repealed" | "expired" | "revoked" => earliest(&mut out.until, date),
                    _ => {}
                }
            }
        }
        out
    }

    /// Parses bytes into the model; every error names its JSON path.
    pub fn parse(bytes: &[u8]) -> Result<Document, Diagnostics> {
        if bytes.is_empty() {
            return Err(Diagnostic::new("parse", "", "empty file: expected a JSON object").into());
        }
        let json: Value =
            serde_json::from_slice(bytes).map_err(|e| Diagnostic::new("parse", "", format!("not valid JSON: {e}")))?;
        Document::from_json(json)
    }

    /// Builds the model from an already parsed JSON tree.
    pub fn from_json(json: Value) -> Result<Document, Diagnostics> {
        let mut errors = Vec::new();
        let root = Obj::new(&json, "")?;
        let mut doc = Document {
            json: Value::Null,
            schema_version: String::new(),
            package: PackageInfo {
                name: String::new(),
                namespace: String::new(),
                version: String::new(),
                semantic_hash: String::new(),
            },
            semantic_version: String::new(),
            semantic_hash: String::new(),
            features: Vec::new(),
            imports: Vec::new(),
            local_sources: Vec::new(),
            strata: Vec::new(),
            nodes: Vec::new(),
        };
        let mut top = || -> Result<(), Diagnostic> {
            root.only(&[
                "schemaVersion",
                "package",
                "semanticVersion",
                "semanticHash",
                "features",
                "imports",
                "metadata",
                "strata",
                "nodes",
            ])?;
            doc.schema_version = root.str("schemaVersion")?;
            let p = root.obj("package")?;
            p.only(&["name", "namespace", "version", "semanticHash"])?;
            doc.package = PackageInfo {
                name: p.str("name")?,
                namespace: p.str("namespace")?,
                version: p.str("version")?,
                semantic_hash: p.str("semanticHash")?,
            };
            doc.semantic_version = root.str("semanticVersion")?;
            doc.semantic_hash = root.str("semanticHash")?;
            doc.features = root.strings("features")?;
            doc.imports = root.arr("imports")?.into_iter().map(|(v, _)| v.clone()).collect();
            doc.strata = root.arr("strata")?.into_iter().map(|(v, _)| v.clone()).collect();
            let meta = root.obj("metadata")?;
            if let Some(ls) = meta.opt_obj("localSources")? {
                for (k, v) in ls.map {
                    let path = format!("{}.{}", ls.path, k);
                    match v.as_str() {
                        Some(s) => doc.local_sources.push((k.clone(), s.to_string())),
                        None => return Err(Diagnostic::new("parse", path, "expected a string")),
                    }
                }
            }
            Ok(())
        };
        if let Err(e) = top() {
            errors.push(e);
        }
        match root.arr("nodes") {
            Ok(items) => {
                for (v, path) in items {
                    match parse_node(v, &path) {
                        Ok(n) => doc.nodes.push(n),
                        Err(e) => {
                            let id = v.get("id").and_then(Value::as_str).unwrap_or("");
                            errors.push(e.in_node(id));
                        }
                    }
                }
            }
            Err(e) => errors.push(e),
        }
        if !errors.is_empty() {
            return Err(Diagnostics(errors));
        }
        doc.json = json;
        Ok(doc)
    }

    /// The node with `id`, if any.
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }
}

/// The label text of a node in `language`, or its first label.
pub fn label_text<'a>(labels: &'a [Label], language: &str) -> Option<&'a str> {
    labels.iter().find(|l| l.language == language).or_else(|| labels.first()).map(|l| l.text.as_str())
}

/// A JSON object with its path, for reading with located errors.
struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl<'a> Obj<'a> {
    fn new(v: &'a Value, path: &str) -> Result<Obj<'a>, Diagnostic> {
        match v {
            Value::Object(map) => Ok(Obj { map, path: path.to_string() }),
            other => Err(Diagnostic::new("parse", path, format!("expected an object, found {}", type_name(other)))),
        }
    }

    fn err(&self, key: &str, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::new("parse", join(&self.path, key), msg)
    }

    fn get(&self, key: &str) -> Result<&'a Value, Diagnostic> {
        self.map.get(key).ok_or_else(|| self.err(key, "missing field"))
    }

    fn only(&self, allowed: &[&str]) -> Result<(), Diagnostic> {
        for k in self.map.keys() {
            if !allowed.contains(&k.as_str()) {
                return Err(self.err(k, "unknown field (not understood by this compiler)"));
            }
        }
        Ok(())
    }

    fn str(&self, key: &str) -> Result<String, Diagnostic> {
        match self.get(key)? {
            Value::String(s) => Ok(s.clone()),
            other => Err(self.err(key, format!("expected a string, found {}", type_name(other)))),
        }
    }

    fn opt_str(&self, key: &str) -> Result<Option<String>, Diagnostic> {
        if self.map.contains_key(key) {
            self.str(key).map(Some)
        } else {
            Ok(None)
        }
    }

    fn bool(&self, key: &str) -> Result<bool, Diagnostic> {
        match self.get(key)? {
            Value::Bool(b) => Ok(*b),
            other => Err(self.err(key, format!("expected a boolean, found {}", type_name(other)))),
        }
    }

    fn obj(&self, key: &str) -> Result<Obj<'a>, Diagnostic> {
        Obj::new(self.get(key)?, &join(&self.path, key))
    }

    fn opt_obj(&self, key: &str) -> Result<Option<Obj<'a>>, Diagnostic> {
        if self.map.contains_key(key) {
            self.obj(key).map(Some)
        } else {
            Ok(None)
        }
    }

    fn arr(&self, key: &str) -> Result<Vec<(&'a Value, String)>, Diagnostic> {
        match self.get(key)? {
            Value::Array(items) => {
                Ok(items.iter().enumerate().map(|(i, v)| (v, format!("{}[{i}]", join(&self.path, key)))).collect())
            }
            other => Err(self.err(key, format!("expected an array, found {}", type_name(other)))),
        }
    }

    fn opt_arr(&self, key: &str) -> Result<Vec<(&'a Value, String)>, Diagnostic> {
        if self.map.contains_key(key) {
            self.arr(key)
        } else {
            Ok(Vec::new())
        }
    }

    fn strings(&self, key: &str) -> Result<Vec<String>, Diagnostic> {
        self.arr(key)?
            .into_iter()
            .map(|(v, p)| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(Diagnostic::new("parse", p, format!("expected a string, found {}", type_name(other)))),
            })
            .collect()
    }

    fn opt_strings(&self, key: &str) -> Result<Vec<String>, Diagnostic> {
        if self.map.contains_key(key) {
            self.strings(key)
        } else {
            Ok(Vec::new())
        }
    }

    /// `{"name": ...}` type reference.
    fn type_ref(&self, key: &str) -> Result<String, Diagnostic> {
        let t = self.obj(key)?;
        t.only(&["name"])?;
        t.str("name")
    }

    /// `{"kind":"const_ref"|"entity_ref","id":...}` reference.
    fn node_ref(&self, key: &str) -> Result<String, Diagnostic> {
        let r = self.obj(key)?;
        r.only(&["kind", "id"])?;
        let kind = r.str("kind")?;
        if kind != "const_ref" && kind != "entity_ref" {
            return Err(r.err("kind", format!("unknown reference kind {kind:?}")));
        }
        r.str("id")
    }

    fn labels(&self) -> Result<Vec<Label>, Diagnostic> {
        self.opt_arr("labels")?
            .into_iter()
            .map(|(v, p)| {
                let l = Obj::new(v, &p)?;
                let official = l.opt_str("status")?.as_deref() == Some("official");
                Ok(Label { language: l.str("language")?, text: l.str("text")?, official })
            })
            .collect()
    }
}

const COMMON: [&str; 5] = ["id", "kind", "package", "contentHash", "labels"];

fn allowed(extra: &[&'static str]) -> Vec<&'static str> {
    COMMON.iter().copied().chain(extra.iter().copied()).collect()
}

fn parse_node(v: &Value, path: &str) -> Result<Node, Diagnostic> {
    let o = Obj::new(v, path)?;
    let kind_name = o.str("kind")?;
    let id = o.str("id")?;
    let content_hash = o.str("contentHash")?;
    let labels = o.labels()?;
    let kind = match kind_name.as_str() {
        "type_decl" => {
            o.only(&allowed(&["name", "typeKind"]))?;
            let tk = o.str("typeKind")?;
            if tk != "entity" {
                return Err(o.err("typeKind", format!("unknown type kind {tk:?}")));
            }
            NodeKind::TypeDecl(TypeDecl { name: o.str("name")? })
        }
        "symbol_decl" => parse_symbol(&o)?,
        "rule" => {
            o.only(&allowed(&["head", "body", "variables", "strength", "scope", "interpretations", "anchors"]))?;
            NodeKind::Rule(parse_rule(&o)?)
        }
        "priority_rule" => {
            o.only(&allowed(&["higher", "lower", "condition", "priorityKind", "reason", "anchors"]))?;
            let pk = o.str("priorityKind")?;
            if pk != "direct" {
                return Err(o.err("priorityKind", format!("unknown priority kind {pk:?}")));
            }
            expect_true(&o, "condition")?;
            NodeKind::Priority(PriorityRule {
                higher: o.node_ref("higher")?,
                lower: o.node_ref("lower")?,
                anchors: o.opt_strings("anchors")?,
                reason: o.opt_str("reason")?,
            })
        }
        "closure_policy" => {
            o.only(&allowed(&["predicate", "domain", "deriveExplicitNegative", "completeAsOf", "snapshot"]))?;
            if !o.bool("deriveExplicitNegative")? {
                return Err(o.err("deriveExplicitNegative", "deriveExplicitNegative: false is not understood"));
            }
            NodeKind::Closure(ClosurePolicy {
                predicate: o.str("predicate")?,
                domain: o.node_ref("domain")?,
                complete_as_of: o.opt_str("completeAsOf")?,
                snapshot: o.opt_str("snapshot")?,
            })
        }
        "external_decl" => {
            o.only(&allowed(&["symbol", "capability", "effect", "authority"]))?;
            NodeKind::External(ExternalDecl { symbol: o.str("symbol")?, capability: o.str("capability")? })
        }
        "fragment" => {
            let mut texts = Vec::new();
            for (tv, tp) in o.arr("texts")? {
                let t = Obj::new(tv, &tp)?;
                texts.push(FragmentText {
                    language: t.str("language")?,
                    official: t.opt_str("status")?.as_deref() == Some("official"),
                    text: t.str("text")?,
                    content_hash: t.str("contentHash")?,
                    path: tp,
                });
            }
            NodeKind::Fragment(Fragment { locator: o.str("locator")?, texts })
        }
        "source_work" | "source_edition" => {
            NodeKind::Provenance(Provenance { kind: kind_name.clone(), json: v.clone() })
        }
        "publication" => {
            NodeKind::Publication(Publication { document_hash: o.opt_str("documentHash")?, json: v.clone() })
        }
        other => return Err(o.err("kind", format!("unknown node kind {other:?}"))),
    };
    Ok(Node { id, content_hash, path: path.to_string(), labels, kind })
}

fn expect_true(o: &Obj<'_>, key: &str) -> Result<(), Diagnostic> {
    let c = o.obj(key)?;
    c.only(&["kind", "value"])?;
    let k = c.str("kind")?;
    if k != "boolean" || !c.bool("value")? {
        return Err(o.err(key, "only the condition {\"kind\":\"boolean\",\"value\":true} is understood"));
    }
    Ok(())
}

fn parse_symbol(o: &Obj<'_>) -> Result<NodeKind, Diagnostic> {
    let sk = o.str("symbolKind")?;
    let mut parameters = Vec::new();
    for (pv, pp) in o.arr("parameters")? {
        let p = Obj::new(pv, &pp)?;
        p.only(&["id", "name", "type"])?;
        parameters.push(Parameter { name: p.str("name")?, ty: p.type_ref("type")? });
    }
    match sk.as_str() {
        "constant" => {
            o.only(&allowed(&["name", "symbolKind", "parameters", "returnType", "value"]))?;
            if !parameters.is_empty() {
                return Err(o.err("parameters", "a constant takes no parameters"));
            }
            Ok(NodeKind::Constant(ConstantDecl { name: o.str("name")?, return_type: o.type_ref("returnType")? }))
        }
        "relation" => {
            o.only(&allowed(&["name", "symbolKind", "parameters", "relationKind", "effect", "judgment"]))?;
            let rk = o.str("relationKind")?;
            let relation_kind = match rk.as_str() {
                "empirical" => RelationKind::Empirical,
                "judgment" => RelationKind::Judgment,
                "institutional" => RelationKind::Institutional,
                other => return Err(o.err("relationKind", format!("unknown relation kind {other:?}"))),
            };
            let authority = match o.opt_obj("judgment")? {
                Some(j) => Some(j.str("authority")?),
                None => None,
            };
            Ok(NodeKind::Relation(RelationDecl { name: o.str("name")?, relation_kind, parameters, authority }))
        }
        other => Err(o.err("symbolKind", format!("unknown symbol kind {other:?}"))),
    }
}

fn parse_rule(o: &Obj<'_>) -> Result<Rule, Diagnostic> {
    let strength = match o.str("strength")?.as_str() {
        "strict" => Strength::Strict,
        "defeasible" => Strength::Defeasible,
        "defeater" => Strength::Defeater,
        other => return Err(o.err("strength", format!("unknown strength {other:?}"))),
    };
    expect_true(o, "scope")?;
    if !o.arr("interpretations")?.is_empty() {
        return Err(o.err("interpretations", "only an empty list of interpretations is understood"));
    }
    let mut variables = Vec::new();
    for (vv, vp) in o.arr("variables")? {
        let v = Obj::new(vv, &vp)?;
        v.only(&["id", "type"])?;
        variables.push((v.str("id")?, v.type_ref("type")?));
    }
    let head_obj = o.obj("head")?;
    let head = match head_obj.str("kind")?.as_str() {
        "literal" => parse_literal(&head_obj)?,
        other => return Err(head_obj.err("kind", format!("a rule head must be a literal, found {other:?}"))),
    };
    let mut body = Vec::new();
    let mut body_false = false;
    flatten_body(&o.obj("body")?, &mut body, &mut body_false, 0)?;
    Ok(Rule { head, body, body_false, variables, strength, anchors: o.opt_strings("anchors")? })
}

fn flatten_body(f: &Obj<'_>, out: &mut Vec<BodyItem>, is_false: &mut bool, depth: usize) -> Result<(), Diagnostic> {
    if depth > 64 {
        return Err(Diagnostic::new("parse", f.path.clone(), "formula nested deeper than 64 levels"));
    }
    match f.str("kind")?.as_str() {
        "and" => {
            f.only(&["kind", "items"])?;
            for (iv, ip) in f.arr("items")? {
                flatten_body(&Obj::new(iv, &ip)?, out, is_false, depth + 1)?;
            }
        }
        "boolean" => {
            f.only(&["kind", "value"])?;
            if !f.bool("value")? {
                *is_false = true;
            }
        }
        "literal" => out.push(BodyItem::Literal(Status::Established, parse_literal(f)?)),
        "status" => {
            f.only(&["kind", "status", "formula"])?;
            let status = match f.str("status")?.as_str() {
                "established" => Status::Established,
                "supported" => Status::Supported,
                other => return Err(f.err("status", format!("unknown status {other:?}"))),
            };
            let inner = f.obj("formula")?;
            match inner.str("kind")?.as_str() {
                "literal" => out.push(BodyItem::Literal(status, parse_literal(&inner)?)),
                other => return Err(inner.err("kind", format!("a status applies to a literal, found {other:?}"))),
            }
        }
        "not" => {
            f.only(&["kind", "formula"])?;
            let inner = f.obj("formula")?;
            match inner.str("kind")?.as_str() {
                "literal" => out.push(BodyItem::Not(parse_literal(&inner)?)),
                other => return Err(inner.err("kind", format!("`not` applies to a literal, found {other:?}"))),
            }
        }
        "comparison" => {
            f.only(&["kind", "op", "left", "right"])?;
            let op = match f.str("op")?.as_str() {
                "eq" => CmpOp::Eq,
                "ne" => CmpOp::Ne,
                "lt" => CmpOp::Lt,
                "le" => CmpOp::Le,
                "gt" => CmpOp::Gt,
                "ge" => CmpOp::Ge,
                other => return Err(f.err("op", format!("unknown comparison operator {other:?}"))),
            };
            out.push(BodyItem::Comparison(Comparison {
                op,
                left: parse_term(&f.obj("left")?)?,
                right: parse_term(&f.obj("right")?)?,
                path: f.path.clone(),
            }));
        }
        other => return Err(f.err("kind", format!("unknown formula kind {other:?}"))),
    }
    Ok(())
}

fn parse_literal(o: &Obj<'_>) -> Result<Literal, Diagnostic> {
    o.only(&["kind", "predicate", "polarity", "args"])?;
    let negative = match o.str("polarity")?.as_str() {
        "positive" => false,
        "negative" => true,
        other => return Err(o.err("polarity", format!("unknown polarity {other:?}"))),
    };
    let mut args = Vec::new();
    for (av, ap) in o.arr("args")? {
        args.push(parse_term(&Obj::new(av, &ap)?)?);
    }
    Ok(Literal { predicate: o.str("predicate")?, negative, args, path: o.path.clone() })
}

fn parse_term(o: &Obj<'_>) -> Result<Term, Diagnostic> {
    match o.str("kind")?.as_str() {
        "var" => {
            o.only(&["kind", "var"])?;
            Ok(Term::Var(o.str("var")?))
        }
        "const_ref" | "entity_ref" => {
            o.only(&["kind", "id"])?;
            Ok(Term::Const(o.str("id")?))
        }
        "value" => {
            o.only(&["kind", "type", "value"])?;
            let ty = o.type_ref("type")?;
            if ty == STRING_TYPE {
                return match o.get("value")?.as_str() {
                    Some(s) => Ok(Term::Str(s.to_string())),
                    None => Err(o.err("value", "expected a string")),
                };
            }
            if ty != INTEGER_TYPE {
                return Err(
                    o.err("type", format!("unsupported value type {ty:?} (only {INTEGER_TYPE}, {STRING_TYPE})"))
                );
            }
            match o.get("value")?.as_i64() {
                Some(i) => Ok(Term::Int(i)),
                None => Err(o.err("value", "expected a signed 64-bit integer")),
            }
        }
        "arith" => {
            o.only(&["kind", "op", "left", "right"])?;
            let op = match o.str("op")?.as_str() {
                "add" => ArithOp::Add,
                "sub" => ArithOp::Sub,
                "mul" => ArithOp::Mul,
                other => return Err(o.err("op", format!("unknown arithmetic operator {other:?}"))),
            };
            let left = parse_term(&o.obj("left")?)?;
            let right = parse_term(&o.obj("right")?)?;
            Ok(Term::Arith(op, Box::new(left), Box::new(right)))
        }
        other => Err(o.err("kind", format!("unknown term kind {other:?}"))),
    }
}
