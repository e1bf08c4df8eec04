//! The vector-spin engine on a wgpu device: kernels `vector_hot_start`, `vector_metropolis`,
//! `vector_tiles` (the double checkerboard), `vector_overrelaxation`, `vector_observables` and
//! `vector_overlap` (a spin glass's replica pairs) and `vector_exchange` (parallel tempering's;
//! CPU twins `engine/cpu/vector_*.rs`), which compute the CPU engine's integers as u32 pairs
//! (`shaders/wgsl/wide_int64.wgsl`, or `wide_u32.wgsl` without 64-bit integers), so that
//! lattices and observations equal the CPU's bit for bit.
//!
//! Buffers (bindings of [`Bindings::Vector`]): spins component-major as the CPU's; the
//! acceptance tables of every temperature; counts, [`counters`] 64-bit counters per system as
//! `(low, high)` words (accepted moves, then the observation; or `overlap_counters` per
//! replica pair, the overlap); the couplings as one `i32` per bond and sample
//! (one word for the ferromagnet); the proposal widths per temperature; the phase table; the
//! partner of every system in a tempering exchange.

use super::clusters::WgpuClusters;
use super::context::{WgpuContext, storage_usage};
use super::copy_systems::WgpuCopies;
use super::launch::{Dispatcher, Launches, MAX_DISPATCHES};
use super::shaders::Bindings;
use crate::engine::backend::vector::{
    ExchangeBackend, PopulationBackend, ProposalBackend, SweepPass, VectorBackend, VectorEngine,
    VectorKernels, launch_passes,
};
use crate::engine::copy_maps::CopyUnit;
use crate::engine::dispatch::{Dispatch, DispatchParams};
use crate::engine::kernels::Kernel;
use crate::engine::planes::{PLANE_BITS, PlaneLayout};
use crate::engine::vector::{
    METROPOLIS_WORKGROUP_SIZE, MetropolisLaunch, PlaneKernels, VectorKernelSet, VectorObservation,
    VectorOverlap, VectorPass, VectorSweeps, cluster_step, dispatch_params,
};
use crate::engine::vector_gpu::{
    counted_accepted, counted_observations, counted_overlaps, counters, coupling_words,
    kernel_constants, lookup_words,
};
use crate::error::{Error, Result};
use crate::model::vector::VectorSystems;
use crate::model::vector::tiles::Tiles;

/// Sites each thread of the observables kernel sums, so that few threads add to the counts.
const SITES_PER_OBSERVER: u64 = 16;

/// Sites of one colour a thread of `discrete_metropolis.wgsl` updates under the heat bath
/// ([`VectorSweeps::state_sites_per_thread`]). On the H200 (2026-12-02), 8-state Potts at
/// 16384^2: 31.2 ps an update with one, 32.1 with two.
const HEAT_BATH_SITES_PER_THREAD: u32 = 1;

/// Threads a workgroup of the double checkerboard's kernel: one for each site of a tile's
/// colour, from 64 to 256. On the H200 (2026-12-04), Heisenberg with 4 hits, ps an update at 64,
/// 128 and 256 threads: 2D tiles of 16^2 17.4, 16.9, 17.8; 3D tiles of 8^3 32.0, 20.9, 18.3.
/// CUDA's blocks keep the configured size, its best there (2D 15.4, 15.8, 16.8; 3D 18.0, 17.5,
/// 18.1).
fn tile_workgroup_size(tiles: Tiles) -> u32 {
    let colour_sites = u32::try_from(tiles.sites() / 2).unwrap_or(u32::MAX);
    colour_sites.clamp(64, 256)
}

/// A kernel's pipeline with the workgroup size it was built for (CUDA's `FittedKernel`).
struct SizedPipeline {
    pipeline: wgpu::ComputePipeline,
    workgroup_size: u32,
}

/// The vector-spin engine on a wgpu device.
pub type WgpuVectorEngine = VectorEngine<WgpuVector>;

/// The vector-spin engine's buffers and kernels on a wgpu device.
pub struct WgpuVector {
    ctx: WgpuContext,
    dispatcher: Dispatcher,
    systems: VectorSystems,
    workgroup_size: u32,
    spins: wgpu::Buffer,
    tables: wgpu::Buffer,
    counts: wgpu::Buffer,
    widths: wgpu::Buffer,
    /// How the Metropolis kernel's threads are launched ([`VectorSweeps::metropolis_launch`]).
    metropolis: MetropolisLaunch,
    partners: wgpu::Buffer,
    /// Read by the kernels through `bind_group` alone, kept to bind the spins anew after a copy.
    couplings: wgpu::Buffer,
    phases: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    pipelines: VectorKernelSet<SizedPipeline>,
    /// The passes enqueued for the next submission ([`VectorKernels::enqueue_pass`]).
    pending: Vec<(DispatchParams, VectorPass)>,
    /// Whether the next submission of passes clears the counts first.
    clear_pending: bool,
    /// The cluster updates' buffers and kernels, where the sweeps have cluster updates.
    clusters: Option<WgpuClusters>,
    /// Population annealing's copies, from the first.
    copies: Option<WgpuCopies>,
}

/// The launches of one dispatch: pipelines and their grids.
/// `words` as the `u32`s a buffer holds.
fn as_words(words: &[i32]) -> &[u32] {
    bytemuck::cast_slice(words)
}

impl WgpuVectorEngine {
    /// The engine of `systems` on the device of `ctx`, swept by `updates`, every spin zero
    /// until a hot start or [`crate::engine::Engine::set_spins`]; fails clearly where the
    /// lattices exceed the device.
    pub fn new(
        mut ctx: WgpuContext,
        systems: VectorSystems,
        updates: VectorSweeps,
        workgroup_size: u32,
    ) -> Result<Self> {
        ctx.check_workgroup_size(workgroup_size)?;
        // The bit planes, where the sweeps hold the states there, follow the states.
        let planes = match updates.planes {
            true => Some(PlaneLayout::of(&systems)?),
            false => None,
        };
        let plane_words = planes.map_or(0, |layout| layout.words());
        let spin_bytes = 4 * (systems.spin_words() as u64 + plane_words);
        // The same systems of side `size`: spin_words scales with the sites.
        let bytes_at = |size: u32| {
            spin_bytes / systems.lattice.sites() * u64::from(size).pow(systems.lattice.dims)
        };
        let size = systems.lattice.size;
        ctx.check_storage("vector spins", size, spin_bytes, bytes_at, 2)?;
        if let Some(tiles) = updates.tiles(&systems) {
            let bytes = tiles.workgroup_bytes(systems.components);
            let limit = ctx.limits.max_compute_workgroup_storage_size;
            if bytes > u64::from(limit) {
                return Err(Error::Limits(format!(
                    "tiles of {} sites a side take {bytes} bytes of workgroup memory, over the \
                     {limit} of the adapter",
                    tiles.size
                )));
            }
        }
        let metropolis = updates.metropolis_launch(
            &systems,
            HEAT_BATH_SITES_PER_THREAD,
            METROPOLIS_WORKGROUP_SIZE,
        );
        let mut constants = kernel_constants(&systems, updates, metropolis);
        if let Some(layout) = planes {
            // Below the binding's size, checked above, so within 32 bits.
            let offset = u32::try_from(layout.offset()).map_err(|_| {
                Error::Limits("the bit planes start past a 32-bit word index".into())
            })?;
            constants.push(("PLANES_OFFSET", offset));
        }
        let tiles = updates.tiles(&systems).map(tile_workgroup_size);
        let pipelines = VectorKernelSet::build(&systems, updates, |kernel| {
            let workgroup_size = match kernel {
                Kernel::VectorMetropolis | Kernel::DiscreteMetropolis => METROPOLIS_WORKGROUP_SIZE,
                Kernel::VectorTiles => tiles.expect("the tiles' kernel where the sweeps tile"),
                _ => workgroup_size,
            };
            let sized = [("WG_SIZE", workgroup_size)];
            let constants: Vec<_> = constants.iter().chain(&sized).copied().collect();
            let pipeline = ctx.pipeline(kernel, &constants)?.clone();
            Ok(SizedPipeline {
                pipeline,
                workgroup_size,
            })
        })?;
        let clusters = match cluster_step(&systems, updates)? {
            Some((update, lattices)) => {
                Some(WgpuClusters::new(&mut ctx, lattices, update, &constants)?)
            }
            None => None,
        };
        let spins = ctx.buffer("vector spins", spin_bytes, storage_usage())?;
        let count_bytes = 8 * (counters(&systems) * systems.systems() as usize) as u64;
        let counts = ctx.buffer("vector counts", count_bytes, storage_usage())?;
        let widths = ctx.buffer(
            "proposal widths",
            4 * systems.betas.len() as u64,
            storage_usage(),
        )?;
        let partners = ctx.buffer(
            "tempering partners",
            4 * u64::from(systems.systems()),
            storage_usage(),
        )?;
        let tables = ctx.upload("acceptance tables", &systems.acceptance_tables())?;
        let couplings = ctx.upload("couplings", as_words(&coupling_words(&systems.couplings)))?;
        let phases = ctx.upload(
            "phases",
            as_words(&lookup_words(&systems, &systems.phases())),
        )?;
        let dispatcher = Dispatcher::new(&ctx, workgroup_size)?;
        let buffers = [
            &spins, &tables, &counts, &couplings, &widths, &phases, &partners,
        ];
        let bind_group = bind_group(&ctx, &dispatcher, &buffers);
        ctx.check()?;
        let backend = WgpuVector {
            ctx,
            dispatcher,
            systems,
            workgroup_size,
            spins,
            tables,
            counts,
            widths,
            metropolis,
            partners,
            couplings,
            phases,
            bind_group,
            pipelines,
            pending: Vec::with_capacity(MAX_DISPATCHES),
            clear_pending: false,
            clusters,
            copies: None,
        };
        Ok(VectorEngine::on(backend, updates))
    }
}

impl WgpuVector {
    /// Bind the spins anew, after a copy handed the engine the other spin buffer: the buffers
    /// in the order the constructor bound them.
    fn rebind_spins(&mut self) {
        let buffers = [
            &self.spins,
            &self.tables,
            &self.counts,
            &self.couplings,
            &self.widths,
            &self.phases,
            &self.partners,
        ];
        self.bind_group = bind_group(&self.ctx, &self.dispatcher, &buffers);
    }

    /// The parameters every launch of this engine shares.
    fn params(&self) -> DispatchParams {
        dispatch_params(&self.systems)
    }

    /// One launch of `kernel` over `threads` threads per system.
    fn launch<'a>(&self, kernel: &'a SizedPipeline, threads: u64) -> Launches<'a> {
        self.launch_layers(kernel, (threads, self.systems.systems()))
    }

    /// One launch of `kernel` over `threads` threads a layer of `layers` grid layers, in
    /// workgroups of the kernel's size.
    fn launch_layers<'a>(
        &self,
        kernel: &'a SizedPipeline,
        (threads, layers): (u64, u32),
    ) -> Launches<'a> {
        let grid = (self.dispatcher).grid_of(&self.ctx, threads, layers, kernel.workgroup_size);
        vec![(&kernel.pipeline, grid)]
    }

    /// Submit `dispatches`, each running its launches (in pieces where they hold more systems
    /// than the adapter's grid: [`Dispatcher::enqueue_layered`]); `clear` zeroes the counts
    /// first. The cluster buffers, where the engine has them, are group 1.
    fn submit(&self, dispatches: &[(Dispatch, Launches)], clear: bool) {
        if dispatches.is_empty() {
            return;
        }
        let clusters = self.clusters.as_ref().map(WgpuClusters::bind_group);
        let cleared: &[&wgpu::Buffer] = if clear { &[&self.counts] } else { &[] };
        (self.dispatcher).enqueue_layered(
            &self.ctx,
            &self.bind_group,
            clusters,
            dispatches,
            cleared,
        );
    }

    /// Submit the passes enqueued since the last submission (at most [`MAX_DISPATCHES`]), with
    /// the clear of the counts [`VectorKernels::clear_counts`] left pending; each pass's grid
    /// covers its threads (`params.threads`, never 0 in a pass: [`SweepPass::params`]).
    fn submit_passes(&mut self) {
        let pipelines = &self.pipelines;
        let dispatches: Vec<_> = (self.pending.iter())
            .map(|&(params, pass)| {
                if let VectorPass::Cluster { .. } = pass {
                    let clusters = self.clusters.as_ref().expect("cluster updates' buffers");
                    let launches = clusters.kernels(&self.ctx, &self.dispatcher, &params);
                    return (Dispatch::Cluster(params), launches);
                }
                let kernel = pipelines.of_pass(pass);
                let (metropolis, systems) = (self.metropolis, self.systems.systems());
                let grid =
                    pass.launch_grid(params.threads, kernel.workgroup_size, metropolis, systems);
                (Dispatch::Sweep(params), self.launch_layers(kernel, grid))
            })
            .collect();
        self.submit(&dispatches, self.clear_pending);
        self.pending.clear();
        self.clear_pending = false;
    }

    /// `pipeline` (`discrete_pack` or `discrete_unpack`) on every plane word of every system.
    fn convert_planes(&self, pipeline: &SizedPipeline) -> Result<()> {
        let words = 2 * self.systems.lattice.sites_per_colour() / PLANE_BITS;
        let convert = Dispatch::Sweep(self.params());
        self.submit(&[(convert, self.launch(pipeline, words))], false);
        self.ctx.check()
    }

    /// Every system's [`counters`] counters (the kernels add to them as `(low, high)` words).
    fn read_counts(&self) -> Result<Vec<u64>> {
        let bytes = 8 * (counters(&self.systems) * self.systems.systems() as usize) as u64;
        self.ctx.read_buffer(&self.counts, bytes)
    }
}

/// The bit planes' kernels of an engine that sweeps them.
fn plane_kernels(pipelines: &VectorKernelSet<SizedPipeline>) -> &PlaneKernels<SizedPipeline> {
    (pipelines.planes.as_ref()).expect("bit planes' kernels where the sweeps hold the planes")
}

/// The bind group of the vector layout over the dispatcher's parameters and `buffers`
/// (bindings 1 to 7).
fn bind_group(
    ctx: &WgpuContext,
    dispatcher: &Dispatcher,
    buffers: &[&wgpu::Buffer; 7],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = std::iter::once(dispatcher.params_entry())
        .chain(
            buffers
                .iter()
                .zip(1..)
                .map(|(buffer, binding)| wgpu::BindGroupEntry {
                    binding,
                    resource: buffer.as_entire_binding(),
                }),
        )
        .collect();
    ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("vector"),
        layout: ctx.bind_group_layout(Bindings::Vector),
        entries: &entries,
    })
}

impl VectorBackend for WgpuVector {
    const NAME: &'static str = "wgpu";

    fn adapter_and_driver(&self) -> (String, String) {
        (self.ctx.adapter_name(), self.ctx.driver())
    }

    fn systems(&self) -> &VectorSystems {
        &self.systems
    }

    fn hot_start(&mut self) -> Result<()> {
        let sites = self.systems.lattice.sites();
        let start = Dispatch::Sweep(self.params());
        self.submit(
            &[(start, self.launch(&self.pipelines.hot_start, sites))],
            false,
        );
        self.ctx.wait()
    }

    fn write_spins(&mut self, spins: &[i32]) -> Result<()> {
        self.ctx
            .write_words(&self.spins, bytemuck::cast_slice(spins));
        self.ctx.wait()
    }

    fn read_spins(&mut self) -> Result<Vec<i32>> {
        let bytes = 4 * self.systems.spin_words() as u64;
        self.ctx.read_buffer(&self.spins, bytes)
    }

    fn passes(&mut self, passes: &[SweepPass]) -> Result<Vec<u64>> {
        launch_passes(self, passes)
    }

    fn pack_planes(&mut self) -> Result<()> {
        self.convert_planes(&plane_kernels(&self.pipelines).pack)
    }

    fn unpack_planes(&mut self) -> Result<()> {
        self.convert_planes(&plane_kernels(&self.pipelines).unpack)
    }

    fn observe(&mut self) -> Result<(Vec<VectorObservation>, Vec<i64>)> {
        let threads = self.systems.lattice.sites().div_ceil(SITES_PER_OBSERVER);
        let measure = Dispatch::Measure(self.params());
        self.submit(
            &[(measure, self.launch(&self.pipelines.observables, threads))],
            true,
        );
        Ok(counted_observations(&self.systems, &self.read_counts()?))
    }

    fn take_cluster_record(&mut self) -> Result<Vec<u64>> {
        let clusters = self.clusters.as_ref().expect("cluster passes' buffers");
        clusters.take_record(&self.ctx)
    }

    fn overlaps(&mut self) -> Result<(Vec<VectorOverlap>, Vec<i64>)> {
        let Some(overlap) = &self.pipelines.overlap else {
            return Ok((Vec::new(), Vec::new()));
        };
        let threads = self.systems.lattice.sites().div_ceil(SITES_PER_OBSERVER);
        let measure = Dispatch::Measure(self.params());
        self.submit(&[(measure, self.launch(overlap, threads))], true);
        Ok(counted_overlaps(&self.systems, &self.read_counts()?))
    }
}

impl VectorKernels for WgpuVector {
    fn clear_counts(&mut self) -> Result<()> {
        self.clear_pending = true;
        Ok(())
    }

    fn enqueue_pass(&mut self, pass: &SweepPass) -> Result<()> {
        self.pending.push((pass.params(self.params()), pass.pass));
        if self.pending.len() == MAX_DISPATCHES {
            self.submit_passes();
        }
        Ok(())
    }

    fn read_accepted(&mut self) -> Result<Vec<u64>> {
        self.submit_passes();
        let counts = self.read_counts()?;
        Ok(counted_accepted(&self.systems, &counts))
    }
}

impl ProposalBackend for WgpuVector {
    fn write_widths(&mut self, widths: &[i32]) -> Result<()> {
        self.ctx
            .write_words(&self.widths, bytemuck::cast_slice(widths));
        Ok(())
    }
}

impl PopulationBackend for WgpuVector {
    fn write_betas(&mut self, betas: &[f64]) -> Result<()> {
        self.systems.betas = betas.to_vec();
        self.ctx
            .write_words(&self.tables, &self.systems.acceptance_tables());
        self.ctx.check()
    }

    fn copy_systems(&mut self, sources: &[u32]) -> Result<()> {
        let copies = WgpuCopies::ensure(
            &mut self.copies,
            &mut self.ctx,
            &self.spins,
            (self.systems.systems(), self.systems.system_words()),
            CopyUnit::Systems,
            self.workgroup_size,
        )?;
        copies.copy(&self.ctx, &self.dispatcher, &mut self.spins, sources)?;
        self.rebind_spins();
        Ok(())
    }
}

impl ExchangeBackend for WgpuVector {
    fn exchange_systems(&mut self, partners: &[u32]) -> Result<()> {
        self.ctx.write_words(&self.partners, partners);
        let words = self.systems.system_words();
        let exchange = Dispatch::Sweep(self.params());
        self.submit(
            &[(exchange, self.launch(&self.pipelines.exchange, words))],
            false,
        );
        self.ctx.check()
    }
}

#[cfg(test)]
mod tests {
    use super::tile_workgroup_size;
    use crate::model::Lattice;
    use crate::model::vector::tiles::Tiles;

    #[test]
    fn tiles_take_a_thread_a_site_of_a_colour_from_64_to_256() {
        for (dims, size, threads) in [
            (2, 16, 128),
            (3, 8, 256),
            (2, 32, 256),
            (2, 4, 64),
            (3, 4, 64),
        ] {
            let tiles = Tiles {
                lattice: Lattice::new(dims, 64),
                size,
            };
            assert_eq!(
                tile_workgroup_size(tiles),
                threads,
                "{dims}D tiles of {size}"
            );
        }
    }
}
