//! The contract of the vector-spin engines (`XY`, `Heisenberg`): lattices of fixed-point unit
//! vectors ([`crate::model::vector::fixed`]), checkerboard sweeps of Metropolis and
//! over-relaxation, and measurements as exact integer sums. The CPU engine
//! ([`super::cpu::CpuVectorEngine`]) is the reference the GPU kernels are checked against.

use std::ops::Range;

use super::EngineInfo;
use crate::error::Result;

/// The proposal width that means a direction uniform on the sphere, independent of the old
/// spin (a cone of zero width would never move).
pub const UNIFORM: i32 = 0;

/// How the sweeps of a vector engine update its spins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VectorSweeps {
    /// Metropolis proposals per site and colour of a Metropolis sweep.
    pub hits: u32,
    /// Over-relaxation sweeps after each Metropolis sweep.
    pub overrelaxation: u32,
}

/// The exact integer sums of one lattice after a sweep, from which every estimate is computed
/// on the host. Bond sums are in units of `2^-32`, spin sums in spin units (`2^-28`); every
/// entry a sum over sites (or a maximum), so partial results add up in any order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VectorObservation {
    /// Per direction `d`: `sum_i J_{i,i+d} floor((s_i . s_{i+d}) 2^-24)`.
    pub bonds: [i64; 3],
    /// Per direction `d`: `sum_i J_{i,i+d} floor((s_i^x s_{i+d}^y - s_i^y s_{i+d}^x) 2^-24)`,
    /// the sine of the angle between neighbours in the XY plane (the helicity modulus).
    pub twists: [i64; 3],
    /// Per component: `sum_i s_i^a`.
    pub magnetisation: [i64; 3],
    /// `[d][a]`: `sum_i floor(s_i^a cos(2 pi x_d / L) 2^-28)` and the same with the sine: the
    /// Fourier component at the smallest wave vector along `d`.
    pub fourier: [[[i64; 2]; 3]; 3],
    /// `max_i | s_i . s_i - 1 |` in units of `2^-32`: the drift of `|s|` from 1.
    pub norm_deviation: u64,
}

/// A vector-spin engine: every system of a [`crate::model::vector::VectorSystems`], its spins
/// component-major (component `a` of site `i` of system `b` at `(b n + a) N + i`).
pub trait VectorEngine {
    /// What this engine runs on.
    fn info(&self) -> EngineInfo;
    /// Start every system from the hot start (`vector_hot_start`).
    fn hot_start(&mut self) -> Result<()>;
    /// Replace every system's spins.
    fn set_spins(&mut self, spins: &[i32]) -> Result<()>;
    /// Every system's spins.
    fn spins(&mut self) -> Result<Vec<i32>>;
    /// Sweeps `sweeps` (their numbers key the randoms): each a Metropolis sweep, colour 0 then
    /// colour 1, with the proposal width of each temperature (`widths`, spin units; `UNIFORM`
    /// for uniform proposals), then the over-relaxation sweeps. Returns each system's
    /// accepted Metropolis moves.
    fn sweeps(&mut self, sweeps: Range<u32>, widths: &[i32]) -> Result<Vec<u64>>;
    /// Every system's observation.
    fn observe(&mut self) -> Result<Vec<VectorObservation>>;
}
