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
    assert_eq!(c.io.0, "clir_demo_io");
    parses(&c.base.0, &c.base.1);
    parses(&c.io.0, &c.io.1);
    parses("the package's module", &c.root);
    assert!(c.base.1.contains("entity_type!") && !c.base.1.contains("REL_") && !c.base.1.contains("RULE_"));
    assert!(c.io.1.contains("pub mod layer") && !c.io.1.contains("fn rule_") && !c.io.1.contains("RULE_"));
    assert!(!c.root.contains("fn rule_") && c.root.contains("pub use ::clir_demo_base::*;"), "{}", c.root);
    // What a changed rule does not change is the io crate's: reading cases, writing rulings.
    for item in ["pub static CODEC", "pub fn read_inputs(", "pub fn write_conclusions("] {
        assert!(c.io.1.contains(item) && !c.root.contains(item), "{item}");
    }
    assert!(c.root.contains("::clir_demo_io::read_inputs(&mut l, batch);"), "{}", c.root);
    let mut at = 0;
    for (name, src) in &c.groups {
        assert!(name.starts_with("clir_demo_g_"), "{name}");
        parses(name, src);
        // A stratum's function, or the rule function of a stratum that is its one call.
        assert!(src.contains("pub fn stratum_") || src.contains("pub fn rule_"), "{src}");
        assert!(!src.contains("sha256:"), "a group carries no seal: {src}");
        // A group's strata take the layers they read as arguments and return those they
        // compute: no group reads the evaluation's store.
        assert!(!src.contains("layer::") && !src.contains("rt::Layers"), "{src}");
        for (other, _) in &c.groups {
            assert!(other == name || !src.contains(other.as_str()), "{name} names {other}");
        }
        let call = format!("::{name}::");
        let pos = c.root[at..].find(&call).unwrap_or_else(|| panic!("{call} after the earlier groups' calls"));
        at += pos + call.len();
    }
    // Grand is recursive: its explanations are found over the final layers, by its group.
    let grand = c.groups.iter().find(|(_, src)| src.contains("fn rule_grand(")).unwrap();
    assert!(c.root.contains(&format!("::{}::explain_0(", grand.0)), "{}", c.root);
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
    assert_eq!(a.io, b.io, "nor does the io crate");
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

/// A chain of `n` strata, `r<i>` concluded from `r<i-1>` by two rules, and by a third where
/// `extra` names it; the threshold of `r<n/2>`'s first rule `threshold`; published as `version`.
fn chain(n: usize, extra: Option<usize>, threshold: u32, version: &str) -> String {
    let mut text = format!(
        "package demo.crates.chain {version}
namespace urn:demo:chain
type Person
empirical age(p: Person, years: Integer)
empirical resident(p: Person)
empirical member(p: Person)
institutional r0(p: Person)
rule R0 strict: r0(p) :- resident(p)
"
    );
    for i in 1..n {
        let t = if i == n / 2 { threshold } else { 18 };
        text.push_str(&format!("institutional r{i}(p: Person)\n"));
        text.push_str(&format!("rule A{i} strict: r{i}(p) :- r{}(p), age(p, n), n >= {t}\n", i - 1));
        text.push_str(&format!("rule B{i} strict: r{i}(p) :- r{}(p), member(p)\n", i - 1));
        if extra == Some(i) {
            text.push_str(&format!("rule C{i} strict: r{i}(p) :- r{}(p), resident(p), member(p)\n", i - 1));
        }
    }
    text
}

/// The groups whose sources differ between `a` and `b` (by name; a group only one has counts).
fn changed(a: &Crates, b: &Crates) -> Vec<String> {
    let mut out: Vec<String> = a.groups.iter().filter(|g| !b.groups.contains(g)).map(|g| g.0.clone()).collect();
    out.extend(b.groups.iter().filter(|g| !a.groups.contains(g)).map(|g| g.0.clone()));
    out.sort();
    out.dedup();
    out
}

#[test]
fn an_amendment_leaves_every_other_group_byte_identical() {
    let (n, max) = (80, 12);
    let base = crates_of(&chain(n, None, 18, "0.1.0"), max);
    assert!(base.groups.len() >= 8, "{}", base.groups.len());
    // A changed threshold, in a new version: its group only.
    let threshold = crates_of(&chain(n, None, 21, "0.1.1"), max);
    assert_eq!((&base.base, &base.io), (&threshold.base, &threshold.io));
    let holder = |c: &Crates, f: &str| c.groups.iter().find(|(_, src)| src.contains(f)).unwrap().0.clone();
    let a_half = format!("fn rule_a{}(", n / 2);
    assert_eq!(changed(&base, &threshold), [holder(&base, &a_half)]);
    // An added rule, anywhere: its group (and, where it fills its group past the bound, the
    // groups up to the next cut by name), never the others, nor the base or io crates.
    let mut worst = 0;
    for at in (1..n).step_by(7) {
        let added = crates_of(&chain(n, Some(at), 18, "0.1.1"), max);
        assert_eq!((&base.base, &base.io), (&added.base, &added.io));
        let differ = changed(&base, &added);
        let with_rule = holder(&added, &format!("fn rule_c{at}("));
        assert!(differ.contains(&with_rule), "{differ:?}");
        worst = worst.max(differ.len());
        assert!(
            differ.len() <= 4,
            "rule added to r{at}: {} of {} groups changed: {differ:?}",
            differ.len(),
            added.groups.len()
        );
    }
    assert!(worst >= 1);
}
