//! Issue 45, item 6: one rule for the path of a package's blob (docs/SECURITY.md, "Package
//! paths"), held by `clir fetch` (before it writes), `clir lock`, `clir show --package`,
//! `clir wheel --package` and `clir add` (before they read or write): relative, no `..`, not
//! absolute, and no link on the way that leads out of the project. Each hostile law.toml is
//! refused with a message naming the package and the path, and nothing is read or written
//! outside the project.

use clir_testkit::Package;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const REACH: &str = "package demo.reach 1.0.0
type Node
empirical edge(from: Node, to: Node)
institutional reach(from: Node, to: Node)
rule Step strict: reach(x, y) :- edge(x, y)";

fn clir(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(args)
        .current_dir(dir)
        .env_remove("CLIR_REGISTRY")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A project folder beside a folder outside it, a registry folder holding the package's blob,
/// and the package.
struct Setup {
    _dir: tempfile::TempDir,
    project: PathBuf,
    outside: PathBuf,
    registry: PathBuf,
    pkg: Package,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let (project, outside, registry) =
            (dir.path().join("project"), dir.path().join("outside"), dir.path().join("registry"));
        for d in [&project, &outside, &registry.join("blobs")] {
            std::fs::create_dir_all(d).unwrap();
        }
        let pkg = Package::parse(REACH).unwrap();
        std::fs::write(registry.join(format!("blobs/{}.lawir.json", pkg.seal())), pkg.bytes()).unwrap();
        Setup { _dir: dir, project, outside, registry, pkg }
    }

    /// law.toml listing demo.reach at `path` (the default when `None`), with the registry.
    fn manifest(&self, path: Option<&str>) {
        let entry = match path {
            Some(p) => format!("{{ version = \"1.0.0\", path = {} }}", serde_json::Value::from(p)),
            None => "\"1.0.0\"".to_string(),
        };
        let toml = format!(
            "[dependencies]\n\"demo.reach\" = {entry}\n\n[registry]\nurl = \"file://{}\"\n",
            self.registry.display()
        );
        std::fs::write(self.project.join("law.toml"), toml).unwrap();
    }

    /// law.lock pinning the package.
    fn lock(&self) {
        let lock = format!(
            "[[package]]\nname = \"demo.reach\"\nversion = \"1.0.0\"\nseal = \"{}\"\nsemanticHash = \"{}\"\n",
            self.pkg.seal(),
            self.pkg.semantic_hash()
        );
        std::fs::write(self.project.join("law.lock"), lock).unwrap();
    }

    /// The files under the folder outside the project.
    fn outside_files(&self) -> Vec<String> {
        let mut out: Vec<String> = std::fs::read_dir(&self.outside)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into())
            .collect();
        out.sort();
        out
    }

    fn root(&self) -> &str {
        self.project.to_str().unwrap()
    }
}

/// The hostile paths: up and out, absolute, and through a link to a folder outside.
fn hostile(s: &Setup) -> Vec<(String, &'static str)> {
    std::os::unix::fs::symlink(&s.outside, s.project.join("link")).unwrap();
    vec![
        ("../outside/x.json".to_string(), "`..`"),
        (s.outside.join("x.json").display().to_string(), "absolute"),
        ("link/x.json".to_string(), "is a link to"),
    ]
}

/// The refusal names the package and the path, and says why.
fn refused(out: &Output, path: &str, why: &str) {
    let err = text(&out.stderr);
    assert!(
        err.contains("package demo.reach") && err.contains(path) && err.contains("leads out of the project"),
        "{path}: {err}"
    );
    assert!(err.contains(why), "{path}: {err}");
}

#[test]
fn fetch_never_writes_out_of_the_project() {
    let s = Setup::new();
    s.lock();
    for (path, why) in hostile(&s) {
        s.manifest(Some(&path));
        let out = clir(&s.project, &["fetch", "--root", s.root()]);
        assert_eq!(out.status.code(), Some(1), "{path}: {}{}", text(&out.stdout), text(&out.stderr));
        refused(&out, &path, why);
        assert!(s.outside_files().is_empty(), "{path}: fetch wrote {:?}", s.outside_files());
    }
    // A sources folder that links out, and a blob that is a link to a file yet to be made.
    s.manifest(None);
    std::os::unix::fs::symlink(&s.outside, s.project.join("sources")).unwrap();
    let out = clir(&s.project, &["fetch", "--root", s.root()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    refused(&out, "sources/demo.reach-1.0.0.lawir.json", "is a link to");
    std::fs::remove_file(s.project.join("sources")).unwrap();
    std::fs::create_dir(s.project.join("sources")).unwrap();
    let blob = s.project.join("sources/demo.reach-1.0.0.lawir.json");
    std::os::unix::fs::symlink(s.outside.join("planted.json"), &blob).unwrap();
    let out = clir(&s.project, &["fetch", "--root", s.root()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    refused(&out, "sources/demo.reach-1.0.0.lawir.json", "cannot be followed");
    assert!(s.outside_files().is_empty(), "fetch wrote {:?}", s.outside_files());

    // Inside the project (a link to a folder of the project too), the blob is fetched.
    std::fs::remove_file(&blob).unwrap();
    let out = clir(&s.project, &["fetch", "--root", s.root()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&blob).unwrap(), s.pkg.bytes());
    std::fs::create_dir(s.project.join("store")).unwrap();
    std::os::unix::fs::symlink(s.project.join("store"), s.project.join("inner")).unwrap();
    s.manifest(Some("inner/x.json"));
    let out = clir(&s.project, &["fetch", "--root", s.root()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(s.project.join("store/x.json")).unwrap(), s.pkg.bytes());
}

#[test]
fn lock_never_reads_out_of_the_project() {
    let s = Setup::new();
    std::fs::write(s.outside.join("x.json"), s.pkg.bytes()).unwrap();
    for (path, why) in hostile(&s) {
        s.manifest(Some(&path));
        let out = clir(&s.project, &["lock", "--root", s.root()]);
        assert_eq!(out.status.code(), Some(2), "{path}: {}{}", text(&out.stdout), text(&out.stderr));
        let shown = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(shown.contains("demo.reach") && shown.contains(&path), "{path}: {shown}");
        assert!(shown.contains("leads out of the project") && shown.contains(why), "{path}: {shown}");
        assert!(!s.project.join("law.lock").exists(), "{path}: law.lock was written");
    }
    // The same blob inside the project is pinned.
    std::fs::create_dir(s.project.join("blobs")).unwrap();
    std::fs::write(s.project.join("blobs/x.json"), s.pkg.bytes()).unwrap();
    s.manifest(Some("blobs/x.json"));
    let out = clir(&s.project, &["lock", "--root", s.root()]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(std::fs::read_to_string(s.project.join("law.lock")).unwrap().contains(&s.pkg.seal()));
}

#[test]
fn show_and_wheel_never_read_out_of_the_project() {
    let s = Setup::new();
    s.lock();
    std::fs::write(s.outside.join("x.json"), s.pkg.bytes()).unwrap();
    for (path, why) in hostile(&s) {
        s.manifest(Some(&path));
        let out = clir(&s.project, &["show", "--package", "demo.reach"]);
        assert_eq!(out.status.code(), Some(2), "{path}: {}{}", text(&out.stdout), text(&out.stderr));
        refused(&out, &path, why);
        assert!(!text(&out.stdout).contains("reach(x, y)"), "{path}: shown: {}", text(&out.stdout));
        let out = clir(&s.project, &["wheel", "--package", "demo.reach", "--root", s.root()]);
        assert_eq!(out.status.code(), Some(2), "{path}: {}", text(&out.stderr));
        refused(&out, &path, why);
    }
    std::fs::create_dir(s.project.join("blobs")).unwrap();
    std::fs::write(s.project.join("blobs/x.json"), s.pkg.bytes()).unwrap();
    s.manifest(Some("blobs/x.json"));
    let out = clir(&s.project, &["show", "--package", "demo.reach"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("reach"), "{}", text(&out.stdout));
}

#[test]
fn add_holds_the_same_rule() {
    let s = Setup::new();
    let file = s.project.parent().unwrap().join(s.pkg.file_name());
    std::fs::write(&file, s.pkg.bytes()).unwrap();
    for (path, why) in hostile(&s) {
        s.manifest(Some(&path));
        let out = clir(&s.project, &["add", file.to_str().unwrap(), "--root", s.root(), "--update"]);
        assert_eq!(out.status.code(), Some(2), "{path}: {}{}", text(&out.stdout), text(&out.stderr));
        refused(&out, &path, why);
        assert!(s.outside_files().is_empty(), "{path}: add wrote {:?}", s.outside_files());
        assert!(!s.project.join("law.lock").exists(), "{path}: law.lock was written");
    }
}
