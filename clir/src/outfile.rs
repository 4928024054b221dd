//! Output files that never lose data, change what kind of file a path is, or follow a planted
//! name (docs/SECURITY.md "Output files").
//!
//! Every file clir writes goes through [`OutputFile`]: a regular file (or a name not yet taken)
//! is written to a temporary file created exclusively, under an unpredictable name, in the same
//! folder, and renamed over the target once complete, keeping the target's mode and, where
//! allowed, its owner; a symlink is followed, so its target is what gets replaced and the link
//! stays; a device, FIFO or socket (`/dev/null`, `/dev/stdout`, a named pipe) is written in
//! place, never replaced by a regular file.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The most symlinks followed from an output path to its target (Linux's own limit).
const MAX_SYMLINKS: usize = 40;

/// A file being written: [`commit`](Self::commit) makes it the target's contents; dropped without
/// a commit, the target is left as it was (a temporary file is removed).
#[derive(Debug)]
pub struct OutputFile {
    target: PathBuf,
    how: How,
}

#[derive(Debug)]
enum How {
    /// A temporary file beside the target, renamed over it on commit.
    Replace(tempfile::NamedTempFile),
    /// The target itself, written in place (not a regular file).
    InPlace(File),
}

impl OutputFile {
    /// Opens `path` for writing as the module says: its symlinks followed, a regular file (or a
    /// new one) through a temporary beside it, anything else in place. A FIFO blocks here until
    /// it has a reader, as a shell redirection does.
    pub fn create(path: &Path) -> io::Result<OutputFile> {
        let target = follow_symlinks(path)?;
        match fs::metadata(&target) {
            Ok(meta) if meta.is_dir() => {
                Err(io::Error::new(io::ErrorKind::IsADirectory, format!("{} is a folder", target.display())))
            }
            Ok(meta) if !meta.is_file() => {
                let file = OpenOptions::new().write(true).open(&target)?;
                Ok(OutputFile { target, how: How::InPlace(file) })
            }
            Ok(meta) => {
                let temp = temp_beside(&target)?;
                keep_mode_and_owner(temp.as_file(), &meta)?;
                Ok(OutputFile { target, how: How::Replace(temp) })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let temp = temp_beside(&target)?;
                Ok(OutputFile { target, how: How::Replace(temp) })
            }
            Err(e) => Err(e),
        }
    }

    /// The file that is written: `path` with its symlinks followed.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flushes what was written and makes it the target's contents: a regular file is synced
    /// and renamed over the target; a file written in place is flushed.
    pub fn commit(self) -> io::Result<()> {
        match self.how {
            How::InPlace(mut file) => file.flush(),
            How::Replace(mut temp) => {
                temp.flush()?;
                temp.as_file().sync_all()?;
                temp.persist(&self.target).map(drop).map_err(|e| e.error)
            }
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.how {
            How::Replace(temp) => temp.write(buf),
            How::InPlace(file) => file.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.how {
            How::Replace(temp) => temp.write_all(buf),
            How::InPlace(file) => file.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.how {
            How::Replace(temp) => temp.flush(),
            How::InPlace(file) => file.flush(),
        }
    }
}

/// Where a command's output goes (`--output FILE`, or standard output without it): what
/// `clir rule`, `clir diff` and the binaries `clir run` builds write to.
pub enum Output {
    /// Standard output (locked by each write: the writers above it buffer, and a value that
    /// holds no lock may go to another thread).
    Stdout(io::Stdout),
    /// A file, through an [`OutputFile`].
    File(OutputFile),
}

impl Output {
    /// Standard output for `None`, otherwise [`OutputFile::create`] of the path.
    pub fn open(path: Option<&Path>) -> io::Result<Output> {
        Ok(match path {
            None => Output::Stdout(io::stdout()),
            Some(p) => Output::File(OutputFile::create(p)?),
        })
    }

    /// What is written, for messages: the file, or `standard output`.
    pub fn name(&self) -> String {
        match self {
            Output::Stdout(_) => "standard output".into(),
            Output::File(f) => f.target().display().to_string(),
        }
    }

    /// Ends a complete output: flushes standard output, or commits the file.
    pub fn finish(self) -> io::Result<()> {
        match self {
            Output::Stdout(mut out) => out.flush(),
            Output::File(f) => f.commit(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(out) => out.write(buf),
            Output::File(f) => f.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout(out) => out.write_all(buf),
            Output::File(f) => f.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(out) => out.flush(),
            Output::File(f) => f.flush(),
        }
    }
}

/// Writes `bytes` to `path` through an [`OutputFile`]: all of them, or (on an error) nothing.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut out = OutputFile::create(path)?;
    out.write_all(bytes)?;
    out.commit()
}

/// `path` with every symlink on it followed to the name it finally points to (which need not
/// exist yet); a loop of links is an error.
fn follow_symlinks(path: &Path) -> io::Result<PathBuf> {
    let mut at = path.to_path_buf();
    for _ in 0..MAX_SYMLINKS {
        match fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&at)?;
                at = match at.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            _ => return Ok(at),
        }
    }
    Err(io::Error::other(format!("{}: more than {MAX_SYMLINKS} symlinks to follow", path.display())))
}

/// A new temporary file in `target`'s folder, created exclusively under a random name (never
/// following a planted link), with the permissions a new file gets (0666 less the umask).
fn temp_beside(target: &Path) -> io::Result<tempfile::NamedTempFile> {
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

/// Gives `file` the mode of the file it replaces and, where this process may, its owner and
/// group (root may; anyone else keeps their own).
fn keep_mode_and_owner(file: &File, replaced: &fs::Metadata) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if std::os::unix::fs::fchown(file, Some(replaced.uid()), Some(replaced.gid())).is_err() {
            // Not permitted: the group alone may still be one of ours.
            let _ = std::os::unix::fs::fchown(file, None, Some(replaced.gid()));
        }
    }
    // After the owner: a change of owner may clear set-id bits.
    file.set_permissions(replaced.permissions())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn a_regular_file_is_replaced_whole_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.jsonl");
        fs::write(&path, "old\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        let mut out = OutputFile::create(&path).unwrap();
        out.write_all(b"new\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "old\n", "nothing is seen before the commit");
        out.commit().unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o7777, 0o640);
        // Dropped without a commit: the target stays, the temporary goes.
        let mut out = OutputFile::create(&path).unwrap();
        out.write_all(b"lost\n").unwrap();
        drop(out);
        assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
        assert_eq!(entries(dir.path()), ["out.jsonl"]);
    }

    #[test]
    fn links_are_followed_and_loops_refused() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("sub/target");
        fs::create_dir(dir.path().join("sub")).unwrap();
        std::os::unix::fs::symlink("sub/target", dir.path().join("a")).unwrap();
        std::os::unix::fs::symlink("a", dir.path().join("b")).unwrap();
        // A dangling chain: the name it ends at is created.
        write_atomically(&dir.path().join("b"), b"x").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"x");
        assert!(fs::symlink_metadata(dir.path().join("b")).unwrap().file_type().is_symlink());
        std::os::unix::fs::symlink("loop2", dir.path().join("loop1")).unwrap();
        std::os::unix::fs::symlink("loop1", dir.path().join("loop2")).unwrap();
        assert!(OutputFile::create(&dir.path().join("loop1")).is_err());
        assert!(OutputFile::create(dir.path()).is_err(), "a folder is not an output file");
    }

    #[test]
    fn a_new_file_gets_the_umask_mode_and_a_temporary_name_no_one_can_guess() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.txt");
        let a = OutputFile::create(&path).unwrap();
        let b = OutputFile::create(&path).unwrap();
        let temps = entries(dir.path());
        assert_eq!(temps.len(), 2, "two writers, two temporaries: {temps:?}");
        assert!(temps.iter().all(|t| t.starts_with(".new.txt.") && t.ends_with(".tmp")), "{temps:?}");
        assert_ne!(temps[0], temps[1]);
        a.commit().unwrap();
        b.commit().unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode & 0o600, 0o600, "{mode:o}");
        assert_eq!(entries(dir.path()), ["new.txt"]);
    }
}
