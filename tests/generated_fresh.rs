//! `generated/` holds the Rust and the plan of every compiled-in package, so that a reviewer
//! sees in a diff what a change of the law (or of the compiler) does to the code and its joins. This test fails when a copy is stale (as
//! rust-analyzer's sourcegen tests do); `UPDATE_GENERATED=1 cargo test --test generated_fresh`
//! refreshes it.

use clir_codegen::{build, project};
use std::path::Path;

#[test]
fn generated_code_is_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let project = project::load(root).expect("law.toml loads");
    let verified = project::verify_all(&project).expect("packages verify");
    let update = std::env::var_os("UPDATE_GENERATED").is_some();
    let mut stale = Vec::new();
    for package in &verified {
        let module = build::module_name(&package.spec.name);
        let source = clir_codegen::compile_document(&package.document, &package.pin.seal).expect("compiles");
        let plan = clir_codegen::plan_document(&package.document).expect("plans");
        for (path, source) in [
            (root.join("generated").join(format!("{module}.rs")), source),
            (root.join("generated").join(format!("{module}.plan")), plan),
        ] {
            let current = std::fs::read_to_string(&path).unwrap_or_default();
            if current != source {
                if update {
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    std::fs::write(&path, &source).unwrap();
                } else {
                    stale.push(format!(
                        "{} is stale; refresh it with `UPDATE_GENERATED=1 cargo test --test generated_fresh` \
                     (or `cargo run -- compile {} [--plan] -o {}`)",
                        path.strip_prefix(root).unwrap_or(&path).display(),
                        package.spec.path.display(),
                        path.strip_prefix(root).unwrap_or(&path).display(),
                    ));
                }
            }
        }
    }
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

/// The code `build.rs` compiled in is byte for byte the committed copy.
#[test]
fn build_output_is_the_committed_copy() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let project = project::load(root).expect("law.toml loads");
    assert!(!project.packages.is_empty());
    for spec in &project.packages {
        let module = build::module_name(&spec.name);
        let built =
            std::fs::read_to_string(Path::new(env!("OUT_DIR")).join(build::DIR).join(format!("{module}.rs"))).unwrap();
        let committed =
            std::fs::read_to_string(root.join("generated").join(format!("{module}.rs"))).unwrap_or_default();
        assert!(built == committed, "generated/{module}.rs differs from what build.rs compiled in");
    }
}
