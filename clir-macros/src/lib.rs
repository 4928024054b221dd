//! `include_clir!("package.name")`: brings a package compiled in from law.toml into scope as a
//! module named after it (`fide.laws.chess` -> `fide_laws_chess`).
//!
//! The macro only names the module; which packages exist is decided by the `clir` crate's
//! `build.rs` from law.toml, so an unlisted package is a compile error that says so.

use proc_macro::TokenStream;
use quote::{format_ident, quote};
use syn::{parse_macro_input, LitStr};

/// Declares `pub mod <name>` holding the generated module of package `<name>`.
#[proc_macro]
pub fn include_clir(input: TokenStream) -> TokenStream {
    let name = parse_macro_input!(input as LitStr);
    let value = name.value();
    let module = module_name(&value);
    if module.is_empty() || !value.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-') {
        return syn::Error::new(name.span(), format!("`{value}` is not a package name")).to_compile_error().into();
    }
    let module = format_ident!("{}", module);
    quote! {
        #[doc = concat!("The law package `", #name, "`, compiled in from law.toml.")]
        pub mod #module {
            ::clir::__clir_package!(#name);
        }
    }
    .into()
}

/// The module name of a package name: lowercase, with `_` for every other character.
fn module_name(package: &str) -> String {
    let mut out = String::new();
    for ch in package.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}
