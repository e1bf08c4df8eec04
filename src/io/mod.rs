//! Files: crash-safe writing, the binary checkpoint, and the result files.

pub mod atomic;
pub mod checkpoint;
pub mod output;
pub mod run_dir;

pub use atomic::{IoError, ensure_writable_dir, write_atomic};
pub use checkpoint::{AnnealingCheckpoint, Checkpoint, CheckpointError, fingerprint};
