//! `clir verify` and `clir lock`: report lines and exit statuses (README.md "The `clir` command").
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

const SEED: &[u8] = include_bytes!("../sources/fide.laws.chess-0.1.0.lawir.json");
const BLOB: &str = "sources/fide.laws.chess-0.1.0.lawir.json";
const SEAL: &str = "sha256:bbae5f143f1103a18fccd4e4c3f3ce617ba2ec2353050085a513f77fd2c28868";
const SEMANTIC: &str = "sha256:4c92dc6ccf68aba3e0e7d752b4fd0d2755a3a6d9d9d08df00b2f4c497fcc950c";

fn clir(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clir")).args(args).current_dir(dir).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A temporary folder holding the published package at its usual path.
fn with_blob(bytes: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("sources")).unwrap();
    fs::write(dir.path().join(BLOB), bytes).unwrap();
    dir
}

/// A project: the blob and a law.toml listing it.
fn project() -> tempfile::TempDir {
    let dir = with_blob(SEED);
    fs::write(dir.path().join("law.toml"), "[dependencies]\n\"fide.laws.chess\" = \"0.1.0\"\n").unwrap();
    dir
}

#[test]
fn verify_published_package_prints_every_check_and_exits_0() {
    let dir = with_blob(SEED);
    let o = clir(dir.path(), &["verify", BLOB, "--seal", SEAL, "--semantic-hash", SEMANTIC]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 15, "{out}");
    assert_eq!(lines[1], format!("ok   seal           {SEAL}"));
    assert_eq!(lines[2], format!("ok   semanticHash   {SEMANTIC}"));
    for check in [
        "parse",
        "canonical",
        "schemaVersion",
        "features",
        "imports",
        "strata",
        "contentHash",
        "textHash",
        "ids",
        "references",
    ] {
        assert!(lines.iter().any(|l| l.starts_with(&format!("ok   {check} "))), "{check} in\n{out}");
    }
    assert!(lines[14].starts_with("warn documentHash   nodes[31].documentHash (urn:fide:laws:clir:chess#FIDE_LAWS_2023_EN): sources/fide-chess/en.txt is not here"), "{}", lines[14]);
    assert!(stderr(&o).contains("verified (15 checks, 1 warning)"), "{}", stderr(&o));
}

#[test]
fn verify_wrong_pin_exits_1_naming_expected_and_found() {
    let dir = with_blob(SEED);
    let wrong = SEAL.replace("bbae", "bbaf");
    let o = clir(dir.path(), &["verify", BLOB, "--seal", &wrong]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains(&format!("FAIL seal           expected {wrong}, found {SEAL}\n")), "{}", stdout(&o));
}

#[test]
fn verify_reports_the_node_whose_hash_does_not_recompute() {
    let text = std::str::from_utf8(SEED).unwrap().replacen("\"value\":75}", "\"value\":76}", 1);
    let dir = with_blob(text.as_bytes());
    let o = clir(dir.path(), &["verify", BLOB, "--seal", SEAL]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let fails: Vec<&str> = out.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert_eq!(fails.len(), 2, "{out}");
    assert!(fails[0].starts_with("FAIL seal "), "{out}");
    assert!(
        fails[1].starts_with("FAIL contentHash    nodes[")
            && fails[1].contains("(urn:fide:laws:clir:chess#SeventyFiveAutomaticDraw): expected sha256:"),
        "{out}"
    );
    assert!(stderr(&o).contains("2 of 15 checks failed"), "{}", stderr(&o));
}

#[test]
fn verify_not_json_reports_parse_and_exits_1() {
    let dir = with_blob(&SEED[..1000]);
    let o = clir(dir.path(), &["verify", BLOB]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("FAIL parse  not valid JSON: EOF while parsing"), "{}", stdout(&o));
}

#[test]
fn verify_strict_sources_and_root() {
    let dir = with_blob(SEED);
    let o = clir(dir.path(), &["verify", BLOB, "--strict-sources"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("FAIL documentHash "), "{}", stdout(&o));

    // A source text that does not match, found through --root.
    let texts = tempfile::tempdir().unwrap();
    fs::create_dir_all(texts.path().join("sources/fide-chess")).unwrap();
    fs::write(texts.path().join("sources/fide-chess/en.txt"), "other text").unwrap();
    let root = texts.path().to_str().unwrap();
    let o = clir(dir.path(), &["verify", BLOB, "--root", root]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("FAIL documentHash   nodes[31].documentHash (urn:fide:laws:clir:chess#FIDE_LAWS_2023_EN): sources/fide-chess/en.txt: expected sha256:c251137a"), "{}", stdout(&o));
}

#[test]
fn verify_unreadable_file_or_bad_flags_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let o = clir(dir.path(), &["verify", "missing.lawir.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("clir verify: cannot read missing.lawir.json: "), "{}", stderr(&o));
    assert_eq!(clir(dir.path(), &["verify", "."]).status.code(), Some(2));
    assert_eq!(clir(dir.path(), &["verify"]).status.code(), Some(2));
    assert_eq!(clir(dir.path(), &["verify", "x", "--seel", "y"]).status.code(), Some(2));
}

#[test]
fn lock_pins_a_new_package_then_is_up_to_date() {
    let dir = project();
    let o = clir(dir.path(), &["lock"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains(&format!("added   fide.laws.chess 0.1.0: seal {SEAL}, semanticHash {SEMANTIC}")),
        "{}",
        stdout(&o)
    );
    let lock = fs::read_to_string(dir.path().join("law.lock")).unwrap();
    assert!(lock.ends_with(&format!(
        "[[package]]\nname = \"fide.laws.chess\"\nversion = \"0.1.0\"\nseal = \"{SEAL}\"\nsemanticHash = \"{SEMANTIC}\"\n"
    )), "{lock}");
    // The lock the repository commits is exactly what `clir lock` writes.
    assert_eq!(lock, fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("law.lock")).unwrap());

    let o = clir(dir.path(), &["lock"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains(&format!("ok      fide.laws.chess 0.1.0: seal {SEAL}")), "{}", stdout(&o));
    assert!(stderr(&o).contains("law.lock is up to date"), "{}", stderr(&o));
}

#[test]
fn lock_shows_a_changed_pin_and_rewrites_it_only_with_update() {
    let dir = project();
    assert_eq!(clir(dir.path(), &["lock"]).status.code(), Some(0));
    let lock_path = dir.path().join("law.lock");
    let old_seal = SEAL.replace("bbae5f14", "bbae5f15");
    let tampered = fs::read_to_string(&lock_path).unwrap().replace(SEAL, &old_seal);
    fs::write(&lock_path, &tampered).unwrap();

    let o = clir(dir.path(), &["lock"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains(&format!("changed fide.laws.chess 0.1.0: seal: old {old_seal}, new {SEAL}")), "{out}");
    assert!(out.contains("run `clir lock --update fide.laws.chess`"), "{out}");
    assert_eq!(fs::read_to_string(&lock_path).unwrap(), tampered, "rewritten without --update");

    let o = clir(dir.path(), &["lock", "--update", "fide.laws.chess"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains(&format!("updated fide.laws.chess 0.1.0: seal: old {old_seal}, new {SEAL}")));
    assert!(fs::read_to_string(&lock_path).unwrap().contains(SEAL));

    assert_eq!(clir(dir.path(), &["lock", "--update", "no.such.pkg"]).status.code(), Some(2));
}

#[test]
fn lock_refuses_a_package_that_does_not_verify() {
    let dir = project();
    let mut bytes = SEED.to_vec();
    bytes.push(b'\n');
    fs::write(dir.path().join(BLOB), bytes).unwrap();
    let o = clir(dir.path(), &["lock"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("FAIL    fide.laws.chess 0.1.0: canonical: not canonical: first difference at byte 126369"),
        "{}",
        stdout(&o)
    );
    assert!(!dir.path().join("law.lock").exists());
}

#[test]
fn lock_cannot_run_without_law_toml_or_blob() {
    let dir = tempfile::tempdir().unwrap();
    let o = clir(dir.path(), &["lock"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("law.toml"), "{}", stderr(&o));

    let dir = project();
    fs::remove_file(dir.path().join(BLOB)).unwrap();
    let o = clir(dir.path(), &["lock"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).contains("cannot read sources/fide.laws.chess-0.1.0.lawir.json"), "{}", stdout(&o));
    // --root points at a project from elsewhere.
    let p = project();
    let o = clir(dir.path(), &["lock", "--root", p.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(p.path().join("law.lock").exists());
}

#[test]
fn a_fifo_or_a_device_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pkg.lawir.json");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    for path in [fifo.to_str().unwrap(), "/dev/zero"] {
        let o = clir(dir.path(), &["verify", path]);
        assert_eq!(o.status.code(), Some(2), "{path}: {}", stderr(&o));
        assert!(stderr(&o).contains("not a regular file"), "{path}: {}", stderr(&o));
    }
}

/// Issue 26: what `verify` did not compare it says so, in words and in JSON.
#[test]
fn values_without_a_pin_are_reported_as_not_compared() {
    let dir = with_blob(SEED);
    let o = clir(dir.path(), &["verify", BLOB]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains(&format!("skip seal           {SEAL} (no pin given: not compared)")), "{}", stdout(&o));
    assert!(stderr(&o).contains("not compared, no pin given: seal, semanticHash, name, version"), "{}", stderr(&o));
    // The `seal` check of `verify --message-format json` with `pins`.
    let seal = |pins: &[&str]| -> serde_json::Value {
        let args = [&["verify", BLOB, "--message-format", "json"][..], pins].concat();
        let o = clir(dir.path(), &args);
        stdout(&o)
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|c| c["check"] == "seal")
            .unwrap()
    };
    assert_eq!(seal(&[])["outcome"], "skipped");
    assert_eq!(seal(&["--seal", SEAL, "--semantic-hash", SEMANTIC])["outcome"], "ok");
}
