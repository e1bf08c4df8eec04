//! Files and lines: the checkpoint file (the container every algorithm's checkpoint shares),
//! the result files, the run directory and its lock, the provenance the summaries record, and
//! the progress lines every loop prints.

pub mod checkpoint;
pub mod instance;
pub mod lock;
pub mod origin;
pub mod output;
pub(crate) mod progress;
pub mod provenance;
pub mod run_dir;

pub use checkpoint::fingerprint;
