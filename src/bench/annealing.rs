//! `spinflip bench --annealing`: one whole population anneal, timed by kind of work.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::{BenchOptions, BenchResult};
use crate::annealing::anneal_engine;
use crate::annealing::ising_annealed;
use crate::config::{AnnealingOptions, Config};
use crate::engine::annealing::ResamplingTable;
use crate::engine::{
    Betas, Engine, EngineInfo, Lattices, Measurements, Plan, Populations, Step, Tempering,
    populations_of,
};
use crate::error::{Error, Result};
use crate::mpi::open_engine_with_betas;

/// A timed anneal (`--annealing`): `sweeps` in `BenchResult` are the anneal's (`steps x
/// theta`), `seconds` its time from the first measurement (after the hot start) to the last,
/// one plan per step as `spinflip run` executes them, and `ps_per_flip` counts `sweeps x
/// replicas x samples x N` flips: the target population, not the idle slots the engine also
/// sweeps (`slots` per population). The shares come from a second anneal of the same config
/// whose plans run as one call per kind of work, each timed (`split_seconds`: each call waits
/// for its work, so that anneal takes longer), and are fractions of its time.
#[derive(Debug, Clone, Serialize)]
pub struct AnnealingShares {
    /// The target population R per sample.
    pub replicas: u32,
    /// Engine replicas per population (R plus room for its fluctuations), all swept.
    pub slots: u32,
    pub samples: u32,
    pub steps: u32,
    pub theta: u32,
    /// The anneal the shares are fractions of, its work split by kind.
    pub split_seconds: f64,
    /// Sweep plans.
    pub sweeps: f64,
    /// Measurement plans, the downloads of their counts included.
    pub measurements: f64,
    /// The resampling step: `Populations::set_resampling` (the table's upload) and the plans'
    /// `Step::Resample` (the decisions, the copy map and the gather of the lattices).
    pub copies: f64,
    /// `Populations::set_betas`: new threshold tables written to the device.
    pub betas: f64,
    /// The host between engine calls: energy histograms, the resampling table, the adaptive
    /// step, the families and the estimates.
    pub host: f64,
    /// Resampling in all: `copies + betas + host`.
    pub resampling: f64,
}

/// One whole anneal of `config` (algorithm `Annealing`), timed by kind of work (see
/// [`AnnealingShares`]). The copy kernel and the measurement buffers are made ready before the
/// anneal (one copy that keeps every system, one measurement), as any anneal past its first
/// step finds them.
pub(super) fn bench_anneal(options: &BenchOptions, config: &Config) -> Result<BenchResult> {
    let annealing = config
        .algorithm
        .annealing()
        .ok_or_else(|| Error::State("bench_anneal needs algorithm: Annealing".into()))?;
    let view = annealing.engine_config(config)?;
    let systems = ising_annealed(&view, None);
    let mut engine = open_engine_with_betas(&view, systems.clone(), Betas::Changing)?;
    populations_of(engine.as_mut())?.copy_systems(&(0..systems.systems()).collect::<Vec<_>>())?;
    let mut plan = Plan::default();
    plan.measure();
    engine.execute(&plan)?;
    // A resampling step that moves nothing builds the step's kernels and buffers.
    let slots = AnnealingOptions::slots(config.replicas) as u32;
    populations_of(engine.as_mut())?
        .set_resampling(&ResamplingTable::identity(slots, systems.systems() / slots))?;
    let mut identity = Plan::default();
    identity.resample(0)?;
    engine.execute(&identity)?;
    let mut whole = TimedEngine::new(engine.as_mut(), false);
    let sweeps = anneal_engine(config, &annealing, &mut whole)?;
    let seconds = whole.times.total().as_secs_f64();
    let mut split = TimedEngine::new(engine.as_mut(), true);
    anneal_engine(config, &annealing, &mut split)?;
    let times = split.times;
    let total = times.total();
    let split_seconds = total.as_secs_f64();
    let share = |d: Duration| d.as_secs_f64() / split_seconds;
    let host = total.saturating_sub(times.engine());
    let (copies, betas) = (share(times.copies), share(times.betas));
    let population = u64::from(config.replicas) * u64::from(config.samples);
    let flips = sweeps * population * systems.lattice.spins();
    let ps = seconds * 1e12 / flips.max(1) as f64;
    let result = BenchResult::new(options, engine.info(), &systems, (sweeps, seconds, ps));
    Ok(BenchResult {
        systems: population as u32,
        annealing: Some(AnnealingShares {
            split_seconds,
            replicas: config.replicas,
            slots: AnnealingOptions::slots(config.replicas) as u32,
            samples: config.samples,
            steps: options.steps,
            theta: options.theta,
            sweeps: share(times.sweeps),
            measurements: share(times.measurements),
            copies,
            betas,
            host: share(host),
            resampling: copies + betas + share(host),
        }),
        ..result
    })
}

/// Where an anneal's time went, by engine call.
#[derive(Debug, Default)]
struct AnnealTimes {
    /// From the first measurement (the population at beta 0, after the hot start) on.
    started: Option<Instant>,
    sweeps: Duration,
    measurements: Duration,
    copies: Duration,
    betas: Duration,
}

impl AnnealTimes {
    fn total(&self) -> Duration {
        self.started.map_or(Duration::ZERO, |s| s.elapsed())
    }

    fn engine(&self) -> Duration {
        self.sweeps + self.measurements + self.copies + self.betas
    }
}

/// An engine that times the anneal it wraps from its first plan on, and with `split` each
/// call the anneal makes: a plan then runs as three, its resampling step, its sweeps and its
/// measurements (an anneal's plans measure only after their sweeps), so that each is timed.
/// Calls return when their work is done, but for wgpu's `set_betas`, whose small write of the
/// tables goes with the next submission.
struct TimedEngine<'a> {
    engine: &'a mut dyn Engine,
    split: bool,
    times: AnnealTimes,
}

impl<'a> TimedEngine<'a> {
    fn new(engine: &'a mut dyn Engine, split: bool) -> Self {
        TimedEngine {
            engine,
            split,
            times: AnnealTimes::default(),
        }
    }
}

/// Run `f`, adding its time to `total`.
fn timed_call<T>(total: &mut Duration, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let started = Instant::now();
    let result = f();
    *total += started.elapsed();
    result
}

impl Engine for TimedEngine<'_> {
    fn info(&self) -> EngineInfo {
        self.engine.info()
    }

    fn set_spins(&mut self, spins: &Lattices) -> Result<()> {
        self.engine.set_spins(spins)
    }

    fn spins(&mut self) -> Result<Lattices> {
        self.engine.spins()
    }

    fn hot_start(&mut self) -> Result<()> {
        self.engine.hot_start()
    }

    fn execute(&mut self, plan: &Plan) -> Result<Measurements> {
        self.times.started.get_or_insert_with(Instant::now);
        if !self.split {
            return self.engine.execute(plan);
        }
        let (resample, steps) = plan.split_resample()?;
        let (sweeps, measures): (Vec<Step>, Vec<Step>) = steps
            .iter()
            .partition(|step| matches!(step, Step::Sweep { .. }));
        if steps != [sweeps.as_slice(), &measures].concat() {
            return Err(Error::State(
                "the annealing bench times plans that measure only after their sweeps".into(),
            ));
        }
        let engine = &mut *self.engine;
        let mut copies = Vec::new();
        if let Some(step) = resample {
            let mut resampling = Plan::default();
            resampling.resample(step)?;
            let resampled = timed_call(&mut self.times.copies, || engine.execute(&resampling))?;
            copies = resampled.copies;
        }
        if !sweeps.is_empty() {
            let sweeps = Plan {
                steps: sweeps,
                slots: 0,
            };
            timed_call(&mut self.times.sweeps, || engine.execute(&sweeps))?;
        }
        let measures = Plan {
            steps: measures,
            slots: plan.slots,
        };
        let mut measurements =
            timed_call(&mut self.times.measurements, || engine.execute(&measures))?;
        measurements.copies = copies;
        Ok(measurements)
    }

    fn max_plan_slots(&self) -> u64 {
        self.engine.max_plan_slots()
    }

    /// The wrapped engine's, untimed.
    fn tempering(&mut self) -> Option<&mut dyn Tempering> {
        self.engine.tempering()
    }

    /// Itself where the wrapped engine has population annealing: it times the calls.
    fn populations(&mut self) -> Option<&mut dyn Populations> {
        match self.engine.populations() {
            Some(_) => Some(self),
            None => None,
        }
    }
}

impl Populations for TimedEngine<'_> {
    fn set_betas(&mut self, betas: &[f64]) -> Result<()> {
        let populations = populations_of(&mut *self.engine)?;
        timed_call(&mut self.times.betas, || populations.set_betas(betas))
    }

    fn copy_systems(&mut self, sources: &[u32]) -> Result<()> {
        let populations = populations_of(&mut *self.engine)?;
        timed_call(&mut self.times.copies, || populations.copy_systems(sources))
    }

    fn set_resampling(&mut self, table: &ResamplingTable) -> Result<()> {
        let populations = populations_of(&mut *self.engine)?;
        timed_call(&mut self.times.copies, || populations.set_resampling(table))
    }

    fn count_populations(&mut self, slots: u32, sizes: &[u32]) -> Result<bool> {
        populations_of(&mut *self.engine)?.count_populations(slots, sizes)
    }
}
