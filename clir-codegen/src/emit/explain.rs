//! Explanation instances: per rule, calls of the rule's own function over the final layers
//! (applicable premises for every rule, definite ones too for a strict rule) with a closure
//! turning each binding into an instance (its head and premises); per closure, its negatives.

use super::strata::{Arg, Views};
use super::Emitter;
use crate::ir::{Status, Strength};
use crate::resolve::{RItem, RRule, RTerm};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

impl Emitter<'_> {
    /// The closure turning a binding of rule `ri` (and whether it is over definite premises)
    /// into its explanation instance: its head and its premises, asked as established or
    /// supported.
    fn instance_closure(&self, ri: usize) -> TokenStream {
        let rule: &RRule = &self.p.rules[ri];
        let ty = self.binding_ty(ri);
        let pat = self.vars_tuple(ri, &self.plan.rules[ri].binding, None);
        let row = |args: &[RTerm]| {
            let vals = args.iter().map(|a| self.term(ri, *a));
            quote!((#(#vals,)*))
        };
        let premises = rule.body.iter().filter_map(|it| match it {
            RItem::Literal(st, l) => {
                let how = match st {
                    Status::Established => quote!(premise),
                    Status::Supported => quote!(supported),
                };
                let (k, neg, args) = (self.rel_const(l.rel), l.negative, row(&l.args));
                Some(quote!(.#how(#k, #neg, #args)))
            }
            _ => None,
        });
        let (k, hneg, head) = (self.rel_const(rule.head.rel), rule.head.negative, row(&rule.head.args));
        let rule_k = self.rule_const(ri);
        quote! {
            |definite: bool, &#pat: &#ty| ::clir::Instance::rule(#rule_k, definite, case).head(#k, #hneg, #head) #(#premises)*
        }
    }

    /// The statements of `explain`: every instance of every rule over the final layers, and
    /// every closure negative, what explanations of minimal height are chosen from.
    pub(super) fn explain_calls(&mut self) -> Vec<TokenStream> {
        let p = self.p;
        let mut stmts = Vec::new();
        for ri in 0..p.rules.len() {
            let rp = &self.plan.rules[ri];
            if rp.never {
                continue;
            }
            let name = self.rule_fn_name(ri);
            let instance = self.instance_closure(ri);
            let cases = rp.per_case.then(|| quote!(&l.cases,));
            let strict = p.rules[ri].strength == Strength::Strict;
            // The statements are split among functions: a rule's views are its own.
            let mut views = Views::default();
            let mut args = |definite: bool| -> Vec<TokenStream> {
                let layers = rp.operands.iter().map(|o| Arg::Layer(self.operand_layer(o, definite)));
                self.call_args(ri, layers.collect(), &mut views)
            };
            let applicable = args(false);
            // A strict rule's +D instances are its bindings over the definite layers: the same
            // call when those are the layers it reads anyway.
            let definite = strict.then(|| args(true));
            let calls: Vec<(Vec<TokenStream>, TokenStream)> = match definite {
                None => vec![(applicable, quote!(&[false]))],
                Some(d) if applicable.iter().map(|t| t.to_string()).eq(d.iter().map(|t| t.to_string())) => {
                    vec![(applicable, quote!(&[false, true]))]
                }
                Some(d) => vec![(applicable, quote!(&[false])), (d, quote!(&[true]))],
            };
            // The closure captures nothing: it is `Copy`, passed by value to each call.
            let records = calls.iter().map(|(args, modes)| {
                quote! {
                    let mut found = Vec::new();
                    self::#name(#cases #(#args,)* Some(&mut found));
                    ::clir::rt::record(instances, #modes, found, instance);
                }
            });
            let comment = self.comment(p.rules[ri].id.clone());
            let views = views.take();
            stmts.push(quote! {
                #comment
                #views
                let instance = #instance;
                #(#records)*
            });
        }
        for (ci, c) in p.closures.iter().enumerate() {
            let closed = self.closure_name(ci);
            let n = p.relations[c.rel].params.len();
            let ids: Vec<Ident> = (0..n).map(|j| format_ident!("a_{}", j)).collect();
            let (rel, domain) = (self.rel_const(c.rel), self.rel_const(c.domain));
            let cix = Literal::usize_unsuffixed(ci);
            stmts.push(quote! {
                for &(case, #(#ids,)*) in l.#closed.iter() {
                    let domain = ::clir::Premise::new(#domain, false, ::clir::Layer::Concluded, (#(#ids,)*));
                    instances.push(::clir::Instance::closure(#cix, case, #rel, (#(#ids,)*), domain));
                }
            });
        }
        stmts
    }
}
