//! `CODEC`: the tables the runtime reads case lines and writes ruling lines with
//! (`clir::jsonl::Codec`): the input keys as a perfect hash rustc computes when it compiles the
//! module (`clir::jsonl::KeyTable::new` is a `const fn`), their slots, and the ruling keys
//! escaped as JSON. Each table holds as many entries a line as fit ([`fill`]).

use super::{fill, lit, Emitter};
use crate::plan::lines::lines;
use proc_macro2::TokenStream;

/// The indentation of `INPUT_KEYS`' entries.
const KEY: &str = "    ";

/// The indentation of the entries of `CODEC`'s tables.
const ENTRY: &str = "        ";

impl Emitter<'_> {
    pub(super) fn codec(&mut self) -> TokenStream {
        let plan = lines(self.p);
        let n = plan.inputs.len();
        let keys = fill(plan.inputs.iter().map(|(k, _)| lit(k)), KEY);
        let slots = fill(plan.inputs.iter().map(|(_, s)| s.to_string()), ENTRY);
        // `"key":` as the writer writes it: a JSON string, then the colon.
        let ruling_key = |k: &str| lit(&format!("{}:", serde_json::Value::from(k)));
        let rulings = fill(plan.rulings.iter().map(|(k, s)| format!("({s}, {})", ruling_key(k))), ENTRY);
        self.verbatim(format!(
            "/// The keys of `facts` a case may give, by perfect hash (computed when this module is\n\
             /// compiled: a package of thousands of relations takes rustc a while, in bounded loops).\n\
             #[allow(long_running_const_eval)]\n\
             static INPUT_KEYS: ::clir::jsonl::KeyTable<\n    \
             {{ ::clir::jsonl::table_sizes({n}).0 }},\n    \
             {{ ::clir::jsonl::table_sizes({n}).1 }},\n\
             > = ::clir::jsonl::KeyTable::new(&[\n{keys}]);\n\
             /// How the runtime reads this package's case lines and writes its ruling lines.\n\
             pub static CODEC: ::clir::jsonl::Codec = ::clir::jsonl::Codec {{\n    \
             keys: &INPUT_KEYS,\n    \
             slots: &[\n{slots}    ],\n    \
             ruling_keys: &[\n{rulings}    ],\n\
             }};\n"
        ))
    }
}
