//! `print` then `pack` gives back the same bytes, for the packages of this repository.

use std::path::Path;

fn round_trip(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    let text = clir_notation::print(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let packed = clir_notation::pack(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()));
    assert!(packed == bytes, "{}: packed bytes differ", path.display());
    text
}

fn repo(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

#[test]
fn fide_laws_chess_prints_as_rules_and_packs_back() {
    let text = round_trip(&repo("sources/fide.laws.chess-0.1.0.lawir.json"));
    assert_eq!(text.lines().filter(|l| l.starts_with("rule ")).count(), 47);
    round_trip(&repo("tests/data/fide.laws.chess-0.2.0.lawir.json"));
}
