//! `law.toml` (the packages a build compiles in) and `law.lock` (their pins), as README.md "Use
//! clir from your own crate" fixes them, and the verification of every listed package against its
//! pin.
//!
//! ```toml
//! # law.toml
//! [dependencies]
//! "fide.laws.chess" = "0.1.0"
//! # or, with inline pins (which must agree with law.lock) and an explicit blob path:
//! # "fide.laws.chess" = { version = "0.1.0", seal = "sha256:...", semanticHash = "sha256:...", path = "..." }
//! ```
//!
//! ```toml
//! # law.lock
//! [[package]]
//! name = "fide.laws.chess"
//! version = "0.1.0"
//! seal = "sha256:..."
//! semanticHash = "sha256:..."
//! ```

use crate::canonical;
use crate::diag::{Diagnostic, Diagnostics};
pub use crate::files::{read_regular_file, stays_inside, MAX_FILE_BYTES};
use crate::ir::Document;
use crate::verify::{self, VerifyOptions};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The manifest's file name, in the project root.
pub const MANIFEST: &str = "law.toml";
/// The lock file's name, in the project root.
pub const LOCKFILE: &str = "law.lock";

const CHECK: &str = "project";

/// A project: its root folder, the packages of `law.toml` and the pins of `law.lock`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// The folder of `law.toml`; relative paths resolve against it.
    pub root: PathBuf,
    /// The packages listed in `[dependencies]`, sorted by name.
    pub packages: Vec<PackageSpec>,
    /// The pins of `law.lock` (empty when there is no `law.lock`).
    pub lock: Lock,
}

/// One package of `law.toml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageSpec {
    /// Registry name, e.g. `fide.laws.chess`.
    pub name: String,
    /// The version asked for.
    pub version: String,
    /// The blob, relative to the project root: `sources/<name>-<version>.lawir.json` unless
    /// `path` says otherwise.
    pub path: PathBuf,
    /// Inline seal pin, if written in `law.toml`.
    pub seal: Option<String>,
    /// Inline semanticHash pin, if written in `law.toml`.
    pub semantic_hash: Option<String>,
}

/// The pins of `law.lock`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lock {
    /// One pin per package, sorted by name when written.
    pub packages: Vec<Pin>,
}

/// What a consumer pins for one package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pin {
    /// Registry name.
    pub name: String,
    /// Version.
    pub version: String,
    /// `sha256:` of the blob's bytes.
    pub seal: String,
    /// The document's top-level `semanticHash`.
    #[serde(rename = "semanticHash")]
    pub semantic_hash: String,
}

/// A package whose blob matched its pin and passed every check.
#[derive(Debug, Clone)]
pub struct VerifiedPackage {
    /// What `law.toml` asked for.
    pub spec: PackageSpec,
    /// The pin it matched.
    pub pin: Pin,
    /// The verified document.
    pub document: crate::verify::Verified,
    /// The blob's bytes (canonical, sealed).
    pub bytes: Vec<u8>,
    /// Checks that only warned (e.g. a source text that is not available), as
    /// `package NAME: check: ...` messages.
    pub warnings: Vec<Diagnostic>,
}

impl Project {
    /// The blob of `spec`, resolved against the root.
    pub fn blob_path(&self, spec: &PackageSpec) -> PathBuf {
        self.root.join(&spec.path)
    }

    /// The blob of `spec` under the root, when its path keeps to [`package_file`]'s rule.
    pub fn package_file(&self, spec: &PackageSpec) -> Result<PathBuf, String> {
        package_file(&self.root, &spec.name, &spec.path)
    }

    /// `root/law.toml`.
    pub fn manifest_path(&self) -> PathBuf {
        self.root.join(MANIFEST)
    }

    /// `root/law.lock`.
    pub fn lock_path(&self) -> PathBuf {
        self.root.join(LOCKFILE)
    }

    /// The package of `law.toml` named `name`.
    pub fn package(&self, name: &str) -> Option<&PackageSpec> {
        self.packages.iter().find(|p| p.name == name)
    }
}

impl Lock {
    /// Parses the text of a `law.lock`.
    pub fn parse(text: &str) -> Result<Lock, Diagnostics> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct LockFile {
            #[serde(default)]
            package: Vec<Pin>,
        }
        let file: LockFile = toml::from_str(text).map_err(|e| toml_error(LOCKFILE, text, &e))?;
        let mut errors = Vec::new();
        for (i, pin) in file.package.iter().enumerate() {
            let at = |field: &str| format!("{LOCKFILE}: package[{i}] ({}): {field}", pin.name);
            if let Err(m) = check_name(&pin.name) {
                errors.push(Diagnostic::new(CHECK, "", format!("{}: {m}", at("name"))));
            }
            if let Err(m) = check_version(&pin.version) {
                errors.push(Diagnostic::new(CHECK, "", format!("{}: {m}", at("version"))));
            }
            for (field, value) in [("seal", &pin.seal), ("semanticHash", &pin.semantic_hash)] {
                if let Err(m) = check_hash(value) {
                    errors.push(Diagnostic::new(CHECK, "", format!("{}: {m}", at(field))));
                }
            }
            if file.package[..i].iter().any(|p| p.name == pin.name) {
                errors.push(Diagnostic::new(
                    CHECK,
                    "",
                    format!("{LOCKFILE}: package {} is pinned more than once", pin.name),
                ));
            }
        }
        if errors.is_empty() {
            Ok(Lock { packages: file.package })
        } else {
            Err(Diagnostics(errors))
        }
    }

    /// The pin of package `name`.
    pub fn pin(&self, name: &str) -> Option<&Pin> {
        self.packages.iter().find(|p| p.name == name)
    }

    /// The text of `law.lock`: a header comment, then one `[[package]]` per pin, sorted by name.
    pub fn to_toml(&self) -> String {
        let mut pins: Vec<&Pin> = self.packages.iter().collect();
        pins.sort_by(|a, b| a.name.cmp(&b.name));
        let mut out = String::from(
            "# Written by `clir lock` after verifying each package; commit it.\n\
             # A changed pin is only rewritten with `clir lock --update NAME`.\n",
        );
        for pin in pins {
            out.push_str("\n[[package]]\n");
            for (key, value) in [
                ("name", &pin.name),
                ("version", &pin.version),
                ("seal", &pin.seal),
                ("semanticHash", &pin.semantic_hash),
            ] {
                out.push_str(&format!("{key} = {}\n", toml::Value::String(value.clone())));
            }
        }
        out
    }
}

impl Pin {
    /// The pin of a verified document and its bytes.
    pub fn of(document: &Document, bytes: &[u8]) -> Pin {
        Pin {
            name: document.package.name.clone(),
            version: document.package.version.clone(),
            seal: canonical::seal(bytes),
            semantic_hash: document.semantic_hash.clone(),
        }
    }
}

/// Reads `root/law.toml` and, when present, `root/law.lock`.
pub fn load(root: &Path) -> Result<Project, Diagnostics> {
    let manifest = root.join(MANIFEST);
    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| Diagnostic::new(CHECK, "", format!("cannot read {}: {e}", manifest.display())))?;
    let packages = parse_manifest(&text);
    let lock_file = root.join(LOCKFILE);
    let lock = match std::fs::read_to_string(&lock_file) {
        Ok(text) => Lock::parse(&text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Lock::default()),
        Err(e) => Err(Diagnostic::new(CHECK, "", format!("cannot read {}: {e}", lock_file.display())).into()),
    };
    match (packages, lock) {
        (Ok(packages), Ok(lock)) => Ok(Project { root: root.to_path_buf(), packages, lock }),
        (packages, lock) => {
            let mut errors = Vec::new();
            errors.extend(packages.err().map(|d| d.0).unwrap_or_default());
            errors.extend(lock.err().map(|d| d.0).unwrap_or_default());
            Err(Diagnostics(errors))
        }
    }
}

/// The `[dependencies]` entries of law.toml's `text` by package name, each with the path of TOML
/// keys that leads to it. A package name holds dots, so a registry page's unquoted line
/// (`fide.laws.chess = "0.1.0"`) is, to TOML, a dotted key; it is read back into the dotted
/// name. Only what TOML itself marks as a step of a dotted key or an implicit table (`[a.b]`
/// makes `a`) is a step of a name; a string, an inline table or an explicit table is an entry.
fn package_entries(text: &str) -> Vec<(String, Vec<String>)> {
    fn walk(prefix: &[String], table: &dyn toml_edit::TableLike, out: &mut Vec<(String, Vec<String>)>) {
        for (key, item) in table.iter() {
            let mut keys = prefix.to_vec();
            keys.push(key.to_string());
            let step = match item {
                toml_edit::Item::Table(t) => {
                    (t.is_dotted() || t.is_implicit()).then_some(t as &dyn toml_edit::TableLike)
                }
                toml_edit::Item::Value(toml_edit::Value::InlineTable(t)) if t.is_dotted() => Some(t as _),
                _ => None,
            };
            match step {
                Some(inner) => walk(&keys, inner, out),
                None => out.push((keys.join("."), keys)),
            }
        }
    }
    let mut out = Vec::new();
    let doc = text.parse::<toml_edit::DocumentMut>();
    if let Some(deps) = doc.as_ref().ok().and_then(|d| d.get("dependencies")).and_then(|d| d.as_table_like()) {
        walk(&[], deps, &mut out);
    }
    out
}

/// The registry law.toml's `[registry] url` names (`Ok(None)` when it names none), or `Err` when
/// the table holds anything else.
fn registry_url(table: &toml::Table) -> Result<Option<String>, ()> {
    match table.get("registry") {
        None => Ok(None),
        Some(toml::Value::Table(t)) => match (t.len(), t.get("url")) {
            (1, Some(toml::Value::String(url))) => Ok(Some(url.clone())),
            _ => Err(()),
        },
        Some(_) => Err(()),
    }
}

/// The registry `[registry] url` of the law.toml text `text` names, if any (docs/REGISTRY.md).
pub fn manifest_registry(text: &str) -> Result<Option<String>, Diagnostics> {
    let table: toml::Table = toml::from_str(text).map_err(|e| toml_error(MANIFEST, text, &e))?;
    registry_url(&table).map_err(|()| {
        Diagnostic::new(CHECK, "", format!("{MANIFEST}: [registry] holds one key, `url`, a string")).into()
    })
}

/// Parses the text of a `law.toml` into its packages, sorted by name.
pub fn parse_manifest(text: &str) -> Result<Vec<PackageSpec>, Diagnostics> {
    let table: toml::Table = toml::from_str(text).map_err(|e| toml_error(MANIFEST, text, &e))?;
    let mut errors = Vec::new();
    let err = |m: String| Diagnostic::new(CHECK, "", format!("{MANIFEST}: {m}"));
    for key in table.keys() {
        if key != "dependencies" && key != "registry" {
            errors.push(err(format!("unknown key `{key}` (only [dependencies] and [registry] are understood)")));
        }
    }
    if registry_url(&table).is_err() {
        errors.push(err("[registry] holds one key, `url`, a string (docs/REGISTRY.md)".into()));
    }
    let deps = match table.get("dependencies") {
        None => toml::Table::new(),
        Some(toml::Value::Table(t)) => t.clone(),
        Some(_) => {
            errors.push(err("[dependencies] must be a table".into()));
            toml::Table::new()
        }
    };
    let mut packages = Vec::new();
    for (name, keys) in &package_entries(text) {
        let mut value = None;
        for (i, key) in keys.iter().enumerate() {
            value = if i == 0 { deps.get(key) } else { value.and_then(|v: &toml::Value| v.get(key)) };
        }
        let Some(value) = value else { continue };
        if packages.iter().any(|p: &PackageSpec| p.name == *name) {
            errors.push(err(format!("dependencies.{name:?}: the package is listed twice")));
            continue;
        }
        let at = format!("dependencies.{:?}", name);
        if let Err(m) = check_name(name) {
            errors.push(err(format!("{at}: {m}")));
            continue;
        }
        let (version, seal, semantic_hash, path) = match value {
            toml::Value::String(v) => (Some(v.clone()), None, None, None),
            toml::Value::Table(t) => {
                let mut fields: [Option<String>; 4] = Default::default();
                for (key, v) in t {
                    let slot = match key.as_str() {
                        "version" => 0,
                        "seal" => 1,
                        "semanticHash" => 2,
                        "path" => 3,
                        other => {
                            errors.push(err(format!(
                                "{at}: unknown key `{other}` (known: version, seal, semanticHash, path)"
                            )));
                            continue;
                        }
                    };
                    match v.as_str() {
                        Some(s) => fields[slot] = Some(s.to_string()),
                        None => errors.push(err(format!("{at}.{key}: expected a string"))),
                    }
                }
                let [version, seal, semantic_hash, path] = fields;
                (version, seal, semantic_hash, path)
            }
            _ => {
                errors.push(err(format!("{at}: expected a version string or a table")));
                continue;
            }
        };
        let Some(version) = version else {
            errors.push(err(format!("{at}: missing `version`")));
            continue;
        };
        if let Err(m) = check_version(&version) {
            errors.push(err(format!("{at}.version: {m}")));
            continue;
        }
        for (field, value) in [("seal", &seal), ("semanticHash", &semantic_hash)] {
            if let Some(Err(m)) = value.as_deref().map(check_hash) {
                errors.push(err(format!("{at}.{field}: {m}")));
            }
        }
        let path = path.map(PathBuf::from).unwrap_or_else(|| default_blob_path(name, &version));
        packages.push(PackageSpec { name: name.clone(), version, path, seal, semantic_hash });
    }
    if errors.is_empty() {
        packages.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(packages)
    } else {
        Err(Diagnostics(errors))
    }
}

/// The options that verify `spec` against `pin` (or, without a pin, against the inline pins
/// of `law.toml`), with the project root for source texts.
pub fn options_for(project: &Project, spec: &PackageSpec, pin: Option<&Pin>) -> VerifyOptions {
    VerifyOptions {
        seal: pin.map(|p| p.seal.clone()).or_else(|| spec.seal.clone()),
        semantic_hash: pin.map(|p| p.semantic_hash.clone()).or_else(|| spec.semantic_hash.clone()),
        version: Some(pin.map_or(&spec.version, |p| &p.version).clone()),
        name: Some(spec.name.clone()),
        root: Some(project.root.clone()),
        strict_sources: false,
    }
}

/// Verifies every package of the project against its pin; fails with every problem of every
/// package, each naming the package, the field, the expected and the found value. This is the
/// build's reading (`build::run`): it reads each blob where law.toml's `path` says, as written
/// (a workspace's crates may share one blob, `examples/fide-arbiter`; a crate's build script
/// runs that crate's code anyway). The commands read through [`verify_package`], which holds
/// the path to [`package_file`]'s rule.
pub fn verify_all(project: &Project) -> Result<Vec<VerifiedPackage>, Diagnostics> {
    let mut verified = Vec::new();
    let mut errors = Vec::new();
    for spec in &project.packages {
        match verify_package(project, spec) {
            Ok(v) => verified.push(v),
            Err(d) => errors.extend(d.0),
        }
    }
    if errors.is_empty() {
        Ok(verified)
    } else {
        Err(Diagnostics(errors))
    }
}

/// Verifies one package of the project against its pin in `law.lock`, its blob read where
/// [`package_file`] allows (`clir show --package`, `clir wheel --package`).
pub fn verify_package(project: &Project, spec: &PackageSpec) -> Result<VerifiedPackage, Diagnostics> {
    let path = project.package_file(spec).map_err(|m| Diagnostic::new("path", "", m))?;
    verify_at(project, spec, path)
}

/// Verifies one package of the project against its pin, its blob read from `path`.
fn verify_at(project: &Project, spec: &PackageSpec, path: PathBuf) -> Result<VerifiedPackage, Diagnostics> {
    let name = &spec.name;
    let Some(pin) = project.lock.pin(name) else {
        return Err(Diagnostic::new(
            "pin",
            "",
            format!("package {name} has no pin in law.lock: review the package, then run `clir lock`"),
        )
        .into());
    };
    let mut errors = Vec::new();
    if pin.version != spec.version {
        errors.push(Diagnostic::new(
            "version",
            "",
            format!(
                "package {name}: version: expected {} (law.lock), found {} (law.toml): review the \
                 package, then run `clir lock --update {name}`",
                pin.version, spec.version
            ),
        ));
    }
    for (field, check, inline, locked) in [
        ("seal", "seal", &spec.seal, &pin.seal),
        ("semanticHash", "semanticHash", &spec.semantic_hash, &pin.semantic_hash),
    ] {
        if let Some(inline) = inline {
            if inline != locked {
                errors.push(Diagnostic::new(
                    check,
                    "",
                    format!("package {name}: {field}: expected {locked} (law.lock), found {inline} (law.toml)"),
                ));
            }
        }
    }
    if !errors.is_empty() {
        return Err(Diagnostics(errors));
    }
    let bytes = read_regular_file(&path).map_err(|e| {
        // A clone that does not commit its blobs fetches them; a build never downloads.
        let hint = if e.kind() == std::io::ErrorKind::NotFound {
            " (`clir fetch` brings the blobs law.lock pins from the project's registry)"
        } else {
            ""
        };
        Diagnostic::new("read", "", format!("package {name}: cannot read {}: {e}{hint}", spec.path.display()))
    })?;
    let report = verify::verify_bytes(&bytes, &options_for(project, spec, Some(pin)));
    let warnings = report.warnings().0.iter().map(|d| in_package(name, d)).collect();
    match report.into_document() {
        Ok(document) => Ok(VerifiedPackage { spec: spec.clone(), pin: pin.clone(), document, bytes, warnings }),
        Err(d) => Err(Diagnostics(d.0.iter().map(|d| in_package(name, d)).collect())),
    }
}

/// `d` as `package NAME: check: path (node): message`.
pub fn in_package(name: &str, d: &Diagnostic) -> Diagnostic {
    Diagnostic::new(d.check, "", format!("package {name}: {}: {}", d.check, d))
}

/// Where a package's blob lives, relative to the project root, unless law.toml's `path` says
/// otherwise: `sources/<name>-<version>.lawir.json`.
pub fn default_blob_path(name: &str, version: &str) -> PathBuf {
    PathBuf::from(format!("sources/{name}-{version}.lawir.json"))
}

/// Where package `name`'s blob is: `rel` (law.toml's `path`, or [`default_blob_path`]) under
/// the project folder `root`, when it keeps to the one rule for a package path
/// (docs/SECURITY.md, "Package paths"), which `clir fetch` (before it writes), `clir lock`,
/// `clir show --package`, `clir wheel --package` and `clir add` (before they read or write)
/// apply: `rel` is relative, without `..` (and without a root or a drive), and, once every link
/// on the way is followed, the longest part of it that exists lies inside `root` (its links
/// followed too), so no link leads out of the project, and a link that leads nowhere (which a
/// write would follow) is refused. The error names the package and the path; `Ok` is
/// `root/rel`. Links changed between this check and the read or write are not guarded against.
pub fn package_file(root: &Path, name: &str, rel: &Path) -> Result<PathBuf, String> {
    use std::path::Component;
    let out = |why: String| format!("package {name}: path {} leads out of the project: {why}", rel.display());
    if rel.as_os_str().is_empty() {
        return Err(format!("package {name}: the path is empty"));
    }
    if rel.components().any(|c| matches!(c, Component::RootDir | Component::Prefix(_))) {
        return Err(out(format!(
            "it is absolute; a package path is relative to the project folder {}",
            root.display()
        )));
    }
    if rel.components().any(|c| c == Component::ParentDir) {
        return Err(out("it holds `..`; a package path stays inside the project folder".into()));
    }
    if !stays_inside(rel) {
        return Err(out("it names no file inside the project folder".into()));
    }
    let full = root.join(rel);
    let root_real =
        std::fs::canonicalize(root).map_err(|e| format!("package {name}: cannot read {}: {e}", root.display()))?;
    // The longest part of the path that exists (a link counts, even one that leads nowhere).
    let mut existing = full.as_path();
    while std::fs::symlink_metadata(existing).is_err() {
        match existing.parent() {
            Some(parent) if parent.starts_with(root) && parent != root => existing = parent,
            _ => return Ok(full),
        }
    }
    match std::fs::canonicalize(existing) {
        Ok(real) if real.starts_with(&root_real) => Ok(full),
        Ok(real) => Err(out(format!(
            "{} is a link to {}, outside the project folder {}",
            existing.display(),
            real.display(),
            root_real.display()
        ))),
        Err(e) => Err(out(format!("{} cannot be followed ({e})", existing.display()))),
    }
}

/// A package name: ASCII letters, digits, `.`, `_`, `-`, not starting with `.`.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(format!("{name:?} is not a package name (ASCII letters, digits, `.`, `_`, `-`)"))
    }
}

/// The longest version: a blob's file name (`NAME-VERSION.lawir.json`) and a registry's index
/// hold it, so thousands of digits are refused here, not by the file system.
pub const MAX_VERSION_BYTES: usize = 64;

/// A version: ASCII letters, digits, `.`, `+`, `-`, starting with a digit, at most
/// [`MAX_VERSION_BYTES`] long. The one version rule of law.toml, law.lock, `clir add` and a
/// registry (`clir registry publish`, and every version an index lists).
pub fn check_version(v: &str) -> Result<(), String> {
    if v.len() > MAX_VERSION_BYTES {
        let head: String = v.chars().take(16).collect();
        return Err(format!("{head:?}… ({} bytes) is not a version: at most {MAX_VERSION_BYTES} bytes", v.len()));
    }
    let ok = v.starts_with(|c: char| c.is_ascii_digit())
        && v.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-'));
    if ok {
        Ok(())
    } else {
        Err(format!("{v:?} is not a version (ASCII letters, digits, `.`, `+`, `-`, starting with a digit)"))
    }
}

/// A hash pin: `sha256:` and 64 lowercase hex digits.
pub fn check_hash(h: &str) -> Result<(), String> {
    let hex = h.strip_prefix("sha256:").unwrap_or("");
    if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
        Ok(())
    } else {
        Err(format!("expected sha256: and 64 lowercase hex digits, found {h:?}"))
    }
}

/// A TOML syntax or shape error, located by line and column.
fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> Diagnostics {
    let at = match e.span() {
        Some(span) => {
            let before = &text.as_bytes()[..span.start.min(text.len())];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let col = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
            format!("{file}:{line}:{col}")
        }
        None => file.to_string(),
    };
    Diagnostic::new(CHECK, "", format!("{at}: {}", e.message().trim_end())).into()
}
