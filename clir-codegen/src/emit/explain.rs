//! Explanation instances: per rule, calls of the rule's own function over the final layers
//! (applicable premises for every rule, definite ones too for a strict rule), its bindings
//! turned into instances (its head and premises) by the rule's data (`RULES`) through
//! `::clir::rt::Explain`; per closure, its negatives. A call a stratum makes anyway records
//! there (see [`Emitter::records`]); `explain` makes only the others.

use super::strata::{Arg, Views};
use super::Emitter;
use crate::ir::Strength;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

impl Emitter<'_> {
    /// The calls of rule `ri`'s function that explain it: the layers its operands read and the
    /// modes (`[false]`: over applicable premises; `[true]`: definite ones) it records them
    /// for. Every rule's over applicable premises; a strict rule's over definite ones too, in
    /// the same call when those are the layers it reads anyway.
    pub(super) fn explaining_calls(&self, ri: usize) -> Vec<(Vec<Ident>, &'static [bool])> {
        let rp = &self.plan.rules[ri];
        let layers =
            |definite: bool| -> Vec<Ident> { rp.operands.iter().map(|o| self.operand_layer(o, definite)).collect() };
        let applicable = layers(false);
        if self.p.rules[ri].strength != Strength::Strict {
            return vec![(applicable, &[false])];
        }
        let definite = layers(true);
        if definite == applicable {
            vec![(applicable, &[false, true])]
        } else {
            vec![(applicable, &[false]), (definite, &[true])]
        }
    }

    /// Where a stratum calls rule `ri` over `layers` (final ones): the modes that call records
    /// explanations for, if it is one of the rule's explaining calls not yet recorded by another
    /// (marked recorded, so that [`Self::explain_calls`] leaves it out).
    pub(super) fn records(&self, ri: usize, layers: &[Ident]) -> Option<&'static [bool]> {
        if !self.explanations {
            return None;
        }
        let calls = self.explaining_calls(ri);
        let mut recorded = self.recorded.borrow_mut();
        let k =
            calls.iter().enumerate().position(|(k, (l, _))| l.as_slice() == layers && !recorded[ri].contains(&k))?;
        recorded[ri].push(k);
        Some(calls[k].1)
    }

    /// The statements of `explain`, each with the group of the stratum it explains: the
    /// explaining calls of every rule that no stratum made over the final layers (a recursive
    /// rule's, or a strict rule's over definite premises where the stratum never needs them),
    /// and every closure negative, what explanations of minimal height are chosen from.
    pub(super) fn explain_calls(&mut self) -> Vec<(usize, TokenStream)> {
        let p = self.p;
        let mut stmts = Vec::new();
        for ri in 0..p.rules.len() {
            if self.plan.rules[ri].never {
                continue;
            }
            let recorded = self.recorded.borrow()[ri].clone();
            let calls: Vec<(Vec<Ident>, &[bool])> = self
                .explaining_calls(ri)
                .into_iter()
                .enumerate()
                .filter(|(k, _)| !recorded.contains(k))
                .map(|(_, call)| call)
                .collect();
            if calls.is_empty() {
                continue;
            }
            // The statements are split among functions: a rule's views are its own.
            let mut views = Views::default();
            let records: Vec<TokenStream> = calls
                .into_iter()
                .map(|(layers, modes)| {
                    let args = self.call_args(ri, layers.into_iter().map(Arg::Layer).collect(), &mut views);
                    let call = self.rule_call(ri, &args, Some(modes));
                    quote!(#call;)
                })
                .collect();
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
                        ex.push(::clir::Instance::closure(#cix, case, #rel, (#(#ids,)*), domain));
                    }
                },
            ));
        }
        stmts
    }
}
