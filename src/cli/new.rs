//! `clir new PATH`: scaffolds a crate that compiles its own law packages: Cargo.toml, build.rs
//! (`clir_codegen::build::run()`), an empty law.toml and a `main` that rules JSON Lines cases
//! with its package, so that `clir new x && cd x && clir add P && cargo run` works. Until clir
//! is published, the dependencies point by path at the runtime this `clir` carries, written into
//! the crate's own `clir-runtime/` (see `runtime`): the crate builds from a clone of itself,
//! whatever happens to clir's cache.

use super::{note, print_lines, stdout_failed, CANNOT_RUN, OK};
use clap::Args;
use std::path::{Path, PathBuf};

/// Options of `clir new`.
#[derive(Args, Debug)]
pub struct NewArgs {
    /// The crate's folder; its last component is the crate's name.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
}

/// The crate's folder holding the runtime it builds against.
const RUNTIME: &str = "clir-runtime";

const BUILD_RS: &str = include_str!("scaffold/build.rs.txt");
const LAW_TOML: &str = include_str!("scaffold/law.toml.txt");
const MAIN_RS: &str = include_str!("scaffold/main.rs.txt");

/// Writes the crate; exit 2 when the folder exists, the name is not a crate name, or a file
/// cannot be written.
pub fn run(args: &NewArgs) -> u8 {
    match scaffold(&args.path) {
        Ok(name) => {
            let shown = args.path.display();
            let lines = [
                format!("created crate `{name}` in {shown}"),
                format!("next: cd {shown} && clir add PACKAGE.lawir.json && cargo run < cases.jsonl"),
            ];
            match print_lines(lines) {
                Ok(()) => OK,
                Err(e) => stdout_failed("new", &e),
            }
        }
        Err(e) => {
            note("new", e);
            CANNOT_RUN
        }
    }
}

fn scaffold(path: &Path) -> Result<String, String> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let valid = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        return Err(format!("`{name}` is not a crate name (ASCII letters, digits, `-`, `_`, starting with a letter)"));
    }
    if path.exists() {
        return Err(format!("{} already exists", path.display()));
    }
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
         # Until clir is published, `clir` and `clir-codegen` are the copies this clir ({}) carries,\n\
         # written into clir-runtime/; then they become `clir = \"0.1\"` and\n\
         # `clir-codegen = \"0.1\"`, and clir-runtime/ can go.\n\
         [dependencies]\nclir = {{ path = \"{RUNTIME}/clir\" }}\n\n\
         [build-dependencies]\nclir-codegen = {{ path = \"{RUNTIME}/clir-codegen\" }}\n",
        super::runtime::identity(),
    );
    let files: [(&str, &str); 7] = [
        ("Cargo.toml", &manifest),
        ("build.rs", BUILD_RS),
        ("law.toml", LAW_TOML),
        ("src/main.rs", MAIN_RS),
        // The law test file, empty until the team writes its worked rulings (`--test`).
        ("tests/law.tests.jsonl", ""),
        (".gitignore", "/target\n"),
        ("Cargo.lock", super::runtime::lockfile()),
    ];
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    // A new folder of our own (never one that appeared since the check, nor a link's target).
    std::fs::create_dir(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    let written = (|| -> std::io::Result<()> {
        std::fs::create_dir(path.join("src"))?;
        std::fs::create_dir(path.join("tests"))?;
        std::fs::create_dir(path.join("sources"))?;
        super::runtime::write_into(&path.join(RUNTIME))?;
        for (file, text) in files {
            std::fs::write(path.join(file), text)?;
        }
        Ok(())
    })();
    written.map_err(|e| {
        let _ = std::fs::remove_dir_all(path);
        format!("cannot write {}: {e}", path.display())
    })?;
    Ok(name)
}
