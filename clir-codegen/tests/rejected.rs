//! Packages the compiler must reject: golden files. Each `tests/rejected/<case>.clir` is a
//! package in the test kit's notation with one defect; `<case>.err` is what clir reports, in
//! the rendered form users see (`clir compile`, build scripts). A package that verifies must fail
//! to compile (only verified documents reach the compiler). No input may panic.
//!
//! `UPDATE_GOLDEN=1 cargo test -p clir-codegen --test rejected` rewrites the `.err` files.

use clir_codegen::canonical::seal;
use clir_codegen::verify::{verify_bytes, VerifyOptions};
use clir_codegen::{compile_document, Source};
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rejected")
}

/// What clir reports for the package of `text`: the verification failures, or, for a package
/// that verifies, the compiler's errors.
fn report(text: &str) -> Result<String, String> {
    let pkg = clir_testkit::Package::parse(text).map_err(|e| format!("the notation does not parse: {e}"))?;
    let bytes = pkg.bytes();
    let verified = verify_bytes(&bytes, &VerifyOptions::default());
    let parsed = verified.document.clone();
    let src = Source { package: Some(&pkg.name), document: parsed.as_ref() };
    if !verified.ok() {
        return Ok(verified.failures().render("error", src));
    }
    match compile_document(&verified.into_document().map_err(|e| e.to_string())?, &seal(&bytes)) {
        Ok(_) => Err("the package compiled; it must be rejected".into()),
        Err(d) => Ok(d.render("error", src)),
    }
}

#[test]
fn every_rejected_package_matches_its_golden_file() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "clir"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 13, "the golden cases are missing from {}", dir().display());
    let mut failures = Vec::new();
    for case in &cases {
        let text = std::fs::read_to_string(case).unwrap();
        let got = match std::panic::catch_unwind(|| report(&text)) {
            Ok(Ok(got)) => got,
            Ok(Err(why)) => {
                failures.push(format!("{}: {why}", case.display()));
                continue;
            }
            Err(_) => {
                failures.push(format!("{}: the compiler panicked", case.display()));
                continue;
            }
        };
        let golden = case.with_extension("err");
        if update {
            std::fs::write(&golden, &got).unwrap();
            continue;
        }
        match std::fs::read_to_string(&golden) {
            Ok(want) if want == got => {}
            Ok(want) => failures.push(format!("{}:\n--- expected\n{want}\n--- found\n{got}", golden.display())),
            Err(_) => failures.push(format!("{}: missing", golden.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n\nrefresh with: UPDATE_GOLDEN=1 cargo test -p clir-codegen --test rejected",
        failures.join("\n\n")
    );
}

#[test]
fn the_base_package_compiles() {
    // Guards the golden cases: each is rejected for its one defect, not for the base they share.
    let pkg = clir_testkit::Package::parse(
        "package test.rejected 0.1.0
         type Game
         type Player
         empirical started(game: Game)
         empirical player_of(game: Game, who: Player)
         empirical moves(game: Game, n: Integer)
         const Playing: Game
         institutional p(game: Game)
         judgment touched(who: Player) by judgment:Arbiter
         rule Ok strict: p(g) :- player_of(g, w), supported moves(g, n), n >= 75",
    )
    .unwrap();
    let bytes = pkg.bytes();
    let report = verify_bytes(&bytes, &VerifyOptions::default());
    assert!(report.ok(), "{}", report.failures());
    compile_document(&report.into_document().unwrap(), &seal(&bytes)).unwrap();
}
