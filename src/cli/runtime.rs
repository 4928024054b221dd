//! The runtime an installed `clir` carries: the crates `clir` (the runtime library), `clir-macros`
//! and `clir-codegen` as they stand in this workspace (embedded by build.rs, their manifests and
//! sources, with this build's Cargo.lock),
//! written once into the cache so that the crates `clir run` builds depend on them by path, and
//! into each crate `clir new` scaffolds, never the checkout clir was built from.

use std::path::{Path, PathBuf};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/runtime_files.rs"));
}

/// This clir's version and build identity, as the runtime folder and the cache keys name it.
pub fn identity() -> String {
    format!("{}-{}", env!("CARGO_PKG_VERSION"), &env!("CLIR_BUILD_ID")[..16])
}

/// Where the runtime is (or will be) under the cache folder `cache`.
pub fn dir(cache: &Path) -> PathBuf {
    cache.join("runtime").join(identity())
}

/// Writes the runtime under `cache` unless a complete copy is there; returns its folder, whose
/// `clir/`, `clir-macros/` and `clir-codegen/` are the crates. The copy is written into a new
/// folder of an unpredictable name beside it and renamed into place, so a reader never sees
/// half of it.
pub fn install(cache: &Path) -> std::io::Result<PathBuf> {
    let dir = dir(cache);
    if dir.join(".complete").is_file() {
        return Ok(dir);
    }
    let parent = dir.parent().expect("runtime folder has a parent");
    std::fs::create_dir_all(parent)?;
    let tmp = tempfile::Builder::new().prefix(&format!(".{}.", identity())).tempdir_in(parent)?;
    write_into(tmp.path())?;
    std::fs::write(tmp.path().join(".complete"), identity())?;
    let _ = std::fs::remove_dir_all(&dir);
    match std::fs::rename(tmp.path(), &dir) {
        Ok(()) => Ok(dir),
        // Another run installed it meanwhile (the temporary folder is removed when dropped).
        Err(_) if dir.join(".complete").is_file() => Ok(dir),
        Err(e) => Err(e),
    }
}

/// Writes the runtime's crates (`clir/`, `clir-macros/`, `clir-codegen/`) and its Cargo.lock
/// into `dir`, a new folder.
pub fn write_into(dir: &Path) -> std::io::Result<()> {
    for (path, text) in embedded::FILES {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().expect("a file has a folder"))?;
        std::fs::write(file, text)?;
    }
    Ok(())
}

/// The workspace Cargo.lock this clir was built with: a crate built against the runtime starts
/// from it, so it resolves to the same versions (and builds offline from the registry cache).
pub fn lockfile() -> &'static str {
    embedded::FILES.iter().find(|(p, _)| *p == "Cargo.lock").map(|(_, t)| *t).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runtime_holds_the_library_not_the_command_line() {
        let paths: Vec<&str> = embedded::FILES.iter().map(|(p, _)| *p).collect();
        let needed = [
            "clir/src/lib.rs",
            "clir/build.rs",
            "clir-macros/build.rs",
            "clir-codegen/build.rs",
            "clir-codegen/src/build.rs",
        ];
        for needed in needed {
            assert!(paths.contains(&needed), "{needed} missing from {paths:?}");
        }
        assert!(!paths.iter().any(|p| p.starts_with("clir/src/cli") || *p == "clir/src/main.rs"));
        let manifest = embedded::FILES.iter().find(|(p, _)| *p == "clir/Cargo.toml").unwrap().1;
        assert!(!manifest.contains("clir-codegen") && !manifest.contains("[[bin]]"), "{manifest}");
        assert!(!manifest.contains(env!("CARGO_MANIFEST_DIR")), "no path into the checkout: {manifest}");
        // The manifests are embedded as they are: none inherits from a workspace the runtime lacks.
        for (path, text) in embedded::FILES.iter().filter(|(p, _)| p.ends_with("/Cargo.toml")) {
            assert!(!text.contains("workspace = true") && !text.contains(".workspace"), "{path}:\n{text}");
        }
        assert!(!lockfile().is_empty());
    }
}
