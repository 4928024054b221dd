//! Generates a fixed-seed set of random packages, compiles each with the real compiler, and
//! writes the generated modules plus a registry into OUT_DIR. `CLIR_RANDOM_PACKAGES` sets how
//! many (default 40); `CLIR_RANDOM_ADVERSARIAL` how many more, named from an adversarial
//! alphabet (default 24, seeds from 1000 on).

use clir_codegen::canonical;
use std::fmt::Write;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=../clir-reference/src");
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
        let bytes = clir_reference::random::package_bytes(seed, cfg);
        let doc = clir_codegen::verify::verify_bytes(&bytes, &Default::default())
            .into_document()
            .unwrap_or_else(|e| panic!("random package {seed} does not verify: {e}"));
        let seal = canonical::seal(&bytes);
        let module = format!("p{seed}");
        let source = clir_codegen::compile_document(&doc, &seal)
            .unwrap_or_else(|e| panic!("random package {seed} is rejected by the compiler: {e}"));
        let json = format!("p{seed}.lawir.json");
        std::fs::write(out.join(&json), &bytes).expect("write package");
        std::fs::write(out.join(format!("{module}.rs")), &source).expect("write module");
        // Adversarial packages name things `foo`, `self_`, `NotE`: their names, not the compiler's.
        writeln!(
            modules,
            "#[allow(clippy::disallowed_names, clippy::too_many_arguments, clippy::type_complexity, clippy::nonminimal_bool, clippy::overly_complex_bool_expr, clippy::double_comparisons, non_snake_case, non_camel_case_types)]\npub mod {module} {{ include!(concat!(env!(\"OUT_DIR\"), \"/{module}.rs\")); }}"
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
        let bytes = pkg.bytes();
        let doc = clir_codegen::verify::verify_bytes(&bytes, &Default::default())
            .into_document()
            .unwrap_or_else(|e| panic!("{} does not verify: {e}", path.display()));
        let source = clir_codegen::compile_document(&doc, &canonical::seal(&bytes))
            .unwrap_or_else(|e| panic!("{} is rejected by the compiler: {e}", path.display()));
        let module = path.file_stem().and_then(|s| s.to_str()).expect("a name").replace('.', "_");
        std::fs::write(out.join(format!("{module}.rs")), &source).expect("write module");
        std::fs::write(out.join(format!("{module}.lawir.json")), &bytes).expect("write package");
        writeln!(modules, "pub mod {module} {{ include!(concat!(env!(\"OUT_DIR\"), \"/{module}.rs\")); }}").unwrap();
    }
}
