//! The error type of spinflip: every failure a user can cause or meet names its cause.

use std::path::PathBuf;

/// Result with spinflip's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in a run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The configuration could not be read or is invalid.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// No adapter matches, or the config asks for a GPU where there is none.
    #[error("adapter: {0}")]
    Adapter(String),
    /// The lattice does not fit the device's limits.
    #[error("device limits: {0}")]
    Limits(String),
    /// A shader failed to compose or validate, or a GPU operation was rejected.
    #[error("GPU: {0}")]
    Gpu(String),
    /// The CUDA backend failed: not compiled in, no driver or device, an NVRTC compile error, or
    /// a driver call that failed (out of device memory, a kernel fault).
    #[error("CUDA: {0}")]
    Cuda(String),
    /// The device was lost during the run.
    #[error("GPU device lost: {0}")]
    DeviceLost(String),
    /// Engine state that does not fit the configured systems.
    #[error("state: {0}")]
    State(String),
    /// A checkpoint could not be used.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// A file could not be written or read.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Invalid command-line input.
    #[error("{0}")]
    Usage(String),
    /// Another MPI rank of a run split over ranks failed, or does not run the same command.
    #[error("MPI rank {rank}: {message}")]
    Rank { rank: u32, message: String },
}

impl Error {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// Whether a write failed for want of space: a full disk or an exhausted quota.
    pub fn is_out_of_space(&self) -> bool {
        let source = match self {
            Error::Io { source, .. } => Some(source),
            Error::Checkpoint(error) => error.io_source(),
            _ => None,
        };
        source.is_some_and(|e| {
            matches!(
                e.kind(),
                std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
            )
        })
    }
}

impl CheckpointError {
    /// The I/O error underneath, if this is one.
    fn io_source(&self) -> Option<&std::io::Error> {
        match self {
            CheckpointError::Io { source, .. } => Some(source),
            CheckpointError::InFile { source, .. } => source.io_source(),
            _ => None,
        }
    }
}

/// Why a checkpoint cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("not a spinflip checkpoint (no SPINFLIP magic)")]
    NotCheckpoint,
    #[error("unsupported checkpoint format version {found} (this build reads version {supported})")]
    UnsupportedVersion { found: u32, supported: u32 },
    #[error("truncated checkpoint: {found} bytes, expected {expected}")]
    Truncated { expected: u64, found: u64 },
    #[error("corrupt checkpoint: {found} bytes, but its header describes {expected}")]
    TrailingBytes { expected: u64, found: u64 },
    #[error(
        "corrupt checkpoint: checksum mismatch (stored {stored:#010x}, computed {computed:#010x})"
    )]
    ChecksumMismatch { stored: u32, computed: u32 },
    #[error(
        "this checkpoint is of {found}, but the config asks for {expected}; resume it with the \
         config.ron beside it"
    )]
    OtherAlgorithm {
        found: &'static str,
        expected: &'static str,
    },
    #[error("corrupt checkpoint: {0}")]
    Inconsistent(String),
    #[error("corrupt checkpoint: spin #{index} is {value}, not +1 or -1")]
    BadSpin { index: usize, value: i8 },
    #[error("corrupt checkpoint: bits set past the last of its {spins} spins")]
    SpinPadding { spins: u64 },
    #[error(
        "checkpoint was written by a different config (fingerprint {found:#018x}, this config has \
         {expected:#018x}); the config.ron the run wrote beside it is the one it ran (a config \
         without `engine` from before engine: Auto ran the simple engine)"
    )]
    ConfigMismatch { expected: u64, found: u64 },
    /// [`CheckpointError::ConfigMismatch`] where the run's `config.ron` tells what differs.
    #[error(
        "cannot resume it: written by a different config: {0} (the fields that leave the bits \
         alone, such as backend, adapter, plots and checkpoint_every, may change on resume, and \
         sweeps.measure may grow)"
    )]
    ConfigChanged(String),
    #[error("checkpoint {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Any of the above, found in the file at `path`.
    #[error("checkpoint {}: {source}", path.display())]
    InFile {
        path: PathBuf,
        source: Box<CheckpointError>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ENOSPC and EDQUOT, bare or inside a checkpoint's error, are a want of space; other I/O
    /// errors are not.
    #[test]
    fn full_disks_and_quotas_are_told_from_other_failures() {
        let full = || std::io::Error::from(std::io::ErrorKind::StorageFull);
        assert!(Error::io("out", full()).is_out_of_space());
        let quota = std::io::Error::from(std::io::ErrorKind::QuotaExceeded);
        assert!(Error::io("out", quota).is_out_of_space());
        let in_file = CheckpointError::InFile {
            path: "checkpoint.bin".into(),
            source: Box::new(CheckpointError::Io {
                path: "checkpoint.bin".into(),
                source: full(),
            }),
        };
        assert!(Error::Checkpoint(in_file).is_out_of_space());
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert!(!Error::io("out", denied).is_out_of_space());
        assert!(!Error::Usage("no".into()).is_out_of_space());
    }
}
