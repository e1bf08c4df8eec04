//! Philox on a CUDA device: blocks for given (counter, key) pairs, through the `philox_kat`
//! kernel. Checks the `__umulhi` Philox against the known-answer vectors on a real device.
#![allow(unsafe_code, reason = "launching a kernel is unsafe in cudarc")]

use cudarc::driver::{LaunchConfig, PushKernelArg};

use super::context::CudaDevice;
use super::driver::driver_error;
use crate::engine::kernels::{Kernel, philox_kat_blocks, philox_kat_io};
use crate::error::Result;

/// Threads per block of the known-answer kernel.
const BLOCK_SIZE: u32 = 64;

/// Philox4x32-10 of each `(counter, key)` pair, computed by `device`.
pub fn philox_blocks(
    device: &mut CudaDevice,
    inputs: &[([u32; 4], [u32; 2])],
) -> Result<Vec<[u32; 4]>> {
    let words = philox_kat_io(inputs);
    let kernel = device.function(Kernel::PhiloxKat, &[])?;
    let mut io = device
        .stream
        .clone_htod(&words)
        .map_err(driver_error("uploading the Philox inputs"))?;
    let pairs = inputs.len() as u32;
    let config = LaunchConfig {
        grid_dim: (pairs.div_ceil(BLOCK_SIZE).max(1), 1, 1),
        block_dim: (BLOCK_SIZE, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = device.stream.launch_builder(&kernel);
    launch.arg(&mut io).arg(&pairs);
    // SAFETY: `philox_kat(unsigned* philox_io, unsigned pairs)` gets a buffer of 10 words per
    // pair and the pair count; threads at or past `pairs` return without touching memory.
    unsafe { launch.launch(config) }.map_err(driver_error("launching kernel philox_kat"))?;
    let out = device
        .stream
        .clone_dtoh(&io)
        .map_err(driver_error("downloading the Philox outputs"))?;
    device.synchronize("running kernel philox_kat")?;
    Ok(philox_kat_blocks(&out))
}
