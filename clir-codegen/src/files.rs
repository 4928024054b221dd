//! Reading a project's files: where a relative path may lead, and how much of a file is read.
//! Below both verification (a package's sources) and the project (law.toml's packages), which
//! re-exports these.

use std::path::Path;

/// Whether `path`, relative to a project root, names something inside it: relative, without
/// `..` or a root (symlinks are not followed here; `project::package_file` follows them for
/// every package path that is read or written).
pub fn stays_inside(path: &Path) -> bool {
    use std::path::Component;
    path.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        && path.components().any(|c| matches!(c, Component::Normal(_)))
}

/// The largest package file or source text clir reads.
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// Reads a package file or source text: a regular file of at most [`MAX_FILE_BYTES`] (a FIFO
/// would block and `/dev/zero` would never end, so neither is read).
pub fn read_regular_file(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind, Read};
    let not_regular = || Error::new(ErrorKind::InvalidInput, "not a regular file");
    if !std::fs::metadata(path)?.is_file() {
        return Err(not_regular());
    }
    let file = std::fs::File::open(path)?;
    if !file.metadata()?.is_file() {
        return Err(not_regular());
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(Error::new(ErrorKind::InvalidData, format!("larger than {} MiB", MAX_FILE_BYTES >> 20)));
    }
    Ok(bytes)
}
