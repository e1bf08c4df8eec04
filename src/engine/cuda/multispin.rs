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
#![allow(unsafe_code, reason = "kernel launches are unsafe in cudarc")]

use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::{
    CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchArgs, LaunchConfig, PushKernelArg,
};

use super::compile::counting_draws;
use super::context::{CudaDevice, driver_error};
use super::copy_systems::CudaCopies;
use super::hot_start::hot_start;
use super::launch::{
    FittedKernel, Launches, Staging, allocate, check_fits, clear, download, enqueue_overwrite,
    launch_config, overwrite, upload,
};
use super::resampling::{CudaResampling, PendingStep};
use super::streams::{ReadStream, SlabStreams, SystemSizes, SystemStreams};
use super::tempering::CudaTempering;
use crate::config::{Disorder, Randoms};
use crate::engine::annealing::{PopulationHistograms, ResamplingTable, no_measurement, no_table};
use crate::engine::cpu::hot_start::HotStartGrid;
use crate::engine::multispin::{
    COUNT_UP, LANES, MAX_CATEGORIES, MultispinLayout, SlotsRead, TALLY_RUNS, THRESHOLD_CONSTANTS,
};
use crate::engine::slabs::{
    PlaneStore, SlabSweep, check_slab, exchange_colour, whole_lattices_only,
};
use crate::engine::tempering::{Exchange, Records, SwapLayout, chain_slice_kernel_constants};
use crate::engine::wgpu::copy_systems::{identity_map, lane_map, multispin_unit, system_positions};
use crate::engine::wgpu::plan::{
    Dispatch, DispatchParams, measured_slots, submissions, swap_tally,
};
use crate::engine::wgpu::shaders::{Engine as ShaderEngine, Kernel, WordLayout};
use crate::engine::{
    Betas, Engine, EngineInfo, Halo, Measurements, Plan, SpinBits, check_betas, check_copy_map,
    check_thresholds_not_compiled, no_tempering,
};
use crate::error::Result;

/// Names of the constants the kernels are compiled with (as `SPINFLIP_<name>`), the WGSL
/// override constants of the multispin kernels but the block size (CUDA's `blockDim`): the
/// geometry's, then the compiled-in thresholds.
pub(super) const CONSTANTS: [&str; 38] = concat_names(GEOMETRY_CONSTANTS, THRESHOLD_CONSTANTS);

const GEOMETRY_CONSTANTS: [&str; 24] = [
    "L",
    "DIMS",
    "REPLICA_WORDS",
    "SAMPLE_WORDS",
    "WORDS_PER_TABLE",
    "CLASSES_LO",
    "CLASSES_HI",
    "CLASS_COUNT",
    "SHARED_RANDOMS",
    "DISORDERED",
    "TABLE_WORDS",
    "CONSTANT_THRESHOLDS",
    "FIXED_THRESHOLDS",
    "WORD_RUN",
    "PACK_ROTATIONS",
    "LINE_RUN",
    "PLANES",
    "STORED_PLANES",
    "WORD_OFFSET",
    "SEED_LO",
    "SEED_HI",
    "SLICE_BLOCK",
    "RUN_BLOCK",
    "SLICE_FIRST",
];

const fn concat_names(first: [&'static str; 24], second: [&'static str; 14]) -> [&'static str; 38] {
    let mut names = [""; 38];
    let mut i = 0;
    while i < 38 {
        names[i] = if i < 24 { first[i] } else { second[i - 24] };
        i += 1;
    }
    names
}

/// Threshold tables up to this many words (64 KiB, a module's whole constant memory) live in
/// constant memory, where the update reads each bit plane as a uniform operand; larger ones are
/// read from global memory.
pub const CONSTANT_TABLE_WORDS: usize = 1 << 14;

/// The observables kernel's constant: whether it counts satisfied bonds, or copies them from a
/// swap round's tally ([`Counts::UpSpins`]).
pub(super) const COUNT_BONDS: &str = "COUNT_BONDS";

/// What an observables kernel counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Counts {
    /// A measurement: up spins and satisfied bonds.
    Both,
    /// A swap round at zero field: the satisfied bonds alone.
    Bonds,
    /// A measurement right after the colour-1 update that tallied the next swap round
    /// ([`SwapTally`]): the up spins, the satisfied bonds copied from the round's records.
    UpSpins,
}

/// The observables kernel of `layout` with `constants`, counting `counts`.
fn observables_kernel(
    device: &mut CudaDevice,
    layout: &MultispinLayout,
    constants: &[(&'static str, u32)],
    counts: Counts,
    block_size: u32,
) -> Result<FittedKernel> {
    let mut constants = constants.to_vec();
    constants.push((COUNT_UP, u32::from(counts != Counts::Bonds)));
    constants.push((COUNT_BONDS, u32::from(counts != Counts::UpSpins)));
    let kernel = Kernel::MultispinObservables(WordLayout::of(layout));
    FittedKernel::new(device.function(kernel, &constants)?, block_size)
}

/// The update kernel's extra constant: the colour it updates (one module per colour, so that
/// the other colour's arrays are at constant offsets).
pub(super) const COLOUR: &str = "COLOUR";

/// The update's constant for the runs of words each thread of its paired update updates where
/// it does not tally.
pub(super) const PAIR_RUNS: &str = "PAIR_RUNS";

/// The update's constant for the threads of the tally's blocks ([`TALLY_BLOCK_SIZE`]).
pub(super) const TALLY_BLOCK: &str = "TALLY_BLOCK";

/// The tally's blocks ([`SwapTally`]): their threads' tallies are summed in a tree over the
/// warps before one warp per word system transposes them, so larger blocks share the transposes
/// among more words.
const TALLY_BLOCK_SIZE: u32 = 256;

/// Words of each word system that a thread of the tally updates, in runs of the layout's word
/// run. With the tree, fewer words a thread (so more threads, hiding more latency) share the
/// transposes well enough. 3D spin glass, H200, PT ps/flip at L = 16 / 32 (docs/BENCHMARKS.md):
/// with packed randoms (two-word runs) main's four runs a thread, each warp transposing its own,
/// took 0.598-0.603 / 0.515, the tree's one run 0.604 / 0.525 and two 0.588-0.592 / 0.510; with
/// exact randoms (one-word runs) 0.671-0.677 / 0.593, the tree's two runs 0.676-0.679 / 0.593 and
/// four 0.664-0.667 / 0.580.
const TALLY_WORDS_PER_THREAD: u32 = 4;

/// Runs of words of `layout` in `words` words a thread (one at least).
fn runs_per_thread(layout: &MultispinLayout, words: u32) -> u32 {
    (words / layout.word_run()).max(1)
}

/// Site updates between synchronisations, as the wgpu multispin engine: about two milliseconds
/// on an H100. With 2^27 the spin glass at L = 64 waited after every sweep, about 7% of its time.
const FLIP_BUDGET: u64 = 1 << 32;

/// The constants of `layout` with threshold tables `tables`, in the order of [`CONSTANTS`];
/// thresholds are compiled in only where the betas stay fixed.
fn constants(layout: &MultispinLayout, tables: &[u32], betas: Betas) -> Vec<(&'static str, u32)> {
    let [classes_lo, classes_hi] = layout.category_classes();
    let classes = layout.energy_classes().len();
    let fixed = layout.fixed_thresholds(betas);
    let mut thresholds = fixed.clone().unwrap_or_default();
    thresholds.resize(MAX_CATEGORIES as usize, 0);
    let values = [
        layout.lattice().size,
        layout.lattice().dims,
        layout.replica_words,
        layout.sample_words,
        layout.replica_words * layout.sample_words,
        classes_lo,
        classes_hi,
        classes as u32,
        u32::from(layout.randoms == Randoms::Shared),
        u32::from(layout.systems.disorder == Disorder::Bimodal),
        tables.len() as u32,
        u32::from(tables.len() <= CONSTANT_TABLE_WORDS),
        u32::from(fixed.is_some()),
        layout.word_run(),
        layout.pack_rotations(),
        layout.line_run(),
        layout.own_planes(),
        layout.stored_planes(),
        layout.word_offset(),
        layout.systems.seed as u32,
        (layout.systems.seed >> 32) as u32,
    ];
    // The word systems' slice index, in the order of SliceIndex::CONSTANTS.
    let slice = layout
        .word_slice_index()
        .constants()
        .map(|(_, value)| value);
    CONSTANTS
        .into_iter()
        .zip(values.into_iter().chain(slice).chain(thresholds))
        .collect()
}

/// The update module of word layout `words` with `constants` for `colour`, tallying a swap
/// round's satisfied bonds with `runs` runs per thread, or (`tally` false) with `runs` runs per
/// thread of its paired update that does not tally.
fn update_module(
    device: &mut CudaDevice,
    words: WordLayout,
    constants: &[(&'static str, u32)],
    colour: u32,
    (runs, tally): (u32, bool),
) -> Result<(Arc<CudaModule>, CudaFunction)> {
    let mut constants = constants.to_vec();
    let (tally_runs, pair_runs) = if tally { (runs, 1) } else { (0, runs) };
    constants.extend([
        (COLOUR, colour),
        (TALLY_RUNS, tally_runs),
        (PAIR_RUNS, pair_runs),
        (TALLY_BLOCK, TALLY_BLOCK_SIZE),
    ]);
    device.kernel(Kernel::MultispinMetropolis(words), &constants)
}

/// An update kernel as launched: its function, block size and runs of words per thread.
#[derive(Clone, Copy)]
struct UpdateKernel<'a> {
    function: &'a CudaFunction,
    block_size: u32,
    runs_per_thread: u32,
}

/// The colour-1 update that also counts each lane's satisfied bonds after it into a swap round's
/// records, in place of the observables kernel between the sweep and the round (zero field,
/// whose decisions need those counts alone): that kernel read every word system again, as long
/// as a colour's update on an H100 (3D spin glass, L = 16). Its blocks of [`TALLY_BLOCK_SIZE`]
/// threads sum their bit-sliced counts, transpose them with shuffles and add them to the records
/// once, each thread updating [`TALLY_WORDS_PER_THREAD`] words ([`runs_per_thread`]).
struct SwapTally {
    module: Arc<CudaModule>,
    kernel: FittedKernel,
}

/// The entry point of the update modules that updates the pairs of a swap round's word systems,
/// applying the round's spin exchange as it loads them.
const PAIRS_FUNCTION: &str = "multispin_metropolis_pairs";

/// The paired updates ([`PAIRS_FUNCTION`]) of each colour and of the tally, from the same modules
/// as the plain ones: the sweep after a swap round that exchanges lanes or whole word systems
/// updates both systems of each of its pairs in one thread, exchanging their words on load, so
/// that no `tempering_exchange` reads and writes every word system between the round and the
/// sweep (3D spin glass at L = 32 on an H100: 178 us a round, about a sixth of a sweep).
struct PairKernels {
    colours: [FittedKernel; 2],
    tally: Option<FittedKernel>,
    /// Where word systems are small enough ([`DECIDING_MOST_COLOUR_WORDS`]).
    deciding: Option<DecidingPairs>,
}

/// The paired colour-0 update that decides the swap round it follows ([`PendingRound`]), from
/// a module compiled with the tempering constants: each block decides its pair unit's lanes
/// (its first block also keeps the round's books), so its threads update
/// [`DECIDING_WORDS_PER_THREAD`] words each in blocks of [`DECIDING_BLOCK_SIZE`], fewer blocks
/// to repeat each decision.
struct DecidingPairs {
    module: Arc<CudaModule>,
    kernel: FittedKernel,
    runs_per_thread: u32,
}

/// Words a thread of the deciding update updates, and its blocks. 3D spin glass, H200, PT
/// ps/flip at L = 16 / 32 (docs/BENCHMARKS.md), against 0.571 / 0.498 packed and 0.648 / 0.568
/// exact with the swap kernel: 2 words in blocks of 128, 0.544 / 0.498 and 0.639 / 0.582; 4 in
/// 256, 0.555 / 0.501 and 0.639 / 0.576; 8 in 256, 0.560 / 0.504 and 0.646 / 0.576.
const DECIDING_WORDS_PER_THREAD: u32 = 2;
const DECIDING_BLOCK_SIZE: u32 = 128;

/// Most words of one colour of a word system whose paired update decides the rounds: in larger
/// systems the swap kernel costs less of a sweep than each block's decisions (3D spin glass at
/// L = 32, 16384 words, above; at L = 16, 2048 words, the deciding update gains).
const DECIDING_MOST_COLOUR_WORDS: u32 = 4096;

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

/// The round slot argument of the paired update for a round its colour 0 does not decide.
const NO_ROUND: u32 = u32::MAX;

/// Where the update reads its threshold tables.
enum ThresholdHome {
    /// Compiled into the update (`FIXED_THRESHOLDS`): fixed betas only.
    Compiled,
    /// The `__constant__` array `threshold_planes` of each colour's module.
    Constant,
    /// The global buffer `thresholds`.
    Global,
}

/// The multispin engine on a CUDA device.
pub struct MultispinCudaEngine {
    device: CudaDevice,
    layout: MultispinLayout,
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
    /// The slot of the last plan's last measurement, which the next resampling step reads
    /// (`None` where the plan measured nothing: it cleared the counts).
    last_measured: Option<u32>,
    /// Whether measurements come back as the populations' histograms
    /// ([`Engine::count_populations`]).
    count_populations: bool,
    /// The neighbours of a slab ([`crate::engine::slabs`]); `None` for whole lattices.
    halo: Option<Box<dyn Halo>>,
    /// A slab's streams for its edges and its bulk.
    slab_streams: Option<SlabStreams>,
}

/// The device's spin words as the halo exchange reads and writes them.
struct DeviceWords<'a> {
    /// The stream the copies go on, after the updates they read or before those that read them.
    stream: &'a Arc<CudaStream>,
    spins: &'a mut CudaSlice<u32>,
}

impl PlaneStore for DeviceWords<'_> {
    fn read(&mut self, ranges: &[Range<usize>]) -> Result<Vec<u32>> {
        let mut words = Vec::new();
        for range in ranges {
            let part = self
                .stream
                .clone_dtoh(&self.spins.slice(range.clone()))
                .map_err(driver_error("downloading the boundary planes"))?;
            words.extend(part);
        }
        self.stream
            .synchronize()
            .map_err(driver_error("downloading the boundary planes"))?;
        Ok(words)
    }

    fn write(&mut self, start: usize, words: &[u32]) -> Result<()> {
        self.stream
            .memcpy_htod(words, &mut self.spins.slice_mut(start..start + words.len()))
            .map_err(driver_error("uploading the halo planes"))
    }
}

impl MultispinCudaEngine {
    /// Allocate the word systems of `layout` on `device` (all spins down until
    /// [`Engine::set_spins`]) with `block_size` threads per block, for betas that stay fixed;
    /// fails clearly where they exceed the device.
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
        check_fits(&device, block_size, layout.word_systems(), "word systems")?;
        check_fits(&device, block_size, pairs, "overlap pairs")?;
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
                device.function(Kernel::MultispinOverlap(words), &constants)?,
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
            layout,
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
            last_measured: None,
            count_populations: false,
            halo: None,
            slab_streams: None,
        };
        engine.write_constant_tables(&tables)?;
        engine.device.synchronize("allocating the spin words")?;
        Ok(engine)
    }

    /// An engine of the slab `layout.systems` holds (fixed betas), trading its
    /// boundary planes through `halo` ([`crate::engine::slabs`]): after each colour's update of
    /// every word system the device is synchronised, the boundary planes downloaded, exchanged
    /// and the halos uploaded (no overlap of the exchange with the bulk update yet); every spin
    /// down until [`Engine::set_spins`].
    pub fn slab(
        device: CudaDevice,
        layout: MultispinLayout,
        block_size: u32,
        halo: Box<dyn Halo>,
    ) -> Result<Self> {
        check_slab(&layout)?;
        let slab_streams = Some(device.slab_streams()?);
        Ok(MultispinCudaEngine {
            halo: Some(halo),
            slab_streams,
            ..Self::new(device, layout, block_size)?
        })
    }

    /// A slab's halo exchange of `colour` (nothing for whole lattices), once the device is done.
    fn exchange(&mut self, colour: u32) -> Result<()> {
        let Some(halo) = self.halo.as_deref_mut() else {
            return Ok(());
        };
        self.device.synchronize("updating a slab")?;
        let mut store = DeviceWords {
            stream: &self.device.stream,
            spins: &mut self.spins,
        };
        exchange_colour(&self.layout, halo, &mut store, colour)?;
        self.device.synchronize("exchanging the halo planes")
    }

    /// A slab's sweep of one colour with its exchange hidden ([`SlabSweep`]): the edge planes'
    /// update and their copies on one stream, the bulk on another, which runs through the
    /// download, the exchange and the upload of the halos. The next colour's edges (read by
    /// the bulk's planes next to them) wait for this bulk on the device, so the host queues
    /// them while it runs and the device does not idle between colours.
    fn sweep_slab(&mut self, params: &DispatchParams) -> Result<()> {
        let parts = SlabSweep::new(&self.layout, *params);
        let streams = self.slab_streams.as_ref().expect("a slab has its streams");
        let systems = 0..self.layout.word_systems();
        let kernel = self.sweep_kernel(params.colour);
        for edge in &parts.edges {
            self.launch_sweep(streams.edges(), systems.clone(), edge, kernel)?;
        }
        if let Some(bulk) = &parts.bulk {
            self.launch_sweep(streams.bulk(), systems, bulk, kernel)?;
        }
        let halo = self.halo.as_deref_mut().expect("a slab has its halo");
        let mut store = DeviceWords {
            stream: streams.edges(),
            spins: &mut self.spins,
        };
        exchange_colour(&self.layout, halo, &mut store, params.colour)?;
        streams
            .edges()
            .join(streams.bulk())
            .map_err(driver_error("ordering a slab's edges after its bulk"))
    }

    /// Make a slab's halos of both colours current (after new spins).
    fn exchange_both(&mut self) -> Result<()> {
        (0..2).try_for_each(|colour| self.exchange(colour))
    }

    /// A slab's plan: one dispatch at a time, each colour's update with its exchange.
    fn run_slab(&mut self, plan: &Plan) -> Result<()> {
        let (seed, systems) = (self.layout.systems.seed, self.layout.word_systems());
        for dispatch in submissions(plan, seed, systems, usize::MAX, u64::MAX).concat() {
            match dispatch {
                Dispatch::Sweep(params) => self.sweep_slab(&params)?,
                _ => self.launch_batch(&[dispatch])?,
            }
        }
        self.device.synchronize("running a slab's plan")
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

    /// The paired updates, where the tempering's swap rounds exchange lanes or whole word
    /// systems (not neighbour lanes within words, which pairs of word systems do not hold);
    /// colour 0's from a module compiled with the tempering constants `tempering_constants`
    /// ([`chain_slice_kernel_constants`]).
    fn load_pair_kernels(
        &mut self,
        tempering_constants: &[(&'static str, u32)],
    ) -> Result<Option<PairKernels>> {
        let Some(tempering) = &self.tempering else {
            return Ok(None);
        };
        if tempering.swaps().exchange == Exchange::WithinWords {
            return Ok(None);
        }
        let runs = runs_per_thread(&self.layout, DECIDING_WORDS_PER_THREAD);
        let deciding = match self.layout.colour_words() <= DECIDING_MOST_COLOUR_WORDS {
            true => {
                let constants = [self.constants.as_slice(), tempering_constants].concat();
                let words = WordLayout::of(&self.layout);
                Some(update_module(&mut self.device, words, &constants, 0, (runs, false))?.0)
            }
            false => None,
        };
        let load = |module: &Arc<CudaModule>, block_size| {
            let function = module
                .load_function(PAIRS_FUNCTION)
                .map_err(driver_error("loading kernel multispin_metropolis_pairs"))?;
            FittedKernel::new(function, block_size)
        };
        let tally = self.swap_tally.as_ref();
        let deciding = match deciding {
            Some(module) => Some(DecidingPairs {
                kernel: load(&module, DECIDING_BLOCK_SIZE)?,
                module,
                runs_per_thread: runs,
            }),
            None => None,
        };
        let [colour_0, colour_1] = &self.sweep_modules;
        Ok(Some(PairKernels {
            colours: [
                load(colour_0, self.block_size)?,
                load(colour_1, self.block_size)?,
            ],
            tally: tally
                .map(|tally| load(&tally.module, tally.kernel.block_size))
                .transpose()?,
            deciding,
        }))
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

    /// The copy kernel and its buffers, built by the first copy or resampling step.
    fn ensure_copies(&mut self) -> Result<()> {
        let layout = &self.layout;
        CudaCopies::ensure(
            &mut self.copies,
            &mut self.device,
            (layout.word_systems(), layout.system_words()),
            multispin_unit(layout),
            self.spins.len(),
            self.block_size,
        )?;
        Ok(())
    }

    /// The resampling kernels for blocks of `slots`, built (with the copy kernel and its
    /// identity map) by the first call or where the blocks change.
    fn ensure_resampling(&mut self, slots: u32) -> Result<()> {
        if self.resampling.as_ref().is_none_or(|r| r.slots() != slots) {
            self.ensure_copies()?;
            let (layout, copies) = (&self.layout, self.copies.as_mut().expect("ensured above"));
            // Lanes that hold no system (AMSC lanes of temperatures beyond the last) keep
            // their bits: the device's steps write only the entries of systems.
            overwrite(
                &self.device,
                &identity_map(layout),
                copies.map_mut(),
                "copy map",
            )?;
            let lattice = layout.lattice();
            self.resampling = Some(CudaResampling::new(
                &mut self.device,
                &system_positions(layout),
                (slots, lattice.bonds(), lattice.sites()),
                layout.smsc(),
                self.block_size,
            )?);
        }
        Ok(())
    }

    /// Enqueue resampling step `step` on the device, from the last plan's last measurement.
    fn enqueue_resample(&mut self, step: u32) -> Result<PendingStep> {
        let slot = self.last_measured.take().ok_or_else(no_measurement)?;
        let resampling = self.resampling.as_mut().ok_or_else(no_table)?;
        let copies = self.copies.as_mut().expect("created with the resampling");
        let base = slot * self.layout.word_systems() * LANES;
        resampling.enqueue(
            &self.device,
            (self.layout.systems.seed, step),
            (&self.observations, base),
            copies,
            &mut self.spins,
        )
    }

    /// Once a plan's work is enqueued, with one wait for it: the copies of its resampling step
    /// `step` and, where the engine counts populations and the plan measured, the histograms of
    /// its last measurement. A refused step leaves the lattices as they were before it and no
    /// measurement to resample from (the plan's measured lattices were put back).
    fn read_back(
        &mut self,
        step: Option<PendingStep>,
        slots: u32,
    ) -> Result<(Vec<u32>, Option<PopulationHistograms>)> {
        let histograms = self.count_populations && slots > 0;
        let Some(resampling) = (self.resampling.as_mut()).filter(|_| step.is_some() || histograms)
        else {
            let waited = self.device.synchronize("running the sweep kernels");
            return waited.map(|()| (Vec::new(), None));
        };
        if histograms {
            let base = (slots - 1) * self.layout.word_systems() * LANES;
            resampling.enqueue_histograms(&self.device, &self.observations, base)?;
        }
        let copies = self.copies.as_mut().expect("created with the resampling");
        let spins = &mut self.spins;
        let read = resampling.read_back(&self.device, step, (copies, spins), histograms);
        if read.is_err() {
            self.last_measured = None;
        }
        read
    }

    /// Groups of word systems the sweeps go in (see `engine/cuda/streams.rs`).
    pub fn sweep_groups(&self) -> usize {
        self.sweep_streams.group_count()
    }

    fn observation_pairs(&self, slots: u32) -> usize {
        slots as usize * self.layout.word_systems() as usize * LANES as usize
    }

    /// Overlap counters for `slots` slots: none where no overlap kernel runs (without replica
    /// pairs, or once populations are counted as histograms).
    fn overlap_counts(&self, slots: u32) -> usize {
        let pairs = match self.overlap_kernel {
            Some(_) => self.layout.overlap_word_pairs().len(),
            None => 0,
        };
        slots as usize * pairs * self.layout.pair_counts() as usize
    }

    /// Zeroed observation and overlap counters for `slots` slots.
    fn clear_measurements(&mut self, slots: u32) -> Result<()> {
        let pairs = self.observation_pairs(slots);
        if self.observations.len() < 2 * pairs {
            self.observations = allocate(&self.device, 2 * pairs, "observations")?;
        }
        let counts = self.overlap_counts(slots);
        if self.overlaps.len() < counts {
            self.overlaps = allocate(&self.device, counts, "overlaps")?;
        }
        clear(&self.device, &mut self.observations, "observations")?;
        match self.overlap_kernel {
            Some(_) => clear(&self.device, &mut self.overlaps, "overlaps"),
            None => Ok(()),
        }
    }

    /// The launch of update `kernel` on `stream` over `layers` layers (z: word systems, or the
    /// paired update's pair units) from `first` on, with the arguments every update takes, and
    /// its configuration.
    fn update_launch<'a>(
        &'a self,
        stream: &'a CudaStream,
        params: &'a DispatchParams,
        (first, layers): (&'a u32, u32),
        kernel: UpdateKernel<'a>,
    ) -> (LaunchArgs<'a>, LaunchConfig) {
        let runs = params.update_threads(self.layout.update_threads());
        let threads = runs.div_ceil(kernel.runs_per_thread);
        let config = launch_config(&self.device, kernel.block_size, threads.into(), layers);
        let mut launch = stream.launch_builder(kernel.function);
        launch
            .arg(params)
            .arg(first)
            .arg(&self.spins)
            .arg(&self.thresholds)
            .arg(&self.couplings)
            .arg(&self.observations);
        (launch, config)
    }

    /// Enqueue the update of colour `params.colour` of word systems `systems` on `stream` with
    /// `kernel` (see [`Self::update_kernel`]).
    fn launch_sweep(
        &self,
        stream: &CudaStream,
        systems: Range<u32>,
        params: &DispatchParams,
        kernel: UpdateKernel<'_>,
    ) -> Result<()> {
        let layers = (&systems.start, systems.len() as u32);
        let (mut launch, config) = self.update_launch(stream, params, layers, kernel);
        // SAFETY: the arguments match multispin_metropolis's parameters in order and type
        // (DispatchParams by value, the first word system, then `unsigned` pointers and the
        // `unsigned long long` observations). The kernel stays in bounds: threads past the
        // colour's words update nothing, z counts the word systems `systems`, which the spin
        // buffer holds, and the threshold tables (here or in the module's constant memory) and
        // couplings are those of this layout; a tally adds to the records of slot
        // `params.slot`, which `clear_measurements` sized. Concurrent launches on other streams
        // write other word systems and records.
        unsafe { launch.launch(config) }
            .map_err(driver_error("launching kernel multispin_metropolis"))?;
        Ok(())
    }

    /// Enqueue the measurement of every word system into slot `params.slot`, with the overlaps
    /// and the temperature history where there are any; its satisfied bonds from the records of
    /// scratch slot `tallied` where the update before it tallied them.
    fn launch_measure(&mut self, params: &DispatchParams, tallied: Option<u32>) -> Result<()> {
        match tallied {
            Some(records) => self.launch_observe(params, Counts::UpSpins, records)?,
            None => self.launch_observe(params, Counts::Both, 0)?,
        }
        if let Some(tempering) = &mut self.tempering {
            tempering.launch_history(&self.device, params)?;
        }
        let layout = &self.layout;
        let stream = &self.device.stream;
        if let Some(overlap) = &self.overlap_kernel {
            let pairs = layout.overlap_word_pairs().len() as u32;
            let config = launch_config(
                &self.device,
                overlap.block_size,
                layout.strips().into(),
                pairs,
            );
            let mut launch = stream.launch_builder(&overlap.function);
            launch.arg(params).arg(&self.spins).arg(&mut self.overlaps);
            // SAFETY: the arguments match multispin_overlap's parameters in order and
            // type (DispatchParams, `unsigned` spins and overlaps). Threads past the last
            // strip return, z counts the overlap pairs of this layout, and
            // `clear_measurements` sized the overlaps for this plan's slots and pairs.
            unsafe { launch.launch(config) }
                .map_err(driver_error("launching kernel multispin_overlap"))?;
        }
        Ok(())
    }

    /// The update of `params.colour`, or the swap round's tally into the scratch slot `slot`.
    fn update_kernel(
        &self,
        params: &DispatchParams,
        tally: Option<u32>,
    ) -> (DispatchParams, UpdateKernel<'_>) {
        match (tally, &self.swap_tally) {
            (Some(slot), Some(SwapTally { kernel, .. })) => {
                let update = UpdateKernel {
                    function: &kernel.function,
                    block_size: kernel.block_size,
                    runs_per_thread: runs_per_thread(&self.layout, TALLY_WORDS_PER_THREAD),
                };
                (DispatchParams { slot, ..*params }, update)
            }
            _ => (*params, self.sweep_kernel(params.colour)),
        }
    }

    /// The plain update of `colour`.
    fn sweep_kernel(&self, colour: u32) -> UpdateKernel<'_> {
        UpdateKernel {
            function: &self.sweep_kernels[colour as usize],
            block_size: self.block_size,
            runs_per_thread: 1,
        }
    }

    /// The scratch slot that the next swap round counts into, of the two after the plan's own
    /// (`plan_scratch`, the first, as the plan's dispatches name it).
    fn round_slot(&self, plan_scratch: u32) -> u32 {
        plan_scratch + self.scratch_flip
    }

    /// Enqueue a swap round: every word system measured into its scratch slot unless the update
    /// before it tallied them (`tallied`), then its decisions, by the swap kernel or by the
    /// paired update of the sweep after it (where there is one, the round has pairs and a round
    /// ran since the tempering state was set); its exchange stays pending where the paired update
    /// can make it, else follows.
    fn launch_swap(&mut self, params: &DispatchParams, tallied: bool) -> Result<()> {
        let params = DispatchParams {
            slot: self.round_slot(params.slot),
            ..*params
        };
        self.scratch_flip ^= 1;
        if !tallied {
            self.launch_observe(&params, Counts::Bonds, 0)?;
        }
        let chains = self
            .tempering
            .as_ref()
            .ok_or_else(no_tempering)?
            .swaps()
            .chains;
        let deciding = self
            .pair_kernels
            .as_ref()
            .is_some_and(|kernels| kernels.deciding.is_some());
        // A round of no pairs (two temperatures, odd parity) leaves no paired update to clear
        // its records.
        let decided = !deciding || !self.ends_tracked || chains.round_pairs(params.colour) == 0;
        if decided {
            let tempering = self.tempering.as_mut().ok_or_else(no_tempering)?;
            tempering.launch_swap(&self.device, &params, &mut self.observations)?;
        }
        self.ends_tracked = true;
        self.pending_round = Some(PendingRound { params, decided });
        if self.pair_kernels.is_none() {
            self.flush_exchange()?;
        }
        Ok(())
    }

    /// Enqueue the pending swap round's decisions, if still to make, and its exchange.
    fn flush_exchange(&mut self) -> Result<()> {
        let (Some(round), Some(tempering)) = (self.pending_round.take(), &mut self.tempering)
        else {
            return Ok(());
        };
        if !round.decided {
            tempering.launch_swap(&self.device, &round.params, &mut self.observations)?;
        }
        tempering.launch_exchange(&self.device, &round.params, &mut self.spins)
    }

    /// The pending swap round where `sweeps` begin with a whole sweep (colour 0, then 1), whose
    /// paired update then makes its exchange; otherwise its exchange is enqueued now.
    fn take_pending_round(&mut self, sweeps: &[&DispatchParams]) -> Result<Option<PendingRound>> {
        if let [first, second, ..] = sweeps
            && (first.colour, second.colour) == (0, 1)
        {
            return Ok(self.pending_round.take());
        }
        self.flush_exchange()?;
        Ok(None)
    }

    /// Enqueue the sweep `sweeps` (colours 0 and 1) after swap round `round` with its exchange
    /// applied on load: pairs (k, k + 1) of the round by the paired update, the temperatures in
    /// no pair (below the round's parity, and the last of an odd count) by the plain one. The
    /// paired update's colour 0 decides the round where the swap kernel did not, after the
    /// streams join (its pairs read what both streams' last sweep wrote). The colour-1 update
    /// tallies the next round into scratch slot `tally` where there is one.
    /// The unpaired temperatures go first, one range a stream, beside the other streams' pairs,
    /// rather than last on the first stream, four short launches in a row while the other
    /// stream had finished (3D EA on an H200, one run each: L = 16 0.616 -> 0.613 ps/flip
    /// packed, 0.692 -> 0.685 exact; L = 32 0.518 -> 0.516 and 0.596 -> 0.595).
    fn launch_paired_sweep(
        &self,
        round: &PendingRound,
        sweeps: &[&DispatchParams],
        tally: Option<u32>,
    ) -> Result<()> {
        let tempering = self.tempering.as_ref().ok_or_else(no_tempering)?;
        let (temperatures, groups) = (
            tempering.swaps().chains.temperatures,
            tempering.swaps().groups,
        );
        if !round.decided {
            self.sweep_streams.join()?;
        }
        let parity = round.params.colour;
        let pairs = tempering.swaps().chains.round_pairs(parity);
        let tally_on = |params: &DispatchParams| tally.filter(|_| params.colour == 1);
        let unpaired = [0..parity, parity + 2 * pairs..temperatures];
        let unpaired = unpaired.into_iter().filter(|range| !range.is_empty());
        for (range, stream) in unpaired.zip(self.sweep_streams.streams().cycle()) {
            for params in sweeps {
                let (params, kernel) = self.update_kernel(params, tally_on(params));
                let systems = range.start * groups..range.end * groups;
                self.launch_sweep(stream, systems, &params, kernel)?;
            }
        }
        for streams in self.sweep_streams.unit_rounds(pairs * groups, 2) {
            for params in sweeps {
                let (params, kernel) = self.pair_kernel(params, tally_on(params), round);
                for (stream, units) in streams.iter().filter(|(_, units)| !units.is_empty()) {
                    self.launch_pairs(stream, units.clone(), &params, kernel, round)?;
                }
            }
        }
        Ok(())
    }

    /// The paired update of `params.colour` after `round` (colour 0's deciding the round where
    /// the swap kernel did not), or the tally's into scratch slot `slot`.
    fn pair_kernel(
        &self,
        params: &DispatchParams,
        tally: Option<u32>,
        round: &PendingRound,
    ) -> (DispatchParams, UpdateKernel<'_>) {
        let kernels = self
            .pair_kernels
            .as_ref()
            .expect("paired updates only with their kernels");
        let deciding = kernels.deciding.as_ref().filter(|_| !round.decided);
        let (params, kernel, runs_per_thread) = match (tally, &kernels.tally, deciding) {
            (Some(slot), Some(kernel), _) => (
                DispatchParams { slot, ..*params },
                kernel,
                runs_per_thread(&self.layout, TALLY_WORDS_PER_THREAD),
            ),
            (_, _, Some(deciding)) if params.colour == 0 => {
                (*params, &deciding.kernel, deciding.runs_per_thread)
            }
            _ => (*params, &kernels.colours[params.colour as usize], 1),
        };
        let kernel = UpdateKernel {
            function: &kernel.function,
            block_size: kernel.block_size,
            runs_per_thread,
        };
        (params, kernel)
    }

    /// Enqueue the paired update of pair units `units` (see [`PAIRS_FUNCTION`]) on `stream`
    /// with `kernel`, after swap round `round`.
    fn launch_pairs(
        &self,
        stream: &CudaStream,
        units: Range<u32>,
        params: &DispatchParams,
        kernel: UpdateKernel<'_>,
        round: &PendingRound,
    ) -> Result<()> {
        let tempering = self.tempering.as_ref().ok_or_else(no_tempering)?;
        let layers = (&units.start, units.len() as u32);
        let (mut launch, config) = self.update_launch(stream, params, layers, kernel);
        let (groups, parity) = (&tempering.swaps().groups, &round.params.colour);
        let round_slot = match round.decided {
            true => NO_ROUND,
            false => round.params.slot,
        };
        let (tables, state) = tempering.round_buffers();
        launch
            .arg(tempering.masks())
            .arg(groups)
            .arg(parity)
            .arg(&round_slot)
            .arg(&round.params.sweep)
            .arg(tables)
            .arg(state);
        // SAFETY: the arguments match multispin_metropolis_pairs's parameters in order and type
        // (multispin_metropolis's, with the first pair unit for the first word system, then the
        // `unsigned` masks, the groups, parity, round slot and round sweep by value, and the
        // `unsigned` swap tables and tempering state). Each unit's word systems (k groups + q
        // and the next temperature's, k + 1 < the temperatures) are in the spin buffer, their
        // masks and chain sets' state in the tempering's, and a round slot names one of the two
        // scratch slots `clear_measurements` sized (the kernel writes the masks, state and
        // records of its own units alone); the rest as in `launch_sweep`.
        unsafe { launch.launch(config) }
            .map_err(driver_error("launching kernel multispin_metropolis_pairs"))?;
        Ok(())
    }

    /// Enqueue the observables `counts` of every word system into slot `params.slot` (the
    /// satisfied bonds of [`Counts::UpSpins`] from the records of slot `records`), with the
    /// kernel for them where the engine has one, else counting both.
    fn launch_observe(
        &mut self,
        params: &DispatchParams,
        counts: Counts,
        records: u32,
    ) -> Result<()> {
        let kernel = match counts {
            Counts::Bonds => self.swap_observe_kernel.as_ref(),
            Counts::UpSpins => self.tallied_observe_kernel.as_ref(),
            Counts::Both => None,
        };
        let kernel = kernel.unwrap_or(&self.observe_kernel);
        let layout = &self.layout;
        let stream = &self.device.stream;
        let config = launch_config(
            &self.device,
            kernel.block_size,
            layout.strips().into(),
            layout.word_systems(),
        );
        let mut launch = stream.launch_builder(&kernel.function);
        launch
            .arg(params)
            .arg(&self.spins)
            .arg(&self.couplings)
            .arg(&mut self.observations)
            .arg(&records);
        // SAFETY: the arguments match multispin_observables's parameters in order and
        // type (DispatchParams, `unsigned` spins and couplings, `unsigned long long`
        // observations, the records' slot by value). Threads past the last strip only add their
        // block's sums, and `clear_measurements` sized the observations for this plan's slots
        // and the scratch slot after them, which `records` names where it is read.
        unsafe { launch.launch(config) }
            .map_err(driver_error("launching kernel multispin_observables"))?;
        Ok(())
    }

    /// Read the slots from the last read up to `slots` (measured by the batches the device has
    /// run) into [`SlotsRead`], on the read stream: beside the batch the device runs meanwhile.
    fn read_slots(&mut self, slots: u32) -> Result<()> {
        let first = self.read.slots;
        if slots <= first {
            return Ok(());
        }
        let started = std::time::Instant::now();
        let stream = self.read_stream.stream();
        let observations = self.observation_pairs(first)..self.observation_pairs(slots);
        let counts = self.overlap_counts(first)..self.overlap_counts(slots);
        let per_word = self.observation_staging.read_range(
            &self.device,
            stream,
            &self.observations,
            2 * observations.start..2 * observations.end,
            "observations",
        )?;
        let per_pair = match self.overlap_kernel {
            None => &[],
            Some(_) => self.overlap_staging.read_range(
                &self.device,
                stream,
                &self.overlaps,
                counts,
                "overlaps",
            )?,
        };
        let per_word: &[[u64; 2]] = bytemuck::cast_slice(per_word);
        self.read
            .fill(&self.layout, per_word, per_pair, started.elapsed());
        Ok(())
    }

    /// The scratch slot ([`Self::round_slot`]) of the swap round that the sweeps of a segment
    /// ending at `end` (the measurement or round after them) tally, where the engine has the
    /// tally and their last dispatch is a colour-1 update that can ([`swap_tally`]).
    fn swap_tally_slot(&self, batch: &[Dispatch], end: usize) -> Option<u32> {
        let update = end.checked_sub(2)?;
        self.swap_tally.as_ref()?;
        swap_tally(&batch[update..]).map(|(_, slot)| self.round_slot(slot))
    }

    /// The plan's measurements: those of its last batches read now, after the earlier ones.
    fn download_measurements(&mut self, slots: u32) -> Result<Measurements> {
        self.device.synchronize("running the sweep kernels")?;
        self.read.mark_beside();
        self.read_slots(slots)?;
        let mut measurements = std::mem::take(&mut self.read).finish("cuda");
        if let Some(tempering) = &self.tempering {
            measurements.labels = tempering.read_history(&self.device, slots)?;
        }
        Ok(measurements)
    }
}

impl Launches for MultispinCudaEngine {
    fn device(&self) -> &CudaDevice {
        &self.device
    }

    /// Read what `batch` measured while the next batch runs (not for populations counted as
    /// histograms, which the plan's end reads).
    fn batch_done(&mut self, batch: &[Dispatch]) -> Result<()> {
        match (measured_slots(batch), self.count_populations) {
            (Some(slots), false) => self.read_slots(slots),
            _ => Ok(()),
        }
    }

    /// The sweeps between two measurements or swap rounds go group by group of word systems
    /// (see [`SystemStreams`]), each group's in order; measurements and swap rounds cover every
    /// word system.
    fn launch_batch(&mut self, batch: &[Dispatch]) -> Result<()> {
        let ends_segment = |d: &Dispatch| matches!(d, Dispatch::Measure(_) | Dispatch::Swap(_));
        // The scratch slot of the round that the last sweeps tallied, until the round.
        let mut tallied = None;
        let mut end = 0;
        for segment in batch.split_inclusive(ends_segment) {
            end += segment.len();
            let sweeps: Vec<&DispatchParams> = segment
                .iter()
                .filter_map(|d| match d {
                    Dispatch::Sweep(params) => Some(params),
                    Dispatch::Measure(_) | Dispatch::Swap(_) => None,
                })
                .collect();
            if !sweeps.is_empty() {
                tallied = self.swap_tally_slot(batch, end);
            }
            let last_tally = |k: usize| tallied.filter(|_| k + 1 == sweeps.len());
            // The first sweep after a swap round makes its exchange (pairs of colour dispatches).
            let paired = match self.take_pending_round(&sweeps)? {
                Some(round) => {
                    self.launch_paired_sweep(&round, &sweeps[..2], last_tally(1))?;
                    // Its pairs went to other streams than the groups of the sweeps after it.
                    if sweeps.len() > 2 {
                        self.sweep_streams.join()?;
                    }
                    2
                }
                None => 0,
            };
            for round in self.sweep_streams.rounds() {
                for (k, params) in sweeps.iter().enumerate().skip(paired) {
                    let (params, kernel) = self.update_kernel(params, last_tally(k));
                    for (stream, systems) in &round {
                        self.launch_sweep(stream, systems.clone(), &params, kernel)?;
                    }
                }
            }
            match segment.last() {
                Some(Dispatch::Measure(params)) => self.launch_measure(params, tallied)?,
                Some(Dispatch::Swap(params)) => {
                    self.launch_swap(params, tallied.take().is_some())?;
                }
                _ => {}
            }
        }
        Ok(())
    }
}

impl Engine for MultispinCudaEngine {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            backend: "cuda".into(),
            engine: self.layout.describe(),
            adapter: self.device.description(),
        }
    }

    fn set_spins(&mut self, spins: &SpinBits) -> Result<()> {
        spins.check_fits(&self.layout.systems)?;
        let words = self.layout.pack(spins);
        overwrite(&self.device, &words, &mut self.spins, "spin words")?;
        self.exchange_both()
    }

    fn hot_start(&mut self) -> Result<()> {
        let grid = HotStartGrid::multispin(&self.layout);
        hot_start(&mut self.device, self.block_size, &mut self.spins, &grid)?;
        self.exchange_both()
    }

    fn spins(&mut self) -> Result<SpinBits> {
        let words = download(&self.device, &self.spins, "spin words")?;
        Ok(self.layout.unpack(&words))
    }

    fn execute(&mut self, plan: &Plan) -> Result<Measurements> {
        // A resampling step's kernels go ahead of the plan's sweeps with no wait between.
        let resampled = match plan.split_resample()?.0 {
            Some(step) => Some(self.enqueue_resample(step)?),
            None => None,
        };
        self.last_measured = plan.slots.checked_sub(1);
        let swaps = plan.swaps(self.tempering.is_some())?;
        if let Some(tempering) = &mut self.tempering {
            tempering.ensure_history(&self.device, plan.slots)?;
        }
        // Swap rounds measure into two scratch slots past the plan's, alternately.
        self.clear_measurements(plan.slots + 2 * u32::from(swaps))?;
        self.read = SlotsRead::new(plan.slots);
        let layout = &self.layout;
        let flips_per_sweep = layout.lattice().sites() * u64::from(layout.systems.systems());
        let seeded = (layout.systems.seed, layout.word_systems());
        let started = std::time::Instant::now();
        match self.halo {
            Some(_) => self.run_slab(plan)?,
            None => self.run(plan, seeded, flips_per_sweep, FLIP_BUDGET)?,
        }
        self.flush_exchange()?;
        let (copies, histograms) = self.read_back(resampled, plan.slots)?;
        self.log_draw_counts()?;
        if plan.slots == 0 {
            return Ok(Measurements {
                copies,
                ..Measurements::default()
            });
        }
        let ran = started.elapsed();
        let mut measurements = match histograms {
            Some(histograms) => Measurements {
                histograms: Some(Box::new(histograms)),
                ..Measurements::default()
            },
            None => self.download_measurements(plan.slots)?,
        };
        measurements.copies = copies;
        log::debug!(
            "cuda multispin: {} sweeps, {} measurements: kernels {:.1} ms, measurements on the \
             host {:.1} ms",
            plan.sweeps(),
            plan.slots,
            ran.as_secs_f64() * 1e3,
            (started.elapsed() - ran).as_secs_f64() * 1e3
        );
        Ok(measurements)
    }

    fn set_tempering(&mut self, state: &[u32]) -> Result<()> {
        whole_lattices_only(&self.halo, "parallel tempering")?;
        let (swaps, records) = (
            SwapLayout::multispin(&self.layout),
            Records::multispin(&self.layout),
        );
        let tempering = CudaTempering::new(
            &mut self.device,
            &self.layout.systems,
            swaps,
            (ShaderEngine::Multispin, records),
            state,
            self.block_size,
        )?;
        self.tempering = Some(tempering);
        if self.layout.systems.field == 0.0 {
            let (layout, constants, block_size) = (&self.layout, &self.constants, self.block_size);
            let kernel = observables_kernel(
                &mut self.device,
                layout,
                constants,
                Counts::Bonds,
                block_size,
            )?;
            self.swap_observe_kernel = Some(kernel);
            let words = WordLayout::of(layout);
            let runs = runs_per_thread(layout, TALLY_WORDS_PER_THREAD);
            let (module, function) =
                update_module(&mut self.device, words, constants, 1, (runs, true))?;
            let kernel = FittedKernel::new(function, TALLY_BLOCK_SIZE)?;
            // Its blocks are compiled in: a device that cannot run them counts the rounds with
            // the observables kernel.
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
        let tempering_constants = chain_slice_kernel_constants(&swaps, &records);
        self.pair_kernels = self.load_pair_kernels(&tempering_constants)?;
        self.write_constant_tables(&self.layout.threshold_tables())?;
        (self.pending_round, self.ends_tracked) = (None, false);
        self.device.synchronize("uploading the tempering state")
    }

    fn tempering(&mut self) -> Result<Vec<u32>> {
        match &self.tempering {
            Some(tempering) => tempering.read_state(&self.device),
            None => Ok(Vec::new()),
        }
    }

    fn set_betas(&mut self, betas: &[f64]) -> Result<()> {
        whole_lattices_only(&self.halo, "population annealing (set_betas)")?;
        check_betas(&self.layout.systems, betas)?;
        let compiled = matches!(self.threshold_home, ThresholdHome::Compiled);
        check_thresholds_not_compiled(compiled, "multispin CUDA")?;
        self.layout.systems.betas = betas.to_vec();
        let tables = self.layout.threshold_tables();
        match self.threshold_home {
            ThresholdHome::Constant => self.write_constant_tables(&tables),
            // The next plan's sweeps, enqueued behind this copy, are the first to read it.
            _ => enqueue_overwrite(&self.device, &tables, &mut self.thresholds, "thresholds"),
        }
    }

    fn copy_systems(&mut self, sources: &[u32]) -> Result<()> {
        whole_lattices_only(&self.halo, "population annealing (copy_systems)")?;
        check_copy_map(&self.layout.systems, sources)?;
        self.ensure_copies()?;
        let copies = self.copies.as_mut().expect("ensured above");
        copies.copy(
            &self.device,
            &mut self.spins,
            &lane_map(&self.layout, sources),
        )
    }

    fn set_resampling(&mut self, table: &ResamplingTable) -> Result<()> {
        whole_lattices_only(&self.halo, "population annealing (resampling)")?;
        self.ensure_resampling(table.slots)?;
        let resampling = self.resampling.as_mut().expect("ensured above");
        resampling.set_table(&self.device, table)
    }

    fn count_populations(&mut self, slots: u32, sizes: &[u32]) -> Result<bool> {
        whole_lattices_only(&self.halo, "population annealing (histograms)")?;
        self.ensure_resampling(slots)?;
        let resampling = self.resampling.as_mut().expect("ensured above");
        resampling.set_sizes(&self.device, sizes)?;
        self.count_populations = true;
        // Histograms replace every replica's counts, and nothing reads the overlaps.
        self.overlap_kernel = None;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Lanes, Layout, MultispinOptions};
    use crate::model::Lattice;
    use crate::model::ising::IsingSystems;

    /// One temperature whose threshold every lane shares: compiled into the update for fixed
    /// betas, never for changing ones (population annealing), whose tables `set_betas` rewrites.
    #[test]
    fn thresholds_are_compiled_in_only_for_fixed_betas() {
        let systems = IsingSystems::ferromagnet(Lattice::new(2, 8), 0.0, vec![0.4], 32, 3);
        let options = MultispinOptions {
            layout: Layout::Amsc {
                lanes: Lanes::Replicas,
            },
            randoms: Randoms::Exact,
        };
        let layout = MultispinLayout::new(systems, options);
        let tables = layout.threshold_tables();
        let compiled_in =
            |betas| constants(&layout, &tables, betas).contains(&("FIXED_THRESHOLDS", 1));
        assert!(compiled_in(Betas::Fixed));
        assert!(!compiled_in(Betas::Changing));
    }
}
