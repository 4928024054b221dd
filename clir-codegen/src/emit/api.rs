//! The typed API of a package: `Cases` to build a batch with one method per input relation and
//! sign, `Rulings`/`Ruling` with one method per institutional relation and sign. The methods of
//! a relation are one invocation of the runtime's `case_methods!` or `ruling_methods!`, which
//! write them once per shape.

use super::{ident, lit, Emitter};
use crate::ir::RelationKind;
use crate::text::{comment_text, string_literal};
use proc_macro2::{Ident, TokenStream};
use quote::quote;
use std::fmt::Write;

impl Emitter<'_> {
    /// The typed API: its grants, `Cases` and `Case` with their adders, `Rulings` and `Ruling`
    /// with their accessors.
    pub(super) fn typed_api(&mut self) -> TokenStream {
        let (grants, adders) = self.case_adders();
        let entity_ctors = self.entity_ctors();
        let accessors = self.ruling_accessors();
        let (adders, accessors) = (self.verbatim(adders), self.verbatim(accessors));
        // With explanations, rulings keep the final layers, which why-not reads.
        let (keep, kept, layers_field, layers_arg, why_not) = if self.explanations {
            (
                quote!(let (layers, output) = evaluate_layers(&self.batch);),
                quote!(layers: ::std::sync::Arc::new(layers),),
                quote!(layers: ::std::sync::Arc<::clir::rt::Layers>,),
                quote!(layers: self.layers.clone(),),
                quote! {
                    /// Whether the literal of relation `rel` (a `REL_` constant), sign `negative`
                    /// and arguments `args` (flat, as `clir::Row` gives them) is concluded, and if
                    /// not why: every rule for it with the reason it did not conclude it.
                    pub fn why_not(&self, rel: usize, negative: bool, args: Vec<i64>) -> ::clir::WhyNot {
                        let asked = ::clir::Asked { case: self.case, rel: rel as u32, negative, args };
                        why_not(&self.layers, &self.names, &asked)
                    }
                },
            )
        } else {
            (quote!(let output = evaluate(&self.batch);), quote!(), quote!(), quote!(), quote!())
        };
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
                    #keep
                    Rulings {
                        #kept
                        output: ::std::sync::Arc::new(output),
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
                #adders
            }

            /// The rulings of a batch.
            #[derive(Clone)]
            pub struct Rulings {
                #layers_field
                output: ::std::sync::Arc<::clir::Output>,
                names: ::std::sync::Arc<::clir::Interner>,
                cases: u32,
            }

            impl Rulings {
                /// The ruling of case `case`.
                pub fn case(&self, case: CaseId) -> Ruling {
                    Ruling { #layers_arg output: self.output.clone(), names: self.names.clone(), case }
                }
                /// Number of cases.
                pub fn len(&self) -> usize { self.cases as usize }
                /// Whether the batch was empty.
                pub fn is_empty(&self) -> bool { self.cases == 0 }
            }

            /// The ruling of one case: per institutional relation and sign, what is concluded and
            /// what of it is definite.
            #[derive(Clone)]
            pub struct Ruling {
                #layers_field
                output: ::std::sync::Arc<::clir::Output>,
                names: ::std::sync::Arc<::clir::Interner>,
                case: CaseId,
            }

            impl Ruling {
                /// Literals of any relation whose both signs are definite, written `name(a,b)`, sorted.
                pub fn contradictions(&self) -> Vec<String> {
                    ::clir::batch::case_contradictions(&SCHEMA, &self.output, &self.names, self.case)
                }
                /// The name an entity (or String value) of this case was written with.
                pub fn name_of(&self, entity: impl ::clir::Entity) -> &str {
                    self.names.name(entity.sym())
                }
                #why_not
                #accessors
            }

            impl ::std::fmt::Debug for Rulings {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    f.debug_struct("Rulings").field("cases", &self.cases).finish_non_exhaustive()
                }
            }

            impl ::std::fmt::Debug for Ruling {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    f.debug_struct("Ruling").field("case", &self.case).finish_non_exhaustive()
                }
            }
        }
    }

    /// Per input relation, the line of `Case`'s methods adding its facts of each sign (with the
    /// grant its capability asks for); and the grant types, one per capability.
    fn case_adders(&self) -> (TokenStream, String) {
        let p = self.p;
        let mut adders = String::new();
        let mut grants = TokenStream::new();
        let mut granted: Vec<&str> = Vec::new();
        for (ri, r) in p.relations.iter().enumerate() {
            if r.kind == RelationKind::Institutional {
                continue;
            }
            let grant = r.capability.as_deref().map(|cap| {
                let g = ident(self.names.grant(cap).expect("every capability has a grant type"));
                if !granted.contains(&cap) {
                    grants.extend(Self::grant_type(cap, &g));
                    granted.push(cap);
                }
                g
            });
            let params = crate::names::parameters(r.params.iter().map(|(n, _)| n.as_str()));
            let params: Vec<String> =
                params.iter().zip(&r.params).map(|(n, (_, t))| format!("{n}: {}", self.api_ty(*t))).collect();
            let sig = r.params.iter().map(|(n, t)| format!("{n}: {}", p.type_name(*t))).collect::<Vec<_>>().join(", ");
            let fact = lit(&comment_text(&format!("{}({sig})", r.name)));
            let label = (!r.label.is_empty()).then(|| format!(", {}", lit(&comment_text(&r.label))));
            let grant = grant.map(|g| format!("grant {g}, "));
            let m = &self.names.methods[ri];
            let _ = writeln!(
                adders,
                "::clir::case_methods!({}, {m}, not_{m}, {}({}), {fact}{});",
                self.rel_const(ri),
                grant.unwrap_or_default(),
                params.join(", "),
                label.unwrap_or_default()
            );
        }
        (grants, adders)
    }

    /// The grant type `g` of capability `cap`.
    fn grant_type(cap: &str, g: &Ident) -> TokenStream {
        let doc = comment_text(&format!(
            "The grant of capability `{cap}`: holding one is what allows judgment facts of that authority to be given."
        ));
        let capl = string_literal(cap);
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, Copy)]
            pub struct #g { _granted: () }
            impl #g {
                /// The capability this grant stands for.
                pub const CAPABILITY: &'static str = #capl;
                /// Grants the capability: call only on the authority's behalf.
                pub fn grant() -> Self { #g { _granted: () } }
            }
        }
    }

    /// Per entity type, `Case`'s method naming an entity of it.
    fn entity_ctors(&self) -> TokenStream {
        let mut entity_ctors = TokenStream::new();
        for (ti, t) in self.p.types.iter().enumerate() {
            let ty = ident(&self.names.types[ti]);
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
        entity_ctors
    }

    /// Per institutional relation, the line of `Ruling`'s methods reading its conclusions of
    /// each sign (and, with explanations, why not).
    fn ruling_accessors(&self) -> String {
        let mut accessors = String::new();
        for (ri, r) in self.p.relations.iter().enumerate() {
            if r.kind != RelationKind::Institutional {
                continue;
            }
            let mut row = r.params.iter().map(|(_, t)| self.api_ty(*t)).collect::<Vec<_>>().join(", ");
            if r.params.len() == 1 {
                row.push(',');
            }
            let m = &self.names.methods[ri];
            let why_not = if self.explanations { format!(", why_not_{m}, why_not_not_{m}") } else { String::new() };
            let _ = writeln!(
                accessors,
                "::clir::ruling_methods!({}, ({row}), {}, {m}, not_{m}{why_not});",
                self.rel_const(ri),
                lit(&comment_text(&r.name))
            );
        }
        accessors
    }
}
