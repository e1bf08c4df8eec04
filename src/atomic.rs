//! Crash-safe file writing: a reader (or a resumed run) sees either the previous complete file
//! or the new complete file, never a torn one.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// An output directory that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("output directory {}: {action}: {source}", dir.display())]
pub struct IoError {
    pub dir: PathBuf,
    /// What failed: creating the directory or writing into it.
    pub action: &'static str,
    pub source: std::io::Error,
}

/// Tries at finding an unused temporary name before giving up (only stale files from crashed
/// processes with a recycled pid can collide).
const TEMP_NAME_ATTEMPTS: u32 = 16;

/// Replace `path` with `bytes` atomically: write a temporary file in the same directory, fsync
/// it, rename it over `path`, then fsync the directory so the rename itself is durable.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |file| file.write_all(bytes))
}

/// Replace `path` atomically with what `write` writes into the temporary file (in as many
/// pieces as it likes: a large checkpoint is streamed, never held twice in memory), as
/// [`write_atomic`] does: fsync, rename, fsync of the directory; on any error the temporary is
/// removed and the previous file stays.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = parent_dir(path);
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is not a file path", path.display()),
        )
    })?;
    let (temp_path, mut file) = create_temp(dir, &name.to_string_lossy())?;
    let written = write(&mut file)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&temp_path, path));
    if written.is_err() {
        // The temporary is garbage whatever happened; the error that matters is `written`'s.
        let _ = std::fs::remove_file(&temp_path);
    }
    written?;
    sync_dir(dir);
    Ok(())
}

/// Create `dir` (and its parents) if missing and prove that files can be created in it.
pub fn ensure_writable_dir(dir: &Path) -> Result<(), IoError> {
    let fail = |action, source| IoError {
        dir: dir.to_path_buf(),
        action,
        source,
    };
    std::fs::create_dir_all(dir).map_err(|e| match dir.exists() && !dir.is_dir() {
        // Not the bare "File exists" of the system: what exists there is the trouble.
        true => fail("cannot use it", not_a_directory()),
        false => fail("cannot create it", e),
    })?;
    let (probe, file) =
        create_temp(dir, "write-probe").map_err(|e| fail("cannot write into it", e))?;
    drop(file);
    std::fs::remove_file(&probe).map_err(|e| fail("cannot remove a file from it", e))
}

/// Why a path that names a file, not a directory, cannot be an output directory.
fn not_a_directory() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::NotADirectory,
        "it exists and is not a directory",
    )
}

/// The directory holding `path` (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// A new, hidden file `dir/.stem.<pid>.<n>.tmp`, never one that exists already.
fn create_temp(dir: &Path, stem: &str) -> std::io::Result<(PathBuf, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut attempt = 0;
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(".{stem}.{}.{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => return Ok((path, file)),
            Err(e)
                if e.kind() == std::io::ErrorKind::AlreadyExists
                    && attempt + 1 < TEMP_NAME_ATTEMPTS =>
            {
                attempt += 1;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Make a rename in `dir` durable. Best effort: some platforms (Windows) cannot open a directory
/// and some file systems refuse to fsync one; the data itself is already synced.
fn sync_dir(dir: &Path) {
    if let Ok(handle) = File::open(dir) {
        let _ = handle.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn writes_new_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.json");
        write_atomic(&path, b"{\"e\": -1.5}\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"{\"e\": -1.5}\n");
        assert_eq!(entries(dir.path()), ["summary.json"]);
    }

    #[test]
    fn replaces_existing_file_completely() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checkpoint.bin");
        write_atomic(&path, &[7u8; 1000]).unwrap();
        write_atomic(&path, b"short").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"short");
        assert_eq!(entries(dir.path()), ["checkpoint.bin"]);
    }

    #[test]
    fn failed_write_keeps_the_previous_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        write_atomic(&path, b"old").unwrap();
        // Renaming a file over a non-empty directory fails after the temporary was written.
        let blocked = dir.path().join("blocked");
        std::fs::create_dir(&blocked).unwrap();
        std::fs::write(blocked.join("inside"), b"x").unwrap();
        assert!(write_atomic(&blocked, b"new").is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(
            entries(dir.path()),
            ["blocked", "out"],
            "the temporary is cleaned up"
        );
    }

    #[test]
    fn a_failing_stream_keeps_the_previous_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checkpoint.bin");
        write_atomic(&path, b"old").unwrap();
        let err = write_atomic_with(&path, |file| {
            file.write_all(b"half of the new")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(entries(dir.path()), ["checkpoint.bin"]);
        write_atomic_with(&path, |file| {
            file.write_all(b"new, ")?;
            file.write_all(b"in pieces")
        })
        .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new, in pieces");
    }

    #[test]
    fn write_under_a_regular_file_fails() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plain");
        std::fs::write(&file, b"x").unwrap();
        assert!(write_atomic(&file.join("child"), b"y").is_err());
    }

    #[test]
    fn ensure_writable_dir_creates_nested_dirs_and_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("a").join("b");
        ensure_writable_dir(&out).unwrap();
        assert!(out.is_dir());
        assert!(entries(&out).is_empty(), "the probe file is removed");
        ensure_writable_dir(&out).unwrap();
    }

    #[test]
    fn ensure_writable_dir_names_the_directory_and_reason() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plain");
        std::fs::write(&file, b"x").unwrap();
        // Running as root defeats permission bits, but nothing can create a directory under a file.
        let out = file.join("results");
        let err = ensure_writable_dir(&out).unwrap_err();
        assert_eq!(err.dir, out);
        assert_eq!(err.action, "cannot create it");
        let shown = err.to_string();
        assert!(
            shown.contains(&out.display().to_string()) && shown.contains("os error"),
            "{shown}"
        );
    }

    #[test]
    fn ensure_writable_dir_refuses_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plain");
        std::fs::write(&file, b"x").unwrap();
        let err = ensure_writable_dir(&file).unwrap_err();
        assert_eq!(err.dir, file);
        assert_eq!(
            err.to_string(),
            format!(
                "output directory {}: cannot use it: it exists and is not a directory",
                file.display()
            )
        );
    }
}
