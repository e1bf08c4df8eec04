//! Files: the checkpoint file (the container every algorithm's checkpoint shares), the result
//! files, the run directory and its lock, and the provenance the summaries record.

pub mod checkpoint;
pub mod instance;
pub mod lock;
pub mod origin;
pub mod output;
pub mod provenance;
pub mod run_dir;

pub use checkpoint::fingerprint;
