//! `clir rule --package NAME ...` with a compiled-in package, and `clir run PACKAGE.lawir.json
//! ...`: any package compiled to native code in a cache folder keyed by its seal, then ruled.

use super::package_arg::{PackageArg, PackageRef};
use super::{note, print_lines, report_lines, CANNOT_RUN};
use clap::Args;
use clir::command::RuleArgs;
use clir_codegen::verify::{verify_bytes, VerifyOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Options of `clir rule` and `clir run`, the same command under two names.
#[derive(Args, Debug)]
pub struct RuleCmd {
    #[command(flatten)]
    pub package: PackageArg,
    #[command(flatten)]
    pub args: RuleArgs,
}

/// Options of `clir run`.
pub type RunCmd = RuleCmd;

/// Rules with a package compiled into this binary, or with a package file compiled (cached by
/// seal) as `clir run` compiles it.
pub fn rule(cmd: &RuleCmd) -> u8 {
    match cmd.package.resolve() {
        PackageRef::Compiled(name) => match compiled_package(name) {
            Ok(pkg) => clir::command::rule(pkg, &cmd.args),
            Err(msg) => {
                note("rule", msg);
                CANNOT_RUN
            }
        },
        PackageRef::File(path) => run_file(&path, &cmd.args, "rule"),
    }
}

/// The package of this binary named `name`, or what to say when there is none.
pub fn compiled_package(name: &str) -> Result<&'static dyn clir::Package, String> {
    let packages = crate::packages::compiled_packages();
    match packages.iter().find(|(n, _)| *n == name) {
        Some((_, pkg)) => Ok(*pkg),
        None => {
            let names: Vec<&str> = packages.iter().map(|(n, _)| *n).collect();
            let hint = clir::suggest::did_you_mean(name, names.iter().copied());
            Err(format!("package `{name}` is not compiled in{hint} (compiled in: {})", names.join(", ")))
        }
    }
}

/// The folder compiled packages are cached in: `$CLIR_CACHE_DIR`, else `$XDG_CACHE_HOME/clir`,
/// else `$HOME/.cache/clir`. A variable that is empty is not set (as the XDG specification says);
/// one that is set to a relative path is an error, never a folder under the current one.
pub fn cache_root() -> Result<PathBuf, String> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let (name, dir) = if let Some(d) = var("CLIR_CACHE_DIR") {
        ("CLIR_CACHE_DIR", d)
    } else if let Some(d) = var("XDG_CACHE_HOME") {
        ("XDG_CACHE_HOME", d.join("clir"))
    } else if let Some(h) = var("HOME") {
        ("HOME", h.join(".cache").join("clir"))
    } else {
        return Err("no cache folder: set CLIR_CACHE_DIR (or HOME) to an absolute path".into());
    };
    if !dir.is_absolute() {
        return Err(format!("{name} is {}: the cache folder must be an absolute path", dir.display()));
    }
    Ok(dir)
}

/// Creates the cache folder private (0700) and checks that it is: owned by this user, written by
/// nobody else, and in folders where nobody else can swap it for another (each folder above it
/// belongs to this user or root, and is written by no one else unless, like /tmp, it is sticky:
/// then only the owner of an entry may rename it). A binary from a folder others can write would
/// run their code.
pub fn private_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let meta = std::fs::metadata(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let me = std::fs::metadata("/proc/self").map(|m| m.uid()).unwrap_or(meta.uid());
    if meta.uid() != me {
        return Err(format!(
            "{} belongs to another user (uid {}): refusing to run binaries from it",
            dir.display(),
            meta.uid()
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(format!(
            "{} can be written by others (mode {:o}): refusing to run binaries from it; `chmod 700` it",
            dir.display(),
            meta.mode() & 0o777
        ));
    }
    let real = std::fs::canonicalize(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    // The folders above it as named (a link among them could be swapped) and as they really are.
    for parent in dir.ancestors().skip(1).chain(real.ancestors().skip(1)).filter(|p| !p.as_os_str().is_empty()) {
        let m = std::fs::metadata(parent).map_err(|e| format!("cannot read {}: {e}", parent.display()))?;
        const STICKY: u32 = 0o1000;
        if m.uid() != me && m.uid() != 0 {
            return Err(format!(
                "{} is in {}, which belongs to another user (uid {}): refusing to run binaries from it",
                dir.display(),
                parent.display(),
                m.uid()
            ));
        }
        if m.mode() & 0o022 != 0 && m.mode() & STICKY == 0 {
            return Err(format!(
                "{} is in {}, which others can write (mode {:o}): they could replace the cache; \
                 choose a cache folder in a private folder",
                dir.display(),
                parent.display(),
                m.mode() & 0o7777
            ));
        }
    }
    Ok(())
}

/// The sha256 of a file, `None` when it cannot be read.
fn file_hash(path: &Path) -> Option<String> {
    std::fs::read(path).ok().map(|b| clir_codegen::canonical::sha256_hex(&b))
}

/// The name of a signal that ended a child.
fn signal_name(sig: i32) -> String {
    let name = match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return format!("signal {sig}"),
    };
    format!("{name} (signal {sig})")
}

/// A package file verified and compiled: the binary that rules with it, and its document.
pub struct Built {
    /// The `clir rule`-like binary of the package, in the cache.
    pub binary: PathBuf,
    /// The verified document.
    pub doc: clir_codegen::verify::Verified,
}

/// Reads and verifies the package file `package`: its document and seal. `Err` is the exit
/// status, its reason already written (the failed checks on stdout, a note on stderr).
pub fn verified(package: &Path, command: &str) -> Result<(clir_codegen::verify::Verified, String), u8> {
    let bytes = match clir_codegen::project::read_regular_file(package) {
        Ok(b) => b,
        Err(e) => {
            note(command, super::package_arg::unreadable(&package.display().to_string(), &e));
            return Err(CANNOT_RUN);
        }
    };
    let report = verify_bytes(&bytes, &VerifyOptions { root: Some(PathBuf::from(".")), ..Default::default() });
    if !report.ok() {
        // The failures go with the note; a stdout that cannot take them changes nothing here.
        let _ = print_lines(report_lines(&report).into_iter().filter(|l| l.starts_with("FAIL")));
        note(command, format_args!("{} does not verify; nothing was built", package.display()));
        return Err(CANNOT_RUN);
    }
    match report.into_document() {
        Ok(d) => Ok((d, clir_codegen::canonical::seal(&bytes))),
        Err(e) => {
            note(command, e);
            Err(CANNOT_RUN)
        }
    }
}

/// How a package's binary is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Cargo's release profile, a crate per seal: what rules in production (`clir run`).
    Release,
    /// The author's loop (`clir test`): one crate per package name, rebuilt in place for each
    /// version with cargo's incremental compilation and `opt-level = 1`, so that an amended
    /// version builds in seconds; the same generated module, the same rulings (DECISIONS 93).
    Author,
}

impl Profile {
    /// The cargo profile's name (its folder under the target folder).
    fn name(self) -> &'static str {
        match self {
            Profile::Release => "release",
            Profile::Author => "author",
        }
    }
}

/// The `[profile.author]` table of a package crate's manifest ([`Profile::Author`]).
const AUTHOR_PROFILE: &str =
    "[profile.author]\ninherits = \"release\"\nopt-level = 1\nincremental = true\ncodegen-units = 256\n";

/// Verifies `package` and compiles it to native code unless the cache holds its binary (keyed
/// by its seal and by this clir's version and build); `command` names the command in messages.
/// `Err` is the exit status, its reason already written to stderr.
pub fn build(package: &Path, command: &str) -> Result<Built, u8> {
    build_as(package, command, Profile::Release)
}

/// [`build`] in `profile`: for [`Profile::Author`], the binary of the package's name, rebuilt
/// unless it was last built from this seal.
pub fn build_as(package: &Path, command: &str, profile: Profile) -> Result<Built, u8> {
    let (doc, seal) = verified(package, command)?;
    let hex = seal.trim_start_matches("sha256:").to_string();
    let root = cache_root().map_err(|e| {
        note(command, e);
        CANNOT_RUN
    })?;
    if let Err(e) = private_dir(&root) {
        note(command, e);
        return Err(CANNOT_RUN);
    }
    // Keyed by the package's seal and by this clir's version and build: an upgraded or rebuilt
    // clir never runs a binary an older one made.
    let name_part = crate_name_part(&doc.package.name);
    let (dir, bin_name) = match profile {
        Profile::Release => {
            (root.join(format!("{}-{}", &hex[..32], super::runtime::identity())), format!("clir-run-{}", &hex[..16]))
        }
        Profile::Author => (
            root.join("author").join(format!("{name_part}-{}", super::runtime::identity())),
            format!("clir-author-{name_part}"),
        ),
    };
    let target = root.join("target");
    let binary = target.join(profile.name()).join(&bin_name);
    let recorded = dir.join("binary.sha256");
    let lock = match lock_cache(&root) {
        Ok(f) => f,
        Err(e) => {
            note(command, e);
            return Err(CANNOT_RUN);
        }
    };
    // The binary's hash, and the seal it was built from (one crate serves every version of a
    // package in the author's profile).
    let stamp = |binary_hash: &str| format!("{binary_hash} {seal}");
    let fresh = std::fs::read_to_string(&recorded)
        .ok()
        .is_some_and(|h| file_hash(&binary).map(|b| stamp(&b)) == Some(h.trim().to_string()));
    if !fresh {
        let compiled = match clir_codegen::compile(&doc) {
            Ok(c) => c,
            Err(errors) => {
                eprint!("{}", errors.render("error", clir_codegen::Source::of(&doc)));
                return Err(CANNOT_RUN);
            }
        };
        let runtime = match super::runtime::install(&root) {
            Ok(r) => r,
            Err(e) => {
                note(command, format_args!("cannot write the runtime into {}: {e}", root.display()));
                return Err(CANNOT_RUN);
            }
        };
        let max_rules = crate_rules();
        let (source, deps) = if compiled.program.rules.len() > max_rules {
            let prefix = format!("clir_{}", crate_name_part(&doc.package.name));
            let crates = clir_codegen::emit::emit_crates(&compiled, &seal, true, max_rules, &prefix);
            match write_parts(&root, &runtime, &crates) {
                Ok(deps) => (crates.root, deps),
                Err(e) => {
                    note(
                        command,
                        format_args!("cannot write the crates of {} into {}: {e}", doc.package.name, root.display()),
                    );
                    return Err(CANNOT_RUN);
                }
            }
        } else {
            (clir_codegen::emit::emit_with(&compiled, &seal, true), Vec::new())
        };
        drop(compiled);
        if let Err(e) = write_crate(&dir, &runtime, &bin_name, &source, &deps) {
            note(command, format_args!("cannot write {}: {e}", dir.display()));
            return Err(CANNOT_RUN);
        }
        let parts = if deps.is_empty() { String::new() } else { format!(" (and {} crates of its own)", deps.len()) };
        note(command, format_args!("building {} in {}{parts}", doc.package.name, dir.display()));
        let ours = [root.join("crates"), dir.clone()];
        match cargo_build(&dir, &target, &ours, profile) {
            Ok((rebuilt, of)) => {
                let name = &doc.package.name;
                note(
                    command,
                    format_args!("built {name}: rebuilt {rebuilt} of its {}", clir::suggest::counted(of, "crate")),
                );
            }
            Err(e) => {
                note(command, e);
                return Err(CANNOT_RUN);
            }
        }
        match file_hash(&binary).map(|h| std::fs::write(&recorded, stamp(&h))) {
            Some(Ok(())) => {}
            _ => {
                note(command, format_args!("cannot record the hash of {}", binary.display()));
                return Err(CANNOT_RUN);
            }
        }
    }
    drop(lock);
    Ok(Built { binary, doc })
}

/// `cargo build` in `profile` of the crate in `dir` into `target`, its progress on stderr as
/// cargo writes it; how many of the package's own crates (those whose manifest is under one of
/// `ours`) cargo compiled, and of how many.
fn cargo_build(dir: &Path, target: &Path, ours: &[PathBuf], profile: Profile) -> Result<(u64, u64), String> {
    use std::io::BufRead;
    let mut child = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["build", "--profile", profile.name(), "--message-format=json-render-diagnostics", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let (mut rebuilt, mut of) = (0, 0);
    if let Some(out) = child.stdout.take() {
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            let Ok(msg) = serde_json::from_str::<serde_json::Value>(&line) else { continue };
            if msg["reason"] != "compiler-artifact" {
                continue;
            }
            let manifest = msg["manifest_path"].as_str().map(Path::new);
            if manifest.is_some_and(|m| ours.iter().any(|o| m.starts_with(o))) {
                of += 1;
                rebuilt += u64::from(msg["fresh"] == false);
            }
        }
    }
    match child.wait() {
        Ok(s) if s.success() => Ok((rebuilt, of)),
        Ok(s) => Err(format!("cargo build failed ({s})")),
        Err(e) => Err(format!("cannot run cargo: {e}")),
    }
}

/// The cache's lock, held while a build writes into it: one build at a time per cache, so that
/// two runs (or a run and `clir wheel`) never rewrite a crate under each other.
pub fn lock_cache(root: &Path) -> Result<std::fs::File, String> {
    let path = root.join(".lock");
    std::fs::File::create(&path)
        .and_then(|f| f.lock().map(|()| f))
        .map_err(|e| format!("cannot lock {}: {e}", path.display()))
}

/// The options of `clir rule` as a package binary takes them; `--input`, `--output`,
/// `--certify` and `--coverage` only with `io` (else the binary reads stdin and writes stdout,
/// and `clir diff` refuses the last two).
pub fn child_args(a: &RuleArgs, io: bool) -> Vec<std::ffi::OsString> {
    let mut v: Vec<std::ffi::OsString> = Vec::new();
    if io {
        if let Some(i) = &a.input {
            v.extend(["--input".into(), i.into()]);
        }
        if let Some(o) = &a.output {
            v.extend(["--output".into(), o.into()]);
        }
        if a.certify {
            v.push("--certify".into());
        }
        if let Some(c) = &a.coverage {
            v.extend(["--coverage".into(), c.into()]);
        }
    }
    for g in &a.grants {
        v.extend(["--grant".into(), g.into()]);
    }
    if let Some(flag) = a.explain_flag() {
        v.push(flag.into());
    }
    if a.strict_constants {
        v.push("--strict-constants".into());
    }
    if let Some(l) = &a.lang {
        v.extend(["--lang".into(), l.into()]);
    }
    if let Some(t) = a.threads {
        v.extend(["--threads".into(), t.to_string().into()]);
    }
    v.extend(["--batch".into(), a.batch.to_string().into()]);
    if let Some(n) = a.max_case_tuples {
        v.extend(["--max-case-tuples".into(), n.to_string().into()]);
    }
    v
}

/// The exit status of a package binary that ended with `status`: its own code, or
/// [`CANNOT_RUN`] (said on stderr) when a signal ended it.
pub fn child_status(command: &str, binary: &Path, status: std::process::ExitStatus) -> u8 {
    match status.code() {
        Some(c) => c as u8,
        None => {
            use std::os::unix::process::ExitStatusExt;
            let how = status.signal().map_or_else(|| "no exit status".to_string(), signal_name);
            note(command, format_args!("{} was killed by {how}", binary.display()));
            CANNOT_RUN
        }
    }
}

/// Verifies, compiles (once per seal) and rules with any package file.
pub fn run(cmd: &RunCmd) -> u8 {
    match cmd.package.resolve() {
        PackageRef::Compiled(_) => rule(cmd),
        PackageRef::File(path) => run_file(&path, &cmd.args, "run"),
    }
}

/// Compiles the package file `package` (cached by seal) and rules with it, for `clir COMMAND`.
fn run_file(package: &Path, args: &RuleArgs, command: &str) -> u8 {
    let built = match build(package, command) {
        Ok(b) => b,
        Err(code) => return code,
    };
    match Command::new(&built.binary).args(child_args(args, true)).status() {
        Ok(s) => child_status(command, &built.binary, s),
        Err(e) => {
            note(command, format_args!("cannot run {}: {e}", built.binary.display()));
            CANNOT_RUN
        }
    }
}

/// Rules a crate of a package's evaluation holds at most: a package of more is built as
/// several crates, its strata in groups of at most this many rules (DECISIONS 68). The
/// environment's `CLIR_CRATE_RULES` (a positive number) sets it instead.
const CRATE_RULES: usize = 600;

/// [`CRATE_RULES`], or the environment's `CLIR_CRATE_RULES`.
fn crate_rules() -> usize {
    std::env::var("CLIR_CRATE_RULES").ok().and_then(|v| v.trim().parse().ok()).filter(|&n| n > 0).unwrap_or(CRATE_RULES)
}

/// A package name as part of a crate name: ASCII letters and digits kept (lower-cased), the rest
/// `_`, at most 40 characters.
fn crate_name_part(package: &str) -> String {
    package.chars().take(40).map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect()
}

/// Writes the base, io and group crates of `crates` under `root/crates`, each in a folder named
/// by its name and the hash of its files, written once and whole ([`super::runtime::write_once`]):
/// a crate whose files did not change keeps its folder, so cargo (with the cache's one target
/// folder) does not build it again. The io and group crates depend on the base crate only.
/// Returns each crate's name and folder, the base first.
fn write_parts(
    root: &Path,
    runtime: &Path,
    crates: &clir_codegen::emit::Crates,
) -> std::io::Result<Vec<(String, PathBuf)>> {
    use sha2::{Digest, Sha256};
    let clir = runtime.join("clir").display().to_string();
    let mut written: Vec<(String, PathBuf)> = Vec::new();
    for (name, source) in [&crates.base, &crates.io].into_iter().chain(&crates.groups) {
        let manifest = format!(
            "{}[lib]\npath = \"lib.rs\"\n\n[dependencies]\nclir = {{ path = {clir:?} }}\n{}",
            manifest_package(name),
            path_deps(&written[..written.len().min(1)])
        );
        let lib = format!("#![allow(dead_code, unused_imports, non_upper_case_globals, clippy::all)]\n{source}");
        let hash = Sha256::new().chain_update(&manifest).chain_update([0]).chain_update(&lib).finalize();
        let hex: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
        let dir = root.join("crates").join(format!("{name}-{hex}"));
        super::runtime::write_once(&dir, "", |new| {
            std::fs::write(new.join("Cargo.toml"), &manifest)?;
            std::fs::write(new.join("lib.rs"), &lib)
        })?;
        written.push((name.clone(), dir));
    }
    Ok(written)
}

/// The `[package]` table of a generated crate's manifest, and the blank line after it.
fn manifest_package(name: &str) -> String {
    format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n")
}

/// Manifest lines depending on each crate of `deps` (name and folder) by its path.
fn path_deps(deps: &[(String, PathBuf)]) -> String {
    deps.iter().map(|(name, path)| format!("{name} = {{ path = {:?} }}\n", path.display().to_string())).collect()
}

/// The crate of one package: its generated module and a `main` ruling with it, against the
/// runtime this clir carries (and the crates of `deps`, name and folder, where the package is
/// built as several).
fn write_crate(
    dir: &Path,
    runtime: &Path,
    bin_name: &str,
    source: &str,
    deps: &[(String, PathBuf)],
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("src"))?;
    let clir = runtime.join("clir");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "{}[dependencies]\nclir = {{ path = {:?}, features = [\"command\"] }}\n{}\n\
             [workspace]\n\n[profile.release]\ncodegen-units = 16\n\n{AUTHOR_PROFILE}",
            manifest_package(bin_name),
            clir.display().to_string(),
            path_deps(deps)
        ),
    )?;
    if !dir.join("Cargo.lock").exists() {
        std::fs::write(dir.join("Cargo.lock"), super::runtime::lockfile())?;
    }
    std::fs::write(dir.join("src").join("package.rs"), source)?;
    std::fs::write(
        dir.join("src").join("main.rs"),
        "//! Rules cases with one package, compiled by `clir run`.\n#[allow(dead_code)]\nmod package;\n\nfn main() -> std::process::ExitCode {\n    clir::command::package_main(&package::Package)\n}\n",
    )
}
