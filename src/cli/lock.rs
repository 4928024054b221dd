//! `clir lock [--update NAME]... [--root DIR]`: verifies every package of law.toml and writes
//! law.lock. A new package is pinned; a pin that changed is shown old and new and is only
//! rewritten with `--update NAME`; pins of packages no longer listed are dropped. Nothing is
//! written when any package fails.

use super::{note, print_lines, stdout_failed, CANNOT_RUN, FAILURE, OK};
use clap::Args;
use clir_codegen::project::{self, Lock, Pin, LOCKFILE};
use clir_codegen::verify::verify_bytes;
use std::path::PathBuf;

/// Options of `clir lock`.
#[derive(Args, Debug)]
pub struct LockArgs {
    /// Rewrite the pin of package NAME if it changed (repeatable).
    #[arg(long = "update", value_name = "NAME")]
    pub update: Vec<String>,
    /// The project folder, holding law.toml [default: the current folder].
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

/// Runs the command: 0 when law.lock is written or already up to date, 1 when a package fails
/// verification or a changed pin was not allowed to change, 2 when law.toml, law.lock or a
/// package file cannot be read (or `--update` names a package law.toml does not list).
pub fn run(args: &LockArgs) -> u8 {
    let root = args.root.clone().unwrap_or_else(|| PathBuf::from("."));
    let project = match project::load(&root) {
        Ok(p) => p,
        Err(diags) => {
            for d in &diags.0 {
                note("lock", d);
            }
            return CANNOT_RUN;
        }
    };
    for name in &args.update {
        if project.package(name).is_none() {
            note("lock", format_args!("--update {name}: law.toml lists no package {name}"));
            return CANNOT_RUN;
        }
    }

    let mut lines = Vec::new();
    let mut pins = Vec::new();
    let (mut failed, mut unreadable) = (false, false);
    for spec in &project.packages {
        let name = &spec.name;
        let line = |status: &str, text: String| format!("{status:<7} {name} {}: {text}", spec.version);
        let old = project.lock.pin(name);
        let read = project.package_file(spec).and_then(|path| {
            project::read_regular_file(&path).map_err(|e| format!("cannot read {}: {e}", spec.path.display()))
        });
        let bytes = match read {
            Ok(b) => b,
            Err(e) => {
                lines.push(line("FAIL", e));
                unreadable = true;
                pins.extend(old.cloned());
                continue;
            }
        };
        let report = verify_bytes(&bytes, &project::options_for(&project, spec, None));
        for w in &report.warnings().0 {
            lines.push(line("warn", format!("{}: {}", w.check, w)));
        }
        let failures = report.failures();
        let document = match report.into_document() {
            Ok(doc) => doc,
            Err(_) => {
                for d in &failures.0 {
                    lines.push(line("FAIL", format!("{}: {}", d.check, d)));
                }
                failed = true;
                pins.extend(old.cloned());
                continue;
            }
        };
        let new = Pin::of(&document, &bytes);
        match old {
            None => {
                lines.push(line("added", format!("seal {}, semanticHash {}", new.seal, new.semantic_hash)));
                pins.push(new);
            }
            Some(old) if *old == new => {
                lines.push(line("ok", format!("seal {}", new.seal)));
                pins.push(new);
            }
            Some(old) => {
                let update = args.update.contains(name);
                let status = if update { "updated" } else { "changed" };
                for (field, was, now) in [
                    ("version", &old.version, &new.version),
                    ("seal", &old.seal, &new.seal),
                    ("semanticHash", &old.semantic_hash, &new.semantic_hash),
                ] {
                    if was != now {
                        lines.push(line(status, format!("{field}: old {was}, new {now}")));
                    }
                }
                // What the new blob changes in meaning, when the old version's blob is still there.
                let old_blob = project::default_blob_path(name, &old.version);
                let changed = (old.version != new.version)
                    .then(|| project::package_file(&project.root, name, &old_blob).ok())
                    .flatten()
                    .and_then(|path| project::read_regular_file(&path).ok())
                    .and_then(|old_bytes| super::meaning::changed_nodes(&old_bytes, &bytes));
                match changed {
                    Some(nodes) => lines.extend(nodes.into_iter().map(|n| line(status, n))),
                    None => lines.push(line(status, super::meaning::OLD_BLOB_GONE.into())),
                }
                if update {
                    pins.push(new);
                } else {
                    lines.push(line(
                        "FAIL",
                        format!("the pin changed: review the package, then run `clir lock --update {name}`"),
                    ));
                    failed = true;
                    pins.push(old.clone());
                }
            }
        }
    }
    for stale in project.lock.packages.iter().filter(|p| project.package(&p.name).is_none()) {
        lines.push(format!("{:<7} {} {}: not in law.toml", "removed", stale.name, stale.version));
    }
    if let Err(e) = print_lines(lines) {
        return stdout_failed("lock", &e);
    }

    if unreadable || failed {
        note("lock", format_args!("{LOCKFILE} not written"));
        return if unreadable { CANNOT_RUN } else { FAILURE };
    }
    let lock = Lock { packages: pins };
    let current = std::fs::read_to_string(project.lock_path()).ok();
    if current.as_deref() == Some(lock.to_toml().as_str()) {
        note("lock", format_args!("{LOCKFILE} is up to date"));
        return OK;
    }
    match clir::outfile::write_atomically(&project.lock_path(), lock.to_toml().as_bytes()) {
        Ok(()) => {
            note("lock", format_args!("wrote {}", project.lock_path().display()));
            OK
        }
        Err(e) => {
            note("lock", format_args!("cannot write {}: {e}", project.lock_path().display()));
            CANNOT_RUN
        }
    }
}
