//! One small package for each shape of generated code, and the code clir generates for it,
//! committed as `tests/fixtures/<shape>/expected*.rs` (as prost-build's `_expected_*.rs`): a
//! change to the emitter shows in a review as a diff of these files. `UPDATE_FIXTURES=1 cargo
//! test -p clir-codegen --test fixtures` writes them again.
//!
//! - `recursion`: a datafrog iteration, semi-naive rounds;
//! - `contest`: applicability, a priority, a defeater, team defeat (also compiled without
//!   explanations);
//! - `closure`: a closure policy's negatives;
//! - `per_case`: a rule with no positive literal, tried once per case;
//! - `crates`: a package split into base, io and group crates and the package's module.

use clir_codegen::verify::{verify_bytes, VerifyOptions};
use clir_testkit::Package;
use std::path::{Path, PathBuf};

const SEAL: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

fn dir(shape: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(shape)
}

fn compiled(shape: &str) -> clir_codegen::Compilation {
    let text = std::fs::read_to_string(dir(shape).join("package.law")).unwrap();
    let pkg = Package::parse(&text).unwrap_or_else(|e| panic!("{shape}: {e}"));
    let doc = verify_bytes(&pkg.bytes(), &VerifyOptions::default()).into_document().unwrap();
    clir_codegen::compile(&doc).unwrap_or_else(|e| panic!("{shape}: {e}"))
}

/// Compares `actual` with the committed `file` of `shape`, or writes it under `UPDATE_FIXTURES`.
fn expect(shape: &str, file: &str, actual: &str) {
    let path = dir(shape).join(file);
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == actual,
        "{} differs from what clir generates; if the change is meant, run \
         `UPDATE_FIXTURES=1 cargo test -p clir-codegen --test fixtures` and review the diff",
        path.display()
    );
    assert!(syn::parse_file(actual).is_ok(), "{} parses", path.display());
}

fn module(shape: &str) {
    let code = clir_codegen::emit::emit(&compiled(shape), SEAL);
    expect(shape, "expected.rs", &code);
}

#[test]
fn recursion() {
    module("recursion");
}

#[test]
fn contest() {
    module("contest");
    // Compiled without explanations, no call records and no function takes `ex`.
    let code = clir_codegen::emit::emit_with(&compiled("contest"), SEAL, false);
    assert!(!code.contains("ex.to(") && !code.contains("ex: &mut") && !code.contains("Record"), "{code}");
    expect("contest", "expected_no_explanations.rs", &code);
}

#[test]
fn closure() {
    module("closure");
}

#[test]
fn per_case() {
    module("per_case");
}

#[test]
fn crates() {
    let c = clir_codegen::emit::emit_crates(&compiled("crates"), SEAL, true, 1, "fixture");
    expect("crates", "expected_base.rs", &c.base.1);
    expect("crates", "expected_io.rs", &c.io.1);
    for (name, src) in &c.groups {
        expect("crates", &format!("expected_{name}.rs"), src);
    }
    expect("crates", "expected_root.rs", &c.root);
    // No group file is left over from an earlier split.
    let groups: Vec<String> = std::fs::read_dir(dir("crates"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("expected_fixture_g_"))
        .collect();
    assert_eq!(groups.len(), c.groups.len(), "{groups:?}");
}
