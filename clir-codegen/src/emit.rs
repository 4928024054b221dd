//! Rust generation: a planned, stratified program to a formatted module of datafrog code.
//!
//! Every relation is a tuple relation `(CaseId, columns..)`: the case is the first column of
//! every tuple and every join key, so one datafrog run rules a whole batch of cases without
//! facts of one case ever meeting those of another.

use crate::ir::{RelationKind, Status, Strength};
use crate::plan::{plan_rule, plan_rule_keeping, RulePlan, Step};
use crate::resolve::{Program, RItem, RRule, RTerm, Ty};
use crate::strata::Strata;
use crate::text::{comment_text, string_literal};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

/// Which conclusions a relation variable holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layer {
    /// `+D`.
    Definite,
    /// `+S`.
    Supported,
    /// `+d`.
    Concluded,
}

/// How a rule is joined: over definite premises (+D of strict rules) or applicability (+S/+d).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Definite,
    Applicable,
}

struct Emitter<'a> {
    p: &'a Program,
    s: &'a Strata,
    seal: String,
    plans: Vec<RulePlan>,
    /// Plans that carry every variable of the rule (for explanation instances).
    binding_plans: Vec<RulePlan>,
    /// Emit rule blocks that produce full bindings rather than heads.
    binding_mode: bool,
    /// Emit rule blocks as straight-line joins over relations (every operand is final: the
    /// rule reads only lower strata), adding head tuples to a `Vec`, with no datafrog iteration.
    straight: bool,
    rel_ident: Vec<String>,
    rule_ident: Vec<String>,
    type_ident: Vec<String>,
    const_ident: Vec<String>,
    /// Per rule, its variables' identifiers.
    var_ident: Vec<Vec<String>>,
    /// Rule id -> index in `p.rules`.
    rule_index: std::collections::HashMap<&'a str, usize>,
    /// Every identifier of the module (the one allocator).
    names: crate::names::ModuleNames,
    /// Comment texts, referenced by `clir_comment!(i);` markers replaced after formatting.
    comments: Vec<String>,
    /// Per String literal of the program: its interner id (constants first, then the strings
    /// that are not already a name, in order).
    string_sym: Vec<u32>,
    /// The String literals given a schema constant of their own (after the declared constants).
    string_consts: Vec<String>,
    /// Whether to generate explanation instances.
    explanations: bool,
    /// The functions `evaluate` calls: one per stratum with rules, one per rule's explanation
    /// instances, so that no function grows with the package.
    items: TokenStream,
}

/// The relations `evaluate` has bound so far, in order: what an outlined function may take.
#[derive(Default)]
struct Bound {
    /// Name, type, and whether it is moved in (an input relation, read by one stratum only).
    names: Vec<(Ident, TokenStream, bool)>,
    index: std::collections::HashMap<String, usize>,
}

impl Bound {
    fn bind(&mut self, name: Ident, ty: TokenStream, moved: bool) {
        let key = name.to_string();
        match self.index.get(&key) {
            Some(&i) => self.names[i] = (name, ty, moved),
            None => {
                self.index.insert(key, self.names.len());
                self.names.push((name, ty, moved));
            }
        }
    }

    /// The bound names `body` mentions, in binding order.
    fn used_by(&self, body: &TokenStream) -> Vec<&(Ident, TokenStream, bool)> {
        fn walk(ts: &TokenStream, out: &mut std::collections::HashSet<String>) {
            for tt in ts.clone() {
                match tt {
                    proc_macro2::TokenTree::Ident(i) => {
                        out.insert(i.to_string());
                    }
                    proc_macro2::TokenTree::Group(g) => walk(&g.stream(), out),
                    _ => {}
                }
            }
        }
        let mut seen = std::collections::HashSet::new();
        walk(body, &mut seen);
        let mut used: Vec<usize> = seen.iter().filter_map(|n| self.index.get(n).copied()).collect();
        used.sort_unstable();
        used.into_iter().map(|i| &self.names[i]).collect()
    }
}

/// The variables an explanation instance of `rule` carries: every variable a positive body
/// literal binds, in index order (variables local to a negation are never bound).
fn binding_vars(rule: &RRule) -> Vec<usize> {
    let mut v = rule.bound_vars();
    v.sort_unstable();
    v
}

/// Explanation instances are flat tuples `(case, variables..)`: Rust orders tuples of at most 12.
const MAX_BINDING_VARS: usize = 11;

/// Statements per function when `evaluate`'s steps are split up (so that no function grows with
/// the package).
const CHUNK: usize = 32;

/// Generates the formatted Rust module for a resolved, stratified program.
pub fn emit(p: &Program, s: &Strata, seal: &str) -> String {
    emit_with(p, s, seal, true)
}

/// [`emit`], optionally without the code that computes explanation instances (smaller and
/// faster to build; `--explain` then yields no derivations).
pub fn emit_with(p: &Program, s: &Strata, seal: &str, explanations: bool) -> String {
    let plans = p.rules.iter().map(|r| plan_rule(p, r)).collect();
    let binding_plans = p.rules.iter().map(|r| plan_rule_keeping(p, r, &binding_vars(r))).collect();
    let names = crate::names::ModuleNames::allocate(p);
    let mut e = Emitter {
        p,
        s,
        seal: seal.to_string(),
        plans,
        binding_plans,
        binding_mode: false,
        straight: false,
        rel_ident: names.relations.clone(),
        rule_ident: names.rules.clone(),
        type_ident: names.types.clone(),
        const_ident: names.constants.clone(),
        var_ident: p.rules.iter().map(|r| names.variables(r)).collect(),
        rule_index: p.rules.iter().enumerate().map(|(i, r)| (r.id.as_str(), i)).collect(),
        names,
        comments: Vec::new(),
        string_sym: Vec::new(),
        string_consts: Vec::new(),
        explanations,
        items: TokenStream::new(),
    };
    let mut names: Vec<&str> = p.constants.iter().map(|c| c.name.as_str()).collect();
    for st in &p.strings {
        match names.iter().position(|n| n == st) {
            Some(i) => e.string_sym.push(i as u32),
            None => {
                e.string_sym.push(names.len() as u32);
                names.push(st);
                e.string_consts.push(st.clone());
            }
        }
    }
    let tokens = e.module();
    let file: syn::File = match syn::parse2(tokens.clone()) {
        Ok(f) => f,
        // A bug in the emitter, not in the package: show the tokens to whoever reports it.
        Err(err) => return format!("compile_error!({:?});\n// {}\n", err.to_string(), tokens),
    };
    let text = prettyplease::unparse(&file);
    let mut out = String::with_capacity(text.len() + 4096);
    // Every doc and literal of package text was escaped to one inert line, so a line that is
    // exactly a marker is one of ours; each line of its comment is escaped again.
    for line in text.lines() {
        let t = line.trim_start();
        let marker = t.strip_prefix("clir_comment!(").and_then(|r| r.strip_suffix(");")).and_then(|n| n.parse().ok());
        if let Some(comment) = marker.and_then(|i: usize| e.comments.get(i)) {
            let indent = &line[..line.len() - t.len()];
            for c in comment.split('\n') {
                let c = comment_text(c);
                if c.is_empty() {
                    out.push_str(&format!("{indent}//\n"));
                } else {
                    out.push_str(&format!("{indent}// {c}\n"));
                }
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The sentence of an article a rule cites: the label names `Article 9.6.2`; the paragraph of
/// the fragment text that starts with `9.6.2` is the citation (the label itself otherwise).
fn citation(label: &str, text: &str) -> String {
    let number: Option<&str> = label.split_whitespace().skip_while(|w| *w != "Article").nth(1);
    if let Some(n) = number.map(|n| n.trim_end_matches(['.', ':', ','])) {
        if !n.is_empty() {
            for para in text.split("\n\n") {
                let para = para.trim();
                if para.starts_with(n) && para[n.len()..].starts_with([' ', '\t']) {
                    return para.to_string();
                }
            }
        }
    }
    label.to_string()
}

/// The call of an explanation function with `definite`, its relation arguments `params` each
/// replaced as `rename` says.
fn explain_call(name: &Ident, definite: bool, params: &[(Ident, bool)], rename: &[(Ident, Ident)]) -> TokenStream {
    let args =
        params.iter().map(|(n, moved)| layer_arg(rename.iter().find(|(a, _)| a == n).map_or(n, |(_, d)| d), *moved));
    quote! { self::#name(instances, #definite, #(#args),*); }
}

/// The argument that passes relation `n` of `l`: moved out (an input) or by reference.
fn layer_arg(n: &Ident, moved: bool) -> TokenStream {
    if moved {
        quote!(::clir::rt::take(&mut l.#n))
    } else {
        quote!(&l.#n)
    }
}

/// The variables of `carry` that are not in `key`, in order.
fn rest_of(carry: &[usize], key: &[usize]) -> Vec<usize> {
    carry.iter().copied().filter(|v| !key.contains(v)).collect()
}

fn c_arity(p: &Program, rel: usize) -> usize {
    p.relations[rel].params.len()
}

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

impl<'a> Emitter<'a> {
    fn comment(&mut self, text: String) -> TokenStream {
        self.comments.push(text);
        let i = Literal::usize_unsuffixed(self.comments.len() - 1);
        quote! { clir_comment!(#i); }
    }

    fn ty(&self, t: Ty) -> TokenStream {
        match t {
            Ty::Entity(i) => {
                let id = ident(&self.type_ident[i]);
                quote!(#id)
            }
            Ty::Integer => quote!(i64),
            Ty::String => quote!(::clir::Str),
        }
    }

    fn rel_types(&self, rel: usize) -> Vec<Ty> {
        self.p.relations[rel].params.iter().map(|x| x.1).collect()
    }

    /// `(CaseId, T1, ..)`
    fn tuple_ty(&self, rel: usize) -> TokenStream {
        let cols = self.rel_types(rel).into_iter().map(|t| self.ty(t));
        quote!((CaseId, #(#cols,)*))
    }

    fn vars_ty(&self, rule: &RRule, vars: &[usize]) -> TokenStream {
        let cols = vars.iter().map(|&v| self.ty(rule.vars[v].1));
        quote!((#(#cols,)*))
    }

    /// The variable holding `layer` of relation `rel` with sign `negative`.
    fn layer_name(&self, rel: usize, negative: bool, layer: Layer) -> Ident {
        let info = &self.s.rels[rel];
        let base = format!("{}{}", if negative { "not_" } else { "" }, self.rel_ident[rel]);
        if info.collapsed {
            return ident(&base);
        }
        match layer {
            Layer::Definite => format_ident!("{}_definite", base),
            Layer::Concluded => format_ident!("{}_concluded", base),
            Layer::Supported if info.supported_is_concluded(negative) => format_ident!("{}_concluded", base),
            Layer::Supported => format_ident!("{}_supported", base),
        }
    }

    /// The module constant holding relation `rel`'s index in `SCHEMA.relations`.
    fn rel_const(&self, rel: usize) -> Ident {
        format_ident!("REL_{}", self.rel_ident[rel].to_ascii_uppercase())
    }

    fn input_name(&self, rel: usize, negative: bool) -> Ident {
        format_ident!("{}{}_input", if negative { "not_" } else { "" }, self.rel_ident[rel])
    }

    fn var_ident(&self, rule: &RRule, v: usize) -> Ident {
        // Rule ids are unique (verification checks them): a look-up, not a scan per variable.
        let ri = self.rule_index[rule.id.as_str()];
        ident(&self.var_ident[ri][v])
    }

    fn term(&self, rule: &RRule, t: RTerm) -> TokenStream {
        match t {
            RTerm::Var(v) => {
                let i = self.var_ident(rule, v);
                quote!(#i)
            }
            RTerm::Const(c) => {
                let ty = ident(&self.type_ident[self.p.constants[c].ty]);
                let k = ident(&self.const_ident[c]);
                quote!(#ty::#k)
            }
            RTerm::Int(i) => {
                let l = Literal::i64_suffixed(i);
                quote!(#l)
            }
            RTerm::Str(i) => {
                let id = Literal::u32_unsuffixed(self.string_sym[i]);
                quote!(::clir::Str(::clir::Sym(#id)))
            }
            RTerm::Arith(i) => {
                let (op, a, b) = rule.ariths[i];
                let (a, b) = (self.term(rule, a), self.term(rule, b));
                let f = match op {
                    crate::ir::ArithOp::Add => quote!(wrapping_add),
                    crate::ir::ArithOp::Sub => quote!(wrapping_sub),
                    crate::ir::ArithOp::Mul => quote!(wrapping_mul),
                };
                quote!(i64::#f(#a, #b))
            }
        }
    }

    /// The name of the sorted set a negated body item of rule `ri` is tested against.
    fn naf_set(&self, ri: usize, item: usize) -> Ident {
        format_ident!("{}_not_{}", self.rule_ident[ri], item)
    }

    /// Before a rule's joins: for every negated item, the sorted set of its bound columns over
    /// the final +d of the (lower) negated relation.
    fn naf_sets(&self, ri: usize) -> TokenStream {
        let rule = &self.p.rules[ri];
        let mut out = TokenStream::new();
        for (item, it) in rule.body.iter().enumerate() {
            let RItem::Not(l) = it else { continue };
            let shared = rule.filter_vars(it);
            let step = Step {
                item,
                literal: l.clone(),
                status: Status::Established,
                key: Vec::new(),
                new: Vec::new(),
                local: Vec::new(),
                after: Vec::new(),
                carry: Vec::new(),
            };
            let (pat, conds) = self.literal_pattern(rule, &step);
            let src = self.layer_name(l.rel, l.negative, Layer::Concluded);
            let ids = shared.iter().map(|&v| self.var_ident(rule, v));
            let cols: Vec<TokenStream> = shared.iter().map(|&v| self.ty(rule.vars[v].1)).collect();
            let kept = Self::filtered(&conds, quote!((case, #(#ids,)*)));
            let name = self.naf_set(ri, item);
            out.extend(quote! {
                let #name: Vec<(CaseId, #(#cols,)*)> = {
                    let mut v: Vec<(CaseId, #(#cols,)*)> = #src.iter().filter_map(|#pat| #kept).collect();
                    v.sort_unstable();
                    v.dedup();
                    v
                };
            });
        }
        out
    }

    fn comparison(&self, rule: &RRule, item: usize) -> TokenStream {
        if let RItem::Not(_) = &rule.body[item] {
            let ri = self.p.rules.iter().position(|r| std::ptr::eq(r, rule)).expect("rule of the program");
            let set = self.naf_set(ri, item);
            let ids = rule.filter_vars(&rule.body[item]).into_iter().map(|v| self.var_ident(rule, v));
            return quote!(#set.binary_search(&(case, #(#ids,)*)).is_err());
        }
        let RItem::Comparison(op, a, b) = &rule.body[item] else { return quote!(true) };
        let (a, b) = (self.term(rule, *a), self.term(rule, *b));
        let op: TokenStream = op.symbol().parse().expect("operator");
        quote!(#a #op #b)
    }

    /// Pattern destructuring a literal's tuple, and the conditions its arguments impose.
    fn literal_pattern(&self, rule: &RRule, step: &Step) -> (TokenStream, Vec<TokenStream>) {
        let mut seen: Vec<usize> = Vec::new();
        let mut pats = Vec::new();
        let mut conds = Vec::new();
        for (j, a) in step.literal.args.iter().enumerate() {
            match a {
                RTerm::Var(v) if !seen.contains(v) => {
                    seen.push(*v);
                    let id = self.var_ident(rule, *v);
                    pats.push(quote!(#id));
                }
                other => {
                    let fresh = format_ident!("a_{}", j);
                    let val = self.term(rule, *other);
                    conds.push(quote!(#fresh == #val));
                    pats.push(quote!(#fresh));
                }
            }
        }
        for &c in &step.local {
            conds.push(self.comparison(rule, c));
        }
        (quote!(&(case, #(#pats,)*)), conds)
    }

    fn vars_tuple(&self, rule: &RRule, vars: &[usize]) -> TokenStream {
        let ids = vars.iter().map(|&v| self.var_ident(rule, v));
        quote!((#(#ids,)*))
    }

    fn head_tuple(&self, rule: &RRule) -> TokenStream {
        if self.binding_mode {
            let all = binding_vars(rule);
            let ids = all.iter().map(|&v| self.var_ident(rule, v));
            return quote!((case, #(#ids,)*));
        }
        let args = rule.head.args.iter().map(|a| self.term(rule, *a));
        quote!((case, #(#args,)*))
    }

    fn keyed(&self, rule: &RRule, key: &[usize], rest: &[usize]) -> TokenStream {
        let k = key.iter().map(|&v| self.var_ident(rule, v));
        let r = self.vars_tuple(rule, rest);
        quote!(((case, #(#k,)*), #r))
    }

    fn keyed_ty(&self, rule: &RRule, key: &[usize], rest: &[usize]) -> TokenStream {
        let k = key.iter().map(|&v| self.ty(rule.vars[v].1));
        let r = self.vars_ty(rule, rest);
        quote!(((CaseId, #(#k,)*), #r))
    }

    fn filtered(conds: &[TokenStream], out: TokenStream) -> TokenStream {
        if conds.is_empty() {
            quote!(Some(#out))
        } else {
            quote!(if #(#conds)&&* { Some(#out) } else { None })
        }
    }

    fn rule_comment(&mut self, ri: usize, mode: Mode) -> TokenStream {
        let r = &self.p.rules[ri];
        if self.binding_mode {
            let what = if mode == Mode::Definite {
                "definite premises"
            } else {
                "applicable premises (or, for a strict rule, definite ones: the +D layers passed instead)"
            };
            let text = format!("{}: every instance with {what}", r.id);
            return self.comment(text);
        }
        let anchors: Vec<String> = r.anchors.iter().map(|&f| self.p.fragments[f].locator.clone()).collect();
        let strength = match r.strength {
            Strength::Strict => "strict",
            Strength::Defeasible => "defeasible",
            Strength::Defeater => "defeater",
        };
        let plan = &self.plans[ri];
        let order: Vec<String> = plan.steps.iter().map(|s| self.p.show_literal(r, &s.literal)).collect();
        let what = match mode {
            Mode::Definite => "+D from definite premises",
            Mode::Applicable => "applicability (+S/+d premises)",
        };
        let mut text = format!(
            "{} ({strength}){}\n{}\n{}\njoin order: {}; {what}",
            r.id,
            if anchors.is_empty() { String::new() } else { format!(", {}", anchors.join(", ")) },
            r.label,
            self.p.show_rule(r),
            if order.is_empty() { "no body literal (one per case)".to_string() } else { order.join(" ⋈ ") },
        );
        if plan.never {
            text.push_str("\nthis rule can never apply (its body is false)");
        }
        self.comment(text)
    }

    /// Whether any of `rules` reads, in `mode`, a relation its stratum `si` is still computing
    /// (then it needs datafrog's iteration; otherwise it is joined straight over final relations).
    fn reads_own_stratum(&self, rules: &[usize], mode: Mode, si: usize) -> bool {
        rules.iter().any(|&ri| self.plans[ri].steps.iter().any(|step| self.source(step, mode, si).1))
    }

    /// The relation or variable a body literal reads, and whether it changes in this iteration.
    fn source(&self, step: &Step, mode: Mode, stratum: usize) -> (Ident, bool) {
        let l = &step.literal;
        let layer = match (mode, step.status) {
            (Mode::Definite, _) => Layer::Definite,
            (Mode::Applicable, Status::Established) => Layer::Concluded,
            (Mode::Applicable, Status::Supported) => Layer::Supported,
        };
        let dynamic =
            self.s.rels[l.rel].stratum == stratum && !(mode == Mode::Applicable && self.s.rels[l.rel].collapsed);
        (self.layer_name(l.rel, l.negative, layer), dynamic)
    }

    /// The statements of one rule: `setup` runs before the loop, `body` in every round.
    /// The rule's head tuples go into the variable `out`.
    fn rule_block(&mut self, ri: usize, mode: Mode, stratum: usize, out: &Ident) -> (TokenStream, TokenStream) {
        let comment = self.rule_comment(ri, mode);
        let rule = &self.p.rules[ri];
        let plan = if self.binding_mode { self.binding_plans[ri].clone() } else { self.plans[ri].clone() };
        if plan.never {
            return (comment, TokenStream::new());
        }
        let rid = self.rule_ident[ri].clone();
        let rid = &rid;
        let mut setup = self.naf_sets(ri);
        let mut body = TokenStream::new();
        if plan.steps.is_empty() {
            let head = self.head_tuple(rule);
            let conds: Vec<TokenStream> = (0..rule.body.len())
                .filter(|&i| match &rule.body[i] {
                    RItem::Not(_) => true,
                    RItem::Comparison(_, a, b) => !matches!((a, b), (RTerm::Int(_), RTerm::Int(_))),
                    _ => false,
                })
                .map(|i| self.comparison(rule, i))
                .collect();
            let kept = Self::filtered(&conds, head);
            setup = quote! {
                #comment
                #setup
                #out.extend(cases.iter().filter_map(|&(case,)| #kept));
            };
            return (setup, body);
        }
        let n = plan.steps.len();
        let mut acc: Option<Ident> = None;
        let mut acc_vars: Vec<usize> = Vec::new();
        for (i, step) in plan.steps.iter().enumerate() {
            let last = i + 1 == n;
            let next_key: Vec<usize> = if last { Vec::new() } else { plan.steps[i + 1].key.clone() };
            let (src, dynamic) = self.source(step, mode, stratum);
            let (pat, conds) = self.literal_pattern(rule, step);
            if i == 0 {
                // The first literal: filtered and keyed for the next join, or mapped to the head.
                let rest: Vec<usize> = step.carry.iter().copied().filter(|v| !next_key.contains(v)).collect();
                let (target, target_decl, value) = if last {
                    (out.clone(), TokenStream::new(), self.head_tuple(rule))
                } else {
                    let name = format_ident!("{}_{}", rid, i + 1);
                    let ty = self.keyed_ty(rule, &next_key, &rest);
                    let decl = quote! { let #name = iteration.variable::<#ty>(stringify!(#name)); };
                    (name, decl, self.keyed(rule, &next_key, &rest))
                };
                let kept = Self::filtered(&conds, value);
                if self.straight && !last {
                    let ty = self.keyed_ty(rule, &next_key, &rest_of(&step.carry, &next_key));
                    setup.extend(quote! {
                        let #target: Relation<#ty> = #src.iter().filter_map(|#pat| #kept).collect();
                    });
                    acc = Some(target);
                    acc_vars = step.carry.clone();
                    continue;
                }
                setup.extend(target_decl);
                if dynamic {
                    body.extend(quote! { ::clir::rt::filter_map_into(&#src, &#target, |#pat| #kept); });
                } else {
                    setup.extend(quote! { #target.extend(#src.iter().filter_map(|#pat| #kept)); });
                }
                acc = Some(target);
                acc_vars = step.carry.clone();
                continue;
            }
            // Later literals: keyed on the shared variables, joined with what is accumulated.
            let view = format_ident!("{}_{}_{}", rid, i + 1, self.rel_ident[step.literal.rel]);
            let view_ty = self.keyed_ty(rule, &step.key, &step.new);
            let view_val = Self::filtered(&conds, self.keyed(rule, &step.key, &step.new));
            if dynamic {
                setup.extend(quote! { let #view = iteration.variable::<#view_ty>(stringify!(#view)); });
                body.extend(quote! { ::clir::rt::filter_map_into(&#src, &#view, |#pat| #view_val); });
            } else {
                setup.extend(quote! {
                    let #view: Relation<#view_ty> = #src.iter().filter_map(|#pat| #view_val).collect();
                });
            }
            let acc_id = acc.clone().expect("accumulated");
            let acc_rest: Vec<usize> = acc_vars.iter().copied().filter(|v| !step.key.contains(v)).collect();
            let key_ids = step.key.iter().map(|&v| self.var_ident(rule, v));
            let a_pat = self.vars_tuple(rule, &acc_rest);
            let n_pat = self.vars_tuple(rule, &step.new);
            let join_pat = quote!(|&(case, #(#key_ids,)*), &#a_pat, &#n_pat|);
            let (value, target_ty) = if last {
                (self.head_tuple(rule), None)
            } else {
                let rest: Vec<usize> = step.carry.iter().copied().filter(|v| !next_key.contains(v)).collect();
                (self.keyed(rule, &next_key, &rest), Some(self.keyed_ty(rule, &next_key, &rest)))
            };
            let target = if last { out.clone() } else { format_ident!("{}_{}", rid, i + 1) };
            if self.straight {
                // Comparisons across literals filter the joined pairs in the join itself.
                let conds: Vec<TokenStream> = step.after.iter().map(|&c| self.comparison(rule, c)).collect();
                let kept = Self::filtered(&conds, value);
                if last {
                    setup.extend(quote! { ::clir::rt::join_into(&#acc_id, &#view, &mut #out, #join_pat #kept); });
                } else {
                    setup.extend(quote! { let #target = ::clir::rt::join(&#acc_id, &#view, #join_pat #kept); });
                }
                acc = Some(target);
                acc_vars = step.carry.clone();
                continue;
            }
            if let Some(t) = &target_ty {
                setup.extend(quote! { let #target = iteration.variable::<#t>(stringify!(#target)); });
            }
            if step.after.is_empty() {
                body.extend(quote! { #target.from_join(&#acc_id, &#view, #join_pat #value); });
            } else {
                // Comparisons across literals filter the joined tuple.
                let mut raw_vars = step.carry.clone();
                for &c in &step.after {
                    for v in rule.filter_vars(&rule.body[c]) {
                        if !raw_vars.contains(&v) {
                            raw_vars.push(v);
                        }
                    }
                }
                let raw = format_ident!("{}_{}_joined", rid, i + 1);
                let raw_ty = self.vars_ty(rule, &raw_vars);
                let raw_ids: Vec<Ident> = raw_vars.iter().map(|&v| self.var_ident(rule, v)).collect();
                let conds: Vec<TokenStream> = step.after.iter().map(|&c| self.comparison(rule, c)).collect();
                let kept = Self::filtered(&conds, value);
                let raw_cols = raw_vars.iter().map(|&v| self.ty(rule.vars[v].1));
                let _ = raw_ty;
                setup.extend(quote! {
                    let #raw = iteration.variable::<(CaseId, #(#raw_cols,)*)>(stringify!(#raw));
                });
                body.extend(quote! {
                    #raw.from_join(&#acc_id, &#view, #join_pat (case, #(#raw_ids,)*));
                    ::clir::rt::filter_map_into(&#raw, &#target, |&(case, #(#raw_ids,)*)| #kept);
                });
            }
            acc = Some(target);
            acc_vars = step.carry.clone();
        }
        if !body.is_empty() {
            let id = self.comment(self.p.rules[ri].id.clone());
            body = quote! { #id #body };
        }
        (quote! { #comment #setup }, body)
    }

    fn module(&mut self) -> TokenStream {
        let p = self.p;
        let header = format!(
            "Generated by clir from {} {} ({}). Do not edit: regenerate with `clir compile`.",
            p.name, p.version, self.seal
        );
        let types = self.types_and_constants();
        let schema = self.schema();
        let evaluate = self.evaluate_fn();
        let api = self.typed_api();
        let header = self.comment(header);
        let items = std::mem::take(&mut self.items);
        quote! {
            #header
            use ::clir::rt::Relation;
            use ::clir::CaseId;
            #types
            #schema
            #api
            #evaluate
            #items
        }
    }

    fn types_and_constants(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (i, t) in self.p.types.iter().enumerate() {
            let id = ident(&self.type_ident[i]);
            let doc = comment_text(&format!("Entity type `{}`: {}", t.name, t.label));
            let consts = self.p.constants.iter().enumerate().filter(|(_, c)| c.ty == i).map(|(ci, c)| {
                let k = ident(&self.const_ident[ci]);
                let idx = Literal::u32_unsuffixed(ci as u32);
                let doc = comment_text(&format!("The constant `{}`.", c.name));
                quote! { #[doc = #doc] pub const #k: #id = #id(::clir::Sym(#idx)); }
            });
            out.extend(quote! {
                ::clir::entity_type!(#[doc = #doc] #id);
                impl #id { #(#consts)* }
            });
        }
        out
    }

    fn schema(&self) -> TokenStream {
        let p = self.p;
        let rel_consts: Vec<TokenStream> = (0..p.relations.len())
            .map(|ri| {
                let k = self.rel_const(ri);
                let doc = comment_text(&format!("`{}`: its index in [`SCHEMA`]`.relations`.", p.relations[ri].name));
                let ix = Literal::usize_unsuffixed(ri);
                quote! { #[doc = #doc] pub const #k: usize = #ix; }
            })
            .collect();
        let rels = p.relations.iter().map(|r| {
            let name = string_literal(&r.name);
            let kind = match r.kind {
                RelationKind::Empirical => quote!(Empirical),
                RelationKind::Judgment => quote!(Judgment),
                RelationKind::Institutional => quote!(Institutional),
            };
            let params = r.params.iter().map(|(n, t)| {
                let n = string_literal(n);
                let tn = string_literal(p.type_name(*t));
                let int = *t == Ty::Integer;
                quote!(::clir::ParamInfo { name: #n, ty: #tn, integer: #int })
            });
            let cap = match &r.capability {
                Some(c) => {
                    let c = string_literal(c);
                    quote!(Some(#c))
                }
                None => quote!(None),
            };
            quote!(::clir::RelationInfo { name: #name, kind: ::clir::RelationKind::#kind, params: &[#(#params),*], capability: #cap })
        });
        let consts = p
            .constants
            .iter()
            .map(|c| (c.name.as_str(), p.types[c.ty].name.as_str()))
            .chain(self.string_consts.iter().map(|s| (s.as_str(), "String")))
            .map(|(n, t)| {
                let (n, t) = (string_literal(n), string_literal(t));
                quote!(::clir::ConstantInfo { name: #n, ty: #t })
            });
        let rules = p.rules.iter().map(|r| {
            let id = string_literal(&r.id);
            let label = string_literal(&r.label);
            let strength = string_literal(match r.strength {
                Strength::Strict => "strict",
                Strength::Defeasible => "defeasible",
                Strength::Defeater => "defeater",
            });
            let anchors = r.anchors.iter().map(|&f| {
                let fid = string_literal(&p.fragments[f].id);
                let loc = string_literal(&p.fragments[f].locator);
                let cite = string_literal(&citation(&r.label, &p.fragments[f].text));
                quote!(::clir::AnchorInfo { id: #fid, locator: #loc, citation: #cite })
            });
            quote!(::clir::RuleInfo { id: #id, label: #label, strength: #strength, anchors: &[#(#anchors),*] })
        });
        let priorities = p.superiority.iter().map(|x| {
            let id = string_literal(&x.id);
            let label = string_literal(&x.label);
            let (h, l) = (Literal::u32_unsuffixed(x.higher as u32), Literal::u32_unsuffixed(x.lower as u32));
            quote!(::clir::PriorityInfo { id: #id, label: #label, higher: #h, lower: #l })
        });
        let closures = p.closures.iter().map(|c| {
            let id = string_literal(&c.id);
            let label = string_literal(&c.label);
            let snap = string_literal(c.snapshot.as_deref().unwrap_or(""));
            let asof = string_literal(c.complete_as_of.as_deref().unwrap_or(""));
            quote!(::clir::ClosureInfo { id: #id, label: #label, snapshot: #snap, complete_as_of: #asof })
        });
        let name = string_literal(&p.name);
        let version = string_literal(&p.version);
        let seal = string_literal(&self.seal);
        quote! {
            #(#rel_consts)*

            /// What this package declares: relations, constants and rules.
            pub static SCHEMA: ::clir::Schema = ::clir::Schema {
                package: #name,
                version: #version,
                seal: #seal,
                relations: &[#(#rels),*],
                constants: &[#(#consts),*],
                rules: &[#(#rules),*],
                priorities: &[#(#priorities),*],
                closures: &[#(#closures),*],
            };

            /// The package, for the runtime's batch and JSONL paths.
            pub struct Package;

            impl ::clir::Package for Package {
                fn schema(&self) -> &'static ::clir::Schema {
                    &SCHEMA
                }
                fn evaluate(&self, batch: &::clir::Batch) -> ::clir::Output {
                    evaluate(batch)
                }
            }
        }
    }

    fn evaluate_fn(&mut self) -> TokenStream {
        let p = self.p;
        // Every relation the evaluation binds, in order: the fields of `Layers`.
        let mut bound = Bound::default();
        let mut init: Vec<TokenStream> = Vec::new();
        init.push(quote!(cases: (0..batch.cases).map(|c| (CaseId(c),)).collect()));
        bound.bind(format_ident!("cases"), quote!(Relation<(CaseId,)>), false);
        for (ri, r) in p.relations.iter().enumerate() {
            if r.kind == RelationKind::Institutional {
                continue;
            }
            let ty = self.tuple_ty(ri);
            let k = self.rel_const(ri);
            for neg in [false, true] {
                let name = self.input_name(ri, neg);
                bound.bind(name.clone(), quote!(Relation<#ty>), true);
                init.push(quote!(#name: batch.input::<#ty>(#k, #neg)));
            }
        }
        let inputs = bound.names.len();
        let mut strata: Vec<TokenStream> = Vec::new();
        for si in 0..self.s.strata.len() {
            let st = &self.s.strata[si];
            let outputs = self.stratum_outputs(si);
            if st.rules.is_empty() && st.closures.is_empty() {
                // Input facts only: their +D is the input, and +S and +d coincide with it.
                for &rel in &st.rels {
                    for neg in [false, true] {
                        if self.s.rels[rel].input {
                            let name = self.layer_name(rel, neg, Layer::Definite);
                            let i = self.input_name(rel, neg);
                            strata.push(quote! { l.#name = ::clir::rt::take(&mut l.#i); });
                        }
                    }
                }
            } else {
                let block = self.stratum(si);
                let name = format_ident!("evaluate_stratum_{}", si);
                strata.push(self.outline(name, block, &outputs, &bound));
            }
            for (name, ty) in outputs {
                bound.bind(name, ty, false);
            }
        }
        for (name, _, _) in &bound.names[inputs..] {
            init.push(quote!(#name: Relation::from_vec(Vec::new())));
        }
        let fields = bound.names.iter().map(|(n, ty, _)| quote!(#n: #ty));
        self.items.extend(quote! {
            /// Every relation of the evaluation: the inputs, then each stratum's layers once it
            /// has computed them (empty before). A layer no later step reads is still kept.
            #[allow(dead_code)]
            struct Layers {
                #(#fields,)*
            }
        });
        let strata = self.chunked("evaluate_strata", quote!(l: &mut Layers), strata);
        let mut out = Vec::new();
        for (ri, r) in p.relations.iter().enumerate() {
            let k = self.rel_const(ri);
            if r.kind == RelationKind::Institutional {
                for neg in [false, true] {
                    let d = self.layer_name(ri, neg, Layer::Concluded);
                    let dd = self.layer_name(ri, neg, Layer::Definite);
                    out.push(quote! { out.conclude(#k, #neg, &l.#d, &l.#dd); });
                }
            }
            let pos = self.layer_name(ri, false, Layer::Definite);
            let neg = self.layer_name(ri, true, Layer::Definite);
            out.push(quote! { out.contradict(#k, &l.#pos, &l.#neg); });
        }
        let out = self.chunked("write_conclusions", quote!(l: &Layers, out: &mut ::clir::Output), out);
        let explain = if self.explanations {
            let stmts = self.explain_block(&bound);
            let calls = self.chunked("explain", quote!(l: &Layers, instances: &mut Vec<::clir::Instance>), stmts);
            let comment = self.comment(
                "Explanations: every instance of every rule over the final relations (definite premises for strict rules, applicable premises for all), and every closure negative".to_string(),
            );
            quote! {
                #comment
                let mut instances: Vec<::clir::Instance> = Vec::new();
                #(#calls(&l, &mut instances);)*
                out.instances = instances;
            }
        } else {
            self.comment("Compiled without explanations (`clir compile --no-explanations`)".to_string())
        };
        quote! {
            /// Rules a batch of cases: every stratum, in order, over all cases at once.
            pub fn evaluate(batch: &::clir::Batch) -> ::clir::Output {
                let mut l = Layers { #(#init,)* };
                #(#strata(&mut l);)*
                let mut out = ::clir::Output::new(SCHEMA.relations.len());
                #(#out(&l, &mut out);)*
                if batch.explain {
                    #explain
                }
                out
            }
        }
    }

    /// Splits `stmts` into functions `<prefix>_<k>` of the module of at most [`CHUNK`] statements
    /// each, taking `params`; returns their paths, to be called in order.
    fn chunked(&mut self, prefix: &str, params: TokenStream, stmts: Vec<TokenStream>) -> Vec<TokenStream> {
        let mut calls = Vec::new();
        for (k, part) in stmts.chunks(CHUNK).enumerate() {
            let name = format_ident!("{}_{}", prefix, k);
            self.items.extend(quote! {
                fn #name(#params) {
                    #(#part)*
                }
            });
            calls.push(quote!(self::#name));
        }
        calls
    }

    /// The relations stratum `si` binds for what follows: each layer of its relations (both
    /// signs) and its closures' negatives.
    fn stratum_outputs(&self, si: usize) -> Vec<(Ident, TokenStream)> {
        let st = &self.s.strata[si];
        let mut out: Vec<(Ident, TokenStream)> = Vec::new();
        let mut add = |name: Ident, ty: TokenStream| {
            if !out.iter().any(|(n, _)| *n == name) {
                out.push((name, ty));
            }
        };
        for &rel in &st.rels {
            let ty = self.tuple_ty(rel);
            for neg in [false, true] {
                for layer in [Layer::Definite, Layer::Supported, Layer::Concluded] {
                    add(self.layer_name(rel, neg, layer), quote!(Relation<#ty>));
                }
            }
        }
        for &ci in &st.closures {
            let c = &self.p.closures[ci];
            let ty = self.tuple_ty(c.rel);
            add(format_ident!("closure_{}_{}", ci, self.rel_ident[c.rel]), quote!(Relation<#ty>));
        }
        out
    }

    /// Moves `body` into a function `name` of the module whose parameters are `extra`, then
    /// the bound relations it reads (by reference; inputs by value); returns those, in order,
    /// with whether each is moved.
    fn outline_fn(&mut self, name: &Ident, body: TokenStream, bound: &Bound, extra: TokenStream) -> Vec<(Ident, bool)> {
        let used = bound.used_by(&body);
        let params = used.iter().map(|(n, ty, moved)| if *moved { quote!(#n: #ty) } else { quote!(#n: &#ty) });
        self.items.extend(quote! {
            #[allow(unused_variables, unused_mut, clippy::all)]
            fn #name(#extra, #(#params),*) {
                #body
            }
        });
        used.into_iter().map(|(n, _, moved)| (n.clone(), *moved)).collect()
    }

    /// Moves a stratum's `body` into a function `name` of the module that takes the bound
    /// relations it reads (by reference; input relations by value) and returns `outputs`;
    /// returns the statement that calls it and stores its outputs in `l`.
    fn outline(
        &mut self,
        name: Ident,
        body: TokenStream,
        outputs: &[(Ident, TokenStream)],
        bound: &Bound,
    ) -> TokenStream {
        let used = bound.used_by(&body);
        let params = used.iter().map(|(n, ty, moved)| if *moved { quote!(#n: #ty) } else { quote!(#n: &#ty) });
        let args = used.iter().map(|(n, _, moved)| layer_arg(n, *moved));
        let names: Vec<&Ident> = outputs.iter().map(|(n, _)| n).collect();
        let types: Vec<&TokenStream> = outputs.iter().map(|(_, t)| t).collect();
        self.items.extend(quote! {
            #[allow(unused_variables, unused_mut, clippy::all)]
            fn #name(#(#params),*) -> (#(#types,)*) {
                #body
                (#(#names,)*)
            }
        });
        quote! { (#(l.#names,)*) = self::#name(#(#args),*); }
    }

    fn flat_term(&self, rule: &RRule, t: RTerm) -> TokenStream {
        let v = self.term(rule, t);
        match t {
            RTerm::Int(_) | RTerm::Arith(_) => v,
            _ => quote!(::clir::Column::to_flat(#v)),
        }
    }

    /// The function `name` adding to `instances` every instance of rule `ri`, its joins read in
    /// `mode`'s layers and its premises recorded in the layers its `definite` argument says.
    fn explain_rule_fn(&mut self, ri: usize, mode: Mode, name: &Ident, bound: &Bound) -> Vec<(Ident, bool)> {
        let p = self.p;
        let out = format_ident!("instances_of_{}", self.rule_ident[ri]);
        self.straight = true;
        let (setup, _) = self.rule_block(ri, mode, usize::MAX, &out);
        self.straight = false;
        let rule = &p.rules[ri];
        let all = binding_vars(rule);
        let cols = all.iter().map(|&v| self.ty(rule.vars[v].1));
        let ids: Vec<Ident> = all.iter().map(|&v| self.var_ident(rule, v)).collect();
        let head_args: Vec<TokenStream> = rule.head.args.iter().map(|a| self.flat_term(rule, *a)).collect();
        let premises: Vec<TokenStream> = rule
            .body
            .iter()
            .filter_map(|it| match it {
                RItem::Literal(st, l) => {
                    let layer = match st {
                        Status::Established => quote!(established),
                        Status::Supported => quote!(supported),
                    };
                    let args = l.args.iter().map(|a| self.flat_term(rule, *a)).collect();
                    Some(self.premise_in(l.rel, l.negative, layer, args))
                }
                _ => None,
            })
            .collect();
        let rix = Literal::usize_unsuffixed(ri);
        let hrel = self.rel_const(rule.head.rel);
        let hneg = rule.head.negative;
        let block = quote! {
            let (established, supported) = if definite {
                (::clir::Layer::Definite, ::clir::Layer::Definite)
            } else {
                (::clir::Layer::Concluded, ::clir::Layer::Supported)
            };
            let mut #out: Vec<(CaseId, #(#cols,)*)> = Vec::new();
            #setup
            let #out = Relation::from_vec(#out);
            for &(case, #(#ids,)*) in #out.iter() {
                let premises = vec![#(#premises),*];
                instances.push(::clir::Instance::rule(#rix, definite, case, (#hrel, #hneg), vec![#(#head_args),*], premises));
            }
        };
        let extra = quote!(instances: &mut Vec<::clir::Instance>, definite: bool);
        self.outline_fn(name, block, bound, extra)
    }

    /// A premise whose layer is the value of the expression `layer`.
    fn premise_in(&self, rel: usize, negative: bool, layer: TokenStream, args: Vec<TokenStream>) -> TokenStream {
        let k = self.rel_const(rel);
        quote!(::clir::Premise::new(#k, #negative, #layer, vec![#(#args),*]))
    }

    fn premise(&self, rel: usize, negative: bool, layer: Layer, args: Vec<TokenStream>) -> TokenStream {
        let k = self.rel_const(rel);
        let layer = match layer {
            Layer::Definite => quote!(Definite),
            Layer::Supported => quote!(Supported),
            Layer::Concluded => quote!(Concluded),
        };
        quote!(::clir::Premise::new(#k, #negative, ::clir::Layer::#layer, vec![#(#args),*]))
    }

    /// Every instance of every rule over the final relations, and every closure negative:
    /// what explanations of minimal height are chosen from.
    fn explain_block(&mut self, bound: &Bound) -> Vec<TokenStream> {
        let p = self.p;
        let mut stmts: Vec<TokenStream> = Vec::new();
        self.binding_mode = true;
        for ri in 0..p.rules.len() {
            let rule = &p.rules[ri];
            if binding_vars(rule).len() > MAX_BINDING_VARS {
                let c = self.comment(format!(
                    "{}: more than {MAX_BINDING_VARS} variables; its instances are not explained",
                    rule.id
                ));
                stmts.push(c);
                continue;
            }
            // One function per rule, over the layers of its applicability; a strict rule's +D
            // instances are the same joins over the definite layers, passed in their place.
            let mut definite_layers: Vec<(Ident, Ident)> = Vec::new();
            let mut shared = true;
            for step in &self.binding_plans[ri].steps {
                let (applicable, _) = self.source(step, Mode::Applicable, usize::MAX);
                let (definite, _) = self.source(step, Mode::Definite, usize::MAX);
                match definite_layers.iter().find(|(a, _)| *a == applicable) {
                    Some((_, d)) if *d != definite => shared = false,
                    Some(_) => {}
                    None => definite_layers.push((applicable, definite)),
                }
            }
            // A negation reads the concluded layer in both: it must not be replaced.
            for it in &rule.body {
                if let RItem::Not(l) = it {
                    let read = self.layer_name(l.rel, l.negative, Layer::Concluded);
                    if definite_layers.iter().any(|(a, d)| *a == read && a != d) {
                        shared = false;
                    }
                }
            }
            let name = format_ident!("explain_{}", self.rule_ident[ri]);
            let params = self.explain_rule_fn(ri, Mode::Applicable, &name, bound);
            stmts.push(explain_call(&name, false, &params, &[]));
            if rule.strength == Strength::Strict {
                if shared {
                    stmts.push(explain_call(&name, true, &params, &definite_layers));
                } else {
                    // A relation read in two layers that are one +D layer: its own joins.
                    let name = format_ident!("explain_{}_definite", self.rule_ident[ri]);
                    let params = self.explain_rule_fn(ri, Mode::Definite, &name, bound);
                    stmts.push(explain_call(&name, true, &params, &[]));
                }
            }
        }
        self.binding_mode = false;
        for (ci, c) in p.closures.iter().enumerate() {
            let closed = format_ident!("closure_{}_{}", ci, self.rel_ident[c.rel]);
            let n = c_arity(p, c.rel);
            let ids: Vec<Ident> = (0..n).map(|j| format_ident!("a_{}", j)).collect();
            let flat: Vec<TokenStream> = ids.iter().map(|i| quote!(::clir::Column::to_flat(#i))).collect();
            let dom = self.premise(c.domain, false, Layer::Concluded, flat.clone());
            let cix = Literal::usize_unsuffixed(ci);
            let rel = self.rel_const(c.rel);
            stmts.push(quote! {
                for &(case, #(#ids,)*) in l.#closed.iter() {
                    instances.push(::clir::Instance::closure(#cix, case, #rel, vec![#(#flat),*], #dom));
                }
            });
        }
        stmts
    }

    fn empty(&self, rel: usize) -> TokenStream {
        let ty = self.tuple_ty(rel);
        quote!(Relation::<#ty>::from_vec(Vec::new()))
    }

    fn stratum(&mut self, si: usize) -> TokenStream {
        let st = self.s.strata[si].clone();
        let p = self.p;
        let mut out = TokenStream::new();
        let rel_names: Vec<&str> = st.rels.iter().map(|&r| p.relations[r].name.as_str()).collect();
        let how = if st.collapsed {
            "+D = +S = +d"
        } else if st.contested {
            "contested: +D, then applicability of each rule and team defeat"
        } else {
            "+D, then the joint +S/+d fixpoint"
        };
        if st.rules.is_empty() && st.closures.is_empty() {
            // Input facts only: their +D is the input, and +S and +d coincide with it.
            for &rel in &st.rels {
                for neg in [false, true] {
                    let name = self.layer_name(rel, neg, Layer::Definite);
                    let init = if self.s.rels[rel].input {
                        let i = self.input_name(rel, neg);
                        quote!(#i)
                    } else {
                        self.empty(rel)
                    };
                    out.extend(quote! { let #name = #init; });
                }
            }
            return out;
        }
        let c = self.comment(format!(
            "Stratum {si}: {}{} ({how})",
            rel_names.join(", "),
            if st.recursive { ", recursive" } else { "" }
        ));
        out.extend(c);
        // +D
        let strict: Vec<usize> =
            st.rules.iter().copied().filter(|&r| p.rules[r].strength == Strength::Strict).collect();
        let mut d_names = Vec::new();
        for &rel in &st.rels {
            for neg in [false, true] {
                d_names.push((rel, neg, self.layer_name(rel, neg, Layer::Definite)));
            }
        }
        if strict.is_empty() {
            for (rel, neg, name) in &d_names {
                let init = if self.s.rels[*rel].input {
                    let i = self.input_name(*rel, *neg);
                    quote!(#i)
                } else {
                    self.empty(*rel)
                };
                out.extend(quote! { let #name = #init; });
            }
        } else if !self.reads_own_stratum(&strict, Mode::Definite, si) {
            // Every premise is final: each rule's joins in turn, into the relation's tuples.
            let mut stmts = TokenStream::new();
            for (rel, neg, name) in &d_names {
                let ty = self.tuple_ty(*rel);
                let init = if self.s.rels[*rel].input {
                    let i = self.input_name(*rel, *neg);
                    quote!(#i.elements)
                } else {
                    quote!(Vec::new())
                };
                stmts.extend(quote! { let mut #name: Vec<#ty> = #init; });
            }
            self.straight = true;
            for &ri in &strict {
                let target = self.layer_name(p.rules[ri].head.rel, p.rules[ri].head.negative, Layer::Definite);
                let (s, _) = self.rule_block(ri, Mode::Definite, si, &target);
                stmts.extend(s);
            }
            self.straight = false;
            for (_, _, name) in &d_names {
                stmts.extend(quote! { let #name = Relation::from_vec(#name); });
            }
            out.extend(stmts);
        } else {
            let mut setup = TokenStream::new();
            let mut body = TokenStream::new();
            for (rel, neg, name) in &d_names {
                let ty = self.tuple_ty(*rel);
                setup.extend(quote! { let #name = iteration.variable::<#ty>(stringify!(#name)); });
                if self.s.rels[*rel].input {
                    let i = self.input_name(*rel, *neg);
                    setup.extend(quote! { #name.insert(#i.clone()); });
                }
            }
            for &ri in &strict {
                let target = self.layer_name(p.rules[ri].head.rel, p.rules[ri].head.negative, Layer::Definite);
                let (s, b) = self.rule_block(ri, Mode::Definite, si, &target);
                setup.extend(s);
                body.extend(b);
            }
            let names: Vec<&Ident> = d_names.iter().map(|x| &x.2).collect();
            out.extend(quote! {
                let (#(#names,)*) = {
                    let mut iteration = ::clir::rt::Iteration::new();
                    #setup
                    while iteration.changed() {
                        #body
                    }
                    (#(#names.complete(),)*)
                };
            });
        }
        if !st.collapsed {
            if st.contested {
                out.extend(self.contested(si));
            } else {
                out.extend(self.supported_concluded(si));
            }
        }
        for &ci in &st.closures {
            out.extend(self.closure(ci));
        }
        out
    }

    /// The distinct +d and +S layers of `rels` (both signs), each with its tuple type and the +D
    /// layer it starts from.
    fn concluded_and_supported(&self, rels: &[usize]) -> Vec<(Ident, TokenStream, Ident)> {
        let mut out: Vec<(Ident, TokenStream, Ident)> = Vec::new();
        for &rel in rels {
            for neg in [false, true] {
                let d = self.layer_name(rel, neg, Layer::Definite);
                for layer in [Layer::Concluded, Layer::Supported] {
                    let name = self.layer_name(rel, neg, layer);
                    if !out.iter().any(|(n, _, _)| *n == name) {
                        out.push((name, self.tuple_ty(rel), d.clone()));
                    }
                }
            }
        }
        out
    }

    /// The joint +S/+d fixpoint of an uncontested stratum.
    fn supported_concluded(&mut self, si: usize) -> TokenStream {
        let st = self.s.strata[si].clone();
        let p = self.p;
        if !self.reads_own_stratum(&st.rules, Mode::Applicable, si) {
            return self.supported_concluded_straight(si);
        }
        let mut setup = TokenStream::new();
        let mut body = TokenStream::new();
        let mut finals: Vec<Ident> = Vec::new();
        for (name, ty, d) in self.concluded_and_supported(&st.rels) {
            setup.extend(quote! {
                let #name = iteration.variable::<#ty>(stringify!(#name));
                #name.insert(#d.clone());
            });
            finals.push(name);
        }
        for &ri in &st.rules {
            let rule = &p.rules[ri];
            let (rel, neg) = (rule.head.rel, rule.head.negative);
            let d = self.layer_name(rel, neg, Layer::Concluded);
            let s = self.layer_name(rel, neg, Layer::Supported);
            if d == s {
                let (a, b) = self.rule_block(ri, Mode::Applicable, si, &d);
                setup.extend(a);
                body.extend(b);
            } else {
                // +d unless the complement is definite; +S regardless.
                let app = format_ident!("{}_applies", self.rule_ident[ri]);
                let ty = self.tuple_ty(rel);
                let not_definite = self.layer_name(rel, !neg, Layer::Definite);
                setup.extend(quote! { let #app = iteration.variable::<#ty>(stringify!(#app)); });
                let (a, b) = self.rule_block(ri, Mode::Applicable, si, &app);
                setup.extend(a);
                body.extend(b);
                body.extend(quote! {
                    #s.from_map(&#app, |t| *t);
                    ::clir::rt::filter_map_into(&#app, &#d, |t| #not_definite.binary_search(t).is_err().then_some(*t));
                });
            }
        }
        quote! {
            let (#(#finals,)*) = {
                let mut iteration = ::clir::rt::Iteration::new();
                #setup
                while iteration.changed() {
                    #body
                }
                (#(#finals.complete(),)*)
            };
        }
    }

    /// [`Self::supported_concluded`] of a stratum whose rules read only lower strata: each
    /// rule's joins once, straight.
    fn supported_concluded_straight(&mut self, si: usize) -> TokenStream {
        let st = self.s.strata[si].clone();
        let p = self.p;
        let mut stmts = TokenStream::new();
        let mut finals: Vec<Ident> = Vec::new();
        for (name, ty, d) in self.concluded_and_supported(&st.rels) {
            stmts.extend(quote! { let mut #name: Vec<#ty> = #d.elements.clone(); });
            finals.push(name);
        }
        self.straight = true;
        for &ri in &st.rules {
            let rule = &p.rules[ri];
            let (rel, neg) = (rule.head.rel, rule.head.negative);
            let d = self.layer_name(rel, neg, Layer::Concluded);
            let s = self.layer_name(rel, neg, Layer::Supported);
            if d == s {
                let (a, _) = self.rule_block(ri, Mode::Applicable, si, &d);
                stmts.extend(a);
            } else {
                // +d unless the complement is definite; +S regardless.
                let app = format_ident!("{}_applies", self.rule_ident[ri]);
                let ty = self.tuple_ty(rel);
                let not_definite = self.layer_name(rel, !neg, Layer::Definite);
                let (a, _) = self.rule_block(ri, Mode::Applicable, si, &app);
                stmts.extend(quote! {
                    let mut #app: Vec<#ty> = Vec::new();
                    #a
                    #s.extend(#app.iter().copied());
                    #d.extend(#app.into_iter().filter(|t| #not_definite.binary_search(t).is_err()));
                });
            }
        }
        self.straight = false;
        for name in &finals {
            stmts.extend(quote! { let #name = Relation::from_vec(#name); });
        }
        stmts
    }

    /// A contested relation: each rule's applicability over lower strata, then team defeat.
    fn contested(&mut self, si: usize) -> TokenStream {
        let st = self.s.strata[si].clone();
        let p = self.p;
        let rel = st.rels[0];
        let mut setup = TokenStream::new();
        let mut body = TokenStream::new();
        let mut apps: Vec<Ident> = Vec::new();
        let ty = self.tuple_ty(rel);
        let straight = !self.reads_own_stratum(&st.rules, Mode::Applicable, si);
        let mut straight_stmts = TokenStream::new();
        for &ri in &st.rules {
            let app = format_ident!("{}_applies", self.rule_ident[ri]);
            if straight {
                self.straight = true;
                let (a, _) = self.rule_block(ri, Mode::Applicable, si, &app);
                self.straight = false;
                straight_stmts.extend(quote! {
                    let mut #app: Vec<#ty> = Vec::new();
                    #a
                    let #app = Relation::from_vec(#app);
                });
                apps.push(app);
                continue;
            }
            setup.extend(quote! { let #app = iteration.variable::<#ty>(stringify!(#app)); });
            let (a, b) = self.rule_block(ri, Mode::Applicable, si, &app);
            setup.extend(a);
            body.extend(b);
            apps.push(app);
        }
        let mut out = if straight {
            straight_stmts
        } else {
            quote! {
            let (#(#apps,)*) = {
                let mut iteration = ::clir::rt::Iteration::new();
                #setup
                while iteration.changed() {
                    #body
                }
                (#(#apps.complete(),)*)
            };
            }
        };
        let app_of = |ri: usize| apps[st.rules.iter().position(|&x| x == ri).expect("rule of stratum")].clone();
        for neg in [false, true] {
            let concl = |r: &RRule| r.head.negative == neg && r.strength != Strength::Defeater;
            let supporters: Vec<usize> = st.rules.iter().copied().filter(|&r| concl(&p.rules[r])).collect();
            let attackers: Vec<usize> = st.rules.iter().copied().filter(|&r| p.rules[r].head.negative != neg).collect();
            let d = self.layer_name(rel, neg, Layer::Definite);
            let not_d = self.layer_name(rel, !neg, Layer::Definite);
            let s = self.layer_name(rel, neg, Layer::Supported);
            let c = self.layer_name(rel, neg, Layer::Concluded);
            let sup_apps: Vec<Ident> = supporters.iter().map(|&r| app_of(r)).collect();
            let mut attacks = Vec::new();
            let mut comments = TokenStream::new();
            for &a in &attackers {
                let beaters: Vec<usize> = supporters
                    .iter()
                    .copied()
                    .filter(|&t| p.superiority.iter().any(|x| x.higher == t && x.lower == a))
                    .collect();
                let a_app = app_of(a);
                let text = format!(
                    "{} attacks {}{}: {}",
                    p.rules[a].id,
                    if neg { "~" } else { "" },
                    p.relations[rel].name,
                    if beaters.is_empty() {
                        "no rule ranks above it".to_string()
                    } else {
                        format!(
                            "beaten where {} applies",
                            beaters.iter().map(|&t| p.rules[t].id.as_str()).collect::<Vec<_>>().join(" or ")
                        )
                    }
                );
                comments.extend(self.comment(text));
                if beaters.is_empty() {
                    attacks.push(quote!(#a_app.clone()));
                } else {
                    let b_apps = beaters.iter().map(|&t| app_of(t));
                    attacks.push(quote!(::clir::rt::difference(&#a_app, &::clir::rt::union(&[#(&#b_apps),*]))));
                }
            }
            let sign = if neg { "~" } else { "" };
            let head = self.comment(format!(
                "{sign}{}: concluded when definite, or when a rule for it applies, {sign}{} is not the complement of a definite fact, and every applicable attack is beaten (team defeat)",
                p.relations[rel].name, p.relations[rel].name
            ));
            let candidates = format_ident!("{}_candidates", c);
            let unbeaten = format_ident!("{}_unbeaten_attacks", c);
            let candidates_init =
                if sup_apps.is_empty() { self.empty(rel) } else { quote!(::clir::rt::union(&[#(&#sup_apps),*])) };
            let unbeaten_init =
                if attacks.is_empty() { self.empty(rel) } else { quote!(::clir::rt::union(&[#(&#attacks),*])) };
            let s_stmt = if s == c {
                TokenStream::new()
            } else {
                quote! { let #s = ::clir::rt::union(&[&#d, &#candidates]); }
            };
            out.extend(quote! {
                #head
                let #candidates = #candidates_init;
                #comments
                let #unbeaten = #unbeaten_init;
                #s_stmt
                let #c = ::clir::rt::union(&[
                    &#d,
                    &::clir::rt::difference(&::clir::rt::difference(&#candidates, &#not_d), &#unbeaten),
                ]);
            });
        }
        out
    }

    fn closure(&mut self, ci: usize) -> TokenStream {
        let p = self.p;
        let c = &p.closures[ci];
        let comment = self.comment(format!(
            "Closure {} ({}): ~{} for every concluded {} that {} does not even support{}",
            c.id,
            c.label,
            p.relations[c.rel].name,
            p.relations[c.domain].name,
            p.relations[c.rel].name,
            c.snapshot.as_deref().map(|s| format!("; snapshot {s}")).unwrap_or_default()
        ));
        let dom = self.layer_name(c.domain, false, Layer::Concluded);
        let sup = self.layer_name(c.rel, false, Layer::Supported);
        let closed = format_ident!("closure_{}_{}", ci, self.rel_ident[c.rel]);
        let mut stmts = quote! {
            #comment
            let #closed = ::clir::rt::difference(&#dom, &#sup);
        };
        let mut done: Vec<Ident> = Vec::new();
        for layer in [Layer::Definite, Layer::Supported, Layer::Concluded] {
            let name = self.layer_name(c.rel, true, layer);
            if done.contains(&name) {
                continue;
            }
            stmts.extend(quote! { let #name = ::clir::rt::union(&[&#name, &#closed]); });
            done.push(name);
        }
        stmts
    }

    /// The typed API's method name for a relation: its name, unless an entity constructor or a
    /// method of the API already has it.
    fn method_base(&self, rel: usize) -> String {
        self.names.methods[rel].clone()
    }

    fn typed_api(&self) -> TokenStream {
        let p = self.p;
        let mut methods = TokenStream::new();
        let mut grants = TokenStream::new();
        let mut grant_types: Vec<(String, Ident)> = Vec::new();
        for (ri, r) in p.relations.iter().enumerate() {
            if r.kind == RelationKind::Institutional {
                continue;
            }
            let grant = if let Some(cap) = &r.capability {
                let g = match grant_types.iter().find(|(c, _)| c == cap) {
                    Some((_, g)) => g.clone(),
                    None => {
                        let g = ident(self.names.grant(cap).expect("every capability has a grant type"));
                        let doc = comment_text(&format!(
                            "The grant of capability `{cap}`: holding one is what allows judgment facts of that authority to be given."
                        ));
                        let capl = string_literal(cap);
                        grants.extend(quote! {
                            #[doc = #doc]
                            #[derive(Debug, Clone, Copy)]
                            pub struct #g { _granted: () }
                            impl #g {
                                /// The capability this grant stands for.
                                pub const CAPABILITY: &'static str = #capl;
                                /// Grants the capability: call only on the authority's behalf.
                                pub fn grant() -> Self { #g { _granted: () } }
                            }
                        });
                        grant_types.push((cap.clone(), g.clone()));
                        g
                    }
                };
                Some(g)
            } else {
                None
            };
            let params: Vec<Ident> =
                crate::names::parameters(r.params.iter().map(|(n, _)| n.as_str())).iter().map(|n| ident(n)).collect();
            let tys: Vec<TokenStream> = r.params.iter().map(|(_, t)| self.ty(*t)).collect();
            let ix = self.rel_const(ri);
            for neg in [false, true] {
                let m = format_ident!("{}{}", if neg { "not_" } else { "" }, self.method_base(ri));
                let doc = comment_text(&format!(
                    "Adds the fact `{}{}({})`{}.",
                    if neg { "~" } else { "" },
                    r.name,
                    r.params.iter().map(|(n, t)| format!("{n}: {}", p.type_name(*t))).collect::<Vec<_>>().join(", "),
                    if r.label.is_empty() { String::new() } else { format!(": {}", r.label) }
                ));
                let grant_arg = grant.as_ref().map(|g| quote!(_grant: &#g,));
                methods.extend(quote! {
                    #[doc = #doc]
                    pub fn #m(&mut self, #grant_arg #(#params: #tys),*) -> &mut Self {
                        self.batch.push(self.case, #ix, #neg, &[#(::clir::Column::to_flat(#params)),*]);
                        self
                    }
                });
            }
        }
        let mut entity_ctors = TokenStream::new();
        for (ti, t) in p.types.iter().enumerate() {
            let ty = ident(&self.type_ident[ti]);
            let m = ident(&self.names.entity_methods[ti]);
            let doc = comment_text(&format!(
                "The `{}` entity named `name` (a constant of that name when one is declared).",
                t.name
            ));
            entity_ctors.extend(quote! {
                #[doc = #doc]
                pub fn #m(&mut self, name: &str) -> #ty { #ty(self.batch.entity(name)) }
            });
        }
        let mut accessors = TokenStream::new();
        for (ri, r) in p.relations.iter().enumerate() {
            if r.kind != RelationKind::Institutional {
                continue;
            }
            let tys: Vec<TokenStream> = r.params.iter().map(|(_, t)| self.ty(*t)).collect();
            let k = self.rel_const(ri);
            for neg in [false, true] {
                let m = format_ident!("{}{}", if neg { "not_" } else { "" }, self.method_base(ri));
                let doc = comment_text(&format!("What was concluded of `{}{}`.", if neg { "~" } else { "" }, r.name));
                accessors.extend(quote! {
                    #[doc = #doc]
                    pub fn #m(&self) -> ::clir::Conclusions<(#(#tys,)*)> {
                        self.output.conclusions(#k, #neg, self.case)
                    }
                });
            }
        }
        quote! {
            #grants

            /// A batch of cases to rule together; entity names are local to their case.
            #[derive(Debug, Clone)]
            pub struct Cases {
                batch: ::clir::Batch,
            }

            impl Default for Cases {
                fn default() -> Self { Self::new() }
            }

            impl Cases {
                /// An empty batch.
                pub fn new() -> Self {
                    Cases { batch: ::clir::Batch::new(&SCHEMA) }
                }
                /// Starts a new case; its facts are added through the returned builder.
                pub fn case(&mut self) -> Case<'_> {
                    let case = self.batch.add_case();
                    Case { batch: &mut self.batch, case }
                }
                /// Rules every case of the batch.
                pub fn evaluate(&self) -> Rulings {
                    Rulings {
                        output: ::std::sync::Arc::new(evaluate(&self.batch)),
                        names: ::std::sync::Arc::new(self.batch.interner.clone()),
                        cases: self.batch.cases,
                    }
                }
            }

            /// The facts of one case.
            #[derive(Debug)]
            pub struct Case<'a> {
                batch: &'a mut ::clir::Batch,
                case: CaseId,
            }

            impl Case<'_> {
                /// This case's id within its batch.
                pub fn id(&self) -> CaseId { self.case }
                #entity_ctors
                #methods
            }

            /// The rulings of a batch.
            #[derive(Debug, Clone)]
            pub struct Rulings {
                output: ::std::sync::Arc<::clir::Output>,
                names: ::std::sync::Arc<::clir::Interner>,
                cases: u32,
            }

            impl Rulings {
                /// The ruling of case `case`.
                pub fn case(&self, case: CaseId) -> Ruling {
                    Ruling { output: self.output.clone(), names: self.names.clone(), case }
                }
                /// Number of cases.
                pub fn len(&self) -> usize { self.cases as usize }
                /// Whether the batch was empty.
                pub fn is_empty(&self) -> bool { self.cases == 0 }
            }

            /// The ruling of one case: per institutional relation and sign, what is concluded and
            /// what of it is definite.
            #[derive(Debug, Clone)]
            pub struct Ruling {
                output: ::std::sync::Arc<::clir::Output>,
                names: ::std::sync::Arc<::clir::Interner>,
                case: CaseId,
            }

            impl Ruling {
                /// Literals of any relation whose both signs are definite, written `name(a,b)`, sorted.
                pub fn contradictions(&self) -> Vec<String> {
                    ::clir::batch::case_contradictions(&SCHEMA, &self.output, &self.names, self.case)
                }
                #accessors
            }
        }
    }
}
