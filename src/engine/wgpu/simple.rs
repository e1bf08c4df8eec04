//! The simple engine's wgpu backend ([`SimpleBackend`]; the engine itself is
//! `engine::backend::simple::SimpleEngine`): one spin per i32 word, kernels
//! `metropolis_simple` and `observables` (and population annealing's `copy_systems`, driven by
//! `copy_systems.rs`; the cluster updates' kernels, driven by `clusters.rs`).
//!
//! Data layout: `spins[b N + site]` for system `b` (temperature-major, then replica) and site in
//! natural order; `thresholds[t][spin_up][(n + z) / 2]`; `observations[slot][b]` as four u32
//! words (up lo/hi, satisfied lo/hi).

use super::clusters::WgpuClusters;
use super::context::{WgpuContext, storage_usage};
use super::copy_systems::WgpuCopies;
use super::hot_start::hot_start;
use super::launch::{Dispatcher, MAX_DISPATCHES};
use super::shaders::Bindings;
use super::tempering::WgpuTempering;
use crate::config::ClusterUpdate;
use crate::engine::backend::simple::{
    AnnealingBackend, ClusterBackend, SimpleBackend, SimpleEngine, TemperingBackend, all_groups,
    part_groups,
};
use crate::engine::clusters::{ClusterLattices, ClusterMove, no_clusters};
use crate::engine::copy_maps::CopyUnit;
use crate::engine::cpu::hot_start::HotStartGrid;
use crate::engine::dispatch::{Dispatch, submissions};
use crate::engine::kernels::{Kernel, KernelEngine};
use crate::engine::tempering::{Records, SwapLayout};
use crate::engine::{ISING_PASSES, Observation, Plan};
use crate::error::Result;
use crate::model::ising::IsingSystems;

/// Site updates per submission, so that a submission stays well under a second on slow adapters.
const FLIP_BUDGET: u64 = 1 << 27;
/// Sites each thread of the observables kernel visits (bounds the workgroup's u32 sums).
const SITES_PER_OBSERVER: u64 = 16;

/// The simple Ising engine on a wgpu device.
pub type SimpleWgpuEngine = SimpleEngine<WgpuSimple>;

/// The simple engine's buffers and kernels on a wgpu device.
pub struct WgpuSimple {
    ctx: WgpuContext,
    dispatcher: Dispatcher,
    spins: wgpu::Buffer,
    thresholds: wgpu::Buffer,
    sweep_pipeline: wgpu::ComputePipeline,
    observe_pipeline: wgpu::ComputePipeline,
    observations: Option<ObservationBuffer>,
    tempering: Option<WgpuTempering>,
    /// Population annealing's copy kernel, from the first copy on.
    copies: Option<WgpuCopies>,
    /// The constants every kernel of the engine was composed with.
    constants: Vec<(&'static str, u32)>,
    /// Cluster updates' buffers and kernels, once set.
    clusters: Option<WgpuClusters>,
}

/// The observation buffer with its capacity in slots and the bind group that binds it.
struct ObservationBuffer {
    buffer: wgpu::Buffer,
    slots: u32,
    bind_group: wgpu::BindGroup,
}

impl SimpleEngine<WgpuSimple> {
    /// Allocate `systems` on the device of `ctx` (lattices zeroed until
    /// [`crate::engine::Engine::set_spins`]); fails clearly where the lattices exceed the
    /// device's limits.
    pub fn new(mut ctx: WgpuContext, systems: IsingSystems, workgroup_size: u32) -> Result<Self> {
        check_fits(&ctx, &systems, workgroup_size)?;
        let mut constants = vec![
            ("WG_SIZE", workgroup_size),
            ("L", systems.lattice.size),
            ("DIMS", systems.lattice.dims),
        ];
        // Also the temperatures' blocks of systems: system b runs at b / SLICE_BLOCK.
        constants.extend(systems.slice_index().constants());
        let sweep_pipeline = ctx.pipeline(Kernel::MetropolisSimple, &constants)?.clone();
        let observe_pipeline = ctx.pipeline(Kernel::Observables, &constants)?.clone();
        let spin_bytes = 4 * systems.lattice.sites() * u64::from(systems.systems());
        let spins_buffer = ctx.buffer("spins", spin_bytes, storage_usage())?;
        let thresholds = ctx.upload("thresholds", &systems.thresholds())?;
        let dispatcher = Dispatcher::new(&ctx, workgroup_size)?;
        let backend = WgpuSimple {
            ctx,
            dispatcher,
            spins: spins_buffer,
            thresholds,
            sweep_pipeline,
            observe_pipeline,
            observations: None,
            tempering: None,
            copies: None,
            constants,
            clusters: None,
        };
        backend.ctx.check()?;
        Ok(SimpleEngine::on(backend, systems))
    }
}

impl WgpuSimple {
    /// Observation buffer with room for at least `slots` slots.
    fn ensure_observations(&mut self, slots: u32, systems: u32) -> Result<()> {
        if self.observations.as_ref().is_some_and(|o| o.slots >= slots) {
            return Ok(());
        }
        let bytes = observation_bytes(slots, systems);
        self.ctx
            .check_plan_measurements("observations", slots, bytes)?;
        let buffer = self.ctx.buffer("observations", bytes, storage_usage())?;
        let bind_group = self.bind_group(&buffer);
        self.observations = Some(ObservationBuffer {
            buffer,
            slots: slots.max(1),
            bind_group,
        });
        Ok(())
    }

    /// Bind the spins anew, after a copy handed the engine the other spin buffer.
    fn rebind_spins(&mut self) {
        if let Some(observations) = &self.observations {
            let bind_group = self.bind_group(&observations.buffer);
            self.observations
                .as_mut()
                .expect("checked above")
                .bind_group = bind_group;
        }
    }

    /// The bind group of the shared layout over this engine's buffers and `observations`.
    fn bind_group(&self, observations: &wgpu::Buffer) -> wgpu::BindGroup {
        self.ctx
            .device
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("simple"),
                layout: self.ctx.bind_group_layout(Bindings::Simple),
                entries: &[
                    self.dispatcher.params_entry(),
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: self.spins.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: self.thresholds.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: observations.as_entire_binding(),
                    },
                ],
            })
    }

    fn encode_submission(
        &self,
        systems: &IsingSystems,
        dispatches: &[Dispatch],
        clear: bool,
    ) -> Result<()> {
        let observations = self.observations.as_ref().expect("ensured before encoding");
        let lattice = systems.lattice;
        let systems = systems.systems();
        let groups = all_groups(&lattice).end;
        let observe_grid = self.dispatcher.grid(
            &self.ctx,
            lattice.sites().div_ceil(SITES_PER_OBSERVER),
            systems,
        );
        let mut cleared = vec![&observations.buffer];
        cleared.extend(self.clusters.as_ref().map(WgpuClusters::sizes));
        let clear: &[&wgpu::Buffer] = if clear { &cleared } else { &[] };
        let tempering = self.tempering.as_ref();
        let clusters = self.clusters.as_ref();
        // Group 1 holds the tempering or the cluster buffers (a run has one or the other).
        let group_1 = tempering
            .map(WgpuTempering::bind_group)
            .or(clusters.map(WgpuClusters::bind_group));
        let kernels = |d: &Dispatch| {
            // A swap round measures into the scratch slot before the tempering kernels.
            let mut kernels = match d {
                // A piece of a sweep launches only its groups.
                Dispatch::Sweep(params) => {
                    let threads = u64::from(params.update_threads(groups));
                    let grid = self.dispatcher.grid(&self.ctx, threads, systems);
                    vec![(&self.sweep_pipeline, grid)]
                }
                Dispatch::Cluster(params) => clusters
                    .map_or_else(Vec::new, |c| c.kernels(&self.ctx, &self.dispatcher, params)),
                Dispatch::Measure(_) | Dispatch::Swap(_) => {
                    vec![(&self.observe_pipeline, observe_grid)]
                }
            };
            if let Some(tempering) = tempering {
                kernels.extend(tempering.kernels(&self.ctx, &self.dispatcher, d));
            }
            kernels
        };
        // Grids of more systems than the adapter's z run in pieces.
        let launches: Vec<_> = dispatches.iter().map(|d| (*d, kernels(d))).collect();
        let bind_group = &observations.bind_group;
        (self.dispatcher).enqueue_layered(&self.ctx, bind_group, group_1, &launches, clear);
        self.ctx.wait()
    }
}

impl SimpleBackend for WgpuSimple {
    const NAME: &'static str = "wgpu";

    fn adapter_and_driver(&self) -> (String, String) {
        (self.ctx.adapter_name(), self.ctx.driver())
    }

    /// Slots whose observations fit in one storage binding, with the swap rounds' scratch slot.
    fn max_plan_slots(&self, systems: &IsingSystems) -> u64 {
        let per_slot = observation_bytes(1, systems.systems());
        self.ctx.plan_slots(per_slot)
    }

    fn write_lattices(&mut self, signs: &[i32]) -> Result<()> {
        self.ctx
            .queue
            .write_buffer(&self.spins, 0, bytemuck::cast_slice(signs));
        self.ctx.wait()
    }

    fn read_lattices(&mut self) -> Result<Vec<i32>> {
        self.ctx.read_buffer(&self.spins, self.spins.size())
    }

    fn hot_start(&mut self, systems: &IsingSystems) -> Result<()> {
        let grid = HotStartGrid::simple(systems);
        hot_start(&mut self.ctx, &self.dispatcher, &self.spins, &grid)
    }

    fn prepare_slots(&mut self, systems: &IsingSystems, plan: &Plan) -> Result<()> {
        let swaps = plan.swaps(self.tempering.is_some())?;
        if let Some(tempering) = &mut self.tempering {
            tempering.ensure_history(&self.ctx, plan.slots)?;
        }
        if let Some(clusters) = &mut self.clusters {
            clusters.ensure_sizes(&self.ctx, plan.size_slots())?;
        }
        self.ensure_observations(plan.slots + u32::from(swaps), systems.systems())
    }

    /// Submissions of at most `FLIP_BUDGET` site updates, the first clearing the observations.
    fn launch_plan(&mut self, systems: &IsingSystems, plan: &Plan) -> Result<()> {
        let flips_per_sweep = systems.lattice.sites() * u64::from(systems.systems());
        let sweeps_per_submission = (FLIP_BUDGET / flips_per_sweep).max(1);
        let (seed, count) = (systems.seed, systems.systems());
        let bounds = (MAX_DISPATCHES, sweeps_per_submission);
        let lattice = systems.lattice;
        let part_threads = |_, planes| part_groups(&lattice, planes);
        let subs = submissions(plan, seed, (count, ISING_PASSES), bounds, &part_threads);
        for (i, dispatches) in subs.iter().enumerate() {
            self.encode_submission(systems, dispatches, i == 0)?;
        }
        Ok(())
    }

    fn read_observations(
        &mut self,
        systems: &IsingSystems,
        slots: u32,
    ) -> Result<Vec<Observation>> {
        let observations = self.observations.as_ref().expect("ensured before the plan");
        let bytes = observation_bytes(slots, systems.systems());
        let words: Vec<u32> = self.ctx.read_buffer(&observations.buffer, bytes)?;
        Ok(counter_pairs(&words)
            .map(|[up, satisfied]| Observation { up, satisfied })
            .collect())
    }
}

impl TemperingBackend for WgpuSimple {
    fn set_tempering(&mut self, systems: &IsingSystems, state: &[u32]) -> Result<()> {
        let tempering = WgpuTempering::new(
            &mut self.ctx,
            systems,
            SwapLayout::simple(systems),
            (KernelEngine::Simple, Records::simple(systems)),
            state,
            self.dispatcher.workgroup_size(),
        )?;
        self.tempering = Some(tempering);
        self.ctx.check()
    }

    fn tempering_state(&mut self) -> Result<Vec<u32>> {
        match &self.tempering {
            Some(tempering) => tempering.read_state(&self.ctx),
            None => Ok(Vec::new()),
        }
    }

    fn read_labels(&mut self, slots: u32) -> Result<Vec<u32>> {
        match &self.tempering {
            Some(tempering) => tempering.read_history(&self.ctx, slots),
            None => Ok(Vec::new()),
        }
    }
}

impl AnnealingBackend for WgpuSimple {
    fn write_thresholds(&mut self, thresholds: &[u32]) -> Result<()> {
        self.ctx.write_words(&self.thresholds, thresholds);
        Ok(())
    }

    fn copy_lattices(&mut self, systems: &IsingSystems, sources: &[u32]) -> Result<()> {
        let copies = WgpuCopies::ensure(
            &mut self.copies,
            &mut self.ctx,
            &self.spins,
            (systems.systems(), systems.lattice.sites()),
            CopyUnit::Systems,
            self.dispatcher.workgroup_size(),
        )?;
        copies.copy(&self.ctx, &self.dispatcher, &mut self.spins, sources)?;
        self.rebind_spins();
        Ok(())
    }
}

impl ClusterBackend for WgpuSimple {
    fn set_clusters(&mut self, systems: &IsingSystems, update: ClusterUpdate) -> Result<()> {
        let lattices = ClusterLattices::of_signs(systems);
        let clusters = WgpuClusters::new(
            &mut self.ctx,
            lattices,
            ClusterMove::Update(update),
            &self.constants,
        )?;
        self.clusters = Some(clusters);
        self.ctx.check()
    }

    fn read_cluster_sizes(&mut self, _: &IsingSystems, slots: u32) -> Result<Vec<u64>> {
        let clusters = self.clusters.as_ref().ok_or_else(no_clusters)?;
        clusters.read_sizes(&self.ctx, slots)
    }
}

/// Pairs of 64-bit counters stored as (lo, hi) u32 words, as the kernels' `add_u64` leaves them.
pub(super) fn counter_pairs(words: &[u32]) -> impl Iterator<Item = [u64; 2]> + '_ {
    words.chunks_exact(4).map(|w| {
        [
            u64::from(w[0]) | u64::from(w[1]) << 32,
            u64::from(w[2]) | u64::from(w[3]) << 32,
        ]
    })
}

fn observation_bytes(slots: u32, systems: u32) -> u64 {
    16 * u64::from(slots.max(1)) * u64::from(systems)
}

/// Refuse lattices beyond the device's limits, naming the limit and the largest size that fits.
fn check_fits(ctx: &WgpuContext, systems: &IsingSystems, workgroup_size: u32) -> Result<()> {
    let lattice = systems.lattice;
    let spin_bytes =
        |size: u32| 4 * u64::from(size).pow(lattice.dims) * u64::from(systems.systems());
    ctx.check_storage(
        &format!(
            "{} systems of L = {} in {}D (4 bytes per spin)",
            systems.systems(),
            lattice.size,
            lattice.dims
        ),
        lattice.size,
        spin_bytes(lattice.size),
        spin_bytes,
        2,
    )?;
    // Grids of more systems than the adapter's z run in pieces (`encode_submission`).
    ctx.check_workgroup_size(workgroup_size)
}
