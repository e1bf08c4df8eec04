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

/// Point [`XDG_RUNTIME_DIR`] at a [`PrivateRuntimeDir`] under the temporary directory unless
/// it already names a directory: what the binary, the Python module and the library's own wgpu
/// tests do before wgpu starts. The directory lives as long as the returned guard.
///
/// # Safety
///
/// No other thread may read or write the environment meanwhile (see [`std::env::set_var`]).
#[allow(
    unsafe_code,
    reason = "setting a variable of the process's own environment"
)]
pub unsafe fn set_private_unless_set() -> Option<PrivateRuntimeDir> {
    let current = std::env::var(XDG_RUNTIME_DIR).ok();
    let dir = PrivateRuntimeDir::create_unless_set(current.as_deref(), &std::env::temp_dir())?;
    // SAFETY: the caller's promise: nothing reads the environment at the same time.
    unsafe { std::env::set_var(XDG_RUNTIME_DIR, dir.path()) };
    Some(dir)
}

/// For the library's tests that open wgpu: [`set_private_unless_set`] once per test process,
/// the directory kept until the process ends.
#[cfg(test)]
#[allow(
    unsafe_code,
    reason = "setting a variable of the test process's own environment"
)]
pub(crate) fn for_tests() {
    static DIR: std::sync::OnceLock<Option<PrivateRuntimeDir>> = std::sync::OnceLock::new();
    // SAFETY: the tests read the environment only where they open wgpu, after this returns.
    DIR.get_or_init(|| unsafe { set_private_unless_set() });
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
