//! Cases in and rulings out as JSON Lines (docs/FORMAT.md), for any compiled package.
//!
//! A line is read straight into the batch's flat rows: names borrowed from the line, no
//! `serde_json::Value` per fact (only the `case` value and the values an error message quotes
//! are kept as JSON). A ruling line is written straight from the output's sorted rows.
//!
//! Its modules, each over the ones before it: `text` (JSON strings and values as lines write
//! them), `keys` (the key tables a compiled package's `Codec` holds), `read` (a run's options,
//! the package's catalog and the full reader of a case line), `fast` (the fast path of reading
//! the common shape of line), `write` (ruling and error lines) and `chunk` (a chunk of lines read
//! as one batch, evaluated and written). Their public items are re-exported here.

mod chunk;
mod fast;
mod keys;
mod read;
mod text;
mod write;

pub use chunk::{rule_chunk, rule_chunk_into};
pub use keys::{table_sizes, FindKey, KeyTable};
pub use read::{
    case_facts, in_force_at, is_iso_date, over_budget, unreadable, unreadable_reason, Catalog, Codec, ExplainForm,
    GrantedBy, Line, Options, DEFAULT_MAX_CASE_TUPLES, MAX_FACTS_PER_CASE, MAX_WHY_NOT_PER_CASE,
};
#[cfg(feature = "arrow")]
pub(crate) use read::{Adder, Arg, Read};
pub use text::compact_json;
#[cfg(feature = "arrow")]
pub(crate) use text::push_json;
#[cfg(feature = "arrow")]
pub(crate) use write::{by_case, tuple_order, why_not_entries};
pub use write::{cmp_tuple, error_line};
