//! clir: CLIR law packages compiled to native datafrog code.
//!
//! This crate is the runtime generated modules use: interning, case batches, JSON Lines,
//! explanations, diffs between two versions of a law ([`diff`]). It holds no law package: a
//! crate lists its packages in its own `law.toml`, its `build.rs` compiles them
//! (`clir_codegen::build::run()`), and [`include_clir!`] brings one into scope. No feature is on
//! by default; `command` adds the `clir rule` command line for one package
//! (`command::package_main`, what `clir run` builds), `stream` the rulings kept current as facts
//! change (`clir::stream`), `python` a package as a Python extension module (`clir::python`, what
//! `clir wheel` builds), `arrow` (which `python` turns on) cases and rulings as Arrow record
//! batches (`clir::arrow`). The `clir` binary is another package, `clir-cli`.
//!
//! The modules in layers, each importing only from the layers before it (`tests/layers.rs`
//! holds this order):
//!
//! 1. [`value`] (interning, rows, the `Binding` a join writes), [`suggest`] (did-you-mean),
//!    `outfile` (atomic output files);
//! 2. [`schema`] (what a package declares, and the `slot` of a relation's sign);
//! 3. [`instance`] (the rule and closure instances an evaluation records) and [`reason`] (a
//!    why-not answer as data);
//! 4. [`rt`] (what generated datafrog code calls: leapers, layers, rule tables);
//! 5. [`batch`] (a batch of cases and its [`Output`]);
//! 6. [`explain`] (choosing proofs among the instances), [`why_not`] (answering a why-not),
//!    the `typed` API macros;
//! 7. [`certificate`], [`coverage`];
//! 8. [`jsonl`], in its own layers: `text`, `keys`, `read`, `fast`, `write`, `chunk`;
//! 9. [`runner`] (reading input in chunks over threads) and [`diff`];
//! 10. [`lawtest`];
//! 11. `arrow` (behind its feature: cases and rulings as Arrow record batches);
//! 12. `command`, `python`, `stream` (behind their features).
//!
//! [`Package`], which names [`jsonl::Codec`], stands at the `jsonl` reader's layer.

#![deny(missing_docs)]

extern crate self as clir;

#[cfg(feature = "arrow")]
pub mod arrow;
pub mod batch;
pub mod certificate;
#[cfg(feature = "command")]
pub mod command;
pub mod coverage;
pub mod diff;
pub mod explain;
pub mod instance;
pub mod jsonl;
pub mod lawtest;
#[cfg(any(feature = "command", feature = "stream"))]
pub mod outfile;
#[cfg(feature = "python")]
pub mod python;
pub mod reason;
pub mod rt;
pub mod runner;
pub mod schema;
#[cfg(feature = "stream")]
pub mod stream;
pub mod suggest;
mod typed;
pub mod value;
pub mod why_not;

pub use batch::{case_rows, flatten, slot, Batch, Conclusions, Output};
pub use clir_macros::include_clir;
pub use instance::{Instance, Layer, Premise, Source};
pub use reason::{Asked, Reason, ReasonKind, Shown, Status, Trace, WhyNot};
pub use schema::{
    citation, ClosureInfo, ConstantInfo, FragmentInfo, ParamInfo, PriorityInfo, RelationInfo, RelationKind, RuleInfo,
    Schema, Texts, Translated, Translation,
};
pub use value::{CaseId, Column, Entity, Fact, Interner, Row, Str, Sym};

/// A compiled package, as the batch and JSONL paths use it.
pub trait Package: Sync {
    /// What the package declares.
    fn schema(&self) -> &'static Schema;
    /// Rules a batch of cases.
    fn evaluate(&self, batch: &Batch) -> Output;
    /// The tables its compiler generated for reading case lines and writing ruling lines
    /// (`None`: the runtime's generic reader and writer read and write them alike).
    fn codec(&self) -> Option<&'static crate::jsonl::Codec> {
        None
    }
}
