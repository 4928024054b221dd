//! The `clir` binary's packages: the law packages of this repository's `law.toml` are verified
//! against `law.lock` and compiled into `OUT_DIR` by the same call a user's `build.rs` makes
//! (`clir_codegen::build::run()`); `src/main.rs` includes them. The runtime crate (`clir/`)
//! holds none. This script also embeds the runtime `clir run` and `clir new` write out.

use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    // The identity of this build of the compiler and runtime: `clir run` keys its cache by it.
    println!("cargo:rustc-env=CLIR_BUILD_ID={}", build_id(&root));
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out_dir.join("runtime_files.rs"), runtime_files(&root)).expect("write runtime_files.rs");
    clir_codegen::build::run();
    std::fs::write(out_dir.join("package_blobs.rs"), package_blobs(&root)).expect("write package_blobs.rs");
}

/// The blobs of the compiled-in packages (verified against law.lock by `build::run` above), so
/// that `clir show --package NAME` works outside this checkout as `clir rule --package` does.
fn package_blobs(root: &Path) -> String {
    let mut out =
        String::from("/// The compiled-in packages' blobs: (name, bytes).\npub const BLOBS: &[(&str, &[u8])] = &[\n");
    if let Ok(project) = clir_codegen::project::load(root) {
        for spec in &project.packages {
            let blob = project.blob_path(spec);
            out.push_str(&format!("    ({:?}, include_bytes!({:?})),\n", spec.name, blob.display().to_string()));
        }
    }
    out.push_str("];\n");
    out
}

/// The crates of the runtime: the folder each is written to, and the `links` name under which
/// its build script tells where its sources are (`DEP_<LINKS>_ROOT`). This finds them in this
/// workspace and, for a `clir-cli` built from a registry, in the registry's copies.
const RUNTIME_CRATES: [(&str, &str); 3] =
    [("clir", "CLIR"), ("clir-macros", "CLIR_MACROS"), ("clir-codegen", "CLIR_CODEGEN")];

/// The runtime crate `krate`'s folder and its manifest as written (a registry copy keeps the
/// original, with its path dependencies, as `Cargo.toml.orig`).
fn runtime_crate(links: &str) -> (PathBuf, PathBuf) {
    let var = format!("DEP_{links}_ROOT");
    let dir = PathBuf::from(std::env::var_os(&var).unwrap_or_else(|| panic!("cargo sets {var}")));
    let orig = dir.join("Cargo.toml.orig");
    let manifest = if orig.is_file() { orig } else { dir.join("Cargo.toml") };
    (dir, manifest)
}

/// The runtime `clir run` and `clir new` write into the cache, so an installed `clir` needs
/// no checkout: the crates `clir`, `clir-macros` and `clir-codegen` as they stand (each
/// manifest, build script and `src/`; the manifests name no workspace, so they stand alone), and the
/// workspace's Cargo.lock (the same dependency versions, offline once the registry cache
/// holds them).
fn runtime_files(root: &Path) -> String {
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    for (krate, links) in RUNTIME_CRATES {
        let (dir, manifest) = runtime_crate(links);
        println!("cargo:rerun-if-changed={}", manifest.display());
        files.push((format!("{krate}/Cargo.toml"), manifest));
        let mut found = vec![dir.join("build.rs")];
        walk(&dir.join("src"), true, &mut found);
        found.sort();
        for f in found {
            let rel = f.strip_prefix(&dir).unwrap().to_string_lossy().replace('\\', "/");
            files.push((format!("{krate}/{rel}"), f));
        }
    }
    println!("cargo:rerun-if-changed={}", root.join("Cargo.lock").display());
    files.push(("Cargo.lock".to_string(), root.join("Cargo.lock")));
    let mut out = String::from(
        "/// The embedded runtime: (path under the runtime folder, contents).\npub const FILES: &[(&str, &str)] = &[\n",
    );
    for (path, file) in files {
        out.push_str(&format!("    ({path:?}, include_str!({:?})),\n", file.display().to_string()));
    }
    out.push_str("];\n");
    out
}

/// The files under `dir` (all of them, or the Rust sources only), in no particular order.
fn walk(dir: &Path, rust_only: bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, rust_only, out);
        } else if !rust_only || p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// sha256 over the tool's, the compiler's and the runtime's sources and manifests (names and
/// bytes, in sorted order).
fn build_id(root: &Path) -> String {
    let mut files = vec![("clir-cli".to_string(), root.join("Cargo.toml"))];
    let mut found = Vec::new();
    walk(&root.join("src"), false, &mut found);
    println!("cargo:rerun-if-changed={}", root.join("src").display());
    for (krate, links) in RUNTIME_CRATES {
        let (dir, manifest) = runtime_crate(links);
        println!("cargo:rerun-if-changed={}", dir.join("src").display());
        files.push((format!("{krate}/Cargo.toml"), manifest));
        let mut sources = vec![dir.join("build.rs")];
        walk(&dir.join("src"), false, &mut sources);
        files.extend(sources.into_iter().map(|f| (format!("{krate}/{}", f.strip_prefix(&dir).unwrap().display()), f)));
    }
    files.extend(found.into_iter().map(|f| (f.strip_prefix(root).unwrap().display().to_string(), f)));
    files.sort();
    let mut all = Vec::new();
    for (name, f) in files {
        all.extend_from_slice(name.as_bytes());
        all.push(0);
        all.extend_from_slice(&std::fs::read(&f).unwrap_or_default());
        all.push(0);
    }
    clir_codegen::canonical::sha256_hex(&all).trim_start_matches("sha256:").to_string()
}
