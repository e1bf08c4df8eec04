//! The multispin CUDA engine: kernels `multispin_metropolis`, `multispin_observables` and
//! `multispin_overlap`, composed for the AMSC or SMSC word layout, the twin of
//! `engine::wgpu::MultispinWgpuEngine` with the same data layout ([`crate::engine::multispin`]).
//!
//! Buffers: spin words; bit-sliced threshold tables; couplings (one placeholder word for the
//! ferromagnet); observations `[slot][g][lane]` as two 64-bit counters (up, satisfied); overlaps
//! `[slot][pair][pair count]` as u32 counts (see `MultispinLayout::pair_counts`).
//!
//! Population annealing: an engine opened for [`Betas::Changing`] never compiles its thresholds
//! in, so `set_betas` writes the new tables where the update reads them (the constant array of
//! each colour's module, or the global buffer); `copy_systems` copies lanes (AMSC) or word
//! systems (SMSC) on the device (`copy_systems.rs`).
//!
//! Here the engine, its construction and its [`Engine`] face; beside it the modules it compiles
//! and the shapes they launch in (`modules.rs`), a plan's batches of launches (`launches.rs`),
//! parallel tempering's swap rounds (`rounds.rs`), the measurements' reads
//! (`measurements.rs`), population annealing's copies and resampling step (`annealing.rs`) and a
//! slab's sweeps with its halo exchange (`slab.rs`).

mod annealing;
mod launches;
mod measurements;
pub(super) mod modules;
mod rounds;
mod slab;

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaModule, CudaSlice};

use self::modules::{
    Counts, PairKernels, SwapTally, TALLY_BLOCK_SIZE, TALLY_WORDS_PER_THREAD, ThresholdHome,
    constants, observables_kernel, runs_per_thread, update_module,
};
use super::compile::counting_draws;
use super::context::CudaDevice;
use super::copy_systems::CudaCopies;
use super::halos::NcclHalos;
use super::hot_start::hot_start;
use super::launch::{
    FittedKernel, Launches, Staging, allocate, check_block_size, download, overwrite, upload,
};
use super::resampling::CudaResampling;
use super::streams::{ReadStream, SlabStreams, SystemSizes, SystemStreams};
use super::tempering::CudaTempering;
use crate::engine::backend::multispin::{MultispinBackend, MultispinHost, MultispinLattices};
use crate::engine::cpu::hot_start::HotStartGrid;
use crate::engine::dispatch::DispatchParams;
use crate::engine::kernels::{Kernel, KernelEngine, WordLayout};
use crate::engine::multispin::{MultispinLayout, SlotsRead, overlap_constants};
use crate::engine::slabs::{check_slab, whole_lattices_only};
use crate::engine::tempering::{Records, SwapLayout, chain_slice_kernel_constants};
use crate::engine::{Betas, Halo, Measurements, Plan, Tempering};
use crate::error::Result;

pub use self::modules::CONSTANT_TABLE_WORDS;

/// Site updates between synchronisations, as the wgpu multispin engine: about two milliseconds
/// on an H100. With 2^27 the spin glass at L = 64 waited after every sweep, about 7% of its time.
const FLIP_BUDGET: u64 = 1 << 32;

/// A swap round whose spin exchange is still to come (by the paired update of the sweep after
/// it, or by `tempering_exchange` before anything else reads the spins), its scratch slot in
/// `params.slot`; and whether the swap kernel decided it, or that paired update's colour 0 is
/// to. Where the sweep's paired update decides the round, no swap kernel between the round and
/// the sweep waits for every stream to finish.
#[derive(Debug, Clone, Copy)]
struct PendingRound {
    params: DispatchParams,
    decided: bool,
}

/// The multispin engine on a CUDA device.
pub struct MultispinCudaEngine {
    device: CudaDevice,
    /// The layout, a slab's neighbours and the plan bookkeeping every backend keeps alike.
    host: MultispinHost,
    block_size: u32,
    spins: CudaSlice<u32>,
    thresholds: CudaSlice<u32>,
    threshold_home: ThresholdHome,
    couplings: CudaSlice<u32>,
    /// The update of each colour, and its module.
    sweep_kernels: [CudaFunction; 2],
    sweep_modules: [Arc<CudaModule>; 2],
    /// The streams the update of each group of word systems goes to.
    sweep_streams: SystemStreams,
    /// The observation kernels' counts are sums: they run in blocks as large as their registers
    /// allow, up to the engine's block size.
    observe_kernel: FittedKernel,
    /// The observables of a swap round at zero field: the satisfied bonds alone, counted by the
    /// update before the round where it can ([`SwapTally`]), else by this kernel; both built
    /// with the tempering state.
    swap_observe_kernel: Option<FittedKernel>,
    swap_tally: Option<SwapTally>,
    /// A measurement right after a swap round's tally, with the tally.
    tallied_observe_kernel: Option<FittedKernel>,
    /// Built with the tempering state where its rounds exchange lanes or word systems.
    pair_kernels: Option<PairKernels>,
    pending_round: Option<PendingRound>,
    /// Which of the two scratch slots after the plan's own the next swap round counts into:
    /// rounds alternate, so that the sweep deciding a round clears its records while the next
    /// round's tally fills the other.
    scratch_flip: u32,
    /// Whether a round ran since the tempering state was set: each round tracks the walkers at
    /// both ends of the ladder, so the paired update need not track an end in no pair.
    ends_tracked: bool,
    /// The constants the engine's kernels were compiled with.
    constants: Vec<(&'static str, u32)>,
    /// Only where overlaps are measured (its pair arithmetic needs two replica words).
    overlap_kernel: Option<FittedKernel>,
    /// Two counters per slot, word system and lane; grown to the largest plan seen.
    observations: CudaSlice<u64>,
    /// Page-locked host memory the observations and overlaps are downloaded into.
    observation_staging: Staging<u64>,
    overlap_staging: Staging<u32>,
    /// The stream those downloads go on, beside the plan's later batches.
    read_stream: ReadStream,
    /// The running plan's measurements read back so far.
    read: SlotsRead,
    /// Overlap counts per slot, pair and pair count; grown like `observations`.
    overlaps: CudaSlice<u32>,
    tempering: Option<CudaTempering>,
    /// Population annealing's copies, from the first on.
    copies: Option<CudaCopies<u32>>,
    /// Population annealing's resampling step, from the first table on.
    resampling: Option<CudaResampling>,
    /// A slab's halos device to device, where its ring has NCCL; dropped before the streams
    /// (fields drop in order), since the communicator queues on the edge stream.
    nccl_halos: Option<NcclHalos>,
    /// A slab's streams for its edges and its bulk.
    slab_streams: Option<SlabStreams>,
}

impl MultispinCudaEngine {
    /// Allocate the word systems of `layout` on `device` (all spins down until
    /// [`crate::engine::Engine::set_spins`]) with `block_size` threads per block, for betas
    /// that stay fixed; fails clearly where they exceed the device.
    pub fn new(device: CudaDevice, layout: MultispinLayout, block_size: u32) -> Result<Self> {
        Self::with_betas(device, layout, block_size, Betas::Fixed)
    }

    /// [`MultispinCudaEngine::new`] for betas that stay fixed or change ([`Betas`]).
    pub fn with_betas(
        mut device: CudaDevice,
        layout: MultispinLayout,
        block_size: u32,
        betas: Betas,
    ) -> Result<Self> {
        let pairs = layout.overlap_word_pairs().len() as u32;
        // Grids of more word systems or pairs than the device's z launch in pieces.
        check_block_size(&device, block_size)?;
        let words = WordLayout::of(&layout);
        let tables = layout.threshold_tables();
        let constants = constants(&layout, &tables, betas);
        let mut sweep_kernel =
            |colour: u32| update_module(&mut device, words, &constants, colour, (1, false));
        let [(module_0, sweep_0), (module_1, sweep_1)] = [sweep_kernel(0)?, sweep_kernel(1)?];
        let sweep_kernels = [sweep_0, sweep_1];
        let threshold_home = match constants.contains(&("FIXED_THRESHOLDS", 1)) {
            true => ThresholdHome::Compiled,
            false if tables.len() <= CONSTANT_TABLE_WORDS => ThresholdHome::Constant,
            false => ThresholdHome::Global,
        };
        let observe_kernel =
            observables_kernel(&mut device, &layout, &constants, Counts::Both, block_size)?;
        let overlap_kernel = match pairs {
            0 => None,
            _ => Some(FittedKernel::new(
                device.function(
                    Kernel::MultispinOverlap(words),
                    &overlap_constants(&constants, &layout),
                )?,
                block_size,
            )?),
        };
        let spins = allocate(&device, layout.words() as usize, "spin words")?;
        let thresholds = upload(&device, &tables, "thresholds")?;
        let couplings = upload(&device, &layout.coupling_words(), "couplings")?;
        let sweep_streams = device.system_streams(SystemSizes {
            systems: layout.word_systems(),
            system_bytes: 4 * (spins.len() + couplings.len()) as u64
                / u64::from(layout.word_systems()),
            colour_words: layout.colour_words().into(),
            l2_bytes: device.l2_bytes,
        })?;
        let engine = MultispinCudaEngine {
            observations: allocate(&device, 1, "observations")?,
            overlaps: allocate(&device, 1, "overlaps")?,
            observation_staging: Staging::new(),
            overlap_staging: Staging::new(),
            read_stream: device.read_stream()?,
            read: SlotsRead::default(),
            device,
            host: MultispinHost::new(layout),
            block_size,
            spins,
            thresholds,
            threshold_home,
            couplings,
            sweep_kernels,
            sweep_modules: [module_0, module_1],
            sweep_streams,
            observe_kernel,
            swap_observe_kernel: None,
            swap_tally: None,
            tallied_observe_kernel: None,
            pair_kernels: None,
            pending_round: None,
            scratch_flip: 0,
            ends_tracked: false,
            constants,
            overlap_kernel,
            tempering: None,
            copies: None,
            resampling: None,
            nccl_halos: None,
            slab_streams: None,
        };
        engine.write_constant_tables(&tables)?;
        engine.device.synchronize("allocating the spin words")?;
        Ok(engine)
    }

    /// An engine of the slab `layout.systems` holds (fixed betas), trading its boundary planes
    /// with the neighbouring slabs after each colour's update ([`crate::engine::slabs`]): device
    /// to device through NCCL where `halo` is a ring of processes that all have it
    /// ([`NcclHalos`]), else through `halo` on the host; beside the bulk's update either way
    /// (`slab.rs`). Every spin down until [`crate::engine::Engine::set_spins`].
    pub fn slab(
        device: CudaDevice,
        layout: MultispinLayout,
        block_size: u32,
        mut halo: Box<dyn Halo>,
    ) -> Result<Self> {
        check_slab(&layout)?;
        // First, before anything that may fail on one rank alone: every rank joins the vote.
        let nccl_halos = match halo.ring() {
            Some(ring) => NcclHalos::connect(device.context(), ring)?,
            None => None,
        };
        let slab_streams = Some(device.slab_streams()?);
        let mut engine = Self::new(device, layout, block_size)?;
        engine.host.halo = Some(halo);
        engine.nccl_halos = nccl_halos;
        engine.slab_streams = slab_streams;
        Ok(engine)
    }

    /// Threshold tables `tables` into each colour module's constant array, where the update
    /// reads them there.
    fn write_constant_tables(&self, tables: &[u32]) -> Result<()> {
        if let ThresholdHome::Constant = self.threshold_home {
            for module in self.update_modules() {
                self.device
                    .write_constant(module, "threshold_planes", tables)?;
            }
        }
        Ok(())
    }

    /// The update's modules: each colour's, and the swap rounds' tally where there is one.
    fn update_modules(&self) -> impl Iterator<Item = &Arc<CudaModule>> {
        let tally = self.swap_tally.as_ref().map(|tally| &tally.module);
        let pairs = self.pair_kernels.as_ref();
        let deciding = pairs.and_then(|pairs| pairs.deciding.as_ref().map(|d| &d.module));
        self.sweep_modules.iter().chain(tally).chain(deciding)
    }

    /// With `SPINFLIP_COUNT_DRAWS=1` (a debug build of the update, [`counting_draws`]): log the
    /// update's counts so far, both colours, as Philox blocks per word and per decision.
    fn log_draw_counts(&self) -> Result<()> {
        if !counting_draws() {
            return Ok(());
        }
        self.device.synchronize("counting the update's draws")?;
        let mut counts = [0u64; 3];
        for module in self.update_modules() {
            let words = self.device.read_global(module, "draw_counts")?;
            for (total, count) in counts.iter_mut().zip(words) {
                *total += count;
            }
        }
        let [words, lanes, blocks] = counts.map(|c| c as f64);
        log::info!(
            "draw counts: {words} word updates, {:.3} lanes per word needed a uniform, {:.3} \
             Philox blocks per word, {:.3} per decision",
            lanes / words,
            blocks / words,
            blocks / lanes
        );
        Ok(())
    }

    /// Groups of word systems the sweeps go in (see `engine/cuda/streams.rs`).
    pub fn sweep_groups(&self) -> usize {
        self.sweep_streams.group_count()
    }
}

impl MultispinLattices for MultispinCudaEngine {
    const BACKEND: &'static str = "cuda";

    fn layout(&self) -> &MultispinLayout {
        &self.host.layout
    }

    fn adapter_and_driver(&self) -> (String, String) {
        (self.device.description(), self.device.driver())
    }

    fn write_words(&mut self, words: &[u32]) -> Result<()> {
        overwrite(&self.device, words, &mut self.spins, "spin words")
    }

    fn read_words(&mut self) -> Result<Vec<u32>> {
        download(&self.device, &self.spins, "spin words")
    }

    fn hot_start_words(&mut self) -> Result<()> {
        let grid = HotStartGrid::multispin(&self.host.layout);
        hot_start(&mut self.device, self.block_size, &mut self.spins, &grid)
    }

    fn exchange_both(&mut self) -> Result<()> {
        self.exchange_halos()
    }
}

impl Tempering for MultispinCudaEngine {
    fn set_tempering(&mut self, state: &[u32]) -> Result<()> {
        whole_lattices_only(&self.host.halo, "parallel tempering")?;
        // Its paired updates launch every word system at once, as do its swap kernels
        // (checked by `CudaTempering::new`).
        let (swaps, records) = (
            SwapLayout::multispin(&self.host.layout),
            Records::multispin(&self.host.layout),
        );
        let tempering = CudaTempering::new(
            &mut self.device,
            &self.host.layout.systems,
            swaps,
            (KernelEngine::Multispin, records),
            state,
            self.block_size,
        )?;
        self.tempering = Some(tempering);
        if self.host.layout.systems.field == 0.0 {
            let (layout, constants, block_size) =
                (&self.host.layout, &self.constants, self.block_size);
            let kernel = observables_kernel(
                &mut self.device,
                layout,
                constants,
                Counts::Bonds,
                block_size,
            )?;
            self.swap_observe_kernel = Some(kernel);
            // The tally counts colour 1's bonds after its update: only where every bond joins
            // the two colours and every site has all its bonds
            // (MultispinLayout::tallies_swap_rounds).
            if layout.tallies_swap_rounds() {
                let words = WordLayout::of(layout);
                let runs = runs_per_thread(layout, TALLY_WORDS_PER_THREAD);
                let (module, function) =
                    update_module(&mut self.device, words, constants, 1, (runs, true))?;
                let kernel = FittedKernel::new(function, TALLY_BLOCK_SIZE)?;
                // Its blocks are compiled in: a device that cannot run them counts the rounds
                // with the observables kernel.
                if kernel.block_size == TALLY_BLOCK_SIZE {
                    self.swap_tally = Some(SwapTally { module, kernel });
                    self.tallied_observe_kernel = Some(observables_kernel(
                        &mut self.device,
                        layout,
                        constants,
                        Counts::UpSpins,
                        block_size,
                    )?);
                }
            }
        }
        let tempering_constants = chain_slice_kernel_constants(&swaps, &records);
        self.pair_kernels = self.load_pair_kernels(&tempering_constants)?;
        self.write_constant_tables(&self.host.layout.threshold_tables())?;
        (self.pending_round, self.ends_tracked) = (None, false);
        self.device.synchronize("uploading the tempering state")
    }

    fn tempering_state(&mut self) -> Result<Vec<u32>> {
        match &self.tempering {
            Some(tempering) => tempering.read_state(&self.device),
            None => Ok(Vec::new()),
        }
    }
}

impl MultispinBackend for MultispinCudaEngine {
    const NAME: &'static str = "multispin CUDA";

    fn host(&mut self) -> &mut MultispinHost {
        &mut self.host
    }

    /// Swap rounds measure into two scratch slots past the plan's, alternately.
    fn prepare_slots(&mut self, plan: &Plan) -> Result<()> {
        let swaps = plan.swaps(self.tempering.is_some())?;
        if let Some(tempering) = &mut self.tempering {
            tempering.ensure_history(&self.device, plan.slots)?;
        }
        self.clear_measurements(plan.slots + 2 * u32::from(swaps))?;
        self.read = SlotsRead::new(plan.slots);
        Ok(())
    }

    /// Batches of at most `FLIP_BUDGET` site updates (a slab's one dispatch at a time), then
    /// the last swap round's exchange.
    fn launch_plan(&mut self, plan: &Plan) -> Result<()> {
        let layout = &self.host.layout;
        let flips_per_sweep = layout.lattice().sites() * u64::from(layout.systems.systems());
        let seeded = (layout.systems.seed, layout.word_systems());
        match self.host.halo {
            Some(_) => self.run_slab(plan)?,
            None => self.run(plan, seeded, flips_per_sweep, FLIP_BUDGET)?,
        }
        self.flush_exchange()?;
        self.log_draw_counts()
    }

    fn wait(&mut self) -> Result<()> {
        self.device.synchronize("running the sweep kernels")
    }

    fn read_measurements(&mut self, slots: u32) -> Result<Measurements> {
        self.read_measured(slots)
    }
}
