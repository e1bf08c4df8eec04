//! Population annealing's copies on a CUDA device, shared by the simple and multispin engines
//! (kernel `copy_systems`, the twin of `engine::wgpu::copy_systems` and of the CPU's
//! `engine/cpu/copy_systems.rs`). Per copy: the map (one `u32` per destination, laid out as
//! [`CopyUnit`] says) is uploaded or written by kernels, the kernel gathers every destination
//! word from the spins into a second spin buffer, and the two buffers trade places (so the
//! lattices of before the copy stay in the second until the next); all on the device's default
//! stream, ordered after the sweeps of the blocking streams. The second buffer and the map are
//! allocated by the first copy, so an engine that never copies does not hold them.
#![allow(unsafe_code, reason = "kernel launches are unsafe in cudarc")]

use cudarc::driver::{CudaFunction, CudaSlice, DeviceRepr, PushKernelArg, ValidAsZeroBits};

use super::context::CudaDevice;
use super::driver::driver_error;
use super::launch::{allocate, launch_config, overwrite};
use crate::engine::copy_maps::{CopyUnit, kernel_system_words, map_words};
use crate::engine::kernels::Kernel;
use crate::error::Result;

/// Names of the constants the copy kernel is compiled with (as `SPINFLIP_<name>`): its WGSL
/// twin's override constants but the block size, and the runs per warp ([`WARP_RUNS`]).
pub(super) const CONSTANTS: [&str; 4] = ["SYSTEM_WORDS", "SYSTEMS", "LANE_COPIES", "WARP_RUNS"];

/// The copy kernel with its buffers, for spins of element type `T` (the simple engine's `int`
/// spins move as their bits).
pub struct CudaCopies<T> {
    kernel: CudaFunction,
    map: CudaSlice<u32>,
    /// The spin buffer the next gather writes, holding the lattices of before the last.
    other: CudaSlice<T>,
    /// (Word) systems: the destinations, one after the other along the grid's threads.
    systems: u32,
    system_words: u32,
    block_size: u32,
}

impl<T: DeviceRepr + ValidAsZeroBits> CudaCopies<T> {
    /// The kernel for `systems` (word) systems of `system_words` words each, `len` elements of
    /// spins in all.
    fn new(
        device: &mut CudaDevice,
        (systems, system_words): (u32, u64),
        unit: CopyUnit,
        len: usize,
        block_size: u32,
    ) -> Result<Self> {
        let system_words = kernel_system_words(system_words)?;
        let [words, destinations, lanes, runs] = CONSTANTS;
        let constants = [
            (words, system_words),
            (destinations, systems),
            (lanes, u32::from(unit == CopyUnit::Lanes)),
            (runs, WARP_RUNS),
        ];
        Ok(CudaCopies {
            kernel: device.function(Kernel::CopySystems, &constants)?,
            map: allocate(device, map_words(unit, systems) as usize, "copy map")?,
            other: allocate(device, len, "second spin buffer")?,
            systems,
            system_words,
            block_size,
        })
    }

    /// The copies in `slot`, created by the first call (see [`CudaCopies::new`]).
    pub fn ensure<'a>(
        slot: &'a mut Option<CudaCopies<T>>,
        device: &mut CudaDevice,
        shape: (u32, u64),
        unit: CopyUnit,
        len: usize,
        block_size: u32,
    ) -> Result<&'a mut CudaCopies<T>> {
        if slot.is_none() {
            *slot = Some(CudaCopies::new(device, shape, unit, len, block_size)?);
        }
        Ok(slot.as_mut().expect("created above"))
    }

    /// Copy as `map` says (see [`Self::gather`]); waits for the device.
    pub fn copy(
        &mut self,
        device: &CudaDevice,
        spins: &mut CudaSlice<T>,
        map: &[u32],
    ) -> Result<()> {
        overwrite(device, map, &mut self.map, "copy map")?;
        self.gather(device, spins)
    }

    /// The map the copy kernel reads (laid out as [`CopyUnit`] says), for kernels that write
    /// it on the device (population annealing's resampling step).
    pub fn map_mut(&mut self) -> &mut CudaSlice<u32> {
        &mut self.map
    }

    /// Copy as the device's map says: gather every destination from `spins` into the second
    /// buffer, which becomes `spins`; waits for the device.
    pub fn gather(&mut self, device: &CudaDevice, spins: &mut CudaSlice<T>) -> Result<()> {
        self.enqueue_gather(device, spins)?;
        device.synchronize("copying systems")
    }

    /// [`Self::gather`] enqueued on the default stream without waiting; the lattices of before
    /// it stay in the second buffer for [`Self::restore`].
    pub fn enqueue_gather(&mut self, device: &CudaDevice, spins: &mut CudaSlice<T>) -> Result<()> {
        let threads = cuda_copy_threads(self.system_words) * u64::from(self.systems);
        let config = launch_config(device, self.block_size, threads, 1);
        let mut launch = device.stream.launch_builder(&self.kernel);
        launch.arg(&self.map).arg(&*spins).arg(&mut self.other);
        // SAFETY: the arguments match copy_systems's parameters in order (the map, the source
        // and the destination spins as `unsigned` words, whatever their element type). Threads
        // past the last system return; the threads count the (word) systems (SYSTEMS), which both
        // buffers (of the same length) hold, and the map holds an entry per destination whose sources the
        // engine checked against the systems or the kernels wrote within them. The threads
        // write every word of every system, so the destination becomes a whole new lattice set.
        unsafe { launch.launch(config) }.map_err(driver_error("launching kernel copy_systems"))?;
        std::mem::swap(spins, &mut self.other);
        Ok(())
    }

    /// Put the lattices of before the last gather back (a resampling step refused after its
    /// copy was enqueued, see `engine::cuda::resampling`): the buffers trade places again.
    pub fn restore(&mut self, spins: &mut CudaSlice<T>) {
        std::mem::swap(spins, &mut self.other);
    }
}

/// Runs of 32 words each warp of the copy kernel writes: a warp reads its system's lane sources
/// once and issues the loads of all its runs before it waits on them (with one run per warp, the
/// two dependent loads of each short-lived warp bounded the kernel: 84 us at 3D EA L = 16, 2^16
/// replicas, on the H100, whatever the warp computed).
const WARP_RUNS: u32 = 8;

/// Threads of the CUDA copy kernel per (word) system of `system_words` words: whole warps, each
/// for [`WARP_RUNS`] runs of 32 words.
fn cuda_copy_threads(system_words: u32) -> u64 {
    u64::from(system_words.div_ceil(32 * WARP_RUNS)) * 32
}
