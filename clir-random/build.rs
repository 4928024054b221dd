//! Generates a fixed-seed set of random packages, compiles each with the real compiler, and
//! writes the generated modules plus a registry into OUT_DIR. `CLIR_RANDOM_PACKAGES` sets how
//! many (default 40).

use clir_codegen::{build::Compiled, canonical};
use std::fmt::Write;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=../clir-reference/src");
    println!("cargo:rerun-if-env-changed=CLIR_RANDOM_PACKAGES");
    let count: u64 = std::env::var("CLIR_RANDOM_PACKAGES").ok().and_then(|s| s.parse().ok()).unwrap_or(40);
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let cfg = clir_reference::random::Config::default();
    let mut registry = String::from("/// Random packages: (seed, package bytes, module's Package).\npub static PACKAGES: &[(u64, &[u8], &dyn ::clir::Package)] = &[\n");
    let mut modules = String::new();
    let mut compiled = Vec::new();
    for seed in 0..count {
        let bytes = clir_reference::random::package_bytes(seed, &cfg);
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
        writeln!(modules, "pub mod {module} {{ include!(concat!(env!(\"OUT_DIR\"), \"/{module}.rs\")); }}").unwrap();
        writeln!(
            registry,
            "    ({seed}, include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{json}\")), &{module}::Package),"
        )
        .unwrap();
        compiled.push(Compiled { name: format!("random.p{seed}"), module, source });
    }
    registry.push_str("];\n");
    std::fs::write(out.join("random_packages.rs"), modules + &registry).expect("write registry");
}
