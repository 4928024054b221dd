//! Entity types and constants, the `REL_`/`RULE_` index constants, `SCHEMA` and the `Package`
//! impl the runtime's batch and JSONL paths use.

use super::{ident, Emitter};
use crate::ir::RelationKind;
use crate::resolve::{Translated, Ty};
use crate::text::{comment_text, string_literal};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

impl Emitter<'_> {
    pub(super) fn types_and_constants(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for (i, t) in self.p.types.iter().enumerate() {
            let id = ident(&self.names.types[i]);
            let doc = comment_text(&format!("Entity type `{}`: {}", t.name, t.label));
            let consts: Vec<TokenStream> = self
                .p
                .constants
                .iter()
                .enumerate()
                .filter(|(_, c)| c.ty == i)
                .map(|(ci, c)| {
                    let k = ident(&self.names.constants[ci]);
                    let idx = Literal::u32_unsuffixed(ci as u32);
                    let doc = comment_text(&format!("The constant `{}`.", c.name));
                    quote! { #[doc = #doc] pub const #k: #id = #id(::clir::Sym(#idx)); }
                })
                .collect();
            out.extend(quote! { ::clir::entity_type!(#[doc = #doc] #id); });
            if !consts.is_empty() {
                out.extend(quote! { impl #id { #(#consts)* } });
            }
        }
        out
    }

    pub(super) fn schema(&self) -> TokenStream {
        let p = self.p;
        let rel_consts = (0..p.relations.len()).map(|ri| {
            let k = self.rel_const(ri);
            let doc = comment_text(&format!("`{}`", p.relations[ri].name));
            let ix = Literal::usize_unsuffixed(ri);
            quote! { #[doc = #doc] pub const #k: usize = #ix; }
        });
        let rule_consts = (0..p.rules.len()).map(|ri| {
            let k = self.rule_const(ri);
            let doc = comment_text(&format!("`{}`", p.rules[ri].id));
            let ix = Literal::usize_unsuffixed(ri);
            quote! { #[doc = #doc] pub const #k: usize = #ix; }
        });
        let rels = p.relations.iter().map(|r| {
            let name = string_literal(&r.name);
            let params = r.params.iter().map(|(n, t)| {
                let n = string_literal(n);
                if *t == Ty::Integer {
                    quote!(::clir::ParamInfo::integer(#n))
                } else {
                    let tn = string_literal(p.type_name(*t));
                    quote!(::clir::ParamInfo::entity(#n, #tn))
                }
            });
            let params = quote!(&[#(#params),*]);
            match (r.kind, &r.capability) {
                (RelationKind::Empirical, None) => quote!(::clir::RelationInfo::empirical(#name, #params)),
                (RelationKind::Institutional, None) => quote!(::clir::RelationInfo::institutional(#name, #params)),
                (RelationKind::Judgment, Some(c)) => {
                    let c = string_literal(c);
                    quote!(::clir::RelationInfo::judgment(#name, #params, #c))
                }
                (kind, cap) => {
                    let kind = match kind {
                        RelationKind::Empirical => quote!(Empirical),
                        RelationKind::Judgment => quote!(Judgment),
                        RelationKind::Institutional => quote!(Institutional),
                    };
                    let cap = match cap {
                        Some(c) => {
                            let c = string_literal(c);
                            quote!(Some(#c))
                        }
                        None => quote!(None),
                    };
                    quote!(::clir::RelationInfo { name: #name, kind: ::clir::RelationKind::#kind, params: #params, capability: #cap })
                }
            }
        });
        let consts = p
            .constants
            .iter()
            .map(|c| (c.name.as_str(), p.types[c.ty].name.as_str()))
            .chain(self.string_consts.iter().map(|s| (s.as_str(), "String")))
            .map(|(n, t)| {
                let (n, t) = (string_literal(n), string_literal(t));
                quote!(::clir::ConstantInfo::new(#n, #t))
            });
        let rules = p.rules.iter().map(|r| {
            let id = string_literal(&r.id);
            let label = string_literal(&r.label);
            let strength = string_literal(r.strength.word());
            let anchors = r.anchors.iter().map(|&f| Literal::u32_unsuffixed(f as u32));
            let (head, negative) = (self.rel_const(r.head.rel), r.head.negative);
            quote!(::clir::RuleInfo::new(#id, #strength, #label, &[#(#anchors),*], #head as u32, #negative))
        });
        let fragments = p.fragments.iter().map(|f| {
            let (id, loc, text) = (string_literal(&f.id), string_literal(&f.locator), string_literal(&f.text));
            quote!(::clir::FragmentInfo::new(#id, #loc, #text))
        });
        let priorities = p.superiority.iter().map(|x| {
            let id = string_literal(&x.id);
            let label = string_literal(&x.label);
            let (h, l) = (Literal::u32_unsuffixed(x.higher as u32), Literal::u32_unsuffixed(x.lower as u32));
            let reason = string_literal(x.reason.as_deref().unwrap_or(""));
            quote!(::clir::PriorityInfo { id: #id, label: #label, higher: #h, lower: #l, reason: #reason })
        });
        let languages = p.languages.iter().map(|l| string_literal(l));
        let translations = p.translations.iter().map(|t| {
            let (kind, ix) = match t.of {
                Translated::Rule(i) => (quote!(Rule), i),
                Translated::Closure(i) => (quote!(Closure), i),
                Translated::Priority(i) => (quote!(Priority), i),
                Translated::Fragment(i) => (quote!(Fragment), i),
            };
            let (ix, language) = (Literal::u32_unsuffixed(ix as u32), Literal::u32_unsuffixed(t.language as u32));
            let text = string_literal(&t.text);
            quote!(::clir::Translation::new(::clir::Translated::#kind(#ix), #language, #text))
        });
        let closures = p.closures.iter().map(|c| {
            let id = string_literal(&c.id);
            let label = string_literal(&c.label);
            let snap = string_literal(c.snapshot.as_deref().unwrap_or(""));
            let asof = string_literal(c.complete_as_of.as_deref().unwrap_or(""));
            let (rel, domain) = (self.rel_const(c.rel), self.rel_const(c.domain));
            quote!(::clir::ClosureInfo {
                id: #id,
                label: #label,
                rel: #rel as u32,
                domain: #domain as u32,
                snapshot: #snap,
                complete_as_of: #asof,
            })
        });
        let name = string_literal(&p.name);
        let version = string_literal(&p.version);
        let seal = string_literal(&self.seal);
        let date = |d: &Option<String>| match d {
            Some(d) => {
                let d = string_literal(d);
                quote!(Some(#d))
            }
            None => quote!(None),
        };
        let (in_force, until) = (date(&p.lifecycle.in_force), date(&p.lifecycle.until));
        quote! {
            #(#rel_consts)*
            #(#rule_consts)*

            /// What this package declares: relations, constants and rules.
            pub static SCHEMA: ::clir::Schema = ::clir::Schema {
                package: #name,
                version: #version,
                seal: #seal,
                in_force: #in_force,
                until: #until,
                relations: &[#(#rels),*],
                constants: &[#(#consts),*],
                fragments: &[#(#fragments),*],
                rules: &[#(#rules),*],
                priorities: &[#(#priorities),*],
                closures: &[#(#closures),*],
                texts: ::clir::Texts::new(&[#(#languages),*], &[#(#translations),*]),
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
                fn codec(&self) -> Option<&'static ::clir::jsonl::Codec> {
                    Some(&CODEC)
                }
            }
        }
    }
}
