//! `clir add PACKAGE [--root DIR] [--update]`: verifies a package file, copies it byte-exact to
//! `sources/<name>-<version>.lawir.json`, lists it in law.toml and pins it in law.lock, printing
//! the pin for review. A package that does not verify is refused; so is a package that would
//! change what is already listed, pinned or stored under its name, unless `--update`. Nothing is
//! written until every check passed; each file is replaced whole (written beside, then renamed),
//! and a failed write undoes the ones before it.
//!
//! law.toml is edited as a TOML document (toml_edit): one entry is appended to its
//! `[dependencies]` table (or, with `--update`, the package's own entry gets the new version in
//! place), so its comments, order and layout stay as they were; the result is parsed again and
//! must list exactly the packages it listed before plus this one.

use super::registry;
use super::{note, print_lines, report_lines, stdout_failed, CANNOT_RUN, FAILURE, OK};
use clap::Args;
use clir::outfile::write_atomically;
use clir_codegen::project::{self, read_regular_file, Lock, PackageSpec, Pin, LOCKFILE, MANIFEST};
use clir_codegen::verify::{verify_bytes, Outcome, Report, Verified, VerifyOptions};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use toml_edit::{DocumentMut, Item, Key, Table, TableLike};

/// Options of `clir add`.
#[derive(Args, Debug)]
pub struct AddArgs {
    /// The package file (`NAME-VERSION.lawir.json`, from anywhere; it is copied into sources/),
    /// or `NAME@VERSION` (`NAME`: the newest version not yanked) from the project's registry
    /// (`CLIR_REGISTRY` or law.toml's `[registry] url`, docs/REGISTRY.md).
    #[arg(value_name = "PACKAGE")]
    pub package: PathBuf,
    /// The project folder, holding law.toml (created when missing), law.lock and sources/
    /// [default: the current folder]. metadata.localSources paths are resolved against it.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Replace what the project holds under the package's name when it differs (another
    /// version or seal in law.toml, law.lock or sources/); without it such a change is refused.
    #[arg(long)]
    pub update: bool,
    /// The seal the publisher gives (its page, `sha256:` of the file): a file that does not
    /// match is refused. Without it, the pin is the file's own seal, compared with nothing.
    #[arg(long, value_name = "H")]
    pub seal: Option<String>,
    /// The semanticHash the publisher gives: a file that declares another is refused.
    #[arg(long = "semantic-hash", value_name = "H")]
    pub semantic_hash: Option<String>,
}

/// The law.toml `clir add` writes when there is none.
const NEW_MANIFEST: &str = "# The law packages this project compiles in, each `\"NAME\" = \"VERSION\"` with its blob at
# sources/NAME-VERSION.lawir.json and its pins in law.lock (README.md \"Use clir from your own
# crate\"). Add one with `clir add PACKAGE.lawir.json`; after editing by hand, run `clir lock`.

[dependencies]
";

/// Runs the command: 0 when the package was added (or already was), 1 when it was refused (it
/// does not verify, law.toml cannot list its name, or it changes a pin without `--update`), 2
/// when a file cannot be read or written (or law.toml cannot be edited safely).
pub fn run(args: &AddArgs) -> u8 {
    let root = args.root.clone().unwrap_or_else(|| PathBuf::from("."));
    if !root.is_dir() {
        note("add", format_args!("{} is not a folder", root.display()));
        return CANNOT_RUN;
    }
    match add(args, &root) {
        Ok(status) | Err(status) => status,
    }
}

/// The steps of [`run`], in order; a step that refuses ends the command (`Err`) with its exit
/// status, having said why.
fn add(args: &AddArgs, root: &Path) -> Result<u8, u8> {
    let fetched = fetch(args, root)?;
    let bytes = &fetched.bytes;

    // 1. The package verifies.
    let (document, warnings) = verify(args, root, &fetched)?;
    // Source texts the package names that the project lacks, found beside the package file with
    // the documentHash the package declares: they are copied with it (their warnings go).
    let texts = source_texts(root, &args.package, &document);
    let warnings: Vec<_> =
        warnings.0.into_iter().filter(|w| !texts.iter().any(|t| w.node.as_deref() == Some(t.id.as_str()))).collect();
    let new = Pin::of(&document, bytes);
    let (name, version) = (new.name.as_str(), new.version.as_str());
    let line = |status: &str, text: String| format!("{status:<7} {name} {version}: {text}");
    let mut lines: Vec<String> = warnings.iter().map(|w| line("warn", format!("{}: {}", w.check, w))).collect();

    // 2. law.toml can list it: the entry, parsed as law.toml parses it (name and version checks).
    let entry = format!("{} = {}", toml_string(name), toml_string(version));
    let spec = match project::parse_manifest(&format!("[dependencies]\n{entry}\n")) {
        Ok(mut specs) if specs.len() == 1 => specs.remove(0),
        Ok(_) => unreachable!("one entry is one package"),
        Err(errors) => {
            lines.extend(errors.0.iter().map(|d| line("FAIL", d.to_string())));
            let _ = print_lines(lines);
            note("add", format_args!("law.toml cannot list package {name:?} {version:?}; nothing written"));
            return Err(FAILURE);
        }
    };

    // 3. What the project holds now.
    let held = match Held::read(root) {
        Ok(held) => held,
        Err(e) => return Err(cannot_run(lines, e)),
    };
    let old_spec = held.listed.iter().find(|p| p.name == name);
    let old_pin = held.lock.pin(name);
    // The law.toml entry stays when it asks for this version and its inline pins (if any) agree;
    // the blob then lives where it says.
    let keep_entry = old_spec.filter(|s| {
        s.version == version
            && s.seal.as_ref().is_none_or(|h| *h == new.seal)
            && s.semantic_hash.as_ref().is_none_or(|h| *h == new.semantic_hash)
    });
    let blob_rel = keep_entry.map_or(&spec.path, |s| &s.path).clone();
    // The rule of package paths (relative, no `..`, no link out of the project), before the
    // blob is read or written.
    let blob_path = match project::package_file(root, name, &blob_rel) {
        Ok(path) => path,
        Err(e) => return Err(cannot_run(lines, e)),
    };
    let old_blob = match read_regular_file(&blob_path) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(e) => return Err(cannot_run(lines, format!("cannot read {}: {e}", blob_path.display()))),
    };

    // 4. A change of what is listed, pinned or stored under this name needs --update.
    let changes = changes(root, &held, &new, bytes, &blob_rel, old_blob.as_deref());
    let status = if changes.is_empty() { "added" } else { "updated" };
    if !changes.is_empty() && !args.update {
        lines.extend(changes.iter().map(|c| line("changed", c.clone())));
        lines.push(line(
            "FAIL",
            format!("the pin changed: review the package, then run `clir add --update {}`", args.package.display()),
        ));
        let _ = print_lines(lines);
        note("add", "nothing written");
        return Err(FAILURE);
    }
    lines.extend(changes.iter().map(|c| line(status, c.clone())));

    // 5. The new texts, checked before anything is written.
    let write_blob = old_blob.as_deref() != Some(bytes.as_slice());
    let new_lock = (old_pin != Some(&new)).then(|| {
        let mut packages: Vec<Pin> = held.lock.packages.iter().filter(|p| p.name != name).cloned().collect();
        packages.push(new.clone());
        Lock { packages }
    });
    let new_manifest = match keep_entry {
        Some(_) => None,
        None => match held.listing(name, version, &spec, &entry) {
            Ok(edited) => Some(edited),
            Err(e) => return Err(cannot_run(lines, e)),
        },
    };

    if !write_blob && new_lock.is_none() && new_manifest.is_none() && texts.is_empty() {
        lines.push(line("ok", format!("already added (seal {}, semanticHash {})", new.seal, new.semantic_hash)));
        if let Err(e) = print_lines(lines) {
            return Err(stdout_failed("add", &e));
        }
        note("add", format_args!("{name} {version} is already added; nothing written"));
        return Ok(OK);
    }
    lines.push(line(status, format!("seal {}, semanticHash {}", new.seal, new.semantic_hash)));
    if fetched.from_registry {
        lines.push(line("note", "the pin is the seal the registry's index gives, and the blob hashes to it".into()));
    } else if args.seal.is_none() {
        lines.push(line(
            "note",
            "the pin is the file's own seal, compared with nothing: check it against the publisher's page \
             (or add with --seal H)"
                .into(),
        ));
    }

    // 6. The writes: the blob, then law.lock, then law.toml (which makes the build use them).
    let writes = Writes {
        root,
        name,
        blob: write_blob.then_some(Blob { path: &blob_path, rel: &blob_rel, bytes, old: old_blob }),
        texts: &texts,
        lock: new_lock.as_ref(),
        manifest: new_manifest.as_ref().map(|(text, was)| (text.as_str(), was.as_deref(), entry.as_str())),
    };
    writes.write(&held, &mut lines)?;
    if let Err(e) = print_lines(lines) {
        note("add", format_args!("{status} {name} {version}, but its pin could not be shown"));
        return Err(stdout_failed("add", &e));
    }
    note("add", format_args!("{status} {name} {version}: review the pin, then commit law.toml, law.lock and the blob"));
    Ok(OK)
}

/// A package's bytes as `clir add` was given them, and the pins to verify them against.
struct Fetched {
    bytes: Vec<u8>,
    /// The seal to verify against: `--seal`, or the registry index's.
    seal: Option<String>,
    /// The semanticHash to verify against: `--semantic-hash`, or the registry index's.
    semantic_hash: Option<String>,
    /// The name and version the registry's index gives the blob: the document must say the same.
    indexed: Option<(String, String)>,
    /// Whether the bytes came from the project's registry (`NAME@VERSION`, `NAME`).
    from_registry: bool,
}

/// The package `args` names: a file, or `NAME@VERSION` (`NAME`: the newest not yanked) from the
/// project's registry, whose index gives the publisher's seal and semanticHash to verify
/// against.
fn fetch(args: &AddArgs, root: &Path) -> Result<Fetched, u8> {
    let (seal, semantic_hash) = (args.seal.clone(), args.semantic_hash.clone());
    let text = args.package.to_string_lossy();
    let Some((name, version)) = registry::package_request(&text).filter(|_| !args.package.exists()) else {
        return match read_regular_file(&args.package) {
            Ok(bytes) => Ok(Fetched { bytes, seal, semantic_hash, indexed: None, from_registry: false }),
            Err(e) => {
                note("add", format_args!("cannot read {}: {e}", args.package.display()));
                Err(CANNOT_RUN)
            }
        };
    };
    let fetched = registry::Registry::for_project(root).and_then(|r| {
        let index = r.index(name)?;
        let release = index.pick(version)?.clone();
        Ok((r.blob(&release.seal)?, release))
    });
    match fetched {
        Ok((bytes, release)) => {
            let _ = print_lines([format!("fetched {name} {} ({})", release.version, release.seal)]);
            Ok(Fetched {
                bytes,
                seal: Some(seal.unwrap_or(release.seal)),
                semantic_hash: Some(semantic_hash.unwrap_or(release.semantic_hash)),
                indexed: Some((name.to_string(), release.version)),
                from_registry: true,
            })
        }
        Err(msg) => {
            note("add", format_args!("{text}: {msg}"));
            Err(CANNOT_RUN)
        }
    }
}

/// The package verified, with its warnings; or, when it does not verify, the report printed
/// and the command refused. From a registry, the document's name and version are compared with
/// the index's: an index that lists the 0.1.0 blob as 0.2.0 is refused.
fn verify(args: &AddArgs, root: &Path, fetched: &Fetched) -> Result<(Verified, clir_codegen::Diagnostics), u8> {
    let options = VerifyOptions {
        root: Some(root.to_path_buf()),
        seal: fetched.seal.clone(),
        semantic_hash: fetched.semantic_hash.clone(),
        name: fetched.indexed.as_ref().map(|(name, _)| name.clone()),
        version: fetched.indexed.as_ref().map(|(_, version)| version.clone()),
        ..VerifyOptions::default()
    };
    let report = verify_bytes(&fetched.bytes, &options);
    if !report.ok() {
        let _ = print_lines(report_lines(&not_passed(&report)));
        let failed = report.failed_checks().len();
        if let Some((name, version)) = &fetched.indexed {
            let said = report.document.as_ref().map(|d| (d.package.name.as_str(), d.package.version.as_str()));
            if said != Some((name.as_str(), version.as_str())) {
                note(
                    "add",
                    format_args!(
                        "the registry's index lists this blob as {name} {version}; the package must say the same"
                    ),
                );
            }
        }
        note(
            "add",
            format_args!(
                "{}: does not verify ({failed} of {} checks failed); nothing written",
                args.package.display(),
                report.checks.len()
            ),
        );
        return Err(FAILURE);
    }
    let warnings = report.warnings();
    match report.into_document() {
        Ok(d) => Ok((d, warnings)),
        Err(errors) => {
            for d in &errors.0 {
                note("add", d);
            }
            Err(FAILURE)
        }
    }
}

/// What the project holds now: law.toml (its text, when there is one, and the packages it
/// lists) and law.lock.
struct Held {
    manifest_path: PathBuf,
    lock_path: PathBuf,
    manifest: Option<String>,
    listed: Vec<PackageSpec>,
    lock: Lock,
}

impl Held {
    /// Reads law.toml and law.lock under `root` (either may be missing); the error says which
    /// could not be read or parsed.
    fn read(root: &Path) -> Result<Held, String> {
        let manifest_path = root.join(MANIFEST);
        let lock_path = root.join(LOCKFILE);
        let manifest = match std::fs::read_to_string(&manifest_path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == ErrorKind::NotFound => None,
            Err(e) => return Err(format!("cannot read {}: {e}", manifest_path.display())),
        };
        let listed = match manifest.as_deref().map(project::parse_manifest) {
            None => Vec::new(),
            Some(Ok(listed)) => listed,
            Some(Err(errors)) => return Err(joined(&errors)),
        };
        let lock = match std::fs::read_to_string(&lock_path) {
            Ok(text) => Lock::parse(&text).map_err(|errors| joined(&errors))?,
            Err(e) if e.kind() == ErrorKind::NotFound => Lock::default(),
            Err(e) => return Err(format!("cannot read {}: {e}", lock_path.display())),
        };
        Ok(Held { manifest_path, lock_path, manifest, listed, lock })
    }

    /// law.toml listing package `name` `version` (`spec`, its line `entry`), edited as little as
    /// it takes, and the entry it replaced; an error when the edit would change anything else it
    /// lists.
    fn listing(
        &self,
        name: &str,
        version: &str,
        spec: &PackageSpec,
        entry: &str,
    ) -> Result<(String, Option<String>), String> {
        let text = self.manifest.as_deref().unwrap_or(NEW_MANIFEST);
        let edited = list_package(text, name, version);
        let mut expected: Vec<PackageSpec> = self.listed.iter().filter(|p| p.name != name).cloned().collect();
        expected.push(spec.clone());
        expected.sort_by(|a, b| a.name.cmp(&b.name));
        match edited {
            Some((text, was)) if project::parse_manifest(&text).as_ref() == Ok(&expected) => Ok((text, was)),
            _ => Err(format!(
                "cannot edit {} without changing the rest of it: add the line {entry} to its \
                 [dependencies] by hand, then run `clir lock`",
                self.manifest_path.display()
            )),
        }
    }
}

/// What adding `new` (its `bytes`, stored at `blob_rel`, where the project holds `old_blob`)
/// changes of what law.toml lists, law.lock pins and the project stores under its name; when
/// anything, also what the new version changes in meaning, against the blob the project holds
/// (at the listed path, or at the old version's own). Empty when nothing changes.
fn changes(root: &Path, held: &Held, new: &Pin, bytes: &[u8], blob_rel: &Path, old_blob: Option<&[u8]>) -> Vec<String> {
    let name = new.name.as_str();
    let old_spec = held.listed.iter().find(|p| p.name == name);
    let old_pin = held.lock.pin(name);
    let mut changes = Vec::new();
    if let Some(old) = old_spec {
        for (field, was, now) in [
            ("version", Some(&old.version), &new.version),
            ("seal", old.seal.as_ref(), &new.seal),
            ("semanticHash", old.semantic_hash.as_ref(), &new.semantic_hash),
        ] {
            if let Some(was) = was.filter(|was| *was != now) {
                changes.push(format!("{MANIFEST} {field}: old {was}, new {now}"));
            }
        }
    }
    if let Some(old) = old_pin {
        for (field, was, now) in [
            ("version", &old.version, &new.version),
            ("seal", &old.seal, &new.seal),
            ("semanticHash", &old.semantic_hash, &new.semantic_hash),
        ] {
            if was != now {
                changes.push(format!("{LOCKFILE} {field}: old {was}, new {now}"));
            }
        }
    }
    if let Some(old) = old_blob.filter(|old| *old != bytes) {
        let (was, now) = (clir_codegen::canonical::seal(old), &new.seal);
        changes.push(format!("{} seal: old {was}, new {now}", blob_rel.display()));
    }
    if !changes.is_empty() {
        let old_paths = old_spec
            .map(|s| s.path.clone())
            .into_iter()
            .chain(old_pin.map(|p| project::default_blob_path(name, &p.version)))
            .filter_map(|rel| project::package_file(root, name, &rel).ok());
        let old_bytes =
            old_blob.map(<[u8]>::to_vec).or_else(|| old_paths.filter_map(|p| read_regular_file(&p).ok()).next());
        match old_bytes.as_deref().and_then(|old| super::meaning::changed_nodes(old, bytes)) {
            Some(nodes) if nodes.is_empty() => changes.push("no executable node changed".into()),
            Some(nodes) => changes.extend(nodes),
            None => changes.push(super::meaning::OLD_BLOB_GONE.into()),
        }
    }
    changes
}

/// The package file `clir add` writes.
struct Blob<'a> {
    /// Where.
    path: &'a Path,
    /// Where, under the project's root.
    rel: &'a Path,
    bytes: &'a [u8],
    /// What the path held before.
    old: Option<Vec<u8>>,
}

/// The files `clir add` writes, each only when it changes.
struct Writes<'a> {
    root: &'a Path,
    /// The package's name.
    name: &'a str,
    /// The blob.
    blob: Option<Blob<'a>>,
    /// The source texts to copy.
    texts: &'a [SourceText],
    /// The new law.lock.
    lock: Option<&'a Lock>,
    /// The new law.toml: its text, the entry it replaced, and the entry it lists.
    manifest: Option<(&'a str, Option<&'a str>, &'a str)>,
}

impl Writes<'_> {
    /// Writes the blob, the source texts, then law.lock, then law.toml (which makes the build use
    /// them), adding a line for each to `lines`; a failed write undoes the ones before it and
    /// ends the command.
    fn write(self, held: &Held, lines: &mut Vec<String>) -> Result<(), u8> {
        let shown = |rel: &Path| {
            if self.root == Path::new(".") {
                rel.display().to_string()
            } else {
                self.root.join(rel).display().to_string()
            }
        };
        let mut undo = Undo::default();
        if let Some(blob) = self.blob {
            let result =
                undo.create_dirs(blob.path.parent()).and_then(|()| undo.write(blob.path, blob.bytes, blob.old));
            if let Err(e) = result {
                return Err(undo.failed(std::mem::take(lines), format!("cannot write {}: {e}", blob.path.display())));
            }
            lines.push(format!("{:<7} {} ({} bytes)", "wrote", shown(blob.rel), blob.bytes.len()));
        }
        for text in self.texts {
            let dest = match project::package_file(self.root, self.name, &text.rel) {
                Ok(dest) => dest,
                Err(e) => return Err(undo.failed(std::mem::take(lines), e)),
            };
            let result = undo.create_dirs(dest.parent()).and_then(|()| undo.write(&dest, &text.bytes, None));
            if let Err(e) = result {
                return Err(undo.failed(std::mem::take(lines), format!("cannot write {}: {e}", dest.display())));
            }
            let from = text.from.display();
            lines.push(format!("{:<7} {} ({} bytes, from {from})", "wrote", shown(&text.rel), text.bytes.len()));
        }
        if let Some(new_lock) = self.lock {
            let lock_path = &held.lock_path;
            let previous = std::fs::read(lock_path).ok();
            match write_atomically(lock_path, new_lock.to_toml().as_bytes()) {
                Ok(()) => undo.written.push((lock_path.clone(), previous)),
                Err(e) => {
                    let message = format!("cannot write {}: {e}", lock_path.display());
                    return Err(undo.failed(std::mem::take(lines), message));
                }
            }
            lines.push(format!("{:<7} {}", "wrote", shown(Path::new(LOCKFILE))));
        }
        if let Some((text, was, entry)) = self.manifest {
            let manifest_path = &held.manifest_path;
            if let Err(e) = undo.write(manifest_path, text.as_bytes(), held.manifest.clone().map(String::into_bytes)) {
                let message = format!("cannot write {}: {e}", manifest_path.display());
                return Err(undo.failed(std::mem::take(lines), message));
            }
            let was = was.map(|w| format!(" (was {w})")).unwrap_or_default();
            lines.push(format!("{:<7} {}: {entry}{was}", "wrote", shown(Path::new(MANIFEST))));
        }
        Ok(())
    }
}

/// A source text to copy into the project with its package.
struct SourceText {
    /// The publication's node id.
    id: String,
    /// Its path under the project root (`metadata.localSources`).
    rel: PathBuf,
    /// Where it was found.
    from: PathBuf,
    bytes: Vec<u8>,
}

/// How many folders up from the package file a source text is looked for: the package's own
/// folder, then up to the project it came from (`<project>/sources/NAME.lawir.json` names
/// `sources/...` texts relative to `<project>`).
const SOURCE_SEARCH_DEPTH: usize = 3;

/// The source texts `document` names that `root` lacks and that are found, at the same relative
/// path, in the package file's folder or one of the folders above it, with the sha256 its
/// publication declares (a text that does not match is left where it is).
fn source_texts(root: &Path, package: &Path, document: &clir_codegen::ir::Document) -> Vec<SourceText> {
    use clir_codegen::ir::NodeKind;
    let Some(dir) = std::fs::canonicalize(package).ok().and_then(|p| p.parent().map(Path::to_path_buf)) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (id, rel) in &document.local_sources {
        let rel = PathBuf::from(rel);
        if !project::stays_inside(&rel) || std::fs::symlink_metadata(root.join(&rel)).is_ok() {
            continue;
        }
        let declared = document.nodes.iter().find_map(|n| match &n.kind {
            NodeKind::Publication(p) if n.id == *id => p.document_hash.clone(),
            _ => None,
        });
        let Some(declared) = declared else { continue };
        let hit = dir.ancestors().take(SOURCE_SEARCH_DEPTH).find_map(|a| {
            let from = a.join(&rel);
            let bytes = read_regular_file(&from).ok()?;
            (clir_codegen::canonical::sha256_hex(&bytes) == declared).then_some((from, bytes))
        });
        if let Some((from, bytes)) = hit {
            found.push(SourceText { id: id.clone(), rel, from, bytes });
        }
    }
    found
}

/// The checks that did not pass (failed or warned), in report order.
fn not_passed(report: &Report) -> Report {
    let shown = |c: &&clir_codegen::verify::Check| matches!(c.outcome, Outcome::Fail | Outcome::Warn);
    Report { checks: report.checks.iter().filter(shown).cloned().collect(), document: None, symbols: None }
}

/// `s` as a TOML basic string. A JSON string is one: the escapes serde_json writes (`\"`, `\\`,
/// `\n`, `\t`, `\r`, `\b`, `\f`, `\u00XX`) are TOML's.
fn toml_string(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

fn joined(errors: &clir_codegen::Diagnostics) -> String {
    errors.0.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n")
}

/// Prints the lines gathered so far, then the reason the command cannot run.
fn cannot_run(lines: Vec<String>, message: String) -> u8 {
    let _ = print_lines(lines);
    for m in message.lines() {
        note("add", m);
    }
    note("add", "nothing written");
    CANNOT_RUN
}

/// The files and folders written so far, to remove or restore when a later write fails.
#[derive(Default)]
struct Undo {
    /// Each file written and what it held before (`None`: it did not exist).
    written: Vec<(PathBuf, Option<Vec<u8>>)>,
    /// Folders created, outermost first.
    created: Vec<PathBuf>,
}

impl Undo {
    fn create_dirs(&mut self, dir: Option<&Path>) -> std::io::Result<()> {
        let Some(dir) = dir.filter(|d| !d.as_os_str().is_empty()) else { return Ok(()) };
        let missing: Vec<PathBuf> = dir.ancestors().take_while(|d| !d.exists()).map(Path::to_path_buf).collect();
        std::fs::create_dir_all(dir)?;
        self.created.extend(missing.into_iter().rev());
        Ok(())
    }

    fn write(&mut self, path: &Path, bytes: &[u8], previous: Option<Vec<u8>>) -> std::io::Result<()> {
        write_atomically(path, bytes)?;
        self.written.push((path.to_path_buf(), previous));
        Ok(())
    }

    /// Undoes every write (newest first), reports `message` and returns the exit status.
    fn failed(self, lines: Vec<String>, message: String) -> u8 {
        for (path, previous) in self.written.iter().rev() {
            let undone = match previous {
                None => std::fs::remove_file(path),
                Some(bytes) => write_atomically(path, bytes),
            };
            if let Err(e) = undone {
                note("add", format_args!("cannot restore {}: {e}", path.display()));
            }
        }
        for dir in self.created.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
        cannot_run(lines, message)
    }
}

/// The TOML keys that lead from `[dependencies]` to the entry that lists `name`, as law.toml's
/// parser reads them (`clir_codegen::project`): a registry page's unquoted dotted key
/// (`fide.laws.chess = "0.1.0"`) and a quoted `"fide.laws.chess"` both name `fide.laws.chess`.
/// Only a step of a dotted key or an implicit table (`[a.b]` makes `a`) is a step of a name.
fn entry_keys(deps: &dyn TableLike, name: &str) -> Option<Vec<Key>> {
    for (key, item) in deps.iter() {
        let key = deps.key(key)?.clone();
        let inner = match item {
            Item::Table(t) if t.is_dotted() || t.is_implicit() => Some(t as &dyn TableLike),
            Item::Value(toml_edit::Value::InlineTable(t)) if t.is_dotted() => Some(t as _),
            _ => None,
        };
        match inner {
            None if key.get() == name => return Some(vec![key]),
            None => {}
            Some(inner) => {
                let Some(rest) = name.strip_prefix(key.get()).and_then(|r| r.strip_prefix('.')) else { continue };
                if let Some(mut keys) = entry_keys(inner, rest) {
                    keys.insert(0, key);
                    return Some(keys);
                }
            }
        }
    }
    None
}

/// law.toml's `text` with package `name` listed at `version` under `[dependencies]` (created,
/// after what the file holds, when it has none), edited as a TOML document so its comments, key
/// order and layout stay as written: a new entry `"NAME" = "VERSION"` follows the table's last
/// key; an entry that lists `name` already (quoted or dotted, a version or an inline table) gets
/// the version as its value, in place, its key and trailing comment kept. Also the entry it
/// replaced, as it was written. `None` when the text does not parse as TOML, or lists the package
/// as a table of its own (`[dependencies."NAME"]`, left for a person to edit). A file whose lines
/// end in CRLF keeps them.
fn list_package(text: &str, name: &str, version: &str) -> Option<(String, Option<String>)> {
    let mut doc: DocumentMut = text.parse().ok()?;
    let was = if doc.contains_key("dependencies") {
        let deps = doc.get_mut("dependencies")?.as_table_like_mut()?;
        match entry_keys(deps, name) {
            Some(keys) => {
                let (last, steps) = keys.split_last()?;
                let mut table = deps;
                for key in steps {
                    table = table.get_mut(key.get())?.as_table_like_mut()?;
                }
                let Item::Value(value) = table.get_mut(last.get())? else { return None };
                let path: Vec<String> = keys.iter().map(|k| k.display_repr().into_owned()).collect();
                let was = format!("{} = {}", path.join("."), value.to_string().trim());
                let decor = value.decor().clone();
                *value = toml_edit::Value::from(version);
                *value.decor_mut() = decor;
                Some(was)
            }
            None => {
                let key: Key = toml_string(name).parse().ok()?;
                deps.entry_format(&key).or_insert(toml_edit::value(version));
                None
            }
        }
    } else {
        // What follows the last table (here: comments) is the document's trailing text, printed
        // after every table: it goes before the new table instead, a blank line between.
        let trailing = doc.trailing().as_str().unwrap_or_default().to_string();
        let mut table = Table::new();
        if !trailing.trim().is_empty() {
            let eol = if trailing.ends_with('\n') { "" } else { "\n" };
            table.decor_mut().set_prefix(format!("{trailing}{eol}\n"));
            doc.set_trailing("");
        }
        let key: Key = toml_string(name).parse().ok()?;
        table.insert_formatted(&key, toml_edit::value(version));
        doc.insert("dependencies", Item::Table(table));
        None
    };
    let mut out = doc.to_string();
    if text.contains("\r\n") {
        // toml_edit ends the lines it writes with LF, and keeps the CRLF of comment lines.
        out = out.replace("\r\n", "\n").replace('\n', "\r\n");
    }
    Some((out, was))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` with `b.pkg` 0.2.0 listed, and what it replaced.
    fn list(text: &str) -> (String, Option<String>) {
        let (out, was) = list_package(text, "b.pkg", "0.2.0").expect("law.toml can be edited");
        let listed = project::parse_manifest(&out).expect("the result parses");
        assert!(listed.iter().any(|p| p.name == "b.pkg" && p.version == "0.2.0"), "{out}");
        (out, was)
    }

    #[test]
    fn an_entry_goes_after_the_last_key_of_dependencies() {
        let text = "# head\n[dependencies]\n\"a.pkg\" = \"0.1.0\" # why\n\n# about the next\n";
        assert_eq!(
            list(text),
            (
                "# head\n[dependencies]\n\"a.pkg\" = \"0.1.0\" # why\n\"b.pkg\" = \"0.2.0\"\n\n# about the next\n"
                    .into(),
                None
            )
        );
        assert_eq!(list("[ dependencies ] # x").0, "[ dependencies ] # x\n\"b.pkg\" = \"0.2.0\"\n");
        assert_eq!(list("[dependencies]\n").0, "[dependencies]\n\"b.pkg\" = \"0.2.0\"\n");
    }

    #[test]
    fn comments_blank_lines_and_order_are_kept() {
        let text = "# Our laws.\n\n[dependencies]\n# z first, on purpose\n\"z.pkg\" = \"1.0.0\"   # pinned\n\n\
                    # a second\n'a.pkg' = { version = \"0.1.0\" }\n\n\n# the end\n";
        let (out, was) = list(text);
        assert_eq!(
            out,
            "# Our laws.\n\n[dependencies]\n# z first, on purpose\n\"z.pkg\" = \"1.0.0\"   # pinned\n\n\
             # a second\n'a.pkg' = { version = \"0.1.0\" }\n\"b.pkg\" = \"0.2.0\"\n\n\n# the end\n"
        );
        assert_eq!(was, None);
    }

    #[test]
    fn a_table_is_created_when_missing() {
        assert_eq!(list("").0, "[dependencies]\n\"b.pkg\" = \"0.2.0\"\n");
        assert_eq!(list("# only a comment").0, "# only a comment\n\n[dependencies]\n\"b.pkg\" = \"0.2.0\"\n");
        assert_eq!(list("# one\n\n# two\n").0, "# one\n\n# two\n\n[dependencies]\n\"b.pkg\" = \"0.2.0\"\n");
    }

    #[test]
    fn an_entry_is_replaced_in_place() {
        let text = "[dependencies]\n\"a.pkg\" = \"0.1.0\"\n  'b.pkg' = \"0.1.0\"   # pinned for the 2023 rules\n\"c.pkg\" = \"1.0.0\"\n";
        assert_eq!(
            list(text),
            (
                "[dependencies]\n\"a.pkg\" = \"0.1.0\"\n  'b.pkg' = \"0.2.0\"   # pinned for the 2023 rules\n\"c.pkg\" = \"1.0.0\"\n"
                    .into(),
                Some("'b.pkg' = \"0.1.0\"   # pinned for the 2023 rules".into())
            )
        );
        // An inline table (with pins of the old version) becomes the version.
        let text = "[dependencies]\n\"b.pkg\" = { version = \"0.1.0\", seal = \"sha256:00\" } # x\n";
        assert_eq!(
            list(text),
            (
                "[dependencies]\n\"b.pkg\" = \"0.2.0\" # x\n".into(),
                Some("\"b.pkg\" = { version = \"0.1.0\", seal = \"sha256:00\" } # x".into())
            )
        );
        // A table of its own is left for a person to edit.
        assert!(list_package("[dependencies.\"b.pkg\"]\nversion = \"0.1.0\"\n", "b.pkg", "0.2.0").is_none());
        assert!(list_package("[dependencies\n", "b.pkg", "0.2.0").is_none());
    }

    #[test]
    fn a_dotted_entry_is_the_same_package() {
        let text = "[dependencies]\nfide.laws.chess = \"0.1.0\" # from the registry page\nfide.laws.go = \"1.0.0\"\n";
        let (out, was) = list_package(text, "fide.laws.chess", "0.2.0").unwrap();
        assert_eq!(
            out,
            "[dependencies]\nfide.laws.chess = \"0.2.0\" # from the registry page\nfide.laws.go = \"1.0.0\"\n"
        );
        assert_eq!(was.as_deref(), Some("fide.laws.chess = \"0.1.0\" # from the registry page"));
        let names: Vec<_> = project::parse_manifest(&out).unwrap().into_iter().map(|p| (p.name, p.version)).collect();
        assert_eq!(names, [("fide.laws.chess".into(), "0.2.0".into()), ("fide.laws.go".into(), "1.0.0".into())]);
        // Another package under the same dotted prefix is a new entry, not a step into it.
        let (out, was) = list_package(text, "fide.laws", "0.3.0").unwrap();
        assert!(out.ends_with("fide.laws.go = \"1.0.0\"\n\"fide.laws\" = \"0.3.0\"\n") && was.is_none(), "{out}");
        // A quoted key names the package a dotted one would.
        let (out, _) =
            list_package("[dependencies]\n\"fide.laws.chess\" = \"0.1.0\"\n", "fide.laws.chess", "0.2.0").unwrap();
        assert_eq!(out, "[dependencies]\n\"fide.laws.chess\" = \"0.2.0\"\n");
    }

    #[test]
    fn dependencies_written_other_ways_take_the_entry() {
        // Only a package's own table: `[dependencies]` appears, before it (and its comment).
        assert_eq!(
            list("# x\n[dependencies.\"a.pkg\"]\nversion = \"0.1.0\"\n").0,
            "[dependencies]\n\"b.pkg\" = \"0.2.0\"\n# x\n[dependencies.\"a.pkg\"]\nversion = \"0.1.0\"\n"
        );
        assert_eq!(
            list("dependencies.\"a.pkg\" = \"0.1.0\"\n").0,
            "dependencies.\"a.pkg\" = \"0.1.0\"\ndependencies.\"b.pkg\" = \"0.2.0\"\n"
        );
        let (out, _) = list("dependencies = { \"a.pkg\" = \"0.1.0\" }\n");
        assert_eq!(project::parse_manifest(&out).map(|l| l.len()), Ok(2), "{out}");
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let text = "# head\r\n[dependencies]\r\n\"a.pkg\" = \"0.1.0\" # why\r\n\r\n# end\r\n";
        assert_eq!(
            list(text).0,
            "# head\r\n[dependencies]\r\n\"a.pkg\" = \"0.1.0\" # why\r\n\"b.pkg\" = \"0.2.0\"\r\n\r\n# end\r\n"
        );
        assert_eq!(list("[dependencies]\r\n").0, "[dependencies]\r\n\"b.pkg\" = \"0.2.0\"\r\n");
        let (out, was) = list("[dependencies]\r\n\"b.pkg\" = \"0.1.0\"\r\n");
        assert_eq!(
            (out.as_str(), was.as_deref()),
            ("[dependencies]\r\n\"b.pkg\" = \"0.2.0\"\r\n", Some("\"b.pkg\" = \"0.1.0\""))
        );
    }
}
