//! `clir add`: verify a package, copy it into sources/, list it in law.toml and pin it in
//! law.lock (README.md "The `clir` command"); refused (nothing written) when it does not verify or changes a pin
//! without `--update`.
use clir_testkit::Package;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

const REACH: &str = "package demo.reach VERSION
type Node
empirical edge(from: Node, to: Node)
institutional reach(from: Node, to: Node)
rule Step strict: reach(x, y) :- edge(x, y)";

const PATHS: &str = "package demo.paths 1.0.0
type Node
empirical link(from: Node, to: Node)
institutional path(from: Node, to: Node)
rule Base strict: path(x, y) :- link(x, y)
rule Step strict: path(x, z) :- link(x, y), path(y, z)";

/// `demo.reach` at `version`.
fn reach(version: &str) -> Package {
    Package::parse(&REACH.replace("VERSION", version)).unwrap()
}

fn clir(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clir")).args(args).current_dir(dir).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Writes the package's file outside the project (in `downloads`) and returns its path.
fn download(downloads: &Path, pkg: &Package) -> String {
    let file = downloads.join(pkg.file_name());
    fs::write(&file, pkg.bytes()).unwrap();
    file.display().to_string()
}

/// Every file under `dir` with its bytes, sorted by path.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                files.push((path.strip_prefix(dir).unwrap().display().to_string(), fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

fn pin_block(pkg: &Package) -> String {
    format!(
        "[[package]]\nname = \"{}\"\nversion = \"{}\"\nseal = \"{}\"\nsemanticHash = \"{}\"\n",
        pkg.name,
        pkg.version,
        pkg.seal(),
        pkg.semantic_hash()
    )
}

fn assert_lock_up_to_date(dir: &Path) {
    let o = clir(dir, &["lock"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("law.lock is up to date"), "{}", stderr(&o));
}

#[test]
fn add_into_an_empty_folder_writes_law_toml_law_lock_and_the_blob() {
    let (dir, downloads) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let pkg = reach("0.1.0");
    let file = download(downloads.path(), &pkg);
    let o = clir(dir.path(), &["add", &file]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert_eq!(
        out,
        format!(
            "added   demo.reach 0.1.0: seal {}, semanticHash {}\n\
             note    demo.reach 0.1.0: the pin is the file's own seal, compared with nothing: check it against \
             the publisher's page (or add with --seal H)\n\
             wrote   sources/demo.reach-0.1.0.lawir.json ({} bytes)\n\
             wrote   law.lock\n\
             wrote   law.toml: \"demo.reach\" = \"0.1.0\"\n",
            pkg.seal(),
            pkg.semantic_hash(),
            pkg.bytes().len()
        )
    );

    // The blob is the file, byte for byte.
    assert_eq!(fs::read(dir.path().join("sources/demo.reach-0.1.0.lawir.json")).unwrap(), pkg.bytes());
    let manifest = fs::read_to_string(dir.path().join("law.toml")).unwrap();
    assert!(manifest.starts_with("# "), "a header comment: {manifest}");
    assert!(manifest.ends_with("\n[dependencies]\n\"demo.reach\" = \"0.1.0\"\n"), "{manifest}");
    let lock = fs::read_to_string(dir.path().join("law.lock")).unwrap();
    assert!(lock.ends_with(&pin_block(&pkg)), "{lock}");
    assert_lock_up_to_date(dir.path());
}

#[test]
fn adding_twice_changes_nothing() {
    let (dir, downloads) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let pkg = reach("0.1.0");
    let file = download(downloads.path(), &pkg);
    assert_eq!(clir(dir.path(), &["add", &file]).status.code(), Some(0));
    let before = snapshot(dir.path());
    for args in [vec!["add", file.as_str()], vec!["add", "sources/demo.reach-0.1.0.lawir.json", "--update"]] {
        let o = clir(dir.path(), &args);
        assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
        assert_eq!(
            stdout(&o),
            format!(
                "ok      demo.reach 0.1.0: already added (seal {}, semanticHash {})\n",
                pkg.seal(),
                pkg.semantic_hash()
            )
        );
        assert!(stderr(&o).contains("demo.reach 0.1.0 is already added; nothing written"), "{}", stderr(&o));
        assert_eq!(snapshot(dir.path()), before);
    }
}

#[test]
fn a_second_package_goes_beside_the_first_and_comments_survive() {
    let (dir, downloads) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (first, second) = (reach("0.1.0"), Package::parse(PATHS).unwrap());
    let written = "# Our laws.\n\n[dependencies]\n# reach: the 2024 rules\n\"demo.reach\" = \"0.1.0\"  # keep\n\n# end of the list\n";
    fs::write(dir.path().join("law.toml"), written).unwrap();
    let o = clir(dir.path(), &["add", &download(downloads.path(), &first)]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(!stdout(&o).contains("law.toml"), "law.toml already lists it: {}", stdout(&o));
    assert_eq!(fs::read_to_string(dir.path().join("law.toml")).unwrap(), written);

    let o = clir(dir.path(), &["add", &download(downloads.path(), &second)]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("wrote   law.toml: \"demo.paths\" = \"1.0.0\"\n"), "{}", stdout(&o));
    assert_eq!(
        fs::read_to_string(dir.path().join("law.toml")).unwrap(),
        "# Our laws.\n\n[dependencies]\n# reach: the 2024 rules\n\"demo.reach\" = \"0.1.0\"  # keep\n\
         \"demo.paths\" = \"1.0.0\"\n\n# end of the list\n"
    );
    let lock = fs::read_to_string(dir.path().join("law.lock")).unwrap();
    assert!(lock.ends_with(&format!("{}\n{}", pin_block(&second), pin_block(&first))), "{lock}");
    assert_eq!(fs::read(dir.path().join("sources/demo.paths-1.0.0.lawir.json")).unwrap(), second.bytes());
    assert_eq!(fs::read(dir.path().join("sources/demo.reach-0.1.0.lawir.json")).unwrap(), first.bytes());
    assert_lock_up_to_date(dir.path());
}

#[test]
fn another_version_is_refused_without_update_and_replaces_the_pin_with_it() {
    let (dir, downloads) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (old, new) = (reach("0.1.0"), reach("0.2.0"));
    fs::write(dir.path().join("law.toml"), "[dependencies]\n\"demo.reach\" = \"0.1.0\" # reviewed\n").unwrap();
    assert_eq!(clir(dir.path(), &["add", &download(downloads.path(), &old)]).status.code(), Some(0));
    let before = snapshot(dir.path());

    let file = download(downloads.path(), &new);
    let o = clir(dir.path(), &["add", &file]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("changed demo.reach 0.2.0: law.toml version: old 0.1.0, new 0.2.0\n"), "{out}");
    assert!(out.contains("changed demo.reach 0.2.0: law.lock version: old 0.1.0, new 0.2.0\n"), "{out}");
    assert!(out.contains(&format!(
        "changed demo.reach 0.2.0: law.lock seal: old {}, new {}\n",
        old.seal(),
        new.seal()
    )));
    assert!(out.contains(&format!("run `clir add --update {file}`")), "{out}");
    assert!(stderr(&o).contains("nothing written"), "{}", stderr(&o));
    assert_eq!(snapshot(dir.path()), before, "refused, but something was written");

    let o = clir(dir.path(), &["add", &file, "--update"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("updated demo.reach 0.2.0: law.toml version: old 0.1.0, new 0.2.0\n"), "{out}");
    assert!(out.contains(&format!("updated demo.reach 0.2.0: seal {}", new.seal())), "{out}");
    assert!(
        out.contains("wrote   law.toml: \"demo.reach\" = \"0.2.0\" (was \"demo.reach\" = \"0.1.0\" # reviewed)\n"),
        "{out}"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("law.toml")).unwrap(),
        "[dependencies]\n\"demo.reach\" = \"0.2.0\" # reviewed\n"
    );
    let lock = fs::read_to_string(dir.path().join("law.lock")).unwrap();
    assert!(lock.ends_with(&pin_block(&new)) && !lock.contains("0.1.0"), "{lock}");
    assert_eq!(fs::read(dir.path().join("sources/demo.reach-0.2.0.lawir.json")).unwrap(), new.bytes());
    assert_lock_up_to_date(dir.path());
}

#[test]
fn a_dotted_entry_from_a_registry_page_is_updated_in_place() {
    let (dir, downloads) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (old, new) = (reach("0.1.0"), reach("0.2.0"));
    let written = "# Our laws.\r\n[dependencies]\r\ndemo.reach = \"0.1.0\"   # as the page gives it\r\n\r\n# end\r\n";
    fs::write(dir.path().join("law.toml"), written).unwrap();
    let o = clir(dir.path(), &["add", &download(downloads.path(), &old)]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(fs::read_to_string(dir.path().join("law.toml")).unwrap(), written, "the dotted key lists it");

    let o = clir(dir.path(), &["add", &download(downloads.path(), &new), "--update"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("(was demo.reach = \"0.1.0\"   # as the page gives it)\n"), "{out}");
    assert_eq!(
        fs::read_to_string(dir.path().join("law.toml")).unwrap(),
        "# Our laws.\r\n[dependencies]\r\ndemo.reach = \"0.2.0\"   # as the page gives it\r\n\r\n# end\r\n"
    );
    assert_lock_up_to_date(dir.path());
}

#[test]
fn the_same_version_with_other_rules_is_a_changed_seal() {
    let (dir, downloads) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let old = reach("0.1.0");
    let other =
        Package::parse(&format!("{}\nrule Back strict: reach(y, x) :- edge(x, y)", REACH.replace("VERSION", "0.1.0")))
            .unwrap();
    assert_eq!(clir(dir.path(), &["add", &download(downloads.path(), &old)]).status.code(), Some(0));
    let before = snapshot(dir.path());
    let file = downloads.path().join("other.lawir.json");
    fs::write(&file, other.bytes()).unwrap();
    let file = file.display().to_string();

    let o = clir(dir.path(), &["add", &file]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains(&format!(
        "changed demo.reach 0.1.0: law.lock seal: old {}, new {}\n",
        old.seal(),
        other.seal()
    )));
    assert!(out.contains(&format!(
        "changed demo.reach 0.1.0: sources/demo.reach-0.1.0.lawir.json seal: old {}, new {}\n",
        old.seal(),
        other.seal()
    )));
    assert_eq!(snapshot(dir.path()), before);

    let o = clir(dir.path(), &["add", &file, "--update"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(!stdout(&o).contains("law.toml"), "the line stays: {}", stdout(&o));
    assert_eq!(fs::read(dir.path().join("sources/demo.reach-0.1.0.lawir.json")).unwrap(), other.bytes());
    assert!(fs::read_to_string(dir.path().join("law.lock")).unwrap().ends_with(&pin_block(&other)));
    assert_lock_up_to_date(dir.path());
}

#[test]
fn a_package_that_does_not_verify_writes_nothing() {
    let (dir, downloads) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let pkg = reach("0.1.0");
    let text = String::from_utf8(pkg.bytes()).unwrap();
    let flipped = text.replacen("\"name\":\"edge\"", "\"name\":\"edgf\"", 1);
    assert_ne!(flipped, text);
    let file = downloads.path().join(pkg.file_name());
    fs::write(&file, flipped).unwrap();

    let o = clir(dir.path(), &["add", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.lines().any(|l| l.starts_with("FAIL contentHash  nodes[")), "{out}");
    assert!(out.lines().all(|l| l.starts_with("FAIL ") || l.starts_with("warn ")), "only what failed: {out}");
    assert!(stderr(&o).contains("does not verify"), "{}", stderr(&o));
    assert!(snapshot(dir.path()).is_empty(), "{:?}", snapshot(dir.path()));

    // Not into an existing project either.
    fs::write(dir.path().join("law.toml"), "[dependencies]\n").unwrap();
    assert_eq!(clir(dir.path(), &["add", file.to_str().unwrap()]).status.code(), Some(1));
    assert_eq!(snapshot(dir.path()), vec![("law.toml".to_string(), b"[dependencies]\n".to_vec())]);
}

#[test]
fn a_name_law_toml_cannot_list_is_refused() {
    let (dir, downloads) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let pkg = Package::parse("package .hidden 0.1.0\nnamespace urn:hidden\ntype Node").unwrap();
    let file = downloads.path().join("hidden.lawir.json");
    fs::write(&file, pkg.bytes()).unwrap();
    let o = clir(dir.path(), &["add", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("is not a package name"), "{}", stdout(&o));
    assert!(snapshot(dir.path()).is_empty());
}

#[test]
fn an_unreadable_package_or_project_exits_2() {
    let (dir, downloads) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let o = clir(dir.path(), &["add", "missing.lawir.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("clir add: cannot read missing.lawir.json: "), "{}", stderr(&o));
    assert_eq!(clir(dir.path(), &["add", "."]).status.code(), Some(2));
    assert_eq!(clir(dir.path(), &["add"]).status.code(), Some(2));

    let file = download(downloads.path(), &reach("0.1.0"));
    let o = clir(dir.path(), &["add", &file, "--root", "no/such/folder"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no/such/folder is not a folder"), "{}", stderr(&o));

    // A law.toml that does not parse is not edited.
    fs::write(dir.path().join("law.toml"), "[dependencies\n").unwrap();
    let o = clir(dir.path(), &["add", &file]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("law.toml:1:"), "{}", stderr(&o));
    assert_eq!(snapshot(dir.path()).len(), 1);
}

#[test]
fn a_failed_write_undoes_the_writes_before_it() {
    let (dir, downloads) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let file = download(downloads.path(), &reach("0.1.0"));
    // law.lock is a dangling link into a folder that does not exist: reading it finds no lock,
    // writing it fails after the blob was copied.
    std::os::unix::fs::symlink("no/such/folder/law.lock", dir.path().join("law.lock")).unwrap();
    let o = clir(dir.path(), &["add", &file, "--root", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("cannot write"), "{}", stderr(&o));
    assert!(!dir.path().join("sources").exists(), "the copied blob and sources/ are removed");
    assert!(!dir.path().join("law.toml").exists() && !dir.path().join("law.lock").exists());
    assert!(fs::symlink_metadata(dir.path().join("law.lock")).unwrap().file_type().is_symlink());
}

/// Issue 26: `add --seal` compares the publisher's seal; a changed pin names the rules whose
/// meaning changed.
#[test]
fn add_compares_the_publishers_seal_and_names_what_changed_in_meaning() {
    let (dir, downloads) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let old = reach("0.1.0");
    let file = download(downloads.path(), &old);
    let wrong = format!("sha256:{}", "0".repeat(64));
    let o = clir(dir.path(), &["add", &file, "--seal", &wrong]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains(&wrong), "{}", stdout(&o));
    assert!(snapshot(dir.path()).is_empty(), "nothing is written");
    let o = clir(dir.path(), &["add", &file, "--seal", &old.seal()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(!stdout(&o).contains("compared with nothing"), "{}", stdout(&o));

    // A new version whose rule changed its strength: refused without --update, naming the rule.
    let changed = Package::parse(&REACH.replace("VERSION", "0.2.0").replace("Step strict", "Step defeasible")).unwrap();
    let file = download(downloads.path(), &changed);
    let o = clir(dir.path(), &["add", &file]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let step = changed.id("Step");
    assert!(stdout(&o).contains(&format!("changed rule {step} (no article)")), "{}", stdout(&o));
    let o = clir(dir.path(), &["add", &file, "--update"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains(&format!("changed rule {step}")), "{}", stdout(&o));
    assert!(stdout(&o).contains("compared with nothing"), "without --seal, the pin is the file's own: {}", stdout(&o));

    // `clir lock` names them too, when law.toml moves to a version whose blob is beside the old one.
    let third = Package::parse(&REACH.replace("VERSION", "0.3.0")).unwrap();
    fs::write(dir.path().join("sources").join(third.file_name()), third.bytes()).unwrap();
    fs::write(dir.path().join("law.toml"), "[dependencies]\n\"demo.reach\" = \"0.3.0\"\n").unwrap();
    let o = clir(dir.path(), &["lock"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains(&format!("changed rule {step} (no article)")), "{}", stdout(&o));
    let o = clir(dir.path(), &["lock", "--update", "demo.reach"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}
