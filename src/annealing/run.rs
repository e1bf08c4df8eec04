//! Population annealing (paper 001) on the simulation loop's machinery: the loop plans each
//! temperature step (the resampling step to the new beta, `theta` sweeps there, then a
//! measurement) for the engine to replay. Between steps the host turns the last measurement's
//! integer energies into each population's levels and the resampling table
//! ([`super::resampling`]); the engine decides every replica's copies from the table and
//! copies the lattices ([`crate::engine::annealing`]), the spins never leaving it.
//!
//! A step is cut into plans of about a second ([`Stops::plan_end`], in units of the step's
//! sweeps, [`SweepUnits`]: a pass over one plane, or a whole sweep where the engine updates no
//! pieces of one): the first holds the resampling step, the last the measurement. A stop (a
//! signal, the wall time) between any two plans writes a checkpoint there, inside a step
//! included (the step's reweightings and units done with it), from which the run continues
//! bit for bit; the checkpoints of `checkpoint_every` fall between steps.
//!
//! Populations: `runs` independent populations per disorder sample, each in its own block of
//! [`AnnealingOptions::slots`] engine replicas (`block = sample runs + run`; systems
//! `block slots + j`). A population of size `R_i` fills slots `0 .. R_i` of its block; the
//! others are idle (swept with the rest, never measured or copied from).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::checkpoint::{AnnealingCheckpoint, StepUnderWay};
use super::model::{AnnealedSystems, ising_annealed};
use super::outputs::write_outputs;
use super::resampling::{PopulationLevels, adaptive_beta};
use super::steps::{Anneal, OpenStep, StepRecord, SweepUnits};
use super::summary::{AnnealingSummary, summarize};
use super::{EnergyHistogram, Population};
use crate::config::{AnnealingOptions, AnnealingSchedule, Config};
use crate::engine::{Engine, Lattices, Measurements, Plan, populations_of};

use crate::error::{Error, Result};
use crate::io::progress::Progress;
use crate::io::run_dir::{Ended, RunStart, crosses_checkpoint, ended_at_checkpoint};
use crate::stop::{StopReason, Stops};

/// Anneal `run`'s config, on the systems `systems` makes of its engine config
/// ([`AnnealingOptions::engine_config`]; the model's, with its couplings and empty sites),
/// writing the results into `options.out`, or continue the anneal of its checkpoint there
/// (`options.resume`).
pub fn anneal(
    run: &RunStart,
    systems: impl FnOnce(&Config) -> Box<dyn AnnealedSystems>,
) -> Result<Ended<Box<AnnealingSummary>>> {
    let (config, options) = (run.config, run.options);
    let annealing = config
        .algorithm
        .annealing()
        .ok_or_else(|| Error::State("anneal needs algorithm: Annealing".into()))?;
    let view = annealing.engine_config(config)?;
    let systems = systems(&view);
    let resumed = match options.resume {
        true => Some(run.load_checkpoint(AnnealingCheckpoint::load)?),
        false => None,
    };
    let mut engine = systems.open_engine(&view)?;
    run.write_config()?;
    let mut anneal = match resumed {
        Some(checkpoint) => {
            Anneal::resume(systems, config, &annealing, checkpoint, engine.as_mut())?
        }
        None => Anneal::start(systems, config, &annealing, engine.as_mut())?,
    };
    let mut checkpoints = Checkpoints {
        path: run.checkpoint.clone(),
        fingerprint: run.fingerprint,
        every: config.checkpoint_every,
        halt_after: options.halt_after,
        stops: run.stops(),
    };
    let plan = format!(
        "population annealing: {} populations of {} replicas, {} sweeps per temperature step",
        annealing.runs, config.replicas, annealing.theta
    );
    // An adaptive schedule's sweeps in all are known only at its end.
    run.announce(&engine.info(), &plan, anneal.sweeps_done, None);
    let started = Instant::now();
    let first_sweep = anneal.sweeps_done;
    let n = anneal.systems.lattice().spins();
    let flips_per_sweep = n * u64::from(anneal.systems.index().systems());
    // Every step measures: no sweeps count as thermalisation. The embedder's hook is not called
    // (see `ProgressHook`): an adaptive schedule has no total to tell it.
    let total = scheduled_sweeps(&annealing);
    let progress = Progress::new(
        options.progress,
        None,
        (0, total),
        first_sweep,
        flips_per_sweep,
    );
    let steps = anneal.run_steps(engine.as_mut(), &annealing, &mut checkpoints, &progress);
    progress.finish();
    let engine_time = match steps?.completed() {
        Ok(engine_time) => engine_time,
        Err(early) => return Ok(early),
    };
    log::info!("annealed in {:.1} s", started.elapsed().as_secs_f64());
    anneal.save(&checkpoints, engine.spins()?)?;
    let flips = (anneal.sweeps_done - first_sweep) * flips_per_sweep;
    let ps_per_flip = engine_time.as_secs_f64() * 1e12 / flips.max(1) as f64;
    let info = engine.info();
    let provenance = run.provenance(&info);
    let mut summary = summarize(
        config,
        &annealing,
        run.engine_choice,
        &anneal,
        info,
        ps_per_flip,
    );
    summary.origin.provenance = Some(provenance);
    write_outputs(&options.out, config, &anneal.populations, &summary)?;
    anneal.systems.write_instance(&options.out)?;
    Ok(Ended::Completed(Box::new(summary)))
}

/// The sweeps of `annealing`'s schedule in all, where it names its steps beforehand (not an
/// adaptive one).
fn scheduled_sweeps(annealing: &AnnealingOptions) -> Option<u64> {
    let steps = match annealing.schedule {
        AnnealingSchedule::Betas(ref betas) => betas.len() as u64,
        AnnealingSchedule::Linear { count, .. } => u64::from(count),
        AnnealingSchedule::Adaptive { .. } => return None,
    };
    Some(steps * u64::from(annealing.theta))
}

/// Anneal `config` (validated, its algorithm `annealing`, Ising spins) on `engine`, opened on
/// its [`ising_annealed`] systems for changing betas, from the hot start to the end of the
/// schedule, with no outputs and no checkpoints: the work `spinflip bench --annealing` times.
/// The sweeps done.
pub fn anneal_engine(
    config: &Config,
    annealing: &AnnealingOptions,
    engine: &mut dyn Engine,
) -> Result<u64> {
    let systems = ising_annealed(&annealing.engine_config(config)?, None);
    let mut anneal = Anneal::start(Box::new(systems), config, annealing, engine)?;
    let mut none = Checkpoints {
        path: PathBuf::new(),
        fingerprint: 0,
        every: 0,
        halt_after: None,
        stops: Stops::new(None),
    };
    let quiet = Progress::new(false, None, (0, None), 0, 0);
    anneal.run_steps(engine, annealing, &mut none, &quiet)?;
    Ok(anneal.sweeps_done)
}

/// Where and when the anneal writes its checkpoints: after a step whose sweeps reach or pass a
/// multiple of `every` (the config's `checkpoint_every`, in sweeps as for the other
/// algorithms; 0: only at the end), unless it was the last step, whose checkpoint follows at
/// the end anyway. `halt_after` stops the run after such a checkpoint, as a killed run would;
/// `stops` after any plan but the last, inside a step or between two, with a checkpoint, at a
/// signal or near the wall time.
struct Checkpoints {
    path: PathBuf,
    fingerprint: u64,
    every: u64,
    halt_after: Option<u64>,
    stops: Stops,
}

/// A plan that only measures (the population at beta = 0).
fn measurement_plan() -> Plan {
    let mut plan = Plan::default();
    plan.measure();
    plan
}

/// The next beta of the schedule, `None` once it has ended. An adaptive step is the smallest
/// any population asks for, so every population keeps at least the target overlap.
fn next_beta(
    schedule: &AnnealingSchedule,
    anneal: &Anneal,
    levels: &[PopulationLevels],
) -> Option<f64> {
    let k = anneal.schedule.len();
    match *schedule {
        AnnealingSchedule::Betas(ref betas) => betas.get(k).copied(),
        AnnealingSchedule::Linear { beta_max, count } => {
            (k < count as usize).then(|| beta_max * (k + 1) as f64 / f64::from(count))
        }
        AnnealingSchedule::Adaptive { overlap, beta_max } => {
            (anneal.beta() < beta_max).then(|| {
                levels
                    .iter()
                    .map(|l| adaptive_beta(l, anneal.beta(), beta_max, overlap))
                    .fold(beta_max, f64::min)
            })
        }
    }
}

/// Where a temperature step's time goes, logged at debug level (`RUST_LOG=spinflip=debug`):
/// the host's passes between the engine's calls, for `spinflip bench --annealing`'s "host".
struct PhaseClock {
    last: Instant,
    laps: Vec<(&'static str, Duration)>,
}

impl PhaseClock {
    fn new() -> Self {
        PhaseClock {
            last: Instant::now(),
            laps: Vec::new(),
        }
    }

    /// Close the phase `name`, which ran since the previous lap.
    fn lap(&mut self, name: &'static str) {
        let now = Instant::now();
        self.laps.push((name, now - self.last));
        self.last = now;
    }

    /// Log the laps of step `step`.
    fn log(&self, step: u32) {
        if log::log_enabled!(log::Level::Debug) {
            let laps: Vec<String> = self
                .laps
                .iter()
                .map(|(name, t)| format!("{name} {:.2} ms", t.as_secs_f64() * 1e3))
                .collect();
            log::debug!("annealing step {step}: {}", laps.join(", "));
        }
    }
}

impl Anneal {
    /// A fresh anneal: every population the whole initial one (its own family each) at beta 0,
    /// on the hot start.
    fn start(
        systems: Box<dyn AnnealedSystems>,
        config: &Config,
        annealing: &AnnealingOptions,
        engine: &mut dyn Engine,
    ) -> Result<Anneal> {
        engine.hot_start()?;
        let populations = config.samples * annealing.runs;
        let population = |ln_z| Population {
            families: (0..config.replicas).collect(),
            ln_z,
            estimates: Vec::new(),
            histogram: EnergyHistogram::default(),
        };
        Ok(Anneal {
            populations: (systems.start_ln_z(populations, annealing.runs).into_iter())
                .map(population)
                .collect(),
            systems,
            target: config.replicas,
            slots: AnnealingOptions::slots(config.replicas) as u32,
            sweeps_done: 0,
            schedule: Vec::new(),
            pending_copies: None,
            step_under_way: None,
        })
    }

    /// The anneal of `checkpoint` (of this config: the fingerprints agree), with the engine
    /// holding its lattices, and where it stopped inside a step, at the step's beta. Refuses a
    /// checkpoint whose shape does not fit, and one cut inside a sweep where the engine updates
    /// whole sweeps only.
    fn resume(
        systems: Box<dyn AnnealedSystems>,
        config: &Config,
        annealing: &AnnealingOptions,
        checkpoint: AnnealingCheckpoint,
        engine: &mut dyn Engine,
    ) -> Result<Anneal> {
        let cut = SweepUnits::of(systems.as_ref(), engine.sweep_parts());
        let mut anneal = Anneal {
            populations: checkpoint.populations,
            systems,
            target: config.replicas,
            slots: AnnealingOptions::slots(config.replicas) as u32,
            sweeps_done: checkpoint.sweeps_done,
            schedule: checkpoint.schedule,
            pending_copies: None,
            step_under_way: None,
        };
        let steps = anneal.schedule.len();
        // Inside a step, the estimates and the whole steps' sweeps end with the step before.
        let (measured, units_done) = match &checkpoint.step_under_way {
            Some(step) => (steps.saturating_sub(1), step.units_done),
            None => (steps, 0),
        };
        let theta = u64::from(annealing.theta);
        let sweeps_before = measured as u64 * theta;
        let fits = anneal.systems.fits(&checkpoint.spins)
            && anneal.populations.len() == (config.samples * annealing.runs) as usize
            && anneal.sweeps_done == sweeps_before + units_done / cut.per_sweep()
            && units_done < theta * cut.per_sweep()
            && u32::try_from(sweeps_before + theta - 1).is_ok()
            && (checkpoint.step_under_way.as_ref())
                .is_none_or(|step| step.reweightings.len() == anneal.populations.len())
            && anneal.populations.iter().all(|p| {
                (1..=anneal.slots as usize).contains(&p.families.len())
                    && p.families.iter().all(|&f| f < anneal.target)
                    && p.estimates.len() == measured
                    && (annealing.reweighting.is_none() || histogram_holds_every_step(p, config))
            });
        if !fits {
            return Err(Error::State(format!(
                "the annealing checkpoint does not match the config ({steps} steps, {} sweeps \
                 and {units_done} units, {} populations, {} spins): finish that run with the \
                 version that started it",
                anneal.sweeps_done,
                anneal.populations.len(),
                checkpoint.spins.entries()
            )));
        }
        if !cut.is_plan_end(units_done) {
            return Err(Error::Usage(format!(
                "the annealing checkpoint was written inside a sweep ({units_done} units into \
                 step {steps}), which this engine cannot continue: it updates whole sweeps \
                 only; resume it with an engine that updates pieces of sweeps"
            )));
        }
        engine.set_spins(&anneal.systems.shaped(checkpoint.spins)?)?;
        // Between steps the engine stays at beta 0 for now: the next step's resampling moves
        // it to the next beta before any sweep, and measurements do not depend on it.
        if let Some(step) = checkpoint.step_under_way {
            populations_of(engine)?.set_betas(&[anneal.beta()])?;
            anneal.step_under_way = Some(OpenStep {
                record: StepRecord {
                    beta: anneal.beta(),
                    reweightings: step.reweightings,
                    ln_z: anneal.populations.iter().map(|p| p.ln_z).collect(),
                },
                first_sweep: sweeps_before as u32,
                units_done,
            });
        }
        Ok(anneal)
    }

    /// The current beta (0 before the first step).
    pub(super) fn beta(&self) -> f64 {
        self.schedule.last().copied().unwrap_or(0.0)
    }

    /// Temperature steps begun.
    pub(super) fn step(&self) -> u32 {
        self.schedule.len() as u32
    }

    /// The steps from where the anneal stands to the schedule's end: each in plans that
    /// `checkpoints.stops` paces, a checkpoint between steps where the config asks for one and
    /// a stop between any two plans; reporting each step to `progress`. The engine time they
    /// took, or where `halt_after` or a stop ended the run early.
    fn run_steps(
        &mut self,
        engine: &mut dyn Engine,
        annealing: &AnnealingOptions,
        checkpoints: &mut Checkpoints,
        progress: &Progress,
    ) -> Result<Ended<Duration>> {
        let mut engine_time = Duration::ZERO;
        let cut = SweepUnits::of(self.systems.as_ref(), engine.sweep_parts());
        let step_units = u64::from(annealing.theta) * cut.per_sweep();
        if self.counts_populations(annealing) {
            let sizes: Vec<u32> = self
                .populations
                .iter()
                .map(|p| p.families.len() as u32)
                .collect();
            populations_of(engine)?.count_populations(self.slots, &sizes)?;
        }
        let mut resumed = self.step_under_way.take();
        let (mut levels, mut next) = (Vec::new(), None);
        if resumed.is_none() {
            // A measurement reads the lattices only, so measuring a resumed population again
            // gives the energies it had when the checkpoint was written.
            levels = self.levels(&engine.execute(&measurement_plan())?);
            // The histograms start with the random population at beta 0, once: a resumed
            // anneal (always past a step) carries them in its checkpoint.
            if annealing.reweighting.is_some() && self.schedule.is_empty() {
                self.record_histograms(&levels);
            }
            next = next_beta(&annealing.schedule, self, &levels);
        }
        // A step's families (which follow its copies) and estimates (family statistics above
        // all: a pass over every replica) are made on another thread beside the next step's
        // first plan; they need only what that work leaves alone (the step's levels, records
        // and copies, the families before them). The next step's table needs only the sizes.
        let mut deferred: Option<StepRecord> = None;
        loop {
            let mut plan_began = Instant::now();
            let mut clock = PhaseClock::new();
            let mut step = match (resumed.take(), next) {
                (Some(step), _) => step,
                (None, Some(beta)) => self.begin_step(engine, annealing, &levels, beta)?,
                (None, None) => break,
            };
            clock.lap("resampling table, new betas");
            // The step's plans: the first holds its resampling step, the last its measurement.
            let (measurements, last_plan) = loop {
                let from = step.units_done;
                let to = cut.plan_end(&checkpoints.stops, from, step_units);
                let plan = self.step_plan(&step, from..to, (annealing.theta, cut))?;
                let started = Instant::now();
                let measured = self.execute_beside(engine, &plan, deferred.take(), &levels);
                engine_time += started.elapsed();
                let mut measurements = measured?;
                if from == 0 {
                    self.take_copies(std::mem::take(&mut measurements.copies))?;
                }
                step.units_done = to;
                self.sweeps_done = u64::from(step.first_sweep) + to / cut.per_sweep();
                if to == step_units {
                    break (measurements, to - from);
                }
                checkpoints.stops.plan_took(to - from, plan_began.elapsed());
                plan_began = Instant::now();
                if let Some(stop) = checkpoints.stops.due() {
                    self.step_under_way = Some(step);
                    return self.stop_inside_step(engine, checkpoints, stop);
                }
            };
            clock.lap(
                "resampling, sweeps and measurement (and the last step's families, estimates)",
            );
            levels = self.levels(&measurements);
            clock.lap("levels");
            if annealing.reweighting.is_some() {
                self.record_histograms(&levels);
            }
            next = next_beta(&annealing.schedule, self, &levels);
            clock.lap("histograms, next beta");
            progress.update(self.sweeps_done);
            checkpoints.stops.plan_took(last_plan, plan_began.elapsed());
            let first_sweep = u64::from(step.first_sweep);
            let stop = next.and_then(|_| checkpoints.stops.due());
            let checkpoint = next.is_some()
                && (crosses_checkpoint(first_sweep, self.sweeps_done, checkpoints.every)
                    || stop.is_some());
            // The overlaps complete this step's estimates, and a checkpoint or the end of the
            // schedule needs them: then they are made here.
            if annealing.overlaps || checkpoint || next.is_none() {
                self.settle_families();
                self.push_estimates(Some(self.estimates_of(&levels, &step.record)));
                if annealing.overlaps {
                    self.estimate_overlaps(&measurements, annealing.runs);
                }
                clock.lap("estimates");
            } else {
                deferred = Some(step.record);
            }
            clock.log(self.step());
            if checkpoint {
                let writing = Instant::now();
                self.save(checkpoints, engine.spins()?)?;
                checkpoints.stops.checkpoint_took(writing.elapsed());
                let halt_after = checkpoints.halt_after;
                if let Some(ended) = ended_at_checkpoint(stop, self.sweeps_done, halt_after) {
                    return Ok(ended);
                }
            }
        }
        Ok(Ended::Completed(engine_time))
    }

    /// Execute `plan` on `engine` while another thread settles the families and makes the
    /// estimates of the step `deferred` (its levels `levels`), if there is one.
    fn execute_beside(
        &mut self,
        engine: &mut dyn Engine,
        plan: &Plan,
        deferred: Option<StepRecord>,
        levels: &[PopulationLevels],
    ) -> Result<Measurements> {
        let (measurements, estimates) = std::thread::scope(|scope| {
            let this = &mut *self;
            let worker = scope.spawn(move || {
                this.settle_families();
                deferred.map(|record| this.estimates_of(levels, &record))
            });
            let measured = engine.execute(plan);
            (
                measured,
                worker.join().expect("families and estimates do not panic"),
            )
        });
        self.push_estimates(estimates);
        measurements
    }

    /// Stop for `stop` inside the step under way, between two of its plans: its checkpoint,
    /// with the families following its copies.
    fn stop_inside_step(
        &mut self,
        engine: &mut dyn Engine,
        checkpoints: &mut Checkpoints,
        stop: StopReason,
    ) -> Result<Ended<Duration>> {
        self.settle_families();
        let writing = Instant::now();
        self.save(checkpoints, engine.spins()?)?;
        checkpoints.stops.checkpoint_took(writing.elapsed());
        Ok(Ended::Stopped {
            sweeps_done: self.sweeps_done,
            reason: stop,
        })
    }

    /// Write the checkpoint of this state with the engine's lattices `spins`, atomically.
    fn save(&self, checkpoints: &Checkpoints, spins: Lattices) -> Result<()> {
        let step_under_way = self.step_under_way.as_ref().map(|step| StepUnderWay {
            units_done: step.units_done,
            reweightings: step.record.reweightings.clone(),
        });
        let checkpoint = AnnealingCheckpoint {
            config_fingerprint: checkpoints.fingerprint,
            sweeps_done: self.sweeps_done,
            schedule: self.schedule.clone(),
            spins,
            populations: self.populations.clone(),
            step_under_way,
        };
        let path = &checkpoints.path;
        checkpoint.save(path).map_err(|e| Error::io(path, e))
    }
}

/// Whether `population`'s histogram counts every replica of every step, beta 0's included.
fn histogram_holds_every_step(population: &Population, config: &Config) -> bool {
    let counted: u64 = population.histogram.counts.values().sum();
    let replicas = population.estimates.iter().map(|a| u64::from(a.population));
    counted == u64::from(config.replicas) + replicas.sum::<u64>()
}
