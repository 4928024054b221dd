//! The one validator: every reference, arity and type of a parsed document, checked once.
//!
//! Verification runs it as its `references` check; the passes after it take a
//! [`crate::verify::Verified`] document and rely on what it checked: every id a rule, priority,
//! closure or declaration names is declared with the right kind, every literal has its
//! relation's arity, every term has the type its position asks for, names are declared once.
//!
//! What a valid document declares it gives as a [`Symbols`] table (types, constants, relations
//! with their typed parameters and capabilities, fragments, each rule's typed variables), which
//! a [`crate::verify::Verified`] document carries and `resolve` consumes instead of looking the
//! declarations up again.

use crate::diag::{arity_mismatch, Diagnostic};
use crate::ir::{self, BodyItem, Document, Literal, Node, NodeKind, RelationKind, Term, INTEGER_TYPE, STRING_TYPE};
use std::collections::{HashMap, HashSet};

/// The name of the verification check the validator is.
pub const CHECK: &str = "references";

/// What the validator found: how many references held, every failure, and, when nothing failed,
/// the symbol table.
#[derive(Debug, Clone, Default)]
pub struct Validation {
    /// References, arities and types that held.
    pub held: usize,
    /// Every failure, located.
    pub diagnostics: Vec<Diagnostic>,
    /// What the document declares, when `diagnostics` is empty.
    pub symbols: Option<Symbols>,
}

/// The type of a column or variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ty {
    /// An entity type, by index into [`Symbols::types`] (and the program's `types`).
    Entity(usize),
    /// The built-in signed 64-bit integer.
    Integer,
    /// The built-in String (feature `string-values`).
    String,
}

/// A declared entity type.
#[derive(Debug, Clone)]
pub struct TypeInfo {
    /// Node id.
    pub id: String,
    /// Declared short name.
    pub name: String,
    /// Label text.
    pub label: String,
}

/// A named entity constant.
#[derive(Debug, Clone)]
pub struct ConstantInfo {
    /// Node id.
    pub id: String,
    /// Declared name, as cases write it.
    pub name: String,
    /// Its type.
    pub ty: usize,
}

/// A declared relation.
#[derive(Debug, Clone)]
pub struct Relation {
    /// Node id.
    pub id: String,
    /// Declared name.
    pub name: String,
    /// Label text.
    pub label: String,
    /// Kind.
    pub kind: RelationKind,
    /// Parameter names and types.
    pub params: Vec<(String, Ty)>,
    /// The capability needed to give it as input (judgment relations).
    pub capability: Option<String>,
}

/// An article fragment, for explanations.
#[derive(Debug, Clone)]
pub struct FragmentInfo {
    /// Node id.
    pub id: String,
    /// Locator.
    pub locator: String,
    /// Its text in the package's default language (else its first text).
    pub text: String,
}

/// The declarations of a valid document, in node order, every type resolved: the symbol table
/// `resolve` consumes.
#[derive(Debug, Clone, Default)]
pub struct Symbols {
    /// Entity types.
    pub types: Vec<TypeInfo>,
    /// Constants.
    pub constants: Vec<ConstantInfo>,
    /// Relations.
    pub relations: Vec<Relation>,
    /// Fragments.
    pub fragments: Vec<FragmentInfo>,
    /// Per rule node, in node order: its variables' names and types, in declaration order.
    pub rule_variables: Vec<Vec<(String, Ty)>>,
    /// Id -> index into `types`, `constants`, `relations`, `fragments`.
    type_ix: HashMap<String, usize>,
    constant_ix: HashMap<String, usize>,
    relation_ix: HashMap<String, usize>,
    fragment_ix: HashMap<String, usize>,
}

impl Symbols {
    /// The table of `doc`; `None` where a declaration names a type that is not declared (which
    /// the validator reports).
    fn of(doc: &Document) -> Option<Symbols> {
        let mut s = Symbols::default();
        let default = doc.languages().into_iter().next().unwrap_or_default();
        let label = |n: &Node| ir::label_text(&n.labels, &default).unwrap_or("").to_string();
        for n in &doc.nodes {
            match &n.kind {
                NodeKind::TypeDecl(t) => {
                    s.type_ix.insert(n.id.clone(), s.types.len());
                    s.types.push(TypeInfo { id: n.id.clone(), name: t.name.clone(), label: label(n) });
                }
                NodeKind::Fragment(f) => {
                    s.fragment_ix.insert(n.id.clone(), s.fragments.len());
                    s.fragments.push(FragmentInfo {
                        id: n.id.clone(),
                        locator: f.locator.clone(),
                        text: f
                            .texts
                            .iter()
                            .find(|t| t.language == default)
                            .or(f.texts.first())
                            .map(|t| t.text.clone())
                            .unwrap_or_default(),
                    });
                }
                _ => {}
            }
        }
        let mut capabilities: HashMap<&str, &str> = HashMap::new();
        for n in &doc.nodes {
            if let NodeKind::External(e) = &n.kind {
                capabilities.insert(&e.symbol, &e.capability);
            }
        }
        for n in &doc.nodes {
            match &n.kind {
                NodeKind::Constant(c) => {
                    let Some(Ty::Entity(ty)) = s.ty(&c.return_type) else { return None };
                    s.constant_ix.insert(n.id.clone(), s.constants.len());
                    s.constants.push(ConstantInfo { id: n.id.clone(), name: c.name.clone(), ty });
                }
                NodeKind::Relation(r) => {
                    let params: Option<Vec<(String, Ty)>> =
                        r.parameters.iter().map(|p| Some((p.name.clone(), s.ty(&p.ty)?))).collect();
                    s.relation_ix.insert(n.id.clone(), s.relations.len());
                    s.relations.push(Relation {
                        id: n.id.clone(),
                        name: r.name.clone(),
                        label: label(n),
                        kind: r.relation_kind,
                        params: params?,
                        capability: capabilities.get(n.id.as_str()).map(|c| c.to_string()),
                    });
                }
                NodeKind::Rule(r) => {
                    let vars: Option<Vec<(String, Ty)>> =
                        r.variables.iter().map(|(name, t)| Some((name.clone(), s.ty(t)?))).collect();
                    s.rule_variables.push(vars?);
                }
                _ => {}
            }
        }
        Some(s)
    }

    /// The type the type id `id` names.
    pub fn ty(&self, id: &str) -> Option<Ty> {
        match id {
            INTEGER_TYPE => Some(Ty::Integer),
            STRING_TYPE => Some(Ty::String),
            _ => self.type_ix.get(id).map(|&i| Ty::Entity(i)),
        }
    }

    /// The index of constant `id`.
    pub fn constant(&self, id: &str) -> Option<usize> {
        self.constant_ix.get(id).copied()
    }

    /// The index of relation `id`.
    pub fn relation(&self, id: &str) -> Option<usize> {
        self.relation_ix.get(id).copied()
    }

    /// The index of fragment `id`.
    pub fn fragment(&self, id: &str) -> Option<usize> {
        self.fragment_ix.get(id).copied()
    }
}

/// Validates `doc`.
pub fn validate(doc: &Document) -> Validation {
    let decls = Decls::of(doc);
    let mut v = Validator { decls: &decls, out: Validation::default() };
    let mut names: HashMap<(&str, &str), &str> = HashMap::new();
    for node in &doc.nodes {
        let declared = match &node.kind {
            NodeKind::TypeDecl(t) => Some(("type", t.name.as_str())),
            NodeKind::Constant(c) => Some(("constant", c.name.as_str())),
            NodeKind::Relation(r) => Some(("relation", r.name.as_str())),
            _ => None,
        };
        if let NodeKind::Relation(r) = &node.kind {
            if r.name.is_empty() || r.name.starts_with('~') {
                let m = format!(
                    "relation name {:?} cannot be given in a case line: a leading `~` marks a negative fact",
                    r.name
                );
                v.fail(node, format!("{}.name", node.path), m);
            }
        }
        if let Some((what, name)) = declared {
            if let Some(first) = names.insert((what, name), &node.id) {
                v.fail(
                    node,
                    format!("{}.name", node.path),
                    format!("{what} name `{name}` is declared twice (first by {first})"),
                );
            }
        }
        v.node(node);
    }
    for (id, _) in &doc.local_sources {
        let ok = decls.kinds.get(id.as_str()) == Some(&"publication");
        v.expect(ok, None, format!("metadata.localSources.{id}"), || decls.not_a(id, "publication"));
    }
    if v.out.diagnostics.is_empty() {
        v.out.symbols = Symbols::of(doc);
        if v.out.symbols.is_none() {
            let m =
                "internal error: a declaration names an undeclared type the validator did not report; please report it";
            v.out.diagnostics.push(Diagnostic::new(CHECK, "", m).with_code("internal"));
        }
    }
    v.out
}

/// A relation's parameters: (name, type id).
type Params<'d> = Vec<(&'d str, &'d str)>;

/// What the nodes declare, by id.
struct Decls<'d> {
    /// Id -> kind of its first declaration.
    kinds: HashMap<&'d str, &'static str>,
    /// Entity type id -> name.
    types: HashMap<&'d str, &'d str>,
    /// Constant id -> (name, type id).
    constants: HashMap<&'d str, (&'d str, &'d str)>,
    /// Relation id -> (name, parameters as (name, type id)).
    relations: HashMap<&'d str, (&'d str, Params<'d>)>,
    rules: HashSet<&'d str>,
    fragments: HashSet<&'d str>,
}

impl<'d> Decls<'d> {
    fn of(doc: &'d Document) -> Self {
        let mut d = Decls {
            kinds: HashMap::new(),
            types: HashMap::new(),
            constants: HashMap::new(),
            relations: HashMap::new(),
            rules: HashSet::new(),
            fragments: HashSet::new(),
        };
        for n in &doc.nodes {
            let id = n.id.as_str();
            let kind = match &n.kind {
                NodeKind::TypeDecl(t) => {
                    d.types.entry(id).or_insert(&t.name);
                    "type_decl"
                }
                NodeKind::Constant(c) => {
                    d.constants.entry(id).or_insert((&c.name, &c.return_type));
                    "constant"
                }
                NodeKind::Relation(r) => {
                    let params = r.parameters.iter().map(|p| (p.name.as_str(), p.ty.as_str())).collect();
                    d.relations.entry(id).or_insert((&r.name, params));
                    "relation"
                }
                NodeKind::Rule(_) => {
                    d.rules.insert(id);
                    "rule"
                }
                NodeKind::Fragment(_) => {
                    d.fragments.insert(id);
                    "fragment"
                }
                NodeKind::Priority(_) => "priority_rule",
                NodeKind::Closure(_) => "closure_policy",
                NodeKind::External(_) => "external_decl",
                NodeKind::Provenance(_) => "provenance node",
                NodeKind::Publication(_) => "publication",
            };
            d.kinds.entry(id).or_insert(kind);
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

    fn is_type(&self, id: &str) -> bool {
        id == INTEGER_TYPE || id == STRING_TYPE || self.types.contains_key(id)
    }

    /// The short name of a type id (`Integer`, `String`, or the declared name).
    fn type_name<'a>(&'a self, id: &'a str) -> &'a str {
        match id {
            INTEGER_TYPE => "Integer",
            STRING_TYPE => "String",
            _ => self.types.get(id).copied().unwrap_or(id),
        }
    }
}

struct Validator<'v, 'd> {
    decls: &'v Decls<'d>,
    out: Validation,
}

/// A rule's variables: name -> type id.
type Vars<'a> = HashMap<&'a str, &'a str>;

impl Validator<'_, '_> {
    fn fail(&mut self, node: &Node, path: String, message: String) {
        self.out.diagnostics.push(Diagnostic::new(CHECK, path, message).in_node(&node.id));
    }

    /// Counts `ok`, or reports `message()` at `path`.
    fn expect(&mut self, ok: bool, node: Option<&Node>, path: String, message: impl FnOnce() -> String) {
        if ok {
            self.out.held += 1;
        } else {
            let d = Diagnostic::new(CHECK, path, message());
            self.out.diagnostics.push(match node {
                Some(n) => d.in_node(&n.id),
                None => d,
            });
        }
    }

    fn type_ref(&mut self, node: &Node, ty: &str, path: String) {
        let ok = self.decls.is_type(ty);
        self.expect(ok, Some(node), path, || self.decls.not_a(ty, "type"));
    }

    fn target(&mut self, node: &Node, id: &str, path: String, what: &str) {
        let ok = match what {
            "rule" => self.decls.rules.contains(id),
            "fragment" => self.decls.fragments.contains(id),
            _ => self.decls.relations.contains_key(id),
        };
        self.expect(ok, Some(node), path, || self.decls.not_a(id, what));
    }

    fn node(&mut self, node: &Node) {
        let path = &node.path;
        match &node.kind {
            NodeKind::Constant(c) => {
                if self.decls.is_type(&c.return_type) && !self.decls.types.contains_key(c.return_type.as_str()) {
                    let found = self.decls.type_name(&c.return_type).to_string();
                    self.fail(
                        node,
                        format!("{path}.returnType.name"),
                        format!("constant `{}` must have a declared entity type, found `{found}`", c.name),
                    );
                } else {
                    self.type_ref(node, &c.return_type, format!("{path}.returnType.name"));
                }
            }
            NodeKind::Relation(r) => {
                for (i, p) in r.parameters.iter().enumerate() {
                    self.type_ref(node, &p.ty, format!("{path}.parameters[{i}].type.name"));
                }
            }
            NodeKind::External(e) => self.target(node, &e.symbol, format!("{path}.symbol"), "relation"),
            NodeKind::Priority(p) => {
                self.target(node, &p.higher, format!("{path}.higher.id"), "rule");
                self.target(node, &p.lower, format!("{path}.lower.id"), "rule");
                self.anchors(node, &p.anchors);
            }
            NodeKind::Closure(c) => {
                self.target(node, &c.predicate, format!("{path}.predicate"), "relation");
                self.target(node, &c.domain, format!("{path}.domain.id"), "relation");
                let types =
                    |id: &str| self.decls.relations.get(id).map(|(_, ps)| ps.iter().map(|p| p.1).collect::<Vec<_>>());
                if let (Some(pt), Some(dt)) = (types(&c.predicate), types(&c.domain)) {
                    let (pn, dn) =
                        (self.decls.relations[c.predicate.as_str()].0, self.decls.relations[c.domain.as_str()].0);
                    self.expect(pt == dt, Some(node), format!("{path}.domain.id"), || {
                        format!("the domain `{dn}` of a closure must have the parameter types of `{pn}`")
                    });
                }
            }
            NodeKind::Rule(r) => {
                let mut vars: Vars = HashMap::new();
                for (i, (name, ty)) in r.variables.iter().enumerate() {
                    self.type_ref(node, ty, format!("{path}.variables[{i}].type.name"));
                    if vars.insert(name, ty).is_some() {
                        self.fail(
                            node,
                            format!("{path}.variables[{i}].id"),
                            format!("variable `{name}` is declared twice"),
                        );
                    }
                }
                self.literal(node, &r.head, &vars);
                for item in &r.body {
                    match item {
                        BodyItem::Literal(_, l) | BodyItem::Not(l) => self.literal(node, l, &vars),
                        BodyItem::Comparison(c) => {
                            for (side, t) in [("left", &c.left), ("right", &c.right)] {
                                let what = format!("the {side} side of a comparison");
                                self.term(node, t, INTEGER_TYPE, format!("{}.{side}", c.path), &what, &vars);
                            }
                        }
                    }
                }
                self.anchors(node, &r.anchors);
            }
            _ => {}
        }
    }

    fn anchors(&mut self, node: &Node, anchors: &[String]) {
        for (i, a) in anchors.iter().enumerate() {
            self.target(node, a, format!("{}.anchors[{i}]", node.path), "fragment");
        }
    }

    fn literal(&mut self, node: &Node, l: &Literal, vars: &Vars) {
        let Some((name, params)) = self.decls.relations.get(l.predicate.as_str()) else {
            let m = self.decls.not_a(&l.predicate, "relation");
            self.fail(node, format!("{}.predicate", l.path), m);
            return;
        };
        self.out.held += 1;
        if params.len() != l.args.len() {
            let d = arity_mismatch(format!("{}.args", l.path), name, params.len(), l.args.len());
            self.out.diagnostics.push(d.in_node(&node.id));
            return;
        }
        self.out.held += 1;
        for (i, (t, (pname, pty))) in l.args.iter().zip(params).enumerate() {
            let what = format!("argument `{pname}` of `{name}`");
            self.term(node, t, pty, format!("{}.args[{i}]", l.path), &what, vars);
        }
    }

    /// Checks that `t` (at `path`, described as `what`) is declared and of type `want`.
    fn term(&mut self, node: &Node, t: &Term, want: &str, path: String, what: &str, vars: &Vars) {
        let (shown, got) = match t {
            Term::Var(v) => match vars.get(v.as_str()) {
                Some(ty) => (format!("variable `{v}`"), *ty),
                None => {
                    self.fail(node, format!("{path}.var"), format!("variable `{v}` is not among the rule's variables"));
                    return;
                }
            },
            Term::Const(c) => match self.decls.constants.get(c.as_str()) {
                Some((name, ty)) => (format!("constant `{name}`"), *ty),
                None => {
                    let m = self.decls.not_a(c, "constant");
                    self.fail(node, format!("{path}.id"), m);
                    return;
                }
            },
            Term::Int(i) => (format!("the integer {i}"), INTEGER_TYPE),
            Term::Str(s) => (format!("the string {s:?}"), STRING_TYPE),
            Term::Arith(_, a, b) => {
                self.term(node, a, INTEGER_TYPE, format!("{path}.left"), "an arithmetic operand", vars);
                self.term(node, b, INTEGER_TYPE, format!("{path}.right"), "an arithmetic operand", vars);
                ("an arithmetic term".to_string(), INTEGER_TYPE)
            }
        };
        if got == want {
            self.out.held += 1;
            return;
        }
        if !self.decls.is_type(got) {
            return; // an undeclared type, reported where it is declared
        }
        let (got, want) = (self.decls.type_name(got), self.decls.type_name(want));
        let d = Diagnostic::new(CHECK, path, format!("{what} is {shown} of type `{got}`, but `{want}` is expected"))
            .with_code("type_mismatch");
        self.out.diagnostics.push(d.in_node(&node.id));
    }
}
