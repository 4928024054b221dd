//! Explanation instances: per rule, one function turning a binding into an instance (its head
//! and premises), and calls of the rule's own function over the final layers (applicable
//! premises for every rule, definite ones too for a strict rule); per closure, its negatives.

use super::Emitter;
use crate::ir::{Status, Strength};
use crate::resolve::{RItem, RRule, RTerm};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

/// Rust orders tuples of at most 12 elements: a binding `(case, vars..)` of more variables is
/// recorded in join order instead of sorted.
const MAX_SORTED_BINDING: usize = 11;

impl Emitter<'_> {
    fn instance_fn_name(&self, ri: usize) -> Ident {
        format_ident!("instance_{}", self.names.rules[ri])
    }

    fn row(&self, ri: usize, args: &[RTerm]) -> TokenStream {
        let vals = args.iter().map(|a| self.term(ri, *a));
        quote!((#(#vals,)*))
    }

    /// Per rule that can apply: the instance of one of its bindings.
    pub(super) fn instance_fns(&mut self) -> TokenStream {
        let mut out = TokenStream::new();
        for ri in 0..self.p.rules.len() {
            if self.plan.rules[ri].never {
                continue;
            }
            let rule: &RRule = &self.p.rules[ri];
            let name = self.instance_fn_name(ri);
            let pattern = self.binding_pattern(ri);
            let ty = self.binding_ty(ri);
            let premises: Vec<TokenStream> = rule
                .body
                .iter()
                .filter_map(|it| match it {
                    RItem::Literal(st, l) => {
                        let how = match st {
                            Status::Established => quote!(premise),
                            Status::Supported => quote!(supported),
                        };
                        let (k, neg, args) = (self.rel_const(l.rel), l.negative, self.row(ri, &l.args));
                        Some(quote!(.#how(#k, #neg, #args)))
                    }
                    _ => None,
                })
                .collect();
            let (k, hneg, head) = (self.rel_const(rule.head.rel), rule.head.negative, self.row(ri, &rule.head.args));
            let rule_k = self.rule_const(ri);
            let doc = crate::text::comment_text(&format!("The explanation instance of a binding of `{}`.", rule.id));
            out.extend(quote! {
                #[doc = #doc]
                fn #name(definite: bool, #pattern: &#ty) -> ::clir::Instance {
                    ::clir::Instance::rule(#rule_k, definite, case, (#k, #hneg), #head) #(#premises)*
                }
            });
        }
        out
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
            let record = if rp.binding.len() > MAX_SORTED_BINDING {
                quote!(::clir::rt::record_unsorted)
            } else {
                quote!(::clir::rt::record)
            };
            let name = self.rule_fn_name(ri);
            let instance = self.instance_fn_name(ri);
            let cases = rp.per_case.then(|| quote!(&l.cases,));
            let strict = p.rules[ri].strength == Strength::Strict;
            let args = |definite: bool| -> Vec<TokenStream> {
                rp.operands
                    .iter()
                    .map(|o| {
                        let n = self.operand_layer(o, definite);
                        quote!(&l.#n)
                    })
                    .collect()
            };
            let (applicable, definite) = (args(false), args(true));
            // A strict rule's +D instances are its bindings over the definite layers: the same
            // call when those are the layers it reads anyway.
            let calls: Vec<(Vec<TokenStream>, TokenStream)> = if !strict {
                vec![(applicable, quote!(&[false]))]
            } else if applicable.iter().map(|t| t.to_string()).eq(definite.iter().map(|t| t.to_string())) {
                vec![(applicable, quote!(&[false, true]))]
            } else {
                vec![(applicable, quote!(&[false])), (definite, quote!(&[true]))]
            };
            for (args, modes) in calls {
                stmts.push(quote! {
                    #record(instances, #modes, |found| #name(#cases #(#args,)* found), #instance);
                });
            }
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
