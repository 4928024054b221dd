//! Explanation instances: per rule, calls of the rule's own function over the final layers
//! (applicable premises for every rule, definite ones too for a strict rule), its bindings
//! turned into instances (its head and premises) by the rule's data (`RULES`); per closure, its
//! negatives.

use super::strata::{Arg, Views};
use super::Emitter;
use crate::ir::Strength;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

impl Emitter<'_> {
    /// The statements of `explain`, each with the group of the stratum it explains: every instance of every
    /// rule over the final layers, and every closure negative, what explanations of minimal
    /// height are chosen from. Split into crates, they read the rule table as `rules`.
    pub(super) fn explain_calls(&mut self) -> Vec<(usize, TokenStream)> {
        let table = if self.split.is_some() { quote!(rules) } else { quote!(RULES) };
        let p = self.p;
        let mut stmts = Vec::new();
        for ri in 0..p.rules.len() {
            let rp = &self.plan.rules[ri];
            if rp.never {
                continue;
            }
            let name = self.rule_fn_name(ri);
            let rule_k = self.rule_const(ri);
            let cases = rp.per_case.then(|| quote!(&l[layer::cases],));
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
            let records = calls.iter().map(|(args, modes)| {
                quote! {
                    let mut found = Vec::new();
                    self::#name(#cases #(#args,)* Some(&mut found));
                    #table.record(instances, #rule_k, #modes, found);
                }
            });
            let comment = self.comment(p.rules[ri].id.clone());
            let views = views.take();
            stmts.push((
                self.group_of_rule(ri),
                quote! {
                    #comment
                    #views
                    #(#records)*
                },
            ));
        }
        for (ci, c) in p.closures.iter().enumerate() {
            let closed = self.closure_name(ci);
            let n = p.relations[c.rel].params.len();
            let ids: Vec<Ident> = (0..n).map(|j| format_ident!("a_{}", j)).collect();
            let (rel, domain) = (self.rel_const(c.rel), self.rel_const(c.domain));
            let cix = Literal::usize_unsuffixed(ci);
            stmts.push((
                self.group_of_stratum(self.s.rels[c.rel].stratum),
                quote! {
                    for &(case, #(#ids,)*) in l[layer::#closed].iter() {
                        let domain = ::clir::Premise::new(#domain, false, ::clir::Layer::Concluded, (#(#ids,)*));
                        instances.push(::clir::Instance::closure(#cix, case, #rel, (#(#ids,)*), domain));
                    }
                },
            ));
        }
        stmts
    }
}
