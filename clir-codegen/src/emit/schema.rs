//! Entity types and constants, the `REL_`/`RULE_` index constants, `SCHEMA` and the `Package`
//! impl the runtime's batch and JSONL paths use. The constants and `SCHEMA` are tables of one
//! entry a line ([`Emitter::verbatim`]).

use super::{ident, lit, Emitter};
use crate::ir::RelationKind;
use crate::resolve::{Translated, Ty};
use crate::text::comment_text;
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use std::fmt::Write;

/// The indentation of `SCHEMA`'s fields.
const FIELD: &str = "        ";

/// The runtime's schema types `SCHEMA`'s entries name, imported in its initializer only.
const SCHEMA_TYPES: &str =
    "ClosureInfo, ConstantInfo, FragmentInfo, ParamInfo, PriorityInfo, RelationInfo, RelationKind, \
     RuleInfo, Translated, Translation";

/// The table `&[..]` of `entries`, one a line, as the value of a field of `SCHEMA`.
fn table(entries: impl Iterator<Item = String>) -> String {
    let mut out = String::from("&[");
    for e in entries {
        let _ = write!(out, "\n{FIELD}    {e},");
    }
    if out.len() > 2 {
        let _ = write!(out, "\n{FIELD}");
    }
    out.push(']');
    out
}

/// Appends the field `name: value,` of `SCHEMA`.
fn field(out: &mut String, name: &str, value: String) {
    let _ = writeln!(out, "{FIELD}{name}: {value},");
}

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
                    quote! { #[doc = #doc] pub const #k: Self = Self(::clir::Sym(#idx)); }
                })
                .collect();
            out.extend(quote! { ::clir::entity_type!(#[doc = #doc] #id); });
            if !consts.is_empty() {
                out.extend(quote! { impl #id { #(#consts)* } });
            }
        }
        out
    }

    pub(super) fn schema(&mut self) -> TokenStream {
        let p = self.p;
        let mut code = String::new();
        let index = |out: &mut String, doc: &str, k: &dyn std::fmt::Display, i: usize| {
            let doc = lit(&comment_text(&format!("`{doc}`")));
            let _ = writeln!(out, "#[doc = {doc}] pub const {k}: usize = {i};");
        };
        for (ri, r) in p.relations.iter().enumerate() {
            index(&mut code, &r.name, &self.rel_const(ri), ri);
        }
        // Split into crates, the relation indices are the io crate's (its tables name them).
        if self.split.is_some() {
            let indices = self.verbatim(std::mem::take(&mut code));
            self.split.as_mut().expect("split").io_items.extend(indices);
        }
        for (ri, r) in p.rules.iter().enumerate() {
            index(&mut code, &r.id, &self.rule_const(ri), ri);
        }
        let date = |d: &Option<String>| match d {
            Some(d) => format!("Some({})", lit(d)),
            None => "None".to_string(),
        };
        let _ = write!(
            code,
            "/// What this package declares: relations, constants and rules.\n\
             pub static SCHEMA: ::clir::Schema = {{\n    \
             #[allow(unused_imports)]\n    \
             use ::clir::{{{SCHEMA_TYPES}}};\n    \
             ::clir::Schema {{\n"
        );
        field(&mut code, "package", lit(&p.name));
        field(&mut code, "version", lit(&p.version));
        field(&mut code, "seal", lit(&self.seal));
        field(&mut code, "in_force", date(&p.lifecycle.in_force));
        field(&mut code, "until", date(&p.lifecycle.until));
        let relations = p.relations.iter().map(|r| {
            let params = r
                .params
                .iter()
                .map(|(n, t)| match t {
                    Ty::Integer => format!("ParamInfo::integer({})", lit(n)),
                    _ => format!("ParamInfo::entity({}, {})", lit(n), lit(p.type_name(*t))),
                })
                .collect::<Vec<_>>()
                .join(", ");
            let name = lit(&r.name);
            let info = match (r.kind, &r.capability) {
                (RelationKind::Empirical, None) => format!("RelationInfo::empirical({name}, &[{params}])"),
                (RelationKind::Institutional, None) => format!("RelationInfo::institutional({name}, &[{params}])"),
                (RelationKind::Judgment, Some(c)) => format!("RelationInfo::judgment({name}, &[{params}], {})", lit(c)),
                (kind, cap) => {
                    let kind = match kind {
                        RelationKind::Empirical => "Empirical",
                        RelationKind::Judgment => "Judgment",
                        RelationKind::Institutional => "Institutional",
                    };
                    let cap = cap.as_deref().map_or("None".to_string(), |c| format!("Some({})", lit(c)));
                    format!(
                        "RelationInfo {{ name: {name}, kind: RelationKind::{kind}, params: &[{params}], capability: {cap}, label: \"\" }}"
                    )
                }
            };
            if r.label.is_empty() {
                info
            } else {
                format!("{info}.labelled({})", lit(&r.label))
            }
        });
        field(&mut code, "relations", table(relations));
        let constants = p
            .constants
            .iter()
            .map(|c| (c.name.as_str(), p.types[c.ty].name.as_str()))
            .chain(self.string_consts.iter().map(|s| (s.as_str(), "String")))
            .map(|(n, t)| format!("ConstantInfo::new({}, {})", lit(n), lit(t)));
        field(&mut code, "constants", table(constants));
        let fragments = p
            .fragments
            .iter()
            .map(|f| format!("FragmentInfo::new({}, {}, {})", lit(&f.id), lit(&f.locator), lit(&f.text)));
        field(&mut code, "fragments", table(fragments));
        let rules = p.rules.iter().map(|r| {
            let anchors = r.anchors.iter().map(|f| f.to_string()).collect::<Vec<_>>().join(", ");
            format!(
                "RuleInfo::new({}, {}, {}, &[{anchors}], {} as u32, {})",
                lit(&r.id),
                lit(r.strength.word()),
                lit(&r.label),
                self.rel_const(r.head.rel),
                r.head.negative
            )
        });
        field(&mut code, "rules", table(rules));
        let priorities = p.superiority.iter().map(|x| {
            format!(
                "PriorityInfo {{ id: {}, label: {}, higher: {}, lower: {}, reason: {} }}",
                lit(&x.id),
                lit(&x.label),
                x.higher,
                x.lower,
                lit(x.reason.as_deref().unwrap_or(""))
            )
        });
        field(&mut code, "priorities", table(priorities));
        let closures = p.closures.iter().map(|c| {
            format!(
                "ClosureInfo {{ id: {}, label: {}, rel: {} as u32, domain: {} as u32, snapshot: {}, complete_as_of: {} }}",
                lit(&c.id),
                lit(&c.label),
                self.rel_const(c.rel),
                self.rel_const(c.domain),
                lit(c.snapshot.as_deref().unwrap_or("")),
                lit(c.complete_as_of.as_deref().unwrap_or(""))
            )
        });
        field(&mut code, "closures", table(closures));
        let languages = p.languages.iter().map(|l| lit(l)).collect::<Vec<_>>().join(", ");
        let translations = p.translations.iter().map(|t| {
            let (kind, ix) = match t.of {
                Translated::Rule(i) => ("Rule", i),
                Translated::Closure(i) => ("Closure", i),
                Translated::Priority(i) => ("Priority", i),
                Translated::Fragment(i) => ("Fragment", i),
            };
            format!("Translation::new(Translated::{kind}({ix}), {}, {})", t.language, lit(&t.text))
        });
        field(&mut code, "texts", format!("::clir::Texts::new(&[{languages}], {})", table(translations)));
        code.push_str("    }\n};\n");
        let schema = self.verbatim(code);
        quote! {
            #schema

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
