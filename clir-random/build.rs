//! Generates a fixed-seed set of random packages, compiles each with the real compiler, and
//! writes the generated modules plus a registry into OUT_DIR. `CLIR_RANDOM_PACKAGES` sets how
//! many (default 40); `CLIR_RANDOM_ADVERSARIAL` how many more, named from an adversarial
//! alphabet (default 24, seeds from 1000 on). The synthetic compliance packages of
//! `SYNTHETIC` (clir-testkit/examples/synthetic) are compiled too.

use clir_codegen::canonical;
use std::fmt::Write;

#[path = "../clir-testkit/examples/synthetic/generator.rs"]
mod synthetic;

/// What clippy may find in generated modules of random and hand-made rules: names the package
/// chose, and comparisons and negations the rules happen to make redundant.
const GENERATED_LINTS: &str = "#[allow(clippy::disallowed_names, clippy::too_many_arguments, clippy::type_complexity, clippy::nonminimal_bool, clippy::overly_complex_bool_expr, clippy::double_comparisons, clippy::impossible_comparisons, clippy::redundant_comparisons, non_snake_case, non_camel_case_types)]";

/// The synthetic packages compiled, as (rules, seed): small enough for CI.
const SYNTHETIC: &[(usize, u64)] = &[(50, 1), (50, 2)];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=../clir-reference/src");
    for (_, file) in DEMO_FILES {
        println!("cargo:rerun-if-changed=../{file}");
    }
    println!("cargo:rerun-if-env-changed=CLIR_RANDOM_PACKAGES");
    println!("cargo:rerun-if-env-changed=CLIR_RANDOM_ADVERSARIAL");
    let adversarial: u64 = std::env::var("CLIR_RANDOM_ADVERSARIAL").ok().and_then(|s| s.parse().ok()).unwrap_or(24);
    let count: u64 = std::env::var("CLIR_RANDOM_PACKAGES").ok().and_then(|s| s.parse().ok()).unwrap_or(40);
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let plain = clir_reference::random::Config::default();
    let hostile = clir_reference::random::Config { adversarial: true, ..plain.clone() };
    let mut registry = String::from("/// Random packages: (seed, package bytes, module's Package).\npub static PACKAGES: &[(u64, &[u8], &dyn ::clir::Package)] = &[\n");
    let mut modules = String::new();
    let seeds = (0..count).map(|s| (s, &plain)).chain((1000..1000 + adversarial).map(|s| (s, &hostile)));
    for (seed, cfg) in seeds {
        let module = format!("p{seed}");
        compile(&out, &module, &format!("random package {seed}"), &clir_reference::random::package_bytes(seed, cfg));
        let json = format!("{module}.lawir.json");
        // Adversarial packages name things `foo`, `self_`, `NotE`: their names, not the compiler's.
        // A local the generated code builds and never reads is the compiler's: an error.
        writeln!(
            modules,
            "#[deny(unused_variables, unused_mut)]\n{GENERATED_LINTS}\npub mod {module} {{ include!(concat!(env!(\"OUT_DIR\"), \"/{module}.rs\")); }}"
        )
        .unwrap();
        writeln!(
            registry,
            "    ({seed}, include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{json}\")), &{module}::Package),"
        )
        .unwrap();
    }
    registry.push_str("];\n");
    fixtures(&out, &mut modules);
    demos(&out, &mut modules, &mut registry);
    synthetics(&out, &mut modules, &mut registry);
    fide(&out, &mut modules, &mut registry);
    std::fs::write(out.join("random_packages.rs"), modules + &registry).expect("write registry");
}

/// The hand-made packages of `fixtures/` (test kit notation), each a module named after the
/// package (`test.whynot` -> `test_whynot`).
fn fixtures(out: &std::path::Path, modules: &mut String) {
    println!("cargo:rerun-if-changed=fixtures");
    let mut paths: Vec<_> =
        std::fs::read_dir("fixtures").expect("fixtures/").map(|e| e.expect("entry").path()).collect();
    paths.sort();
    for path in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "clir")) {
        let text = std::fs::read_to_string(&path).expect("read fixture");
        let pkg = clir_testkit::Package::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let module = path.file_stem().and_then(|s| s.to_str()).expect("a name").replace('.', "_");
        compile(out, &module, &path.display().to_string(), &pkg.bytes());
        writeln!(
            modules,
            "{GENERATED_LINTS}\npub mod {module} {{ include!(concat!(env!(\"OUT_DIR\"), \"/{module}.rs\")); }}"
        )
        .unwrap();
    }
}

/// The demo packages of the repository's tests and examples, as published files.
const DEMO_FILES: &[(&str, &str)] = &[
    ("demo.roads", "benches/big-case/sources/demo.roads-0.1.0.lawir.json"),
    ("demo.library.loans", "examples/downstream/sources/demo.library.loans-0.1.0.lawir.json"),
];

/// The demo packages the CLI tests write in the test kit's notation (tests/cli_add.rs,
/// tests/downstream.rs).
const DEMO_TEXTS: &[&str] = &[
    "package demo.reach 0.1.0\ntype Node\nempirical edge(from: Node, to: Node)\ninstitutional reach(from: Node, to: Node)\nrule Step strict: reach(x, y) :- edge(x, y)",
    "package demo.paths 1.0.0\ntype Node\nempirical link(from: Node, to: Node)\ninstitutional path(from: Node, to: Node)\nrule Base strict: path(x, y) :- link(x, y)\nrule Step strict: path(x, z) :- link(x, y), path(y, z)",
    "package demo.graph.reach 0.1.0\nnamespace urn:demo:graph\ntype Node\nempirical edge(from: Node, to: Node)\ninstitutional reach(from: Node, to: Node)\nrule Step strict \"an edge is a path\": reach(x, y) :- edge(x, y)\nrule Extend strict \"a path followed by an edge is a path\": reach(x, z) :- reach(x, y), edge(y, z)",
];

/// fide.laws.chess, the repository's real package, as module `fide` and `FIDE` (for the
/// comparison of rulings through Arrow with `clir rule`'s, tests/arrow_agrees.rs).
fn fide(out: &std::path::Path, modules: &mut String, registry: &mut String) {
    const FILE: &str = "sources/fide.laws.chess-0.1.0.lawir.json";
    println!("cargo:rerun-if-changed=../{FILE}");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    compile(out, "fide", "fide.laws.chess", &std::fs::read(root.join(FILE)).expect("read fide.laws.chess"));
    writeln!(modules, "{GENERATED_LINTS}\npub mod fide {{ include!(concat!(env!(\"OUT_DIR\"), \"/fide.rs\")); }}")
        .unwrap();
    registry.push_str(
        "/// fide.laws.chess: (package bytes, module's Package).\npub static FIDE: (&[u8], &dyn ::clir::Package) = (include_bytes!(concat!(env!(\"OUT_DIR\"), \"/fide.lawir.json\")), &fide::Package);\n",
    );
}

/// Compiles the demo packages as modules `d0`, `d1`, .. and lists them in `DEMOS`.
fn demos(out: &std::path::Path, modules: &mut String, registry: &mut String) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut packages: Vec<(String, Vec<u8>)> = DEMO_FILES
        .iter()
        .map(|(name, file)| (name.to_string(), std::fs::read(root.join(file)).expect("read a demo package")))
        .collect();
    for text in DEMO_TEXTS {
        let pkg = clir_testkit::Package::parse(text).expect("a demo package in notation");
        packages.push((text.split_whitespace().nth(1).unwrap().to_string(), pkg.bytes()));
    }
    registry.push_str("/// Demo packages: (name, package bytes, module's Package).\npub static DEMOS: &[(&str, &[u8], &dyn ::clir::Package)] = &[\n");
    for (i, (name, bytes)) in packages.iter().enumerate() {
        let module = format!("d{i}");
        compile(out, &module, &format!("demo package {name}"), bytes);
        writeln!(modules, "#[allow(clippy::too_many_arguments, clippy::type_complexity)]\npub mod {module} {{ include!(concat!(env!(\"OUT_DIR\"), \"/{module}.rs\")); }}").unwrap();
        writeln!(
            registry,
            "    ({name:?}, include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{module}.lawir.json\")), &{module}::Package),"
        )
        .unwrap();
    }
    registry.push_str("];\n");
}

/// Compiles the synthetic packages of `SYNTHETIC` as modules `s<rules>_<seed>` and lists them in
/// `SYNTHETIC`.
fn synthetics(out: &std::path::Path, modules: &mut String, registry: &mut String) {
    println!("cargo:rerun-if-changed=../clir-testkit/examples/synthetic/generator.rs");
    registry.push_str("/// Synthetic packages: (rules, seed, package bytes, module's Package).\npub static SYNTHETIC: &[(usize, u64, &[u8], &dyn ::clir::Package)] = &[\n");
    for &(rules, seed) in SYNTHETIC {
        let module = format!("s{rules}_{seed}");
        compile(
            out,
            &module,
            &format!("synthetic package of {rules} rules, seed {seed}"),
            &synthetic::package(rules, seed).bytes(),
        );
        writeln!(
            modules,
            "{GENERATED_LINTS}\npub mod {module} {{ include!(concat!(env!(\"OUT_DIR\"), \"/{module}.rs\")); }}"
        )
        .unwrap();
        writeln!(
            registry,
            "    ({rules}, {seed}, include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{module}.lawir.json\")), &{module}::Package),"
        )
        .unwrap();
    }
    registry.push_str("];\n");
}

/// Verifies and compiles the package `bytes` (`what`, for messages) into `<module>.rs`, beside
/// its `<module>.lawir.json`.
fn compile(out: &std::path::Path, module: &str, what: &str, bytes: &[u8]) {
    let doc = clir_codegen::verify::verify_bytes(bytes, &Default::default())
        .into_document()
        .unwrap_or_else(|e| panic!("{what} does not verify: {e}"));
    let source = clir_codegen::compile_document(&doc, &canonical::seal(bytes))
        .unwrap_or_else(|e| panic!("{what} is rejected by the compiler: {e}"));
    std::fs::write(out.join(format!("{module}.lawir.json")), bytes).expect("write package");
    std::fs::write(out.join(format!("{module}.rs")), source).expect("write module");
}
