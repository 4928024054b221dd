//! Explanation instances: per rule, calls of the rule's own function over the final layers
//! (applicable premises for every rule, definite ones too for a strict rule), its bindings
//! turned into instances (its head and premises) by the rule's data (`RULES`) through
//! `::clir::rt::Explain`; per closure, its negatives. A call a stratum makes anyway records
//! there; `explain` makes only the others ([`crate::plan::calls`] says which).

use super::strata::Views;
use super::Emitter;
use crate::plan::calls::Frame;
use proc_macro2::TokenStream;
use quote::quote;

impl Emitter<'_> {
    /// The statements of `explain`, each with the group of the stratum it explains and what it
    /// reads: the explaining calls of every rule that no stratum made over the final layers (a
    /// recursive rule's, or a strict rule's over definite premises where the stratum never needs
    /// them), what explanations of minimal height are chosen from.
    pub(super) fn explain_calls(&mut self) -> Vec<(usize, Frame, TokenStream)> {
        let p = self.p;
        let mut stmts = Vec::new();
        for ri in 0..p.rules.len() {
            let calls = &self.plan.explain[ri];
            if self.plan.rules[ri].never || calls.is_empty() {
                continue;
            }
            // The statements are split among functions: a rule's views are its own.
            let mut views = Views::default();
            let mut frame = Frame::default();
            let records: Vec<TokenStream> = calls
                .iter()
                .map(|c| {
                    frame.call(c, &self.plan.rules);
                    let args = c.args.iter().map(|&a| self.arg(a)).collect();
                    let call = self.rule_call(ri, &self.call_args(ri, args, &mut views), c.record);
                    quote!(#call;)
                })
                .collect();
            let comment = self.comment(p.rules[ri].id.clone());
            let views = views.take();
            stmts.push((
                self.group_of_rule(ri),
                frame,
                quote! {
                    #comment
                    #views
                    #(#records)*
                },
            ));
        }
        stmts
    }

    /// The statements adding every closure's negatives as explanation instances, over the final
    /// layers of the store `l`: one line a closure.
    pub(super) fn closure_explains(&mut self) -> TokenStream {
        let lines: Vec<String> = (self.p.closures.iter().enumerate())
            .map(|(ci, c)| {
                let (rel, domain) = (self.rel_const(c.rel), self.rel_const(c.domain));
                format!("ex.closure({ci}, {rel}, {domain}, &l[layer::{}]);", self.closure_name(ci))
            })
            .collect();
        if lines.is_empty() {
            return TokenStream::new();
        }
        self.verbatim(lines.join("\n"))
    }
}
