//! `CODEC`: the tables the runtime reads case lines and writes ruling lines with
//! (`clir::jsonl::Codec`): the input keys as a perfect hash rustc computes when it compiles the
//! module (`clir::jsonl::KeyTable::new` is a `const fn`), their slots, and the ruling keys
//! escaped as JSON.

use super::Emitter;
use crate::plan::lines::lines;
use crate::text::string_literal;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

impl Emitter<'_> {
    pub(super) fn codec(&self) -> TokenStream {
        let plan = lines(self.p);
        let n = Literal::usize_unsuffixed(plan.inputs.len());
        let keys = plan.inputs.iter().map(|(k, _)| string_literal(k));
        let slots = plan.inputs.iter().map(|&(_, s)| Literal::u32_unsuffixed(s));
        let rulings = plan.rulings.iter().map(|(k, s)| {
            // `"key":` as the writer writes it: a JSON string, then the colon.
            let key = string_literal(&format!("{}:", serde_json::Value::from(k.as_str())));
            let s = Literal::u32_unsuffixed(*s);
            quote!((#s, #key))
        });
        quote! {
            /// The keys of `facts` a case may give, by perfect hash (computed when this module is
            /// compiled: a package of thousands of relations takes rustc a while, in bounded loops).
            #[allow(long_running_const_eval)]
            static INPUT_KEYS: ::clir::jsonl::KeyTable<{ ::clir::jsonl::table_sizes(#n).0 }, { ::clir::jsonl::table_sizes(#n).1 }> =
                ::clir::jsonl::KeyTable::new(&[#(#keys),*]);

            /// How the runtime reads this package's case lines and writes its ruling lines.
            pub static CODEC: ::clir::jsonl::Codec = ::clir::jsonl::Codec {
                keys: &INPUT_KEYS,
                slots: &[#(#slots),*],
                ruling_keys: &[#(#rulings),*],
            };
        }
    }
}
