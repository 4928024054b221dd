//! The generated tables of a package (`CODEC`, issue 27) read and write exactly what the
//! runtime's generic reader and writer do: the same ruling and error lines, byte for byte, on
//! generated games, on the law tests' cases and on games cut, spliced and mutated at random.

use clir::jsonl::{rule_chunk, Catalog, Options};
use proptest::prelude::*;

clir::include_clir!("fide.laws.chess");

use clir::Package as _;
use fide_laws_chess::Package;

#[path = "../benches/gen.rs"]
mod gen;

/// The lines of `lines` ruled with the generated tables and without them.
fn both(lines: &[String], opts: &Options) -> (Vec<String>, Vec<String>) {
    let numbered: Vec<(usize, String)> = lines.iter().cloned().enumerate().map(|(i, l)| (i + 1, l)).collect();
    let generated = Catalog::of(&Package);
    assert!(generated.generated(), "the compiled package's tables agree with its schema");
    let generic = Catalog::new(Package.schema());
    assert!(!generic.generated());
    (rule_chunk(&Package, &generated, &numbered, opts).0, rule_chunk(&Package, &generic, &numbered, opts).0)
}

#[test]
fn generated_tables_rule_games_and_law_tests_alike() {
    let mut lines: Vec<String> = gen::lines(2000, 11).collect();
    let tests = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fide.laws.chess.tests.jsonl"))
        .expect("the law tests");
    lines.extend(tests.lines().filter(|l| !l.trim().is_empty()).map(str::to_string));
    for opts in [
        Options::default(),
        Options { grants: vec!["judgment:FIDEArbiter".into()], explain: true, ..Default::default() },
        Options { strict_constants: true, ..Default::default() },
    ] {
        let (generated, generic) = both(&lines, &opts);
        assert_eq!(generated.len(), lines.len());
        for (i, (a, b)) in generated.iter().zip(&generic).enumerate() {
            assert_eq!(a, b, "line {}: {}", i + 1, lines[i]);
        }
    }
}

/// Pieces spliced into a game line: keys of every kind the package has (input, negative,
/// institutional, judgment, misspelt), values of every JSON kind, escapes and white space.
fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        " ",
        "\"player_of\"",
        "\"~player_of\"",
        "\"game_drawn\"",
        "\"~game_drawn\"",
        "\"player_resigned\"",
        "\"piece_touched_intentionally\"",
        "\"player_off\"",
        "\"case\"",
        "\"facts\"",
        "\"why_not\"",
        "\"as_of\"",
        "\"StartPlay\"",
        "\"startPlay\"",
        "\"g\\u0031\"",
        "\"w\"",
        "75",
        "-0",
        "1.5",
        "1e3",
        "null",
        "true",
        "\"~\"",
        "\"\"",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn generated_tables_rule_random_lines_alike(seed in 0u64..1000, edits in prop::collection::vec((0usize..2000, prop::collection::vec(piece(), 0..4), 0usize..8), 1..8)) {
        let games: Vec<String> = gen::lines(8, seed).collect();
        let mut lines = games.clone();
        for (k, (at, pieces, cut)) in edits.into_iter().enumerate() {
            let line = &games[k % games.len()];
            let at = (0..=at.min(line.len())).rev().find(|&i| line.is_char_boundary(i)).unwrap_or(0);
            let rest = &line[at..];
            let skip = (0..=cut.min(rest.len())).rev().find(|&i| rest.is_char_boundary(i)).unwrap_or(0);
            lines.push(format!("{}{}{}", &line[..at], pieces.concat(), &rest[skip..]));
        }
        let (generated, generic) = both(&lines, &Options::default());
        prop_assert_eq!(generated, generic);
    }
}
