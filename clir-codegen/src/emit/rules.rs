//! One function per rule: its joins as nested loops over its operands, as the plan orders and
//! keys them, handing every binding of the rule's variables to `found`. Each layer of
//! evaluation, each semi-naive round and each explanation calls it with the relations it reads.

use super::{ident, Emitter};
use crate::names::RuleLocals;
use crate::plan::{Access, RulePlan, Step};
use crate::resolve::{RItem, RTerm};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// One level of a rule's nested loops: its `for` header and the statements inside it.
struct Level {
    header: TokenStream,
    body: Vec<TokenStream>,
    /// Conditions under which the binding so far is skipped, tested in one `if`.
    fails: Vec<TokenStream>,
}

impl Level {
    fn new(header: TokenStream) -> Level {
        Level { header, body: Vec::new(), fails: Vec::new() }
    }

    /// Adds `stmt` after the tests so far.
    fn push(&mut self, stmt: TokenStream) {
        let fails = std::mem::take(&mut self.fails);
        if !fails.is_empty() {
            self.body.push(quote! { if #(#fails)||* { continue; } });
        }
        self.body.push(stmt);
    }
}

impl Emitter<'_> {
    /// The function of every rule that can apply, and of each of its semi-naive rounds.
    pub(super) fn rule_fns(&mut self) -> TokenStream {
        let mut out = TokenStream::new();
        for ri in 0..self.p.rules.len() {
            if self.plan.rules[ri].never {
                continue;
            }
            let comment = self.rule_comment(ri);
            let (rp, locals) = (self.plan.rules[ri].clone(), self.locals[ri].clone());
            let f = self.rule_fn(ri, &rp, &locals, self.rule_fn_name(ri));
            out.extend(quote! { #comment #f });
            for (k, (j, rp)) in self.plan.rounds[ri].clone().into_iter().enumerate() {
                if !self.plan.round_has_own_fn(ri, j) {
                    continue;
                }
                let r = self.renamed(ri);
                let text = format!(
                    "{}, in a semi-naive round: from the last round's {}\nplan: {}",
                    r.id,
                    self.p.show_literal(&r, &rp.operands[j].literal),
                    rp.show_with(self.p, &r)
                );
                let comment = self.comment(text);
                let locals = self.round_locals[ri][k].clone();
                let f = self.rule_fn(ri, &rp, &locals, self.round_fn_name(ri, j));
                out.extend(quote! { #comment #f });
            }
        }
        out
    }

    /// The identifier of rule `ri`'s function.
    pub(super) fn rule_fn_name(&self, ri: usize) -> Ident {
        format_ident!("rule_{}", self.names.rules[ri])
    }

    /// The identifier of rule `ri`'s function for a semi-naive round from its operand `j`.
    pub(super) fn round_fn_name(&self, ri: usize, j: usize) -> Ident {
        format_ident!("round_{}_{}", self.names.rules[ri], j)
    }

    /// Rule `ri` with its variables named as in the code.
    pub(super) fn renamed(&self, ri: usize) -> crate::resolve::RRule {
        self.p.rules[ri].renamed(self.vars[ri].clone())
    }

    /// The comment over a rule: the lines that introduce it everywhere (id, strength, anchors,
    /// label, the rule as Datalog) and its plan, both with the variables named as in the code.
    fn rule_comment(&mut self, ri: usize) -> TokenStream {
        let r = self.renamed(ri);
        let [head, label, rule] = crate::datalog::rule_lines(self.p, &r);
        let text = format!("{head}\n{label}\n{rule}\nplan: {}", self.plan.rules[ri].show_with(self.p, &r));
        self.comment(text)
    }

    /// The binding tuple type `(CaseId, T..)` of rule `ri`.
    pub(super) fn binding_ty(&self, ri: usize) -> TokenStream {
        let rule = &self.p.rules[ri];
        let cols = self.plan.rules[ri].binding.iter().map(|&v| self.ty(rule.vars[v].1));
        quote!((CaseId, #(#cols,)*))
    }

    /// The function `name` joining rule `ri` as `rp` plans it, its parameters and views named
    /// by `locals`.
    fn rule_fn(&self, ri: usize, rp: &RulePlan, locals: &RuleLocals, name: Ident) -> TokenStream {
        let mut params: Vec<TokenStream> = Vec::new();
        if rp.per_case {
            params.push(quote!(cases: &Relation<(CaseId,)>));
        }
        for (oi, o) in rp.operands.iter().enumerate() {
            let n = ident(&locals.operands[oi]);
            let ty = self.tuple_ty(o.literal.rel);
            params.push(quote!(#n: &Relation<#ty>));
        }
        let binding = self.binding_ty(ri);
        let mut body = TokenStream::new();
        if !rp.checks.is_empty() {
            let fails = rp.checks.iter().map(|&c| self.comparison_fails(ri, c));
            body.extend(quote! { if #(#fails)||* { return; } });
        }
        for (vi, v) in rp.views.iter().enumerate() {
            let view = ident(&locals.views[vi]);
            let src = ident(&locals.operands[v.operand]);
            let cols: Vec<Ident> = (0..v.order.len()).map(|j| format_ident!("a_{}", j)).collect();
            let reordered = v.order.iter().map(|&j| &cols[j]);
            body.extend(quote! {
                let #view = ::clir::rt::view(#src, |&(case, #(#cols,)*)| (case, #(#reordered,)*));
            });
        }
        // Every looked-up relation is shadowed by a probe that remembers where its last look-up
        // ended (the loops run in sorted order, so keys mostly grow).
        for step in &rp.steps {
            let (name, probed) = match step.access {
                Access::Scan => continue,
                Access::Seek { view: Some(v), .. } => {
                    let n = ident(&locals.views[v]);
                    (n.clone(), quote!(&#n))
                }
                Access::Contains | Access::Seek { view: None, .. } => {
                    let n = ident(&locals.operands[step.operand]);
                    (n.clone(), quote!(#n))
                }
            };
            body.extend(quote! { let #name = &mut ::clir::rt::Probe::new(#probed); });
        }
        let mut levels: Vec<Level> = Vec::new();
        if rp.per_case {
            levels.push(Level::new(quote!(for &(case,) in cases.iter())));
        }
        for step in &rp.steps {
            self.step(ri, rp, locals, step, &mut levels);
        }
        let ids = rp.binding.iter().map(|&v| self.var(ri, v));
        let last = levels.last_mut().expect("a rule's loops start with a scan");
        last.push(quote! { found(&(case, #(#ids,)*)); });
        let mut inner: Option<TokenStream> = None;
        for mut level in levels.into_iter().rev() {
            if let Some(nested) = inner.take() {
                level.push(nested);
            }
            let (header, body) = (level.header, level.body);
            inner = Some(quote! { #header { #(#body)* } });
        }
        body.extend(inner);
        quote! {
            #[inline(never)]
            fn #name(#(#params,)* found: &mut dyn FnMut(&#binding)) {
                #body
            }
        }
    }

    /// The Rust condition that comparison `item` of rule `ri` does not hold.
    fn comparison_fails(&self, ri: usize, item: usize) -> TokenStream {
        let RItem::Comparison(op, a, b) = &self.p.rules[ri].body[item] else { return quote!(false) };
        let (a, b) = (self.term(ri, *a), self.term(ri, *b));
        let op: TokenStream = op.negated().symbol().parse().expect("operator");
        quote!(#a #op #b)
    }

    /// Adds one step to the loops: a new loop, or a test in the innermost one.
    fn step(&self, ri: usize, rp: &RulePlan, locals: &RuleLocals, step: &Step, levels: &mut Vec<Level>) {
        let o = &rp.operands[step.operand];
        let src = ident(&locals.operands[step.operand]);
        let args = &o.literal.args;
        let mut fails: Vec<TokenStream> = Vec::new();
        match &step.access {
            Access::Contains => {
                let vals = args.iter().map(|a| self.term(ri, *a));
                let test = quote!(#src.contains(&(case, #(#vals,)*)));
                fails.push(if step.negated { test } else { quote!(!#test) });
            }
            Access::Scan | Access::Seek { .. } => {
                let key: &[usize] = match &step.access {
                    Access::Seek { key, .. } => key,
                    _ => &[],
                };
                let order: Vec<usize> = match &step.access {
                    Access::Seek { view: Some(v), .. } => rp.views[*v].order.clone(),
                    _ => (0..args.len()).collect(),
                };
                // The pattern over the source's columns: the key columns (what is bound) ignored,
                // a variable's first column binds it, any other column is tested.
                let mut conds: Vec<(TokenStream, TokenStream)> = Vec::new();
                let mut pats: Vec<TokenStream> = Vec::new();
                let mut here: Vec<usize> = Vec::new();
                for &j in &order {
                    if key.contains(&j) {
                        pats.push(quote!(_));
                        continue;
                    }
                    match args[j] {
                        RTerm::Var(v) if !here.contains(&v) => {
                            here.push(v);
                            let id = self.var(ri, v);
                            pats.push(quote!(#id));
                        }
                        other => {
                            let fresh = format_ident!("a_{}", j);
                            let val = self.term(ri, other);
                            conds.push((quote!(#fresh), val));
                            pats.push(quote!(#fresh));
                        }
                    }
                }
                let source = match &step.access {
                    Access::Seek { key, view } => {
                        let from = match view {
                            Some(v) => ident(&locals.views[*v]),
                            None => src.clone(),
                        };
                        let vals = key.iter().map(|&j| self.term(ri, args[j]));
                        let fields = (0..=key.len()).map(proc_macro2::Literal::usize_unsuffixed);
                        quote!(#from.seek((case, #(#vals,)*), |t| (#(t.#fields,)*)))
                    }
                    _ => quote!(#src.iter()),
                };
                let case_pat = if matches!(step.access, Access::Scan) { quote!(case) } else { quote!(_) };
                if step.negated {
                    let holds = conds.iter().map(|(a, b)| quote!(#a == #b));
                    fails.push(if conds.is_empty() {
                        quote!(!#source.is_empty())
                    } else {
                        quote!(#source.iter().any(|&(_, #(#pats,)*)| #(#holds)&&*))
                    });
                } else {
                    debug_assert!(
                        here.len() == step.binds.len() && here.iter().all(|v| step.binds.contains(v)),
                        "the pattern binds what the plan says"
                    );
                    fails.extend(conds.iter().map(|(a, b)| quote!(#a != #b)));
                    levels.push(Level::new(quote!(for &(#case_pat, #(#pats,)*) in #source)));
                }
            }
        }
        fails.extend(step.checks.iter().map(|&c| self.comparison_fails(ri, c)));
        levels.last_mut().expect("a loop").fails.extend(fails);
    }
}
