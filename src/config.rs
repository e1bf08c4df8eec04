// TEMPORARY STUB (helper delivers the real one)
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
#[derive(Debug, thiserror::Error)]
pub enum ConfigError { #[error("{0}")] Invalid(String) }
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Model { Ising { dims: u32, size: u32, field: f64 } }
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Temperatures { Betas(Vec<f64>) }
impl Temperatures { pub fn betas(&self) -> Vec<f64> { match self { Temperatures::Betas(b) => b.clone() } } }
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sweeps { pub thermalize: u64, pub measure: u64, pub every: u64 }
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Backend { Auto, Cpu, Wgpu }
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub enum PhiloxPath { #[default] Auto, Int64, U32 }
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Config { pub model: Model, pub temperatures: Temperatures, pub replicas: u32, pub sweeps: Sweeps, pub seed: u64, pub backend: Backend, #[serde(default)] pub adapter: Option<String>, #[serde(default)] pub philox: PhiloxPath, #[serde(default)] pub checkpoint_every: u64, #[serde(default = "wg")] pub workgroup_size: u32 }
fn wg() -> u32 { 64 }
impl Config {
  pub fn from_ron_str(t: &str) -> Result<Config, ConfigError> { ron::from_str(t).map_err(|e| ConfigError::Invalid(e.to_string())) }
  pub fn from_path(p: &Path) -> Result<Config, ConfigError> { let _: PathBuf = p.into(); Self::from_ron_str(&std::fs::read_to_string(p).unwrap()) }
  pub fn to_ron_string(&self) -> String { ron::to_string(self).unwrap() }
  pub fn validate(&self) -> Result<(), ConfigError> { Ok(()) }
  pub fn default_config() -> Result<Config, ConfigError> { Ok(Config{model: Model::Ising{dims:2,size:16,field:0.0}, temperatures: Temperatures::Betas(vec![0.4]), replicas:2, sweeps: Sweeps{thermalize:100,measure:1000,every:10}, seed:1, backend: Backend::Auto, adapter:None, philox: PhiloxPath::Auto, checkpoint_every: 10000, workgroup_size: 64}) }
  pub fn default_source() -> &'static str { "" }
}
