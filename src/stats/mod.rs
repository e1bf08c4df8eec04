// TEMPORARY STUB
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)] pub struct Estimate { pub mean: f64, pub err: f64 }
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IsingEstimates { pub beta: f64, pub e: Estimate, pub c: Estimate, pub abs_m: Estimate, pub m2: Estimate, pub m4: Estimate, pub chi: Estimate, pub u4: Estimate, pub tau_e: f64, pub tau_abs_m: f64, pub samples: usize }
pub fn ising_estimates(_beta: f64, _n: u64, _e: &[Vec<f64>], _m: &[Vec<i64>]) -> IsingEstimates { todo!() }
