//! Cluster updates on a wgpu device, for the simple engine and the vector engine's discrete
//! states ([`crate::engine::clusters`]): kernels `cluster_bonds`, `cluster_label`,
//! `cluster_merge`, `cluster_roots` and `cluster_flip`, one after the other for each update,
//! over every system (the grid's z). Their group 1 holds the activation thresholds, the bonds,
//! the union-find labels, each root's count and the recorded sizes; group 0 is the engine's own.

use super::context::{WgpuContext, storage_usage};
use super::launch::{Dispatcher, Grid};
use super::shaders::bindings;
use crate::engine::clusters::{
    ClusterLattices, ClusterMove, KERNEL_CONSTANTS, LabelTiles, WORKGROUP_SIZE, cluster_passes,
    kernel_constants, pass_threads, record_slots,
};
use crate::engine::dispatch::DispatchParams;
use crate::engine::kernels::Kernel;
use crate::error::Result;

/// `cluster_label`'s largest tiles on wgpu: 1024 sites in 2D (32 x 32) and 2048 in 3D (32 x 8 x
/// 8), 4 and 8 KiB of the 16 KiB of workgroup memory WebGPU promises. Through Vulkan on an H100
/// 2D tiles of 32 x 64 made Swendsen-Wang at 4096^2 slower (28.8 against 28.4 ps a site) and
/// left the triangular lattice level, where in 3D 2048 sites beat 16 x 8 x 8 (256^3: 39.7
/// against 40.0).
pub const TILES: LabelTiles = LabelTiles {
    plane: [32, 32, 1],
    space: [32, 8, 8],
};

/// The cluster buffers and kernels of a wgpu engine.
pub struct WgpuClusters {
    lattices: ClusterLattices,
    activation: wgpu::Buffer,
    bonds: wgpu::Buffer,
    labels: wgpu::Buffer,
    counts: wgpu::Buffer,
    /// `[slot][system]` (lo, hi) pairs, with room for `size_slots` slots.
    sizes: wgpu::Buffer,
    size_slots: u32,
    bind_group: wgpu::BindGroup,
    /// The passes of one update, in order: bonds, label, merge, roots, flip, in workgroups of
    /// [`WORKGROUP_SIZE`].
    passes: [wgpu::ComputePipeline; 5],
    update: ClusterMove,
}

impl WgpuClusters {
    /// Buffers for `lattices` and the kernels of `update`; `constants` are their engine's (its
    /// workgroup size aside).
    pub fn new(
        ctx: &mut WgpuContext,
        lattices: ClusterLattices,
        update: ClusterMove,
        constants: &[(&'static str, u32)],
    ) -> Result<Self> {
        let mut constants = constants.to_vec();
        // The engine's HONEYCOMB is the same as the clusters'.
        constants.retain(|(name, _)| *name != "WG_SIZE" && !KERNEL_CONSTANTS.contains(name));
        constants.push(("WG_SIZE", WORKGROUP_SIZE));
        constants.extend(kernel_constants(update, &lattices, TILES));
        let kernels = Kernel::cluster_passes(lattices.spins);
        let mut passes = Vec::with_capacity(kernels.len());
        for kernel in kernels {
            passes.push(ctx.pipeline(kernel, &constants)?.clone());
        }
        let passes = passes.try_into().expect("five passes");
        let sites = lattices.sites();
        let activation = ctx.upload("activation thresholds", &lattices.activation)?;
        let bonds = ctx.buffer("bonds", sites, storage_usage())?;
        let labels = ctx.buffer("labels", 4 * sites, storage_usage())?;
        let counts = ctx.buffer("cluster counts", 4 * sites, storage_usage())?;
        // Room for Houdayer's record (two words a pair) from the start; a plan's slots grow it.
        let sizes = ctx.buffer(
            "cluster sizes",
            size_bytes(2, lattices.systems),
            storage_usage(),
        )?;
        let buffers = [&activation, &bonds, &labels, &counts, &sizes];
        let bind_group = bind_group(ctx, &lattices, buffers);
        Ok(WgpuClusters {
            lattices,
            activation,
            bonds,
            labels,
            counts,
            sizes,
            size_slots: 2,
            bind_group,
            passes,
            update,
        })
    }

    /// Group 1 of the cluster kernels.
    pub fn bind_group(&self) -> &wgpu::BindGroup {
        &self.bind_group
    }

    /// The recorded sizes, cleared at a plan's start.
    pub fn sizes(&self) -> &wgpu::Buffer {
        &self.sizes
    }

    /// Room for `slots` slots of sizes of every system.
    pub fn ensure_sizes(&mut self, ctx: &WgpuContext, slots: u32) -> Result<()> {
        if slots <= self.size_slots {
            return Ok(());
        }
        let bytes = size_bytes(slots, self.lattices.systems);
        ctx.check_plan_measurements("cluster sizes", slots, bytes)?;
        self.sizes = ctx.buffer("cluster sizes", bytes, storage_usage())?;
        self.size_slots = slots;
        let buffers = [
            &self.activation,
            &self.bonds,
            &self.labels,
            &self.counts,
            &self.sizes,
        ];
        self.bind_group = bind_group(ctx, &self.lattices, buffers);
        Ok(())
    }

    /// The kernels of the update of `params` of every system ([`cluster_passes`]), each
    /// with its grid ([`pass_threads`]).
    pub fn kernels(
        &self,
        ctx: &WgpuContext,
        dispatcher: &Dispatcher,
        params: &DispatchParams,
    ) -> Vec<(&wgpu::ComputePipeline, Grid)> {
        let threads = pass_threads(&self.lattices.lattice, TILES, WORKGROUP_SIZE);
        let passes = cluster_passes(self.update, params);
        let systems = self.lattices.systems;
        let grid = |threads| dispatcher.grid_of(ctx, threads, systems, WORKGROUP_SIZE);
        self.passes
            .iter()
            .zip(threads)
            .zip(passes)
            .filter(|(_, on)| *on)
            .map(|((pass, threads), _)| (pass, grid(threads)))
            .collect()
    }

    /// The sizes of the first `slots` slots, `[slot][system]`.
    pub fn read_sizes(&self, ctx: &WgpuContext, slots: u32) -> Result<Vec<u64>> {
        let bytes = size_bytes(slots, self.lattices.systems);
        let words: Vec<u32> = ctx.read_buffer(&self.sizes, bytes)?;
        Ok(words
            .chunks_exact(2)
            .map(|w| u64::from(w[0]) | u64::from(w[1]) << 32)
            .collect())
    }
}

impl WgpuClusters {
    /// The vector engine's record since the last call ([`record_slots`]), read and zeroed.
    pub fn take_record(&self, ctx: &WgpuContext) -> Result<Vec<u64>> {
        let record = self.read_sizes(ctx, record_slots(self.update))?;
        ctx.write_words(&self.sizes, &vec![0; 2 * record.len()]);
        Ok(record)
    }
}

fn size_bytes(slots: u32, systems: u32) -> u64 {
    8 * u64::from(slots.max(1)) * u64::from(systems)
}

fn bind_group(
    ctx: &WgpuContext,
    lattices: &ClusterLattices,
    buffers: [&wgpu::Buffer; 5],
) -> wgpu::BindGroup {
    let layout = bindings(Kernel::ClusterBonds(lattices.spins)).expect("cluster kernels' layout");
    ctx.group_one("clusters", layout, &buffers)
}
