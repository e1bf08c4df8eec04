//! Population annealing's resampling step on a wgpu device (multispin engine; the CPU
//! reference and the layout of the step: [`crate::engine::annealing`]). Three kernels in one
//! submission: `resample_count` (every replica's copies from the table, its first
//! destination within its chunk of [`CHUNK`] systems, the chunk's sum, and the identity copy
//! map), `resample_scan` (per block, each chunk's first destination and the new population
//! size) and `resample_scatter` (an invocation per destination: its source by binary search,
//! its copy-map entry), submitted with the copy kernel's gather by the map and followed by the
//! plan's sweeps with no wait between. Once the plan's work is done the host reads the sizes,
//! the copies (for its family records) and the histograms in one read, and refuses a
//! population that died out or outgrew its block by putting back the lattices of before the
//! step (the copy kernel's other spin buffer). Only the table (a few thousand levels per
//! population) and those counts cross the bus, never a replica's lattice. With
//! `resample_histogram` a measurement reaches the host as two histograms per population (its
//! satisfied-bond and up-spin counts) instead of every system's counts.

use super::context::{WgpuContext, storage_usage};
use super::copy_systems::WgpuCopies;
use super::launch::Dispatcher;
use crate::engine::annealing::{
    PopulationHistograms, ResamplingTable, check_size, check_sizes, no_table,
};
use crate::engine::kernels::Kernel;
use crate::engine::resampling::{CHUNK, ResampleParams, bins, check_chunks};
use crate::error::{Error, Result};

/// The resampling kernels and buffers of a wgpu engine.
pub struct WgpuResampling {
    count: wgpu::ComputePipeline,
    scan: wgpu::ComputePipeline,
    scatter: wgpu::ComputePipeline,
    histogram: wgpu::ComputePipeline,
    params: wgpu::Buffer,
    positions: wgpu::Buffer,
    heads: wgpu::Buffer,
    entries: wgpu::Buffer,
    copies: wgpu::Buffer,
    chunks: wgpu::Buffer,
    sizes: wgpu::Buffer,
    /// The histograms of the last measurement, `[block][bin]`.
    satisfied_bins: wgpu::Buffer,
    up_bins: wgpu::Buffer,
    /// Bins per block of each histogram (bonds + 1, sites + 1).
    bins: (u32, u32),
    /// The table's shape of the next step (its heads and entries are on the device).
    table: Option<ResamplingTable>,
    systems: u32,
    slots: u32,
}

impl WgpuResampling {
    /// The kernels for blocks of `slots` of `positions.len()` systems whose map entries are
    /// `positions` ([`crate::engine::copy_maps::system_positions`]), lattices of `bonds` bonds and
    /// `sites` sites; `sum_lanes` where a system's counts are its word system's 32 lanes
    /// (SMSC).
    pub fn new(
        ctx: &mut WgpuContext,
        positions: &[u32],
        (slots, bonds, sites): (u32, u64, u64),
        sum_lanes: bool,
        workgroup_size: u32,
    ) -> Result<Self> {
        let systems = positions.len() as u32;
        check_chunks(slots, systems)?;
        let bins = bins(bonds, sites)?;
        let constants = [
            ("WG_SIZE", workgroup_size),
            ("SLOTS", slots),
            ("CHUNKS", systems / CHUNK),
            ("SUM_LANES", u32::from(sum_lanes)),
            ("SYSTEMS", systems),
            ("BOND_BINS", bins.0),
            ("SITE_BINS", bins.1),
        ];
        let blocks = systems / slots;
        let max_groups = ctx.limits.max_compute_workgroups_per_dimension;
        if blocks > max_groups {
            return Err(Error::Limits(format!(
                "resampling: {blocks} populations exceed the {max_groups} workgroups of one \
                 dispatch dimension; use fewer samples or runs"
            )));
        }
        Ok(WgpuResampling {
            count: ctx.pipeline(Kernel::ResampleCount, &constants)?.clone(),
            scan: ctx.pipeline(Kernel::ResampleScan, &constants)?.clone(),
            scatter: ctx.pipeline(Kernel::ResampleScatter, &constants)?.clone(),
            histogram: ctx.pipeline(Kernel::ResampleHistogram, &constants)?.clone(),
            params: ctx.upload("resampling parameters", &[0; 5])?,
            positions: ctx.upload("system positions", positions)?,
            heads: ctx.buffer("table heads", 20 * u64::from(blocks), storage_usage())?,
            entries: ctx.buffer("table entries", 8, storage_usage())?,
            // The copies, then each system's first destination within its chunk.
            copies: ctx.buffer("copies", 8 * u64::from(systems), storage_usage())?,
            chunks: ctx.buffer(
                "chunk copies",
                4 * u64::from(systems / CHUNK),
                storage_usage(),
            )?,
            sizes: ctx.buffer("population sizes", 4 * u64::from(blocks), storage_usage())?,
            satisfied_bins: ctx.buffer(
                "satisfied-bond histograms",
                4 * u64::from(blocks) * u64::from(bins.0),
                storage_usage(),
            )?,
            up_bins: ctx.buffer(
                "up-spin histograms",
                4 * u64::from(blocks) * u64::from(bins.1),
                storage_usage(),
            )?,
            bins,
            table: None,
            systems,
            slots,
        })
    }

    /// Systems per block the kernels were built for.
    pub fn slots(&self) -> u32 {
        self.slots
    }

    /// The populations' sizes (`sizes[b]` replicas of block `b`), until a step changes them.
    pub fn set_sizes(&self, ctx: &WgpuContext, sizes: &[u32]) -> Result<()> {
        check_sizes(sizes, self.systems / self.slots, self.slots)?;
        ctx.write_words(&self.sizes, sizes);
        Ok(())
    }

    /// Submit the count of the populations' histograms of the measurement at observation pair
    /// `observation_base` of `observations`, read by [`Self::read_back`].
    pub fn enqueue_histograms(
        &self,
        ctx: &WgpuContext,
        dispatcher: &Dispatcher,
        observations: &wgpu::Buffer,
        observation_base: u32,
    ) {
        let params = ResampleParams::measurement(observation_base);
        ctx.write_words(&self.params, bytemuck::cast_slice(&[params]));
        let group = ctx.bind_buffers(
            "resample histogram",
            &self.histogram,
            &[
                &self.params,
                observations,
                &self.positions,
                &self.sizes,
                &self.satisfied_bins,
                &self.up_bins,
            ],
        );
        let (x, y, z) = dispatcher.grid(ctx, u64::from(self.systems), 1);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&self.satisfied_bins, 0, None);
        encoder.clear_buffer(&self.up_bins, 0, None);
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.histogram);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(x, y, z);
        }
        ctx.queue.submit([encoder.finish()]);
    }

    /// What the host reads once a plan's work is done, in one read: the copies of every system
    /// of the resampling step `step` (where the plan began with one) and the histograms
    /// submitted by [`Self::enqueue_histograms`] (with `histograms`). A step whose population
    /// died out or outgrew its block is refused here, and the lattices of before it put back
    /// into `spins`, so that a refused step moves none.
    pub fn read_back(
        &self,
        ctx: &WgpuContext,
        step: Option<PendingStep>,
        (copies, spins): (&mut WgpuCopies, &mut wgpu::Buffer),
        histograms: bool,
    ) -> Result<(Vec<u32>, Option<PopulationHistograms>)> {
        let mut buffers = Vec::new();
        if step.is_some() {
            let copies = 4 * u64::from(self.systems);
            let sizes = 4 * u64::from(self.systems / self.slots);
            buffers.extend([(&self.sizes, sizes), (&self.copies, copies)]);
        }
        if histograms {
            let bins = [&self.satisfied_bins, &self.up_bins];
            buffers.extend(bins.map(|b| (b, b.size())));
        }
        let mut read = ctx.read_buffers(&buffers)?.into_iter();
        let mut copied = Vec::new();
        if let Some(step) = step {
            let sizes = read.next().expect("read above");
            let checked = (sizes.iter().enumerate())
                .try_for_each(|(b, &size)| check_size(u64::from(size), step.slots, b));
            if let Err(refused) = checked {
                copies.restore(spins);
                return Err(refused);
            }
            copied = read.next().expect("read above");
        }
        let histograms = histograms.then(|| PopulationHistograms {
            bond_bins: self.bins.0,
            site_bins: self.bins.1,
            satisfied: read.next().expect("read above"),
            up: read.next().expect("read above"),
        });
        Ok((copied, histograms))
    }

    /// Upload `table` for the next step (checked against the engine's systems and these
    /// kernels' blocks).
    pub fn set_table(&mut self, ctx: &WgpuContext, table: &ResamplingTable) -> Result<()> {
        table.check_blocks(self.systems, self.slots)?;
        let bytes = 8 * table.entries.len().max(1) as u64;
        if self.entries.size() < bytes {
            self.entries = ctx.buffer("table entries", bytes, storage_usage())?;
        }
        ctx.queue
            .write_buffer(&self.heads, 0, bytemuck::cast_slice(&table.heads));
        ctx.queue
            .write_buffer(&self.entries, 0, bytemuck::cast_slice(&table.entries));
        self.table = Some(table.shape());
        Ok(())
    }

    /// Submit step `step` from the measurement at observation pair `observation_base` of
    /// `observations`: the copy map written into `copies`' map and the lattices of `spins`
    /// gathered by it into the other buffer, which becomes `spins`, with no wait, so that the
    /// plan's sweeps follow at once on the device.
    /// [`Self::read_back`], once the device has run them, checks the new sizes.
    #[allow(
        clippy::too_many_arguments,
        reason = "the engine's buffers the step joins"
    )]
    pub fn enqueue(
        &mut self,
        ctx: &WgpuContext,
        dispatcher: &Dispatcher,
        (seed, step): (u64, u32),
        observations: &wgpu::Buffer,
        observation_base: u32,
        copies: &mut WgpuCopies,
        spins: &mut wgpu::Buffer,
    ) -> Result<PendingStep> {
        let table = self.table.take().ok_or_else(no_table)?;
        let params = ResampleParams::new(seed, step, observation_base, &table);
        ctx.write_words(&self.params, bytemuck::cast_slice(&[params]));
        let count = ctx.bind_buffers(
            "resample count",
            &self.count,
            &[
                &self.params,
                observations,
                &self.positions,
                &self.heads,
                &self.entries,
                &self.copies,
                &self.chunks,
                copies.map(),
            ],
        );
        let scan = ctx.bind_buffers("resample scan", &self.scan, &[&self.chunks, &self.sizes]);
        let scatter = ctx.bind_buffers(
            "resample scatter",
            &self.scatter,
            &[
                &self.positions,
                &self.copies,
                &self.chunks,
                &self.sizes,
                copies.map(),
            ],
        );
        let chunk_grid = dispatcher.grid(ctx, u64::from(self.systems / CHUNK), 1);
        let system_grid = dispatcher.grid(ctx, u64::from(self.systems), 1);
        let blocks = table.heads.len() as u32;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            for (pipeline, group, (x, y, z)) in [
                (&self.count, &count, chunk_grid),
                (&self.scan, &scan, (blocks, 1, 1)),
                (&self.scatter, &scatter, system_grid),
            ] {
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, group, &[]);
                pass.dispatch_workgroups(x, y, z);
            }
        }
        copies.encode_gather(ctx, dispatcher, spins, &mut encoder);
        ctx.queue.submit([encoder.finish()]);
        Ok(PendingStep { slots: table.slots })
    }
}

/// A resampling step submitted to the device, to be finished by [`WgpuResampling::read_back`].
#[must_use = "a step's sizes are checked by read_back"]
pub struct PendingStep {
    /// Systems per block of its table.
    slots: u32,
}
