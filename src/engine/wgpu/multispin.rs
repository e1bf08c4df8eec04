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

use super::context::{PendingRead, WgpuContext, storage_usage};
use super::copy_systems::{WgpuCopies, identity_map, lane_map, multispin_unit, system_positions};
use super::dispatcher::{Dispatcher, Grid, MAX_DISPATCHES};
use super::hot_start::hot_start;
use super::plan::{
    Dispatch, DispatchParams, measured_slots, submissions, swap_tally, sweeps_per_submission,
};
use super::resampling::{PendingStep, WgpuResampling};
use super::shaders::{Bindings, Engine as ShaderEngine, Kernel, WordLayout};
use super::simple::counter_pairs;
use super::tempering::WgpuTempering;
use crate::config::{Disorder, Randoms};
use crate::engine::annealing::{PopulationHistograms, ResamplingTable, no_measurement, no_table};
use crate::engine::cpu::hot_start::HotStartGrid;
use crate::engine::multispin::{
    COUNT_UP, LANES, MultispinLayout, RUNS_PER_TALLY_THREAD, SlotsRead, TALLY_RUNS,
    THRESHOLD_CONSTANTS,
};
use crate::engine::slabs::{
    PlaneStore, SlabSweep, check_slab, exchange_colour, whole_lattices_only,
};
use crate::engine::tempering::{Records, SwapLayout};
use crate::engine::{
    Betas, Engine, EngineInfo, Halo, Measurements, Plan, SpinBits, check_betas, check_copy_map,
    check_thresholds_not_compiled,
};
use crate::error::{Error, Result};

/// Words of one buffer that the kernels' `u32` indices reach.
const MAX_INDEXED_WORDS: u64 = 1 << 32;

/// Site updates per submission, so that a submission stays well under a second on slow adapters
/// (up to eight times more where the plan measures often: `plan::sweeps_per_submission`).
const FLIP_BUDGET: u64 = 1 << 32;

/// The multispin engine on a wgpu device.
pub struct MultispinWgpuEngine {
    ctx: WgpuContext,
    layout: MultispinLayout,
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
    /// The slot of the last plan's last measurement, which the next resampling step reads
    /// (`None` where the plan measured nothing: its first submission cleared the counts).
    last_measured: Option<u32>,
    /// Whether measurements come back as the populations' histograms
    /// ([`Engine::count_populations`]).
    count_populations: bool,
    /// The running plan's measurements read back so far.
    read: SlotsRead,
    /// The neighbours of a slab ([`crate::engine::slabs`]); `None` for whole lattices.
    halo: Option<Box<dyn Halo>>,
}

/// A device buffer of spin words as the halo exchange reads and writes it.
struct DeviceWords<'a> {
    ctx: &'a WgpuContext,
    buffer: &'a wgpu::Buffer,
    /// Queued once the boundary planes' copy is, before waiting for it: a slab's bulk, which
    /// then runs while the planes are exchanged.
    beside: Option<Box<dyn FnOnce() + 'a>>,
}

impl PlaneStore for DeviceWords<'_> {
    fn read(&mut self, ranges: &[std::ops::Range<usize>]) -> Result<Vec<u32>> {
        let pieces: Vec<_> = ranges
            .iter()
            .map(|range| (self.buffer, 4 * range.start as u64..4 * range.end as u64))
            .collect();
        let pending = self.ctx.queue_read(&pieces)?;
        if let Some(beside) = self.beside.take() {
            beside();
        }
        self.ctx.finish_read(pending)
    }

    fn write(&mut self, start: usize, words: &[u32]) -> Result<()> {
        self.ctx
            .queue
            .write_buffer(self.buffer, 4 * start as u64, bytemuck::cast_slice(words));
        Ok(())
    }
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
    /// [`Engine::set_spins`]); fails clearly where they exceed the device's limits. With
    /// [`Betas::Fixed`] and one table whose lanes share each threshold, the update is compiled
    /// with the thresholds ([`MultispinLayout::fixed_thresholds`]; 10-20% faster on an H100) and
    /// [`Engine::set_betas`] refuses.
    pub fn new(
        mut ctx: WgpuContext,
        layout: MultispinLayout,
        workgroup_size: u32,
        betas: Betas,
    ) -> Result<Self> {
        check_fits(&ctx, &layout, workgroup_size)?;
        let words = WordLayout::of(&layout);
        let disordered = layout.systems.disorder == Disorder::Bimodal;
        let mut constants = vec![
            ("WG_SIZE", workgroup_size),
            ("L", layout.lattice().size),
            ("DIMS", layout.lattice().dims),
            ("REPLICA_WORDS", layout.replica_words),
            ("SAMPLE_WORDS", layout.sample_words),
            (
                "WORDS_PER_TABLE",
                layout.replica_words * layout.sample_words,
            ),
            ("CLASSES_LO", layout.category_classes()[0]),
            ("CLASSES_HI", layout.category_classes()[1]),
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
        ];
        constants.extend(layout.word_slice_index().constants());
        let fixed = layout.fixed_thresholds(betas);
        constants.push(("FIXED_THRESHOLDS", u32::from(fixed.is_some())));
        let thresholds = fixed.iter().flatten().copied().chain(std::iter::repeat(0));
        constants.extend(THRESHOLD_CONSTANTS.into_iter().zip(thresholds));
        let sweep = ctx
            .pipeline(Kernel::MultispinMetropolis(words), &constants)?
            .clone();
        let observe = ctx
            .pipeline(Kernel::MultispinObservables(words), &constants)?
            .clone();
        let overlap = match layout.overlap_word_pairs().is_empty() {
            true => None,
            false => Some(
                ctx.pipeline(Kernel::MultispinOverlap(words), &constants)?
                    .clone(),
            ),
        };
        let spins = ctx.buffer("spin words", 4 * layout.words(), storage_usage())?;
        let thresholds = ctx.upload("thresholds", &layout.threshold_tables())?;
        let couplings = ctx.upload("couplings", &layout.coupling_words())?;
        let dispatcher = Dispatcher::new(&ctx, workgroup_size)?;
        let engine = MultispinWgpuEngine {
            ctx,
            layout,
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
            last_measured: None,
            count_populations: false,
            read: SlotsRead::default(),
            halo: None,
        };
        engine.ctx.check()?;
        Ok(engine)
    }

    /// An engine of the slab `layout.systems` holds, trading its boundary planes
    /// through `halo` after each colour's dispatch, one colour per submission
    /// ([`crate::engine::slabs`]); every spin down until [`Engine::set_spins`].
    pub fn slab(
        ctx: WgpuContext,
        layout: MultispinLayout,
        workgroup_size: u32,
        halo: Box<dyn Halo>,
    ) -> Result<Self> {
        check_slab(&layout)?;
        Ok(MultispinWgpuEngine {
            halo: Some(halo),
            ..MultispinWgpuEngine::new(ctx, layout, workgroup_size, Betas::Fixed)?
        })
    }

    /// A slab's halo exchange of `colour` (nothing for whole lattices): download of its
    /// boundary planes, exchange, upload of the halos (queued before the next submission).
    fn exchange(&mut self, colour: u32) -> Result<()> {
        let Some(halo) = self.halo.as_deref_mut() else {
            return Ok(());
        };
        let mut store = DeviceWords {
            ctx: &self.ctx,
            buffer: &self.spins,
            beside: None,
        };
        exchange_colour(&self.layout, halo, &mut store, colour)
    }

    /// A slab's sweep of one colour with its exchange beside the bulk ([`SlabSweep`]), in queue
    /// order: the edge planes' update, the copy of the boundary planes, the bulk; the host waits
    /// for the copy alone and exchanges the planes while the device runs the bulk, and the
    /// halos' upload goes before the next submission.
    fn sweep_slab(&mut self, params: &DispatchParams, clear: bool) -> Result<()> {
        let parts = SlabSweep::new(&self.layout, *params);
        let edges: Vec<Dispatch> = parts.edges.into_iter().map(Dispatch::Sweep).collect();
        self.enqueue(&edges, clear);
        let mut halo = self.halo.take().expect("a slab has its halo");
        let engine = &*self;
        let bulk = move || {
            if let Some(bulk) = parts.bulk {
                engine.enqueue(&[Dispatch::Sweep(bulk)], false);
            }
        };
        let mut store = DeviceWords {
            ctx: &engine.ctx,
            buffer: &engine.spins,
            beside: Some(Box::new(bulk)),
        };
        let exchanged = exchange_colour(&engine.layout, halo.as_mut(), &mut store, params.colour);
        drop(store);
        self.halo = Some(halo);
        exchanged
    }

    /// Make a slab's halos of both colours current (after new spins).
    fn exchange_both(&mut self) -> Result<()> {
        (0..2).try_for_each(|colour| self.exchange(colour))
    }

    /// The copy kernel and its buffers, built by the first copy or resampling step.
    fn ensure_copies(&mut self) -> Result<()> {
        let layout = &self.layout;
        WgpuCopies::ensure(
            &mut self.copies,
            &mut self.ctx,
            &self.spins,
            (layout.word_systems(), layout.system_words()),
            multispin_unit(layout),
            self.dispatcher.workgroup_size(),
        )?;
        Ok(())
    }

    /// The resampling kernels for blocks of `slots`, built (with the copy kernel and its
    /// identity map) by the first call or where the blocks change.
    fn ensure_resampling(&mut self, slots: u32) -> Result<()> {
        if self.resampling.as_ref().is_none_or(|r| r.slots() != slots) {
            self.ensure_copies()?;
            let (layout, copies) = (&self.layout, self.copies.as_ref().expect("ensured above"));
            // Lanes that hold no system (AMSC lanes of temperatures beyond the last) keep
            // their bits: the device's steps write only the entries of systems.
            self.ctx.write_words(copies.map(), &identity_map(layout));
            let lattice = layout.lattice();
            self.resampling = Some(WgpuResampling::new(
                &mut self.ctx,
                &system_positions(layout),
                (slots, lattice.bonds(), lattice.sites()),
                layout.smsc(),
                self.dispatcher.workgroup_size(),
            )?);
        }
        Ok(())
    }

    /// Submit resampling step `step` on the device, from the last plan's last measurement.
    fn enqueue_resample(&mut self, step: u32) -> Result<PendingStep> {
        let slot = self.last_measured.take().ok_or_else(no_measurement)?;
        let resampling = self.resampling.as_mut().ok_or_else(no_table)?;
        let buffers = self.measurements.as_ref().expect("measured before");
        let copies = self.copies.as_ref().expect("created with the resampling");
        let base = slot * self.layout.word_systems() * LANES;
        resampling.enqueue(
            &self.ctx,
            &self.dispatcher,
            (self.layout.systems.seed, step),
            &buffers.observations,
            base,
            copies,
            &self.spins,
        )
    }

    /// After a plan's submissions: the copies of its resampling step `step` and, where the
    /// engine counts populations and the plan measured, the histograms of its last
    /// measurement, in one read. A refused step leaves the lattices as they were before it
    /// and no measurement to resample from (the plan's measured lattices were put back).
    fn read_back(
        &mut self,
        step: Option<PendingStep>,
        slots: u32,
    ) -> Result<(Vec<u32>, Option<PopulationHistograms>)> {
        let histograms = self.count_populations && slots > 0;
        let Some(resampling) = self
            .resampling
            .as_ref()
            .filter(|_| step.is_some() || histograms)
        else {
            return self.ctx.wait().map(|()| (Vec::new(), None));
        };
        if histograms {
            let buffers = self.measurements.as_ref().expect("ensured before reading");
            let base = (slots - 1) * self.layout.word_systems() * LANES;
            resampling.enqueue_histograms(&self.ctx, &self.dispatcher, &buffers.observations, base);
        }
        let copies = self.copies.as_ref().expect("created with the resampling");
        let read = resampling.read_back(&self.ctx, step, (copies, &self.spins), histograms);
        if read.is_err() {
            self.last_measured = None;
        }
        read
    }

    fn observation_bytes(&self, slots: u32) -> u64 {
        16 * u64::from(LANES) * u64::from(slots.max(1)) * u64::from(self.layout.word_systems())
    }

    /// Bytes of overlap counters for `slots` slots: none where no overlap kernel runs (without
    /// replica pairs, or once populations are counted as histograms).
    fn overlap_bytes(&self, slots: u32) -> u64 {
        let pairs = match self.overlap {
            Some(_) => self.layout.overlap_word_pairs().len() as u64,
            None => 0,
        };
        4 * u64::from(self.layout.pair_counts()) * u64::from(slots.max(1)) * pairs
    }

    /// Measurement buffers with room for at least `slots` slots.
    fn ensure_measurements(&mut self, slots: u32) -> Result<()> {
        if self.measurements.as_ref().is_some_and(|m| m.slots >= slots) {
            return Ok(());
        }
        for (what, bytes) in [
            ("observations", self.observation_bytes(slots)),
            ("overlaps", self.overlap_bytes(slots)),
        ] {
            self.ctx.check_plan_measurements(what, slots, bytes)?;
        }
        let observations = self.ctx.buffer(
            "observations",
            self.observation_bytes(slots),
            storage_usage(),
        )?;
        let overlaps = self
            .ctx
            .buffer("overlaps", self.overlap_bytes(slots), storage_usage())?;
        let buffers = [
            &self.spins,
            &self.thresholds,
            &observations,
            &self.couplings,
            &overlaps,
        ];
        let mut entries = vec![self.dispatcher.params_entry()];
        entries.extend(
            buffers
                .iter()
                .enumerate()
                .map(|(i, b)| wgpu::BindGroupEntry {
                    binding: i as u32 + 1,
                    resource: b.as_entire_binding(),
                }),
        );
        let bind_group = self
            .ctx
            .device
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("multispin"),
                layout: self.ctx.bind_group_layout(Bindings::Multispin),
                entries: &entries,
            });
        self.measurements = Some(MeasurementBuffers {
            observations,
            overlaps,
            slots: slots.max(1),
            bind_group,
        });
        Ok(())
    }

    /// The kernels a dispatch runs, with their grids: a swap round measures every word system
    /// into the scratch slot before the tempering kernels decide, unless the update before it
    /// tallied them ([`TALLY_RUNS`]): `tally` says whether this dispatch is such an update or
    /// such a round ([`Self::with_tallies`]).
    fn kernels(&self, dispatch: &Dispatch, tally: bool) -> Vec<(&wgpu::ComputePipeline, Grid)> {
        let layout = &self.layout;
        let words = layout.word_systems();
        let strips = u64::from(layout.strips());
        let observe = (
            &self.observe,
            self.dispatcher.grid(&self.ctx, strips, words),
        );
        let mut kernels = match (dispatch, &self.swap_tally) {
            (Dispatch::Sweep(_), Some(swap_tally)) if tally => {
                let threads = layout.update_threads().div_ceil(RUNS_PER_TALLY_THREAD);
                let grid = self.dispatcher.grid(&self.ctx, u64::from(threads), words);
                vec![(swap_tally, grid)]
            }
            (d @ Dispatch::Sweep(_), _) => {
                let threads = d.params().update_threads(layout.update_threads());
                let grid = self.dispatcher.grid(&self.ctx, u64::from(threads), words);
                vec![(&self.sweep, grid)]
            }
            (Dispatch::Measure(_), _) => {
                let mut kernels = vec![observe];
                if let Some(overlap) = &self.overlap {
                    let pairs = layout.overlap_word_pairs().len() as u32;
                    kernels.push((overlap, self.dispatcher.grid(&self.ctx, strips, pairs)));
                }
                kernels
            }
            (Dispatch::Swap(_), _) if tally => Vec::new(),
            (Dispatch::Swap(_), _) => {
                let pipeline = self.swap_observe.as_ref().unwrap_or(&self.observe);
                vec![(pipeline, observe.1)]
            }
        };
        if let Some(tempering) = &self.tempering {
            kernels.extend(tempering.kernels(&self.ctx, &self.dispatcher, dispatch));
        }
        kernels
    }

    /// `dispatches` with the colour-1 updates before swap rounds that tally those rounds' counts
    /// (where the engine has the tally; [`swap_tally`]) moved to the rounds' scratch slots, and
    /// for each dispatch whether it tallies (an update) or was tallied (a round).
    fn with_tallies(&self, dispatches: &[Dispatch]) -> (Vec<Dispatch>, Vec<bool>) {
        let mut tallies = vec![false; dispatches.len()];
        let mut dispatches = dispatches.to_vec();
        if self.swap_tally.is_some() {
            for i in 0..dispatches.len() {
                if let Some((round, slot)) = swap_tally(&dispatches[i..])
                    && let Dispatch::Sweep(params) = &mut dispatches[i]
                {
                    params.slot = slot;
                    tallies[i] = true;
                    tallies[i + round] = true;
                }
            }
        }
        (dispatches, tallies)
    }

    /// Submit `dispatches` (clearing the measurements first where `clear`) without waiting
    /// ([`Dispatcher::enqueue`]).
    fn enqueue(&self, dispatches: &[Dispatch], clear: bool) -> wgpu::SubmissionIndex {
        let (dispatches, tallies) = self.with_tallies(dispatches);
        let buffers = self
            .measurements
            .as_ref()
            .expect("ensured before submitting");
        let clear: Vec<&wgpu::Buffer> = match (clear, &self.overlap) {
            (false, _) => Vec::new(),
            (true, Some(_)) => vec![&buffers.observations, &buffers.overlaps],
            (true, None) => vec![&buffers.observations],
        };
        let tempering = self.tempering.as_ref().map(WgpuTempering::bind_group);
        self.dispatcher.enqueue(
            &self.ctx,
            &buffers.bind_group,
            tempering,
            &dispatches,
            &clear,
            |i, d| self.kernels(d, tallies[i]),
        )
    }

    /// Queue the copy of the slots from the last read up to `slots` (their measurements enqueued
    /// before) for [`Self::finish_read`]; `None` where there are none.
    fn queue_slots(&self, slots: u32) -> Result<Option<(PendingRead, u32)>> {
        let first = self.read.slots;
        if slots <= first {
            return Ok(None);
        }
        let buffers = self.measurements.as_ref().expect("ensured before reading");
        let (observations, overlaps) = (self.observation_bytes(1), self.overlap_bytes(1));
        let (first, end) = (u64::from(first), u64::from(slots));
        let mut pieces = vec![(
            &buffers.observations,
            first * observations..end * observations,
        )];
        if self.overlap.is_some() {
            pieces.push((&buffers.overlaps, first * overlaps..end * overlaps));
        }
        Ok(Some((self.ctx.queue_read(&pieces)?, slots)))
    }

    /// Wait for a submission, and fill the slots copied behind it.
    fn finish_submission(
        &mut self,
        (submitted, read): (wgpu::SubmissionIndex, Option<(PendingRead, u32)>),
    ) -> Result<()> {
        match read {
            Some(read) => self.finish_read(read),
            None => self.ctx.wait_for(submitted),
        }
    }

    /// Fill the slots a [`Self::queue_slots`] copied into [`SlotsRead`].
    fn finish_read(&mut self, (pending, slots): (PendingRead, u32)) -> Result<()> {
        let started = std::time::Instant::now();
        let words: Vec<u32> = self.ctx.finish_read(pending)?;
        let slots = u64::from(slots - self.read.slots);
        let observation_words = (slots * self.observation_bytes(1) / 4) as usize;
        let (observations, per_pair) = words.split_at(observation_words);
        let per_word: Vec<[u64; 2]> = counter_pairs(observations).collect();
        self.read
            .fill(&self.layout, &per_word, per_pair, started.elapsed());
        Ok(())
    }

    /// The plan's measurements: those of its last batches read now, after the earlier ones.
    fn read_measurements(&mut self, slots: u32) -> Result<Measurements> {
        self.read.mark_beside();
        if let Some(read) = self.queue_slots(slots)? {
            self.finish_read(read)?;
        }
        let mut measurements = std::mem::take(&mut self.read).finish("wgpu");
        if let Some(tempering) = &self.tempering {
            measurements.labels = tempering.read_history(&self.ctx, slots)?;
        }
        Ok(measurements)
    }
}

impl Engine for MultispinWgpuEngine {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            backend: "wgpu".into(),
            engine: self.layout.describe(),
            adapter: self.ctx.adapter_name(),
        }
    }

    fn set_spins(&mut self, spins: &SpinBits) -> Result<()> {
        spins.check_fits(&self.layout.systems)?;
        let words = self.layout.pack(spins);
        self.ctx
            .queue
            .write_buffer(&self.spins, 0, bytemuck::cast_slice(&words));
        self.ctx.wait()?;
        self.exchange_both()
    }

    fn hot_start(&mut self) -> Result<()> {
        let grid = HotStartGrid::multispin(&self.layout);
        hot_start(&mut self.ctx, &self.dispatcher, &self.spins, &grid)?;
        self.exchange_both()
    }

    fn spins(&mut self) -> Result<SpinBits> {
        let words: Vec<u32> = self.ctx.read_buffer(&self.spins, self.spins.size())?;
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
            tempering.ensure_history(&self.ctx, plan.slots)?;
        }
        // Swap rounds measure into a scratch slot past the plan's.
        self.ensure_measurements(plan.slots + u32::from(swaps))?;
        let flips_per_sweep =
            self.layout.lattice().sites() * u64::from(self.layout.systems.systems());
        let sweeps_per_submission = sweeps_per_submission(plan, flips_per_sweep, FLIP_BUDGET);
        let subs = submissions(
            plan,
            self.layout.systems.seed,
            self.layout.word_systems(),
            MAX_DISPATCHES,
            sweeps_per_submission,
        );
        // A slab submits one dispatch at a time, each colour's update with its exchange.
        let subs = match self.halo {
            Some(_) => subs.concat().into_iter().map(|d| vec![d]).collect(),
            None => subs,
        };
        self.read = SlotsRead::new(plan.slots);
        let started = std::time::Instant::now();
        // Each submission goes to the queue before the host waits for the one before it, so
        // the device never waits for the host's encoding; the slots a submission measured are
        // copied out right behind it and read while the device runs the next.
        let mut behind: Option<(wgpu::SubmissionIndex, Option<(PendingRead, u32)>)> = None;
        for (i, dispatches) in subs.iter().enumerate() {
            if let (Some(_), [Dispatch::Sweep(params)]) = (&self.halo, dispatches.as_slice()) {
                // The slab's exchange reads through the same staging buffer: the read behind
                // goes first.
                if let Some(previous) = behind.take() {
                    self.finish_submission(previous)?;
                }
                self.sweep_slab(params, i == 0)?;
                continue;
            }
            let submitted = self.enqueue(dispatches, i == 0);
            if let Some(previous) = behind.take() {
                self.finish_submission(previous)?;
            }
            let read = match self.count_populations {
                true => None,
                false => self.queue_slots(measured_slots(dispatches).unwrap_or(0))?,
            };
            behind = Some((submitted, read));
        }
        if let Some(last) = behind {
            self.finish_submission(last)?;
        }
        let (copies, histograms) = self.read_back(resampled, plan.slots)?;
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
            None => self.read_measurements(plan.slots)?,
        };
        log::debug!(
            "wgpu multispin: {} sweeps, {} measurements: kernels {:.1} ms, download and \
             measurements on the host {:.1} ms",
            plan.sweeps(),
            plan.slots,
            ran.as_secs_f64() * 1e3,
            (started.elapsed() - ran).as_secs_f64() * 1e3
        );
        measurements.copies = copies;
        Ok(measurements)
    }

    fn set_tempering(&mut self, state: &[u32]) -> Result<()> {
        whole_lattices_only(&self.halo, "parallel tempering")?;
        let layout = &self.layout;
        let tempering = WgpuTempering::new(
            &mut self.ctx,
            &layout.systems,
            SwapLayout::multispin(layout),
            (ShaderEngine::Multispin, Records::multispin(layout)),
            state,
            self.dispatcher.workgroup_size(),
        )?;
        self.tempering = Some(tempering);
        if self.layout.systems.field == 0.0 {
            let words = WordLayout::of(&self.layout);
            let mut constants = self.constants.clone();
            constants.push((COUNT_UP, 0));
            let kernel = Kernel::MultispinObservables(words);
            self.swap_observe = Some(self.ctx.pipeline(kernel, &constants)?.clone());
            // The tally's transposes pair threads within groups of 32, and their planes (up to 7
            // per thread) go through the threshold table's workgroup memory (14 x 32 words).
            if matches!(self.dispatcher.workgroup_size(), 32 | 64) {
                let mut constants = self.constants.clone();
                constants.push((TALLY_RUNS, RUNS_PER_TALLY_THREAD));
                let kernel = Kernel::MultispinMetropolis(words);
                self.swap_tally = Some(self.ctx.pipeline(kernel, &constants)?.clone());
            }
        }
        self.ctx.check()
    }

    fn tempering(&mut self) -> Result<Vec<u32>> {
        match &self.tempering {
            Some(tempering) => tempering.read_state(&self.ctx),
            None => Ok(Vec::new()),
        }
    }

    fn set_betas(&mut self, betas: &[f64]) -> Result<()> {
        whole_lattices_only(&self.halo, "population annealing (set_betas)")?;
        check_betas(&self.layout.systems, betas)?;
        check_thresholds_not_compiled(self.fixed_thresholds, "multispin wgpu")?;
        self.layout.systems.betas = betas.to_vec();
        self.ctx
            .write_words(&self.thresholds, &self.layout.threshold_tables());
        Ok(())
    }

    fn copy_systems(&mut self, sources: &[u32]) -> Result<()> {
        whole_lattices_only(&self.halo, "population annealing (copy_systems)")?;
        check_copy_map(&self.layout.systems, sources)?;
        self.ensure_copies()?;
        let copies = self.copies.as_ref().expect("ensured above");
        let map = lane_map(&self.layout, sources);
        copies.copy(&self.ctx, &self.dispatcher, &self.spins, &map)
    }

    fn set_resampling(&mut self, table: &ResamplingTable) -> Result<()> {
        whole_lattices_only(&self.halo, "population annealing (resampling)")?;
        self.ensure_resampling(table.slots)?;
        let resampling = self.resampling.as_mut().expect("ensured above");
        resampling.set_table(&self.ctx, table)
    }

    /// Slots whose observations and overlaps each fit in one storage binding, with the swap
    /// rounds' scratch slot.
    fn max_plan_slots(&self) -> u64 {
        let per_slot = self.observation_bytes(1).max(self.overlap_bytes(1));
        self.ctx.plan_slots(per_slot)
    }

    fn count_populations(&mut self, slots: u32, sizes: &[u32]) -> Result<bool> {
        whole_lattices_only(&self.halo, "population annealing (histograms)")?;
        self.ensure_resampling(slots)?;
        let resampling = self.resampling.as_ref().expect("ensured above");
        resampling.set_sizes(&self.ctx, sizes)?;
        self.count_populations = true;
        // Histograms replace every replica's counts, and nothing reads the overlaps.
        self.overlap = None;
        Ok(true)
    }
}

/// Refuse word systems beyond the device's limits, naming the limit and the largest L that fits.
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
    ctx.check_storage(&what, stored, word_bytes, step)?;
    let groups = u64::from(layout.coupling_groups()) * u64::from(lattice.dims);
    let coupling_bytes = |size: u32| word_bytes(size) / u64::from(layout.word_systems()) * groups;
    if layout.systems.disorder == Disorder::Bimodal {
        ctx.check_storage(
            &format!("the couplings of {} groups", layout.coupling_groups()),
            stored / u64::from(layout.word_systems()) * groups,
            coupling_bytes,
            step,
        )?;
    }
    check_u32_indices(layout)?;
    ctx.check_systems(layout.word_systems())?;
    ctx.check_workgroup_size(workgroup_size)
}

/// Refuse spin or coupling buffers whose words the WGSL kernels cannot index: `colour_base` and
/// `bond_base` in `multispin_lattice.wgsl` are `u32` offsets into the whole buffer. Devices whose
/// storage bindings stop below 16 GiB never get here; this guards those that allow more.
fn check_u32_indices(layout: &MultispinLayout) -> Result<()> {
    let lattice = layout.lattice();
    let groups = u64::from(layout.coupling_groups()) * u64::from(lattice.dims);
    let coupling_words = match layout.systems.disorder {
        Disorder::Bimodal => layout.system_words() * groups,
        Disorder::Ferromagnet => 0,
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
