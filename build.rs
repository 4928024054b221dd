//! The `clir` binary's packages: with the `cli` feature, the law packages of this repository's
//! `law.toml` are verified against `law.lock` and compiled into `OUT_DIR` by the same call a
//! user's `build.rs` makes (`clir_codegen::build::run()`); `src/main.rs` includes them. The
//! library holds none. Without `cli` (a library user) this script does nothing.

fn main() {
    #[cfg(feature = "cli")]
    cli::main();
}

#[cfg(feature = "cli")]
mod cli {
    use std::path::{Path, PathBuf};

    pub fn main() {
        let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
        // The identity of this build of the compiler and runtime: `clir run` keys its cache by it.
        println!("cargo:rustc-env=CLIR_BUILD_ID={}", build_id(&root));
        clir_codegen::build::run();
    }

    /// sha256 over the compiler's and the runtime's sources (paths and bytes, in sorted order).
    fn build_id(root: &Path) -> String {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            let Ok(entries) = std::fs::read_dir(dir) else { return };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else {
                    out.push(p);
                }
            }
        }
        let mut files = Vec::new();
        for dir in ["src", "clir-codegen/src", "clir-macros/src"] {
            println!("cargo:rerun-if-changed={}", root.join(dir).display());
            walk(&root.join(dir), &mut files);
        }
        files.sort();
        let mut all = Vec::new();
        for f in files {
            all.extend_from_slice(f.strip_prefix(root).unwrap_or(&f).to_string_lossy().as_bytes());
            all.push(0);
            all.extend_from_slice(&std::fs::read(&f).unwrap_or_default());
            all.push(0);
        }
        clir_codegen::canonical::sha256_hex(&all).trim_start_matches("sha256:").to_string()
    }
}
