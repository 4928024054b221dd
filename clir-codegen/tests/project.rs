//! law.toml / law.lock: loading, pins, and the messages a failing build shows.
use clir_codegen::project::{self, Lock, Pin};
use std::fs;
use std::path::{Path, PathBuf};

const SEED: &[u8] = include_bytes!("../../sources/fide.laws.chess-0.1.0.lawir.json");
const SEAL: &str = "sha256:bbae5f143f1103a18fccd4e4c3f3ce617ba2ec2353050085a513f77fd2c28868";
const SEMANTIC: &str = "sha256:4c92dc6ccf68aba3e0e7d752b4fd0d2755a3a6d9d9d08df00b2f4c497fcc950c";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// A temporary project holding the published blob, the repository's law.toml and law.lock.
fn temp_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("sources")).unwrap();
    fs::write(dir.path().join("sources/fide.laws.chess-0.1.0.lawir.json"), SEED).unwrap();
    for f in ["law.toml", "law.lock"] {
        fs::copy(repo_root().join(f), dir.path().join(f)).unwrap();
    }
    dir
}

fn messages(d: &clir_codegen::Diagnostics) -> Vec<String> {
    d.0.iter().map(|d| d.to_string()).collect()
}

#[test]
fn the_repository_project_verifies() {
    let p = project::load(&repo_root()).unwrap();
    assert_eq!(p.packages.len(), 1);
    assert_eq!(p.packages[0].path, Path::new("sources/fide.laws.chess-0.1.0.lawir.json"));
    let v = project::verify_all(&p).unwrap();
    assert_eq!(
        v[0].pin,
        Pin {
            name: "fide.laws.chess".into(),
            version: "0.1.0".into(),
            seal: SEAL.into(),
            semantic_hash: SEMANTIC.into()
        }
    );
    assert_eq!(v[0].bytes, SEED);
    assert_eq!(v[0].document.nodes.len(), 140);
}

#[test]
fn the_committed_lock_is_what_clir_lock_writes() {
    let p = project::load(&repo_root()).unwrap();
    let text = fs::read_to_string(repo_root().join("law.lock")).unwrap();
    assert_eq!(p.lock.to_toml(), text);
    assert_eq!(Lock::parse(&text).unwrap(), p.lock);
}

#[test]
fn one_hex_digit_changed_in_the_lock_fails_naming_package_field_expected_found() {
    let dir = temp_project();
    let lock = fs::read_to_string(dir.path().join("law.lock")).unwrap();
    let wrong = SEAL.replace("bbae5f14", "bbae5f15");
    fs::write(dir.path().join("law.lock"), lock.replace(SEAL, &wrong)).unwrap();
    let p = project::load(dir.path()).unwrap();
    let err = project::verify_all(&p).unwrap_err();
    assert_eq!(messages(&err), [format!("package fide.laws.chess: seal: expected {wrong}, found {SEAL}")]);
}

#[test]
fn semantic_hash_and_version_pins_are_checked() {
    let dir = temp_project();
    let lock = fs::read_to_string(dir.path().join("law.lock")).unwrap();
    let wrong = SEMANTIC.replace("4c92", "4c93");
    fs::write(dir.path().join("law.lock"), lock.replace(SEMANTIC, &wrong)).unwrap();
    let err = project::verify_all(&project::load(dir.path()).unwrap()).unwrap_err();
    assert_eq!(messages(&err), [format!("package fide.laws.chess: semanticHash: expected {wrong}, found {SEMANTIC}")]);

    // law.toml asks for another version than law.lock pins.
    let dir = temp_project();
    fs::write(dir.path().join("law.toml"), "[dependencies]\n\"fide.laws.chess\" = { version = \"0.2.0\", path = \"sources/fide.laws.chess-0.1.0.lawir.json\" }\n").unwrap();
    let err = project::verify_all(&project::load(dir.path()).unwrap()).unwrap_err();
    assert_eq!(messages(&err), ["package fide.laws.chess: version: expected 0.1.0 (law.lock), found 0.2.0 (law.toml): review the package, then run `clir lock --update fide.laws.chess`"]);
}

#[test]
fn a_blob_that_does_not_verify_reports_every_failure_with_its_package() {
    let dir = temp_project();
    let text = std::str::from_utf8(SEED).unwrap().replacen("\"value\":75}", "\"value\":76}", 1);
    fs::write(dir.path().join("sources/fide.laws.chess-0.1.0.lawir.json"), text).unwrap();
    let err = project::verify_all(&project::load(dir.path()).unwrap()).unwrap_err();
    let m = messages(&err);
    assert_eq!(m.len(), 2, "{m:?}");
    assert!(m[0].starts_with(&format!("package fide.laws.chess: seal: expected {SEAL}, found sha256:")), "{}", m[0]);
    assert!(m[1].starts_with("package fide.laws.chess: contentHash: nodes["), "{}", m[1]);
    assert!(m[1].contains("(urn:fide:laws:clir:chess#SeventyFiveAutomaticDraw): expected sha256:"), "{}", m[1]);
}

#[test]
fn an_unpinned_package_fails_and_says_to_run_clir_lock() {
    let dir = temp_project();
    fs::remove_file(dir.path().join("law.lock")).unwrap();
    let err = project::verify_all(&project::load(dir.path()).unwrap()).unwrap_err();
    assert_eq!(
        messages(&err),
        ["package fide.laws.chess has no pin in law.lock: review the package, then run `clir lock`"]
    );
}

#[test]
fn inline_pins_must_agree_with_the_lock() {
    let dir = temp_project();
    let wrong = SEAL.replace('b', "c");
    fs::write(
        dir.path().join("law.toml"),
        format!("[dependencies]\n\"fide.laws.chess\" = {{ version = \"0.1.0\", seal = \"{wrong}\", semanticHash = \"{SEMANTIC}\" }}\n"),
    )
    .unwrap();
    let p = project::load(dir.path()).unwrap();
    assert_eq!(p.packages[0].seal.as_deref(), Some(wrong.as_str()));
    let err = project::verify_all(&p).unwrap_err();
    assert_eq!(
        messages(&err),
        [format!("package fide.laws.chess: seal: expected {SEAL} (law.lock), found {wrong} (law.toml)")]
    );

    fs::write(
        dir.path().join("law.toml"),
        format!("[dependencies]\n\"fide.laws.chess\" = {{ version = \"0.1.0\", seal = \"{SEAL}\", semanticHash = \"{SEMANTIC}\" }}\n"),
    )
    .unwrap();
    project::verify_all(&project::load(dir.path()).unwrap()).unwrap();
}

#[test]
fn a_missing_blob_names_the_package_and_path() {
    let dir = temp_project();
    fs::remove_file(dir.path().join("sources/fide.laws.chess-0.1.0.lawir.json")).unwrap();
    let err = project::verify_all(&project::load(dir.path()).unwrap()).unwrap_err();
    let m = messages(&err);
    assert!(
        m[0].starts_with("package fide.laws.chess: cannot read sources/fide.laws.chess-0.1.0.lawir.json: "),
        "{}",
        m[0]
    );
}

#[test]
fn the_missing_source_text_is_a_warning_of_the_verified_package() {
    let dir = temp_project();
    let v = project::verify_all(&project::load(dir.path()).unwrap()).unwrap();
    let w: Vec<String> = v[0].warnings.iter().map(|d| d.to_string()).collect();
    assert_eq!(w.len(), 1);
    assert!(w[0].starts_with("package fide.laws.chess: documentHash: nodes["), "{}", w[0]);
    assert!(w[0].contains("sources/fide-chess/en.txt is not here"), "{}", w[0]);
}

#[test]
fn manifest_and_lock_errors_are_located() {
    let err = project::parse_manifest(
        "[dependencies]\n\"fide.laws.chess\" = { version = \"0.1.0\", sael = \"x\" }\n[package]\n",
    )
    .unwrap_err();
    assert_eq!(
        messages(&err),
        [
            "law.toml: unknown key `package` (only [dependencies] and [registry] are understood)",
            "law.toml: dependencies.\"fide.laws.chess\": unknown key `sael` (known: version, seal, semanticHash, path)",
        ]
    );
    let err =
        project::parse_manifest("[dependencies]\n\"../evil\" = \"1.0\"\n\"ok\" = { path = \"x\" }\n\"v\" = \"one\"\n")
            .unwrap_err();
    assert_eq!(err.0.len(), 3, "{err}");
    let err = project::parse_manifest("[dependencies\n").unwrap_err();
    assert!(messages(&err)[0].starts_with("law.toml:1:"), "{err}");

    let err = Lock::parse("[[package]]\nname = \"a\"\nversion = \"1.0\"\nseal = \"sha256:00\"\nsemanticHash = \"x\"\n")
        .unwrap_err();
    assert_eq!(err.0.len(), 2, "{err}");
    assert!(messages(&err)[0].contains("package[0] (a): seal: expected sha256: and 64 lowercase hex digits"), "{err}");
    let err = Lock::parse("[[package]]\nname = \"a\"\n").unwrap_err();
    assert!(messages(&err)[0].starts_with("law.lock:"), "{err}");
    let pin =
        format!("[[package]]\nname = \"a\"\nversion = \"1.0\"\nseal = \"{SEAL}\"\nsemanticHash = \"{SEMANTIC}\"\n");
    let err = Lock::parse(&format!("{pin}{pin}")).unwrap_err();
    assert_eq!(messages(&err), ["law.lock: package a is pinned more than once"]);
}

#[test]
fn a_project_without_law_toml_cannot_load() {
    let dir = tempfile::tempdir().unwrap();
    let err = project::load(dir.path()).unwrap_err();
    assert!(messages(&err)[0].starts_with("cannot read "), "{err}");
}

#[test]
fn lock_round_trips_sorted_by_name() {
    let pin = |name: &str| Pin {
        name: name.into(),
        version: "1.0.0".into(),
        seal: SEAL.into(),
        semantic_hash: SEMANTIC.into(),
    };
    let lock = Lock { packages: vec![pin("z.laws"), pin("a.laws")] };
    let back = Lock::parse(&lock.to_toml()).unwrap();
    assert_eq!(back.packages, [pin("a.laws"), pin("z.laws")]);
}

/// Issue 26: the registry page's own lines, unquoted, name the dotted package.
#[test]
fn the_registry_pages_line_and_every_contract_form_name_the_dotted_package() {
    let names_and_versions = |text: &str| -> Vec<(String, String, Option<String>)> {
        project::parse_manifest(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .into_iter()
            .map(|p| (p.name, p.version, p.seal))
            .collect()
    };
    let chess = || vec![("fide.laws.chess".to_string(), "0.1.0".to_string(), None)];
    // The page, as written.
    assert_eq!(names_and_versions("[dependencies]\nfide.laws.chess = \"0.1.0\"\n"), chess());
    assert_eq!(names_and_versions("[dependencies] \n fide.laws.chess = \"0.1.0\" # from the page\n"), chess());
    // CONTRACT's forms.
    assert_eq!(names_and_versions("[dependencies]\n\"fide.laws.chess\" = \"0.1.0\"\n"), chess());
    assert_eq!(names_and_versions("[dependencies]\nfide.laws.chess = { version = \"0.1.0\" }\n"), chess());
    assert_eq!(names_and_versions("[dependencies.fide.laws.chess]\nversion = \"0.1.0\"\n"), chess());
    assert_eq!(names_and_versions("[dependencies.\"fide.laws.chess\"]\nversion = \"0.1.0\"\n"), chess());
    let inline = format!("[dependencies]\nfide.laws.chess = {{ version = \"0.1.0\", seal = \"{SEAL}\" }}\n");
    assert_eq!(names_and_versions(&inline)[0].2.as_deref(), Some(SEAL));
    // Several under one prefix, and a name of one part.
    assert_eq!(
        names_and_versions("[dependencies]\nfide.laws.chess = \"0.1.0\"\nfide.laws.go = \"1.0.0\"\nsolo = \"2.0.0\"\n")
            .into_iter()
            .map(|(n, v, _)| format!("{n} {v}"))
            .collect::<Vec<_>>(),
        ["fide.laws.chess 0.1.0", "fide.laws.go 1.0.0", "solo 2.0.0"]
    );
    // The quoted and the dotted spelling of one name are one package, listed twice.
    let err = project::parse_manifest("[dependencies]\n\"fide.laws.chess\" = \"0.1.0\"\nfide.laws.chess = \"0.2.0\"\n")
        .unwrap_err();
    assert!(messages(&err).iter().any(|m| m.contains("listed twice")), "{err}");
    // A misspelt key of an inline table is still an error, not a step of a name.
    let err = project::parse_manifest("[dependencies]\nfide.laws.chess = { versoin = \"0.1.0\" }\n").unwrap_err();
    assert!(messages(&err).iter().any(|m| m.contains("unknown key `versoin`")), "{err}");
}

#[test]
fn the_build_reads_no_package_path_out_of_the_project() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("x.json"), SEED).unwrap();
    let dir = temp_project();
    let manifest = dir.path().join("law.toml");
    for path in ["../x.json".to_string(), outside.path().join("x.json").display().to_string()] {
        fs::write(
            &manifest,
            format!("[dependencies]\n\"fide.laws.chess\" = {{ version = \"0.1.0\", path = {path:?} }}\n"),
        )
        .unwrap();
        let p = project::load(dir.path()).unwrap();
        let err = project::verify_all(&p).expect_err(&path);
        let text = messages(&err).join("\n");
        assert!(text.contains("fide.laws.chess") && text.contains("leads out of the project"), "{path}: {text}");
    }
    // A link out of the project is refused as well.
    fs::remove_file(dir.path().join("sources/fide.laws.chess-0.1.0.lawir.json")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("x.json"),
        dir.path().join("sources/fide.laws.chess-0.1.0.lawir.json"),
    )
    .unwrap();
    fs::write(&manifest, "[dependencies]\n\"fide.laws.chess\" = \"0.1.0\"\n").unwrap();
    let p = project::load(dir.path()).unwrap();
    let err = project::verify_all(&p).expect_err("a link out");
    assert!(messages(&err).join("\n").contains("leads out of the project"), "{}", messages(&err).join("\n"));
}
