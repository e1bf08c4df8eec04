// TEMPORARY STUB
use std::path::Path;
#[derive(Debug, thiserror::Error)] pub enum CheckpointError { #[error("x")] X }
pub struct Checkpoint { pub config_fingerprint: u64, pub sweeps_done: u64, pub spins: Vec<i32>, pub bond_sums: Vec<i64>, pub magnetisations: Vec<i64> }
impl Checkpoint { pub fn save(&self, _p: &Path) -> std::io::Result<()> { Ok(()) } pub fn load(_p: &Path, _f: u64) -> Result<Checkpoint, CheckpointError> { Err(CheckpointError::X) } }
pub fn fingerprint(_t: &str) -> u64 { 0 }
