//! The hot start on a wgpu device (kernel `hot_start`; CPU twin `engine/cpu/hot_start.rs`),
//! for the simple engine's `i32` lattices and the multispin engine's words: the lattices are
//! computed where they live, and only the lane table (one `u32` per lane of each word system)
//! travels. Bindings (group 0, the kernel's own): 0 the lane table (read-only), 1 the spins.

use super::context::{WgpuContext, storage_usage};
use super::launch::Dispatcher;
use crate::engine::cpu::hot_start::HotStartGrid;
use crate::engine::dispatch::layer_pieces;
use crate::engine::kernels::Kernel;
use crate::error::Result;

/// The kernel's override constants for the systems of `grid` from `first_layer` on.
fn constants(
    grid: &HotStartGrid,
    workgroup_size: u32,
    first_layer: u32,
) -> Vec<(&'static str, u32)> {
    let seed_key = crate::rng::seed_key(grid.seed);
    let mut constants = vec![
        ("WG_SIZE", workgroup_size),
        ("FIRST_LAYER", first_layer),
        ("SIZE", grid.size),
        ("SEED_LO", seed_key[0]),
        ("SEED_HI", seed_key[1]),
        ("SYSTEM_THREADS", grid.system_threads),
        ("MULTISPIN", u32::from(grid.multispin)),
        ("SMSC", u32::from(grid.smsc)),
        ("ROW_WORDS", grid.row_words),
        ("COLOUR_WORDS", grid.colour_words),
        ("ROW_OFFSET", grid.row_offset),
    ];
    constants.extend(grid.slice.constants());
    constants
}

/// Write the hot start of `grid` into `spins` (the engine's lattices or words); waits for the
/// device. Grids of more systems than the adapter's z limit run in pieces, a pipeline each (its
/// first system a constant: the kernel has no dispatch parameters).
pub fn hot_start(
    ctx: &mut WgpuContext,
    dispatcher: &Dispatcher,
    spins: &wgpu::Buffer,
    grid: &HotStartGrid,
) -> Result<()> {
    let table = ctx.buffer(
        "hot start lanes",
        4 * grid.batches.len() as u64,
        storage_usage(),
    )?;
    ctx.write_words(&table, &grid.batches);
    let (x, y, z) = dispatcher.grid(ctx, u64::from(grid.system_threads), grid.systems);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    for (first, count) in layer_pieces(z, ctx.limits.max_compute_workgroups_per_dimension) {
        let constants = constants(grid, dispatcher.workgroup_size(), first);
        let pipeline = ctx.pipeline(Kernel::HotStart, &constants)?.clone();
        let bind_group = ctx.bind_buffers("hot start", &pipeline, &[&table, spins]);
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(x, y, count);
    }
    ctx.queue.submit([encoder.finish()]);
    ctx.wait()
}
