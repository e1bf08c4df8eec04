//! The parameters of population annealing's resampling step on a device, shared by the device
//! backends (`engine::wgpu::resampling`, `engine::cuda::resampling`; kernels `resample_count`,
//! `resample_scan`, `resample_scatter` and `resample_histogram`; the CPU reference and the layout
//! of the step: [`crate::engine::annealing`]): the kernels' parameter block, the chunks their
//! threads take, and the bins of a population's histograms.

use bytemuck::Zeroable;

use crate::engine::annealing::ResamplingTable;
use crate::error::{Error, Result};
use crate::rng::seed_key;

/// Systems per thread of the count and scatter kernels (`CHUNK` in `resample.wgsl` and
/// `resample.cuh`).
pub const CHUNK: u32 = 16;

/// The kernels' parameters (`ResampleParams` in `resample.wgsl` and `resample.cuh`).
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct ResampleParams {
    seed_lo: u32,
    seed_hi: u32,
    step: u32,
    observation_base: u32,
    keyed: u32,
}

impl ResampleParams {
    /// Step `step` of a run of `seed` from the measurement at observation pair
    /// `observation_base`, by `table`.
    pub fn new(seed: u64, step: u32, observation_base: u32, table: &ResamplingTable) -> Self {
        let [seed_lo, seed_hi] = seed_key(seed);
        ResampleParams {
            seed_lo,
            seed_hi,
            step,
            observation_base,
            keyed: table.keyed as u32,
        }
    }

    /// The histogram kernel's: the measurement at observation pair `observation_base`.
    pub fn measurement(observation_base: u32) -> Self {
        ResampleParams {
            observation_base,
            ..ResampleParams::zeroed()
        }
    }
}

/// Bins of the histograms of one population: bonds + 1 and sites + 1, refused beyond 32 bits.
pub fn bins(bonds: u64, sites: u64) -> Result<(u32, u32)> {
    match (u32::try_from(bonds + 1), u32::try_from(sites + 1)) {
        (Ok(b), Ok(s)) => Ok((b, s)),
        _ => Err(Error::State(format!(
            "population annealing counts satisfied bonds in 32 bits: {bonds} bonds are too many"
        ))),
    }
}

/// Refuse blocks that the kernels cannot split into whole chunks.
pub fn check_chunks(slots: u32, systems: u32) -> Result<()> {
    if slots == 0 || !slots.is_multiple_of(CHUNK) || !systems.is_multiple_of(slots) {
        return Err(Error::State(format!(
            "resampling on the device takes blocks of a multiple of {CHUNK} slots covering the \
             systems, got {slots} slots for {systems} systems"
        )));
    }
    Ok(())
}
