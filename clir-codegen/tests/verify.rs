//! `verify_bytes` on the published package and on mutated copies: which checks fail, and where.
use clir_codegen::canonical;
use clir_codegen::verify::{verify_bytes, Outcome, Report, VerifyOptions, KNOWN_FEATURES};
use serde_json::{json, Value};
use std::time::Instant;

const SEED: &[u8] = include_bytes!("../../sources/fide.laws.chess-0.1.0.lawir.json");
const SEAL: &str = "sha256:bbae5f143f1103a18fccd4e4c3f3ce617ba2ec2353050085a513f77fd2c28868";
const SEMANTIC: &str = "sha256:4c92dc6ccf68aba3e0e7d752b4fd0d2755a3a6d9d9d08df00b2f4c497fcc950c";

/// Pinned as the registry publishes it; sources resolved in an empty folder (not available).
fn pinned(root: &std::path::Path) -> VerifyOptions {
    VerifyOptions {
        seal: Some(SEAL.into()),
        semantic_hash: Some(SEMANTIC.into()),
        version: Some("0.1.0".into()),
        name: Some("fide.laws.chess".into()),
        root: Some(root.to_path_buf()),
        strict_sources: false,
    }
}

fn verify(bytes: &[u8]) -> Report {
    let dir = tempfile::tempdir().unwrap();
    verify_bytes(bytes, &pinned(dir.path()))
}

fn failed(r: &Report) -> Vec<&'static str> {
    r.failed_checks()
}

fn seed_json() -> Value {
    serde_json::from_slice(SEED).unwrap()
}

fn index_of(doc: &Value, id_suffix: &str) -> usize {
    doc["nodes"].as_array().unwrap().iter().position(|n| n["id"].as_str().unwrap().ends_with(id_suffix)).unwrap()
}

/// Recomputes the contentHash of node `i`.
fn rehash(doc: &mut Value, i: usize) {
    let h = canonical::node_content_hash(&doc["nodes"][i]);
    doc["nodes"][i]["contentHash"] = Value::String(h);
}

fn bytes(doc: &Value) -> Vec<u8> {
    canonical::canonical_bytes(doc)
}

/// Mutates node `id_suffix` with `f`, recomputes its hash, and returns the canonical bytes.
fn with_node(id_suffix: &str, f: impl FnOnce(&mut Value)) -> (Vec<u8>, usize) {
    let mut doc = seed_json();
    let i = index_of(&doc, id_suffix);
    f(&mut doc["nodes"][i]);
    rehash(&mut doc, i);
    (bytes(&doc), i)
}

fn messages(r: &Report, check: &str) -> Vec<String> {
    r.check(check).unwrap().diagnostics.iter().map(ToString::to_string).collect()
}

#[test]
fn published_package_passes_every_check() {
    let r = verify(SEED);
    assert!(r.ok(), "{:?}", r.failures());
    let names: Vec<_> = r.checks.iter().map(|c| c.name).collect();
    assert_eq!(
        names,
        [
            "parse",
            "seal",
            "semanticHash",
            "name",
            "version",
            "canonical",
            "schemaVersion",
            "features",
            "imports",
            "strata",
            "contentHash",
            "textHash",
            "ids",
            "references",
            "documentHash"
        ]
    );
    for c in &r.checks {
        let expected = if c.name == "documentHash" { Outcome::Warn } else { Outcome::Pass };
        assert_eq!(c.outcome, expected, "{}: {}", c.name, c.detail);
    }
    assert_eq!(r.check("seal").unwrap().detail, SEAL);
    let warn = messages(&r, "documentHash");
    assert_eq!(warn.len(), 1);
    assert!(warn[0].contains("sources/fide-chess/en.txt is not here"), "{}", warn[0]);
    let doc = r.into_document().unwrap();
    assert_eq!(doc.nodes.len(), 140);
}

#[test]
fn missing_source_text_fails_in_strict_mode() {
    let dir = tempfile::tempdir().unwrap();
    let opts = VerifyOptions { strict_sources: true, ..pinned(dir.path()) };
    let r = verify_bytes(SEED, &opts);
    assert_eq!(failed(&r), ["documentHash"]);
}

#[test]
fn source_text_that_does_not_match_fails_document_hash() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("sources/fide-chess")).unwrap();
    std::fs::write(dir.path().join("sources/fide-chess/en.txt"), "not the laws of chess").unwrap();
    let r = verify_bytes(SEED, &pinned(dir.path()));
    assert_eq!(failed(&r), ["documentHash"]);
    let m = messages(&r, "documentHash");
    assert!(m[0].contains("expected sha256:c251137a"), "{}", m[0]);
    assert!(m[0].contains(&canonical::sha256_hex(b"not the laws of chess")), "{}", m[0]);
}

#[test]
fn source_path_escaping_the_root_fails() {
    let mut doc = seed_json();
    doc["metadata"]["localSources"]["urn:fide:laws:clir:chess#FIDE_LAWS_2023_EN"] = json!("../../etc/passwd");
    let r = verify(&bytes(&doc));
    assert_eq!(failed(&r), ["seal", "documentHash"]);
}

#[test]
fn no_pins_passes_and_reports_the_values() {
    let r = verify_bytes(SEED, &VerifyOptions::default());
    assert!(r.ok());
    // Without pins, the values the file declares are reported, not compared.
    assert_eq!(r.check("seal").unwrap().detail, format!("{SEAL} (no pin given: not compared)"));
    for name in ["seal", "semanticHash", "name", "version"] {
        assert_eq!(r.check(name).unwrap().outcome, Outcome::Skipped, "{name}");
    }
}

#[test]
fn one_byte_changed_in_a_rule_body_fails_its_content_hash_and_the_seal() {
    let text = std::str::from_utf8(SEED).unwrap();
    assert_eq!(text.matches("\"value\":75}").count(), 1);
    let mutated = text.replacen("\"value\":75}", "\"value\":76}", 1);
    assert_eq!(mutated.len(), SEED.len());
    let r = verify(mutated.as_bytes());
    assert_eq!(failed(&r), ["seal", "contentHash"]);
    let m = messages(&r, "contentHash");
    assert_eq!(m.len(), 1, "{m:?}");
    let i = index_of(&seed_json(), "#SeventyFiveAutomaticDraw");
    assert!(
        m[0].starts_with(&format!("nodes[{i}] (urn:fide:laws:clir:chess#SeventyFiveAutomaticDraw): expected sha256:")),
        "{}",
        m[0]
    );
    let written = seed_json()["nodes"][i]["contentHash"].as_str().unwrap().to_string();
    assert!(m[0].ends_with(&format!("found {written}")), "{}", m[0]);
    let seal = messages(&r, "seal");
    assert_eq!(seal, [format!("expected {SEAL}, found {}", canonical::seal(mutated.as_bytes()))]);
}

#[test]
fn label_edited_without_rehash_fails_content_hash() {
    let mut doc = seed_json();
    let i = index_of(&doc, "#AgreedDraw");
    doc["nodes"][i]["labels"][0]["text"] = json!("The game is drawn whenever anybody likes");
    let r = verify(&bytes(&doc));
    assert_eq!(failed(&r), ["seal", "contentHash"]);
    assert!(messages(&r, "contentHash")[0].starts_with(&format!("nodes[{i}] (urn:fide:laws:clir:chess#AgreedDraw)")));
}

#[test]
fn label_edited_with_rehash_fails_only_the_seal() {
    let (b, _) = with_node("#AgreedDraw", |n| n["labels"][0]["text"] = json!("edited"));
    let r = verify(&b);
    assert_eq!(failed(&r), ["seal"]);
    // Without a seal pin, nothing notices: that is what the seal is for.
    assert!(verify_bytes(&b, &VerifyOptions::default()).ok());
}

#[test]
fn keys_reordered_fail_canonical() {
    let text = std::str::from_utf8(SEED).unwrap();
    let from = "{\"features\":[\"core-executable\"],\"imports\":[],";
    assert!(text.starts_with(from));
    let mutated = text.replacen(from, "{\"imports\":[],\"features\":[\"core-executable\"],", 1);
    let r = verify(mutated.as_bytes());
    assert_eq!(failed(&r), ["seal", "canonical"]);
    let m = messages(&r, "canonical");
    assert!(m[0].starts_with("not canonical: first difference at byte 2:"), "{}", m[0]);
}

#[test]
fn whitespace_added_fails_canonical() {
    let mut with_newline = SEED.to_vec();
    with_newline.push(b'\n');
    let r = verify(&with_newline);
    assert_eq!(failed(&r), ["seal", "canonical"]);
    assert!(messages(&r, "canonical")[0].contains(&format!("first difference at byte {}", SEED.len())));

    let text = std::str::from_utf8(SEED).unwrap();
    let spaced = text.replacen("\"imports\":[]", "\"imports\": []", 1);
    let r = verify(spaced.as_bytes());
    assert_eq!(failed(&r), ["seal", "canonical"]);
}

#[test]
fn unknown_feature_fails_features() {
    let mut doc = seed_json();
    doc["features"] = json!(["core-executable", "time-travel"]);
    let r = verify(&bytes(&doc));
    assert_eq!(failed(&r), ["seal", "features"]);
    assert_eq!(
        messages(&r, "features"),
        [format!(
            "features[1]: feature \"time-travel\" is not understood (must understand; known: {})",
            KNOWN_FEATURES.join(", ")
        )]
    );
}

#[test]
fn unknown_node_kind_fails_parse_at_its_path() {
    let (b, i) = with_node("#FIDE_LAWS_OF_CHESS", |n| n["kind"] = json!("source_scroll"));
    let r = verify(&b);
    assert_eq!(failed(&r), ["parse", "seal"]);
    let d = &r.check("parse").unwrap().diagnostics;
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].path, format!("nodes[{i}].kind"));
    assert_eq!(d[0].node.as_deref(), Some("urn:fide:laws:clir:chess#FIDE_LAWS_OF_CHESS"));
    assert!(d[0].message.contains("unknown node kind \"source_scroll\""));
    assert!(r.document.is_none());
    assert!(r.into_document().is_err());
}

#[test]
fn dangling_predicate_fails_references() {
    let (b, i) = with_node("#AgreedDraw", |n| {
        n["body"]["items"][1]["formula"]["predicate"] = json!("urn:fide:laws:clir:chess#draw_imagined")
    });
    let r = verify(&b);
    assert_eq!(failed(&r), ["seal", "references"]);
    assert_eq!(
        messages(&r, "references"),
        [format!(
            "nodes[{i}].body.items[1].formula.predicate (urn:fide:laws:clir:chess#AgreedDraw): unknown relation \
         urn:fide:laws:clir:chess#draw_imagined: no node declares it"
        )]
    );
}

#[test]
fn predicate_naming_a_type_fails_references() {
    let (b, _) = with_node("#AgreedDraw", |n| n["head"]["predicate"] = json!("urn:fide:laws:clir:chess#Game"));
    let r = verify(&b);
    assert_eq!(failed(&r), ["seal", "references"]);
    assert!(messages(&r, "references")[0].ends_with("urn:fide:laws:clir:chess#Game is a type_decl, not a relation"));
}

#[test]
fn wrong_literal_arity_fails_references() {
    let (b, i) = with_node("#AgreedDraw", |n| {
        n["head"]["args"].as_array_mut().unwrap().push(json!({"kind": "var", "var": "v0"}))
    });
    let r = verify(&b);
    assert_eq!(failed(&r), ["seal", "references"]);
    assert_eq!(
        messages(&r, "references"),
        [format!(
            "nodes[{i}].head.args (urn:fide:laws:clir:chess#AgreedDraw): `game_drawn` takes 1 \
         argument, got 2"
        )]
    );
}

#[test]
fn undeclared_constant_fails_in_a_rule_but_not_as_an_authority() {
    // source_work.authority names an undeclared id in the published package already.
    let seed = seed_json();
    let sw = index_of(&seed, "#FIDE_LAWS_OF_CHESS");
    let authority = seed["nodes"][sw]["authority"]["id"].as_str().unwrap();
    assert!(!seed["nodes"].as_array().unwrap().iter().any(|n| n["id"] == authority));

    let (b, i) = with_node("#AgreedDraw", |n| {
        n["head"]["args"][0] = json!({"kind": "const_ref", "id": "urn:fide:laws:clir:chess#NoSuchGame"})
    });
    let r = verify(&b);
    assert_eq!(failed(&r), ["seal", "references"]);
    assert_eq!(
        messages(&r, "references"),
        [format!(
            "nodes[{i}].head.args[0].id (urn:fide:laws:clir:chess#AgreedDraw): unknown constant \
         urn:fide:laws:clir:chess#NoSuchGame: no node declares it"
        )]
    );
}

#[test]
fn dangling_priority_anchor_closure_and_external_references_fail() {
    let mut doc = seed_json();
    let mut edit = |suffix: &str, f: &dyn Fn(&mut Value)| {
        let i = index_of(&doc, suffix);
        f(&mut doc["nodes"][i]);
        rehash(&mut doc, i);
    };
    edit("#CheckmateOverSeventyFiveMoves", &|n| n["lower"]["id"] = json!("urn:fide:laws:clir:chess#NoRule"));
    edit("#AgreedDraw", &|n| n["anchors"][0] = json!("urn:fide:laws:clir:chess#FIDE_ART_99"));
    edit("#CastlingAttackClosure", &|n| n["domain"]["id"] = json!("urn:fide:laws:clir:chess#player_of"));
    edit("#case_not_precisely_regulated/external", &|n| n["symbol"] = json!("urn:fide:laws:clir:chess#nothing"));
    edit("#AgreedDraw", &|n| n["variables"][0]["type"]["name"] = json!("urn:fide:laws:clir:chess#Gaem"));
    let r = verify(&bytes(&doc));
    assert_eq!(failed(&r), ["seal", "references"]);
    let m = messages(&r, "references").join("\n");
    for needle in [
        "lower.id (urn:fide:laws:clir:chess#CheckmateOverSeventyFiveMoves): unknown rule urn:fide:laws:clir:chess#NoRule",
        "anchors[0] (urn:fide:laws:clir:chess#AgreedDraw): unknown fragment urn:fide:laws:clir:chess#FIDE_ART_99",
        "domain.id (urn:fide:laws:clir:chess#CastlingAttackClosure): the domain `player_of` of a closure must have the \
         parameter types of `castling_path_attacked`",
        "symbol (urn:fide:laws:clir:chess#case_not_precisely_regulated/external): unknown relation urn:fide:laws:clir:chess#nothing",
        "variables[0].type.name (urn:fide:laws:clir:chess#AgreedDraw): unknown type urn:fide:laws:clir:chess#Gaem",
    ] {
        assert!(m.contains(needle), "missing {needle:?} in\n{m}");
    }
}

#[test]
fn duplicate_node_id_fails_ids() {
    let mut doc = seed_json();
    let i = index_of(&doc, "#AgreedDraw");
    let j = index_of(&doc, "#AgreedDrawEndsTheGame");
    doc["nodes"][j]["id"] = doc["nodes"][i]["id"].clone();
    rehash(&mut doc, j);
    let r = verify(&bytes(&doc));
    assert_eq!(failed(&r), ["seal", "ids"]);
    assert_eq!(
        messages(&r, "ids"),
        [format!(
        "nodes[{j}].id (urn:fide:laws:clir:chess#AgreedDraw): duplicate node id urn:fide:laws:clir:chess#AgreedDraw, \
         first declared at nodes[{i}]"
    )]
    );
}

#[test]
fn schema_version_imports_and_strata_must_be_understood() {
    let mut doc = seed_json();
    doc["schemaVersion"] = json!("law.core.ir/0.3");
    doc["imports"] = json!([{"package": "other"}]);
    doc["strata"] = json!([["x"]]);
    let r = verify(&bytes(&doc));
    assert_eq!(failed(&r), ["seal", "schemaVersion", "imports", "strata"]);
    assert_eq!(messages(&r, "schemaVersion"), ["expected law.core.ir/0.2, found law.core.ir/0.3"]);
}

#[test]
fn fragment_text_edited_fails_text_hash() {
    let (b, i) = with_node("#FIDE_ART_12", |n| n["texts"][0]["text"] = json!("Article 12: the arbiter rules."));
    let r = verify(&b);
    assert_eq!(failed(&r), ["seal", "textHash"]);
    assert!(messages(&r, "textHash")[0].starts_with(&format!(
        "nodes[{i}].texts[0].contentHash (urn:fide:laws:clir:chess#FIDE_ART_12): expected sha256:"
    )));
}

#[test]
fn pins_of_semantic_hash_name_and_version_are_compared() {
    let dir = tempfile::tempdir().unwrap();
    let opts = VerifyOptions {
        semantic_hash: Some(SEMANTIC.replace('4', "5")),
        version: Some("0.1.1".into()),
        name: Some("fide.laws.draughts".into()),
        ..pinned(dir.path())
    };
    let r = verify_bytes(SEED, &opts);
    assert_eq!(failed(&r), ["semanticHash", "name", "version"]);
    assert_eq!(messages(&r, "version"), ["package.version: expected 0.1.1, found 0.1.0"]);
}

#[test]
fn every_failure_is_reported_not_only_the_first() {
    let mut doc = seed_json();
    doc["features"] = json!(["x"]);
    let a = index_of(&doc, "#AgreedDraw");
    let b = index_of(&doc, "#CheckmateWins");
    doc["nodes"][a]["labels"][0]["text"] = json!("changed");
    doc["nodes"][b]["labels"][0]["text"] = json!("changed too");
    doc["nodes"][b]["kind"] = json!("mystery");
    let mut out = bytes(&doc);
    out.push(b' ');
    let r = verify(&out);
    assert_eq!(failed(&r), ["parse", "seal", "canonical", "features", "contentHash"]);
    assert_eq!(r.check("contentHash").unwrap().diagnostics.len(), 2);
    assert_eq!(r.check("contentHash").unwrap().detail, "2 nodes do not recompute");
    assert!(r.failures().0.len() >= 6);
}

#[test]
fn truncated_json_fails_parse() {
    for len in [1, 2, 100, SEED.len() / 2, SEED.len() - 1] {
        let r = verify(&SEED[..len]);
        assert_eq!(failed(&r), ["parse", "seal"], "at {len}");
        assert!(messages(&r, "parse")[0].starts_with("not valid JSON: EOF while parsing"), "at {len}");
    }
}

#[test]
fn empty_file_fails_parse() {
    let r = verify(b"");
    assert_eq!(failed(&r), ["parse", "seal"]);
    assert_eq!(messages(&r, "parse"), ["empty file: expected a JSON object"]);
    let r = verify_bytes(b"", &VerifyOptions::default());
    assert_eq!(failed(&r), ["parse"]);
}

#[test]
fn not_an_object_fails_every_check_that_needs_one_without_panicking() {
    for text in ["[]", "null", "1", "\"x\"", "{}", "{\"nodes\":{}}", "{\"nodes\":[1,null,[]]}"] {
        let r = verify(text.as_bytes());
        assert!(!r.ok(), "{text}");
        assert!(failed(&r).contains(&"parse"), "{text}");
    }
}

#[test]
fn hundred_thousand_nested_arrays_fail_parse() {
    let mut deep = vec![b'['; 100_000];
    deep.extend(vec![b']'; 100_000]);
    let r = verify(&deep);
    assert_eq!(failed(&r), ["parse", "seal"]);
    assert!(messages(&r, "parse")[0].contains("recursion limit exceeded"), "{:?}", messages(&r, "parse"));
    // Unclosed, too.
    let r = verify(&vec![b'['; 100_000]);
    assert_eq!(failed(&r), ["parse", "seal"]);
}

#[test]
fn fifty_megabyte_files_fail_without_panicking() {
    let start = Instant::now();
    // The package followed by 50 MB of whitespace: valid JSON, not canonical.
    let mut padded = SEED.to_vec();
    padded.resize(50 << 20, b' ');
    let r = verify(&padded);
    assert_eq!(failed(&r), ["seal", "canonical"]);
    assert!(messages(&r, "canonical")[0].contains(&format!("first difference at byte {}", SEED.len())));

    // A 50 MB label: canonical, but the node's contentHash no longer recomputes.
    let mut doc = seed_json();
    doc["nodes"][0]["labels"][0]["text"] = Value::String("x".repeat(50 << 20));
    let r = verify(&bytes(&doc));
    assert_eq!(failed(&r), ["seal", "contentHash"]);

    // 50 MB of garbage.
    let r = verify(&vec![b'x'; 50 << 20]);
    assert_eq!(failed(&r), ["parse", "seal"]);
    eprintln!("50 MB cases took {:?}", start.elapsed());
}
