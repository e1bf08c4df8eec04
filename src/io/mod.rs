//! Files: crash-safe writing, the checkpoint file (the container every algorithm's checkpoint
//! shares), and the result files.

pub mod atomic;
pub mod checkpoint;
pub mod output;
pub mod run_dir;

pub use atomic::{IoError, ensure_writable_dir, write_atomic};
pub use checkpoint::fingerprint;
