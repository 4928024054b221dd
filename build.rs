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
    // The identity of this build of the compiler and runtime: `clir run` keys its cache by it.
    println!("cargo:rustc-env=CLIR_BUILD_ID={}", build_id(&root));
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

/// sha256 over the compiler's and the runtime's sources (paths and bytes, in sorted order).
fn build_id(root: &Path) -> String {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    for dir in ["src", "clir-codegen/src"] {
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
        walk(&root.join(dir), &mut files);
    }
    files.sort();
    let mut all = Vec::new();
    for f in files {
        all.extend_from_slice(f.strip_prefix(root).unwrap_or(&f).to_string_lossy().as_bytes());
        all.push(0);
        all.extend_from_slice(&std::fs::read(&f).unwrap_or_default());
        all.push(0);
    }
    clir_codegen::canonical::sha256_hex(&all).trim_start_matches("sha256:").to_string()
}
