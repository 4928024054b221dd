//! The committed package file of demo.roads is the test kit's canonical bytes of the notation
//! (`package/demo.roads.clir`) and its source text; it verifies with every check passing, and
//! `law.lock` pins it. `UPDATE_BIG_CASE=1 cargo test -p clir-big-case --test package` rewrites
//! the file; then `clir lock --update demo.roads --root benches/big-case` pins it.

use clir_codegen::verify::{verify_bytes, Outcome, VerifyOptions};
use clir_testkit::Package;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn package() -> Package {
    let notation = std::fs::read_to_string(root().join("package/demo.roads.clir")).unwrap();
    let mut pkg = Package::parse(&notation).unwrap_or_else(|e| panic!("package/demo.roads.clir: {e}"));
    pkg.hash_sources(&root()).unwrap();
    pkg
}

#[test]
fn the_committed_package_file_is_the_notation_built_and_verifies() {
    let pkg = package();
    let path = root().join("sources").join(pkg.file_name());
    if std::env::var_os("UPDATE_BIG_CASE").is_some_and(|v| v == "1") {
        std::fs::write(&path, pkg.bytes()).unwrap();
    }
    let bytes = std::fs::read(&path).unwrap_or_default();
    assert!(
        bytes == pkg.bytes(),
        "{} is stale: UPDATE_BIG_CASE=1 cargo test -p clir-big-case --test package",
        path.display()
    );
    let opts = VerifyOptions {
        name: Some("demo.roads".into()),
        version: Some("0.1.0".into()),
        seal: Some(clir_codegen::canonical::seal(&bytes)),
        root: Some(root()),
        strict_sources: true,
        ..Default::default()
    };
    let report = verify_bytes(&bytes, &opts);
    for check in &report.checks {
        // Pass, or not compared where no pin was given.
        assert!(
            matches!(check.outcome, Outcome::Pass | Outcome::Skipped),
            "{}: {} {:?}",
            check.name,
            check.detail,
            check.diagnostics
        );
    }
    let project = clir_codegen::project::load(&root()).unwrap_or_else(|d| panic!("{d:?}"));
    let verified = clir_codegen::project::verify_all(&project).unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(verified[0].pin.seal, pkg.seal(), "law.lock pins the committed file");
}
