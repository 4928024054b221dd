//! `clir seal`: a package edited as JSON gets its hashes recomputed in place, and a file that
//! `clir verify` refuses for any reason but the hashes is refused, untouched (issue 51, item 3).
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

const SEED: &[u8] = include_bytes!("../sources/fide.laws.chess-0.1.0.lawir.json");
const FILE: &str = "fide.lawir.json";

fn clir(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clir")).args(args).current_dir(dir).output().unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// The published package with its fifty-move threshold made forty, hashes untouched.
fn edited() -> Vec<u8> {
    let seed = std::str::from_utf8(SEED).unwrap();
    assert_eq!(seed.matches("\"value\":50").count(), 1);
    seed.replace("\"value\":50", "\"value\":40").into_bytes()
}

fn dir_with(bytes: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join(FILE), bytes).unwrap();
    dir
}

fn doc(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&fs::read(dir.join(FILE)).unwrap()).unwrap()
}

#[test]
fn an_edited_package_is_sealed_and_then_verifies() {
    let dir = dir_with(&edited());
    let o = clir(dir.path(), &["verify", FILE]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("FAIL contentHash"), "{}", text(&o));

    let o = clir(dir.path(), &["seal", FILE]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = text(&o);
    assert!(
        out.contains("contentHash   1 of 140 nodes recomputed: urn:fide:laws:clir:chess#FiftyMoveClaimCorrect\n"),
        "{out}"
    );
    assert!(out.contains("sealed fide.laws.chess 0.1.0"), "{out}");
    assert!(out.contains("the publisher's pins (law.lock, a registry's index) no longer apply"), "{out}");

    let sealed = fs::read(dir.path().join(FILE)).unwrap();
    let seal = clir_codegen::canonical::seal(&sealed);
    assert!(out.contains(&format!("new seal {seal}")), "{out}");
    let o = clir(dir.path(), &["verify", FILE]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    // The semanticHash is the one the test kit gives the packages it writes.
    let d = doc(dir.path());
    let nodes = d["nodes"].as_array().unwrap();
    assert_eq!(d["semanticHash"].as_str().unwrap(), clir_codegen::seal::semantic_hash(nodes));
    assert_eq!(d["semanticHash"].as_str().unwrap(), clir_testkit::semantic_hash_of(nodes));
    assert_eq!(d["package"]["version"], "0.1.0");

    // Sealing again changes nothing.
    let o = clir(dir.path(), &["seal", FILE]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("already sealed"), "{}", text(&o));
    assert_eq!(fs::read(dir.path().join(FILE)).unwrap(), sealed);
}

#[test]
fn the_published_package_is_already_sealed() {
    let dir = dir_with(SEED);
    let o = clir(dir.path(), &["seal", FILE]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("already sealed"), "{}", text(&o));
    assert_eq!(fs::read(dir.path().join(FILE)).unwrap(), SEED);
}

#[test]
fn a_new_version_is_sealed_and_shown() {
    let dir = dir_with(&edited());
    let o = clir(dir.path(), &["seal", FILE, "--version", "0.1.1"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("version       0.1.0 -> 0.1.1"), "{}", text(&o));
    assert!(text(&o).contains("sealed fide.laws.chess 0.1.1"), "{}", text(&o));
    let d = doc(dir.path());
    assert_eq!(d["package"]["version"], "0.1.1");
    assert_eq!(d["semanticVersion"], "0.1.1");
    let o = clir(dir.path(), &["verify", FILE]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = clir(dir.path(), &["show", FILE]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("40"), "{}", text(&o));

    // A version alone reseals an intact file; a bad one is refused.
    let dir = dir_with(SEED);
    let o = clir(dir.path(), &["seal", FILE, "--version", "0.2.0"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(doc(dir.path())["package"]["version"], "0.2.0");
    let before = fs::read(dir.path().join(FILE)).unwrap();
    let o = clir(dir.path(), &["seal", FILE, "--version", "x.1"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(fs::read(dir.path().join(FILE)).unwrap(), before);
}

#[test]
fn the_published_package_pretty_printed_is_sealed_back_to_its_bytes() {
    let v: serde_json::Value = serde_json::from_slice(SEED).unwrap();
    let dir = dir_with(serde_json::to_string_pretty(&v).unwrap().as_bytes());
    let o = clir(dir.path(), &["seal", FILE]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("kept: no node's hash changed"), "{}", text(&o));
    assert_eq!(fs::read(dir.path().join(FILE)).unwrap(), SEED);
}

#[test]
fn a_pretty_printed_edit_is_made_canonical() {
    let v: serde_json::Value = serde_json::from_slice(&edited()).unwrap();
    let dir = dir_with(serde_json::to_string_pretty(&v).unwrap().as_bytes());
    let o = clir(dir.path(), &["seal", FILE]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("canonical     rewritten"), "{}", text(&o));
    let o = clir(dir.path(), &["verify", FILE]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

/// Each file is refused with exit 2, left byte for byte as it was, and no file is left beside it.
#[test]
fn what_verify_refuses_but_the_hashes_is_refused_untouched() {
    let edited = String::from_utf8(edited()).unwrap();
    let unknown = edited.replacen(
        "\"predicate\":\"urn:fide:laws:clir:chess#draw_agreed\"",
        "\"predicate\":\"urn:fide:laws:clir:chess#no_such_relation\"",
        1,
    );
    assert_ne!(unknown, edited);
    let duplicate = edited.replacen("{\"anchors\":", "{\"anchors\":[],\"anchors\":", 1);
    assert_ne!(duplicate, edited);
    let feature =
        edited.replacen("\"features\":[\"core-executable\"", "\"features\":[\"core-executable\",\"time-travel\"", 1);
    assert_ne!(feature, edited);
    let fraction = edited.replacen("\"value\":40", "\"value\":40.5", 1);
    let cases: [(&str, &[u8], &str); 6] = [
        ("unknown relation", unknown.as_bytes(), "FAIL references"),
        ("duplicate key", duplicate.as_bytes(), "duplicate key \"anchors\""),
        ("unknown feature", feature.as_bytes(), "FAIL features"),
        ("fraction", fraction.as_bytes(), "not an integer"),
        ("not JSON", &edited.as_bytes()[..1000], "not valid JSON"),
        ("empty", b"", "empty file"),
    ];
    for (what, bytes, expect) in cases {
        let dir = dir_with(bytes);
        let o = clir(dir.path(), &["seal", FILE]);
        assert_eq!(o.status.code(), Some(2), "{what}: {}", text(&o));
        assert!(text(&o).contains(expect), "{what}: {}", text(&o));
        assert!(text(&o).contains("refused, nothing written"), "{what}: {}", text(&o));
        assert_eq!(fs::read(dir.path().join(FILE)).unwrap(), bytes, "{what}");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "{what}");
    }
}

#[test]
fn a_source_text_that_differs_refuses_the_seal() {
    let dir = dir_with(&edited());
    fs::create_dir_all(dir.path().join("sources/fide-chess")).unwrap();
    fs::write(dir.path().join("sources/fide-chess/en.txt"), "not the laws of chess").unwrap();
    let o = clir(dir.path(), &["seal", FILE]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("FAIL documentHash"), "{}", text(&o));
    assert_eq!(fs::read(dir.path().join(FILE)).unwrap(), edited());
}

#[cfg(unix)]
#[test]
fn a_symlink_is_not_sealed_through() {
    let dir = dir_with(&edited());
    std::os::unix::fs::symlink(FILE, dir.path().join("link.lawir.json")).unwrap();
    let o = clir(dir.path(), &["seal", "link.lawir.json"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("is a symlink"), "{}", text(&o));
    assert_eq!(fs::read(dir.path().join(FILE)).unwrap(), edited());
    assert!(fs::symlink_metadata(dir.path().join("link.lawir.json")).unwrap().file_type().is_symlink());
}

#[cfg(unix)]
#[test]
fn the_mode_is_kept() {
    use std::os::unix::fs::PermissionsExt;
    let dir = dir_with(&edited());
    let path = dir.path().join(FILE);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    let o = clir(dir.path(), &["seal", FILE]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640);
}
