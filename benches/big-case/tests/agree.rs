//! The compiled demo.roads, ascent, crepe, a breadth-first search and the reference evaluator
//! find the same reachable cities, on networks small enough for the reference and on one of
//! 10^5 facts.

use clir_big_case::{ascent_roads, compiled, crepe_roads, search, Network};

#[test]
fn every_engine_finds_the_same_cities() {
    for (facts, seed) in [(10, 1), (200, 2), (3_000, 3), (100_000, 4)] {
        let net = Network::generate(facts, seed);
        let want = search(&net);
        if facts >= 200 {
            assert!(want.len() > 1 && want.len() < net.cities as usize, "the closed roads matter ({facts})");
        }
        assert_eq!(compiled(&net), want, "compiled, {facts} facts");
        assert_eq!(ascent_roads::run(&net), want, "ascent, {facts} facts");
        assert_eq!(crepe_roads::run(&net), want, "crepe, {facts} facts");
    }
}

#[test]
fn the_reference_evaluator_agrees_on_a_small_network() {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/sources/demo.roads-0.1.0.lawir.json")).unwrap();
    let doc = clir_codegen::ir::Document::parse(&bytes).unwrap();
    let net = Network::generate(300, 5);
    let case: serde_json::Value = serde_json::from_str(&net.case_line("n")).unwrap();
    let ruling = clir_reference::evaluate(&doc, &case, &[]);
    let mut cities: Vec<u32> = ruling["concluded"]["reachable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t[0].as_str().unwrap()[1..].parse().unwrap())
        .collect();
    cities.sort_unstable();
    assert_eq!(cities, search(&net));
}
