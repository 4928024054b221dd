//! Names, types and safety: from a verified document to a resolved program whose every
//! reference is an index and every rule is well typed and safe (SEMANTICS §2-3).

use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{self, ArithOp, CmpOp, Document, NodeKind, RelationKind, Status, Strength, Term};
use crate::verify::Verified;
use std::collections::HashMap;

/// The type of a column or variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ty {
    /// An entity type, by index into [`Program::types`].
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

/// A term of a resolved literal or comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RTerm {
    /// Rule variable index.
    Var(usize),
    /// Constant index.
    Const(usize),
    /// Integer literal.
    Int(i64),
    /// String literal, by index into [`Program::strings`].
    Str(usize),
    /// Integer arithmetic, by index into [`RRule::ariths`].
    Arith(usize),
}

/// A resolved literal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RLiteral {
    /// Relation index.
    pub rel: usize,
    /// Strong negation.
    pub negative: bool,
    /// Arguments.
    pub args: Vec<RTerm>,
}

impl RLiteral {
    /// The distinct variables of the literal, in order of first occurrence.
    pub fn vars(&self) -> Vec<usize> {
        let mut out = Vec::new();
        for a in &self.args {
            if let RTerm::Var(v) = a {
                if !out.contains(v) {
                    out.push(*v);
                }
            }
        }
        out
    }
}

/// A resolved body item.
#[derive(Debug, Clone)]
pub enum RItem {
    /// A literal with the status it is asked with.
    Literal(Status, RLiteral),
    /// An integer comparison.
    Comparison(CmpOp, RTerm, RTerm),
    /// Negation as failure: the literal is not concluded (+d). Its variables that no positive
    /// literal binds are local to it ("there is no such value").
    Not(RLiteral),
}

/// A resolved rule.
#[derive(Debug, Clone)]
pub struct RRule {
    /// Node id.
    pub id: String,
    /// JSON path of the node (`nodes[i]`), for diagnostics.
    pub path: String,
    /// Label text.
    pub label: String,
    /// Strength.
    pub strength: Strength,
    /// Head literal.
    pub head: RLiteral,
    /// Body items.
    pub body: Vec<RItem>,
    /// The JSON path of each body item, by index of `body`.
    pub item_paths: Vec<String>,
    /// Whether the body contains `false`.
    pub never: bool,
    /// Variable names and types.
    pub vars: Vec<(String, Ty)>,
    /// Anchors: fragment index.
    pub anchors: Vec<usize>,
    /// Arithmetic terms (`RTerm::Arith` indexes here): operator and operands.
    pub ariths: Vec<(ArithOp, RTerm, RTerm)>,
}

impl RRule {
    /// The rule with its variables named `names` (in index order), as the generated code names
    /// them.
    pub fn renamed(&self, names: Vec<String>) -> RRule {
        let mut r = self.clone();
        for (v, name) in r.vars.iter_mut().zip(names) {
            v.0 = name;
        }
        r
    }

    /// The variables of `t` (inside arithmetic too), appended to `out` without repeats.
    pub fn term_vars(&self, t: RTerm, out: &mut Vec<usize>) {
        match t {
            RTerm::Var(v) if !out.contains(&v) => {
                out.push(v);
            }
            RTerm::Arith(i) => {
                let (_, a, b) = self.ariths[i];
                self.term_vars(a, out);
                self.term_vars(b, out);
            }
            _ => {}
        }
    }

    /// The variables bound by the positive body literals.
    pub fn bound_vars(&self) -> Vec<usize> {
        let mut out = Vec::new();
        for item in &self.body {
            if let RItem::Literal(_, l) = item {
                for v in l.vars() {
                    if !out.contains(&v) {
                        out.push(v);
                    }
                }
            }
        }
        out
    }

    /// The variables a filter item (comparison or negation) needs bound before it can be tested.
    pub fn filter_vars(&self, item: &RItem) -> Vec<usize> {
        let mut out = Vec::new();
        match item {
            RItem::Comparison(_, a, b) => {
                self.term_vars(*a, &mut out);
                self.term_vars(*b, &mut out);
            }
            RItem::Not(l) => {
                let bound = self.bound_vars();
                out = l.vars().into_iter().filter(|v| bound.contains(v)).collect();
            }
            RItem::Literal(..) => {}
        }
        out
    }
}

/// A resolved superiority: rule `higher` beats rule `lower`.
#[derive(Debug, Clone)]
pub struct Superiority {
    /// Node id of the priority rule.
    pub id: String,
    /// Label text.
    pub label: String,
    /// Winning rule index.
    pub higher: usize,
    /// Losing rule index.
    pub lower: usize,
}

/// A resolved closure policy.
#[derive(Debug, Clone)]
pub struct Closure {
    /// Node id.
    pub id: String,
    /// Label text.
    pub label: String,
    /// The closed relation.
    pub rel: usize,
    /// The domain relation.
    pub domain: usize,
    /// Snapshot id, if any.
    pub snapshot: Option<String>,
    /// `completeAsOf`, if any.
    pub complete_as_of: Option<String>,
}

/// An article fragment, for explanations.
#[derive(Debug, Clone)]
pub struct FragmentInfo {
    /// Node id.
    pub id: String,
    /// Locator.
    pub locator: String,
    /// First text (the package's own language).
    pub text: String,
}

/// A resolved program: the input to stratification.
#[derive(Debug, Clone)]
pub struct Program {
    /// Package name.
    pub name: String,
    /// Package version.
    pub version: String,
    /// Entity types.
    pub types: Vec<TypeInfo>,
    /// Constants.
    pub constants: Vec<ConstantInfo>,
    /// Relations.
    pub relations: Vec<Relation>,
    /// Rules.
    pub rules: Vec<RRule>,
    /// Superiority pairs.
    pub superiority: Vec<Superiority>,
    /// Closure policies.
    pub closures: Vec<Closure>,
    /// Fragments.
    pub fragments: Vec<FragmentInfo>,
    /// String literals of the rules (feature `string-values`), in order of first use.
    pub strings: Vec<String>,
}

impl Program {
    /// The short name of a type.
    pub fn type_name(&self, ty: Ty) -> &str {
        match ty {
            Ty::Entity(i) => &self.types[i].name,
            Ty::Integer => "Integer",
            Ty::String => "String",
        }
    }
}

/// A failure verification should have caught: resolve relies on a [`Verified`] document and
/// reports, rather than panics on, anything the validator let through.
fn internal(node: &str, path: &str, what: &str) -> Diagnostic {
    Diagnostic::new(
        "resolve",
        path.to_string(),
        format!("internal error: {what}, which verification should have rejected; please report it"),
    )
    .with_code("internal")
    .in_node(node)
}

fn label(n: &ir::Node) -> String {
    ir::label_text(&n.labels, "en").unwrap_or("").to_string()
}

/// Resolves the names, types and variables of a verified document into indices, and checks what
/// verification does not: features used, safety, superiority, judgment capabilities.
pub fn resolve(doc: &Verified) -> Result<Program, Diagnostics> {
    let doc: &Document = doc;
    let mut errs: Vec<Diagnostic> = Vec::new();
    let err =
        |node: &ir::Node, path: &str, msg: String| Diagnostic::new("resolve", path.to_string(), msg).in_node(&node.id);
    let mut p = Program {
        name: doc.package.name.clone(),
        version: doc.package.version.clone(),
        types: Vec::new(),
        constants: Vec::new(),
        relations: Vec::new(),
        rules: Vec::new(),
        superiority: Vec::new(),
        closures: Vec::new(),
        fragments: Vec::new(),
        strings: Vec::new(),
    };
    let mut type_ix: HashMap<&str, usize> = HashMap::new();
    let mut frag_ix: HashMap<&str, usize> = HashMap::new();
    for n in &doc.nodes {
        match &n.kind {
            NodeKind::TypeDecl(t) => {
                type_ix.insert(&n.id, p.types.len());
                p.types.push(TypeInfo { id: n.id.clone(), name: t.name.clone(), label: label(n) });
            }
            NodeKind::Fragment(f) => {
                frag_ix.insert(&n.id, p.fragments.len());
                p.fragments.push(FragmentInfo {
                    id: n.id.clone(),
                    locator: f.locator.clone(),
                    text: f.texts.first().map(|t| t.text.clone()).unwrap_or_default(),
                });
            }
            _ => {}
        }
    }
    let ty_of = |name: &str| -> Option<Ty> {
        if name == ir::INTEGER_TYPE {
            Some(Ty::Integer)
        } else if name == ir::STRING_TYPE {
            Some(Ty::String)
        } else {
            type_ix.get(name).map(|&i| Ty::Entity(i))
        }
    };
    let mut const_ix: HashMap<&str, usize> = HashMap::new();
    let mut rel_ix: HashMap<&str, usize> = HashMap::new();
    let mut capabilities: HashMap<&str, &str> = HashMap::new();
    for n in &doc.nodes {
        if let NodeKind::External(e) = &n.kind {
            capabilities.insert(&e.symbol, &e.capability);
        }
    }
    for n in &doc.nodes {
        match &n.kind {
            NodeKind::Constant(c) => match ty_of(&c.return_type) {
                Some(Ty::Entity(t)) => {
                    const_ix.insert(&n.id, p.constants.len());
                    p.constants.push(ConstantInfo { id: n.id.clone(), name: c.name.clone(), ty: t });
                }
                _ => errs.push(internal(&n.id, &n.path, "a constant without an entity type")),
            },
            NodeKind::Relation(r) => {
                let mut params = Vec::new();
                for (i, prm) in r.parameters.iter().enumerate() {
                    match ty_of(&prm.ty) {
                        Some(t) => params.push((prm.name.clone(), t)),
                        None => {
                            errs.push(internal(&n.id, &format!("{}.parameters[{i}]", n.path), "an undeclared type"))
                        }
                    }
                }
                let capability = capabilities.get(n.id.as_str()).map(|c| c.to_string());
                if r.relation_kind == RelationKind::Judgment && capability.is_none() {
                    errs.push(err(
                        n,
                        &n.path,
                        format!("judgment relation `{}` has no external_decl naming its capability", r.name),
                    ));
                }
                rel_ix.insert(&n.id, p.relations.len());
                p.relations.push(Relation {
                    id: n.id.clone(),
                    name: r.name.clone(),
                    label: label(n),
                    kind: r.relation_kind,
                    params,
                    capability,
                });
            }
            _ => {}
        }
    }
    // String parameters need the feature too.
    if !doc.features.iter().any(|f| f == ir::FEATURE_STRINGS) {
        for (ri, r) in p.relations.iter().enumerate() {
            if r.params.iter().any(|x| x.1 == Ty::String) {
                let path =
                    doc.nodes.iter().find(|n| n.id == p.relations[ri].id).map(|n| n.path.clone()).unwrap_or_default();
                errs.push(
                    Diagnostic::new(
                        "resolve",
                        path,
                        format!(
                            "relation `{}` has a String parameter, but the package does not declare the feature `{}`",
                            r.name,
                            ir::FEATURE_STRINGS
                        ),
                    )
                    .with_code("feature_not_declared")
                    .in_node(&r.id),
                );
            }
        }
    }
    let mut rule_ix: HashMap<&str, usize> = HashMap::new();
    // The JSON path of each priority rule of `p.superiority`.
    let mut sup_paths: Vec<&str> = Vec::new();
    let mut strings: Vec<String> = Vec::new();
    for n in &doc.nodes {
        let NodeKind::Rule(r) = &n.kind else { continue };
        match resolve_rule(&p, n, r, &ty_of, &const_ix, &rel_ix, &frag_ix, &doc.features, &mut strings) {
            Ok(rr) => {
                rule_ix.insert(&n.id, p.rules.len());
                p.rules.push(rr);
            }
            Err(mut e) => errs.append(&mut e),
        }
    }
    p.strings = strings;
    for n in &doc.nodes {
        match &n.kind {
            NodeKind::Priority(pr) => {
                let h = rule_ix.get(pr.higher.as_str());
                let l = rule_ix.get(pr.lower.as_str());
                match (h, l) {
                    (Some(&h), Some(&l)) => {
                        sup_paths.push(&n.path);
                        p.superiority.push(Superiority { id: n.id.clone(), label: label(n), higher: h, lower: l })
                    }
                    _ => errs.push(internal(&n.id, &n.path, "a priority between unresolved rules")),
                }
            }
            NodeKind::Closure(c) => {
                let (Some(&rel), Some(&domain)) = (rel_ix.get(c.predicate.as_str()), rel_ix.get(c.domain.as_str()))
                else {
                    errs.push(internal(&n.id, &n.path, "a closure over an undeclared relation"));
                    continue;
                };
                p.closures.push(Closure {
                    id: n.id.clone(),
                    label: label(n),
                    rel,
                    domain,
                    snapshot: c.snapshot.clone(),
                    complete_as_of: c.complete_as_of.clone(),
                });
            }
            _ => {}
        }
    }
    if let Some(cycle) = superiority_cycle(&p) {
        let first = &p.superiority[cycle[0]];
        let mut chain = vec![format!("`{}`", p.rules[first.higher].id)];
        chain.extend(cycle.iter().map(|&s| format!("`{}`", p.rules[p.superiority[s].lower].id)));
        let by: Vec<String> = cycle.iter().map(|&s| format!("`{}`", p.superiority[s].id)).collect();
        errs.push(
            Diagnostic::new("resolve", sup_paths[cycle[0]], "the superiority relation is cyclic".to_string())
                .with_code("superiority_cycle")
                .with_note(format!("the cycle runs {}", chain.join(" > ")))
                .with_note(format!("by the priority rules {}", by.join(", ")))
                .with_help("superiority must be acyclic: remove one of these priority rules")
                .in_node(&first.id),
        );
    }
    if errs.is_empty() {
        Ok(p)
    } else {
        Err(Diagnostics(errs))
    }
}

#[allow(clippy::too_many_arguments)]
fn resolve_rule(
    p: &Program,
    n: &ir::Node,
    r: &ir::Rule,
    ty_of: &dyn Fn(&str) -> Option<Ty>,
    const_ix: &HashMap<&str, usize>,
    rel_ix: &HashMap<&str, usize>,
    frag_ix: &HashMap<&str, usize>,
    features: &[String],
    strings: &mut Vec<String>,
) -> Result<RRule, Vec<Diagnostic>> {
    let mut errs = Vec::new();
    let e = |path: &str, msg: String| Diagnostic::new("resolve", path.to_string(), msg).in_node(&n.id);
    let has = |f: &str| features.iter().any(|x| x == f);
    let need = |f: &'static str, path: &str, what: &str, errs: &mut Vec<Diagnostic>| {
        if !has(f) {
            errs.push(
                e(path, format!("{what} needs the feature `{f}`, which the package does not declare"))
                    .with_code("feature_not_declared"),
            );
        }
    };
    let mut vars: Vec<(String, Ty)> = Vec::new();
    for (i, (name, t)) in r.variables.iter().enumerate() {
        match ty_of(t) {
            Some(t) if !vars.iter().any(|v| &v.0 == name) => {
                if t == Ty::String {
                    need(
                        ir::FEATURE_STRINGS,
                        &format!("{}.variables[{i}].type", n.path),
                        "a String variable",
                        &mut errs,
                    );
                }
                vars.push((name.clone(), t))
            }
            _ => errs.push(internal(
                &n.id,
                &format!("{}.variables[{i}]", n.path),
                "a variable declared twice or of no type",
            )),
        }
    }
    let var_ix = |name: &str| vars.iter().position(|v| v.0 == name);
    let mut ariths: Vec<(ArithOp, RTerm, RTerm)> = Vec::new();
    // Resolves a term of type `want`; arithmetic operands recursively.
    #[allow(clippy::too_many_arguments)]
    fn term(
        t: &Term,
        want: Ty,
        path: &str,
        what: &str,
        errs: &mut Vec<Diagnostic>,
        cx: &TermCx<'_>,
        ariths: &mut Vec<(ArithOp, RTerm, RTerm)>,
        strings: &mut Vec<String>,
    ) -> Option<RTerm> {
        let e = |path: &str, msg: String| Diagnostic::new("resolve", path.to_string(), msg).in_node(&cx.node.id);
        if let Some(f) = t.feature() {
            if !cx.features.iter().any(|x| x == f) {
                errs.push(
                    e(path, format!("this term needs the feature `{f}`, which the package does not declare"))
                        .with_code("feature_not_declared"),
                );
                return None;
            }
        }
        let (rt, got) = match t {
            Term::Var(v) => match cx.vars.iter().position(|x| &x.0 == v) {
                Some(i) => (RTerm::Var(i), cx.vars[i].1),
                None => {
                    errs.push(internal(&cx.node.id, path, "an undeclared variable"));
                    return None;
                }
            },
            Term::Const(c) => match cx.const_ix.get(c.as_str()) {
                Some(&i) => (RTerm::Const(i), Ty::Entity(cx.p.constants[i].ty)),
                None => {
                    errs.push(internal(&cx.node.id, path, "an undeclared constant"));
                    return None;
                }
            },
            Term::Int(i) => (RTerm::Int(*i), Ty::Integer),
            Term::Str(s) => {
                let i = match strings.iter().position(|x| x == s) {
                    Some(i) => i,
                    None => {
                        strings.push(s.clone());
                        strings.len() - 1
                    }
                };
                (RTerm::Str(i), Ty::String)
            }
            Term::Arith(op, a, b) => {
                let a =
                    term(a, Ty::Integer, &format!("{path}.left"), "an arithmetic operand", errs, cx, ariths, strings);
                let b =
                    term(b, Ty::Integer, &format!("{path}.right"), "an arithmetic operand", errs, cx, ariths, strings);
                let (a, b) = (a?, b?);
                ariths.push((*op, a, b));
                (RTerm::Arith(ariths.len() - 1), Ty::Integer)
            }
        };
        if got != want {
            errs.push(internal(&cx.node.id, path, &format!("{what} of the wrong type")));
            return None;
        }
        Some(rt)
    }
    let cx = TermCx { p, node: n, vars: &vars, const_ix, features };
    let _ = var_ix;
    let literal = |l: &ir::Literal,
                   in_body: bool,
                   errs: &mut Vec<Diagnostic>,
                   ariths: &mut Vec<(ArithOp, RTerm, RTerm)>,
                   strings: &mut Vec<String>|
     -> Option<RLiteral> {
        let Some(&rel) = rel_ix.get(l.predicate.as_str()).filter(|&&rel| p.relations[rel].params.len() == l.args.len())
        else {
            errs.push(internal(&cx.node.id, &l.path, "a literal of an undeclared relation or the wrong arity"));
            return None;
        };
        let decl = &p.relations[rel];
        let mut args = Vec::new();
        for (i, (a, (pname, pty))) in l.args.iter().zip(&decl.params).enumerate() {
            let what = format!("argument `{}` of `{}`", pname, decl.name);
            let path = format!("{}.args[{i}]", l.path);
            if in_body {
                if let Term::Arith(..) = a {
                    // Arithmetic binds nothing: its variables must be bound elsewhere, and
                    // even then it is not supported inside body literals.
                    let mut names = Vec::new();
                    collect_vars(a, &mut names);
                    let bound_elsewhere = |v: &str| {
                        r.body.iter().any(|it| match it {
                            ir::BodyItem::Literal(_, bl) => bl.args.iter().any(|t| matches!(t, Term::Var(x) if x == v)),
                            _ => false,
                        })
                    };
                    let unbound: Vec<&String> = names.iter().filter(|v| !bound_elsewhere(v)).collect();
                    if let Some(v) = unbound.first() {
                        errs.push(
                            e(&path, format!("variable `{v}` occurs only inside arithmetic, which binds nothing (unbound variable)"))
                                .with_code("unbound_variable"),
                        );
                    } else {
                        errs.push(
                            e(&path, "arithmetic terms are only supported in heads and comparisons".to_string())
                                .with_code("unsupported"),
                        );
                    }
                    args.push(None);
                    continue;
                }
            }
            // Every argument is checked, so one report names every mismatch of the literal.
            args.push(term(a, *pty, &path, &what, errs, &cx, ariths, strings));
        }
        let args = args.into_iter().collect::<Option<Vec<RTerm>>>()?;
        Some(RLiteral { rel, negative: l.negative, args })
    };
    let head = literal(&r.head, false, &mut errs, &mut ariths, strings);
    let mut body = Vec::new();
    // The JSON path of each item of `body`, by body index.
    let mut cmp_paths: HashMap<usize, &str> = HashMap::new();
    for item in &r.body {
        match item {
            ir::BodyItem::Literal(s, l) => {
                if let Some(rl) = literal(l, true, &mut errs, &mut ariths, strings) {
                    cmp_paths.insert(body.len(), &l.path);
                    body.push(RItem::Literal(*s, rl));
                }
            }
            ir::BodyItem::Not(l) => {
                need(ir::FEATURE_NAF, &l.path, "negation as failure (`not`)", &mut errs);
                if let Some(rl) = literal(l, true, &mut errs, &mut ariths, strings) {
                    cmp_paths.insert(body.len(), &l.path);
                    body.push(RItem::Not(rl));
                }
            }
            ir::BodyItem::Comparison(c) => {
                let a = term(
                    &c.left,
                    Ty::Integer,
                    &format!("{}.left", c.path),
                    "the left side of a comparison",
                    &mut errs,
                    &cx,
                    &mut ariths,
                    strings,
                );
                let b = term(
                    &c.right,
                    Ty::Integer,
                    &format!("{}.right", c.path),
                    "the right side of a comparison",
                    &mut errs,
                    &cx,
                    &mut ariths,
                    strings,
                );
                if let (Some(a), Some(b)) = (a, b) {
                    cmp_paths.insert(body.len(), &c.path);
                    body.push(RItem::Comparison(c.op, a, b));
                }
            }
        }
    }
    let mut anchors = Vec::new();
    for (i, a) in r.anchors.iter().enumerate() {
        match frag_ix.get(a.as_str()) {
            Some(&f) => anchors.push(f),
            None => errs.push(internal(&n.id, &format!("{}.anchors[{i}]", n.path), "an anchor that is not a fragment")),
        }
    }
    let Some(head) = head else { return Err(errs) };
    if !errs.is_empty() {
        // A body literal that did not resolve is missing from `body`: a safety check now would
        // report variables it binds as unsafe.
        return Err(errs);
    }
    let rule = RRule {
        id: n.id.clone(),
        path: n.path.clone(),
        label: label(n),
        strength: r.strength,
        head,
        item_paths: (0..body.len())
            .map(|i| cmp_paths.get(&i).map_or_else(|| n.path.clone(), |p| p.to_string()))
            .collect(),
        body,
        never: r.body_false,
        vars,
        anchors,
        ariths,
    };
    // Safety: every variable of the head, of a comparison and of an arithmetic term occurs in a
    // positive body literal; a variable of a negated literal that no positive literal binds is
    // local to that one negation.
    let bound = rule.bound_vars();
    let vname = |v: usize| rule.vars[v].0.as_str();
    // Anonymous variables (`_`, `_1`, ...: ids starting with `_`) in a head are a safety
    // violation of their own: they can never be bound.
    let unsafe_code = |v: usize| if vname(v).starts_with('_') { "safety_violations" } else { "unbound_variable" };
    let mut head_vars: Vec<(usize, usize)> = Vec::new();
    for (i, a) in rule.head.args.iter().enumerate() {
        let mut vs = Vec::new();
        rule.term_vars(*a, &mut vs);
        for v in vs {
            if !head_vars.iter().any(|&(w, _)| w == v) {
                head_vars.push((v, i));
            }
        }
    }
    for &(v, arg) in &head_vars {
        if !bound.contains(&v) {
            errs.push(
                e(
                    &format!("{}.head.args[{arg}]", n.path),
                    format!("head variable `{}` does not occur in a body literal (unsafe)", vname(v)),
                )
                .with_code(unsafe_code(v))
                .with_help(format!(
                    "bind `{}` in a positive or strongly negated body literal, or take it out of the head",
                    vname(v)
                )),
            );
        }
    }
    let mut negated_local: Vec<(usize, usize)> = Vec::new();
    for (i, item) in rule.body.iter().enumerate() {
        let path = cmp_paths.get(&i).copied().unwrap_or(n.path.as_str());
        match item {
            RItem::Comparison(_, a, b) => {
                let mut vs = Vec::new();
                rule.term_vars(*a, &mut vs);
                let left = vs.clone();
                rule.term_vars(*b, &mut vs);
                for v in vs {
                    // `x = x`-style comparisons aside, an unbound variable is unsafe.
                    if !bound.contains(&v) && (!left.contains(&v) || *a != RTerm::Var(v) || *b != RTerm::Var(v)) {
                        let side = if left.contains(&v) { "left" } else { "right" };
                        errs.push(
                            e(
                                &format!("{path}.{side}"),
                                format!("comparison variable `{}` does not occur in a body literal (unsafe)", vname(v)),
                            )
                            .with_code("unbound_variable")
                            .with_help(format!("bind `{}` in a positive or strongly negated body literal", vname(v))),
                        );
                    }
                }
            }
            RItem::Not(l) => {
                for v in l.vars() {
                    if !bound.contains(&v) {
                        negated_local.push((v, i));
                    }
                }
            }
            RItem::Literal(..) => {}
        }
    }
    for &(v, i) in &negated_local {
        if negated_local.iter().any(|&(w, j)| w == v && j != i) {
            let path = cmp_paths.get(&i).copied().unwrap_or(n.path.as_str());
            errs.push(
                e(path, format!("variable `{}` occurs only in negated literals, in more than one (unsafe)", vname(v)))
                    .with_code("unbound_variable"),
            );
            break;
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    Ok(rule)
}

/// What resolving a term needs to know.
struct TermCx<'a> {
    p: &'a Program,
    node: &'a ir::Node,
    vars: &'a [(String, Ty)],
    const_ix: &'a HashMap<&'a str, usize>,
    features: &'a [String],
}

/// The variable names of an IR term.
fn collect_vars(t: &Term, out: &mut Vec<String>) {
    match t {
        Term::Var(v) if !out.contains(v) => out.push(v.clone()),
        Term::Arith(_, a, b) => {
            collect_vars(a, out);
            collect_vars(b, out);
        }
        _ => {}
    }
}

/// A cycle in the superiority relation, as the indices of its priority rules in order, if
/// there is one.
fn superiority_cycle(p: &Program) -> Option<Vec<usize>> {
    let n = p.rules.len();
    // Per rule: (rule it beats, index of the priority rule saying so).
    let mut adj: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for (si, s) in p.superiority.iter().enumerate() {
        adj[s.higher].push((s.lower, si));
    }
    // 0 unvisited, 1 on the path, 2 done. Iterative: a package may chain many priorities.
    let mut state = vec![0u8; n];
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        // The DFS path: (rule, next edge to try), and the priority rule of each step taken.
        let mut path: Vec<(usize, usize)> = vec![(root, 0)];
        let mut by: Vec<usize> = Vec::new();
        state[root] = 1;
        while let Some(&mut (u, ref mut next)) = path.last_mut() {
            let Some(&(v, si)) = adj[u].get(*next) else {
                state[u] = 2;
                path.pop();
                by.pop();
                continue;
            };
            *next += 1;
            match state[v] {
                1 => {
                    // The cycle: from v's place on the path back to v.
                    let at = path.iter().position(|&(w, _)| w == v).unwrap_or(0);
                    let mut cycle = by[at..].to_vec();
                    cycle.push(si);
                    return Some(cycle);
                }
                0 => {
                    state[v] = 1;
                    path.push((v, 0));
                    by.push(si);
                }
                _ => {}
            }
        }
    }
    None
}
