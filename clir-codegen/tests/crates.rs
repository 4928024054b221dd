//! A package emitted as several crates (`emit::emit_crates`): each source parses, a group names
//! no other group, the package's module calls every group in order, every rule's function is in
//! exactly one group, and a changed threshold changes one group's source only.

use clir_codegen::emit::{emit_crates, Crates};
use clir_codegen::verify::{verify_bytes, VerifyOptions};
use clir_testkit::Package;

/// Four strata of rules (one recursive), the threshold of `Senior` given.
fn law(senior: u32) -> String {
    law_version(senior, "0.1.0")
}

/// [`law`] published as `version`.
fn law_version(senior: u32, version: &str) -> String {
    format!(
        "package demo.crates.law {version}
namespace urn:demo:crates
type Person
empirical age(p: Person, years: Integer)
empirical resident(p: Person)
empirical parent(p: Person, c: Person)
institutional adult(p: Person)
institutional voter(p: Person)
institutional senior(p: Person)
institutional ancestor(a: Person, d: Person)
rule Adult strict \"of age\": adult(p) :- age(p, n), n >= 18
rule Voter strict \"an adult resident votes\": voter(p) :- adult(p), resident(p)
rule Senior strict \"a senior\": senior(p) :- age(p, n), n >= {senior}
rule Parent strict \"a parent is an ancestor\": ancestor(a, d) :- parent(a, d)
rule Grand strict \"so is a parent's ancestor\": ancestor(a, d) :- ancestor(a, m), parent(m, d)"
    )
}

fn crates(senior: u32, max_rules: usize) -> Crates {
    crates_of(&law(senior), max_rules)
}

fn crates_of(text: &str, max_rules: usize) -> Crates {
    let pkg = Package::parse(text).unwrap();
    let doc = verify_bytes(&pkg.bytes(), &VerifyOptions::default()).into_document().unwrap();
    let seal = format!("sha256:{}", clir_codegen::canonical::sha256_hex(&pkg.bytes()));
    let c = clir_codegen::compile(&doc).unwrap();
    emit_crates(&c, &seal, true, max_rules, "clir_demo")
}

fn parses(name: &str, src: &str) {
    if let Err(e) = syn::parse_file(src) {
        panic!("{name} does not parse: {e}\n{src}");
    }
}

#[test]
fn each_group_is_a_crate_of_its_own_that_the_package_calls_in_order() {
    let c = crates(65, 1);
    assert_eq!(c.base.0, "clir_demo_base");
    assert!(
        c.groups.len() >= 4,
        "one group per stratum of rules: {:?}",
        c.groups.iter().map(|g| &g.0).collect::<Vec<_>>()
    );
    parses(&c.base.0, &c.base.1);
    parses("the package's module", &c.root);
    assert!(c.base.1.contains("pub mod layer") && !c.base.1.contains("fn rule_"), "{}", c.base.1);
    assert!(!c.root.contains("fn rule_") && c.root.contains("pub use ::clir_demo_base::*;"), "{}", c.root);
    // What a changed rule does not change is the base crate's: reading cases, writing rulings.
    for item in ["pub static CODEC", "pub fn read_inputs(", "pub fn write_conclusions("] {
        assert!(c.base.1.contains(item) && !c.root.contains(item), "{item}");
    }
    assert!(c.root.contains("::clir_demo_base::read_inputs(&mut l, batch);"), "{}", c.root);
    let mut at = 0;
    for (g, (name, src)) in c.groups.iter().enumerate() {
        assert_eq!(name, &format!("clir_demo_g{g}"));
        parses(name, src);
        assert!(src.contains("use ::clir_demo_base::*;") && src.contains("pub fn evaluate("), "{src}");
        assert!(!src.contains("sha256:"), "a group carries no seal: {src}");
        for (other, _) in &c.groups {
            assert!(other == name || !src.contains(other.as_str()), "{name} names {other}");
        }
        let call = format!("::{name}::evaluate(&mut l, &mut ex);");
        let pos = c.root[at..].find(&call).unwrap_or_else(|| panic!("{call} after the earlier groups' calls"));
        at += pos + call.len();
        assert!(c.root.contains(&format!("::{name}::explain(&l, &mut ex);")));
    }
    for rule in ["adult", "voter", "senior", "parent", "grand"] {
        let f = format!("fn rule_{rule}(");
        let holders = c.groups.iter().filter(|(_, src)| src.contains(&f)).count();
        assert_eq!(holders, 1, "{f} in exactly one group");
    }
}

#[test]
fn a_changed_threshold_changes_one_group_only() {
    let (a, b) = (crates(65, 1), crates(67, 1));
    assert_eq!(a.base, b.base, "the base crate does not change");
    let changed: Vec<&String> =
        a.groups.iter().zip(&b.groups).filter(|(x, y)| x != y).map(|((name, _), _)| name).collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    let senior = a.groups.iter().find(|(_, src)| src.contains("fn rule_senior(")).unwrap();
    assert_eq!(changed[0], &senior.0);
    assert_ne!(a.root, b.root, "the package's module holds every rule's text and the seal");
}

#[test]
fn a_bound_above_the_package_is_one_group() {
    let c = crates(65, 1000);
    assert_eq!(c.groups.len(), 1);
    parses(&c.groups[0].0, &c.groups[0].1);
}

/// An amendment as publishers make it: one threshold changed and a new version (so a new seal
/// and semanticHash). Only the changed rule's group and the package's module change: the
/// package's identity is the module's alone.
#[test]
fn an_amendment_with_a_new_version_changes_one_group_and_the_module_only() {
    let a = crates_of(&law_version(65, "0.1.0"), 1);
    let b = crates_of(&law_version(67, "0.1.1"), 1);
    assert_eq!(a.base, b.base, "the base crate does not change with the version");
    let changed: Vec<&String> =
        a.groups.iter().zip(&b.groups).filter(|(x, y)| x != y).map(|((name, _), _)| name).collect();
    let senior = a.groups.iter().find(|(_, src)| src.contains("fn rule_senior(")).unwrap();
    assert_eq!(changed, [&senior.0], "only the amended rule's group");
    for (name, src) in std::iter::once(&a.base).chain(&a.groups) {
        assert!(!src.contains("0.1.0") && !src.contains("demo.crates.law"), "{name} names the package's identity");
    }
    assert!(b.root.contains("0.1.1"));
    // The same version, nothing changed: nothing differs.
    assert_eq!(crates_of(&law_version(67, "0.1.1"), 1), b);
}
