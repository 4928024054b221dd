//! Compares the ruling lines compiled code wrote with the reference evaluator, for
//! benches/synthetic-reference.sh:
//!
//! ```sh
//! cargo run -q -p clir-reference --example agree -- cases PACKAGE SEEDS > cases.jsonl
//! clir run PACKAGE --input cases.jsonl --output rulings.jsonl
//! cargo run -q -p clir-reference --example agree -- compare PACKAGE cases.jsonl rulings.jsonl
//! ```
//!
//! `cases` writes the random fact sets of seeds `0..SEEDS` (`clir_reference::agree::cases`);
//! `compare` rules each case line with the reference (no grants) and compares it with the ruling
//! line of the same number, printing every disagreement and a summary line `agreed N,
//! disagreed M, ...`; ruling lines with explanations (`clir run --explain`) have them checked by
//! `clir_reference::explanations`, every unsound one printed and counted as a disagreement.
//! Exit status 0 when all agree, 1 on a disagreement, 2 when it cannot run.

use clir_codegen::ir::Document;
use clir_reference::agree::{cases, disagreement};
use clir_reference::explanations::Checker;
use clir_reference::Reference;
use serde_json::Value;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let run = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["cases", package, seeds] => write_cases(package, seeds),
        ["compare", package, case_file, ruling_file] => compare(package, case_file, ruling_file),
        _ => Err("usage: agree cases PACKAGE SEEDS | agree compare PACKAGE CASES RULINGS".to_string()),
    };
    match run {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("agree: {e}");
            ExitCode::from(2)
        }
    }
}

fn document(path: &str) -> Result<Document, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    Document::parse(&bytes).map_err(|e| format!("{path}: {e}"))
}

fn lines(path: &str) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    Ok(text.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect())
}

fn write_cases(package: &str, seeds: &str) -> Result<bool, String> {
    let seeds: u64 = seeds.parse().map_err(|_| format!("SEEDS must be a count, got {seeds:?}"))?;
    let doc = document(package)?;
    let out: String = cases(&doc, 0..seeds).iter().map(|c| format!("{c}\n")).collect();
    std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes()).map_err(|e| format!("stdout: {e}"))?;
    Ok(true)
}

fn compare(package: &str, case_file: &str, ruling_file: &str) -> Result<bool, String> {
    let doc = document(package)?;
    let reference = Reference::new(&doc).map_err(|e| format!("{package}: the reference cannot evaluate it: {e}"))?;
    let (cases, rulings) = (lines(case_file)?, lines(ruling_file)?);
    if cases.len() != rulings.len() {
        return Err(format!("{} case lines but {} ruling lines", cases.len(), rulings.len()));
    }
    let checker = Checker::new(&doc);
    let start = Instant::now();
    let (mut agreed, mut disagreed, mut concluded, mut explained) = (0usize, 0usize, 0usize, 0usize);
    for (i, (case, got)) in cases.iter().zip(&rulings).enumerate() {
        let case: Value = serde_json::from_str(case).map_err(|e| format!("{case_file}:{}: {e}", i + 1))?;
        let want = reference.rule(&case, &[]);
        concluded += want["concluded"]
            .as_object()
            .map_or(0, |rels| rels.values().filter_map(Value::as_array).map(Vec::len).sum());
        let mut why: Vec<String> = disagreement(&want, got).into_iter().collect();
        let ruling: Value = serde_json::from_str(got).unwrap_or_default();
        if ruling.get("explanations").is_some() {
            let verdict = checker.check(&case, &[], &ruling);
            explained += verdict.checked;
            why.extend(verdict.unsound.iter().map(|(lit, e)| format!("unsound explanation of {lit}: {e}")));
        }
        if why.is_empty() {
            agreed += 1;
        } else {
            disagreed += 1;
            println!("disagreed: case {}: {}", case["case"], why.join("; "));
        }
    }
    println!(
        "agreed {agreed}, disagreed {disagreed} ({} rules, {} cases, {concluded} literals concluded by the reference, {explained} explanations checked, reference {:.1} s)",
        doc.nodes.iter().filter(|n| matches!(n.kind, clir_codegen::ir::NodeKind::Rule(_))).count(),
        cases.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(disagreed == 0)
}
