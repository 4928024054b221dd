//! The CLIR compiler: a pipeline of passes from a package document to formatted Rust.
//!
//! `ir` (model, canonical bytes, hashes) -> `verify` (seal, hashes, pins, features) ->
//! `resolve` (names, types, safety) -> `strata` (stratification, layers) -> `plan` (join order
//! and keys) -> `emit` (Rust tokens, formatted). Every pass returns its errors as
//! [`Diagnostics`]; nothing here prints or exits.

pub mod canonical;
pub mod diag;
pub mod ir;

pub use diag::{Diagnostic, Diagnostics};
