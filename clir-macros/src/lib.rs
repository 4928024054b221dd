//! `include_clir!("package.name")`: brings a package that the calling crate's own build script
//! compiled (`clir_codegen::build::run()` in its `build.rs`, from its `law.toml`) into scope as a
//! module named after it (`fide.laws.chess` -> `fide_laws_chess`).
//!
//! The macro reads the index the build script wrote in the crate's `OUT_DIR`, so a package the
//! crate's `law.toml` does not list, or a crate without the build script, is a compile error that
//! says what to do.

use proc_macro::TokenStream;
use quote::{format_ident, quote};
use std::path::PathBuf;
use syn::{parse_macro_input, LitStr};

/// The folder and index `clir_codegen::build` writes under `OUT_DIR` (`build::DIR`, `build::INDEX`).
const INDEX: &str = "clir/index.txt";

/// Declares `pub mod <name>` holding the generated module of package `<name>`.
#[proc_macro]
pub fn include_clir(input: TokenStream) -> TokenStream {
    let name = parse_macro_input!(input as LitStr);
    match expand(&name) {
        Ok(tokens) => tokens.into(),
        Err(message) => syn::Error::new(name.span(), message).to_compile_error().into(),
    }
}

fn expand(name: &LitStr) -> Result<proc_macro2::TokenStream, String> {
    let value = name.value();
    let Some(out_dir) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return Err(format!(
            "`include_clir!(\"{value}\")` needs this crate's build script to compile its law packages: add \
             `build.rs` with `fn main() {{ clir_codegen::build::run() }}` and `clir-codegen` under \
             [build-dependencies] in Cargo.toml"
        ));
    };
    let index_path = out_dir.join(INDEX);
    let Ok(index) = std::fs::read_to_string(&index_path) else {
        return Err(format!(
            "`include_clir!(\"{value}\")`: this crate's build script compiled no law packages ({} is missing): \
             call `clir_codegen::build::run()` from build.rs",
            index_path.display()
        ));
    };
    let manifest = index.lines().find_map(|l| l.strip_prefix("law.toml ")).unwrap_or("law.toml");
    let module = index.lines().filter_map(|l| l.strip_prefix("package ")).find_map(|l| {
        let (n, m) = l.split_once(' ')?;
        (n == value).then(|| m.to_string())
    });
    let Some(module) = module else {
        return Err(format!(
            "package `{value}` is not listed in law.toml ({manifest}): add it under [dependencies] \
             (`clir add PACKAGE.lawir.json` copies it into sources/ and pins it in law.lock), review it, and build again"
        ));
    };
    let file = format!("/clir/{module}.rs");
    let index_file = format!("/{INDEX}");
    let module = format_ident!("{}", module);
    Ok(quote! {
        #[doc = concat!("The law package `", #name, "`, compiled by this crate's build script from law.toml.")]
        #[allow(dead_code, clippy::disallowed_names, clippy::too_many_arguments, clippy::type_complexity, clippy::nonminimal_bool, clippy::overly_complex_bool_expr, clippy::double_comparisons, clippy::impossible_comparisons, clippy::redundant_comparisons, non_snake_case, non_camel_case_types)]
        pub mod #module {
            // Rebuilt when the build script rewrites the index (a package added or removed).
            const _: &str = include_str!(concat!(env!("OUT_DIR"), #index_file));
            include!(concat!(env!("OUT_DIR"), #file));
        }
    })
}
