//! The vector-spin engine on a CUDA device: kernels `vector_hot_start`, `vector_metropolis`,
//! `vector_tiles` (the double checkerboard), `vector_overrelaxation`, `vector_observables` and
//! `vector_overlap` (a spin glass's replica pairs) and `vector_exchange` (parallel tempering's;
//! `shaders/cuda/vector_*.cu`), the twins of the WGSL ones with native 64-bit integers, and the
//! same buffers as `engine::wgpu::vector::WgpuVectorEngine`: spins component-major, acceptance
//! tables, counts ([`counters`] per system), couplings, proposal widths, phases, partners.
#![allow(
    unsafe_code,
    reason = "kernel launches and passing DispatchParams by value are unsafe in cudarc"
)]

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use super::clusters::CudaClusters;
use super::context::CudaDevice;
use super::copy_systems::CudaCopies;
use super::driver::driver_error;
use super::launch::{
    FittedKernel, Staging, allocate, check_block_size, clear, download, enqueue_overwrite,
    launch_config, launch_layers, overwrite, upload,
};
use crate::engine::backend::vector::{
    ExchangeBackend, PopulationBackend, ProposalBackend, SweepPass, VectorBackend, VectorEngine,
    VectorKernels, launch_passes,
};
use crate::engine::copy_maps::CopyUnit;
use crate::engine::dispatch::DispatchParams;
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
use crate::error::Result;
use crate::model::vector::VectorSystems;

/// Sites each thread of the observables kernel sums, so that few threads add to the counts.
const SITES_PER_OBSERVER: u64 = 16;

/// Sites of one colour a thread of `discrete_metropolis.cu` updates under the heat bath
/// ([`VectorSweeps::state_sites_per_thread`]). On the H200 (2026-12-02), 8-state Potts at
/// 16384^2: 27.5 ps an update with two, 52.7 with one (3 states: 14.6, 15.8).
const HEAT_BATH_SITES_PER_THREAD: u32 = 2;

/// Launches between synchronisations, so that a fault shows near its cause.
const LAUNCHES_PER_WAIT: usize = 1024;

/// The vector-spin engine on a CUDA device.
pub type CudaVectorEngine = VectorEngine<CudaVector>;

/// The vector-spin engine's buffers and kernels on a CUDA device.
pub struct CudaVector {
    device: CudaDevice,
    systems: VectorSystems,
    spins: CudaSlice<i32>,
    tables: CudaSlice<u32>,
    counts: CudaSlice<u64>,
    couplings: CudaSlice<i32>,
    widths: CudaSlice<i32>,
    /// How the Metropolis kernel's threads are launched ([`VectorSweeps::metropolis_launch`]).
    metropolis: MetropolisLaunch,
    phases: CudaSlice<i32>,
    partners: CudaSlice<u32>,
    /// The states' bit planes ([`crate::engine::planes`]; one word where the sweeps hold none).
    planes: CudaSlice<u32>,
    /// The compiled kernels, each with the block size it launches with: the one asked for, or
    /// fewer threads where the kernel's registers allow no more (64-bit arithmetic and Philox
    /// take many; no result depends on the block size).
    kernels: VectorKernelSet<FittedKernel>,
    /// Passes launched since the counts were cleared, for a synchronisation every
    /// [`LAUNCHES_PER_WAIT`].
    launches: usize,
    /// The cluster updates' buffers and kernels, where the sweeps have cluster updates.
    clusters: Option<CudaClusters>,
    /// Page-locked memory the counts are read through.
    staging: Staging<u64>,
    /// Population annealing's copies, from the first, launched with `block_size` threads a
    /// block.
    copies: Option<CudaCopies<i32>>,
    block_size: u32,
}

impl CudaVectorEngine {
    /// The engine of `systems` on `device`, swept by `updates`, every spin zero until a hot
    /// start or [`crate::engine::Engine::set_spins`], with `block_size` threads per block (fewer
    /// for a kernel whose registers allow no more).
    pub fn new(
        mut device: CudaDevice,
        systems: VectorSystems,
        updates: VectorSweeps,
        block_size: u32,
    ) -> Result<Self> {
        check_block_size(&device, block_size)?;
        let plane_words = match updates.planes {
            true => PlaneLayout::of(&systems)?.words() as usize,
            false => 0,
        };
        let metropolis = updates.metropolis_launch(
            &systems,
            HEAT_BATH_SITES_PER_THREAD,
            METROPOLIS_WORKGROUP_SIZE,
        );
        let constants = kernel_constants(&systems, updates, metropolis);
        let kernels = VectorKernelSet::build(&systems, updates, |kernel| {
            let threads = match kernel {
                Kernel::VectorMetropolis => METROPOLIS_WORKGROUP_SIZE,
                _ => block_size,
            };
            FittedKernel::new(device.function(kernel, &constants)?, threads)
        })?;
        let clusters = match cluster_step(&systems, updates)? {
            Some((update, lattices)) => Some(CudaClusters::new(
                &mut device,
                &lattices,
                update,
                &constants,
            )?),
            None => None,
        };
        let backend = CudaVector {
            spins: allocate(&device, systems.spin_words(), "vector spins")?,
            tables: upload(&device, &systems.acceptance_tables(), "acceptance tables")?,
            counts: allocate(
                &device,
                counters(&systems) * systems.systems() as usize,
                "vector counts",
            )?,
            couplings: upload(&device, &coupling_words(&systems.couplings), "couplings")?,
            widths: allocate(&device, systems.betas.len(), "proposal widths")?,
            metropolis,
            phases: upload(
                &device,
                &lookup_words(&systems, &systems.phases()),
                "phases",
            )?,
            partners: allocate(&device, systems.systems() as usize, "tempering partners")?,
            planes: allocate(&device, plane_words, "bit planes")?,
            kernels,
            launches: 0,
            clusters,
            staging: Staging::new(),
            copies: None,
            block_size,
            systems,
            device,
        };
        backend
            .device
            .synchronize("allocating the vector lattices")?;
        Ok(VectorEngine::on(backend, updates))
    }
}

impl CudaVector {
    /// The parameters every launch of this engine shares.
    fn params(&self) -> DispatchParams {
        dispatch_params(&self.systems)
    }

    /// Grid of `kernel`'s blocks covering `threads` threads per system.
    fn grid(&self, kernel: &FittedKernel, threads: u64) -> LaunchConfig {
        self.grid_layers(kernel, (threads, self.systems.systems()))
    }

    /// The launch of `kernel` over `threads` threads a layer of `layers` grid layers.
    fn grid_layers(&self, kernel: &FittedKernel, (threads, layers): (u64, u32)) -> LaunchConfig {
        launch_config(&self.device, kernel.block_size, threads, layers)
    }

    /// Enqueue one pass of a sweep over every system: Metropolis, the double checkerboard's
    /// tiles (one block per tile) or over-relaxation, of the colour in `params`, on its
    /// threads (`params.threads`, never 0 in a pass: [`SweepPass::params`]).
    fn launch_pass(&mut self, params: DispatchParams, pass: VectorPass) -> Result<()> {
        if let VectorPass::Cluster { .. } = pass {
            let clusters = self.clusters.as_mut().expect("cluster updates' buffers");
            return clusters.launch(&self.device, &params, &mut self.spins);
        }
        if let VectorPass::Planes { .. } = pass {
            return self.launch_planes(params);
        }
        let metropolis = match self.systems.states {
            Some(_) => Kernel::DiscreteMetropolis,
            None => Kernel::VectorMetropolis,
        };
        let kernel = match pass {
            VectorPass::Metropolis { .. } => metropolis,
            VectorPass::Tiles { .. } => Kernel::VectorTiles,
            VectorPass::Overrelaxation { .. } => Kernel::VectorOverrelaxation,
            VectorPass::Cluster { .. } | VectorPass::Planes { .. } => {
                unreachable!("launched above")
            }
        };
        let fitted = self.kernels.of_pass(pass);
        let (metropolis, systems) = (self.metropolis, self.systems.systems());
        let grid = pass.launch_grid(params.threads, fitted.block_size, metropolis, systems);
        let config = self.grid_layers(fitted, grid);
        let stream = &self.device.stream;
        launch_layers(&self.device, (&params, config), |params, config| {
            let mut launch = stream.launch_builder(&fitted.function);
            match pass {
                VectorPass::Metropolis { .. } | VectorPass::Tiles { .. } => {
                    launch
                        .arg(params)
                        .arg(&mut self.spins)
                        .arg(&self.tables)
                        .arg(&mut self.counts)
                        .arg(&self.couplings)
                        .arg(&self.widths)
                        .arg(&self.phases);
                }
                VectorPass::Overrelaxation { .. } => {
                    launch.arg(params).arg(&mut self.spins).arg(&self.couplings);
                }
                VectorPass::Cluster { .. } | VectorPass::Planes { .. } => {
                    unreachable!("launched above")
                }
            }
            // SAFETY: the arguments match the kernel's parameters in order and type
            // (shaders/cuda/<kernel>.cu): DispatchParams by value, then device pointers to `int`
            // spins, `unsigned` tables, `unsigned long long` counts, `int` couplings and widths,
            // and the `int` lookup words (lookup_words: the phases, then the state tables or
            // the quarter turn's table). The kernels stay in bounds: threads (from params.first_thread) past the colour's last site
            // or the pass's threads return, blocks past the colour's last tile or the pass's tiles
            // return, every buffer was sized from these systems, and each piece's systems (from
            // params.first_layer) are among them.
            unsafe { launch.launch(config) }
                .map(|_| ())
                .map_err(driver_error(format!(
                    "launching kernel {}",
                    kernel.module()
                )))
        })
    }
}

impl CudaVector {
    /// Enqueue a pass of `discrete_planes_metropolis` over the plane words of the colour in
    /// `params`, on its threads.
    fn launch_planes(&mut self, params: DispatchParams) -> Result<()> {
        let pass = VectorPass::Planes {
            colour: params.colour,
        };
        let fitted = self.kernels.of_pass(pass);
        let (metropolis, systems) = (self.metropolis, self.systems.systems());
        let grid = pass.launch_grid(params.threads, fitted.block_size, metropolis, systems);
        let config = self.grid_layers(fitted, grid);
        let stream = &self.device.stream;
        launch_layers(&self.device, (&params, config), |params, config| {
            let mut launch = stream.launch_builder(&fitted.function);
            launch
                .arg(params)
                .arg(&mut self.planes)
                .arg(&self.tables)
                .arg(&mut self.counts)
                .arg(&self.couplings)
                .arg(&self.phases);
            // SAFETY: discrete_planes_metropolis takes DispatchParams by value and device
            // pointers to the `unsigned` planes, tables, the `unsigned long long` counts and the
            // `int` couplings and lookup tables, all sized from these systems (the planes by
            // their PlaneLayout); threads past the pass's words or the colour's last word
            // return, and each piece's systems (from params.first_layer) are among them.
            unsafe { launch.launch(config) }
                .map(|_| ())
                .map_err(driver_error("launching kernel discrete_planes_metropolis"))
        })
    }

    /// `discrete_pack` (`unpack` false) or `discrete_unpack` over every plane word of every
    /// system.
    fn convert_planes(&mut self, unpack: bool) -> Result<()> {
        let kernels = plane_kernels(&self.kernels);
        let fitted = if unpack {
            &kernels.unpack
        } else {
            &kernels.pack
        };
        let words = 2 * self.systems.lattice.sites_per_colour() / PLANE_BITS;
        let config = self.grid(fitted, words);
        let stream = &self.device.stream;
        launch_layers(&self.device, (&self.params(), config), |params, config| {
            let mut launch = stream.launch_builder(&fitted.function);
            launch
                .arg(params)
                .arg(&mut self.spins)
                .arg(&mut self.planes);
            // SAFETY: discrete_pack and discrete_unpack take DispatchParams by value and device
            // pointers to the `int` states and the `unsigned` planes, both sized from these
            // systems; threads past a system's plane words return.
            unsafe { launch.launch(config) }
                .map(|_| ())
                .map_err(driver_error("launching the bit planes' conversion"))
        })
    }
}

/// The bit planes' kernels of an engine that sweeps them.
fn plane_kernels(kernels: &VectorKernelSet<FittedKernel>) -> &PlaneKernels<FittedKernel> {
    (kernels.planes.as_ref()).expect("bit planes' kernels where the sweeps hold the planes")
}

impl VectorBackend for CudaVector {
    const NAME: &'static str = "cuda";

    fn adapter_and_driver(&self) -> (String, String) {
        (self.device.description(), self.device.driver())
    }

    fn systems(&self) -> &VectorSystems {
        &self.systems
    }

    fn hot_start(&mut self) -> Result<()> {
        let params = self.params();
        let config = self.grid(&self.kernels.hot_start, self.systems.lattice.sites());
        let stream = &self.device.stream;
        launch_layers(&self.device, (&params, config), |params, config| {
            let mut launch = stream.launch_builder(&self.kernels.hot_start.function);
            launch.arg(params).arg(&mut self.spins).arg(&self.phases);
            // SAFETY: vector_hot_start takes DispatchParams by value, the `int` spins, which
            // hold every site of every system, and the `int` lookup words (lookup_words: the
            // phases, then the quarter turn's 512 words that unit vectors' blocks read); threads
            // past the last site return.
            unsafe { launch.launch(config) }
                .map(|_| ())
                .map_err(driver_error("launching kernel vector_hot_start"))
        })?;
        self.device.synchronize("the vector hot start")
    }

    fn write_spins(&mut self, spins: &[i32]) -> Result<()> {
        overwrite(&self.device, spins, &mut self.spins, "vector spins")
    }

    fn read_spins(&mut self) -> Result<Vec<i32>> {
        download(&self.device, &self.spins, "vector spins")
    }

    fn passes(&mut self, passes: &[SweepPass]) -> Result<Vec<u64>> {
        launch_passes(self, passes)
    }

    fn pack_planes(&mut self) -> Result<()> {
        self.convert_planes(false)
    }

    fn unpack_planes(&mut self) -> Result<()> {
        self.convert_planes(true)
    }

    fn observe(&mut self) -> Result<(Vec<VectorObservation>, Vec<i64>)> {
        clear(&self.device, &mut self.counts, "vector counts")?;
        let threads = self.systems.lattice.sites().div_ceil(SITES_PER_OBSERVER);
        let config = self.grid(&self.kernels.observables, threads);
        let stream = &self.device.stream;
        launch_layers(&self.device, (&self.params(), config), |params, config| {
            let mut launch = stream.launch_builder(&self.kernels.observables.function);
            launch
                .arg(params)
                .arg(&self.spins)
                .arg(&mut self.counts)
                .arg(&self.couplings)
                .arg(&self.phases);
            // SAFETY: vector_observables and discrete_observables take DispatchParams by value
            // and device pointers to the `int` spins, the `unsigned long long` counts
            // (`counters` per system), the `int` couplings and lookup tables (2 L words, then
            // the state tables), all sized from these systems; threads sum sites below
            // lattice_sites() only, of the piece's systems.
            unsafe { launch.launch(config) }
                .map(|_| ())
                .map_err(driver_error("launching the observables kernel"))
        })?;
        let counts = read_counts(&self.device, &mut self.staging, &self.counts)?;
        Ok(counted_observations(&self.systems, counts))
    }

    fn take_cluster_record(&mut self) -> Result<Vec<u64>> {
        let clusters = self.clusters.as_mut().expect("cluster passes' buffers");
        clusters.take_record(&self.device)
    }

    fn overlaps(&mut self) -> Result<(Vec<VectorOverlap>, Vec<i64>)> {
        let Some(overlap) = &self.kernels.overlap else {
            return Ok((Vec::new(), Vec::new()));
        };
        clear(&self.device, &mut self.counts, "vector counts")?;
        let threads = self.systems.lattice.sites().div_ceil(SITES_PER_OBSERVER);
        let config = self.grid(overlap, threads);
        let stream = &self.device.stream;
        launch_layers(&self.device, (&self.params(), config), |params, config| {
            let mut launch = stream.launch_builder(&overlap.function);
            launch
                .arg(params)
                .arg(&self.spins)
                .arg(&mut self.counts)
                .arg(&self.phases);
            // SAFETY: vector_overlap and discrete_overlap take DispatchParams by value and
            // device pointers to the `int` spins, the `unsigned long long` counts (`counters`
            // per system, `overlap_counters` per replica pair: the same words) and the `int`
            // phases (2 L words), all sized from these systems; threads sum sites below
            // lattice_sites() only, of the systems z and z + REPLICAS/2 < systems.
            unsafe { launch.launch(config) }
                .map(|_| ())
                .map_err(driver_error("launching kernel vector_overlap"))
        })?;
        let counts = read_counts(&self.device, &mut self.staging, &self.counts)?;
        Ok(counted_overlaps(&self.systems, counts))
    }
}

impl VectorKernels for CudaVector {
    fn clear_counts(&mut self) -> Result<()> {
        self.launches = 0;
        clear(&self.device, &mut self.counts, "vector counts")
    }

    fn enqueue_pass(&mut self, pass: &SweepPass) -> Result<()> {
        self.launch_pass(pass.params(self.params()), pass.pass)?;
        self.launches += 1;
        match self.launches % LAUNCHES_PER_WAIT {
            0 => self.device.synchronize("vector sweeps"),
            _ => Ok(()),
        }
    }

    fn read_accepted(&mut self) -> Result<Vec<u64>> {
        let counts = read_counts(&self.device, &mut self.staging, &self.counts)?;
        Ok(counted_accepted(&self.systems, counts))
    }
}

/// Every system's `counts`, through the page-locked `staging` (a measurement of many small
/// systems reads megabytes of them, at about 1 GB/s through pageable memory).
fn read_counts<'a>(
    device: &CudaDevice,
    staging: &'a mut Staging<u64>,
    counts: &CudaSlice<u64>,
) -> Result<&'a [u64]> {
    let all = 0..counts.len();
    staging.read_range(device, &device.stream, counts, all, "vector counts")
}

impl ProposalBackend for CudaVector {
    fn write_widths(&mut self, widths: &[i32]) -> Result<()> {
        overwrite(&self.device, widths, &mut self.widths, "proposal widths")
    }
}

impl PopulationBackend for CudaVector {
    fn write_betas(&mut self, betas: &[f64]) -> Result<()> {
        self.systems.betas = betas.to_vec();
        let tables = self.systems.acceptance_tables();
        overwrite(&self.device, &tables, &mut self.tables, "acceptance tables")
    }

    fn copy_systems(&mut self, sources: &[u32]) -> Result<()> {
        let copies = CudaCopies::ensure(
            &mut self.copies,
            &mut self.device,
            (self.systems.systems(), self.systems.system_words()),
            CopyUnit::Systems,
            self.spins.len(),
            self.block_size,
        )?;
        copies.copy(&self.device, &mut self.spins, sources)
    }
}

impl ExchangeBackend for CudaVector {
    fn exchange_systems(&mut self, partners: &[u32]) -> Result<()> {
        enqueue_overwrite(
            &self.device,
            partners,
            &mut self.partners,
            "tempering partners",
        )?;
        let words = self.systems.system_words();
        let config = self.grid(&self.kernels.exchange, words);
        let stream = &self.device.stream;
        launch_layers(&self.device, (&self.params(), config), |params, config| {
            let mut launch = stream.launch_builder(&self.kernels.exchange.function);
            launch.arg(params).arg(&mut self.spins).arg(&self.partners);
            // SAFETY: vector_exchange takes DispatchParams by value and device pointers to the
            // `int` spins and the `unsigned` partners (one per system, each below the systems:
            // check_partners), both sized from these systems; threads past a system's last
            // word return.
            unsafe { launch.launch(config) }
                .map(|_| ())
                .map_err(driver_error("launching kernel vector_exchange"))
        })
    }
}
