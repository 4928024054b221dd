//! Verifies every package of `law.toml` against its pin in `law.lock` (SEMANTICS §1,
//! CONTRACT.md) and compiles the verified packages into `OUT_DIR`. A package that does not match
//! its pin, does not verify, or has no pin fails `cargo build` with a message naming the package,
//! the field, the expected and the found value.

use clir_codegen::build;
use clir_codegen::project::{self, VerifiedPackage};
use clir_codegen::{Diagnostics, Source};
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for file in [project::MANIFEST, project::LOCKFILE] {
        println!("cargo:rerun-if-changed={}", root.join(file).display());
    }
    // Package blobs and the source texts their documentHash names.
    println!("cargo:rerun-if-changed={}", root.join("sources").display());

    let project = project::load(&root).unwrap_or_else(|d| fail(&d));
    for spec in &project.packages {
        println!("cargo:rerun-if-changed={}", project.blob_path(spec).display());
    }
    let verified = project::verify_all(&project).unwrap_or_else(|d| fail(&d));
    for package in &verified {
        for w in &package.warnings {
            println!("cargo:warning={w}");
        }
    }
    generate(&verified, &out_dir);
}

/// Reports every diagnostic and fails the build.
fn fail(diagnostics: &Diagnostics) -> ! {
    eprintln!("error: the law packages of law.toml do not verify:");
    for d in &diagnostics.0 {
        eprintln!("error: {d}");
    }
    std::process::exit(1);
}

/// Compiles the verified packages into `out_dir`: one module each and the registry
/// `include_clir!` and the CLI read.
fn generate(verified: &[VerifiedPackage], out_dir: &Path) {
    let mut compiled = Vec::new();
    let mut rejected = false;
    for package in verified {
        let name = &package.spec.name;
        match build::compile(name, &package.document, &package.pin.seal) {
            Ok(c) => compiled.push(c),
            Err(d) => {
                eprintln!("{}", d.render("error", Source { package: Some(name), document: Some(&package.document) }));
                rejected = true;
            }
        }
    }
    if rejected {
        eprintln!("error: the compiler rejected law packages of law.toml");
        std::process::exit(1);
    }
    if let Err(e) = build::write(&compiled, out_dir) {
        eprintln!("error: cannot write generated code to {}: {e}", out_dir.display());
        std::process::exit(1);
    }
}
