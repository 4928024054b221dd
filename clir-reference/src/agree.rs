//! Checking rulings written by compiled code against the reference: the cases to try and the
//! comparison of one ruling line. Shared by clir-random's property tests and
//! `examples/agree.rs` (benches/synthetic-reference.sh).

use crate::random;
use clir_codegen::ir::Document;
use serde_json::Value;
use std::ops::Range;

/// The random fact sets ([`random::facts`]) of `seeds` for `doc`, case `k` of seed `s` named
/// `s<s>c<k>` so that every case of the run has a name of its own.
pub fn cases(doc: &Document, seeds: Range<u64>) -> Vec<Value> {
    seeds
        .flat_map(|seed| {
            random::facts(seed, doc).into_iter().map(move |mut case| {
                let name = format!("s{seed}{}", case["case"].as_str().unwrap_or_default());
                case["case"] = Value::String(name);
                case
            })
        })
        .collect()
}

/// Why the ruling line `got` (as `clir rule` writes it) is not the reference's ruling `want`, or
/// `None` when it is. `warnings` (advice on the input, DECISIONS 44) and `explanations` (checked
/// by [`crate::explanations`]) are not part of the comparison.
pub fn disagreement(want: &Value, got: &str) -> Option<String> {
    let mut got: Value = match serde_json::from_str(got) {
        Ok(v) => v,
        Err(e) => return Some(format!("the ruling line is not JSON ({e}): {got}")),
    };
    if let Some(line) = got.as_object_mut() {
        line.remove("warnings");
        line.remove("explanations");
    }
    if got == *want {
        return None;
    }
    let keys = ["case", "error", "concluded", "definite", "contradictions"];
    let differ: Vec<String> = keys
        .iter()
        .filter(|k| got.get(**k) != want.get(**k))
        .map(|k| format!("{k}: generated {}, reference {}", shown(got.get(*k)), shown(want.get(*k))))
        .collect();
    Some(if differ.is_empty() { format!("generated {got}, reference {want}") } else { differ.join("; ") })
}

fn shown(v: Option<&Value>) -> String {
    v.map_or_else(|| "absent".to_string(), Value::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn warnings_and_explanations_are_not_compared() {
        let want = json!({"case": "c", "concluded": {}, "definite": {}, "contradictions": []});
        let got = r#"{"case":"c","concluded":{},"definite":{},"contradictions":[],"warnings":["w"],"explanations":{}}"#;
        assert_eq!(disagreement(&want, got), None);
        let other = r#"{"case":"c","concluded":{"p":[["a"]]},"definite":{},"contradictions":[]}"#;
        assert_eq!(disagreement(&want, other).as_deref(), Some(r#"concluded: generated {"p":[["a"]]}, reference {}"#));
        assert!(disagreement(&want, "{").unwrap().starts_with("the ruling line is not JSON"));
    }
}
