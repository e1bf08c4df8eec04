//! Population annealing's copies on a wgpu device, shared by the simple and multispin engines
//! (kernel `copy_systems`; CPU twin `engine/cpu/copy_systems.rs`). One submission per copy:
//! the spins are copied into a snapshot buffer on the device, then the kernel gathers every
//! destination word from the snapshot, so chains of copies need no ordering and the spins
//! never visit the host. Only the map travels: one `u32` per destination, written once per
//! copy.
//!
//! Bindings (group 0, the kernel's own): 0 the map (read-only), 1 the snapshot (read-only),
//! 2 the spins. The snapshot and map buffers are allocated by the first copy, so engines that
//! never copy do not pay for a second spin buffer. The map's layout ([`CopyUnit`],
//! [`lane_map`]) is the CUDA twin's too (`engine/cuda/copy_systems.rs`).

use super::context::{WgpuContext, storage_usage};
use super::dispatcher::Dispatcher;
use super::shaders::Kernel;
use crate::engine::multispin::MultispinLayout;
use crate::error::{Error, Result};
use crate::threads;

/// How destinations take their spins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyUnit {
    /// Whole (word) systems: the map holds the source system of each (simple engine, SMSC).
    Systems,
    /// Lanes, bit by bit: the map holds `source word system * 32 + source lane` of every
    /// destination lane `[g][lane]` (AMSC).
    Lanes,
}

/// Words of one (word) system each thread of the copy kernel copies (`COPY_RUN` in
/// `copy_systems.wgsl` and `copy_systems.cu`): the lane sources of a word system are the same
/// for all its words, so a thread reads them once for its run.
pub const COPY_RUN: u32 = 8;

/// Threads of the copy kernel per (word) system of `system_words` words.
pub fn copy_threads(system_words: u32) -> u64 {
    u64::from(system_words.div_ceil(COPY_RUN))
}

/// Entries of the map for `systems` (word) systems copied by `unit`.
pub fn map_words(unit: CopyUnit, systems: u32) -> u32 {
    match unit {
        CopyUnit::Systems => systems,
        CopyUnit::Lanes => systems * 32,
    }
}

/// `system_words`, the words of one (word) system, as the copy kernel indexes them (32 bits),
/// refused where larger.
pub fn kernel_system_words(system_words: u64) -> Result<u32> {
    u32::try_from(system_words).map_err(|_| {
        Error::Limits(format!(
            "population annealing copies systems of {system_words} words; the copy kernel \
             indexes at most {} words per system",
            u32::MAX
        ))
    })
}

/// How a multispin engine copies: SMSC whole word systems (one system each), AMSC lanes.
pub fn multispin_unit(layout: &MultispinLayout) -> CopyUnit {
    match layout.smsc() {
        true => CopyUnit::Systems,
        false => CopyUnit::Lanes,
    }
}

/// The copy kernel's map of the system map `sources` for a multispin engine (see
/// [`CopyUnit`]): per destination lane `[g][lane]` its source word system and lane (AMSC; idle
/// lanes keep their bits), or per word system its source (SMSC, one system per word system);
/// through the layout's own mapping (`lane_system`, `system_lane`), as the CPU engine copies.
pub fn lane_map(layout: &MultispinLayout, sources: &[u32]) -> Vec<u32> {
    let per_word = layout.systems_per_word();
    let mut map = vec![0; (layout.word_systems() * per_word) as usize];
    threads::for_chunks(&mut map, per_word as usize, |g, lanes| {
        let g = g as u32;
        for (lane, entry) in (0..per_word).zip(lanes) {
            let (source, source_lane) = match layout.lane_system(g, lane) {
                Some(b) => layout.system_lane(sources[b as usize]),
                None => (g, lane),
            };
            *entry = source * per_word + source_lane;
        }
    });
    map
}

/// The copy kernel's map under which every lane keeps its bits (lanes that hold no system
/// included: the resampling step writes only the entries of systems).
pub fn identity_map(layout: &MultispinLayout) -> Vec<u32> {
    let identity: Vec<u32> = (0..layout.systems.systems()).collect();
    lane_map(layout, &identity)
}

/// Per system of a multispin engine, the map entry (see [`CopyUnit`]) of its lane: `g * 32 +
/// lane` (AMSC) or its word system `g` (SMSC). Resampling on the device writes the map from
/// these.
pub fn system_positions(layout: &MultispinLayout) -> Vec<u32> {
    let per_word = layout.systems_per_word();
    threads::from_fn(layout.systems.systems() as usize, |b| {
        let (g, lane) = layout.system_lane(b as u32);
        g * per_word + lane
    })
}

/// The copy kernel with its buffers.
pub struct WgpuCopies {
    pipeline: wgpu::ComputePipeline,
    map: wgpu::Buffer,
    snapshot: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    /// (Word) systems, the grid's z.
    systems: u32,
    system_words: u32,
}

impl WgpuCopies {
    /// The kernel over `spins`, `systems` (word) systems of `system_words` words each.
    fn new(
        ctx: &mut WgpuContext,
        spins: &wgpu::Buffer,
        (systems, system_words): (u32, u64),
        unit: CopyUnit,
        workgroup_size: u32,
    ) -> Result<Self> {
        let system_words = kernel_system_words(system_words)?;
        let constants = [
            ("WG_SIZE", workgroup_size),
            ("SYSTEM_WORDS", system_words),
            ("LANE_COPIES", u32::from(unit == CopyUnit::Lanes)),
        ];
        let pipeline = ctx.pipeline(Kernel::CopySystems, &constants)?.clone();
        let map_words = map_words(unit, systems);
        let map = ctx.buffer("copy map", 4 * u64::from(map_words), storage_usage())?;
        let snapshot = ctx.buffer("spin snapshot", spins.size(), storage_usage())?;
        let bind_group = ctx.bind_buffers("copy systems", &pipeline, &[&map, &snapshot, spins]);
        Ok(WgpuCopies {
            pipeline,
            map,
            snapshot,
            bind_group,
            systems,
            system_words,
        })
    }

    /// The copies in `slot`, created by the first call (see [`WgpuCopies::new`]).
    pub fn ensure<'a>(
        slot: &'a mut Option<WgpuCopies>,
        ctx: &mut WgpuContext,
        spins: &wgpu::Buffer,
        shape: (u32, u64),
        unit: CopyUnit,
        workgroup_size: u32,
    ) -> Result<&'a WgpuCopies> {
        if slot.is_none() {
            *slot = Some(WgpuCopies::new(ctx, spins, shape, unit, workgroup_size)?);
        }
        Ok(slot.as_ref().expect("created above"))
    }

    /// Copy as `map` says (laid out as the [`CopyUnit`] of [`WgpuCopies::new`]): snapshot the
    /// spins, then gather every destination from the snapshot; waits for the device.
    pub fn copy(
        &self,
        ctx: &WgpuContext,
        dispatcher: &Dispatcher,
        spins: &wgpu::Buffer,
        map: &[u32],
    ) -> Result<()> {
        ctx.write_words(&self.map, map);
        self.gather(ctx, dispatcher, spins)
    }

    /// The map the copy kernel reads (laid out as [`CopyUnit`] says), for kernels that write
    /// it on the device (population annealing's resampling step).
    pub fn map(&self) -> &wgpu::Buffer {
        &self.map
    }

    /// Copy as the device's map says: snapshot the spins, then gather every destination from
    /// the snapshot; waits for the device.
    pub fn gather(
        &self,
        ctx: &WgpuContext,
        dispatcher: &Dispatcher,
        spins: &wgpu::Buffer,
    ) -> Result<()> {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        self.encode_gather(ctx, dispatcher, spins, &mut encoder);
        ctx.queue.submit([encoder.finish()]);
        ctx.wait()
    }

    /// [`Self::gather`] recorded into `encoder`; the snapshot keeps the lattices of before it
    /// for [`Self::restore`].
    pub fn encode_gather(
        &self,
        ctx: &WgpuContext,
        dispatcher: &Dispatcher,
        spins: &wgpu::Buffer,
        encoder: &mut wgpu::CommandEncoder,
    ) {
        let (x, y, z) = dispatcher.grid(ctx, copy_threads(self.system_words), self.systems);
        encoder.copy_buffer_to_buffer(spins, 0, &self.snapshot, 0, spins.size());
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.dispatch_workgroups(x, y, z);
    }

    /// Put the lattices of before the last gather back (a resampling step refused after its
    /// copy was submitted, see `engine::wgpu::resampling`); waits for the device.
    pub fn restore(&self, ctx: &WgpuContext, spins: &wgpu::Buffer) -> Result<()> {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&self.snapshot, 0, spins, 0, spins.size());
        ctx.queue.submit([encoder.finish()]);
        ctx.wait()
    }
}
