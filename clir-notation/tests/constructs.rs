//! Every construct of the notation builds what docs/NOTATION.md says, and a package using them
//! all prints back as the same statements' meaning: `print` then `pack` gives the same bytes,
//! with no node written raw.

use serde_json::{json, Value};

const ALL: &str = r#"package demo.every 1.2.3
namespace urn:demo:every
features negation-as-failure string-values
order by-id
omit-empty anchors
metadata publisher = "the demo office"
type Person "a person" label fr official "une personne" label de unofficial "eine Person"
type Office
const Registry: Office "the registry"
const Clerk: Office set labels = []
empirical lives(who: Person, years: Integer) "lives here"
empirical named(Person, String) id named_as
judgment resident(who: Person) judged-by Registry "is resident" by judgment:Registry authority Registry
external extra_ext: named_as by judgment:Clerk "a label"
institutional citizen(who: Person)
institutional voter(who: Person)
work LAW "the law" kind statute authority Registry jurisdiction Registry number "No. 1"
edition LAW_2024 of LAW language en officiality official status PINNED lifecycle adopted 2023-06-01 lifecycle in_force 2024-01-01
fragment ART_1 article/1 edition LAW_2024 "Article 1.\n"
    "1.1 Ten years of residence make a citizen.\n"
    text fr official "Article 1.\n1.1 Dix ans."
fragment ART_2 article/2 "Article 2. Citizens vote." set fragmentKind = "section"
publication LAW_EN - hash sha256:0000000000000000000000000000000000000000000000000000000000000000 edition LAW_2024 uri "https://example.org/law" retrieved "2024-01-02T00:00:00Z"
rule Citizen strict "Article 1.1" @ART_1: citizen(p) :- established lives(p, y), y >= 10, resident(p)
rule NotCitizen defeasible label en official "no" label fr official "non" [p: Person, y: Integer] bare:
    ~citizen(p) :- lives(p, y)
rule Vote defeater @ART_2 @ART_1: voter(p) :- supported citizen(p), not ~citizen(p),
    (named(p, "x") ; ) 
node {"id": "urn:demo:every#raw", "kind": "note", "package": "urn:demo:every", "text": "kept as written"}
"#;

/// The notation without its deliberate error (a `;` is no item: the text after it fails).
fn all() -> String {
    ALL.replace("    (named(p, \"x\") ; ) \n", "    (named(p, \"x\"), status enacted lives(p, (y + 1) * 2 - 3))\n")
        .replace(
            "rule Vote defeater @ART_2 @ART_1: voter(p)",
            "rule Vote defeater @ART_2 @ART_1 [p: Person, y: Integer]: voter(p)",
        )
}

fn node<'a>(doc: &'a Value, id: &str) -> &'a Value {
    doc["nodes"].as_array().unwrap().iter().find(|n| n["id"] == format!("urn:demo:every#{id}")).unwrap()
}

#[test]
fn every_construct_builds_its_json() {
    let e = clir_notation::parse(ALL).unwrap_err();
    assert_eq!((e.line, e.column), (28, 20), "{e}");
    let doc: Value = serde_json::from_slice(&clir_notation::pack(&all()).unwrap()).unwrap();
    assert_eq!(doc["features"], json!(["core-executable", "negation-as-failure", "string-values"]));
    assert_eq!(doc["metadata"]["publisher"], "the demo office");
    let ids: Vec<&str> = doc["nodes"].as_array().unwrap().iter().map(|n| n["id"].as_str().unwrap()).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "order by-id");
    assert_eq!(node(&doc, "Person")["labels"].as_array().unwrap().len(), 3);
    assert_eq!(
        node(&doc, "Person")["labels"][2],
        json!({"language": "de", "status": "unofficial", "text": "eine Person"})
    );
    assert_eq!(node(&doc, "Clerk")["labels"], json!([]));
    assert_eq!(node(&doc, "named_as")["parameters"][1]["name"], "a1");
    assert_eq!(node(&doc, "resident")["judgment"]["authority"], "urn:demo:every#Registry");
    assert_eq!(node(&doc, "resident/external")["capability"], "judgment:Registry");
    assert_eq!(node(&doc, "extra_ext")["labels"][0]["text"], "a label");
    assert_eq!(node(&doc, "LAW")["authority"], json!({"kind": "const_ref", "id": "urn:demo:every#Registry"}));
    assert_eq!(node(&doc, "LAW")["sourceKind"], "urn:demo:every#statute");
    assert_eq!(node(&doc, "LAW_2024")["lifecycle"][1], json!({"extent": "2024-01-01", "status": "in_force"}));
    assert_eq!(node(&doc, "LAW_2024")["materializationStatus"], "PINNED");
    let art1 = node(&doc, "ART_1");
    assert_eq!(art1["texts"][0]["text"], "Article 1.\n1.1 Ten years of residence make a citizen.\n");
    assert_eq!(art1["texts"][1]["language"], "fr");
    assert_eq!(
        art1["texts"][1]["contentHash"],
        clir_codegen::canonical::sha256_hex("Article 1.\n1.1 Dix ans.".as_bytes())
    );
    assert_eq!(art1["edition"], "urn:demo:every#LAW_2024");
    assert_eq!(node(&doc, "ART_2")["fragmentKind"], "section");
    assert_eq!(node(&doc, "LAW_EN")["uri"], "https://example.org/law");
    assert!(doc["metadata"].get("localSources").is_none(), "path `-`: no local source");
    assert!(node(&doc, "Citizen").get("anchors").is_some());
    assert!(node(&doc, "NotCitizen").get("anchors").is_none(), "omit-empty anchors");
    assert_eq!(node(&doc, "NotCitizen")["body"]["kind"], "literal", "bare");
    assert_eq!(node(&doc, "NotCitizen")["labels"][1]["language"], "fr");
    let vote = node(&doc, "Vote");
    assert_eq!(vote["anchors"], json!(["urn:demo:every#ART_2", "urn:demo:every#ART_1"]));
    let nested = &vote["body"]["items"][2];
    assert_eq!(nested["kind"], "and");
    assert_eq!(nested["items"][1]["status"], "enacted");
    let arith = &nested["items"][1]["formula"]["args"][1];
    assert_eq!(arith["op"], "sub");
    assert_eq!(arith["left"]["op"], "mul");
    assert_eq!(arith["left"]["left"]["op"], "add");
    assert_eq!(node(&doc, "raw")["text"], "kept as written");
}

#[test]
fn every_construct_prints_back() {
    let bytes = clir_notation::pack(&all()).unwrap();
    let text = clir_notation::print(&bytes).unwrap();
    assert_eq!(clir_notation::pack(&text).unwrap(), bytes, "{text}");
    // Even the node written raw prints as a statement: a node of its kind with its keys set.
    assert!(!text.contains("node {"), "{text}");
    assert!(text.contains("node note raw set `text` = \"kept as written\" unset labels"), "{text}");
    for statement in
        ["work LAW", "edition LAW_2024 of LAW", "external extra_ext: named_as by judgment:Clerk", "judged-by Registry"]
    {
        assert!(text.contains(statement), "{statement}\n{text}");
    }
    assert!(text.contains("(y + 1) * 2 - 3"), "{text}");
    // A publisher's semanticHash is kept while the nodes mean the same, and dropped after.
    let mut doc: Value = serde_json::from_slice(&bytes).unwrap();
    doc["semanticHash"] = json!(format!("sha256:{}", "a".repeat(64)));
    let published = clir_codegen::canonical::canonical_bytes(&doc);
    let text = clir_notation::print(&published).unwrap();
    assert!(text.contains(&format!("semantic-hash sha256:{} for sha256:", "a".repeat(64))), "{text}");
    assert_eq!(clir_notation::pack(&text).unwrap(), published);
    let amended = clir_notation::pack(&text.replace("y >= 10", "y >= 12")).unwrap();
    let amended: Value = serde_json::from_slice(&amended).unwrap();
    assert_eq!(amended["semanticHash"], clir_codegen::seal::semantic_hash(amended["nodes"].as_array().unwrap()));
}

#[test]
fn a_document_the_model_does_not_build_is_set_at_the_top() {
    let bytes = clir_notation::pack(&all()).unwrap();
    let mut doc: Value = serde_json::from_slice(&bytes).unwrap();
    doc["imports"] = json!([{"name": "other"}]);
    doc["strata"] = json!([1]);
    doc.as_object_mut().unwrap().remove("semanticVersion");
    doc["nodes"][3]["extra"] = json!({"deep": [1, 2]});
    let hash = clir_codegen::canonical::node_content_hash(&doc["nodes"][3]);
    doc["nodes"][3]["contentHash"] = json!(hash);
    let odd = clir_codegen::canonical::canonical_bytes(&doc);
    let text = clir_notation::print(&odd).unwrap();
    assert!(text.contains("document set imports = [{\"name\":\"other\"}]"), "{text}");
    assert!(text.contains("document unset semanticVersion"), "{text}");
    assert!(text.contains("set extra = {\"deep\":[1,2]}"), "{text}");
    assert_eq!(clir_notation::pack(&text).unwrap(), odd);
}

/// The documented example of the generic escape builds what it says and prints back.
#[test]
fn the_generic_escape_example() {
    let text = "package demo.escape 0.1.0
type T
empirical q(x: T)
institutional p(x: T)
rule R strict set scope = {\"kind\":\"boolean\",\"value\":false} set interpretations = [\"urn:i\"]: p(x) :- q(x)
priority P: R > R set priorityKind = \"indirect\" set condition = {\"kind\":\"boolean\",\"value\":false}
closure C: p over q set deriveExplicitNegative = false
document set strata = []
";
    let bytes = clir_notation::pack(text).unwrap();
    let doc: Value = serde_json::from_slice(&bytes).unwrap();
    let rule = node_in(&doc, "urn:demo:escape#R");
    assert_eq!(rule["scope"]["value"], false);
    assert_eq!(rule["interpretations"], json!(["urn:i"]));
    assert_eq!(node_in(&doc, "urn:demo:escape#P")["priorityKind"], "indirect");
    assert_eq!(node_in(&doc, "urn:demo:escape#C")["deriveExplicitNegative"], false);
    let printed = clir_notation::print(&bytes).unwrap();
    assert!(printed.contains("set scope = {\"kind\":\"boolean\",\"value\":false}"), "{printed}");
    assert_eq!(clir_notation::pack(&printed).unwrap(), bytes);
}

fn node_in<'a>(doc: &'a Value, id: &str) -> &'a Value {
    doc["nodes"].as_array().unwrap().iter().find(|n| n["id"] == id).unwrap()
}
