//! The runtime's modules import downwards only, in the order `lib.rs` gives: every module a file
//! names (`crate::<module>`, an item the crate root re-exports, or, inside `jsonl/`, a sibling by
//! `super::`) is a module before it in [`ORDER`], outside comments. `jsonl`'s files are layers of
//! their own (`jsonl::read` ...); the other folders (`rt/`, `stream/`, `value/`) are one module
//! each.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The modules in import order, each a layer; the first layer's modules import no other module.
const ORDER: &[&[&str]] = &[
    &["value", "suggest", "outfile"],
    &["schema"],
    &["instance", "reason"],
    &["rt"],
    &["batch"],
    &["explain", "why_not", "typed"],
    &["certificate", "coverage"],
    &["jsonl::text", "jsonl::keys"],
    &["jsonl::read"],
    &["jsonl::fast"],
    &["jsonl::write"],
    &["jsonl::chunk"],
    &["jsonl"],
    &["runner", "diff"],
    &["lawtest"],
    &["arrow"],
    &["command", "python", "stream"],
];

/// Items `lib.rs` defines itself, with the layer each belongs to: `Package` names
/// `jsonl::Codec`, so a module that uses it is above `jsonl::read` (or is it).
const ROOT_ITEMS: &[(&str, &str)] = &[("Package", "jsonl::read")];

fn layer(module: &str) -> Option<usize> {
    ORDER.iter().position(|l| l.contains(&module))
}

/// The `.rs` files under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src reads") {
        let path = entry.expect("entry reads").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// What the crate root holds, by name: the module each `pub use <module>::{..}` of `lib.rs`
/// takes an item from, and the module each exported macro (`macro_rules!`) is written in.
fn root_items(lib: &str, files: &[(String, String)]) -> HashMap<String, String> {
    let mut names = HashMap::new();
    for (module, text) in files {
        for (at, _) in text.match_indices("macro_rules! ") {
            let name: String = text[at + "macro_rules! ".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            names.insert(name, module.clone());
        }
    }
    for statement in lib.split(';') {
        let Some(at) = statement.find("pub use ") else { continue };
        let path = statement[at + "pub use ".len()..].trim();
        let Some((module, items)) = path.split_once("::") else { continue };
        for item in items.trim_matches(|c: char| c == '{' || c == '}' || c.is_whitespace()).split(',') {
            let item = item.trim();
            if !item.is_empty() {
                names.insert(item.to_string(), module.to_string());
            }
        }
    }
    for (item, module) in ROOT_ITEMS {
        names.insert(item.to_string(), module.to_string());
    }
    names
}

/// The module of a path that starts in the `jsonl` module: a file of `jsonl/` when it names one,
/// else `jsonl` itself (what its `mod.rs` re-exports).
fn in_jsonl(rest: &str) -> String {
    let first: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    let file = format!("jsonl::{first}");
    if layer(&file).is_some() {
        file
    } else {
        "jsonl".to_string()
    }
}

/// The modules a path after `crate::` names (several for `crate::{a, B}`).
fn named_after_crate(rest: &str, root: &HashMap<String, String>) -> Vec<Result<String, String>> {
    let items: Vec<&str> = match rest.strip_prefix('{') {
        Some(list) => list.split('}').next().unwrap_or("").split(',').map(str::trim).collect(),
        None => vec![rest],
    };
    let mut out = Vec::new();
    for item in items {
        let name: String = item.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if name.is_empty() {
            continue;
        }
        if name.starts_with(|c: char| c.is_ascii_lowercase()) && item[name.len()..].starts_with("::") {
            out.push(Ok(if name == "jsonl" { in_jsonl(&item["jsonl::".len()..]) } else { name }));
        } else if let Some(module) = root.get(&name) {
            out.push(Ok(module.clone()));
        } else if name.starts_with(|c: char| c.is_ascii_lowercase()) {
            // A module named whole (`crate::rt` in `pub(in crate::rt)`) or a root macro.
            out.push(Ok(name));
        } else {
            out.push(Err(name));
        }
    }
    out
}

#[test]
fn modules_import_downwards_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    sources(&src, &mut paths);
    let mut files = Vec::new();
    for path in &paths {
        let rel = path.strip_prefix(&src).unwrap();
        let parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
        let module = match parts.as_slice() {
            [lib] if lib == "lib" => continue,
            [dir, file] if dir == "jsonl" && file != "mod" => format!("jsonl::{file}"),
            _ => parts[0].clone(),
        };
        files.push((rel.display().to_string(), module, std::fs::read_to_string(path).unwrap()));
    }
    let modules: Vec<(String, String)> = files.iter().map(|(_, m, t)| (m.clone(), t.clone())).collect();
    let root = root_items(&std::fs::read_to_string(src.join("lib.rs")).unwrap(), &modules);
    let mut wrong = Vec::new();
    for (rel, module, text) in &files {
        let module = module.as_str();
        let own = layer(module).unwrap_or_else(|| panic!("{module} is not in ORDER: give it its place"));
        // Inside a file's `mod tests`, `super::` is the file's own module.
        let mut in_tests = false;
        for (i, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            in_tests |= code.starts_with("mod tests");
            let mut named = Vec::new();
            for (at, _) in line.match_indices("crate::") {
                named.extend(named_after_crate(&line[at + "crate::".len()..], &root));
            }
            if module.starts_with("jsonl") {
                for (at, _) in line.match_indices("super::") {
                    if line[..at].ends_with("super::") {
                        continue;
                    }
                    let mut rest = &line[at + "super::".len()..];
                    let up = if let Some(r) = rest.strip_prefix("super::") {
                        rest = r;
                        2
                    } else {
                        1
                    };
                    let from_jsonl = if module == "jsonl" { up == 1 && in_tests } else { up == 1 + in_tests as usize };
                    if from_jsonl {
                        let items: Vec<&str> = match rest.strip_prefix('{') {
                            Some(list) => list.split('}').next().unwrap_or("").split(',').map(str::trim).collect(),
                            None => vec![rest],
                        };
                        named.extend(items.into_iter().filter(|i| *i != "*").map(|i| Ok(in_jsonl(i))));
                    }
                }
            }
            for name in named {
                match name {
                    Ok(name) if name == module => {}
                    Ok(name) if layer(&name).is_some_and(|l| l < own) => {}
                    Ok(name) => wrong.push(format!("{rel}:{}: {module} imports {name}", i + 1)),
                    Err(item) => wrong.push(format!("{rel}:{}: crate::{item} is not in lib.rs", i + 1)),
                }
            }
        }
    }
    assert!(wrong.is_empty(), "modules importing upwards or sideways:\n{}", wrong.join("\n"));
}
