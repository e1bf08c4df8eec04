//! The hot start on a CUDA device (kernel `hot_start.cu`; CPU twin `engine/cpu/hot_start.rs`),
//! for the simple engine's `int` lattices and the multispin engine's words: the lattices are
//! computed where they live; only the lane table travels. The geometry is a kernel argument
//! (no defines), so one compiled module serves every engine on the device.
#![allow(
    unsafe_code,
    reason = "passing the kernel's parameter struct by value and launching it are unsafe"
)]

use cudarc::driver::{CudaSlice, DeviceRepr, PushKernelArg};

use super::context::CudaDevice;
use super::launch::{launch_config, launch_kernel, launch_pieces, upload};
use crate::engine::cpu::hot_start::HotStartGrid;
use crate::engine::kernels::Kernel;
use crate::error::Result;
use crate::rng::seed_key;

/// `struct HotStart` of shaders/cuda/hot_start.cu.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct HotStartParams {
    seed_lo: u32,
    seed_hi: u32,
    system_threads: u32,
    size: u32,
    multispin: u32,
    smsc: u32,
    row_words: u32,
    colour_words: u32,
    row_offset: u32,
    /// `SliceIndex` (block, run block, first).
    slice: [u32; 3],
    /// The (word) system of a piece's first layer ([`launch_pieces`]).
    first_layer: u32,
}

// SAFETY: `HotStartParams` is `#[repr(C)]`: thirteen `u32`s with no padding, laid out exactly as
// `struct HotStart` in shaders/cuda/hot_start.cu, so its bytes are a valid kernel argument.
unsafe impl DeviceRepr for HotStartParams {}

/// Write the hot start of `grid` into `spins` (the engine's lattices or words, 4 bytes per
/// element); waits for the device.
pub fn hot_start<T: DeviceRepr>(
    device: &mut CudaDevice,
    block_size: u32,
    spins: &mut CudaSlice<T>,
    grid: &HotStartGrid,
) -> Result<()> {
    assert_eq!(std::mem::size_of::<T>(), 4, "spins are 32-bit words");
    let function = device.function(Kernel::HotStart, &[])?;
    let batches = upload(device, &grid.batches, "hot start lanes")?;
    let [seed_lo, seed_hi] = seed_key(grid.seed);
    let params = HotStartParams {
        seed_lo,
        seed_hi,
        system_threads: grid.system_threads,
        size: grid.size,
        multispin: u32::from(grid.multispin),
        smsc: u32::from(grid.smsc),
        row_words: grid.row_words,
        colour_words: grid.colour_words,
        row_offset: grid.row_offset,
        slice: [grid.slice.block, grid.slice.run_block, grid.slice.first],
        first_layer: 0,
    };
    let config = launch_config(
        device,
        block_size,
        u64::from(grid.system_threads),
        grid.systems,
    );
    let stream = device.stream.clone();
    launch_pieces(device, config, |first_layer, config| {
        let piece = HotStartParams {
            first_layer,
            ..params
        };
        let mut launch = stream.launch_builder(&function);
        launch.arg(&piece).arg(&batches).arg(&mut *spins);
        // SAFETY: the arguments match `hot_start(HotStart, const unsigned*, unsigned*)` in order
        // and type (the spins are 32-bit words, checked above). The kernel stays in bounds:
        // threads past `system_threads` return, the piece's layers from `first_layer` are
        // (word) systems of `spins`, each holding `4 system_threads` spins (simple) or
        // `2 colour_words` words (multispin), and the lane table holds 32 entries per word
        // system (one unused entry for the simple engine, which does not read it).
        unsafe { launch_kernel(&mut launch, config, Kernel::HotStart) }
    })?;
    device.synchronize("the hot start")
}
