//! The build API: compiles the law packages of a crate's `law.toml` into its `OUT_DIR`, for that
//! crate's `build.rs` (README.md, "Use clir from your own crate").
//!
//! ```no_run
//! // build.rs: `fn main() { ... }` around this line.
//! clir_codegen::build::run();
//! ```
//!
//! [`run`] is the one call that prints (cargo directives, diagnostics) and exits; [`Builder`]
//! under it chooses the paths and options and returns a [`Result`].
//!
//! What it writes, under `OUT_DIR/clir/`: `<module>.rs` per package, `packages.rs` (a module per
//! package and `compiled_packages()`, for a binary that rules with all of them) and
//! [`INDEX`], the list `include_clir!` reads.

use crate::compilation::compile;
use crate::diag::Diagnostics;
use crate::emit::emit_with;
use crate::project::{self, Project, VerifiedPackage};
use crate::render::Source;
use std::fmt;
use std::path::{Path, PathBuf};

/// The folder under `OUT_DIR` that holds what the build writes.
pub const DIR: &str = "clir";
/// The index `include_clir!` reads: a line `law.toml <path>`, then `package <name> <module>` per
/// package.
pub const INDEX: &str = "index.txt";

/// Compiles the packages of the calling crate's `law.toml` (next to its `Cargo.toml`) into its
/// `OUT_DIR`, tells Cargo what to watch, and on any failure prints the diagnostics and exits 1,
/// failing the build. Call it from `build.rs`.
pub fn run() {
    let builder = match Builder::from_env() {
        Ok(b) => b,
        Err(e) => fail(&e),
    };
    match builder.build() {
        Ok(built) => {
            print_watched(&built.watched);
            for w in &built.warnings {
                println!("cargo:warning={w}");
            }
        }
        Err(e) => fail(&e),
    }
}

fn print_watched(paths: &[PathBuf]) {
    for p in paths {
        println!("cargo:rerun-if-changed={}", p.display());
    }
}

fn fail(e: &BuildError) -> ! {
    print_watched(&e.watched);
    eprintln!("{e}");
    std::process::exit(1);
}

/// Where a build reads and writes, and what it generates.
#[derive(Debug, Clone)]
pub struct Builder {
    root: PathBuf,
    out_dir: PathBuf,
    explanations: bool,
}

/// What a successful build wrote.
#[derive(Debug, Clone)]
pub struct Built {
    /// The compiled packages, sorted by name.
    pub packages: Vec<BuiltPackage>,
    /// Every file the result depends on: `law.toml`, `law.lock`, each blob and source text.
    pub watched: Vec<PathBuf>,
    /// Checks that only warned (a source text not available), one message each.
    pub warnings: Vec<String>,
}

/// One compiled package.
#[derive(Debug, Clone)]
pub struct BuiltPackage {
    /// The name `law.toml` lists.
    pub name: String,
    /// Its Rust module name (`fide.laws.chess` -> `fide_laws_chess`).
    pub module: String,
    /// The generated file.
    pub path: PathBuf,
}

/// Why a build failed: the rendered diagnostics (each naming the package, and the field, the
/// expected and the found value, or the rule), and the files to watch so that fixing one reruns it.
#[derive(Debug, Clone)]
pub struct BuildError {
    /// The message, one diagnostic a paragraph.
    pub message: String,
    /// The files the failure depends on.
    pub watched: Vec<PathBuf>,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BuildError {}

impl Builder {
    /// A build of the project in `root` (the folder of `law.toml`) into `out_dir`.
    pub fn new(root: impl Into<PathBuf>, out_dir: impl Into<PathBuf>) -> Builder {
        Builder { root: root.into(), out_dir: out_dir.into(), explanations: true }
    }

    /// The build Cargo asks for: `CARGO_MANIFEST_DIR` into `OUT_DIR`.
    pub fn from_env() -> Result<Builder, BuildError> {
        let var = |name: &str| {
            std::env::var_os(name).map(PathBuf::from).ok_or_else(|| BuildError {
                message: format!("error: {name} is not set: clir_codegen::build runs from a build script (build.rs)"),
                watched: Vec::new(),
            })
        };
        Ok(Builder::new(var("CARGO_MANIFEST_DIR")?, var("OUT_DIR")?))
    }

    /// Whether the generated modules carry the code that explains rulings (default: yes).
    pub fn explanations(mut self, on: bool) -> Builder {
        self.explanations = on;
        self
    }

    /// Verifies every package of `law.toml` against its pin in `law.lock`, compiles each, and
    /// writes the modules, the registry and the index under `out_dir/clir/`. Nothing is written
    /// unless every package compiles.
    pub fn build(&self) -> Result<Built, BuildError> {
        let mut watched = vec![self.root.join(project::MANIFEST), self.root.join(project::LOCKFILE)];
        let fail = |message: String, watched: &[PathBuf]| BuildError { message, watched: watched.to_vec() };
        let project = project::load(&self.root)
            .map_err(|d| fail(headline("the law packages of law.toml cannot be read", &d), &watched))?;
        watched.extend(project.packages.iter().map(|spec| project.blob_path(spec)));
        check_modules(&project).map_err(|m| fail(m, &watched))?;
        let verified = project::verify_all(&project)
            .map_err(|d| fail(headline("the law packages of law.toml do not verify", &d), &watched))?;
        watched.extend(verified.iter().flat_map(|p| source_texts(&project, p)));
        let mut compiled = Vec::new();
        let mut rejected = Vec::new();
        for package in &verified {
            let name = &package.spec.name;
            match compile(&package.document) {
                Ok(c) => compiled.push((
                    name.clone(),
                    module_name(name),
                    emit_with(&c, &package.pin.seal, self.explanations),
                )),
                Err(d) => {
                    rejected.push(d.render("error", Source { package: Some(name), document: Some(&package.document) }))
                }
            }
        }
        if !rejected.is_empty() {
            rejected.push("error: the compiler rejected law packages of law.toml".into());
            return Err(fail(rejected.join("\n"), &watched));
        }
        let dir = self.out_dir.join(DIR);
        let packages = write(&dir, &project, &compiled)
            .map_err(|e| fail(format!("error: cannot write generated code to {}: {e}", dir.display()), &watched))?;
        let warnings = verified.iter().flat_map(|p| p.warnings.iter().map(|w| w.to_string())).collect();
        Ok(Built { packages, watched, warnings })
    }
}

/// Every package needs its own module name, a Rust identifier (`include_clir!` names it).
fn check_modules(project: &Project) -> Result<(), String> {
    let mut seen: Vec<(String, &str)> = Vec::new();
    for spec in &project.packages {
        let module = module_name(&spec.name);
        if syn::parse_str::<syn::Ident>(&module).is_err() {
            return Err(format!(
                "error: package {}: its module name `{module}` is not a Rust identifier: rename the package in law.toml",
                spec.name
            ));
        }
        if let Some((_, other)) = seen.iter().find(|(m, _)| *m == module) {
            return Err(format!(
                "error: packages {other} and {} would both be the module `{module}`: list only one of them in law.toml",
                spec.name
            ));
        }
        seen.push((module, &spec.name));
    }
    Ok(())
}

fn headline(what: &str, d: &Diagnostics) -> String {
    let mut s = format!("error: {what}:");
    for d in &d.0 {
        s.push_str(&format!("\nerror: {d}"));
    }
    s
}

/// The source texts a package's `metadata.localSources` names, resolved against the root.
fn source_texts<'a>(project: &'a Project, package: &'a VerifiedPackage) -> impl Iterator<Item = PathBuf> + 'a {
    package.document.local_sources.iter().map(|(_, path)| project.root.join(path))
}

/// The module name of a package name: lowercase, `_` for every run of other characters
/// (the same rule as `include_clir!`).
pub fn module_name(package: &str) -> String {
    let mut out = String::new();
    for ch in package.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

/// The lints a generated module allows: names come from the package, a rule's function takes one
/// relation per body literal, and its tests are the package's comparisons as written (which may
/// be redundant or contradictory).
const ALLOWS: &str = "#[allow(dead_code, clippy::disallowed_names, clippy::too_many_arguments, clippy::type_complexity, clippy::nonminimal_bool, clippy::overly_complex_bool_expr, clippy::double_comparisons, clippy::impossible_comparisons, clippy::redundant_comparisons, non_snake_case, non_camel_case_types)]";

/// The registry: `pub mod <module>` per package and `compiled_packages()`, for a binary that
/// rules with every package of its law.toml (`include!` it inside a module).
pub fn registry_source(packages: &[(String, String)]) -> String {
    let mut s = String::from("// Generated by clir_codegen::build from law.toml. Do not edit.\n\n");
    for (name, module) in packages {
        s.push_str(&format!(
            "/// Package `{}`.\n{ALLOWS}\npub mod {module} {{\n    include!(concat!(env!(\"OUT_DIR\"), \"/{DIR}/{module}.rs\"));\n}}\n\n",
            crate::text::comment_text(name),
        ));
    }
    s.push_str("/// Every package of law.toml, by name.\npub fn compiled_packages() -> Vec<(&'static str, &'static dyn ::clir::Package)> {\n    vec![\n");
    for (name, module) in packages {
        s.push_str(&format!("        ({}, &{module}::Package),\n", crate::text::string_literal(name)));
    }
    s.push_str("    ]\n}\n");
    s
}

/// The index `include_clir!` reads (see [`INDEX`]).
fn index_source(project: &Project, packages: &[(String, String)]) -> String {
    let manifest = project.manifest_path();
    let manifest = std::fs::canonicalize(&manifest).unwrap_or(manifest);
    let mut s = format!("law.toml {}\n", manifest.display());
    for (name, module) in packages {
        s.push_str(&format!("package {name} {module}\n"));
    }
    s
}

fn write(dir: &Path, project: &Project, compiled: &[(String, String, String)]) -> std::io::Result<Vec<BuiltPackage>> {
    std::fs::create_dir_all(dir)?;
    let mut built = Vec::new();
    for (name, module, source) in compiled {
        let path = dir.join(format!("{module}.rs"));
        write_if_changed(&path, source)?;
        built.push(BuiltPackage { name: name.clone(), module: module.clone(), path });
    }
    let names: Vec<(String, String)> = compiled.iter().map(|(n, m, _)| (n.clone(), m.clone())).collect();
    write_if_changed(&dir.join("packages.rs"), &registry_source(&names))?;
    write_if_changed(&dir.join(INDEX), &index_source(project, &names))?;
    Ok(built)
}

fn write_if_changed(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).map(|old| old == text).unwrap_or(false) {
        return Ok(());
    }
    std::fs::write(path, text)
}
