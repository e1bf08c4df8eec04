//! Population annealing's resampling step on a CUDA device (multispin engine), the twin of
//! `engine::gpu::resampling` (kernels `resample_count`, `resample_scan`, `resample_scatter`;
//! the CPU reference and the layout of the step: [`crate::engine::annealing`]). The three
//! kernels run on the device's default stream after the sweeps; the host reads the new
//! population sizes and refuses a population that died out or outgrew its block before the
//! copy kernel gathers the lattices by the map the kernels wrote. `resample_histogram` counts
//! a measurement as two histograms per population.
#![allow(unsafe_code, reason = "kernel launches are unsafe in cudarc")]

use cudarc::driver::{CudaFunction, CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg};

use super::context::{CudaDevice, driver_error};
use super::copy_systems::CudaCopies;
use super::launch::{Staging, allocate, clear, download, launch_config, overwrite, upload};
use crate::engine::annealing::{
    PopulationHistograms, ResamplingTable, check_size, check_sizes, no_table,
};
use crate::engine::gpu::resampling::{CHUNK, ResampleParams, bins, check_chunks};
use crate::engine::gpu::shaders::Kernel;
use crate::error::{Error, Result};

/// Names of the constants the resampling kernels are compiled with (as `SPINFLIP_<name>`).
pub(super) const CONSTANTS: [&str; 6] = [
    "SLOTS",
    "CHUNKS",
    "SUM_LANES",
    "SYSTEMS",
    "BOND_BINS",
    "SITE_BINS",
];

// SAFETY: `ResampleParams` is `#[repr(C)]` and `Pod`: five `u32`s with no padding, laid out
// exactly as `struct ResampleParams` in shaders/cuda/resample.cuh.
unsafe impl DeviceRepr for ResampleParams {}

/// Threads of the scan kernel's block (`SCAN_THREADS` in `resample.cuh`).
const SCAN_THREADS: u32 = 256;

/// The resampling kernels and buffers of a CUDA engine.
pub struct CudaResampling {
    count: CudaFunction,
    scan: CudaFunction,
    scatter: CudaFunction,
    histogram: CudaFunction,
    positions: CudaSlice<u32>,
    /// [`crate::engine::annealing::TableHead`]s as their five words each.
    heads: CudaSlice<u32>,
    /// `[copies, threshold]` pairs.
    entries: CudaSlice<u32>,
    copies: CudaSlice<u32>,
    /// Page-locked memory the copies are downloaded into (4 bytes per system each step).
    copies_staging: Staging<u32>,
    chunks: CudaSlice<u32>,
    sizes: CudaSlice<u32>,
    /// The histograms of the last measurement, `[block][bin]`.
    satisfied_bins: CudaSlice<u32>,
    up_bins: CudaSlice<u32>,
    /// Bins per block of each histogram (bonds + 1, sites + 1).
    bins: (u32, u32),
    /// The table's shape of the next step (its heads and entries are on the device).
    table: Option<ResamplingTable>,
    systems: u32,
    slots: u32,
    block_size: u32,
}

impl CudaResampling {
    /// The kernels for blocks of `slots` of `positions.len()` systems whose map entries are
    /// `positions` (`engine::gpu::copy_systems::system_positions`), lattices of `bonds` bonds
    /// and `sites` sites; `sum_lanes` where a system's counts are its word system's 32 lanes
    /// (SMSC).
    pub fn new(
        device: &mut CudaDevice,
        positions: &[u32],
        (slots, bonds, sites): (u32, u64, u64),
        sum_lanes: bool,
        block_size: u32,
    ) -> Result<Self> {
        let systems = positions.len() as u32;
        check_chunks(slots, systems)?;
        let bins = bins(bonds, sites)?;
        let blocks = systems / slots;
        if blocks > device.max_grid[0] {
            return Err(Error::Limits(format!(
                "resampling: {blocks} populations exceed the device's {} blocks of a grid's x; \
                 use fewer samples or runs",
                device.max_grid[0]
            )));
        }
        let constants: Vec<(&'static str, u32)> = CONSTANTS
            .into_iter()
            .zip([
                slots,
                systems / CHUNK,
                u32::from(sum_lanes),
                systems,
                bins.0,
                bins.1,
            ])
            .collect();
        Ok(CudaResampling {
            count: device.function(Kernel::ResampleCount, &constants)?,
            scan: device.function(Kernel::ResampleScan, &constants)?,
            scatter: device.function(Kernel::ResampleScatter, &constants)?,
            histogram: device.function(Kernel::ResampleHistogram, &constants)?,
            positions: upload(device, positions, "system positions")?,
            heads: allocate(device, 5 * blocks as usize, "table heads")?,
            entries: allocate(device, 2, "table entries")?,
            // The copies, then each system's first destination within its chunk.
            copies: allocate(device, 2 * systems as usize, "copies")?,
            copies_staging: Staging::new(),
            chunks: allocate(device, (systems / CHUNK) as usize, "chunk copies")?,
            sizes: allocate(device, blocks as usize, "population sizes")?,
            satisfied_bins: allocate(
                device,
                (blocks * bins.0) as usize,
                "satisfied-bond histograms",
            )?,
            up_bins: allocate(device, (blocks * bins.1) as usize, "up-spin histograms")?,
            bins,
            table: None,
            systems,
            slots,
            block_size,
        })
    }

    /// Systems per block the kernels were built for.
    pub fn slots(&self) -> u32 {
        self.slots
    }

    /// The populations' sizes (`sizes[b]` replicas of block `b`), until a step changes them.
    pub fn set_sizes(&mut self, device: &CudaDevice, sizes: &[u32]) -> Result<()> {
        check_sizes(sizes, self.systems / self.slots, self.slots)?;
        overwrite(device, sizes, &mut self.sizes, "population sizes")
    }

    /// The populations' histograms of the measurement at observation pair `observation_base`
    /// of `observations`.
    pub fn histograms(
        &mut self,
        device: &CudaDevice,
        observations: &CudaSlice<u64>,
        observation_base: u32,
    ) -> Result<PopulationHistograms> {
        let params = ResampleParams::measurement(observation_base);
        clear(
            device,
            &mut self.satisfied_bins,
            "satisfied-bond histograms",
        )?;
        clear(device, &mut self.up_bins, "up-spin histograms")?;
        let grid = launch_config(device, self.block_size, u64::from(self.systems), 1);
        let mut histogram = device.stream.launch_builder(&self.histogram);
        histogram
            .arg(&params)
            .arg(observations)
            .arg(&self.positions)
            .arg(&self.sizes)
            .arg(&mut self.satisfied_bins)
            .arg(&mut self.up_bins);
        // SAFETY: the arguments match resample_histogram's parameters in order; threads past
        // the systems return, counts stay below the bins (bonds + 1, sites + 1) and blocks
        // below the sizes' length.
        unsafe { histogram.launch(grid) }.map_err(driver_error("launching resample_histogram"))?;
        Ok(PopulationHistograms {
            bond_bins: self.bins.0,
            site_bins: self.bins.1,
            satisfied: download(device, &self.satisfied_bins, "satisfied-bond histograms")?,
            up: download(device, &self.up_bins, "up-spin histograms")?,
        })
    }

    /// Upload `table` for the next step (checked against the engine's systems and these
    /// kernels' blocks).
    pub fn set_table(&mut self, device: &CudaDevice, table: &ResamplingTable) -> Result<()> {
        table.check_blocks(self.systems, self.slots)?;
        let entries = table.entries.as_flattened();
        if self.entries.len() < entries.len() {
            self.entries = allocate(device, entries.len(), "table entries")?;
        }
        overwrite(
            device,
            bytemuck::cast_slice(&table.heads),
            &mut self.heads,
            "table heads",
        )?;
        overwrite(device, entries, &mut self.entries, "table entries")?;
        self.table = Some(table.shape());
        Ok(())
    }

    /// Step `step` from the measurement at observation pair `observation_base` of
    /// `observations`: the copy map written into `copies`' map and the lattices of `spins`
    /// gathered by it. The copies of every system.
    pub fn resample(
        &mut self,
        device: &CudaDevice,
        (seed, step): (u64, u32),
        (observations, observation_base): (&CudaSlice<u64>, u32),
        copies: &mut CudaCopies<u32>,
        spins: &mut CudaSlice<u32>,
    ) -> Result<Vec<u32>> {
        let table = self.table.take().ok_or_else(no_table)?;
        let started = std::time::Instant::now();
        let params = ResampleParams::new(seed, step, observation_base, &table);
        let chunk_grid = launch_config(device, self.block_size, u64::from(self.systems / CHUNK), 1);
        let system_grid = launch_config(device, self.block_size, u64::from(self.systems), 1);
        let stream = &device.stream;
        let mut count = stream.launch_builder(&self.count);
        count
            .arg(&params)
            .arg(observations)
            .arg(&self.positions)
            .arg(&self.heads)
            .arg(&self.entries)
            .arg(&mut self.copies)
            .arg(&mut self.chunks)
            .arg(copies.map_mut());
        // SAFETY: the arguments match resample_count's parameters in order; threads past the
        // chunks return, the positions and copies hold an entry per system, the heads one per
        // block, the table's entries were checked against its heads, and the observations
        // hold the slot the engine measured last.
        unsafe { count.launch(chunk_grid) }.map_err(driver_error("launching resample_count"))?;
        let scan_grid = LaunchConfig {
            grid_dim: (table.heads.len() as u32, 1, 1),
            block_dim: (SCAN_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut scan = stream.launch_builder(&self.scan);
        scan.arg(&mut self.chunks).arg(&mut self.sizes);
        // SAFETY: one block per population, whose chunks and size the buffers hold.
        unsafe { scan.launch(scan_grid) }.map_err(driver_error("launching resample_scan"))?;
        let mut scatter = stream.launch_builder(&self.scatter);
        scatter
            .arg(&self.positions)
            .arg(&self.copies)
            .arg(&self.chunks)
            .arg(&self.sizes)
            .arg(copies.map_mut());
        // SAFETY: the arguments match resample_scatter's parameters in order; threads past the
        // systems return, the binary search stays within the destination's block.
        unsafe { scatter.launch(system_grid) }
            .map_err(driver_error("launching resample_scatter"))?;
        let sizes = download(device, &self.sizes, "population sizes")?;
        for (b, &size) in sizes.iter().enumerate() {
            check_size(u64::from(size), table.slots, b)?;
        }
        let decided = started.elapsed();
        copies.gather(device, spins)?;
        let gathered = started.elapsed();
        let systems = self.systems as usize;
        let copies = self
            .copies_staging
            .download(device, &self.copies, systems, "copies")?
            .to_vec();
        log::debug!(
            "cuda resampling step {step}: decisions {:.2} ms, gather {:.2} ms, copies to the \
             host {:.2} ms",
            decided.as_secs_f64() * 1e3,
            (gathered - decided).as_secs_f64() * 1e3,
            (started.elapsed() - gathered).as_secs_f64() * 1e3
        );
        Ok(copies)
    }
}
