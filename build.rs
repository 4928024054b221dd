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
        let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
        std::fs::write(out_dir.join("runtime_files.rs"), runtime_files(&root)).expect("write runtime_files.rs");
        clir_codegen::build::run();
    }

    /// The runtime `clir run` and `clir new` write into the cache, so an installed `clir` needs
    /// no checkout: the sources of the `clir` library, `clir-macros` and `clir-codegen`, each
    /// with a stand-alone manifest derived from this workspace's, and the workspace's
    /// Cargo.lock (the same dependency versions, offline once the registry cache holds them).
    fn runtime_files(root: &Path) -> String {
        let workspace: toml::Table = read_toml(&root.join("Cargo.toml"));
        let deps = workspace["workspace"]["dependencies"].as_table().expect("[workspace.dependencies]").clone();
        let mut files: Vec<(String, String)> = Vec::new();
        let mut sources = |crate_dir: &str, into: &str, skip: &[&str]| {
            let mut found = Vec::new();
            walk_rs(&root.join(crate_dir).join("src"), &mut found);
            found.sort();
            for f in found {
                let rel = f.strip_prefix(root.join(crate_dir)).unwrap().to_string_lossy().replace('\\', "/");
                if !skip.iter().any(|s| rel == *s || rel.starts_with(&format!("{s}/"))) {
                    files.push((format!("{into}/{rel}"), format!("include_str!({:?})", f.display().to_string())));
                }
            }
        };
        sources(".", "clir", &["src/main.rs", "src/cli"]);
        sources("clir-macros", "clir-macros", &[]);
        sources("clir-codegen", "clir-codegen", &[]);
        let mut manifests = vec![
            ("clir/Cargo.toml", standalone(&workspace, &deps, "clir")),
            ("clir-macros/Cargo.toml", standalone(&read_toml(&root.join("clir-macros/Cargo.toml")), &deps, "")),
            ("clir-codegen/Cargo.toml", standalone(&read_toml(&root.join("clir-codegen/Cargo.toml")), &deps, "")),
        ];
        println!("cargo:rerun-if-changed={}", root.join("Cargo.lock").display());
        let lock = std::fs::read_to_string(root.join("Cargo.lock")).expect("Cargo.lock");
        manifests.push(("Cargo.lock", lock));
        let mut out = String::from("/// The embedded runtime: (path under the runtime folder, contents).\npub const FILES: &[(&str, &str)] = &[\n");
        for (path, text) in manifests {
            out.push_str(&format!("    ({path:?}, {text:?}),\n"));
        }
        for (path, expr) in files {
            out.push_str(&format!("    ({path:?}, {expr}),\n"));
        }
        out.push_str("];\n");
        out
    }

    fn read_toml(path: &Path) -> toml::Table {
        println!("cargo:rerun-if-changed={}", path.display());
        std::fs::read_to_string(path).expect("manifest").parse().expect("manifest parses")
    }

    /// A crate's manifest with `workspace = true` entries written out, no dev-dependencies,
    /// binaries, benches or build script; for `clir` (`which` = "clir"), the library only: the
    /// `command` and `stream` features and what they need, not the compiler the `cli` feature
    /// brings.
    fn standalone(manifest: &toml::Table, workspace_deps: &toml::Table, which: &str) -> String {
        use toml::Value;
        let ws = manifest.get("workspace").and_then(|w| w.get("package")).cloned();
        let mut package = manifest["package"].as_table().unwrap().clone();
        for key in ["edition", "license", "version"] {
            if package.get(key).and_then(|v| v.get("workspace")).is_some() {
                let value = ws.as_ref().and_then(|w| w.get(key)).cloned().unwrap_or_else(|| match key {
                    "edition" => Value::from("2021"),
                    "version" => Value::from(env!("CARGO_PKG_VERSION")),
                    _ => Value::from("MIT OR Apache-2.0"),
                });
                package.insert(key.into(), value);
            }
        }
        for key in ["build", "autobenches"] {
            package.remove(key);
        }
        package.insert("publish".into(), Value::from(false));
        let mut out = toml::Table::new();
        out.insert("package".into(), Value::Table(package));
        if let Some(lib) = manifest.get("lib") {
            out.insert("lib".into(), lib.clone());
        }
        let mut deps = toml::Table::new();
        let mut features = toml::Table::new();
        if which == "clir" {
            features.insert("default".into(), Value::Array(Vec::new()));
            for feature in ["command", "stream"] {
                features.insert(feature.into(), manifest["features"][feature].clone());
            }
        }
        for (name, spec) in manifest.get("dependencies").and_then(Value::as_table).into_iter().flatten() {
            let optional = spec.get("optional").and_then(Value::as_bool).unwrap_or(false);
            let wanted = !optional
                || features
                    .values()
                    .flat_map(|f| f.as_array().cloned().unwrap_or_default())
                    .any(|f| f.as_str() == Some(&format!("dep:{name}")));
            if !wanted {
                continue;
            }
            let mut spec = match spec {
                Value::Table(t) if t.get("workspace").is_some() => {
                    let mut full = match workspace_deps[name].clone() {
                        Value::String(v) => toml::Table::from_iter([("version".to_string(), Value::String(v))]),
                        Value::Table(t) => t,
                        other => panic!("workspace dependency {name}: {other}"),
                    };
                    for (k, v) in t.iter().filter(|(k, _)| *k != "workspace") {
                        full.insert(k.clone(), v.clone());
                    }
                    full
                }
                Value::Table(t) => t.clone(),
                Value::String(v) => toml::Table::from_iter([("version".to_string(), Value::String(v.clone()))]),
                other => panic!("dependency {name}: {other}"),
            };
            // Path dependencies are the sibling folders of the runtime.
            if spec.contains_key("path") {
                spec.insert("path".into(), Value::from(format!("../{name}")));
            }
            deps.insert(name.clone(), Value::Table(spec));
        }
        out.insert("dependencies".into(), Value::Table(deps));
        if !features.is_empty() {
            out.insert("features".into(), Value::Table(features));
        }
        let package = toml::Table::from_iter(out.remove("package").map(|p| ("package".to_string(), p)));
        format!(
            "# Written by clir from its own manifest: the runtime `clir run` and `clir new` build against.\n{}\n{}",
            toml::to_string(&package).expect("manifest serializes"),
            toml::to_string(&out).expect("manifest serializes")
        )
    }

    fn walk_rs(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk_rs(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
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
