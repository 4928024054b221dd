//! `clir wheel` end to end: the wheel of fide.laws.chess built (maturin and ziglang from PyPI,
//! installed by name into a tools venv under `target/tmp`) and its tag checked (manylinux2014,
//! glibc 2.17: the file name and the `Tag:` lines of its `WHEEL`); the README's install line run
//! as written in a fresh venv and the README's Python snippet run there, with nothing else
//! installed (and `rule` without pyarrow); then the wheel `pip install`ed into a fresh venv with
//! pytest, pyarrow, pyspark and pandas, and `python/tests/` and `examples/spark/test_spark.py`
//! run there (every ruling through Python, Arrow and Spark in local mode against `clir rule`'s).
//! Ignored by a plain `cargo test`: it needs Python, Java and PyPI; `.ci/python` installs what is
//! missing and runs it (`-- --include-ignored`).

use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn tmp() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
}

/// Runs `cmd`, failing the test with its output unless it succeeds; returns its stdout.
fn ok(cmd: &mut Command) -> String {
    ok_with_stderr(cmd).0
}

/// Runs `cmd`, failing the test with its output unless it succeeds; its stdout and stderr.
fn ok_with_stderr(cmd: &mut Command) -> (String, String) {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{cmd:?} failed ({}):\n{stdout}\n{stderr}", out.status);
    (stdout.into_owned(), stderr.into_owned())
}

/// A venv at `dir` (made when missing, or anew with `fresh`) with `packages` installed by name.
fn venv(dir: &Path, fresh: bool, packages: &[&str]) -> PathBuf {
    if fresh {
        let _ = std::fs::remove_dir_all(dir);
    }
    let python = dir.join("bin").join("python");
    if !python.exists() {
        let system = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
        ok(Command::new(system).args(["-m", "venv"]).arg(dir));
    }
    if !packages.is_empty() {
        ok(Command::new(&python).args(["-m", "pip", "install", "--quiet"]).args(packages));
    }
    python
}

/// The PATH with the `bin` of each of `venvs` first, in order.
fn path_with(venvs: &[&Path]) -> std::ffi::OsString {
    let mut paths: Vec<PathBuf> = venvs.iter().map(|v| v.join("bin")).collect();
    paths.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(paths).unwrap()
}

/// Whether a wheel's platform tag (`manylinux_2_17_x86_64`, `manylinux2014_x86_64`) is the
/// manylinux2014 baseline, glibc 2.17.
fn is_manylinux2014(platform: &str) -> bool {
    platform.starts_with("manylinux_2_17_") || platform.starts_with("manylinux2014_")
}

/// Builds the wheel with `clir wheel` (maturin and zig from the tools venv); its path, after
/// checking its tag: abi3 and manylinux2014, in its file name and its `WHEEL`'s `Tag:` lines.
fn build_wheel() -> PathBuf {
    let tools = tmp().join("py-tools");
    let tools_python = venv(&tools, false, &["maturin>=1,<2", "ziglang"]);
    let out = tmp().join("wheels");
    let _ = std::fs::remove_dir_all(&out);
    let (printed, said) = ok_with_stderr(
        Command::new(env!("CARGO_BIN_EXE_clir"))
            .args(["wheel", "sources/fide.laws.chess-0.1.0.lawir.json", "--out"])
            .arg(&out)
            .current_dir(ROOT)
            .env("CLIR_CACHE_DIR", tmp().join("wheel-cache"))
            .env("PATH", path_with(&[&tools])),
    );
    eprint!("{said}");
    let wheel = PathBuf::from(printed.trim());
    assert!(wheel.starts_with(&out) && wheel.is_file(), "{printed}");
    let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    // clir_fide_laws_chess-0.1.0-cp39-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
    let tags: Vec<&str> = name.strip_suffix(".whl").unwrap_or_else(|| panic!("{name}")).splitn(5, '-').collect();
    assert_eq!(tags[..4], ["clir_fide_laws_chess", "0.1.0", "cp39", "abi3"], "{name}");
    assert!(tags[4].split('.').all(is_manylinux2014), "{name}");
    assert!(said.contains(&format!("built {name}: tag cp39-abi3-{}, for Linux with glibc 2.17", tags[4])), "{said}");
    // The `WHEEL` file's tags, which pip reads once the wheel is renamed or served under another name.
    let wheel_file = ok(Command::new(&tools_python).arg("-c").arg(WHEEL_FILE).arg(&wheel));
    let tag_lines: Vec<&str> = wheel_file.lines().filter_map(|l| l.strip_prefix("Tag: ")).collect();
    assert!(!tag_lines.is_empty(), "{wheel_file}");
    for tag in &tag_lines {
        let platform = tag.strip_prefix("cp39-abi3-").unwrap_or_else(|| panic!("{wheel_file}"));
        assert!(is_manylinux2014(platform), "{wheel_file}");
    }
    println!("wheel {name}; WHEEL tags {tag_lines:?}");
    wheel
}

/// Prints the `*.dist-info/WHEEL` file of the wheel `sys.argv[1]`.
const WHEEL_FILE: &str = "import sys, zipfile\n\
    z = zipfile.ZipFile(sys.argv[1])\n\
    (name,) = [n for n in z.namelist() if n.endswith('.dist-info/WHEEL') and n.count('/') == 1]\n\
    print(z.read(name).decode())\n";

/// The README's section "Using a package from Python".
fn readme_python_section() -> String {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let start = readme.find("\n## Using a package from Python\n").expect("README.md has a Python section");
    let rest = &readme[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |e| e + 3);
    rest[..end].to_string()
}

/// The bodies of the ```LANG blocks of `text`.
fn blocks(text: &str, lang: &str) -> Vec<String> {
    let fence = format!("```{lang}\n");
    text.split(&fence).skip(1).map(|b| b.split("```").next().unwrap().to_string()).collect()
}

/// The README's install line (the one that installs the wheel, as a user types it) run as
/// written in a fresh venv, with `clir` and the tools venv on the PATH; then the README's Python
/// snippet, as written, in that venv, where nothing but what the line installs is installed.
/// Without pyarrow, `rule` and `Case` still work and the Arrow functions say how to get it.
fn readme_install_line_and_snippet() {
    let section = readme_python_section();
    let shell = blocks(&section, "sh").concat();
    let install: Vec<&str> = shell.lines().filter(|l| l.contains("pip install") && l.contains("clir wheel")).collect();
    let [install] = install[..] else { panic!("one install line in the README's Python section:\n{shell}") };
    let install = install.split(" #").next().unwrap().trim();
    assert!(install.contains("[arrow]"), "the install line names the arrow extra: {install}");
    let snippets = blocks(&section, "python");
    let [snippet] = &snippets[..] else { panic!("one ```python block in the README's Python section") };
    assert!(snippet.contains("import pyarrow"), "{snippet}");

    let venv_dir = tmp().join("readme-venv");
    let python = venv(&venv_dir, true, &[]);
    // A folder outside the checkout, with the `sources/` the line names.
    let here = tmp().join("readme-here");
    let _ = std::fs::remove_dir_all(&here);
    std::fs::create_dir_all(&here).unwrap();
    std::os::unix::fs::symlink(Path::new(ROOT).join("sources"), here.join("sources")).unwrap();
    let clir_dir = Path::new(env!("CARGO_BIN_EXE_clir")).parent().unwrap();
    let mut path = vec![venv_dir.join("bin"), tmp().join("py-tools").join("bin"), clir_dir.to_path_buf()];
    path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    let (_, said) = ok_with_stderr(
        Command::new("sh")
            .args(["-c", install])
            .current_dir(&here)
            .env("PATH", std::env::join_paths(path).unwrap())
            .env("CLIR_CACHE_DIR", tmp().join("wheel-cache")),
    );
    assert!(said.contains("for Linux with glibc 2.17"), "{said}");
    let freeze = ok(Command::new(&python).args(["-m", "pip", "list", "--format=freeze"]));
    let installed: Vec<String> =
        freeze.lines().map(|l| l.split("==").next().unwrap().to_lowercase().replace('-', "_")).collect();
    println!("the README's install line installed: {installed:?}");
    assert!(installed.contains(&"clir_fide_laws_chess".to_string()) && installed.contains(&"pyarrow".to_string()));
    for other in &installed {
        // pip itself, and what pyarrow needs (nothing in recent versions; numpy in older ones).
        assert!(
            ["clir_fide_laws_chess", "pyarrow", "pip", "setuptools", "numpy"].contains(&other.as_str()),
            "{freeze}"
        );
    }
    std::fs::write(here.join("readme_snippet.py"), snippet).unwrap();
    ok(Command::new(&python).arg("readme_snippet.py").current_dir(&here));
    // `rule` and the case builder need no pyarrow; the Arrow functions say how to install it.
    ok(Command::new(&python).args(["-m", "pip", "uninstall", "--quiet", "--yes", "pyarrow"]));
    let (before_pyarrow, _) = snippet.split_once("import pyarrow").unwrap();
    let without = format!(
        "{before_pyarrow}\ntry:\n    chess.input_schema()\nexcept ModuleNotFoundError as e:\n    \
         assert \"pip install 'clir_fide_laws_chess[arrow]'\" in str(e), e\nelse:\n    raise AssertionError(\"no error\")\n"
    );
    std::fs::write(here.join("without_pyarrow.py"), without).unwrap();
    ok(Command::new(&python).arg("without_pyarrow.py").current_dir(&here));
}

#[test]
#[ignore = "needs Python and PyPI: run by .ci/python"]
fn the_wheel_installs_in_a_fresh_venv_and_rules_as_clir_rule() {
    let started = std::time::Instant::now();
    let wheel = build_wheel();
    println!("built and checked the wheel in {:?}", started.elapsed());
    readme_install_line_and_snippet();
    println!("ran the README's install line and snippet by {:?}", started.elapsed());
    let fresh = tmp().join("wheel-venv");
    // pandas below 3: PySpark says it does not yet fully support pandas 3.
    // polars and duckdb: python/tests/test_frames.py rules a Polars frame and a DuckDB query.
    let packages = [wheel.to_str().unwrap(), "pytest", "pyarrow", "pyspark", "pandas<3", "polars", "duckdb"];
    let python = venv(&fresh, true, &packages);
    // Run outside the checkout: the module must come from the installed wheel.
    let report = ok(Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(Path::new(ROOT).join("python").join("tests").join("test_wheel.py"))
        .arg(Path::new(ROOT).join("python").join("tests").join("test_frames.py"))
        .arg(Path::new(ROOT).join("examples").join("spark").join("test_spark.py"))
        .current_dir(&fresh)
        .env("CLIR_BIN", env!("CARGO_BIN_EXE_clir"))
        .env("CLIR_ROOT", ROOT));
    println!("{report}");
    assert!(report.contains(" passed") && !report.contains("skipped"), "{report}");
    // The same package named in a law.toml (this repository's) builds the same wheel.
    let printed = ok(Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["wheel", "--package", "fide.laws.chess"])
        .current_dir(ROOT)
        .env("CLIR_CACHE_DIR", tmp().join("wheel-cache"))
        .env("PATH", path_with(&[&tmp().join("py-tools")])));
    let cached = PathBuf::from(printed.trim());
    assert_eq!(cached.file_name(), wheel.file_name());
    assert!(cached.starts_with(tmp().join("wheel-cache")), "{printed}");
    println!("the whole test took {:?}", started.elapsed());
}

#[test]
fn a_missing_maturin_is_named_with_how_to_install_it() {
    let empty = tmp().join("no-maturin-bin");
    std::fs::create_dir_all(&empty).unwrap();
    // A PATH of an empty folder and a PYTHON that is not there: no maturin anywhere.
    let out = Command::new(env!("CARGO_BIN_EXE_clir"))
        .args(["wheel", "sources/fide.laws.chess-0.1.0.lawir.json"])
        .current_dir(ROOT)
        .env("PATH", &empty)
        .env("PYTHON", empty.join("python3"))
        .env("CLIR_CACHE_DIR", tmp().join("wheel-cache-unused"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("python3 -m pip install maturin"), "{stderr}");
    assert!(!tmp().join("wheel-cache-unused").exists(), "nothing is written before maturin is found");
}

#[test]
fn a_package_that_does_not_verify_builds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.lawir.json");
    let mut doc: serde_json::Value = serde_json::from_slice(
        &std::fs::read(Path::new(ROOT).join("sources/fide.laws.chess-0.1.0.lawir.json")).unwrap(),
    )
    .unwrap();
    // A node changed without its contentHash: the package no longer verifies.
    doc["nodes"][0]["label"] = "tampered".into();
    std::fs::write(&bad, serde_json::to_vec(&doc).unwrap()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_clir"))
        .arg("wheel")
        .arg(&bad)
        .current_dir(ROOT)
        .env("CLIR_CACHE_DIR", dir.path().join("cache"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not verify"), "{out:?}");
    assert!(!dir.path().join("cache").exists());
}
