//! A private runtime directory for processes started without `XDG_RUNTIME_DIR`: the Vulkan
//! loader's window-system layers print `error: XDG_RUNTIME_DIR is invalid or not set` at every
//! instance they create (twice a run), which looks fatal and is not. Before wgpu starts, the
//! binary points the variable at a directory of its own, `0700` under the temporary directory
//! (what the XDG specification asks of it), removed again when the process ends.

use std::path::{Path, PathBuf};

/// The variable the loader reads.
pub const XDG_RUNTIME_DIR: &str = "XDG_RUNTIME_DIR";

/// A runtime directory this process created, removed when dropped.
#[derive(Debug)]
pub struct PrivateRuntimeDir {
    path: PathBuf,
}

impl PrivateRuntimeDir {
    /// A fresh directory `spinflip-runtime-<pid>[-n]` with mode `0700` under `parent`, unless
    /// `current` (the variable's value) already names a directory; `None` too where none can be
    /// created (the loader's message is then the only harm).
    pub fn create_unless_set(current: Option<&str>, parent: &Path) -> Option<Self> {
        if current.is_some_and(|dir| Path::new(dir).is_dir()) {
            return None;
        }
        (0..100).find_map(|attempt| {
            let name = match attempt {
                0 => format!("spinflip-runtime-{}", std::process::id()),
                n => format!("spinflip-runtime-{}-{n}", std::process::id()),
            };
            let path = parent.join(name);
            create_private(&path)
                .ok()
                .map(|()| PrivateRuntimeDir { path })
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PrivateRuntimeDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// A new directory only its owner can enter (failing where the path exists).
fn create_private(path: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_private_directory_is_made_only_where_none_is_set() {
        let parent = std::env::temp_dir();
        let existing = parent.to_str().unwrap();
        assert!(PrivateRuntimeDir::create_unless_set(Some(existing), &parent).is_none());
        let made = PrivateRuntimeDir::create_unless_set(None, &parent).expect("a directory");
        let path = made.path().to_path_buf();
        assert!(path.is_dir());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        let invalid = PrivateRuntimeDir::create_unless_set(Some("/nonexistent/xdg"), &parent);
        assert!(invalid.is_some(), "an invalid value is replaced too");
        drop(made);
        assert!(!path.exists(), "removed when the process ends");
    }
}
