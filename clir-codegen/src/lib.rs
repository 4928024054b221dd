//! The CLIR compiler: a pipeline of passes from a package document to formatted Rust.
//!
//! `ir` (the model, parsed) -> `verify` (seal, hashes, pins, features; its `references` check is
//! `validate`, whose symbol table the `Verified` document carries) -> `resolve` (the rules against
//! that table: names, types, safety) -> `strata` (stratification, layers) -> `plan`
//! (per rule its operands, join order, keys and views; per stratum its layers and fixpoints) ->
//! `names` (every identifier of the generated module). [`compile`] runs the passes after
//! verification once and gives a [`Compilation`], which the printers take: `emit` (the plan as
//! Rust, formatted) and `show` (the program as Datalog, and the plan, for people). Rules and
//! literals are printed by one printer, [`datalog`], wherever they are shown. Every pass returns
//! its errors as [`Diagnostics`] (`diag`), which `render` writes for people and tools; nothing
//! here prints or exits.
//!
//! Modules import downwards only, in this order: `diag`, `canonical`, `files`, `text` (which
//! import no other module); `ir`; `validate`; `verify`; `resolve`; `datalog`; `strata`; `plan`;
//! `names`; `compilation`; `show`; `emit`; `render`; `project`; `build`; `seal`; `analyze` (the
//! static analysis of `clir analyze`, on the resolved program). A printer's methods on a
//! pass's types live with the printer (`Program::show_rule` in `datalog`, `RulePlan::show_joins`
//! in `show`, `Diagnostic::render` in `render`), so that no pass imports one. `tests/layers.rs`
//! checks the order.

// A `Diagnostic` (located, with notes and help) is larger than clippy's 128-byte threshold for
// `Err`; errors are the cold path of every pass, so they stay unboxed.
#![deny(missing_docs)]
#![allow(clippy::result_large_err)]

pub mod analyze;
pub mod build;
pub mod canonical;
pub mod compilation;
pub mod datalog;
pub mod diag;
pub mod emit;
pub mod files;
pub mod ir;
pub mod names;
pub mod plan;
pub mod project;
pub mod render;
pub mod resolve;
pub mod seal;
pub mod show;
pub mod strata;
pub mod text;
pub mod validate;
pub mod verify;

pub use compilation::{compile, Compilation};
pub use diag::{Diagnostic, Diagnostics};
pub use render::Source;

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
    show_document_in(doc, 0)
}

/// [`show_document`] with labels in language `language`, an index into the document's
/// [`ir::Document::languages`] (where the package carries them).
pub fn show_document_in(doc: &verify::Verified, language: usize) -> Result<String, Diagnostics> {
    Ok(show::render_in(&compile(doc)?, language))
}

/// [`compile_document`], optionally without explanation code (`clir compile --no-explanations`).
pub fn compile_document_with(doc: &verify::Verified, seal: &str, explanations: bool) -> Result<String, Diagnostics> {
    Ok(emit::emit_with(&compile(doc)?, seal, explanations))
}

/// [`compile_document_with`] as several crates ([`emit::emit_crates`]): the package's strata in
/// groups of at most `max_rules` rules, each a crate named `<prefix>_g<k>`, beside a base crate
/// `<prefix>_base` and the package's module, which calls them.
pub fn compile_document_crates(
    doc: &verify::Verified,
    seal: &str,
    explanations: bool,
    max_rules: usize,
    prefix: &str,
) -> Result<emit::Crates, Diagnostics> {
    Ok(emit::emit_crates(&compile(doc)?, seal, explanations, max_rules, prefix))
}
