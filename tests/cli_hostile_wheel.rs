//! Issue 45, item 7: `clir wheel` of a package whose name or version holds a control character
//! (a line break would start a new field of the wheel's metadata) is refused before anything is
//! built, with an error naming the field.

use clir_testkit::Package;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const REACH: &str = "package demo.reach 1.0.0
type Node
empirical edge(from: Node, to: Node)
institutional reach(from: Node, to: Node)
rule Step strict: reach(x, y) :- edge(x, y)";

fn clir(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn wheel_refuses_a_package_name_or_version_with_a_control_character() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    for (name, version, field) in [
        ("demo.reach\nRequires-Dist: evil", "1.0.0", "package.name"),
        ("demo.reach\u{1b}[2J", "1.0.0", "package.name"),
        ("demo.reach", "1.0.0\r\nx", "package.version"),
    ] {
        let mut pkg = Package::parse(REACH).unwrap();
        pkg.name = name.into();
        pkg.version = version.into();
        let file = dir.path().join("hostile.lawir.json");
        std::fs::write(&file, pkg.bytes()).unwrap();
        let env = [("CLIR_CACHE_DIR", cache.to_str().unwrap()), ("PATH", "/nonexistent")];
        let out = clir(dir.path(), &["wheel", file.to_str().unwrap()], &env);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name:?}: {err}");
        assert!(err.contains(field) && err.contains("control character"), "{name:?} {version:?}: {err}");
        assert!(!err.contains("maturin"), "refused before anything else: {err}");
        assert!(!err.contains(['\u{1b}', '\r']), "{err:?}");
    }
}
