//! `generated/` holds the Rust, the plan and the Datalog (`clir show`) of every compiled-in
//! package, so that a reviewer sees in a diff what a change of the law (or of the compiler) does
//! to the rules, the code and its joins. This test fails when a copy is stale (as
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
        let datalog = clir_codegen::show_document(&package.document).expect("shows");
        let blob = package.spec.path.display();
        for (path, source, command) in [
            (root.join("generated").join(format!("{module}.rs")), source, format!("compile {blob}")),
            (root.join("generated").join(format!("{module}.plan")), plan, format!("compile {blob} --plan")),
            (root.join("generated").join(format!("{module}.dl")), datalog, format!("show {blob}")),
        ] {
            let current = std::fs::read_to_string(&path).unwrap_or_default();
            if current != source {
                if update {
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    std::fs::write(&path, &source).unwrap();
                } else {
                    let shown = path.strip_prefix(root).unwrap_or(&path).display();
                    stale.push(format!(
                        "{shown} is stale; refresh it with `UPDATE_GENERATED=1 cargo test --test generated_fresh` \
                     (or `cargo run -- {command} -o {shown}`)",
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
