//! The multispin engines' plan and population calls, written once over [`MultispinBackend`]
//! and [`MultispinAnnealing`]: what the CPU, wgpu and CUDA multispin engines
//! (`engine::cpu::multispin`, `engine::wgpu::multispin`, `engine::cuda::multispin`) each
//! provide.

use std::time::Instant;

use crate::engine::annealing::{PopulationHistograms, ResamplingTable, no_measurement};
use crate::engine::copy_maps::lane_map;
use crate::engine::multispin::{LANES, MultispinLayout};
use crate::engine::slabs::whole_lattices_only;
use crate::engine::{
    Engine, EngineInfo, Halo, ISING_PASSES, Lattices, Measurements, Plan, Populations, Tempering,
    check_betas, check_copy_map, check_thresholds_not_compiled,
};
use crate::error::Result;

/// What a multispin engine keeps on the host, alike on every backend: the word layout, a
/// slab's neighbours, the slot the next resampling step reads, and whether measurements come
/// back as the populations' histograms.
pub struct MultispinHost {
    pub layout: MultispinLayout,
    /// The neighbours of a slab ([`crate::engine::slabs`]); `None` for whole lattices.
    pub halo: Option<Box<dyn Halo>>,
    /// The slot of the last plan's last measurement, which the next resampling step reads
    /// (`None` where the plan measured nothing: its first launch cleared the counts).
    pub last_measured: Option<u32>,
    /// Whether measurements come back as the populations' histograms
    /// ([`Populations::count_populations`]).
    pub count_populations: bool,
}

impl MultispinHost {
    /// The host's side of an engine of whole lattices of `layout`.
    pub fn new(layout: MultispinLayout) -> Self {
        MultispinHost {
            layout,
            halo: None,
            last_measured: None,
            count_populations: false,
        }
    }

    /// The first observation pair of slot `slot`'s measurement.
    fn observation_base(&self, slot: u32) -> u32 {
        slot * self.layout.word_systems() * LANES
    }
}

/// What a backend's multispin engine provides for a plan: its host state, its kernels'
/// launches and the reads of what they measured (in the backend's `multispin/mod.rs`).
pub trait MultispinBackend {
    /// The engine's name in messages and logs ("multispin wgpu", "multispin CUDA").
    const NAME: &'static str;

    /// The layout, a slab's neighbours and the plan bookkeeping.
    fn host(&mut self) -> &mut MultispinHost;

    /// Zeroed room for the plan's measurements, tempering's history and its swap rounds'
    /// scratch slots, and the plan's reads started.
    fn prepare_slots(&mut self, plan: &Plan) -> Result<()>;

    /// Launch the plan's sweeps, measurements and swap rounds, reading measured slots back
    /// behind them where the backend can; the last of them may still be running on return,
    /// until [`Self::wait`] or a read.
    fn launch_plan(&mut self, plan: &Plan) -> Result<()>;

    /// Wait for everything launched.
    fn wait(&mut self) -> Result<()>;

    /// The measurements of the plan's `slots` slots not read back yet, and those read.
    fn read_measurements(&mut self, slots: u32) -> Result<Measurements>;
}

/// What a backend's multispin engine provides for population annealing: new threshold tables,
/// copies of systems, and the resampling step's and the histograms' kernels (in the backend's
/// `multispin/annealing.rs`).
pub trait MultispinAnnealing {
    /// A resampling step enqueued ahead of a plan's sweeps, read back behind them.
    type PendingStep;

    /// Enqueue resampling step `step` from the measurement at observation pair `base` (and the
    /// table set, each used once); refused where no table was set.
    fn enqueue_resample(&mut self, step: u32, base: u32) -> Result<Self::PendingStep>;

    /// Whether the resampling kernels exist (a table or the populations' sizes were set).
    fn resamples(&self) -> bool;

    /// Enqueue the histograms of the populations' measurement at observation pair `base`.
    fn enqueue_histograms(&mut self, base: u32) -> Result<()>;

    /// With one wait for everything enqueued: the copies of the pending step `step` (which
    /// put the lattices back where it was refused) and, where `histograms`, the histograms.
    fn read_resampled(
        &mut self,
        step: Option<Self::PendingStep>,
        histograms: bool,
    ) -> Result<(Vec<u32>, Option<PopulationHistograms>)>;

    /// Whether the update was compiled with its thresholds (fixed betas).
    fn thresholds_compiled(&self) -> bool;

    /// Write the layout's threshold tables to the device.
    fn write_thresholds(&mut self) -> Result<()>;

    /// Copy systems on the device: lane `i` of the words takes lane `map[i]` ([`lane_map`]).
    fn copy_lanes(&mut self, map: &[u32]) -> Result<()>;

    /// The resampling kernels for `table`'s blocks, and `table` for the next step.
    fn set_resampling_table(&mut self, table: &ResamplingTable) -> Result<()>;

    /// The resampling kernels for blocks of `slots`, the populations' `sizes` for the
    /// histograms, and the overlaps no longer measured; whether the backend counts the
    /// histograms (a backend that does not measures every system as before).
    fn set_population_sizes(&mut self, slots: u32, sizes: &[u32]) -> Result<bool>;
}

/// A multispin engine's spin words on its backend, and what it says of itself: with
/// [`MultispinBackend`], [`MultispinAnnealing`] and [`Tempering`], the engine's whole
/// [`Engine`] face, written once below.
pub trait MultispinLattices {
    /// The backend's name in [`EngineInfo`] ("cpu", "wgpu", "cuda").
    const BACKEND: &'static str;

    /// The word layout of the engine's systems.
    fn layout(&self) -> &MultispinLayout;

    /// The adapter or device, and its driver ([`EngineInfo::adapter`], [`EngineInfo::driver`]).
    fn adapter_and_driver(&self) -> (String, String);

    /// Write the spin words ([`MultispinLayout::pack`]).
    fn write_words(&mut self, words: &[u32]) -> Result<()>;

    /// The spin words as [`MultispinLattices::write_words`] takes them.
    fn read_words(&mut self) -> Result<Vec<u32>>;

    /// Random lattices (the kernel `hot_start`).
    fn hot_start_words(&mut self) -> Result<()>;

    /// Make a slab's halos of both colours current, after new spins (nothing for whole
    /// lattices).
    fn exchange_both(&mut self) -> Result<()>;

    /// Most measurement slots one plan may fill ([`Engine::max_plan_slots`]).
    fn max_plan_slots(&self) -> u64 {
        u64::MAX
    }
}

impl<B> Engine for B
where
    B: MultispinLattices + MultispinBackend + MultispinAnnealing + Tempering,
{
    fn info(&self) -> EngineInfo {
        let (adapter, driver) = self.adapter_and_driver();
        EngineInfo {
            backend: B::BACKEND.into(),
            engine: self.layout().describe(),
            adapter,
            driver,
        }
    }

    fn set_spins(&mut self, spins: &Lattices) -> Result<()> {
        let spins = spins.bits()?;
        spins.check_fits(&self.layout().systems)?;
        let words = self.layout().pack(spins);
        self.write_words(&words)?;
        self.exchange_both()
    }

    fn hot_start(&mut self) -> Result<()> {
        self.hot_start_words()?;
        self.exchange_both()
    }

    fn spins(&mut self) -> Result<Lattices> {
        let words = self.read_words()?;
        Ok(self.layout().unpack(&words).into())
    }

    fn execute(&mut self, plan: &Plan) -> Result<Measurements> {
        let planes = self.layout().lattice().size;
        plan.check_parts(self.sweep_parts(), (ISING_PASSES, planes))?;
        execute(self, plan)
    }

    /// A slab's too: a piece names planes of the whole lattice, and the slab updates those
    /// among its own ([`crate::engine::slabs::SlabPass`]); but not the triangular lattice's
    /// ([`MultispinLayout::sweep_parts`]).
    fn sweep_parts(&self) -> bool {
        self.layout().sweep_parts()
    }

    fn max_plan_slots(&self) -> u64 {
        MultispinLattices::max_plan_slots(self)
    }

    fn tempering(&mut self) -> Option<&mut dyn Tempering> {
        Some(self)
    }

    fn populations(&mut self) -> Option<&mut dyn Populations> {
        Some(self)
    }
}

/// [`Engine::execute`]: a resampling step's kernels ahead of the plan's with no wait between,
/// then one read of the step's copies (and histograms) and of the plan's measurements.
fn execute<B>(engine: &mut B, plan: &Plan) -> Result<Measurements>
where
    B: MultispinBackend + MultispinAnnealing,
{
    if plan.cluster_updates() > 0 {
        return Err(crate::engine::clusters::no_clusters());
    }
    plan.refuse_observe()?;
    let enqueuing = Instant::now();
    let resampled = match plan.split_resample()?.0 {
        Some(step) => {
            let slot = engine
                .host()
                .last_measured
                .take()
                .ok_or_else(no_measurement)?;
            let base = engine.host().observation_base(slot);
            Some(engine.enqueue_resample(step, base)?)
        }
        None => None,
    };
    engine.host().last_measured = plan.slots.checked_sub(1);
    engine.prepare_slots(plan)?;
    let started = Instant::now();
    engine.launch_plan(plan)?;
    let (copies, histograms) = read_back(engine, resampled, plan.slots)?;
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
        None => engine.read_measurements(plan.slots)?,
    };
    measurements.copies = copies;
    log::debug!(
        "{}: {} sweeps, {} measurements: resampling step and slots enqueued {:.2} ms, kernels \
         {:.1} ms, reads and measurements on the host {:.1} ms",
        B::NAME,
        plan.sweeps(),
        plan.slots,
        (started - enqueuing).as_secs_f64() * 1e3,
        ran.as_secs_f64() * 1e3,
        (started.elapsed() - ran).as_secs_f64() * 1e3
    );
    Ok(measurements)
}

/// Once a plan's kernels are enqueued, with one wait for them: the copies of its resampling
/// step `step` and, where the engine counts populations and the plan measured, the histograms of
/// its last measurement. A refused step leaves the lattices as they were before it and no
/// measurement to resample from (the plan's measured lattices were put back).
fn read_back<B>(
    engine: &mut B,
    step: Option<B::PendingStep>,
    slots: u32,
) -> Result<(Vec<u32>, Option<PopulationHistograms>)>
where
    B: MultispinBackend + MultispinAnnealing,
{
    let histograms = engine.host().count_populations && slots > 0;
    if !engine.resamples() || (step.is_none() && !histograms) {
        return engine.wait().map(|()| (Vec::new(), None));
    }
    if histograms {
        let base = engine.host().observation_base(slots - 1);
        engine.enqueue_histograms(base)?;
    }
    let read = engine.read_resampled(step, histograms);
    if read.is_err() {
        engine.host().last_measured = None;
    }
    read
}

/// Population annealing on a multispin engine of either backend: the checks of each call, then
/// the backend's copies and resampling kernels. Slabs refuse it.
impl<B: MultispinBackend + MultispinAnnealing> Populations for B {
    /// New temperatures, refused where they are compiled into the update.
    fn set_betas(&mut self, betas: &[f64]) -> Result<()> {
        whole_lattices_only(&self.host().halo, "population annealing (set_betas)")?;
        check_betas(&self.host().layout.systems, betas)?;
        check_thresholds_not_compiled(self.thresholds_compiled(), B::NAME)?;
        self.host().layout.systems.betas = betas.to_vec();
        self.write_thresholds()
    }

    fn copy_systems(&mut self, sources: &[u32]) -> Result<()> {
        whole_lattices_only(&self.host().halo, "population annealing (copy_systems)")?;
        check_copy_map(&self.host().layout.systems, sources)?;
        let map = lane_map(&self.host().layout, sources);
        self.copy_lanes(&map)
    }

    fn set_resampling(&mut self, table: &ResamplingTable) -> Result<()> {
        whole_lattices_only(&self.host().halo, "population annealing (resampling)")?;
        self.set_resampling_table(table)
    }

    /// Histograms on the device instead of observations.
    fn count_populations(&mut self, slots: u32, sizes: &[u32]) -> Result<bool> {
        whole_lattices_only(&self.host().halo, "population annealing (histograms)")?;
        let counted = self.set_population_sizes(slots, sizes)?;
        self.host().count_populations = counted;
        Ok(counted)
    }
}
