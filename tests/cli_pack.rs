//! `clir pack` and `clir show --notation` (issue 51, items 1, 2, 4, 5 and 6): the README's
//! amendment walk-through run as written, notation errors located by line and column, a
//! package `clir verify` refuses refused with nothing written, `--check`, hostile outputs, and
//! the printed notation packing back into the same file.
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

const SEED: &[u8] = include_bytes!("../sources/fide.laws.chess-0.1.0.lawir.json");
const AMENDED: &[u8] = include_bytes!("data/fide.laws.chess-0.2.0.lawir.json");

fn clir(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clir")).args(args).current_dir(dir).output().unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn checkout() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The shell block of the README's section "Amending a law".
fn walk_through() -> String {
    let readme = fs::read_to_string(checkout().join("README.md")).unwrap();
    let section = &readme[readme.find("\n## Amending a law").expect("the README's section")..];
    let start = section.find("```sh\n").unwrap() + "```sh\n".len();
    section[start..start + section[start..].find("```").unwrap()].to_string()
}

/// The README's walk-through, run as written by bash in a new folder with this `clir` first on
/// the PATH: the amended package is byte for byte the 0.2.0 the tests keep, `clir diff` names
/// the changed cases with the amended rule and its article as their cause, the law tests run,
/// and the registry holds the new version.
#[test]
fn the_readme_walk_through_runs_as_written() {
    let script = walk_through();
    assert!(script.contains("clir show --notation fide.laws.chess > fide.law"), "{script}");
    let dir = tempfile::tempdir().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_clir")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let started = std::time::Instant::now();
    let o = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &script])
        .current_dir(dir.path())
        .env("PATH", path)
        .env("CLIR", checkout())
        .env("CLIR_CACHE_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_pack-cache"))
        .output()
        .unwrap();
    eprintln!("walk-through: {:.1} s", started.elapsed().as_secs_f64());
    assert!(o.status.success(), "{script}\n{}", text(&o));
    let d = dir.path();

    // The notation says the rule as a rule; the amendment is the 0.2.0 of tests/data, exactly.
    let notation = fs::read_to_string(d.join("fide.law")).unwrap();
    assert!(notation.contains("fifty_move_claim_correct(v0, v1) :- v2 >= 40,"), "{notation}");
    assert_eq!(fs::read(d.join("fide-amended.lawir.json")).unwrap(), AMENDED);

    // Every changed case is caused by the amended rule, Article 9.
    let changes = fs::read_to_string(d.join("changes.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = changes.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(!lines.is_empty(), "no case changed");
    for line in &lines {
        let causes = line["causes"].as_array().unwrap();
        assert_eq!(causes.len(), 1, "{line}");
        assert_eq!(causes[0]["node"], "urn:fide:laws:clir:chess#FiftyMoveClaimCorrect", "{line}");
        assert!(causes[0].to_string().contains("article/9"), "{line}");
    }
    // The law tests' report and the registry's index.
    let report = fs::read_to_string(d.join("report.jsonl")).unwrap();
    assert!(report.lines().count() >= 10, "{report}");
    let index = fs::read_to_string(d.join("registry/index/fide.laws.chess.json")).unwrap_or_else(|_| {
        let found: Vec<_> = walk(&d.join("registry"));
        panic!("no index: {found:?}")
    });
    assert!(index.contains("0.2.0"), "{index}");
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        out.push(e.path().display().to_string());
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        }
    }
    out
}

#[test]
fn show_notation_packs_back_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    for (file, bytes) in [("old.lawir.json", SEED), ("new.lawir.json", AMENDED)] {
        fs::write(dir.path().join(file), bytes).unwrap();
        let o = clir(dir.path(), &["show", "--notation", file, "-o", "p.law"]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let o = clir(dir.path(), &["pack", "p.law", "-o", "packed.lawir.json"]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        assert_eq!(fs::read(dir.path().join("packed.lawir.json")).unwrap(), bytes, "{file}");
    }
    // The compiled-in package by name, and without -o the file a project keeps it under.
    let o = clir(dir.path(), &["show", "--notation", "--package", "fide.laws.chess"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    fs::write(dir.path().join("fide.law"), &o.stdout).unwrap();
    let o = clir(dir.path(), &["pack", "fide.law"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(fs::read(dir.path().join("fide.laws.chess-0.1.0.lawir.json")).unwrap(), SEED);
    assert!(text(&o).contains("seal          sha256:bbae5f143f1103a18fccd4e4c3f3ce617ba2ec2353050085a513f77fd2c28868"));
}

const SMALL: &str = "package demo.small 0.1.0
type Item \"an item\"
empirical held(item: Item)
institutional kept(item: Item)
fragment ART_1 article/1 \"Article 1. What is held is kept.\"
rule Keep strict \"Article 1\" @ART_1: kept(i) :- held(i)
";

fn dir_with_law(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("p.law"), text).unwrap();
    dir
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn a_notation_error_names_line_and_column() {
    let bad = SMALL
        .replace("rule Keep strict \"Article 1\" @ART_1: kept(i)", "rule Keep strict \"Article 1\" @ART_1 kept(i)");
    let dir = dir_with_law(&bad);
    let o = clir(dir.path(), &["pack", "p.law", "-o", "out.lawir.json"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("error[notation]: expected `:` at `kept(i) :- held(i)`"), "{err}");
    assert!(err.contains("  --> p.law:6:37\n"), "{err}");
    assert!(err.contains("= note: 6 | rule Keep strict"), "{err}");
    assert!(err.contains(&format!("   = note:   | {}^\n", " ".repeat(36))), "{err}");
    assert_eq!(files(dir.path()), ["p.law"]);

    // A continuation line: the column is that of the continued line.
    let dir = dir_with_law(&SMALL.replace(":- held(i)", ":-\n    held(i) junk"));
    let o = clir(dir.path(), &["pack", "p.law", "--message-format", "json"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let json: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&o.stderr).lines().next().unwrap()).unwrap();
    assert_eq!(json["code"], "notation");
    assert_eq!(json["path"], "p.law:7:13");
    assert_eq!(files(dir.path()), ["p.law"]);
}

#[test]
fn what_verify_refuses_is_refused_at_its_statement() {
    // An unknown relation in a body, and a rule of an unknown strength: verify's diagnostics,
    // each located at the statement of its node.
    let dir = dir_with_law(&SMALL.replace(":- held(i)", ":- helt(i)"));
    let o = clir(dir.path(), &["pack", "p.law", "-o", "out.lawir.json"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--> demo.small p.law:6:49 nodes[4].body.items[0].predicate (rule urn:demo:small#Keep)"),
        "{err}"
    );
    assert!(err.contains("helt"), "{err}");
    assert!(err.contains("does not verify (references)"), "{err}");
    assert_eq!(files(dir.path()), ["p.law"]);

    let dir = dir_with_law(&SMALL.replace("strict", "stirct"));
    let o = clir(dir.path(), &["pack", "p.law", "-o", "out.lawir.json"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("p.law:6:1"), "{}", text(&o));
    assert_eq!(files(dir.path()), ["p.law"]);

    // A publication whose source text is present but differs from the hash written.
    let with_source = format!("{SMALL}publication TEXT texts/en.txt hash sha256:{}\n", "0".repeat(64));
    let dir = dir_with_law(&with_source);
    fs::create_dir(dir.path().join("texts")).unwrap();
    fs::write(dir.path().join("texts/en.txt"), "Article 1. What is held is kept.\n").unwrap();
    let o = clir(dir.path(), &["pack", "p.law", "-o", "out.lawir.json"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("documentHash"), "{}", text(&o));
    assert!(!dir.path().join("out.lawir.json").exists());
    // Without the hash, pack computes it from the file.
    let dir2 = dir_with_law(&format!("{SMALL}publication TEXT texts/en.txt\n"));
    fs::create_dir(dir2.path().join("texts")).unwrap();
    fs::write(dir2.path().join("texts/en.txt"), "Article 1. What is held is kept.\n").unwrap();
    let o = clir(dir2.path(), &["pack", "p.law", "-o", "out.lawir.json", "--strict-sources"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let doc: serde_json::Value =
        serde_json::from_slice(&fs::read(dir2.path().join("out.lawir.json")).unwrap()).unwrap();
    let hash = clir_codegen::canonical::sha256_hex(b"Article 1. What is held is kept.\n");
    assert!(doc.to_string().contains(&hash));
    let o = clir(dir2.path(), &["verify", "out.lawir.json", "--strict-sources"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn check_writes_nothing_and_fails_when_stale() {
    let dir = dir_with_law(SMALL);
    let o = clir(dir.path(), &["pack", "p.law", "-o", "out.lawir.json", "--check"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("is missing"), "{}", text(&o));
    assert_eq!(files(dir.path()), ["p.law"]);
    let o = clir(dir.path(), &["pack", "p.law", "-o", "out.lawir.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let packed = fs::read(dir.path().join("out.lawir.json")).unwrap();
    let o = clir(dir.path(), &["pack", "p.law", "-o", "out.lawir.json", "--check"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    fs::write(dir.path().join("p.law"), SMALL.replace("\"an item\"", "\"a thing\"")).unwrap();
    let o = clir(dir.path(), &["pack", "p.law", "-o", "out.lawir.json", "--check"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("differs (nodes changed: urn:demo:small#Item)"), "{}", text(&o));
    assert_eq!(fs::read(dir.path().join("out.lawir.json")).unwrap(), packed);
    assert_eq!(files(dir.path()), ["out.lawir.json", "p.law"]);
}

#[test]
fn hostile_outputs_and_inputs() {
    let dir = dir_with_law(SMALL);
    let d = dir.path();
    // A symlink is not written through; its target stays as it was.
    fs::write(d.join("target.json"), "keep").unwrap();
    std::os::unix::fs::symlink("target.json", d.join("link.json")).unwrap();
    let o = clir(d, &["pack", "p.law", "-o", "link.json"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("symlink"), "{}", text(&o));
    assert_eq!(fs::read_to_string(d.join("target.json")).unwrap(), "keep");
    // A FIFO (made here, as a device would be) is not written to.
    let fifo = d.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let o = clir(d, &["pack", "p.law", "-o", "fifo"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not a regular file"), "{}", text(&o));
    // A folder, a missing file, bytes that are not UTF-8, an empty file.
    let o = clir(d, &["pack", "p.law", "-o", "."]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = clir(d, &["pack", "missing.law"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    fs::write(d.join("bin.law"), b"package a 1\n\xff\xfe").unwrap();
    let o = clir(d, &["pack", "bin.law"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not UTF-8"), "{}", text(&o));
    fs::write(d.join("empty.law"), b"").unwrap();
    let o = clir(d, &["pack", "empty.law"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("error[notation]: no `package NAME VERSION` statement"), "{}", text(&o));
    let mut names = files(d);
    names.retain(|n| n.ends_with(".lawir.json"));
    assert!(names.is_empty(), "{names:?}");
}
