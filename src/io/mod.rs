//! Files: the checkpoint file (the container every algorithm's checkpoint shares), the result
//! files, and the run directory.

pub mod checkpoint;
pub mod output;
pub mod run_dir;

pub use checkpoint::fingerprint;
