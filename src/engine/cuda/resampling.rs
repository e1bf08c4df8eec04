//! Population annealing's resampling step on a CUDA device (multispin engine), the twin of
//! `engine::wgpu::resampling` (kernels `resample_count`, `resample_scan`, `resample_scatter`;
//! the CPU reference and the layout of the step: [`crate::engine::annealing`]). The three
//! kernels and the copy kernel's gather by the map they wrote run on the device's default
//! stream, ordered after the last sweeps and before the next, with no wait between them: the
//! host reads the new population sizes once the plan's work is done, and refuses a population
//! that died out or outgrew its block by putting back the lattices of before the step (the copy
//! kernel's second spin buffer). `resample_histogram` counts a measurement as two histograms per
//! population.
#![allow(unsafe_code, reason = "kernel launches are unsafe in cudarc")]

use cudarc::driver::{CudaFunction, CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg};

use super::context::CudaDevice;
use super::copy_systems::CudaCopies;
use super::driver::driver_error;
use super::launch::{
    Staging, allocate, clear, enqueue_overwrite, launch_config, overwrite, upload,
};
use crate::engine::annealing::{
    PopulationHistograms, ResamplingTable, check_size, check_sizes, no_table,
};
use crate::engine::kernels::Kernel;
use crate::engine::resampling::{CHUNK, ResampleParams, bins, check_chunks};
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

/// Page-locked host memory for what a step downloads, each kept between steps.
struct StepStaging {
    sizes: Staging<u32>,
    copies: Staging<u32>,
    satisfied: Staging<u32>,
    up: Staging<u32>,
}

impl Default for StepStaging {
    fn default() -> Self {
        StepStaging {
            sizes: Staging::new(),
            copies: Staging::new(),
            satisfied: Staging::new(),
            up: Staging::new(),
        }
    }
}

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
    /// Page-locked memory the sizes, copies and histograms are downloaded into each step.
    staging: StepStaging,
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
    /// `positions` ([`crate::engine::copy_maps::system_positions`]), lattices of `bonds` bonds
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
            staging: StepStaging::default(),
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

    /// Enqueue the count of the populations' histograms of the measurement at observation
    /// pair `observation_base` of `observations`, read by [`Self::read_back`].
    pub fn enqueue_histograms(
        &mut self,
        device: &CudaDevice,
        observations: &CudaSlice<u64>,
        observation_base: u32,
    ) -> Result<()> {
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
        Ok(())
    }

    /// What the host reads once a plan's work is enqueued, with one wait: the copies of every
    /// system of the resampling step `step` (where the plan began with one) and the histograms
    /// enqueued by [`Self::enqueue_histograms`] (with `histograms`). A step whose population
    /// died out or outgrew its block is refused here, and the lattices of before it put back
    /// into `spins`, so that a refused step moves none.
    pub fn read_back(
        &mut self,
        device: &CudaDevice,
        step: Option<PendingStep>,
        (copies, spins): (&mut CudaCopies<u32>, &mut CudaSlice<u32>),
        histograms: bool,
    ) -> Result<(Vec<u32>, Option<PopulationHistograms>)> {
        let (blocks, systems) = ((self.systems / self.slots) as usize, self.systems as usize);
        let bins = (self.satisfied_bins.len(), self.up_bins.len());
        if step.is_some() {
            self.staging
                .sizes
                .enqueue(device, &self.sizes, blocks, "population sizes")?;
            self.staging
                .copies
                .enqueue(device, &self.copies, systems, "copies")?;
        }
        if histograms {
            let staging = &mut self.staging;
            let satisfied = "satisfied-bond histograms";
            staging
                .satisfied
                .enqueue(device, &self.satisfied_bins, bins.0, satisfied)?;
            staging
                .up
                .enqueue(device, &self.up_bins, bins.1, "up-spin histograms")?;
        }
        device.synchronize("running the annealing step")?;
        let mut copied = Vec::new();
        if let Some(step) = step {
            let sizes = self.staging.sizes.read(blocks, "population sizes")?;
            let checked = (sizes.iter().enumerate())
                .try_for_each(|(b, &size)| check_size(u64::from(size), step.slots, b));
            if let Err(refused) = checked {
                copies.restore(spins);
                return Err(refused);
            }
            copied = self.staging.copies.read(systems, "copies")?.to_vec();
        }
        let histograms = match histograms {
            true => Some(PopulationHistograms {
                bond_bins: self.bins.0,
                site_bins: self.bins.1,
                satisfied: (self.staging.satisfied)
                    .read(bins.0, "satisfied-bond histograms")?
                    .to_vec(),
                up: self.staging.up.read(bins.1, "up-spin histograms")?.to_vec(),
            }),
            false => None,
        };
        Ok((copied, histograms))
    }

    /// Upload `table` for the next step (checked against the engine's systems and these
    /// kernels' blocks).
    pub fn set_table(&mut self, device: &CudaDevice, table: &ResamplingTable) -> Result<()> {
        table.check_blocks(self.systems, self.slots)?;
        let entries = table.entries.as_flattened();
        if self.entries.len() < entries.len() {
            self.entries = allocate(device, entries.len(), "table entries")?;
        }
        // The step's kernels, enqueued behind these copies, are the first to read them.
        enqueue_overwrite(
            device,
            bytemuck::cast_slice(&table.heads),
            &mut self.heads,
            "table heads",
        )?;
        enqueue_overwrite(device, entries, &mut self.entries, "table entries")?;
        self.table = Some(table.shape());
        Ok(())
    }

    /// Enqueue step `step` from the measurement at observation pair `observation_base` of
    /// `observations`: the copy map written into `copies`' map and the lattices of `spins`
    /// gathered by it, with no wait, so that the plan's sweeps follow at once on the device.
    /// [`Self::read_back`], once the device has run them, checks the new sizes.
    pub fn enqueue(
        &mut self,
        device: &CudaDevice,
        (seed, step): (u64, u32),
        (observations, observation_base): (&CudaSlice<u64>, u32),
        copies: &mut CudaCopies<u32>,
        spins: &mut CudaSlice<u32>,
    ) -> Result<PendingStep> {
        let table = self.table.take().ok_or_else(no_table)?;
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
        // systems return, the binary search stays within the destination's block, and a
        // population beyond its block writes only its block's destinations.
        unsafe { scatter.launch(system_grid) }
            .map_err(driver_error("launching resample_scatter"))?;
        copies.enqueue_gather(device, spins)?;
        Ok(PendingStep { slots: table.slots })
    }
}

/// A resampling step enqueued on the device, to be finished by [`CudaResampling::read_back`].
#[must_use = "a step's sizes are checked by read_back"]
pub struct PendingStep {
    /// Systems per block of its table.
    slots: u32,
}
