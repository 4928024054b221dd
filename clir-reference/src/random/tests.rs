//! The generator makes valid packages and cases, and the evaluator rules them.

use super::*;
use crate::{evaluate, Model};
use clir_codegen::ir::{Document, Strength};
use std::collections::{BTreeMap, BTreeSet};

const SEEDS: u64 = 500;

/// The stratification and safety constraints the compiler enforces (SEMANTICS §3-4), checked
/// independently of the generator's construction.
fn check_constraints(doc: &Document) -> Result<(), String> {
    let m = Model::new(doc)?;
    let mut level = vec![0; m.rels.len()];
    for (i, s) in m.strata.iter().enumerate() {
        for &r in s {
            level[r] = i;
        }
    }
    let name = |r: usize| m.rels[r].name.clone();
    let contested = |p: usize| {
        let signs: BTreeSet<bool> = m.rules.iter().filter(|r| r.head.rel == p).map(|r| r.head.neg).collect();
        signs.len() == 2 || m.rules.iter().any(|r| r.head.rel == p && r.strength == Strength::Defeater)
    };
    let closed: BTreeSet<usize> = m.closures.iter().map(|&(p, _)| p).collect();
    for r in &m.rules {
        let h = r.head.rel;
        if m.rels[h].kind != RelationKind::Institutional {
            return Err(format!("rule {} concludes the input {}", r.id, name(h)));
        }
        let mut bound = BTreeSet::new();
        for (_, l) in &r.lits {
            if contested(h) && level[l.rel] >= level[h] {
                return Err(format!(
                    "rule {} for contested {} uses {} of the same stratum",
                    r.id,
                    name(h),
                    name(l.rel)
                ));
            }
            if l.neg && closed.contains(&l.rel) && level[l.rel] >= level[h] {
                return Err(format!("rule {} uses ~{} in its closure's stratum", r.id, name(l.rel)));
            }
            for t in &l.args {
                if let crate::T::Var(v) = t {
                    bound.insert(v.clone());
                }
            }
        }
        let cmp_terms = r.cmps.iter().flat_map(|(_, a, b)| [a, b]);
        for t in r.head.args.iter().chain(cmp_terms) {
            if let crate::T::Var(v) = t {
                if !bound.contains(v) {
                    return Err(format!("rule {}: variable {v} is not bound by a body literal", r.id));
                }
            }
        }
    }
    for &(p, d) in &m.closures {
        if level[d] > level[p] || m.rels[d].params.iter().map(|x| &x.1).ne(m.rels[p].params.iter().map(|x| &x.1)) {
            return Err(format!("closure of {} over {}: domain above or of other types", name(p), name(d)));
        }
    }
    // Superiority is acyclic, and only orders opposite heads of one predicate.
    for &(t, s) in &m.superior {
        let (ht, hs) = (&m.rules[t].head, &m.rules[s].head);
        if ht.rel != hs.rel || ht.neg == hs.neg {
            return Err(format!("priority {} > {} between unrelated rules", m.rules[t].id, m.rules[s].id));
        }
        let mut stack = vec![s];
        let mut seen = BTreeSet::new();
        while let Some(x) = stack.pop() {
            if x == t {
                return Err(format!("superiority cycle through {}", m.rules[t].id));
            }
            if seen.insert(x) {
                stack.extend(m.superior.iter().filter(|&&(a, _)| a == x).map(|&(_, b)| b));
            }
        }
    }
    // Types: every argument matches its column, every comparison is over Integers.
    let mut rel_types: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut const_types: BTreeMap<&str, &str> = BTreeMap::new();
    for n in &doc.nodes {
        match &n.kind {
            NodeKind::Relation(r) => {
                rel_types.insert(&n.id, r.parameters.iter().map(|p| p.ty.as_str()).collect());
            }
            NodeKind::Constant(c) => {
                const_types.insert(&n.id, &c.return_type);
            }
            _ => {}
        }
    }
    for n in &doc.nodes {
        let NodeKind::Rule(r) = &n.kind else { continue };
        let vars: BTreeMap<&str, &str> = r.variables.iter().map(|(v, t)| (v.as_str(), t.as_str())).collect();
        let ty = |t: &Term| -> String {
            match t {
                Term::Var(v) => vars.get(v.as_str()).copied().unwrap_or("undeclared").to_string(),
                Term::Const(c) => const_types.get(c.as_str()).copied().unwrap_or("unknown").to_string(),
                Term::Int(_) => INT.to_string(),
                Term::Str(_) | Term::Arith(..) => "extension".to_string(),
            }
        };
        let mut lits = vec![&r.head];
        for item in &r.body {
            match item {
                BodyItem::Literal(_, l) | BodyItem::Not(l) => lits.push(l),
                BodyItem::Comparison(c) => {
                    if ty(&c.left) != INT || ty(&c.right) != INT {
                        return Err(format!("{}: comparison over non-Integers", n.id));
                    }
                }
            }
        }
        for l in lits {
            let cols = &rel_types[l.predicate.as_str()];
            let args: Vec<String> = l.args.iter().map(&ty).collect();
            if args.len() != cols.len() || args.iter().zip(cols).any(|(a, c)| a != c) {
                return Err(format!("{}: {} applied to {:?}", n.id, l.predicate, args));
            }
        }
    }
    Ok(())
}

fn grant() -> Vec<String> {
    vec![GRANT.to_string()]
}

#[test]
fn packages_parse_hash_stratify_and_evaluate() {
    let cfg = Config::default();
    for seed in 0..SEEDS {
        let value = package(seed, &cfg);
        let bytes = canonical_bytes(&value);
        assert_eq!(bytes, package_bytes(seed, &cfg), "seed {seed}: not deterministic");
        let doc = Document::parse(&bytes).unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
        assert_eq!(canonical_bytes(&doc.json), bytes, "seed {seed}: not canonical");
        for node in value["nodes"].as_array().unwrap() {
            assert_eq!(node["contentHash"].as_str().unwrap(), node_content_hash(node), "seed {seed}: {}", node["id"]);
        }
        assert_eq!(doc.package.name, format!("random.p{seed}"));
        if let Err(e) = check_constraints(&doc) {
            panic!("seed {seed}: {e}\n{}", String::from_utf8_lossy(&bytes));
        }
        let cases = facts(seed, &doc);
        assert!(!cases.is_empty() && cases.len() <= 4);
        assert_eq!(cases, facts(seed, &doc), "seed {seed}: facts not deterministic");
        for case in &cases {
            let out = evaluate(&doc, case, &grant());
            assert!(out.get("error").is_none(), "seed {seed}: {case} -> {out}");
            let has_judgment = case["facts"].as_object().unwrap().keys().any(|k| k.trim_start_matches('~') == "j0");
            let without = evaluate(&doc, case, &[]);
            assert_eq!(without.get("error").is_some(), has_judgment, "seed {seed}: {case} -> {without}");
        }
    }
}

/// Over all seeds, every feature occurs in the packages and makes a difference to some ruling.
#[test]
fn generated_features_occur_and_matter() {
    let cfg = Config::default();
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    let mut note = |k: &'static str, yes: bool| {
        *count.entry(k).or_default() += usize::from(yes);
    };
    for seed in 0..SEEDS {
        let doc = Document::parse(&package_bytes(seed, &cfg)).unwrap();
        let m = Model::new(&doc).unwrap();
        let strata = &m.strata;
        let level = |r: usize| strata.iter().position(|s| s.contains(&r)).unwrap();
        let rules = &m.rules;
        let recursive: Vec<usize> = (0..rules.len())
            .filter(|&i| rules[i].lits.iter().any(|(_, l)| level(l.rel) == level(rules[i].head.rel)))
            .collect();
        note("recursive rule", !recursive.is_empty());
        note("negative head", rules.iter().any(|r| r.head.neg));
        note("negative body literal", rules.iter().any(|r| r.lits.iter().any(|(_, l)| l.neg)));
        note("supported premise", rules.iter().any(|r| r.lits.iter().any(|(s, _)| *s == ir::Status::Supported)));
        note("strict rule", rules.iter().any(|r| r.strength == Strength::Strict));
        note("defeasible rule", rules.iter().any(|r| r.strength == Strength::Defeasible));
        note("defeater", rules.iter().any(|r| r.strength == Strength::Defeater));
        note("comparison", rules.iter().any(|r| !r.cmps.is_empty()));
        let is_const = |t: &crate::T| matches!(t, crate::T::Val(crate::Val::Str(_)));
        note("constant in head", rules.iter().any(|r| r.head.args.iter().any(is_const)));
        note("constant in body", rules.iter().any(|r| r.lits.iter().any(|(_, l)| l.args.iter().any(is_const))));
        note("priority", !m.superior.is_empty());
        note("closure", !m.closures.is_empty());
        note("judgment", m.rels.iter().any(|r| r.kind == RelationKind::Judgment));
        let types = doc.nodes.iter().filter(|n| matches!(n.kind, NodeKind::TypeDecl(_))).count();
        note(["0 entity types", "1 entity type", "2 entity types", "3 entity types"][types], true);

        // Variants of the package without one feature: when a ruling differs, it mattered.
        let mut no_closures = m.clone();
        no_closures.closures.clear();
        let mut no_priorities = m.clone();
        no_priorities.superior.clear();
        let mut no_defeaters = m.clone();
        no_defeaters.rules.iter_mut().filter(|r| r.strength == Strength::Defeater).for_each(|r| r.never = true);
        let mut no_recursion = m.clone();
        for &i in &recursive {
            no_recursion.rules[i].never = true;
        }
        for case in facts(seed, &doc) {
            let facts = m.read_facts(&case["facts"], &grant()).unwrap();
            note("negative input fact", facts.0.keys().any(|&(_, neg)| neg));
            let base = m.ruling(json!("c"), &m.run(facts.clone()));
            note("contradiction", base["contradictions"] != json!([]));
            note("something concluded", base["concluded"] != json!({}));
            for (k, variant) in [
                ("closures matter", &no_closures),
                ("priorities matter", &no_priorities),
                ("defeaters matter", &no_defeaters),
                ("recursion matters", &no_recursion),
            ] {
                note(k, variant.ruling(json!("c"), &variant.run(facts.clone())) != base);
            }
        }
    }
    eprintln!("{count:#?}");
    for (k, n) in &count {
        assert!(*n >= 10, "feature `{k}` only in {n} packages/cases of {SEEDS} seeds: {count:#?}");
    }
}

#[test]
fn other_configs_make_valid_packages() {
    let configs = [
        Config { max_entity_types: 0, max_arity: 1, ..Config::default() },
        Config {
            max_layers: 1,
            max_preds_per_layer: 1,
            max_rules_per_pred: 1,
            max_body_literals: 1,
            ..Config::default()
        },
        Config { max_layers: 5, max_preds_per_layer: 4, max_rules_per_pred: 3, ..Config::default() },
    ];
    for cfg in &configs {
        for seed in 0..40 {
            let doc = Document::parse(&package_bytes(seed, cfg)).unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
            check_constraints(&doc).unwrap_or_else(|e| panic!("seed {seed} {cfg:?}: {e}"));
            for case in facts(seed, &doc) {
                let out = evaluate(&doc, &case, &grant());
                assert!(out.get("error").is_none(), "seed {seed}: {out}");
            }
        }
    }
}

#[test]
fn different_seeds_make_different_packages() {
    let cfg = Config::default();
    let all: BTreeSet<Vec<u8>> = (0..50).map(|s| package_bytes(s, &cfg)).collect();
    assert_eq!(all.len(), 50);
}
