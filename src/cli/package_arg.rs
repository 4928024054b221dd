//! How every command names its package (DECISIONS 81): `--package PACKAGE` or the positional
//! `PACKAGE`, alike, where PACKAGE is a package file or the name of a package compiled into
//! this clir. A command that can use only one of the two says which, and how to get it.

use super::{note, CANNOT_RUN};
use clap::Args;
use std::path::{Path, PathBuf};

/// The package a command works on, given either way.
#[derive(Args, Debug, Clone, Default)]
pub struct PackageArg {
    /// The package: a file (`.lawir.json`) or the name of a compiled-in package (the same as
    /// `--package`).
    #[arg(value_name = "PACKAGE", required_unless_present = "package", conflicts_with = "package")]
    pub positional: Option<String>,
    /// The package: a file (`.lawir.json`) or the name of a compiled-in package.
    #[arg(long = "package", value_name = "PACKAGE")]
    pub package: Option<String>,
}

/// What a PACKAGE names.
#[derive(Debug, Clone)]
pub enum PackageRef {
    /// A package file (it may not exist: reading it says so).
    File(PathBuf),
    /// A package compiled into this clir, by name.
    Compiled(&'static str),
}

impl PackageArg {
    /// PACKAGE as given.
    pub fn value(&self) -> &str {
        self.package.as_deref().or(self.positional.as_deref()).unwrap_or_default()
    }

    /// What PACKAGE names ([`resolve`]).
    pub fn resolve(&self) -> PackageRef {
        resolve(self.value())
    }
}

/// Whether PACKAGE `value` names a file: it is one, or reads as a path (a `/`, or `.json`).
pub fn names_a_file(value: &str) -> bool {
    Path::new(value).is_file() || value.contains('/') || value.ends_with(".json")
}

/// A file when `value` is one (or looks like a path), else a compiled-in package of that name,
/// else a file that reading will report missing, with a hint ([`unreadable`]).
pub fn resolve(value: &str) -> PackageRef {
    let path = Path::new(value);
    if names_a_file(value) {
        return PackageRef::File(path.to_path_buf());
    }
    match crate::packages::compiled_packages().iter().find(|(n, _)| *n == value) {
        Some((name, _)) => PackageRef::Compiled(name),
        None => PackageRef::File(path.to_path_buf()),
    }
}

/// The names of the packages compiled into this clir.
pub fn compiled_names() -> Vec<&'static str> {
    crate::packages::compiled_packages().iter().map(|(n, _)| *n).collect()
}

/// The compiled-in package `name`'s published bytes (its blob, byte-exact as law.lock pins it).
pub fn blob(name: &str) -> Option<&'static [u8]> {
    crate::package_blobs::BLOBS.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
}

/// What `clir COMMAND` says when the package file `value` cannot be read (`error`): the error,
/// and a hint when `value` reads like a package's name rather than a file's.
pub fn unreadable(value: &str, error: &dyn std::fmt::Display) -> String {
    let names = compiled_names();
    let looks_like_name = !value.contains('/') && !value.ends_with(".json");
    let hint = if names.contains(&value) {
        format!(
            "; `{value}` is the name of a package compiled into this clir, but this command needs its file \
             (in a checkout: sources/{value}-VERSION.lawir.json)"
        )
    } else if looks_like_name {
        let suggestion = clir::suggest::did_you_mean(value, names.iter().copied());
        format!(
            "; no package compiled into this clir is named `{value}` either{suggestion} (compiled in: {})",
            names.join(", ")
        )
    } else {
        String::new()
    };
    format!("cannot read {value}: {error}{hint}")
}

/// Reads the package PACKAGE names for `clir COMMAND`: a file's bytes, or a compiled-in
/// package's blob. Says on stderr why it cannot (exit status 2).
pub fn bytes(command: &str, package: &PackageRef) -> Result<Vec<u8>, u8> {
    match package {
        PackageRef::Compiled(name) => blob(name).map(<[u8]>::to_vec).ok_or_else(|| {
            note(command, format_args!("the blob of compiled-in package {name} is missing from this clir"));
            CANNOT_RUN
        }),
        PackageRef::File(path) => clir_codegen::project::read_regular_file(path).map_err(|e| {
            note(command, unreadable(&path.display().to_string(), &e));
            CANNOT_RUN
        }),
    }
}

impl std::fmt::Display for PackageRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PackageRef::File(p) => write!(f, "{}", p.display()),
            PackageRef::Compiled(name) => write!(f, "{name}"),
        }
    }
}

/// The compiled-in package PACKAGE names, for `clir COMMAND` that serves only those: a package
/// file is refused with what to do instead.
pub fn compiled_only(command: &str, value: &str) -> Result<&'static dyn clir::Package, String> {
    match resolve(value) {
        PackageRef::Compiled(name) => super::run::compiled_package(name),
        PackageRef::File(path) if path.is_file() => Err(format!(
            "`clir {command}` works with the packages compiled into this clir, and {value} is a package file: \
             add it to law.toml (`clir add {value}`) and build clir again, or rule with the file itself \
             (`clir rule --package {value}`)"
        )),
        PackageRef::File(_) => super::run::compiled_package(value),
    }
}
