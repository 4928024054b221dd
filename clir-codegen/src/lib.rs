//! The CLIR compiler: a pipeline of passes from a package document to formatted Rust.
//!
//! `ir` (model, canonical bytes, hashes) -> `verify` (seal, hashes, pins, features) ->
//! `resolve` (names, types, safety) -> `strata` (stratification, layers) -> `plan` (per rule its
//! operands, join order, keys and views; per stratum its layers and fixpoints) -> `emit` (the
//! plan printed as Rust, formatted), or -> `show` (the program as Datalog for people). Rules and
//! literals are printed by one printer, [`datalog`], wherever they are shown. Every pass returns
//! its errors as [`Diagnostics`]; nothing here prints or exits.

// A `Diagnostic` (located, with notes and help) is larger than clippy's 128-byte threshold for
// `Err`; errors are the cold path of every pass, so they stay unboxed.
#![allow(clippy::result_large_err)]

pub mod canonical;
pub mod compilation;
pub mod datalog;
pub mod diag;
pub mod ir;
pub mod project;
pub mod verify;

pub use compilation::{compile, Compilation};
pub use diag::{Diagnostic, Diagnostics, Source};
pub mod build;
pub mod emit;
pub mod names;
pub mod plan;
pub mod resolve;
pub mod show;
pub mod strata;
pub mod text;
pub mod validate;

/// Compiles a parsed (and verified) document to formatted Rust: resolve, stratify, plan, emit.
///
/// This and the other `*_document` functions run [`compile`] once each; a caller printing one
/// document more than one way compiles it once and calls the printers (`emit::emit_with`,
/// `show::render`, `show::plan`).
pub fn compile_document(doc: &verify::Verified, seal: &str) -> Result<String, Diagnostics> {
    compile_document_with(doc, seal, true)
}

/// The plan of a parsed (and verified) document, written for people (`clir compile --plan`).
pub fn plan_document(doc: &verify::Verified) -> Result<String, Diagnostics> {
    Ok(show::plan(&compile(doc)?))
}

/// The package of a parsed (and verified) document as readable Datalog, stratum by stratum
/// (`clir show`; [`show`]).
pub fn show_document(doc: &verify::Verified) -> Result<String, Diagnostics> {
    Ok(show::render(&compile(doc)?))
}

/// [`compile_document`], optionally without explanation code (`clir compile --no-explanations`).
pub fn compile_document_with(doc: &verify::Verified, seal: &str, explanations: bool) -> Result<String, Diagnostics> {
    Ok(emit::emit_with(&compile(doc)?, seal, explanations))
}
