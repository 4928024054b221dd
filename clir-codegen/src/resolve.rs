//! Names, types and safety: from a verified document to a resolved program whose every
//! reference is an index and every rule is well typed and safe (SEMANTICS §2-3).

use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{self, CmpOp, Document, NodeKind, RelationKind, Status, Strength, Term};
use std::collections::HashMap;

/// The type of a column or variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ty {
    /// An entity type, by index into [`Program::types`].
    Entity(usize),
    /// The built-in signed 64-bit integer.
    Integer,
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
    /// Whether the body contains `false`.
    pub never: bool,
    /// Variable names and types.
    pub vars: Vec<(String, Ty)>,
    /// Anchors: fragment index.
    pub anchors: Vec<usize>,
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
}

impl Program {
    /// The short name of a type.
    pub fn type_name(&self, ty: Ty) -> &str {
        match ty {
            Ty::Entity(i) => &self.types[i].name,
            Ty::Integer => "Integer",
        }
    }

    /// `name(a, b)` rendering of a literal with the rule's variable names.
    pub fn show_literal(&self, rule: &RRule, lit: &RLiteral) -> String {
        let args: Vec<String> = lit.args.iter().map(|a| self.show_term(rule, *a)).collect();
        format!(
            "{}{}({})",
            if lit.negative { "~" } else { "" },
            self.relations[lit.rel].name,
            args.join(", ")
        )
    }

    /// A term with the rule's variable names.
    pub fn show_term(&self, rule: &RRule, t: RTerm) -> String {
        match t {
            RTerm::Var(v) => rule.vars[v].0.clone(),
            RTerm::Const(c) => self.constants[c].name.clone(),
            RTerm::Int(i) => i.to_string(),
        }
    }

    /// The rule as Datalog text: `head <- body`.
    pub fn show_rule(&self, rule: &RRule) -> String {
        let mut body = Vec::new();
        for item in &rule.body {
            body.push(match item {
                RItem::Literal(Status::Established, l) => self.show_literal(rule, l),
                RItem::Literal(Status::Supported, l) => format!("supported {}", self.show_literal(rule, l)),
                RItem::Comparison(op, a, b) => {
                    format!("{} {} {}", self.show_term(rule, *a), op.symbol(), self.show_term(rule, *b))
                }
            });
        }
        if rule.never {
            body.push("false".into());
        }
        let arrow = match rule.strength {
            Strength::Strict => "<-",
            Strength::Defeasible => "<=",
            Strength::Defeater => "~>",
        };
        format!("{} {} {}", self.show_literal(rule, &rule.head), arrow, body.join(", "))
    }
}

fn label(n: &ir::Node) -> String {
    ir::label_text(&n.labels, "en").unwrap_or("").to_string()
}

/// Resolves names, types and variables of a verified document; reports every failure.
pub fn resolve(doc: &Document) -> Result<Program, Diagnostics> {
    let mut errs: Vec<Diagnostic> = Vec::new();
    let err = |node: &ir::Node, path: &str, msg: String| {
        Diagnostic::new("resolve", path.to_string(), msg).in_node(&node.id)
    };
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
    };
    let mut type_ix: HashMap<&str, usize> = HashMap::new();
    let mut frag_ix: HashMap<&str, usize> = HashMap::new();
    for n in &doc.nodes {
        match &n.kind {
            NodeKind::TypeDecl(t) => {
                if p.types.iter().any(|x| x.name == t.name) {
                    errs.push(err(n, &format!("{}.name", n.path), format!("type name `{}` declared twice", t.name)));
                }
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
                    if p.constants.iter().any(|x| x.name == c.name) {
                        errs.push(err(n, &format!("{}.name", n.path), format!("constant name `{}` declared twice", c.name)));
                    }
                    const_ix.insert(&n.id, p.constants.len());
                    p.constants.push(ConstantInfo { id: n.id.clone(), name: c.name.clone(), ty: t });
                }
                _ => errs.push(err(
                    n,
                    &format!("{}.returnType", n.path),
                    format!("constant `{}` must have a declared entity type, found `{}`", c.name, c.return_type),
                )),
            },
            NodeKind::Relation(r) => {
                let mut params = Vec::new();
                for (i, prm) in r.parameters.iter().enumerate() {
                    match ty_of(&prm.ty) {
                        Some(t) => params.push((prm.name.clone(), t)),
                        None => errs.push(err(
                            n,
                            &format!("{}.parameters[{i}].type", n.path),
                            format!("relation `{}`: unknown type `{}`", r.name, prm.ty),
                        )),
                    }
                }
                if p.relations.iter().any(|x| x.name == r.name) {
                    errs.push(err(n, &format!("{}.name", n.path), format!("relation name `{}` declared twice", r.name)));
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
    let mut rule_ix: HashMap<&str, usize> = HashMap::new();
    // The JSON path of each priority rule of `p.superiority`.
    let mut sup_paths: Vec<&str> = Vec::new();
    for n in &doc.nodes {
        let NodeKind::Rule(r) = &n.kind else { continue };
        match resolve_rule(&p, n, r, &ty_of, &const_ix, &rel_ix, &frag_ix) {
            Ok(rr) => {
                rule_ix.insert(&n.id, p.rules.len());
                p.rules.push(rr);
            }
            Err(mut e) => errs.append(&mut e),
        }
    }
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
                    _ => errs.push(err(
                        n,
                        &n.path,
                        format!("priority `{}`: `{}` or `{}` is not a rule", n.id, pr.higher, pr.lower),
                    )),
                }
            }
            NodeKind::Closure(c) => {
                let (Some(&rel), Some(&domain)) = (rel_ix.get(c.predicate.as_str()), rel_ix.get(c.domain.as_str()))
                else {
                    errs.push(err(n, &n.path, format!("closure `{}`: predicate or domain is not a relation", n.id)));
                    continue;
                };
                let pt: Vec<Ty> = p.relations[rel].params.iter().map(|x| x.1).collect();
                let dt: Vec<Ty> = p.relations[domain].params.iter().map(|x| x.1).collect();
                if pt != dt {
                    errs.push(err(
                        n,
                        &format!("{}.domain", n.path),
                        format!(
                            "closure `{}`: domain `{}` must have the parameter types of `{}`",
                            n.id, p.relations[domain].name, p.relations[rel].name
                        ),
                    ));
                    continue;
                }
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
            Diagnostic::new(
                "resolve",
                sup_paths[cycle[0]],
                format!(
                    "the superiority relation is cyclic: {}, by priority rules {}",
                    chain.join(" > "),
                    by.join(", ")
                ),
            )
            .in_node(&first.id),
        );
    }
    if errs.is_empty() {
        Ok(p)
    } else {
        Err(Diagnostics(errs))
    }
}

fn resolve_rule(
    p: &Program,
    n: &ir::Node,
    r: &ir::Rule,
    ty_of: &dyn Fn(&str) -> Option<Ty>,
    const_ix: &HashMap<&str, usize>,
    rel_ix: &HashMap<&str, usize>,
    frag_ix: &HashMap<&str, usize>,
) -> Result<RRule, Vec<Diagnostic>> {
    let mut errs = Vec::new();
    let e = |path: &str, msg: String| Diagnostic::new("resolve", path.to_string(), format!("rule `{}`: {msg}", n.id)).in_node(&n.id);
    let mut vars: Vec<(String, Ty)> = Vec::new();
    for (i, (name, t)) in r.variables.iter().enumerate() {
        match ty_of(t) {
            Some(t) if !vars.iter().any(|v| &v.0 == name) => vars.push((name.clone(), t)),
            Some(_) => errs.push(e(&format!("{}.variables[{i}]", n.path), format!("variable `{name}` declared twice"))),
            None => errs.push(e(&format!("{}.variables[{i}].type", n.path), format!("variable `{name}` has unknown type `{t}`"))),
        }
    }
    let var_ix = |name: &str| vars.iter().position(|v| v.0 == name);
    let term = |t: &Term, want: Ty, path: &str, what: &str, errs: &mut Vec<Diagnostic>| -> Option<RTerm> {
        let (rt, got) = match t {
            Term::Var(v) => match var_ix(v) {
                Some(i) => (RTerm::Var(i), vars[i].1),
                None => {
                    errs.push(e(path, format!("variable `{v}` is not declared in `variables`")));
                    return None;
                }
            },
            Term::Const(c) => match const_ix.get(c.as_str()) {
                Some(&i) => (RTerm::Const(i), Ty::Entity(p.constants[i].ty)),
                None => {
                    errs.push(e(path, format!("`{c}` is not a declared constant")));
                    return None;
                }
            },
            Term::Int(i) => (RTerm::Int(*i), Ty::Integer),
        };
        if got != want {
            let shown = match rt {
                RTerm::Var(v) => format!("variable `{}`", vars[v].0),
                RTerm::Const(c) => format!("constant `{}`", p.constants[c].name),
                RTerm::Int(i) => format!("the integer {i}"),
            };
            errs.push(e(
                path,
                format!("{what} is {shown} of type `{}`, but `{}` is expected", p.type_name(got), p.type_name(want)),
            ));
            return None;
        }
        Some(rt)
    };
    let literal = |l: &ir::Literal, errs: &mut Vec<Diagnostic>| -> Option<RLiteral> {
        let Some(&rel) = rel_ix.get(l.predicate.as_str()) else {
            errs.push(e(&format!("{}.predicate", l.path), format!("`{}` is not a declared relation", l.predicate)));
            return None;
        };
        let decl = &p.relations[rel];
        if decl.params.len() != l.args.len() {
            errs.push(e(
                &format!("{}.args", l.path),
                format!("`{}` takes {} arguments, got {}", decl.name, decl.params.len(), l.args.len()),
            ));
            return None;
        }
        let mut args = Vec::new();
        for (i, (a, (pname, pty))) in l.args.iter().zip(&decl.params).enumerate() {
            let what = format!("argument `{}` of `{}`", pname, decl.name);
            // Every argument is checked, so one report names every mismatch of the literal.
            args.push(term(a, *pty, &format!("{}.args[{i}]", l.path), &what, errs));
        }
        let args = args.into_iter().collect::<Option<Vec<RTerm>>>()?;
        Some(RLiteral { rel, negative: l.negative, args })
    };
    let head = literal(&r.head, &mut errs);
    let mut body = Vec::new();
    // The JSON path of each comparison of `body`, by body index.
    let mut cmp_paths: HashMap<usize, &str> = HashMap::new();
    for item in &r.body {
        match item {
            ir::BodyItem::Literal(s, l) => {
                if let Some(l) = literal(l, &mut errs) {
                    body.push(RItem::Literal(*s, l));
                }
            }
            ir::BodyItem::Comparison(c) => {
                let a = term(&c.left, Ty::Integer, &format!("{}.left", c.path), "the left side of a comparison", &mut errs);
                let b = term(&c.right, Ty::Integer, &format!("{}.right", c.path), "the right side of a comparison", &mut errs);
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
            None => errs.push(e(&format!("{}.anchors[{i}]", n.path), format!("anchor `{a}` is not a fragment"))),
        }
    }
    let Some(head) = head else { return Err(errs) };
    if !errs.is_empty() {
        // A body literal that did not resolve is missing from `body`: a safety check now would
        // report variables it binds as unsafe.
        return Err(errs);
    }
    // Safety: every variable of the head and of a comparison occurs in a body literal.
    let bound: Vec<usize> = body
        .iter()
        .filter_map(|i| match i {
            RItem::Literal(_, l) => Some(l.vars()),
            _ => None,
        })
        .flatten()
        .collect();
    for v in head.vars() {
        if !bound.contains(&v) {
            errs.push(e(
                &format!("{}.head", n.path),
                format!("head variable `{}` does not occur in a body literal (unsafe)", vars[v].0),
            ));
        }
    }
    for (i, item) in body.iter().enumerate() {
        if let RItem::Comparison(_, a, b) = item {
            let path = cmp_paths.get(&i).copied().unwrap_or(n.path.as_str());
            for (side, t) in [a, b].into_iter().enumerate() {
                if let RTerm::Var(v) = t {
                    if !bound.contains(v) && !(side == 1 && *a == RTerm::Var(*v)) {
                        errs.push(e(
                            path,
                            format!("comparison variable `{}` does not occur in a body literal (unsafe)", vars[*v].0),
                        ));
                    }
                }
            }
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    Ok(RRule {
        id: n.id.clone(),
        path: n.path.clone(),
        label: label(n),
        strength: r.strength,
        head,
        body,
        never: r.body_false,
        vars,
        anchors,
    })
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

/// Rust-safe identifiers derived from package names.
pub mod names {
    /// `snake_case` identifier from any name (`GamePlay/StartPlay/valid` -> `game_play_start_play_valid`).
    pub fn snake(name: &str) -> String {
        let mut out = String::new();
        let mut prev_lower = false;
        let chars: Vec<char> = name.chars().collect();
        for (i, &ch) in chars.iter().enumerate() {
            if ch.is_ascii_alphanumeric() {
                if ch.is_ascii_uppercase() {
                    // `fooBar` -> `foo_bar`; `FIDEArbiter` -> `fide_arbiter`.
                    let acronym_end = i > 0
                        && chars[i - 1].is_ascii_uppercase()
                        && chars.get(i + 1).is_some_and(|c| c.is_ascii_lowercase());
                    if (prev_lower || acronym_end) && !out.is_empty() && !out.ends_with('_') {
                        out.push('_');
                    }
                    out.push(ch.to_ascii_lowercase());
                    prev_lower = false;
                } else {
                    out.push(ch);
                    prev_lower = true;
                }
            } else {
                if !out.is_empty() && !out.ends_with('_') {
                    out.push('_');
                }
                prev_lower = false;
            }
        }
        let out = out.trim_matches('_').to_string();
        fix(out, "x")
    }

    /// `CamelCase` identifier from any name.
    pub fn camel(name: &str) -> String {
        let mut out = String::new();
        for part in snake(name).split('_') {
            let mut cs = part.chars();
            if let Some(c) = cs.next() {
                out.push(c.to_ascii_uppercase());
                out.extend(cs);
            }
        }
        fix(out, "T")
    }

    /// `SCREAMING_SNAKE` identifier.
    pub fn screaming(name: &str) -> String {
        snake(name).to_ascii_uppercase()
    }

    fn fix(s: String, prefix: &str) -> String {
        let s = if s.is_empty() { prefix.to_string() } else { s };
        let s = if s.starts_with(|c: char| c.is_ascii_digit()) { format!("{prefix}{s}") } else { s };
        if syn::parse_str::<syn::Ident>(&s).is_err() {
            format!("{s}_")
        } else {
            s
        }
    }
}
