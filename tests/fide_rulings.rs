//! SEMANTICS.md §5: the worked rulings of fide.laws.chess 0.1.0, every row, through the JSON
//! Lines path (`clir::jsonl::rule_chunk` with the compiled-in package), and every row compared
//! with the test-only reference evaluator (`clir_reference::evaluate`).

use clir::jsonl::{rule_chunk, Catalog, Options};
clir::include_clir!("fide.laws.chess");

use clir::Package as _;
use clir_codegen::ir::Document;
use fide_laws_chess::Package;
use serde_json::{json, Value};

const FIDE: &[u8] = include_bytes!("../sources/fide.laws.chess-0.1.0.lawir.json");
const ARBITER: &str = "judgment:FIDEArbiter";

fn options(grants: &[&str]) -> Options {
    Options { grants: grants.iter().map(|g| g.to_string()).collect(), explain: false, ..Default::default() }
}

/// Rules `lines` as one chunk of JSON Lines; one parsed output line per input line.
fn rule_lines(lines: &[String], opts: &Options) -> Vec<Value> {
    let numbered: Vec<(usize, String)> = lines.iter().cloned().enumerate().map(|(i, l)| (i + 1, l)).collect();
    rule_numbered(&numbered, opts)
}

/// Rules `(line number, text)` pairs as one chunk of JSON Lines.
fn rule_numbered(numbered: &[(usize, String)], opts: &Options) -> Vec<Value> {
    let catalog = Catalog::new(Package.schema());
    let (out, errors) = rule_chunk(&Package, &catalog, numbered, opts);
    assert_eq!(out.len(), numbered.len(), "one output line per input line");
    let parsed: Vec<Value> = out
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("output line is not JSON ({e}): {l}")))
        .collect();
    assert_eq!(errors, parsed.iter().filter(|v| v.get("error").is_some()).count(), "error count");
    parsed
}

/// Rules one case given by its facts; panics on an error line.
fn rule(facts: Value) -> Value {
    let line = json!({"case": "g1", "facts": facts}).to_string();
    let out = rule_lines(&[line], &options(&[])).remove(0);
    assert!(out.get("error").is_none(), "unexpected error line: {out}");
    assert_eq!(out["case"], json!("g1"), "{out}");
    out
}

fn has(out: &Value, which: &str, rel: &str, tuple: &Value) -> bool {
    out[which].get(rel).and_then(Value::as_array).is_some_and(|ts| ts.contains(tuple))
}

/// Asserts `rel(tuple)` is concluded (`+d`); `rel` is `~name` for a negative.
#[track_caller]
fn concluded(out: &Value, rel: &str, tuple: Value) {
    assert!(has(out, "concluded", rel, &tuple), "expected {rel}{tuple} concluded in {out}");
}

/// Asserts `rel(tuple)` is not concluded (and so not definite either).
#[track_caller]
fn not_concluded(out: &Value, rel: &str, tuple: Value) {
    assert!(!has(out, "concluded", rel, &tuple), "expected {rel}{tuple} not concluded in {out}");
    assert!(!has(out, "definite", rel, &tuple), "expected {rel}{tuple} not definite in {out}");
}

/// Asserts `rel(tuple)` is definite (`+D`), and so concluded.
#[track_caller]
fn definite(out: &Value, rel: &str, tuple: Value) {
    concluded(out, rel, tuple.clone());
    assert!(has(out, "definite", rel, &tuple), "expected {rel}{tuple} definite in {out}");
}

/// Asserts `rel(tuple)` is concluded only defeasibly (`+d` but not `+D`).
#[track_caller]
fn only_defeasibly(out: &Value, rel: &str, tuple: Value) {
    concluded(out, rel, tuple.clone());
    assert!(!has(out, "definite", rel, &tuple), "expected {rel}{tuple} not definite in {out}");
}

// ---------------------------------------------------------------------------------------------
// The rows of §5, in table order. Each row's facts are also listed in `rows()` below for the
// comparison with the reference evaluator.

fn row01_facts() -> Value {
    json!({"stalemate_arisen": [["g"]]})
}
fn row02_facts() -> Value {
    json!({"checkmate_delivered": [["g", "w"]], "moves_by_each_without_pawn_or_capture": [["g", 80]]})
}
fn row03_facts() -> Value {
    json!({"moves_by_each_without_pawn_or_capture": [["g", 75]]})
}
fn row04_facts() -> Value {
    json!({"checkmate_delivered": [["g", "w"]], "stalemate_arisen": [["g"]]})
}
fn row05_facts() -> Value {
    json!({"player_of": [["g", "b"]], "player_resigned": [["b"]], "checked_player": [["b"]]})
}
fn row06_facts() -> Value {
    let mut f = row05_facts();
    f["king_cannot_be_checkmated"] = json!([["b"]]);
    f
}
fn row07_facts() -> Value {
    json!({"player_of": [["g", "b"]], "player_resigned": [["b"]]})
}
fn row08_facts() -> Value {
    json!({"checked_game": [["g"]]})
}
fn row09_facts() -> Value {
    json!({
        "procedure_instance": [["g"]],
        "play_started": [["g"]],
        "attempted_transition": [["g", "StartPlay"], ["g", "ConcludeByStalemate"]],
        "stalemate_arisen": [["g"]],
    })
}
fn row10_facts() -> Value {
    json!({
        "procedure_instance": [["g"]],
        "play_started": [["g"]],
        "attempted_transition": [["g", "StartPlay"], ["g", "ConcludeByDrawnClaim"]],
        "checkmate_delivered": [["g", "w"]],
        "moves_by_each_without_pawn_or_capture": [["g", 80]],
    })
}
fn row11_facts() -> Value {
    json!({
        "castling_side_of": [["g", "w", "k", "r"]],
        "king_of": [["w", "K"]],
        "rook_of": [["w", "r"]],
        "player_has_the_move": [["g", "w"]],
        "checked_piece": [["K"], ["r"]],
        "checked_castling_side": [["k"]],
    })
}
fn row12_facts() -> Value {
    let mut f = row11_facts();
    f["castling_path_attacked"] = json!([["k"]]);
    f
}
fn row13_facts() -> Value {
    json!({"piece_touched_intentionally": [["w", "n"]]})
}

#[test]
fn row01_stalemate_draws_and_ends_the_game() {
    let out = rule(row01_facts());
    concluded(&out, "game_drawn", json!(["g"]));
    concluded(&out, "stalemate_has_ended_the_game", json!(["g"]));
    // Both by strict rules from a fact.
    definite(&out, "game_drawn", json!(["g"]));
    definite(&out, "stalemate_has_ended_the_game", json!(["g"]));
}

#[test]
fn row02_checkmate_over_seventy_five_moves() {
    let out = rule(row02_facts());
    concluded(&out, "game_won_by", json!(["g", "w"]));
    concluded(&out, "~game_drawn", json!(["g"]));
    not_concluded(&out, "game_drawn", json!(["g"]));
    // ~game_drawn rests on a defeasible rule that wins by priority: not definite.
    only_defeasibly(&out, "~game_drawn", json!(["g"]));
    definite(&out, "game_won_by", json!(["g", "w"]));
    assert_eq!(out["contradictions"], json!([]), "{out}");
}

#[test]
fn row03_seventy_five_moves_alone_draw() {
    let out = rule(row03_facts());
    concluded(&out, "game_drawn", json!(["g"]));
    only_defeasibly(&out, "game_drawn", json!(["g"]));
    not_concluded(&out, "~game_drawn", json!(["g"]));
}

#[test]
fn row04_strict_stalemate_beats_defeasible_checkmate_precedence() {
    let out = rule(row04_facts());
    concluded(&out, "game_drawn", json!(["g"]));
    concluded(&out, "game_won_by", json!(["g", "w"]));
    not_concluded(&out, "~game_drawn", json!(["g"]));
    definite(&out, "game_drawn", json!(["g"]));
    // A defeasible rule losing to a strict one is no contradiction.
    assert_eq!(out["contradictions"], json!([]), "{out}");
}

#[test]
fn row05_resignation_with_mate_possible_loses() {
    let out = rule(row05_facts());
    concluded(&out, "game_lost_by", json!(["g", "b"]));
    concluded(&out, "resignation_has_ended_the_game", json!(["g"]));
    not_concluded(&out, "game_drawn", json!(["g"]));
    // The closure negative ~king_cannot_be_checkmated(b) is a fact (+D): the loss is definite.
    definite(&out, "game_lost_by", json!(["g", "b"]));
}

#[test]
fn row06_resignation_with_mate_impossible_draws() {
    let out = rule(row06_facts());
    concluded(&out, "game_drawn", json!(["g"]));
    not_concluded(&out, "game_lost_by", json!(["g", "b"]));
    concluded(&out, "resignation_has_ended_the_game", json!(["g"]));
}

#[test]
fn row07_resignation_with_mate_possibility_unknown() {
    let out = rule(row07_facts());
    concluded(&out, "resignation_has_ended_the_game", json!(["g"]));
    not_concluded(&out, "game_lost_by", json!(["g", "b"]));
    not_concluded(&out, "game_drawn", json!(["g"]));
}

#[test]
fn row08_move_not_recorded_as_legal_is_illegal() {
    let out = rule(row08_facts());
    concluded(&out, "illegal_move", json!(["g"]));
    not_concluded(&out, "legal_move", json!(["g"]));
    definite(&out, "illegal_move", json!(["g"]));
}

#[test]
fn row09_procedure_through_stalemate() {
    let out = rule(row09_facts());
    concluded(&out, "entered_state", json!(["g", "NotStarted"]));
    concluded(&out, "entered_state", json!(["g", "Playing"]));
    concluded(&out, "entered_state", json!(["g", "Ended"]));
    concluded(&out, "valid_transition", json!(["g", "ConcludeByStalemate"]));
    concluded(&out, "valid_transition", json!(["g", "StartPlay"]));
}

#[test]
fn row10_drawn_claim_premise_supported_but_not_concluded() {
    let out = rule(row10_facts());
    concluded(&out, "entered_state", json!(["g", "Playing"]));
    concluded(&out, "game_won_by", json!(["g", "w"]));
    concluded(&out, "~game_drawn", json!(["g"]));
    not_concluded(&out, "valid_transition", json!(["g", "ConcludeByDrawnClaim"]));
    not_concluded(&out, "entered_state", json!(["g", "Ended"]));
    not_concluded(&out, "game_drawn", json!(["g"]));
}

#[test]
fn row11_castling_legal() {
    let out = rule(row11_facts());
    concluded(&out, "castling_legal", json!(["g", "w", "k"]));
    definite(&out, "castling_legal", json!(["g", "w", "k"]));
}

#[test]
fn row12_castling_path_attacked_is_not_legal() {
    let out = rule(row12_facts());
    not_concluded(&out, "castling_legal", json!(["g", "w", "k"]));
}

#[test]
fn row13_judgment_without_grant_is_an_error_line() {
    let lines = [
        json!({"case": "g1", "facts": row13_facts()}).to_string(),
        // The explicit negative of a judgment needs the grant as well.
        json!({"case": "g2", "facts": {"~piece_touched_intentionally": [["w", "n"]]}}).to_string(),
    ];
    let out = rule_lines(&lines, &options(&[]));
    for (i, (o, case)) in out.iter().zip(["g1", "g2"]).enumerate() {
        assert_eq!(o["case"], json!(case), "{o}");
        let err = o["error"].as_str().unwrap_or_else(|| panic!("expected an error line: {o}"));
        assert!(err.starts_with(&format!("line {}: ", i + 1)), "{err}");
        assert!(err.contains("piece_touched_intentionally"), "the error names the relation: {err}");
        assert!(err.contains(ARBITER), "the error names the capability: {err}");
        assert!(o.get("concluded").is_none(), "an error line has no ruling: {o}");
    }
}

#[test]
fn row13_judgment_without_grant_rejects_only_its_line() {
    // The other lines of the chunk are still ruled.
    let lines = [
        json!({"case": "a", "facts": row01_facts()}).to_string(),
        json!({"case": "b", "facts": row13_facts()}).to_string(),
        json!({"case": "c", "facts": row01_facts()}).to_string(),
    ];
    let out = rule_lines(&lines, &options(&[]));
    assert!(out[1]["error"].is_string(), "{}", out[1]);
    for o in [&out[0], &out[2]] {
        definite(o, "game_drawn", json!(["g"]));
    }
    assert_eq!(out[0]["concluded"], out[2]["concluded"]);
}

#[test]
fn row13_judgment_with_grant_is_accepted() {
    let lines = [
        json!({"case": "g1", "facts": row13_facts()}).to_string(),
        json!({"case": "g2", "facts": {
            "piece_touched_intentionally": [["w", "n"]],
            "own_piece_of": [["w", "n"]],
            "piece_can_be_moved": [["n"]],
            "player_has_the_move": [["g", "w"]],
        }})
        .to_string(),
        json!({"case": "g3", "facts": {"~piece_touched_intentionally": [["w", "n"]]}}).to_string(),
    ];
    let out = rule_lines(&lines, &options(&[ARBITER]));
    for o in &out {
        assert!(o.get("error").is_none(), "accepted under --grant {ARBITER}: {o}");
    }
    assert_eq!(out[0]["concluded"], json!({}), "{}", out[0]);
    definite(&out[1], "must_move_first_touched_piece", json!(["w", "n"]));
    assert_eq!(out[2]["concluded"], json!({}), "{}", out[2]);
}

#[test]
fn row13_an_unrelated_grant_does_not_admit_the_judgment() {
    let lines = [json!({"case": "g1", "facts": row13_facts()}).to_string()];
    let out = rule_lines(&lines, &options(&["judgment:SomeoneElse"]));
    let err = out[0]["error"].as_str().unwrap_or_else(|| panic!("expected an error line: {}", out[0]));
    assert!(err.contains("piece_touched_intentionally") && err.contains(ARBITER), "{err}");
}

#[test]
fn all_rows_in_one_chunk_rule_as_alone() {
    // Every row uses the same entity names; ruled together they must not leak into each other.
    let rows = rows();
    let together: Vec<String> =
        rows.iter().map(|(name, facts)| json!({"case": name, "facts": facts}).to_string()).collect();
    let out_together = rule_lines(&together, &options(&[]));
    for (i, (line, joint)) in together.iter().zip(&out_together).enumerate() {
        // Same line number, so that error lines read the same.
        let alone = rule_numbered(&[(i + 1, line.clone())], &options(&[])).remove(0);
        assert_eq!(&alone, joint, "ruled alone vs. in a chunk of all rows");
    }
}

/// Every row of §5: name and facts.
fn rows() -> Vec<(&'static str, Value)> {
    vec![
        ("row01", row01_facts()),
        ("row02", row02_facts()),
        ("row03", row03_facts()),
        ("row04", row04_facts()),
        ("row05", row05_facts()),
        ("row06", row06_facts()),
        ("row07", row07_facts()),
        ("row08", row08_facts()),
        ("row09", row09_facts()),
        ("row10", row10_facts()),
        ("row11", row11_facts()),
        ("row12", row12_facts()),
        ("row13", row13_facts()),
    ]
}

/// Compares one output line of the compiled package with the reference evaluator's ruling.
/// Error lines are compared by their case and by being errors (the messages' wording differs:
/// ours carry the line number).
#[track_caller]
fn assert_same_ruling(compiled: &Value, reference: &Value) {
    if reference.get("error").is_some() || compiled.get("error").is_some() {
        assert!(
            reference["error"].is_string() && compiled["error"].is_string(),
            "one side rejected the case, the other did not:\n compiled:  {compiled}\n reference: {reference}"
        );
        assert_eq!(compiled["case"], reference["case"]);
    } else {
        assert_eq!(compiled, reference, "compiled (left) and reference (right) disagree");
    }
}

#[test]
fn every_row_agrees_with_the_reference_evaluator() {
    let doc = Document::parse(FIDE).expect("the published package parses");
    for grants in [&[][..], &[ARBITER][..]] {
        let opts = options(grants);
        let grant_list: Vec<String> = opts.grants.clone();
        let cases: Vec<Value> = rows().into_iter().map(|(name, facts)| json!({"case": name, "facts": facts})).collect();
        let lines: Vec<String> = cases.iter().map(Value::to_string).collect();
        let compiled = rule_lines(&lines, &opts);
        for (case, got) in cases.iter().zip(&compiled) {
            let want = clir_reference::evaluate(&doc, case, &grant_list);
            assert_same_ruling(got, &want);
        }
        // Row 13 is an error line exactly when the grant is missing.
        let row13 = compiled.last().unwrap();
        assert_eq!(row13["error"].is_string(), grants.is_empty(), "{row13}");
    }
}
