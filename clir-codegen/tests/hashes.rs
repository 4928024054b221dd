//! The published package's node hashes and seal recompute (SEMANTICS §1).
use clir_codegen::{canonical, ir::Document};

const SEED: &[u8] = include_bytes!("../../sources/fide.laws.chess-0.1.0.lawir.json");

#[test]
fn every_node_hash_and_the_seal_recompute() {
    let doc = Document::parse(SEED).expect("parses");
    assert_eq!(doc.nodes.len(), 140);
    let nodes = doc.json["nodes"].as_array().unwrap();
    for (node, raw) in doc.nodes.iter().zip(nodes) {
        assert_eq!(canonical::node_content_hash(raw), node.content_hash, "{}", node.id);
    }
    assert_eq!(canonical::canonical_bytes(&doc.json), SEED);
    assert_eq!(canonical::seal(SEED), "sha256:bbae5f143f1103a18fccd4e4c3f3ce617ba2ec2353050085a513f77fd2c28868");
}
