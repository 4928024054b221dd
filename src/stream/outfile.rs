//! An output file that appears complete or not at all.
//!
//! Replaced by `clir::outfile` on merge: a stand-in with the same API
//! (`OutputFile::create`, `Write`, `commit`) so that `clir stream` is written against it.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// An output in the making: a regular file is written to an exclusively created temporary in
/// its folder and renamed over it by [`OutputFile::commit`] (its mode kept); a device or FIFO
/// is written in place; a symbolic link's target is what is written. Dropped without a commit,
/// the temporary is removed and the target is as it was.
pub struct OutputFile {
    file: File,
    /// The temporary and the file it replaces, for a regular file.
    rename: Option<(PathBuf, PathBuf)>,
}

impl OutputFile {
    /// Opens the output for `path`.
    pub fn create(path: &Path) -> io::Result<OutputFile> {
        let target = match fs::canonicalize(path) {
            Ok(resolved) => resolved,
            Err(e) if e.kind() == io::ErrorKind::NotFound => path.to_path_buf(),
            Err(e) => return Err(e),
        };
        let existing = fs::metadata(&target).ok();
        if let Some(meta) = existing.as_ref().filter(|m| !m.is_file()) {
            if meta.is_dir() {
                return Err(io::Error::other("is a folder"));
            }
            let file = OpenOptions::new().write(true).open(&target)?;
            return Ok(OutputFile { file, rename: None });
        }
        let mode = existing.map(|m| m.permissions().mode() & 0o7777).unwrap_or(0o666);
        let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let mut tries = 0;
        loop {
            let temp = dir.join(format!(".{name}.{}.tmp", random_hex()?));
            match OpenOptions::new().write(true).create_new(true).mode(mode).open(&temp) {
                Ok(file) => {
                    file.set_permissions(fs::Permissions::from_mode(mode))?;
                    return Ok(OutputFile { file, rename: Some((temp, target)) });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 8 => tries += 1,
                Err(e) => return Err(e),
            }
        }
    }

    /// Completes the output: a temporary is flushed and renamed over the file it replaces.
    pub fn commit(mut self) -> io::Result<()> {
        self.file.flush()?;
        if let Some((temp, target)) = self.rename.take() {
            if let Err(e) = fs::rename(&temp, &target) {
                let _ = fs::remove_file(&temp);
                return Err(e);
            }
        }
        Ok(())
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if let Some((temp, _)) = self.rename.take() {
            let _ = fs::remove_file(temp);
        }
    }
}

/// 16 unpredictable hex digits.
fn random_hex() -> io::Result<String> {
    let mut bytes = [0u8; 8];
    File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
