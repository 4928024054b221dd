//! `clir_notation::print` then `clir_notation::pack` gives back the same bytes, byte for byte,
//! for every kind of package the tests have: the random packages of `clir-reference` (plain
//! and with adversarial names), the synthetic scale packages, the test kit's own, and the
//! packages this repository keeps (fide.laws.chess 0.1.0 and its amended 0.2.0, the downstream
//! and big-case demos). The notation written for fide.laws.chess says its rules as rules.

#[path = "../examples/synthetic/generator.rs"]
mod generator;

use clir_reference::random;
use std::path::Path;

/// Prints `bytes` and packs the notation: the same bytes, or the test fails saying where.
fn round_trip(what: &str, bytes: &[u8]) -> String {
    let text = clir_notation::print(bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
    let packed = clir_notation::pack(&text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
    assert!(packed == bytes, "{what}: packed bytes differ\n{text}");
    text
}

fn repo(path: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)).unwrap()
}

#[test]
fn the_packages_of_this_repository() {
    for path in [
        "sources/fide.laws.chess-0.1.0.lawir.json",
        "tests/data/fide.laws.chess-0.2.0.lawir.json",
        "examples/downstream/sources/demo.library.loans-0.1.0.lawir.json",
        "benches/big-case/sources/demo.roads-0.1.0.lawir.json",
    ] {
        let text = round_trip(path, &repo(path));
        assert!(!text.contains("node {"), "{path}: a node written raw\n{text}");
    }
}

#[test]
fn fide_laws_chess_reads_as_rules() {
    let text = round_trip("fide", &repo("sources/fide.laws.chess-0.1.0.lawir.json"));
    assert!(text
        .contains("rule SeventyFiveAutomaticDraw defeasible \"Article 9.6.2. The game is drawn if at least 75 moves"));
    assert!(text.contains(
        "@FIDE_ART_9:\n    game_drawn(v0) :- v1 >= 75, established moves_by_each_without_pawn_or_capture(v0, v1)\n"
    ));
    assert!(text.contains(
        "priority CheckmateOverSeventyFiveMoves: CheckmateTakesPrecedenceOverSeventyFive > SeventyFiveAutomaticDraw \
         reason lex_specialis @FIDE_ART_9"
    ));
    // Every node by its own statement: no generic clause, no raw node.
    assert!(!text.contains(" set ") && !text.contains(" unset ") && !text.contains("node "), "{text}");
    assert!(text.contains("edition FIDE_LAWS_2023 of FIDE_LAWS_OF_CHESS language en"), "{text}");
    let rules = text.lines().filter(|l| l.starts_with("rule ")).count();
    assert_eq!(rules, 47);
    assert!(
        text.contains("judgment case_not_precisely_regulated(situation: Situation) judged-by FIDEArbiter"),
        "{text}"
    );
}

#[test]
fn random_packages() {
    let n: u64 = std::env::var("CLIR_NOTATION_RANDOM").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let mut raw = 0;
    for seed in 0..n {
        let text = round_trip(&format!("random seed {seed}"), &random::package_bytes(seed, &random::Config::default()));
        raw += text.matches("node {").count();
    }
    assert_eq!(raw, 0, "nodes written raw in random packages");
    let adversarial = random::Config { adversarial: true, ..random::Config::default() };
    for seed in 0..n / 4 {
        round_trip(&format!("adversarial seed {seed}"), &random::package_bytes(seed, &adversarial));
    }
}

#[test]
fn synthetic_scale_packages() {
    for (rules, seed) in [(60, 1), (600, 2), (3200, 3)] {
        let pkg = generator::package(rules, seed);
        let text = round_trip(&format!("synthetic {rules}"), &pkg.bytes());
        assert!(!text.contains("node {"), "synthetic {rules}: a node written raw");
    }
}

/// The notation files of the tests: the compiler's rejected packages (each with one defect the
/// compiler finds, past verification) and the random crate's hand-made fixtures.
#[test]
fn the_notation_files_of_the_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut seen = 0;
    for dir in ["clir-codegen/tests/rejected", "clir-random/fixtures"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for path in files.iter().filter(|p| p.extension().is_some_and(|e| e == "clir")) {
            let text = std::fs::read_to_string(path).unwrap();
            let pkg = clir_testkit::Package::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            round_trip(&path.display().to_string(), &pkg.bytes());
            seen += 1;
        }
    }
    assert!(seen >= 20, "{seen} notation files");
}
