//! The simple engine's CUDA backend ([`SimpleBackend`]; the engine itself is
//! `engine::backend::simple::SimpleEngine`): one spin per `int`, kernels `metropolis_simple` and
//! `observables`, the twin of `engine::wgpu::simple::WgpuSimple` with the same data layout.
//!
//! Layout: `spins[b N + site]` for system `b` (temperature-major, then replica) and site in
//! natural order; `thresholds[t][spin_up][(n + z) / 2]` from `IsingSystems::thresholds`;
//! `observations[slot][b]` as two 64-bit counters (up, satisfied). Each launch takes its
//! `DispatchParams` by value, so a plan needs no parameter buffer. Population annealing's
//! `set_betas` overwrites the thresholds; `copy_systems` copies whole lattices on the device
//! (`copy_systems.rs`); the cluster updates' kernels are driven by `clusters.rs`.
#![allow(
    unsafe_code,
    reason = "kernel launches and passing DispatchParams by value are unsafe in cudarc"
)]

use std::ops::Range;

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

use super::clusters::CudaClusters;
use super::context::CudaDevice;
use super::copy_systems::CudaCopies;
use super::hot_start::hot_start;
use super::launch::{
    Launches, allocate, check_block_size, clear, download, download_counter_pairs, launch_config,
    launch_kernel, launch_layers, overwrite, upload,
};
use super::tempering::CudaTempering;
use crate::config::ClusterUpdate;
use crate::engine::backend::simple::{
    AnnealingBackend, ClusterBackend, SimpleBackend, SimpleEngine, TemperingBackend, all_groups,
    part_groups,
};
use crate::engine::clusters::{ClusterLattices, ClusterMove, no_clusters};
use crate::engine::copy_maps::CopyUnit;
use crate::engine::cpu::hot_start::HotStartGrid;
use crate::engine::dispatch::Dispatch;
use crate::engine::kernels::{Kernel, KernelEngine};
use crate::engine::tempering::{Records, SwapLayout};
use crate::engine::{Observation, Plan, no_tempering};
use crate::error::Result;
use crate::model::Lattice;
use crate::model::ising::IsingSystems;

/// Sites each thread of the observables kernel visits (bounds the block's 32-bit sums).
const SITES_PER_OBSERVER: u64 = 16;

/// Site updates between synchronisations (about a millisecond on an H100).
const FLIP_BUDGET: u64 = 1 << 27;

/// Names of the geometry constants the kernels are compiled with (as `SPINFLIP_<name>`): the
/// lattice and the systems' slice index ([`crate::model::systems::SliceIndex::CONSTANTS`]; system `b` runs at
/// temperature `b / SLICE_BLOCK`).
pub(super) const CONSTANTS: [&str; 5] = ["L", "DIMS", "SLICE_BLOCK", "RUN_BLOCK", "SLICE_FIRST"];

/// The simple Ising engine on a CUDA device.
pub type SimpleCudaEngine = SimpleEngine<CudaSimple>;

/// The simple engine's buffers and kernels on a CUDA device.
pub struct CudaSimple {
    device: CudaDevice,
    /// The systems' lattice and count, fixed at construction (the engine holds the systems).
    lattice: Lattice,
    systems: u32,
    block_size: u32,
    spins: CudaSlice<i32>,
    thresholds: CudaSlice<u32>,
    sweep_kernel: CudaFunction,
    observe_kernel: CudaFunction,
    /// Two counters per slot and system; grown to the largest plan seen.
    observations: CudaSlice<u64>,
    tempering: Option<CudaTempering>,
    /// Population annealing's copies, from the first on.
    copies: Option<CudaCopies<i32>>,
    /// The cluster updates' buffers and kernels, once set.
    clusters: Option<CudaClusters>,
}

/// The geometry constants of `systems`, in the order of [`CONSTANTS`].
fn constants(systems: &IsingSystems) -> Vec<(&'static str, u32)> {
    let [size, dims, ..] = CONSTANTS;
    [(size, systems.lattice.size), (dims, systems.lattice.dims)]
        .into_iter()
        .chain(systems.slice_index().constants())
        .collect()
}

impl SimpleEngine<CudaSimple> {
    /// Allocate `systems` on `device` (lattices zeroed until
    /// [`crate::engine::Engine::set_spins`]) with `block_size` threads per block; fails clearly
    /// where they exceed the device.
    pub fn new(mut device: CudaDevice, systems: IsingSystems, block_size: u32) -> Result<Self> {
        // Grids of more systems than the device's z launch in pieces (`launch`).
        check_block_size(&device, block_size)?;
        let constants = constants(&systems);
        let sweep_kernel = device.function(Kernel::MetropolisSimple, &constants)?;
        let observe_kernel = device.function(Kernel::Observables, &constants)?;
        let spins = allocate(&device, systems.spin_count(), "spins")?;
        let thresholds = upload(&device, &systems.thresholds(), "thresholds")?;
        let observations = allocate(&device, 2 * systems.systems() as usize, "observations")?;
        device.synchronize("allocating the lattices")?;
        let backend = CudaSimple {
            device,
            lattice: systems.lattice,
            systems: systems.systems(),
            block_size,
            spins,
            thresholds,
            sweep_kernel,
            observe_kernel,
            observations,
            tempering: None,
            copies: None,
            clusters: None,
        };
        Ok(SimpleEngine::on(backend, systems))
    }
}

impl CudaSimple {
    /// Grid of blocks covering `threads` threads per system.
    fn launch_config(&self, threads: u64) -> LaunchConfig {
        launch_config(&self.device, self.block_size, threads, self.systems)
    }

    /// Enqueue the kernel of one dispatch.
    fn launch(&mut self, dispatch: &Dispatch) -> Result<()> {
        let params = *dispatch.params();
        let lattice = self.lattice;
        if let Dispatch::Cluster(_) = dispatch {
            let clusters = self.clusters.as_mut().ok_or_else(no_clusters)?;
            return clusters.launch(&self.device, &params, &mut self.spins);
        }
        let sweep = matches!(dispatch, Dispatch::Sweep(_));
        let config = match sweep {
            // A piece of a sweep launches only its groups.
            true => self.launch_config(params.update_threads(all_groups(&lattice).end).into()),
            // A swap round measures into the scratch slot first.
            false => self.launch_config(lattice.sites().div_ceil(SITES_PER_OBSERVER)),
        };
        let stream = &self.device.stream;
        let (spins, thresholds, observations) =
            (&mut self.spins, &self.thresholds, &mut self.observations);
        let (sweep_kernel, observe_kernel) = (&self.sweep_kernel, &self.observe_kernel);
        // Grids of more systems than the device's z launch in pieces.
        launch_layers(&self.device, (&params, config), |params, config| {
            let (kernel, mut launch) = match sweep {
                true => (
                    Kernel::MetropolisSimple,
                    stream.launch_builder(sweep_kernel),
                ),
                false => (Kernel::Observables, stream.launch_builder(observe_kernel)),
            };
            launch.arg(params);
            match sweep {
                true => launch.arg(&mut *spins).arg(thresholds),
                false => launch.arg(&*spins).arg(&mut *observations),
            };
            // SAFETY: the arguments match the kernel's parameters in order and type
            // (shaders/cuda/<kernel>.cu): DispatchParams by value, then device pointers to
            // `int` spins, `unsigned` thresholds or `unsigned long long` observations. The
            // kernels stay in bounds: threads past the last site return, the piece's layers
            // from `params.first_layer` are systems whose lattices hold `lattice.sites()` spins
            // each, the threshold table has a row per temperature, and the observation buffer
            // was sized for this plan's slots by `prepare_slots`.
            unsafe { launch_kernel(&mut launch, config, kernel) }
        })?;
        match (dispatch, &mut self.tempering) {
            (Dispatch::Swap(_), Some(tempering)) => {
                tempering.launch_swap(&self.device, &params, &mut self.observations)?;
                tempering.launch_exchange(&self.device, &params, &mut self.spins)
            }
            (Dispatch::Measure(_), Some(tempering)) => {
                tempering.launch_history(&self.device, &params)
            }
            (Dispatch::Swap(_), None) => Err(no_tempering()),
            _ => Ok(()),
        }
    }
}

impl Launches for CudaSimple {
    fn device(&self) -> &CudaDevice {
        &self.device
    }

    fn part_threads(&self, _pass: u32, planes: Range<u32>) -> Range<u32> {
        part_groups(&self.lattice, planes)
    }

    fn launch_batch(&mut self, batch: &[Dispatch]) -> Result<()> {
        batch.iter().try_for_each(|dispatch| self.launch(dispatch))
    }
}

impl SimpleBackend for CudaSimple {
    const NAME: &'static str = "cuda";

    fn adapter_and_driver(&self) -> (String, String) {
        (self.device.description(), self.device.driver())
    }

    fn write_lattices(&mut self, signs: &[i32]) -> Result<()> {
        overwrite(&self.device, signs, &mut self.spins, "lattices")
    }

    fn read_lattices(&mut self) -> Result<Vec<i32>> {
        download(&self.device, &self.spins, "lattices")
    }

    fn hot_start(&mut self, systems: &IsingSystems) -> Result<()> {
        let grid = HotStartGrid::simple(systems);
        hot_start(&mut self.device, self.block_size, &mut self.spins, &grid)
    }

    /// Zeroed observation counters.
    fn prepare_slots(&mut self, systems: &IsingSystems, plan: &Plan) -> Result<()> {
        let swaps = plan.swaps(self.tempering.is_some())?;
        if let Some(tempering) = &mut self.tempering {
            tempering.ensure_history(&self.device, plan.slots)?;
        }
        if let Some(clusters) = &mut self.clusters {
            clusters.prepare_sizes(&self.device, plan.size_slots(), systems.systems())?;
        }
        let slots = plan.slots + u32::from(swaps);
        let needed = 2 * slots as usize * systems.systems() as usize;
        if self.observations.len() < needed {
            self.observations = allocate(&self.device, needed, "observations")?;
        }
        clear(&self.device, &mut self.observations, "observations")
    }

    /// Batches of at most `FLIP_BUDGET` site updates, waited for here.
    fn launch_plan(&mut self, systems: &IsingSystems, plan: &Plan) -> Result<()> {
        let flips_per_sweep = systems.lattice.sites() * u64::from(systems.systems());
        let seeded = (systems.seed, systems.systems());
        self.run(plan, seeded, flips_per_sweep, FLIP_BUDGET)?;
        self.device.synchronize("running the sweep kernels")
    }

    fn read_observations(
        &mut self,
        systems: &IsingSystems,
        slots: u32,
    ) -> Result<Vec<Observation>> {
        let pairs = slots as usize * systems.systems() as usize;
        let counters = download_counter_pairs(&self.device, &self.observations, pairs)?;
        Ok(counters
            .into_iter()
            .map(|[up, satisfied]| Observation { up, satisfied })
            .collect())
    }
}

impl TemperingBackend for CudaSimple {
    fn set_tempering(&mut self, systems: &IsingSystems, state: &[u32]) -> Result<()> {
        let tempering = CudaTempering::new(
            &mut self.device,
            systems,
            SwapLayout::simple(systems),
            (KernelEngine::Simple, Records::simple(systems)),
            state,
            self.block_size,
        )?;
        self.tempering = Some(tempering);
        self.device.synchronize("uploading the tempering state")
    }

    fn tempering_state(&mut self) -> Result<Vec<u32>> {
        match &self.tempering {
            Some(tempering) => tempering.read_state(&self.device),
            None => Ok(Vec::new()),
        }
    }

    fn read_labels(&mut self, slots: u32) -> Result<Vec<u32>> {
        match &self.tempering {
            Some(tempering) => tempering.read_history(&self.device, slots),
            None => Ok(Vec::new()),
        }
    }
}

impl AnnealingBackend for CudaSimple {
    fn write_thresholds(&mut self, thresholds: &[u32]) -> Result<()> {
        overwrite(&self.device, thresholds, &mut self.thresholds, "thresholds")
    }

    fn copy_lattices(&mut self, systems: &IsingSystems, sources: &[u32]) -> Result<()> {
        let copies = CudaCopies::ensure(
            &mut self.copies,
            &mut self.device,
            (systems.systems(), systems.lattice.sites()),
            CopyUnit::Systems,
            self.spins.len(),
            self.block_size,
        )?;
        copies.copy(&self.device, &mut self.spins, sources)
    }
}

impl ClusterBackend for CudaSimple {
    fn set_clusters(&mut self, systems: &IsingSystems, update: ClusterUpdate) -> Result<()> {
        let constants = constants(systems);
        let clusters = CudaClusters::new(
            &mut self.device,
            &ClusterLattices::of_signs(systems),
            ClusterMove::Update(update),
            &constants,
        )?;
        self.clusters = Some(clusters);
        self.device.synchronize("allocating the cluster buffers")
    }

    fn read_cluster_sizes(&mut self, systems: &IsingSystems, slots: u32) -> Result<Vec<u64>> {
        let clusters = self.clusters.as_ref().ok_or_else(no_clusters)?;
        clusters.read_sizes(&self.device, slots, systems.systems())
    }
}
