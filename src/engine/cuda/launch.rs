//! What every CUDA engine needs around its kernels: zeroed device buffers, grids within the
//! device's limits, a plan run in bounded batches of launches, and the download of 64-bit counter
//! pairs.
#![allow(
    unsafe_code,
    reason = "passing DispatchParams by value to a kernel needs an unsafe DeviceRepr impl"
)]

use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::{
    CudaEvent, CudaFunction, CudaSlice, CudaStream, DeviceRepr, LaunchArgs, LaunchConfig,
    PinnedHostSlice, ValidAsZeroBits,
};

use super::context::CudaDevice;
use super::driver::driver_error;
use crate::engine::dispatch::{
    Dispatch, DispatchParams, PartThreads, layer_pieces, submissions, sweeps_per_submission,
};
use crate::engine::kernels::Kernel;
use crate::engine::{ISING_PASSES, Plan};
use crate::error::{Error, Result};

/// Launches per batch: waiting for each bounded batch (one batch behind the enqueueing) surfaces
/// a kernel fault near its cause and keeps the queue short.
const MAX_LAUNCHES: usize = 1024;

// SAFETY: `DispatchParams` is `#[repr(C)]` and `Pod`: eight `u32`s with no padding, laid out
// exactly as `struct DispatchParams` in shaders/cuda/dispatch.cuh, so its bytes are a valid
// kernel argument.
unsafe impl DeviceRepr for DispatchParams {}

/// A zeroed device buffer of `len` elements (at least one); running out of device memory names
/// the buffer and its size.
pub fn allocate<T: DeviceRepr + ValidAsZeroBits>(
    device: &CudaDevice,
    len: usize,
    what: &str,
) -> Result<CudaSlice<T>> {
    let bytes = len.max(1) * std::mem::size_of::<T>();
    device
        .stream
        .alloc_zeros(len.max(1))
        .map_err(driver_error(format!(
            "allocating {bytes} bytes of {what} on {}",
            device.name
        )))
}

/// A device copy of `data`.
pub fn upload<T: DeviceRepr>(device: &CudaDevice, data: &[T], what: &str) -> Result<CudaSlice<T>> {
    device
        .stream
        .clone_htod(data)
        .map_err(driver_error(format!("uploading the {what}")))
}

/// Set every element of `buffer` to zero.
pub fn clear<T: DeviceRepr + ValidAsZeroBits>(
    device: &CudaDevice,
    buffer: &mut CudaSlice<T>,
    what: &str,
) -> Result<()> {
    device
        .stream
        .memset_zeros(buffer)
        .map_err(driver_error(format!("clearing the {what}")))
}

/// Grid of `block_size`-thread blocks covering `threads` threads per grid layer: x up to the
/// device's limit, spilling into y; z counts the `layers` (systems, word systems or pairs).
pub fn launch_config(
    device: &CudaDevice,
    block_size: u32,
    threads: u64,
    layers: u32,
) -> LaunchConfig {
    let blocks = threads.div_ceil(u64::from(block_size)).max(1);
    let x = blocks.min(u64::from(device.max_grid[0]));
    LaunchConfig {
        grid_dim: (x as u32, blocks.div_ceil(x) as u32, layers),
        block_dim: (block_size, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Launch a grid `config` whose z counts layers (systems, replica pairs) in pieces of at most
/// the device's grid z ([`layer_pieces`]): `launch(params, config)` for each piece, with the
/// piece's first layer in `params.first_layer`, which the kernels add to their z.
pub fn launch_layers(
    device: &CudaDevice,
    (params, config): (&DispatchParams, LaunchConfig),
    mut launch: impl FnMut(&DispatchParams, LaunchConfig) -> Result<()>,
) -> Result<()> {
    launch_pieces(device, config, |first_layer, config| {
        launch(
            &DispatchParams {
                first_layer,
                ..*params
            },
            config,
        )
    })
}

/// Launch `launch` over `config`; a driver error names `kernel`.
///
/// # Safety
///
/// As [`LaunchArgs::launch`]: the arguments pushed match the kernel's parameters in order and
/// type, and the kernel stays within its buffers for `config`'s grid.
pub unsafe fn launch_kernel(
    launch: &mut LaunchArgs<'_>,
    config: LaunchConfig,
    kernel: Kernel,
) -> Result<()> {
    // SAFETY: the caller's, above.
    unsafe { launch.launch(config) }.map_err(driver_error(format!(
        "launching kernel {}",
        kernel.module()
    )))?;
    Ok(())
}

/// [`launch_layers`] for kernels whose first layer is not a [`DispatchParams`] field:
/// `launch(first_layer, config)` for each piece.
pub fn launch_pieces(
    device: &CudaDevice,
    config: LaunchConfig,
    mut launch: impl FnMut(u32, LaunchConfig) -> Result<()>,
) -> Result<()> {
    let (x, y, layers) = config.grid_dim;
    for (first_layer, count) in layer_pieces(layers, device.max_grid[2]) {
        let piece = LaunchConfig {
            grid_dim: (x, y, count),
            ..config
        };
        launch(first_layer, piece)?;
    }
    Ok(())
}

/// A kernel whose results do not depend on its block size, with the block size it launches
/// with: the one asked for in whole warps (those kernels that sum with warp shuffles need them),
/// or the most threads a block of it can have where its registers allow fewer. Found once, when
/// the kernel is loaded.
pub struct FittedKernel {
    pub function: CudaFunction,
    pub block_size: u32,
}

impl FittedKernel {
    pub fn new(function: CudaFunction, block_size: u32) -> Result<Self> {
        let most = function
            .max_threads_per_block()
            .map_err(driver_error("reading a kernel's threads per block"))?;
        let most = u32::try_from(most).unwrap_or(32).max(32) / 32 * 32;
        Ok(FittedKernel {
            function,
            block_size: (block_size / 32 * 32).clamp(32, most),
        })
    }
}

/// Refuse block sizes beyond the device's threads per block.
pub fn check_block_size(device: &CudaDevice, block_size: u32) -> Result<()> {
    if block_size > device.max_threads_per_block {
        return Err(Error::Limits(format!(
            "workgroup_size {block_size} exceeds the {} threads per block of {}",
            device.max_threads_per_block, device.name
        )));
    }
    Ok(())
}

/// Refuse block sizes beyond the device's threads per block, and `layers` grid layers (named
/// `what`) beyond its grid's z limit (engines that launch them in pieces: [`launch_layers`]).
pub fn check_fits(device: &CudaDevice, block_size: u32, layers: u32, what: &str) -> Result<()> {
    check_block_size(device, block_size)?;
    if layers > device.max_grid[2] {
        return Err(Error::Limits(format!(
            "{layers} {what} exceed the grid's z limit of {} on {}",
            device.max_grid[2], device.name
        )));
    }
    Ok(())
}

/// The dispatches of `plan` for `systems` systems (`params.systems`) of a seed, in batches of at
/// most [`MAX_LAUNCHES`] launches and about `flip_budget` site updates (`flips_per_sweep` per
/// sweep), more where the plan measures often ([`sweeps_per_submission`]); engines synchronise
/// after each batch.
fn batches(
    plan: &Plan,
    (seed, systems, sweep_passes): (u64, u32, u32),
    (flips_per_sweep, flip_budget): (u64, u64),
    part_threads: PartThreads,
) -> Vec<Vec<Dispatch>> {
    let sweeps_per_batch = sweeps_per_submission(plan, flips_per_sweep, flip_budget);
    let bounds = (MAX_LAUNCHES, sweeps_per_batch);
    submissions(plan, seed, (systems, sweep_passes), bounds, part_threads)
}

/// The first `pairs` pairs of 64-bit counters of `counters`.
pub fn download_counter_pairs(
    device: &CudaDevice,
    counters: &CudaSlice<u64>,
    pairs: usize,
) -> Result<Vec<[u64; 2]>> {
    let words = device
        .stream
        .clone_dtoh(&counters.slice(..2 * pairs))
        .map_err(driver_error("downloading the observations"))?;
    device.synchronize("downloading the observations")?;
    Ok(words.chunks_exact(2).map(|c| [c[0], c[1]]).collect())
}

/// Page-locked host memory for the downloads of one buffer, grown with them and kept: a
/// download into pageable memory goes through the driver's small staging buffers, about 1 GB/s
/// on the H100 machine (9 ms for the 9 MB of one 3D spin glass measurement at L = 32).
pub struct Staging<T: DeviceRepr + ValidAsZeroBits> {
    pinned: Option<PinnedHostSlice<T>>,
}

impl<T: DeviceRepr + ValidAsZeroBits> Staging<T> {
    pub fn new() -> Self {
        Staging { pinned: None }
    }

    /// Enqueue the download of the first `len` elements of `buffer` into this memory on the
    /// default stream, read by [`Self::read`] once the device has run it.
    pub fn enqueue(
        &mut self,
        device: &CudaDevice,
        buffer: &CudaSlice<T>,
        len: usize,
        what: &str,
    ) -> Result<()> {
        self.reserve(device, len, what)?;
        let pinned = self.pinned.as_mut().expect("reserved above");
        device
            .stream
            .memcpy_dtoh(&buffer.slice(..len), pinned)
            .map_err(driver_error(format!("downloading the {what}")))
    }

    /// Room for at least `len` elements (what it held before is lost where it grows).
    fn reserve(&mut self, device: &CudaDevice, len: usize, what: &str) -> Result<()> {
        if self.pinned.as_ref().is_none_or(|pinned| pinned.len() < len) {
            self.pinned = None;
            self.pinned = Some(device.pinned(len, what)?);
        }
        Ok(())
    }

    /// Elements `range` of `buffer`, downloaded into the start of this memory on `stream` and
    /// waited for there alone: the work queued on other streams goes on meanwhile.
    pub fn read_range(
        &mut self,
        device: &CudaDevice,
        stream: &Arc<CudaStream>,
        buffer: &CudaSlice<T>,
        range: Range<usize>,
        what: &str,
    ) -> Result<&[T]> {
        let len = range.len();
        self.reserve(device, len, what)?;
        let failed = driver_error(format!("downloading the {what}"));
        let pinned = self.pinned.as_mut().expect("reserved above");
        let host = &mut pinned.as_mut_slice().map_err(&failed)?[..len];
        stream
            .memcpy_dtoh(&buffer.slice(range), host)
            .map_err(&failed)?;
        stream.synchronize().map_err(&failed)?;
        Ok(&pinned.as_slice().map_err(&failed)?[..len])
    }

    /// The first `len` elements of the last download enqueued (waiting for it).
    pub fn read(&self, len: usize, what: &str) -> Result<&[T]> {
        let pinned = self.pinned.as_ref().expect("allocated by enqueue");
        let all = pinned
            .as_slice()
            .map_err(driver_error(format!("downloading the {what}")))?;
        Ok(&all[..len])
    }
}

/// All of `buffer`.
pub fn download<T: DeviceRepr>(
    device: &CudaDevice,
    buffer: &CudaSlice<T>,
    what: &str,
) -> Result<Vec<T>> {
    let data = device
        .stream
        .clone_dtoh(buffer)
        .map_err(driver_error(format!("downloading the {what}")))?;
    device.synchronize(&format!("downloading the {what}"))?;
    Ok(data)
}

/// Overwrite the start of `buffer` with `data`, waiting until it is there.
pub fn overwrite<T: DeviceRepr>(
    device: &CudaDevice,
    data: &[T],
    buffer: &mut CudaSlice<T>,
    what: &str,
) -> Result<()> {
    enqueue_overwrite(device, data, buffer, what)?;
    device.synchronize(&format!("uploading the {what}"))
}

/// Overwrite the start of `buffer` with `data` on the default stream, without waiting: the
/// kernels enqueued after it (on the default stream or, ordered after it, on the blocking
/// streams) read the new data. `data` is free again when this returns: an asynchronous copy
/// from pageable memory is staged before the call returns.
pub fn enqueue_overwrite<T: DeviceRepr>(
    device: &CudaDevice,
    data: &[T],
    buffer: &mut CudaSlice<T>,
    what: &str,
) -> Result<()> {
    device
        .stream
        .memcpy_htod(data, buffer)
        .map_err(driver_error(format!("uploading the {what}")))
}

/// A CUDA engine replaying plans: it enqueues the kernels of a batch of dispatches, and
/// [`Launches::run`] runs a plan in bounded batches.
pub trait Launches {
    fn device(&self) -> &CudaDevice;

    /// The update threads holding pass `pass`'s sites on `planes` ([`PartThreads`]).
    fn part_threads(&self, pass: u32, planes: Range<u32>) -> Range<u32>;

    /// The passes of a sweep: its two colours, more where the engine's layout updates a colour
    /// in parts ([`crate::engine::multispin::MultispinLayout::sweep_passes`]).
    fn sweep_passes(&self) -> u32 {
        ISING_PASSES
    }

    /// Enqueue the kernels of `batch`, each system's in the order of its dispatches.
    fn launch_batch(&mut self, batch: &[Dispatch]) -> Result<()>;

    /// `batch` has run on the device, and the next batch is queued behind it: the host's work
    /// on what `batch` measured goes here, beside the device's on the next batch.
    fn batch_done(&mut self, _batch: &[Dispatch]) -> Result<()> {
        Ok(())
    }

    /// Enqueue the dispatches of `plan` (see [`batches`]) with at most two batches queued: each
    /// batch is enqueued before the host waits for the one before it, so that the device never
    /// waits for the host's enqueueing, and that one's [`batch_done`](Self::batch_done) runs
    /// while the device works on the next. The caller waits for the last (with what it
    /// enqueues behind it).
    fn run(
        &mut self,
        plan: &Plan,
        seeded: (u64, u32),
        flips_per_sweep: u64,
        flip_budget: u64,
    ) -> Result<()> {
        let mut queued: Option<(Vec<Dispatch>, CudaEvent)> = None;
        let flips = (flips_per_sweep, flip_budget);
        let seeded = (seeded.0, seeded.1, self.sweep_passes());
        let all = batches(plan, seeded, flips, &|pass, planes| {
            self.part_threads(pass, planes)
        });
        for batch in all {
            self.launch_batch(&batch)?;
            let mark = self.device().mark("running the sweep kernels")?;
            if let Some((done, done_mark)) = queued.replace((batch, mark)) {
                self.device()
                    .wait_for(&done_mark, "running the sweep kernels")?;
                self.batch_done(&done)?;
            }
        }
        Ok(())
    }
}
