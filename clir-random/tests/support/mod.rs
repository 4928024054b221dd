//! What the checks of generated output share: how many fact sets to try, the cases of each
//! package, and ruling them with one set of options.

use clir::jsonl::{rule_chunk, Catalog, Options};
use clir_codegen::ir::Document;
use serde_json::Value;

/// The number of fact-set seeds per package from the environment variable `var`, or `default`.
pub fn seeds(var: &str, default: u64) -> u64 {
    std::env::var(var).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// The cases tried on random package `seed`: `seeds` random fact sets.
pub fn random_cases(seed: u64, doc: &Document, seeds: u64) -> Vec<Value> {
    (0..seeds).flat_map(|k| clir_reference::random::facts(seed * 1000 + k, doc)).collect()
}

/// The cases tried on demo package `name`: `10 * seeds` random fact sets, and for
/// `demo.library.loans` the cases of examples/downstream.
pub fn demo_cases(name: &str, doc: &Document, seeds: u64) -> Vec<Value> {
    let mut cases: Vec<Value> = (0..10 * seeds).flat_map(|k| clir_reference::random::facts(k, doc)).collect();
    if name == "demo.library.loans" {
        let given = include_str!("../../../examples/downstream/cases.jsonl");
        cases.extend(given.lines().map(|l| serde_json::from_str::<Value>(l).expect("a case line")));
    }
    cases
}

/// Every grant `pkg` knows.
pub fn grants(pkg: &dyn clir::Package) -> Vec<String> {
    pkg.schema().relations.iter().filter_map(|r| r.capability.map(str::to_string)).collect()
}

/// Rules `cases` with `options`: (the case lines, the ruling lines), in order.
pub fn rule(pkg: &dyn clir::Package, cases: &[Value], options: &Options) -> (Vec<String>, Vec<String>) {
    let cat = Catalog::new(pkg.schema());
    let lines: Vec<(usize, String)> = cases.iter().enumerate().map(|(i, c)| (i + 1, c.to_string())).collect();
    let (out, _) = rule_chunk(pkg, &cat, &lines, options);
    (lines.into_iter().map(|(_, l)| l).collect(), out)
}
