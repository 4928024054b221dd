//! The steps of README.md "Use clir from your own crate", as a user takes them, in a fresh
//! crate in a temporary folder: `clir new`, `clir add` of a package written with the test kit,
//! `cargo run`, the typed API through `include_clir!`, and the build failures a user must get:
//! a package law.toml does not list, a changed pin, no build script.
//!
//! The fixture crates build with cargo against the runtime `clir new` writes into the crate's own
//! `clir-runtime/` (never the checkout, never the cache), in a target folder kept under
//! `CARGO_TARGET_TMPDIR` between runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const REACH: &str = "package demo.graph.reach 0.1.0
namespace urn:demo:graph
type Node
empirical edge(from: Node, to: Node)
institutional reach(from: Node, to: Node)
rule Step strict \"an edge is a path\": reach(x, y) :- edge(x, y)
rule Extend strict \"a path followed by an edge is a path\": reach(x, z) :- reach(x, y), edge(y, z)";

const TYPED_MAIN: &str = r#"clir::include_clir!("demo.graph.reach");

fn main() {
    use demo_graph_reach::*;
    let mut cases = Cases::new();
    let mut case = cases.case();
    let (a, b, c) = (case.node("a"), case.node("b"), case.node("c"));
    case.edge(a, b).edge(b, c);
    let id = case.id();
    let ruling = cases.evaluate().case(id);
    println!("a reaches c: {}", ruling.reach().is_definite(&(a, c)));
}
"#;

fn clir(cwd: &Path, cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clir")).args(args).current_dir(cwd).env("CLIR_CACHE_DIR", cache).output().unwrap()
}

fn cargo(dir: &Path, args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("downstream-target");
    let mut child = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("OUT_DIR")
        .env_remove("RUSTFLAGS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_new_crate_compiles_and_rules_with_its_own_package() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let pkg = clir_testkit::Package::parse(REACH).unwrap();
    let blob = tmp.path().join(pkg.file_name());
    std::fs::write(&blob, pkg.bytes()).unwrap();

    let out = clir(tmp.path(), &cache, &["new", "reach-demo"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let krate = tmp.path().join("reach-demo");
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
    assert!(
        !manifest.contains(env!("CARGO_MANIFEST_DIR")),
        "the scaffold must not depend on the checkout:\n{manifest}"
    );
    assert!(!manifest.contains(&cache.display().to_string()), "{manifest}");
    assert!(manifest.contains("path = \"clir-runtime/clir\""), "{manifest}");
    assert!(krate.join("clir-runtime/clir/src/lib.rs").is_file());

    let out = clir(&krate, &cache, &["add", blob.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(std::fs::read(krate.join("sources/demo.graph.reach-0.1.0.lawir.json")).unwrap(), pkg.bytes());

    // The crate does not depend on clir's cache: clearing it changes nothing.
    let _ = std::fs::remove_dir_all(&cache);

    // The scaffold's main rules JSON Lines with the package, and takes grants.
    let out = cargo(&krate, &["run", "-q", "--", "--grant"], "");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--grant needs a capability"), "{}", text(&out.stderr));
    let out = cargo(&krate, &["run", "-q", "--", "--grant", "judgment:arbiter"], "{\"case\":1,\"facts\":{}}\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let case = "{\"case\":1,\"facts\":{\"edge\":[[\"a\",\"b\"],[\"b\",\"c\"]]}}\n";
    let out = cargo(&krate, &["run", "-q"], case);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let ruling: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(ruling["concluded"]["reach"], serde_json::json!([["a", "b"], ["a", "c"], ["b", "c"]]));

    // The law test file the scaffold left empty, run by the scaffold's main.
    assert_eq!(std::fs::read_to_string(krate.join("tests/law.tests.jsonl")).unwrap(), "");
    let test = "{\"case\":\"chain\",\"facts\":{\"edge\":[[\"a\",\"b\"],[\"b\",\"c\"]]},\"expect\":{\"concluded\":[\"reach(a,c)\"]}}\n";
    std::fs::write(krate.join("tests/law.tests.jsonl"), test).unwrap();
    let out = cargo(&krate, &["run", "-q", "--", "--test", "tests/law.tests.jsonl"], "");
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(text(&out.stdout).contains("\"outcome\":\"passed\""), "{}", text(&out.stdout));
    std::fs::write(krate.join("tests/law.tests.jsonl"), test.replace("reach(a,c)", "reach(c,a)")).unwrap();
    let out = cargo(&krate, &["run", "-q", "--", "--test", "tests/law.tests.jsonl"], "");
    assert_eq!(out.status.code(), Some(1), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(text(&out.stdout).contains("\"literal\":\"reach(c,a)\""), "{}", text(&out.stdout));

    // A library user compiles neither the command line nor the compiler.
    let out = cargo(&krate, &["tree", "-e", "normal", "--prefix", "none"], "");
    let tree = text(&out.stdout);
    for absent in ["clap ", "indicatif ", "clir-codegen ", "tokio ", "timely "] {
        assert!(!tree.contains(absent), "{absent}in the normal dependencies:\n{tree}");
    }

    // The typed API of the module the crate's own build script generated.
    std::fs::write(krate.join("src/main.rs"), TYPED_MAIN).unwrap();
    let out = cargo(&krate, &["run", "-q"], "");
    assert_eq!(text(&out.stdout), "a reaches c: true\n", "{}", text(&out.stderr));

    // A package law.toml does not list.
    std::fs::write(krate.join("src/main.rs"), "clir::include_clir!(\"demo.not.listed\");\nfn main() {}\n").unwrap();
    let out = cargo(&krate, &["build", "-q"], "");
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("package `demo.not.listed` is not listed in law.toml"), "{err}");
    assert!(err.contains(&krate.join("law.toml").canonicalize().unwrap().display().to_string()), "{err}");
    std::fs::write(krate.join("src/main.rs"), TYPED_MAIN).unwrap();

    // A changed pin fails the build, naming the package, the field, the expected and the found.
    let lock = std::fs::read_to_string(krate.join("law.lock")).unwrap();
    let seal = pkg.seal();
    let wrong = format!("sha256:{}", "0".repeat(64));
    std::fs::write(krate.join("law.lock"), lock.replace(&seal, &wrong)).unwrap();
    let out = cargo(&krate, &["build", "-q"], "");
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("demo.graph.reach") && err.contains(&wrong) && err.contains(&seal), "{err}");
    std::fs::write(krate.join("law.lock"), lock).unwrap();

    // Without the build script, include_clir! says what to add.
    std::fs::remove_file(krate.join("build.rs")).unwrap();
    let out = cargo(&krate, &["build", "-q"], "");
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("needs this crate's build script"), "{err}");
}

#[test]
fn new_refuses_an_existing_folder_and_a_name_that_is_not_a_crate_name() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    std::fs::create_dir(tmp.path().join("taken")).unwrap();
    let out = clir(tmp.path(), &cache, &["new", "taken"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("already exists"), "{}", text(&out.stderr));
    let out = clir(tmp.path(), &cache, &["new", "1bad name"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is not a crate name"), "{}", text(&out.stderr));
}

#[test]
fn run_builds_against_the_runtime_in_its_cache_not_the_checkout() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let pkg = clir_testkit::Package::parse(REACH).unwrap();
    let blob = tmp.path().join(pkg.file_name());
    std::fs::write(&blob, pkg.bytes()).unwrap();
    // `false` stands in for cargo: the crate is written, the build fails, nothing runs.
    let out = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["run", blob.to_str().unwrap()])
        .env("CLIR_CACHE_DIR", &cache)
        .env("CARGO", "false")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("cargo build failed"), "{}", text(&out.stderr));
    let runtime = std::fs::read_dir(cache.join("runtime")).unwrap().next().unwrap().unwrap().path();
    assert!(runtime.join(".complete").is_file());
    for file in
        ["clir/Cargo.toml", "clir/src/lib.rs", "clir-macros/src/lib.rs", "clir-codegen/src/lib.rs", "Cargo.lock"]
    {
        assert!(runtime.join(file).is_file(), "{file} missing from the runtime");
    }
    let crate_dir = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("Cargo.toml").is_file())
        .expect("the package's crate in the cache");
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap();
    assert!(manifest.contains(&runtime.join("clir").display().to_string()), "{manifest}");
    assert!(!manifest.contains(env!("CARGO_MANIFEST_DIR")), "{manifest}");
}

/// Copies `from` into `to`, leaving out `target/`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != "target" {
                copy_tree(&src, &dst);
            }
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

#[test]
fn the_downstream_example_builds_rules_its_cases_and_fails_on_a_changed_pin() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let example = tmp.path().join("downstream");
    copy_tree(&repo.join("examples/downstream"), &example);
    // The copy depends on this checkout by absolute path instead of `../..`.
    let manifest = std::fs::read_to_string(example.join("Cargo.toml")).unwrap();
    let manifest = manifest.replace("\"../..", &format!("\"{}", repo.display()));
    std::fs::write(example.join("Cargo.toml"), manifest).unwrap();

    let cases = std::fs::read_to_string(example.join("cases.jsonl")).unwrap();
    let out = cargo(&example, &["run", "-q", "--", "--jsonl", "--grant", "judgment:Librarian"], &cases);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), std::fs::read_to_string(example.join("rulings.jsonl")).unwrap());
    let out = cargo(&example, &["run", "-q"], "");
    assert!(out.status.success() && text(&out.stdout).contains("Article"), "{}", text(&out.stderr));

    let lock = std::fs::read_to_string(example.join("law.lock")).unwrap();
    let seal = lock.lines().find_map(|l| l.strip_prefix("seal = \"")).unwrap().trim_end_matches('"').to_string();
    let changed = format!("{}{}", &seal[..seal.len() - 1], if seal.ends_with('0') { '1' } else { '0' });
    std::fs::write(example.join("law.lock"), lock.replace(&seal, &changed)).unwrap();
    let out = cargo(&example, &["build", "-q"], "");
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains(&format!("package demo.library.loans: seal: expected {changed}, found {seal}")),
        "the build must name the package, the field, the expected and the found value:\n{err}"
    );
}
