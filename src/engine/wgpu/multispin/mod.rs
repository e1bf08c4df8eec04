//! The multispin wgpu engine: kernels `multispin_metropolis`, `multispin_observables` and
//! `multispin_overlap`, composed for the AMSC or SMSC word layout (see
//! [`crate::engine::multispin`] for the data layout, shared with the CPU engine), and
//! population annealing's `copy_systems` (`copy_systems.rs`).
//!
//! Buffers: spin words; bit-sliced threshold tables (compiled in as override constants where
//! the betas stay fixed and one table's lanes share each threshold); couplings (a 16-byte
//! placeholder for the ferromagnet); observations `[slot][g][lane]` as two 64-bit counters (up,
//! satisfied); overlaps `[slot][pair][pair count]` as u32 counts (see
//! `MultispinLayout::pair_counts`).
//!
//! Here the engine, its construction, its [`Engine`] face and its limits; beside it a
//! submission's kernels (`launches.rs`), the measurements' buffers and reads
//! (`measurements.rs`), population annealing's copies and resampling step (`annealing.rs`) and a
//! slab's sweeps with its halo exchange (`slab.rs`).

mod annealing;
mod launches;
mod measurements;
mod slab;

use super::context::{PendingRead, WgpuContext, storage_usage};
use super::copy_systems::WgpuCopies;
use super::hot_start::hot_start;
use super::launch::{Dispatcher, MAX_DISPATCHES};
use super::resampling::WgpuResampling;
use super::tempering::WgpuTempering;
use crate::config::{Disorder, Randoms};
use crate::engine::backend::multispin::{MultispinBackend, MultispinHost, MultispinLattices};
use crate::engine::cpu::hot_start::HotStartGrid;
use crate::engine::dispatch::{measured_slots, submissions, sweeps_per_submission};
use crate::engine::kernels::{Kernel, KernelEngine, WordLayout};
use crate::engine::multispin::{
    COUNT_UP, MultispinLayout, RUNS_PER_TALLY_THREAD, STAGGERED, SlotsRead, TALLY_RUNS,
    THRESHOLD_CONSTANTS, overlap_constants,
};
use crate::engine::slabs::{check_slab, whole_lattices_only};
use crate::engine::tempering::{Records, SwapLayout};
use crate::engine::{Betas, Halo, Measurements, Plan, Tempering};
use crate::error::{Error, Result};

/// Words of one buffer that the kernels' `u32` indices reach.
const MAX_INDEXED_WORDS: u64 = 1 << 32;

/// Site updates per submission, so that a submission stays well under a second on slow adapters
/// (up to eight times more where the plan measures often: `dispatch::sweeps_per_submission`).
const FLIP_BUDGET: u64 = 1 << 32;

/// The largest workgroup whose update also tallies a swap round: the tally's planes (up to 7 a
/// thread) go through the threshold table's workgroup memory, two entries a thread, and
/// `multispin_decide.wgsl` sizes the table for this many threads (its `TALLY_WORKGROUP_MAX`).
const TALLY_WORKGROUP_MAX: u32 = 64;

/// The multispin engine on a wgpu device.
pub struct MultispinWgpuEngine {
    ctx: WgpuContext,
    /// The layout, a slab's neighbours and the plan bookkeeping every backend keeps alike.
    host: MultispinHost,
    dispatcher: Dispatcher,
    spins: wgpu::Buffer,
    thresholds: wgpu::Buffer,
    couplings: wgpu::Buffer,
    sweep: wgpu::ComputePipeline,
    observe: wgpu::ComputePipeline,
    /// The observables of a swap round at zero field: the satisfied bonds alone (`COUNT_UP`
    /// off), counted by the colour-1 update before the round where it can (`swap_tally`, the
    /// update compiled with [`TALLY_RUNS`]), else by this kernel; both built with the tempering
    /// state.
    swap_observe: Option<wgpu::ComputePipeline>,
    swap_tally: Option<wgpu::ComputePipeline>,
    /// The override constants of the engine's kernels.
    constants: Vec<(&'static str, u32)>,
    /// Only where overlaps are measured (its pair arithmetic needs two replica words).
    overlap: Option<wgpu::ComputePipeline>,
    /// Whether the update was compiled with its thresholds (fixed betas).
    fixed_thresholds: bool,
    measurements: Option<MeasurementBuffers>,
    tempering: Option<WgpuTempering>,
    /// Population annealing's copy kernel, from the first copy on.
    copies: Option<WgpuCopies>,
    /// Population annealing's resampling step, from the first table on.
    resampling: Option<WgpuResampling>,
    /// The running plan's measurements read back so far.
    read: SlotsRead,
}

/// The observation and overlap buffers with their capacity in slots, and the bind group.
struct MeasurementBuffers {
    observations: wgpu::Buffer,
    overlaps: wgpu::Buffer,
    slots: u32,
    bind_group: wgpu::BindGroup,
}

impl MultispinWgpuEngine {
    /// Allocate the word systems of `layout` on the device of `ctx` (all spins down until
    /// [`crate::engine::Engine::set_spins`]); fails clearly where they exceed the device's
    /// limits. With [`Betas::Fixed`] and one table whose lanes share each threshold, the update
    /// is compiled with the thresholds ([`MultispinLayout::fixed_thresholds`]; 10-20% faster on
    /// an H100) and [`crate::engine::Populations::set_betas`] refuses.
    pub fn new(
        mut ctx: WgpuContext,
        layout: MultispinLayout,
        workgroup_size: u32,
        betas: Betas,
    ) -> Result<Self> {
        check_fits(&ctx, &layout, workgroup_size)?;
        let words = WordLayout::of(&layout);
        let disordered = layout.systems.reads_couplings();
        let seed_key = crate::rng::seed_key(layout.systems.seed);
        let mut constants = vec![
            ("WG_SIZE", workgroup_size),
            ("L", layout.lattice().size),
            ("DIMS", layout.lattice().dims),
            ("HONEYCOMB", u32::from(layout.is_honeycomb())),
            ("TRIANGULAR", u32::from(layout.is_triangular())),
            ("KAGOME", u32::from(layout.is_kagome())),
            ("OPEN_AXES", layout.open_axes()),
            ("REPLICA_WORDS", layout.replica_words),
            ("SAMPLE_WORDS", layout.sample_words),
            (
                "WORDS_PER_TABLE",
                layout.replica_words * layout.sample_words,
            ),
            ("CLASSES_LO", layout.category_classes()[0]),
            ("CLASSES_HI", layout.category_classes()[1]),
            ("CLASSES_ODD_LO", layout.category_classes()[2]),
            ("CLASSES_ODD_HI", layout.category_classes()[3]),
            ("CLASS_COUNT", layout.energy_classes().len() as u32),
            (
                "SHARED_RANDOMS",
                u32::from(layout.randoms == Randoms::Shared),
            ),
            ("DISORDERED", u32::from(disordered)),
            ("WORD_RUN", layout.word_run()),
            ("PACK_ROTATIONS", layout.pack_rotations()),
            ("LINE_RUN", layout.line_run()),
            ("PLANES", layout.own_planes()),
            ("STORED_PLANES", layout.stored_planes()),
            ("WORD_OFFSET", layout.word_offset()),
            ("SEED_LO", seed_key[0]),
            ("SEED_HI", seed_key[1]),
        ];
        constants.extend(layout.word_slice_index().constants());
        let fixed = layout.fixed_thresholds(betas);
        constants.push(("FIXED_THRESHOLDS", u32::from(fixed.is_some())));
        let thresholds = fixed.iter().flatten().copied().chain(std::iter::repeat(0));
        constants.extend(THRESHOLD_CONSTANTS.into_iter().zip(thresholds));
        let sweep = ctx
            .pipeline(Kernel::MultispinMetropolis(words), &constants)?
            .clone();
        let mut observe_constants = constants.clone();
        observe_constants.push((STAGGERED, u32::from(layout.systems.staggered())));
        let observe = ctx
            .pipeline(Kernel::MultispinObservables(words), &observe_constants)?
            .clone();
        let overlap = match layout.overlap_word_pairs().is_empty() {
            true => None,
            false => Some(
                ctx.pipeline(
                    Kernel::MultispinOverlap(words),
                    &overlap_constants(&constants, &layout),
                )?
                .clone(),
            ),
        };
        let spins = ctx.buffer("spin words", 4 * layout.words(), storage_usage())?;
        let thresholds = ctx.upload("thresholds", &layout.threshold_tables())?;
        let couplings = ctx.upload("couplings", &layout.coupling_words())?;
        let dispatcher = Dispatcher::new(&ctx, workgroup_size)?;
        let engine = MultispinWgpuEngine {
            ctx,
            host: MultispinHost::new(layout),
            dispatcher,
            spins,
            thresholds,
            couplings,
            sweep,
            observe,
            swap_observe: None,
            swap_tally: None,
            constants,
            overlap,
            fixed_thresholds: fixed.is_some(),
            measurements: None,
            tempering: None,
            copies: None,
            resampling: None,
            read: SlotsRead::default(),
        };
        engine.ctx.check()?;
        Ok(engine)
    }

    /// An engine of the slab `layout.systems` holds, trading its boundary planes
    /// through `halo` after each colour's dispatch, one colour per submission
    /// ([`crate::engine::slabs`]); every spin down until [`crate::engine::Engine::set_spins`].
    pub fn slab(
        ctx: WgpuContext,
        layout: MultispinLayout,
        workgroup_size: u32,
        halo: Box<dyn Halo>,
    ) -> Result<Self> {
        check_slab(&layout)?;
        let mut engine = MultispinWgpuEngine::new(ctx, layout, workgroup_size, Betas::Fixed)?;
        engine.host.halo = Some(halo);
        Ok(engine)
    }
}

impl MultispinLattices for MultispinWgpuEngine {
    const BACKEND: &'static str = "wgpu";

    fn layout(&self) -> &MultispinLayout {
        &self.host.layout
    }

    fn adapter_and_driver(&self) -> (String, String) {
        (self.ctx.adapter_name(), self.ctx.driver())
    }

    fn write_words(&mut self, words: &[u32]) -> Result<()> {
        self.ctx
            .queue
            .write_buffer(&self.spins, 0, bytemuck::cast_slice(words));
        self.ctx.wait()
    }

    fn read_words(&mut self) -> Result<Vec<u32>> {
        self.ctx.read_buffer(&self.spins, self.spins.size())
    }

    fn hot_start_words(&mut self) -> Result<()> {
        let grid = HotStartGrid::multispin(&self.host.layout);
        hot_start(&mut self.ctx, &self.dispatcher, &self.spins, &grid)
    }

    fn exchange_both(&mut self) -> Result<()> {
        self.exchange_halos()
    }

    /// Slots whose observations and overlaps each fit in one storage binding, with the swap
    /// rounds' scratch slot.
    fn max_plan_slots(&self) -> u64 {
        let per_slot = self.observation_bytes(1).max(self.overlap_bytes(1));
        self.ctx.plan_slots(per_slot)
    }
}

impl Tempering for MultispinWgpuEngine {
    fn set_tempering(&mut self, state: &[u32]) -> Result<()> {
        whole_lattices_only(&self.host.halo, "parallel tempering")?;
        let layout = &self.host.layout;
        let tempering = WgpuTempering::new(
            &mut self.ctx,
            &layout.systems,
            SwapLayout::multispin(layout),
            (KernelEngine::Multispin, Records::multispin(layout)),
            state,
            self.dispatcher.workgroup_size(),
        )?;
        self.tempering = Some(tempering);
        if self.host.layout.systems.field == 0.0 {
            let words = WordLayout::of(&self.host.layout);
            let mut constants = self.constants.clone();
            constants.push((COUNT_UP, 0));
            let kernel = Kernel::MultispinObservables(words);
            self.swap_observe = Some(self.ctx.pipeline(kernel, &constants)?.clone());
            // The tally's transposes pair threads within groups of 32.
            let size = self.dispatcher.workgroup_size();
            let tally_fits = size.is_multiple_of(32) && size <= TALLY_WORKGROUP_MAX;
            if tally_fits && self.host.layout.tallies_swap_rounds() {
                let mut constants = self.constants.clone();
                constants.push((TALLY_RUNS, RUNS_PER_TALLY_THREAD));
                let kernel = Kernel::MultispinMetropolis(words);
                self.swap_tally = Some(self.ctx.pipeline(kernel, &constants)?.clone());
            }
        }
        self.ctx.check()
    }

    fn tempering_state(&mut self) -> Result<Vec<u32>> {
        match &self.tempering {
            Some(tempering) => tempering.read_state(&self.ctx),
            None => Ok(Vec::new()),
        }
    }
}

impl MultispinBackend for MultispinWgpuEngine {
    const NAME: &'static str = "multispin wgpu";

    fn host(&mut self) -> &mut MultispinHost {
        &mut self.host
    }

    /// Swap rounds measure into a scratch slot past the plan's.
    fn prepare_slots(&mut self, plan: &Plan) -> Result<()> {
        let swaps = plan.swaps(self.tempering.is_some())?;
        if let Some(tempering) = &mut self.tempering {
            tempering.ensure_history(&self.ctx, plan.slots)?;
        }
        self.ensure_measurements(plan.slots + u32::from(swaps))?;
        self.read = SlotsRead::new(plan.slots);
        Ok(())
    }

    /// Each submission goes to the queue before the host waits for the one before it, so the
    /// device never waits for the host's encoding; the slots a submission measured are copied
    /// out right behind it and read while the device runs the next. A slab's plan goes a step
    /// at a time, with its exchanges (`slab.rs`).
    fn launch_plan(&mut self, plan: &Plan) -> Result<()> {
        if self.host.halo.is_some() {
            return self.run_slab(plan);
        }
        let flips_per_sweep =
            self.host.layout.lattice().sites() * u64::from(self.host.layout.systems.systems());
        let sweeps_per_submission = sweeps_per_submission(plan, flips_per_sweep, FLIP_BUDGET);
        let subs = submissions(
            plan,
            self.host.layout.systems.seed,
            (
                self.host.layout.word_systems(),
                self.host.layout.sweep_passes(),
            ),
            (MAX_DISPATCHES, sweeps_per_submission),
            &|pass, planes| self.host.layout.plane_threads(pass, planes),
        );
        let mut behind: Option<(wgpu::SubmissionIndex, Option<(PendingRead, u32)>)> = None;
        for (i, dispatches) in subs.iter().enumerate() {
            let submitted = self.enqueue(dispatches, i == 0);
            if let Some(previous) = behind.take() {
                self.finish_submission(previous)?;
            }
            let read = match self.host.count_populations {
                true => None,
                false => self.queue_slots(measured_slots(dispatches).unwrap_or(0))?,
            };
            behind = Some((submitted, read));
        }
        match behind {
            Some(last @ (_, Some(_))) => self.finish_submission(last),
            // Left running: the caller's wait (or its read of the resampling step queued
            // behind) follows, so the device is not idle while the host wakes and submits.
            _ => Ok(()),
        }
    }

    fn wait(&mut self) -> Result<()> {
        self.ctx.wait()
    }

    fn read_measurements(&mut self, slots: u32) -> Result<Measurements> {
        self.read_measured(slots)
    }
}

/// Refuse word systems beyond the device's limits, naming the limit and the largest size that
/// fits.
fn check_fits(ctx: &WgpuContext, layout: &MultispinLayout, workgroup_size: u32) -> Result<()> {
    let lattice = layout.lattice();
    // SMSC words hold 32 sites, AMSC words one.
    let (step, sites_per_word) = if layout.smsc() { (64, 32) } else { (2, 1) };
    let word_bytes = |size: u32| {
        let sites = u64::from(size).pow(lattice.dims);
        4 * sites / sites_per_word * u64::from(layout.word_systems())
    };
    let what = format!(
        "{} word systems of L = {} in {}D (1 bit per spin)",
        layout.word_systems(),
        lattice.size,
        lattice.dims
    );
    // What is stored: the lattices, or a slab's planes and halos.
    let stored = 4 * layout.words();
    ctx.check_storage(&what, lattice.size, stored, word_bytes, step)?;
    let groups = u64::from(layout.coupling_groups()) * u64::from(lattice.dims);
    let coupling_bytes = |size: u32| word_bytes(size) / u64::from(layout.word_systems()) * groups;
    if layout.systems.reads_couplings() {
        ctx.check_storage(
            &format!("the couplings of {} groups", layout.coupling_groups()),
            lattice.size,
            stored / u64::from(layout.word_systems()) * groups,
            coupling_bytes,
            step,
        )?;
    }
    check_u32_indices(layout)?;
    // Grids of more word systems or pairs than the adapter's z run in pieces (`enqueue`).
    ctx.check_workgroup_size(workgroup_size)
}

/// Refuse spin or coupling buffers whose words the WGSL kernels cannot index: `colour_base` and
/// `bond_base` in `multispin_lattice.wgsl` are `u32` offsets into the whole buffer. Devices whose
/// storage bindings stop below 16 GiB never get here; this guards those that allow more.
fn check_u32_indices(layout: &MultispinLayout) -> Result<()> {
    let lattice = layout.lattice();
    let groups = u64::from(layout.coupling_groups()) * u64::from(lattice.dims);
    let coupling_words = match layout.systems.disorder {
        Disorder::Ferromagnet => 0,
        _ => layout.system_words() * groups,
    };
    for (what, words) in [("spin", layout.words()), ("coupling", coupling_words)] {
        if words > MAX_INDEXED_WORDS {
            return Err(Error::Limits(format!(
                "{} word systems of L = {} in {}D need {words} {what} words, more than the 2^32 \
                 the WGSL kernels index with u32; use fewer systems",
                layout.word_systems(),
                lattice.size,
                lattice.dims
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Lanes, Layout, MultispinOptions};
    use crate::model::Lattice;
    use crate::model::ising::IsingSystems;

    fn layout(systems: IsingSystems, layout: Layout) -> MultispinLayout {
        let randoms = Randoms::Exact;
        MultispinLayout::new(systems, MultispinOptions { layout, randoms })
    }

    #[test]
    fn the_decide_table_is_sized_for_the_largest_tally_workgroup() {
        let source = crate::engine::wgpu::shaders::module_source("multispin_decide").unwrap();
        let line = format!("const TALLY_WORKGROUP_MAX: u32 = {TALLY_WORKGROUP_MAX}u;");
        assert!(
            source.contains(&line),
            "multispin_decide.wgsl lacks `{line}`"
        );
    }

    #[test]
    fn buffers_beyond_u32_word_indices_are_refused() {
        let lattice = Lattice::new(2, 65536);
        let ferromagnet =
            |replicas| IsingSystems::ferromagnet(lattice, 0.0, vec![0.4], replicas, 1);
        // 32 systems of 2^27 words index 2^32 words; 33 do not.
        check_u32_indices(&layout(ferromagnet(32), Layout::Smsc)).unwrap();
        let error = check_u32_indices(&layout(ferromagnet(33), Layout::Smsc)).unwrap_err();
        let msg = error.to_string();
        assert!(msg.contains("33 word systems of L = 65536"), "{msg}");
        assert!(msg.contains("4429185024 spin words"), "{msg}");
        // Couplings: 2 directions of 2^27 words per sample.
        let glass = |samples| IsingSystems::spin_glass(lattice, 0.0, vec![0.4], samples, 1, 1);
        check_u32_indices(&layout(glass(16), Layout::Smsc)).unwrap();
        let msg = check_u32_indices(&layout(glass(17), Layout::Smsc))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("coupling words"), "{msg}");
        let amsc = Layout::Amsc {
            lanes: Lanes::Samples,
        };
        let small = IsingSystems::spin_glass(Lattice::new(2, 64), 0.0, vec![0.4], 32, 2, 1);
        check_u32_indices(&layout(small, amsc)).unwrap();
    }
}
