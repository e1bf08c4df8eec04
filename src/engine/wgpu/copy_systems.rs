//! Population annealing's copies on a wgpu device, shared by the simple and multispin engines
//! (kernel `copy_systems`; CPU twin `engine/cpu/copy_systems.rs`). One submission per copy:
//! the kernel gathers every destination word from the spins into a second spin buffer, and the
//! two buffers trade places (so the lattices of before the copy stay in the second until the
//! next), as the CUDA twin (`engine/cuda/copy_systems.rs`) does: chains of copies need no
//! ordering, the spins never visit the host, and no buffer copy runs. Only the map travels:
//! one `u32` per destination, written once per copy. An engine rebinds its spins after each
//! gather or restore, which hand it the other buffer.
//!
//! Bindings (group 0, the kernel's own): 0 the map (read-only), 1 the spins of before the copy
//! (read-only), 2 the destination. The second spin buffer and the map are allocated by the
//! first copy, so engines that never copy do not pay for them. The map's layout, shared with
//! the CUDA twin, is [`crate::engine::copy_maps`]'s.

use super::context::{WgpuContext, storage_usage};
use super::launch::Dispatcher;
use crate::engine::copy_maps::{CopyUnit, kernel_system_words, map_words};
use crate::engine::kernels::Kernel;
use crate::error::Result;

/// Words of one (word) system each thread of the copy kernel copies (`COPY_RUN` in
/// `copy_systems.wgsl`): the lane sources of a word system are the same for all its words, so a
/// thread reads them once for its run.
pub const COPY_RUN: u32 = 8;

/// Threads of the copy kernel per (word) system of `system_words` words.
pub fn copy_threads(system_words: u32) -> u64 {
    u64::from(system_words.div_ceil(COPY_RUN))
}

/// The copy kernel with its buffers.
pub struct WgpuCopies {
    pipeline: wgpu::ComputePipeline,
    map: wgpu::Buffer,
    /// The spin buffer the engine does not hold: the next gather's destination, and the
    /// lattices of before the last gather until then.
    other: wgpu::Buffer,
    /// (Word) systems: the destinations, one after the other along the grid's threads.
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
            ("SYSTEMS", systems),
            ("LANE_COPIES", u32::from(unit == CopyUnit::Lanes)),
        ];
        let pipeline = ctx.pipeline(Kernel::CopySystems, &constants)?.clone();
        let map_words = map_words(unit, systems);
        let map = ctx.buffer("copy map", 4 * u64::from(map_words), storage_usage())?;
        let other = ctx.buffer("spin words", spins.size(), storage_usage())?;
        Ok(WgpuCopies {
            pipeline,
            map,
            other,
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
    ) -> Result<&'a mut WgpuCopies> {
        if slot.is_none() {
            *slot = Some(WgpuCopies::new(ctx, spins, shape, unit, workgroup_size)?);
        }
        Ok(slot.as_mut().expect("created above"))
    }

    /// Copy as `map` says (laid out as the [`CopyUnit`] of [`WgpuCopies::new`]), as
    /// [`Self::gather`]; waits for the device.
    pub fn copy(
        &mut self,
        ctx: &WgpuContext,
        dispatcher: &Dispatcher,
        spins: &mut wgpu::Buffer,
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

    /// Copy as the device's map says: gather every destination from `spins` into the other
    /// buffer, which becomes `spins`; waits for the device.
    pub fn gather(
        &mut self,
        ctx: &WgpuContext,
        dispatcher: &Dispatcher,
        spins: &mut wgpu::Buffer,
    ) -> Result<()> {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        self.encode_gather(ctx, dispatcher, spins, &mut encoder);
        ctx.queue.submit([encoder.finish()]);
        ctx.wait()
    }

    /// [`Self::gather`] recorded into `encoder`; the lattices of before it stay in the other
    /// buffer for [`Self::restore`].
    pub fn encode_gather(
        &mut self,
        ctx: &WgpuContext,
        dispatcher: &Dispatcher,
        spins: &mut wgpu::Buffer,
        encoder: &mut wgpu::CommandEncoder,
    ) {
        let threads = copy_threads(self.system_words) * u64::from(self.systems);
        let (x, y, z) = dispatcher.grid(ctx, threads, 1);
        let buffers = [&self.map, &*spins, &self.other];
        let bind_group = ctx.bind_buffers("copy systems", &self.pipeline, &buffers);
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(x, y, z);
        }
        std::mem::swap(spins, &mut self.other);
    }

    /// Put the lattices of before the last gather back (a resampling step refused after its
    /// copy was submitted, see `engine::wgpu::resampling`): the buffers trade places again.
    pub fn restore(&mut self, spins: &mut wgpu::Buffer) {
        std::mem::swap(spins, &mut self.other);
    }
}
