//! Citations from the package alone (issue 26, item 3): an article is quoted from its fragment,
//! the paragraph the rule's label numbers with its sub-items, whole; never the label. A
//! derivation by a rule or closure without an article says so; a priority's reason is shown;
//! `--lang` gives labels and texts in a language the package carries, and refuses another.
//! Why-not names the values later premises bind (issue 26, item 7).

#[path = "support/cli.rs"]
mod cli;

use cli::clir;
use clir::jsonl::{rule_chunk, Catalog, Options};
use serde_json::{json, Value};

clir::include_clir!("fide.laws.chess");

use fide_laws_chess::*;

/// The citations of rule `rule` of fide.laws.chess.
fn citations(rule: usize) -> Vec<String> {
    let articles = clir::schema::articles(&SCHEMA, rule);
    articles.as_array().unwrap().iter().map(|a| a["citation"].as_str().unwrap().to_string()).collect()
}

/// The ruling lines of `cases` (case lines), with explanations.
fn rule_lines(cases: &[String]) -> Vec<Value> {
    let cat = Catalog::new(clir::Package::schema(&Package));
    let opts = Options { explain: true, ..Default::default() };
    let lines: Vec<(usize, String)> = cases.iter().cloned().enumerate().collect();
    let (out, _) = rule_chunk(&Package, &cat, &lines, &opts);
    out.iter().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn article_9_3_is_cited_with_its_conditions_9_3_1_and_9_3_2() {
    let cited = citations(RULE_FIFTY_MOVE_CLAIM_CORRECT);
    assert_eq!(cited.len(), 1);
    let c = &cited[0];
    assert!(c.starts_with("9.3 The game is drawn, upon a correct claim"), "{c}");
    assert!(c.contains("\n\n9.3.1 he/she indicates his/her move"), "{c}");
    assert!(c.ends_with("9.3.2 the last 50 moves by each player have been completed without the movement of any pawn and without any capture."), "{c}");
    assert!(!c.contains("9.4"), "{c}");
}

#[test]
fn a_section_is_quoted_with_its_unnumbered_items_and_a_range_with_each_section() {
    let castling = &citations(RULE_CASTLING_LEGAL)[0];
    assert!(castling.starts_with("3.8.2 by ‘castling’"), "{castling}");
    for part in
        ["3.8.2.1 The right to castle", "1) If the king", "3.8.2.2 Castling is prevented", "4) If there is any piece"]
    {
        assert!(castling.contains(part), "{part} in {castling}");
    }
    assert!(!castling.contains("3.9"), "{castling}");
    // `Article 3.7.3.1–2`: both sections, not the next.
    let en_passant = &citations(RULE_EN_PASSANT_CAPTURE_LEGAL)[0];
    assert!(en_passant.starts_with("3.7.3.1 A pawn occupying"), "{en_passant}");
    assert!(en_passant.contains("3.7.3.2 This capture is only legal"), "{en_passant}");
    assert!(!en_passant.contains("3.7.3.3"), "{en_passant}");
    // `Preface 0.2.`: the preface's paragraph and all that follows it, to the end of the text.
    let preface = &citations(RULE_UNREGULATED_CASE_DECIDED_BY_ARBITER)[0];
    let text = SCHEMA.fragments.iter().find(|f| f.locator == "preface/0.2").unwrap().text;
    assert_eq!(preface, text.trim());
}

#[test]
fn every_anchored_rule_quotes_its_fragment_and_never_its_label() {
    for (ri, r) in SCHEMA.rules.iter().enumerate() {
        for (&f, c) in r.anchors.iter().zip(citations(ri)) {
            assert_ne!(c, r.label, "{}", r.id);
            assert!(SCHEMA.fragments[f as usize].text.contains(&c), "{}: {c}", r.id);
        }
    }
    // A label that names no section of the text quotes the whole text.
    let text = "Article 1: Heading\n\n1.1 One.\n\n1.2 Two.\n";
    assert_eq!(clir::citation("the game ends by agreement", text), text.trim());
    assert_eq!(clir::citation("Article 7.4. Not here", text), text.trim());
    assert_eq!(clir::citation("Article 1.1.", text), "1.1 One.");
}

/// Every derivation in `e`, depth first.
fn derivations<'a>(e: &'a Value, out: &mut Vec<&'a Value>) {
    out.push(e);
    for p in e["premises"].as_array().into_iter().flatten() {
        derivations(p, out);
    }
}

#[test]
fn no_explanation_of_the_sample_games_quotes_a_label_and_unanchored_ones_say_so() {
    let games = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/fide/games.jsonl")).unwrap();
    let cases: Vec<String> = games.lines().map(str::to_string).collect();
    let (mut literals, mut unanchored) = (0, 0);
    for ruling in rule_lines(&cases) {
        for e in ruling["explanations"].as_object().unwrap().values() {
            literals += 1;
            unanchored += usize::from(e.get("unanchored").is_some());
            let mut all = Vec::new();
            derivations(e, &mut all);
            for d in all {
                if d.get("rule").is_none() && d.get("closure").is_none() {
                    assert!(d.get("unanchored").is_none(), "{d}");
                    continue;
                }
                let articles = d["articles"].as_array().unwrap();
                for a in articles {
                    assert_ne!(a["citation"], d["label"], "{d}");
                    assert_eq!(a["language"], "en");
                }
                // The marker: none on an anchored derivation; "rule" when some derivation below
                // cites an article, "proof" when none does.
                let mut below = Vec::new();
                derivations(d, &mut below);
                let cites = below.iter().any(|b| b["articles"].as_array().is_some_and(|a| !a.is_empty()));
                let expected = match (articles.is_empty(), cites) {
                    (false, _) => Value::Null,
                    (true, true) => json!("rule"),
                    (true, false) => json!("proof"),
                };
                assert_eq!(d.get("unanchored").cloned().unwrap_or(Value::Null), expected, "{d}");
            }
        }
    }
    assert!(literals > 1000 && unanchored > 0 && unanchored < literals, "{unanchored} of {literals}");
}

#[test]
fn the_priority_that_beats_an_attack_is_shown_with_its_reason() {
    let case = r#"{"case":"m","facts":{"checkmate_delivered":[["g","w"]],"moves_by_each_without_pawn_or_capture":[["g",75]]}}"#;
    let ruling = &rule_lines(&[case.to_string()])[0];
    let overcame = &ruling["explanations"]["~game_drawn(g)"]["overcame"][0];
    assert_eq!(overcame["priority"], "urn:fide:laws:clir:chess#CheckmateOverSeventyFiveMoves");
    assert_eq!(overcame["priority_reason"], "urn:fide:laws:clir:chess#lex_specialis");
    let (code, shown, _) = clir(&["show", "--package", "fide.laws.chess"], "");
    assert_eq!(code, 0);
    assert!(shown.contains("#CheckmateOverSeventyFiveMoves (priority), reason urn:fide:laws:clir:chess#lex_specialis"));
}

#[test]
fn why_not_names_the_value_a_later_premise_binds() {
    let case = r#"{"case":"g7","facts":{"player_of":[["g7","w"],["g7","b"]],"player_resigned":[["b"]]},"why_not":["game_drawn(g7)"]}"#;
    let ruling = &rule_lines(&[case.to_string()])[0];
    let reasons = ruling["why_not"]["game_drawn(g7)"]["reasons"].as_array().unwrap();
    let about = |id: &str| -> Vec<String> {
        let of = reasons.iter().filter(|r| r["rule"]["id"] == format!("urn:fide:laws:clir:chess#{id}"));
        of.map(|r| r["premise"].as_str().unwrap_or_default().to_string()).collect()
    };
    // Resigned b: b's king may still be mated; w did not resign.
    let resigned = about("ResignationDrawnIfMateImpossible");
    assert!(resigned.contains(&"king_cannot_be_checkmated(b)".to_string()), "{resigned:?}");
    assert!(resigned.contains(&"player_resigned(w)".to_string()), "{resigned:?}");
    assert!(reasons.iter().all(|r| r["premise"] != "king_cannot_be_checkmated(_)"), "{reasons:?}");
}

#[test]
fn a_language_the_package_does_not_carry_is_refused_at_start() {
    let case = r#"{"case":"m","facts":{"checkmate_delivered":[["g","w"]]}}"#;
    let (code, out, err) = clir(&["rule", "--package", "fide.laws.chess", "--lang", "EN"], case);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(err.contains("unknown language `EN` (did you mean `en`?)") && err.contains("in en"), "{err}");
    let (code, _, err) = clir(&["show", "--package", "fide.laws.chess", "--lang", "fr"], "");
    assert_eq!(code, 2);
    assert!(err.contains("unknown language `fr`") && err.contains("in en"), "{err}");
    // A hostile tag reaches the terminal escaped, and a long one costs no more than its length.
    for lang in ["\u{1b}[31mred", &"x".repeat(100_000)] {
        let (code, out, err) = clir(&["rule", "--package", "fide.laws.chess", "--lang", lang], case);
        assert_eq!((code, out.as_str()), (2, ""));
        assert!(!err.contains('\u{1b}') && err.contains("in en"), "{}", &err[..err.len().min(200)]);
        let (code, _, err) = clir(&["show", "--package", "fide.laws.chess", "--lang", lang], "");
        assert_eq!(code, 2);
        assert!(!err.contains('\u{1b}'));
    }
    // The package's own language is the default: the same ruling.
    let (code, with, _) = clir(&["rule", "--package", "fide.laws.chess", "--explain", "--lang", "en"], case);
    let (_, without, _) = clir(&["rule", "--package", "fide.laws.chess", "--explain"], case);
    assert_eq!((code, with), (0, without));
}

/// A package in English with French labels, and a French text of its article for one rule
/// (another keeps only its English label), written as the test kit writes it.
fn bilingual() -> Vec<u8> {
    let en = clir_testkit::Package::parse(
        r#"package demo.lang 0.1.0
        type Game
        empirical moves(game: Game, n: Integer)
        institutional drawn(game: Game)
        fragment ART_9 article/9 "Article 9\n\n9.6 The game is drawn if:\n\n9.6.2 75 moves are made.\n\n9.7 Other."
        rule Draw strict "Article 9.6. 75 moves draw" @ART_9: drawn(g) :- moves(g, n), n >= 75
        rule Long strict "a long game": drawn(g) :- moves(g, n), n >= 500"#,
    )
    .unwrap();
    let mut fr = clir_testkit::Package::new("demo.lang", "0.1.0");
    fr.namespace = en.namespace.clone();
    let french = "Article 9\n\n9.6 La partie est nulle si :\n\n9.6.2 75 coups sont joués.\n\n9.7 Autre.";
    for mut node in en.node_values() {
        if node["kind"] == "fragment" {
            let hash = clir_codegen::canonical::sha256_hex(french.as_bytes());
            let text = json!({"contentHash": hash, "language": "fr", "status": "unofficial", "text": french});
            node["texts"].as_array_mut().unwrap().push(text);
        }
        if node["id"].as_str().unwrap().ends_with("#Draw") {
            let label = json!({"language": "fr", "status": "unofficial", "text": "Article 9.6. 75 coups : nulle"});
            node["labels"].as_array_mut().unwrap().push(label);
        }
        fr.nodes.push(clir_testkit::Node::Raw(node));
    }
    fr.bytes()
}

#[test]
fn labels_and_texts_are_given_in_every_language_the_package_carries() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.lang-0.1.0.lawir.json");
    std::fs::write(&path, bilingual()).unwrap();
    let file = path.to_str().unwrap();
    let (code, shown, err) = clir(&["show", file, "--lang", "fr"], "");
    assert_eq!(code, 0, "{err}");
    assert!(shown.contains("// Article 9.6. 75 coups : nulle\n"), "{shown}");
    assert!(shown.contains("// a long game\n"), "{shown}");
    assert!(err.contains("1 labels of") && err.contains("are not in `fr`: they are shown in `en`"), "{err}");
    let (_, shown, _) = clir(&["show", file], "");
    assert!(shown.contains("// Article 9.6. 75 moves draw\n"), "{shown}");
    let (code, _, err) = clir(&["show", file, "--lang", "de"], "");
    assert_eq!(code, 2);
    assert!(err.contains("unknown language `de`") && err.contains("in en, fr"), "{err}");
    // The generated schema carries both, as data.
    let doc = clir_codegen::verify::verify_bytes(&bilingual(), &Default::default()).into_document().unwrap();
    let program = clir_codegen::compile(&doc).unwrap().program;
    assert_eq!(program.languages, ["en", "fr"]);
    let code = clir_codegen::compile_document(&doc, "sha256:0").unwrap();
    assert!(code.contains(r#"&["en", "fr"],"#), "{code}");
    assert!(code.contains("Translation::new(Translated::Fragment(0), 1, "), "{code}");
    assert!(code.contains("\"Article 9.6. 75 coups : nulle\""));
}
