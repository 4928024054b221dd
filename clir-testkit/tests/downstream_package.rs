//! The package of `examples/downstream` (demo.library.loans 0.1.0), the crate outside the
//! workspace that uses clir as a user would: its committed file is the kit's canonical bytes of
//! the notation (`package/demo.library.loans.clir`) and the source text
//! (`sources/demo-library/en.txt`); it verifies (every check passes, the source text's
//! documentHash included), compiles, is pinned by the example's `law.lock`, and the reference
//! evaluator rules the example's cases as the loan rules say.
//!
//! `UPDATE_DOWNSTREAM=1 cargo test -p clir-testkit --test downstream_package` rewrites the
//! package file and `rulings.jsonl` from the notation, the source text and `cases.jsonl`; then
//! `clir lock --update demo.library.loans --root examples/downstream` pins the new file.

use clir_codegen::verify::{verify_bytes, Outcome, VerifyOptions};
use clir_testkit::{Node, Package};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const NAME: &str = "demo.library.loans";
const GRANT: &str = "judgment:Librarian";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/downstream")
}

fn updating() -> bool {
    std::env::var_os("UPDATE_DOWNSTREAM").is_some_and(|v| v == "1")
}

/// The package as the notation and the source text make it.
fn package() -> Package {
    let notation = std::fs::read_to_string(root().join("package/demo.library.loans.clir")).unwrap();
    let mut pkg = Package::parse(&notation).unwrap_or_else(|e| panic!("package/demo.library.loans.clir: {e}"));
    pkg.hash_sources(&root()).unwrap();
    pkg
}

fn blob_path() -> PathBuf {
    root().join("sources").join(package().file_name())
}

/// `path` holds `want`, or (with UPDATE_DOWNSTREAM=1) is rewritten to hold it.
fn fresh(path: &Path, want: &[u8]) {
    if updating() {
        std::fs::write(path, want).unwrap();
        return;
    }
    let have = std::fs::read(path).unwrap_or_default();
    assert!(
        have == want,
        "{} is stale: UPDATE_DOWNSTREAM=1 cargo test -p clir-testkit --test downstream_package, then \
         `clir lock --update {NAME} --root examples/downstream`",
        path.display()
    );
}

#[test]
fn the_committed_package_file_is_the_notation_built() {
    let pkg = package();
    assert_eq!(pkg.name, NAME);
    assert_eq!(pkg.version, "0.1.0");
    assert_eq!(pkg.file_name(), "demo.library.loans-0.1.0.lawir.json");
    fresh(&blob_path(), &pkg.bytes());
}

#[test]
fn the_package_verifies_with_its_source_text_and_compiles() {
    let bytes = std::fs::read(blob_path()).unwrap();
    let opts = VerifyOptions {
        name: Some(NAME.into()),
        version: Some("0.1.0".into()),
        seal: Some(clir_codegen::canonical::seal(&bytes)),
        root: Some(root()),
        strict_sources: true,
        ..Default::default()
    };
    let report = verify_bytes(&bytes, &opts);
    for check in &report.checks {
        // Pass, or not compared where no pin was given.
        assert!(
            matches!(check.outcome, Outcome::Pass | Outcome::Skipped),
            "{}: {} {:?}",
            check.name,
            check.detail,
            check.diagnostics
        );
    }
    assert_eq!(report.check("documentHash").unwrap().detail, "1 source texts match");
    let seal = clir_codegen::canonical::seal(&bytes);
    let verified = report.into_document().unwrap();
    let code = clir_codegen::compile_document(&verified, &seal).unwrap_or_else(|d| panic!("{d:?}"));
    assert!(code.contains("pub struct JudgmentLibrarianGrant"), "the judgment's grant is generated");
    // Its plan (`clir compile --plan`), pinned: a change of join order or layers shows in a diff.
    let plan = clir_codegen::plan_document(&verified).unwrap_or_else(|d| panic!("{d:?}"));
    fresh(&root().join("package/demo.library.loans.plan"), plan.as_bytes());

    // Every article the rules anchor to is quoted from the source text word for word.
    let text = std::fs::read_to_string(root().join("sources/demo-library/en.txt")).unwrap();
    let pkg = package();
    let fragments: Vec<&str> = pkg
        .nodes
        .iter()
        .filter_map(|n| match n {
            Node::Fragment { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(fragments.len(), 10);
    for f in fragments {
        assert!(text.contains(f), "a fragment is not in the source text: {f}");
    }
}

#[test]
fn the_example_law_lock_pins_the_committed_file() {
    if updating() {
        return; // the lock is rewritten by `clir lock --update`, after this run
    }
    let project = clir_codegen::project::load(&root()).unwrap_or_else(|d| panic!("{d:?}"));
    let verified = clir_codegen::project::verify_all(&project).unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(verified.len(), 1);
    assert_eq!(verified[0].spec.name, NAME);
    assert!(verified[0].warnings.is_empty(), "{:?}", verified[0].warnings);
    assert_eq!(verified[0].pin.seal, package().seal());
}

/// The reference evaluator's ruling of each line of `cases.jsonl`, by case name.
fn reference_rulings(grants: &[String]) -> Vec<Value> {
    let doc = clir_codegen::ir::Document::parse(&package().bytes()).unwrap();
    let cases = std::fs::read_to_string(root().join("cases.jsonl")).unwrap();
    cases
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| clir_reference::evaluate(&doc, &serde_json::from_str(l).unwrap(), grants))
        .collect()
}

fn ruling<'a>(rulings: &'a [Value], case: &str) -> &'a Value {
    rulings.iter().find(|r| r["case"] == case).unwrap_or_else(|| panic!("no case {case}"))
}

#[test]
fn the_reference_evaluator_rules_the_example_cases_as_the_rules_say() {
    let rulings = reference_rulings(&[GRANT.to_string()]);

    // Article 4: not reserved (closure of Article 3.2), renewed fewer than two times.
    let r = ruling(&rulings, "renewal");
    assert_eq!(r["concluded"]["may_renew"], json!([["L1"]]));
    assert_eq!(r["concluded"]["~reserved"], json!([["B1"]]));
    assert_eq!(r["definite"]["~reserved"], json!([["B1"]]), "closure negatives are definite");
    assert_eq!(r["concluded"]["may_borrow"], json!([["alice"]]));
    assert!(r["definite"].get("may_renew").is_none(), "a defeasible conclusion is not definite");

    // Article 5: reserved by another member.
    let r = ruling(&rulings, "reserved");
    assert_eq!(r["concluded"]["~may_renew"], json!([["L2"]]));
    assert!(r["concluded"].get("may_renew").is_none());
    assert_eq!(r["concluded"]["reserved"], json!([["B2"]]));

    // Article 6 beats Article 5 (priority StaffLoans).
    let r = ruling(&rulings, "staff");
    assert_eq!(r["concluded"]["may_renew"], json!([["L3"]]));
    assert!(r["concluded"].get("~may_renew").is_none());

    // Articles 7, 8 and 9: strict rules against defeasible ones; the librarian's finding.
    let r = ruling(&rulings, "damaged");
    assert_eq!(r["definite"]["~may_renew"], json!([["L4"]]));
    assert!(r["concluded"].get("may_renew").is_none());
    assert_eq!(r["definite"]["~may_borrow"], json!([["frank"]]));
    assert!(r["concluded"].get("may_borrow").is_none());
    assert_eq!(r["definite"]["liable_for_damage"], json!([["frank", "B4"]]));
    assert_eq!(r["definite"]["overdue"], json!([["L4"]]));

    // Renewed twice: Article 4 does not apply, and nothing forbids renewal either.
    let r = ruling(&rulings, "renewed-twice");
    assert!(r["concluded"].get("may_renew").is_none() && r["concluded"].get("~may_renew").is_none());

    // A staff member's overdue loan: Article 7.2 is strict, the staff exception does not help.
    let r = ruling(&rulings, "staff-overdue");
    assert_eq!(r["definite"]["~may_renew"], json!([["L6"]]));
    assert!(r["concluded"].get("may_renew").is_none());
    assert_eq!(r["concluded"]["may_borrow"], json!([["hugo"]]), "3 days overdue does not suspend");

    for r in &rulings {
        assert_eq!(r["contradictions"], json!([]), "{r}");
    }

    // `downstream --jsonl --grant judgment:Librarian < cases.jsonl` writes exactly these lines
    // (its keys in the order the runtime writes them).
    let mut lines = String::new();
    for r in &rulings {
        let fields: Vec<String> = ["case", "concluded", "definite", "contradictions", "error"]
            .iter()
            .filter_map(|k| Some(format!("{}:{}", json!(k), r.get(*k)?)))
            .collect();
        lines.push_str(&format!("{{{}}}\n", fields.join(",")));
    }
    fresh(&root().join("rulings.jsonl"), lines.as_bytes());
}

#[test]
fn the_librarians_finding_needs_the_librarians_grant() {
    let rulings = reference_rulings(&[]);
    let r = ruling(&rulings, "damaged");
    let error = r["error"].as_str().unwrap_or_else(|| panic!("accepted without the grant: {r}"));
    assert!(error.contains("found_damaged") && error.contains(GRANT), "{error}");
    assert!(ruling(&rulings, "renewal").get("error").is_none());
}
