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
/// `clir/`, `clir-macros/` and `clir-codegen/` are the crates.
pub fn install(cache: &Path) -> std::io::Result<PathBuf> {
    let dir = dir(cache);
    write_once(&dir, &identity(), write_into)?;
    Ok(dir)
}

/// Makes `dir` a complete folder unless it is one (holds `.complete`): `fill` writes into a new
/// folder of an unpredictable name beside it, `.complete` (holding `mark`) is written last, and
/// the folder is renamed into place. A reader never sees half of it, and whatever was at `dir`
/// before (a half-written folder, a file, a link) is replaced, never written through.
pub fn write_once(dir: &Path, mark: &str, fill: impl FnOnce(&Path) -> std::io::Result<()>) -> std::io::Result<()> {
    let complete = |d: &Path| std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir()) && d.join(".complete").is_file();
    if complete(dir) {
        return Ok(());
    }
    let parent = dir.parent().ok_or_else(|| std::io::Error::other(format!("{} has no parent", dir.display())))?;
    std::fs::create_dir_all(parent)?;
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = tempfile::Builder::new().prefix(&format!(".{name}.")).tempdir_in(parent)?;
    fill(tmp.path())?;
    std::fs::write(tmp.path().join(".complete"), mark)?;
    if let Ok(m) = std::fs::symlink_metadata(dir) {
        // A failure here shows as the rename's.
        let _ = if m.is_dir() { std::fs::remove_dir_all(dir) } else { std::fs::remove_file(dir) };
    }
    match std::fs::rename(tmp.path(), dir) {
        Ok(()) => Ok(()),
        // Another run made it meanwhile (the temporary folder is removed when dropped).
        Err(_) if complete(dir) => Ok(()),
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
    use std::os::unix::fs::FileTypeExt;

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

    /// Fills `dir` with one file, `lib.rs`, through [`write_once`].
    fn write_lib(dir: &Path, text: &str) -> std::io::Result<()> {
        write_once(dir, "mark", |new| std::fs::write(new.join("lib.rs"), text))
    }

    #[test]
    fn a_folder_written_once_replaces_links_and_half_folders_never_writes_through_them() {
        use std::os::unix::fs::symlink;
        let root = tempfile::tempdir().unwrap();
        let outside = root.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("lib.rs"), "theirs").unwrap();
        let crates = root.path().join("crates");
        std::fs::create_dir(&crates).unwrap();

        // A link to a folder elsewhere where the crate's folder goes: the link is replaced.
        let linked = crates.join("linked");
        symlink(&outside, &linked).unwrap();
        write_lib(&linked, "ours").unwrap();
        assert!(std::fs::symlink_metadata(&linked).unwrap().is_dir());
        assert_eq!(std::fs::read_to_string(linked.join("lib.rs")).unwrap(), "ours");
        assert_eq!(std::fs::read_to_string(outside.join("lib.rs")).unwrap(), "theirs");

        // A half-written folder whose file links elsewhere: replaced whole.
        let half = crates.join("half");
        std::fs::create_dir(&half).unwrap();
        symlink(outside.join("lib.rs"), half.join("lib.rs")).unwrap();
        write_lib(&half, "ours").unwrap();
        assert!(!std::fs::symlink_metadata(half.join("lib.rs")).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(half.join("lib.rs")).unwrap(), "ours");
        assert_eq!(std::fs::read_to_string(outside.join("lib.rs")).unwrap(), "theirs");

        // A file, or a link to /dev/null, where the folder goes: replaced, /dev/null kept.
        let file = crates.join("file");
        std::fs::write(&file, "x").unwrap();
        write_lib(&file, "ours").unwrap();
        assert_eq!(std::fs::read_to_string(file.join(".complete")).unwrap(), "mark");
        let null = crates.join("null");
        symlink("/dev/null", &null).unwrap();
        write_lib(&null, "ours").unwrap();
        assert!(std::fs::symlink_metadata("/dev/null").unwrap().file_type().is_char_device());

        // A complete folder is kept as it is; nothing is left beside the folders.
        write_lib(&half, "changed").unwrap();
        assert_eq!(std::fs::read_to_string(half.join("lib.rs")).unwrap(), "ours");
        let mut names: Vec<String> = std::fs::read_dir(&crates)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["file", "half", "linked", "null"]);
    }
}
