//! A test kit for CLIR packages: write a package in the notation of [`clir_notation`] (or build
//! it with the [`Package`] model), get the canonical document with every hash computed.
//!
//! ```
//! let pkg = clir_testkit::Package::parse(
//!     "package demo.reach 0.1.0
//!      type Node
//!      empirical edge(from: Node, to: Node)
//!      institutional reach(from: Node, to: Node)
//!      rule Step strict: reach(x, y) :- edge(x, y)
//!      rule Trans strict: reach(x, z) :- reach(x, y), edge(y, z)",
//! )
//! .unwrap();
//! let bytes = pkg.bytes();
//! assert!(clir_codegen::verify::verify_bytes(&bytes, &Default::default()).ok());
//! ```
//!
//! The model and the notation are [`clir_notation`]'s, re-exported here: the tool (`clir pack`,
//! `clir show --notation`) and the tests read one notation with one parser.

pub use clir_notation::*;

pub mod rng;
