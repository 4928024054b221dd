//! Names, types and safety: from a verified document to a resolved program whose every
//! reference is an index and every rule is well typed and safe (SEMANTICS §2-3). The
//! declarations come resolved from the validator ([`Symbols`], which the [`Verified`] document
//! carries); this pass resolves the rules against them and checks what verification does not.

use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{self, ArithOp, CmpOp, Document, NodeKind, RelationKind, Status, Strength, Term};
use crate::validate::Symbols;
pub use crate::validate::{ConstantInfo, FragmentInfo, Relation, Ty, TypeInfo};
use crate::verify::Verified;
use std::collections::HashMap;

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
    /// Why it wins, as the package gives it (an id), if it does.
    pub reason: Option<String>,
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
    /// When the law applies.
    pub lifecycle: crate::ir::Lifecycle,
    /// Every language of the package's labels and fragment texts, the default first (the
    /// language of every `label` and fragment `text` here).
    pub languages: Vec<String>,
    /// Labels and fragment texts in the other languages.
    pub translations: Vec<Translation>,
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

/// The label of `n` in `language` (else its first label).
fn label(n: &ir::Node, language: &str) -> String {
    ir::label_text(&n.labels, language).unwrap_or("").to_string()
}

/// What a [`Translation`] translates, by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Translated {
    /// A rule's label.
    Rule(usize),
    /// A closure policy's label.
    Closure(usize),
    /// A priority's label.
    Priority(usize),
    /// A fragment's text.
    Fragment(usize),
}

/// A label or fragment text in a language other than the package's default.
#[derive(Debug, Clone)]
pub struct Translation {
    /// What it translates.
    pub of: Translated,
    /// Its language, an index into [`Program::languages`] (never 0).
    pub language: usize,
    /// The text.
    pub text: String,
}

/// Every label (of rules, closures and priorities) and fragment text of `doc` in a language
/// other than `languages[0]`: the first one a node has in each language.
fn translations(doc: &Document, p: &Program, languages: &[String]) -> Vec<Translation> {
    let mut of: HashMap<&str, Translated> = HashMap::new();
    of.extend(p.fragments.iter().enumerate().map(|(i, f)| (f.id.as_str(), Translated::Fragment(i))));
    of.extend(p.rules.iter().enumerate().map(|(i, r)| (r.id.as_str(), Translated::Rule(i))));
    of.extend(p.closures.iter().enumerate().map(|(i, c)| (c.id.as_str(), Translated::Closure(i))));
    of.extend(p.superiority.iter().enumerate().map(|(i, x)| (x.id.as_str(), Translated::Priority(i))));
    let mut out: Vec<Translation> = Vec::new();
    let mut seen: std::collections::HashSet<(usize, String)> = std::collections::HashSet::new();
    for (k, n) in doc.nodes.iter().enumerate() {
        let Some(&what) = of.get(n.id.as_str()) else { continue };
        let texts: Vec<(&str, &str)> = match &n.kind {
            NodeKind::Fragment(f) => f.texts.iter().map(|t| (t.language.as_str(), t.text.as_str())).collect(),
            _ => n.labels.iter().map(|l| (l.language.as_str(), l.text.as_str())).collect(),
        };
        for (language, text) in texts {
            let Some(language) = languages.iter().position(|l| l == language).filter(|&l| l > 0) else { continue };
            if seen.insert((k, languages[language].clone())) {
                out.push(Translation { of: what, language, text: text.to_string() });
            }
        }
    }
    out
}

impl Program {
    /// The text `of` in language `language` (an index into [`Program::languages`]) when the
    /// package carries it, else `default`.
    pub fn translated<'a>(&'a self, of: Translated, language: usize, default: &'a str) -> &'a str {
        let t = self.translations.iter().find(|t| t.of == of && t.language == language);
        t.map_or(default, |t| t.text.as_str())
    }
}

/// Resolves the names, types and variables of a verified document into indices, and checks what
/// verification does not: features used, safety, superiority, judgment capabilities.
pub fn resolve(doc: &Verified) -> Result<Program, Diagnostics> {
    let symbols = doc.symbols();
    let doc: &Document = doc;
    let mut errs: Vec<Diagnostic> = Vec::new();
    let languages = doc.languages();
    let default = languages.first().cloned().unwrap_or_default();
    let label = |n: &ir::Node| label(n, &default);
    let mut p = Program {
        name: doc.package.name.clone(),
        version: doc.package.version.clone(),
        types: symbols.types.clone(),
        constants: symbols.constants.clone(),
        relations: symbols.relations.clone(),
        rules: Vec::new(),
        superiority: Vec::new(),
        closures: Vec::new(),
        fragments: symbols.fragments.clone(),
        strings: Vec::new(),
        lifecycle: doc.lifecycle(),
        languages: Vec::new(),
        translations: Vec::new(),
    };
    // The JSON path of node `id`.
    let path_of = |id: &str| doc.nodes.iter().find(|n| n.id == id).map(|n| n.path.clone()).unwrap_or_default();
    for r in &p.relations {
        if r.kind == RelationKind::Judgment && r.capability.is_none() {
            let m = format!("judgment relation `{}` has no external_decl naming its capability", r.name);
            errs.push(Diagnostic::new("resolve", path_of(&r.id), m).in_node(&r.id));
        }
    }
    // String parameters need the feature too.
    if !doc.features.iter().any(|f| f == ir::FEATURE_STRINGS) {
        for r in &p.relations {
            if r.params.iter().any(|x| x.1 == Ty::String) {
                errs.push(
                    Diagnostic::new(
                        "resolve",
                        path_of(&r.id),
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
    let rules = doc.nodes.iter().filter_map(|n| match &n.kind {
        NodeKind::Rule(r) => Some((n, r)),
        _ => None,
    });
    for ((n, r), vars) in rules.zip(&symbols.rule_variables) {
        let resolver = Resolver {
            symbols,
            features: &doc.features,
            node: n,
            rule: r,
            language: &default,
            strings: &mut strings,
            vars: vars.clone(),
            ariths: Vec::new(),
            errs: Vec::new(),
        };
        match resolver.resolve() {
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
                        let reason = pr.reason.clone();
                        p.superiority.push(Superiority {
                            id: n.id.clone(),
                            label: label(n),
                            higher: h,
                            lower: l,
                            reason,
                        })
                    }
                    _ => errs.push(internal(&n.id, &n.path, "a priority between unresolved rules")),
                }
            }
            NodeKind::Closure(c) => {
                let (Some(rel), Some(domain)) = (symbols.relation(&c.predicate), symbols.relation(&c.domain)) else {
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
    p.translations = translations(doc, &p, &languages);
    p.languages = languages;
    if errs.is_empty() {
        Ok(p)
    } else {
        Err(Diagnostics(errs))
    }
}

/// Resolves one rule against the document's [`Symbols`]: its head, body and anchors, then its
/// safety.
struct Resolver<'a> {
    symbols: &'a Symbols,
    /// The package's features.
    features: &'a [String],
    node: &'a ir::Node,
    rule: &'a ir::Rule,
    /// The package's default language, of the rule's label.
    language: &'a str,
    /// The program's String literals, shared by every rule (in order of first use).
    strings: &'a mut Vec<String>,
    /// The rule's variables, in declaration order (the validator's table).
    vars: Vec<(String, Ty)>,
    /// The rule's arithmetic terms.
    ariths: Vec<(ArithOp, RTerm, RTerm)>,
    /// What failed so far.
    errs: Vec<Diagnostic>,
}

impl Resolver<'_> {
    fn error(&self, path: &str, msg: String) -> Diagnostic {
        Diagnostic::new("resolve", path.to_string(), msg).in_node(&self.node.id)
    }

    fn internal(&mut self, path: &str, what: &str) {
        self.errs.push(internal(&self.node.id, path, what));
    }

    /// Reports `what` at `path` unless the package declares feature `f`.
    fn need(&mut self, f: &'static str, path: &str, what: &str) {
        if !self.features.iter().any(|x| x == f) {
            let d = self.error(path, format!("{what} needs the feature `{f}`, which the package does not declare"));
            self.errs.push(d.with_code("feature_not_declared"));
        }
    }

    /// The rule resolved and checked safe, or everything that failed.
    fn resolve(mut self) -> Result<RRule, Vec<Diagnostic>> {
        let (n, r, symbols) = (self.node, self.rule, self.symbols);
        let string_vars: Vec<usize> = (0..self.vars.len()).filter(|&i| self.vars[i].1 == Ty::String).collect();
        for i in string_vars {
            self.need(ir::FEATURE_STRINGS, &format!("{}.variables[{i}].type", n.path), "a String variable");
        }
        let head = self.literal(&r.head, false);
        let mut body = Vec::new();
        // The JSON path of each item of `body`.
        let mut item_paths: Vec<String> = Vec::new();
        for item in &r.body {
            match item {
                ir::BodyItem::Literal(s, l) => {
                    if let Some(rl) = self.literal(l, true) {
                        item_paths.push(l.path.clone());
                        body.push(RItem::Literal(*s, rl));
                    }
                }
                ir::BodyItem::Not(l) => {
                    self.need(ir::FEATURE_NAF, &l.path, "negation as failure (`not`)");
                    if let Some(rl) = self.literal(l, true) {
                        item_paths.push(l.path.clone());
                        body.push(RItem::Not(rl));
                    }
                }
                ir::BodyItem::Comparison(c) => {
                    let a = self.term(&c.left, &format!("{}.left", c.path));
                    let b = self.term(&c.right, &format!("{}.right", c.path));
                    if let (Some(a), Some(b)) = (a, b) {
                        item_paths.push(c.path.clone());
                        body.push(RItem::Comparison(c.op, a, b));
                    }
                }
            }
        }
        let mut anchors = Vec::new();
        for (i, a) in r.anchors.iter().enumerate() {
            match symbols.fragment(a) {
                Some(f) => anchors.push(f),
                None => self.internal(&format!("{}.anchors[{i}]", n.path), "an anchor that is not a fragment"),
            }
        }
        let Some(head) = head else { return Err(self.errs) };
        if !self.errs.is_empty() {
            // A body literal that did not resolve is missing from `body`: a safety check now would
            // report variables it binds as unsafe.
            return Err(self.errs);
        }
        let rule = RRule {
            id: n.id.clone(),
            path: n.path.clone(),
            label: label(n, self.language),
            strength: r.strength,
            head,
            item_paths,
            body,
            never: r.body_false,
            vars: self.vars,
            anchors,
            ariths: self.ariths,
        };
        let errs = unsafe_variables(&rule);
        if !errs.is_empty() {
            return Err(errs);
        }
        Ok(rule)
    }

    /// A literal of the head, or of the body (`in_body`), where arithmetic binds nothing. Its
    /// arity and argument types are the validator's.
    fn literal(&mut self, l: &ir::Literal, in_body: bool) -> Option<RLiteral> {
        let Some(rel) = self.symbols.relation(&l.predicate) else {
            self.internal(&l.path, "a literal of an undeclared relation");
            return None;
        };
        let mut args = Vec::new();
        for (i, a) in l.args.iter().enumerate() {
            let path = format!("{}.args[{i}]", l.path);
            if in_body && matches!(a, Term::Arith(..)) {
                self.body_arithmetic(a, &path);
                args.push(None);
                continue;
            }
            // Every argument is resolved, so one report names every failure of the literal.
            args.push(self.term(a, &path));
        }
        let args = args.into_iter().collect::<Option<Vec<RTerm>>>()?;
        Some(RLiteral { rel, negative: l.negative, args })
    }

    /// Reports arithmetic `a` at `path` in a body literal: it binds nothing, so its variables
    /// must be bound elsewhere, and even then it is not supported there.
    fn body_arithmetic(&mut self, a: &Term, path: &str) {
        let mut names = Vec::new();
        collect_vars(a, &mut names);
        let rule = self.rule;
        let bound_elsewhere = |v: &str| {
            rule.body.iter().any(|it| match it {
                ir::BodyItem::Literal(_, bl) => bl.args.iter().any(|t| matches!(t, Term::Var(x) if x == v)),
                _ => false,
            })
        };
        let unbound: Vec<&String> = names.iter().filter(|v| !bound_elsewhere(v)).collect();
        let d = if let Some(v) = unbound.first() {
            self.error(
                path,
                format!("variable `{v}` occurs only inside arithmetic, which binds nothing (unbound variable)"),
            )
            .with_code("unbound_variable")
        } else {
            self.error(path, "arithmetic terms are only supported in heads and comparisons".to_string())
                .with_code("unsupported")
        };
        self.errs.push(d);
    }

    /// The term `t` at `path`, of the type the validator checked; arithmetic operands
    /// recursively.
    fn term(&mut self, t: &Term, path: &str) -> Option<RTerm> {
        if let Some(f) = t.feature() {
            if !self.features.iter().any(|x| x == f) {
                let d =
                    self.error(path, format!("this term needs the feature `{f}`, which the package does not declare"));
                self.errs.push(d.with_code("feature_not_declared"));
                return None;
            }
        }
        Some(match t {
            Term::Var(v) => match self.vars.iter().position(|x| &x.0 == v) {
                Some(i) => RTerm::Var(i),
                None => {
                    self.internal(path, "an undeclared variable");
                    return None;
                }
            },
            Term::Const(c) => match self.symbols.constant(c) {
                Some(i) => RTerm::Const(i),
                None => {
                    self.internal(path, "an undeclared constant");
                    return None;
                }
            },
            Term::Int(i) => RTerm::Int(*i),
            Term::Str(s) => {
                let i = match self.strings.iter().position(|x| x == s) {
                    Some(i) => i,
                    None => {
                        self.strings.push(s.clone());
                        self.strings.len() - 1
                    }
                };
                RTerm::Str(i)
            }
            Term::Arith(op, a, b) => {
                let a = self.term(a, &format!("{path}.left"));
                let b = self.term(b, &format!("{path}.right"));
                let (a, b) = (a?, b?);
                self.ariths.push((*op, a, b));
                RTerm::Arith(self.ariths.len() - 1)
            }
        })
    }
}

/// Safety: every variable of the head, of a comparison and of an arithmetic term occurs in a
/// positive body literal; a variable of a negated literal that no positive literal binds is
/// local to that one negation. What `rule` violates.
fn unsafe_variables(rule: &RRule) -> Vec<Diagnostic> {
    let mut errs = Vec::new();
    let e = |path: &str, msg: String| Diagnostic::new("resolve", path.to_string(), msg).in_node(&rule.id);
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
                    &format!("{}.head.args[{arg}]", rule.path),
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
        let path = &rule.item_paths[i];
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
            errs.push(
                e(
                    &rule.item_paths[i],
                    format!("variable `{}` occurs only in negated literals, in more than one (unsafe)", vname(v)),
                )
                .with_code("unbound_variable"),
            );
            break;
        }
    }
    errs
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
