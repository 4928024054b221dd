//! The compiler's modules import downwards only, in the order `lib.rs` and CONTRIBUTING.md give:
//! every `crate::<module>` a module names (outside comments) is a module before it in [`ORDER`].

use std::path::Path;

/// The modules in import order, each a layer; the first layer's modules import no other module.
const ORDER: &[&[&str]] = &[
    &["diag", "canonical", "files", "text"],
    &["ir"],
    &["validate"],
    &["verify"],
    &["resolve"],
    &["datalog"],
    &["strata"],
    &["plan"],
    &["names"],
    &["compilation"],
    &["show"],
    &["emit"],
    &["render"],
    &["project"],
    &["build"],
    &["seal"],
    &["analyze"],
];

fn layer(module: &str) -> Option<usize> {
    ORDER.iter().position(|l| l.contains(&module))
}

/// The `.rs` files under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src reads") {
        let path = entry.expect("entry reads").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn modules_import_downwards_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut wrong = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let first = rel.iter().next().unwrap().to_string_lossy();
        let module = first.strip_suffix(".rs").unwrap_or(&first).to_string();
        if module == "lib" {
            continue;
        }
        let own = layer(&module).unwrap_or_else(|| panic!("{module} is not in ORDER: give it its place"));
        let text = std::fs::read_to_string(file).unwrap();
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for (at, _) in line.match_indices("crate::") {
                let name: String =
                    line[at + "crate::".len()..].chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
                if name.is_empty() || name == module {
                    continue;
                }
                let ok = layer(&name).is_some_and(|l| l < own);
                if !ok {
                    wrong.push(format!("{}:{}: {module} imports crate::{name}", rel.display(), i + 1));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "modules importing upwards or sideways:\n{}", wrong.join("\n"));
}
