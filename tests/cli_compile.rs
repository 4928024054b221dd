//! `clir compile`: a rejected package's diagnostics on stderr, rendered or as JSON, exit 1.
use std::path::Path;
use std::process::{Command, Output};

/// The unstratifiable package of the golden files.
const CONTESTED: &str = include_str!("../clir-codegen/tests/rejected/contested_in_own_cycle.clir");

fn compile(dir: &Path, extra: &[&str]) -> Output {
    let pkg = clir_testkit::Package::parse(CONTESTED).unwrap();
    let file = dir.join(pkg.file_name());
    std::fs::write(&file, pkg.bytes()).unwrap();
    let mut args = vec!["compile".to_string(), file.display().to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    Command::new(env!("CARGO_BIN_EXE_clir")).args(&args).current_dir(dir).output().unwrap()
}

#[test]
fn a_rejected_package_is_reported_like_rustc() {
    let dir = tempfile::tempdir().unwrap();
    let out = compile(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "no Rust for a rejected package");
    let err = String::from_utf8(out.stderr).unwrap();
    let golden = include_str!("../clir-codegen/tests/rejected/contested_in_own_cycle.err");
    assert!(err.starts_with(golden), "stderr:\n{err}\nexpected it to start with:\n{golden}");
    assert!(err.contains("rejected (1 errors)"), "{err}");
}

#[test]
fn message_format_json_gives_one_object_a_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = compile(dir.path(), &["--message-format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    let first: serde_json::Value = serde_json::from_str(err.lines().next().unwrap()).unwrap();
    assert_eq!(first["level"], "error");
    assert_eq!(first["code"], "contested_cycle");
    assert_eq!(first["package"], "test.rejected");
    assert_eq!(first["path"], "nodes[7].body.items[0]");
    assert_eq!(first["rule"], "p(g) :- q(g).");
    assert_eq!(first["span"], serde_json::json!([8, 12]));
    assert_eq!(first["notes"].as_array().unwrap().len(), 2);
}
