//! Population annealing (paper 001) on the simulation loop's machinery: the loop plans each
//! temperature step (the resampling step to the new beta, `theta` sweeps there, then a
//! measurement) for the engine to replay. Between steps the host turns the last measurement's
//! integer energies into each population's levels and the resampling table
//! ([`super::resampling`]); the engine decides every replica's copies from the table and
//! copies the lattices ([`crate::engine::annealing`]), the spins never leaving it.
//!
//! Populations: `runs` independent populations per disorder sample, each in its own block of
//! [`AnnealingOptions::slots`] engine replicas (`block = sample runs + run`; systems
//! `block slots + j`). A population of size `R_i` fills slots `0 .. R_i` of its block; the
//! others are idle (swept with the rest, never measured or copied from).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::resampling::{PopulationLevels, ResampleKey, Reweighting, adaptive_beta, copy_entries};
use super::{
    AnnealingAverage, AnnealingEstimates, AnnealingOverlaps, EnergyHistogram, Levels, PairOverlaps,
    Population, ReweightedAverage, average_over_runs, family_statistics, overlaps_over_samples,
    population_moments, reweighted_over_runs, weighted_over_runs,
};
use crate::config::{AnnealingOptions, AnnealingSchedule, Config, Disorder, Resampling};
use crate::engine::annealing::{ResamplingTable, TableHead};
use crate::engine::{Betas, Engine, EngineInfo, Measurements, Plan, SpinBits};
use crate::error::{Error, Result};
use crate::exact::{ExactIsing2d, kaufman};
use crate::io::checkpoint::{AnnealingCheckpoint, fingerprint};
use crate::io::output::{write_file, write_json};
use crate::io::run_dir::{
    CHECKPOINT, CONFIG, Ended, RunDescription, RunOptions, checkpoint_to_resume, crosses_checkpoint,
};
use crate::model::ising::IsingSystems;
use crate::model::ising::ising_systems;
use crate::mpi::open_engine_with_betas;
use crate::plot::write_annealing_plot;
use crate::stats::{Estimate, PlanePhases, independent_unit, overlap};
use crate::threads;

/// File names in the output directory.
const ANNEALING_JSON: &str = "annealing.json";
const ANNEALING_CSV: &str = "annealing.csv";
const POPULATIONS_CSV: &str = "annealing_populations.csv";
const REWEIGHTED_CSV: &str = "annealing_reweighted.csv";

/// `annealing.json`: the run, the schedule it took, and per beta the mean and error over the
/// independent populations (every run of every sample), with Kaufman's exact values where
/// they exist (2D ferromagnet, zero field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnnealingSummary {
    /// With `replicas` the target population size R.
    #[serde(flatten)]
    pub run: RunDescription,
    /// Engine replicas per population (R plus room for its fluctuations).
    pub slots: u32,
    pub runs: u32,
    pub theta: u32,
    pub resampling: String,
    /// The betas after 0, as configured or as the adaptive schedule chose them.
    pub schedule: Vec<f64>,
    pub ps_per_flip: f64,
    pub steps: Vec<AnnealingAverage>,
    /// Per beta, paper 001's free-energy-weighted average over the runs of each sample.
    #[serde(default)]
    pub weighted: Vec<AnnealingAverage>,
    /// Per beta, the spin-glass overlaps (with `overlaps: true`).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub overlaps: Vec<AnnealingOverlaps>,
    /// The multi-histogram estimates at the `reweighting` betas.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub reweighted: Vec<ReweightedAverage>,
    /// Kaufman's values at the `reweighting` betas, where they exist.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub reweighted_exact: Vec<ExactIsing2d>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub exact: Vec<ExactIsing2d>,
}

/// What the loop carries from one temperature step to the next; with the engine's spins, it
/// is what an [`AnnealingCheckpoint`] holds.
struct Anneal {
    systems: IsingSystems,
    /// The target population size R.
    target: u32,
    slots: u32,
    populations: Vec<Population>,
    sweeps_done: u64,
    /// The betas after 0 so far: the current beta is the last, the steps done its length.
    schedule: Vec<f64>,
    /// The copies of the last step's resampling while the families do not follow them yet
    /// (they follow beside the next step's engine work, [`Anneal::settle_families`]); the
    /// populations' sizes take them into account ([`Anneal::size`]).
    pending_copies: Option<PendingCopies>,
}

/// A resampling step's copies of every system, with the population sizes they make (summed
/// once: the table, the levels and the estimates each ask for them).
struct PendingCopies {
    copies: Vec<u32>,
    sizes: Vec<usize>,
}

/// Anneal `config` (validated, engine resolved), writing the results into `options.out`, or
/// continue the anneal of its checkpoint there (`options.resume`).
pub fn anneal(
    config: &Config,
    engine_choice: &str,
    options: &RunOptions,
    config_text: &str,
) -> Result<Ended<Box<AnnealingSummary>>> {
    let annealing = config
        .algorithm
        .annealing()
        .ok_or_else(|| Error::State("anneal needs algorithm: Annealing".into()))?;
    let view = annealing.engine_config(config)?;
    let systems = engine_systems(&view);
    let config_fingerprint = fingerprint(config_text);
    let resumed = match options.resume {
        true => Some(AnnealingCheckpoint::load(
            &checkpoint_to_resume(&options.out)?,
            config_fingerprint,
        )?),
        false => None,
    };
    let mut engine = open_engine_with_betas(&view, systems.clone(), Betas::Changing)?;
    write_file(&options.out, CONFIG, config_text.as_bytes())?;
    let mut anneal = match resumed {
        Some(checkpoint) => {
            Anneal::resume(systems, config, &annealing, checkpoint, engine.as_mut())?
        }
        None => Anneal::start(systems, config, &annealing, engine.as_mut())?,
    };
    let checkpoints = Checkpoints {
        path: options.out.join(CHECKPOINT),
        fingerprint: config_fingerprint,
        every: config.checkpoint_every,
        halt_after: options.halt_after,
    };
    let started = Instant::now();
    let first_sweep = anneal.sweeps_done;
    let Some(engine_time) = anneal.run_steps(engine.as_mut(), &annealing, &checkpoints)? else {
        return Ok(Ended::Halted {
            sweeps_done: anneal.sweeps_done,
        });
    };
    log::info!("annealed in {:.1} s", started.elapsed().as_secs_f64());
    anneal.save(&checkpoints, engine.spins()?)?;
    let n = anneal.systems.lattice.sites();
    let flips = (anneal.sweeps_done - first_sweep) * n * u64::from(anneal.systems.systems());
    let ps_per_flip = engine_time.as_secs_f64() * 1e12 / flips.max(1) as f64;
    let info = engine.info();
    let summary = summarize(
        config,
        &annealing,
        engine_choice,
        &anneal,
        info,
        ps_per_flip,
    );
    write_outputs(&options.out, config, &anneal, &summary)?;
    Ok(Ended::Completed(Box::new(summary)))
}

/// The systems an anneal's engine runs: those of its engine config
/// ([`AnnealingOptions::engine_config`]), at beta 0 until the first step.
pub fn engine_systems(view: &Config) -> IsingSystems {
    IsingSystems {
        betas: vec![0.0],
        ..ising_systems(view)
    }
}

/// Anneal `config` (validated, its algorithm `annealing`) on `engine`, opened on its
/// [`engine_systems`] for changing betas, from the hot start to the end of the schedule, with
/// no outputs and no checkpoints: the work `spinflip bench --annealing` times. The sweeps done.
pub fn anneal_engine(
    config: &Config,
    annealing: &AnnealingOptions,
    engine: &mut dyn Engine,
) -> Result<u64> {
    let systems = engine_systems(&annealing.engine_config(config)?);
    let mut anneal = Anneal::start(systems, config, annealing, engine)?;
    let none = Checkpoints {
        path: PathBuf::new(),
        fingerprint: 0,
        every: 0,
        halt_after: None,
    };
    anneal.run_steps(engine, annealing, &none)?;
    Ok(anneal.sweeps_done)
}

/// `annealing.json` of a finished anneal whose engine took `ps_per_flip` per spin-flip attempt
/// (this invocation's steps).
fn summarize(
    config: &Config,
    annealing: &AnnealingOptions,
    engine_choice: &str,
    anneal: &Anneal,
    info: EngineInfo,
    ps_per_flip: f64,
) -> AnnealingSummary {
    let estimates: Vec<Vec<AnnealingEstimates>> = anneal
        .populations
        .iter()
        .map(|p| p.estimates.clone())
        .collect();
    let lattice = anneal.systems.lattice;
    let runs = annealing.runs as usize;
    let overlaps = match annealing.overlaps {
        true => {
            let unit = independent_unit(&config.engine).0;
            overlaps_over_samples(
                &estimates,
                runs,
                unit.samples,
                lattice.sites(),
                lattice.size,
            )
        }
        false => Vec::new(),
    };
    let betas = reweighting_betas(annealing, &anneal.schedule);
    AnnealingSummary {
        run: RunDescription::new(config, info, engine_choice),
        slots: anneal.slots,
        runs: annealing.runs,
        theta: annealing.theta,
        resampling: format!("{:?}", annealing.resampling),
        schedule: anneal.schedule.clone(),
        ps_per_flip,
        steps: average_over_runs(&estimates),
        weighted: weighted_over_runs(&estimates, runs, lattice.sites()),
        overlaps,
        reweighted: reweighted_over_runs(
            &anneal.populations,
            anneal.target,
            &betas,
            lattice.sites(),
        ),
        reweighted_exact: exact_values(config, &betas),
        exact: exact_values(config, &anneal.schedule),
    }
}

/// The betas the multi-histogram reweighting reports: `points` of them evenly spread up to the
/// schedule's last beta, none without `reweighting`.
fn reweighting_betas(annealing: &AnnealingOptions, schedule: &[f64]) -> Vec<f64> {
    let (Some(points), Some(&last)) = (annealing.reweighting, schedule.last()) else {
        return Vec::new();
    };
    (1..=points)
        .map(|k| last * f64::from(k) / f64::from(points))
        .collect()
}

/// Where and when the anneal writes its checkpoints: after a step whose sweeps reach or pass a
/// multiple of `every` (the config's `checkpoint_every`, in sweeps as for the other
/// algorithms; 0: only at the end), unless it was the last step, whose checkpoint follows at
/// the end anyway. `halt_after` stops the run after such a checkpoint, as a killed run would.
struct Checkpoints {
    path: PathBuf,
    fingerprint: u64,
    every: u64,
    halt_after: Option<u64>,
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
    step: u32,
    last: Instant,
    laps: Vec<(&'static str, Duration)>,
}

impl PhaseClock {
    fn new(step: u32) -> Self {
        PhaseClock {
            step,
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

    fn log(&self) {
        if log::log_enabled!(log::Level::Debug) {
            let laps: Vec<String> = self
                .laps
                .iter()
                .map(|(name, t)| format!("{name} {:.2} ms", t.as_secs_f64() * 1e3))
                .collect();
            log::debug!("annealing step {}: {}", self.step, laps.join(", "));
        }
    }
}

impl Anneal {
    /// A fresh anneal: every population the whole initial one (its own family each) at beta 0,
    /// on the hot start.
    fn start(
        systems: IsingSystems,
        config: &Config,
        annealing: &AnnealingOptions,
        engine: &mut dyn Engine,
    ) -> Result<Anneal> {
        engine.hot_start()?;
        let ln_z = systems.lattice.sites() as f64 * std::f64::consts::LN_2;
        let population = Population {
            families: (0..config.replicas).collect(),
            ln_z,
            estimates: Vec::new(),
            histogram: EnergyHistogram::default(),
        };
        Ok(Anneal {
            populations: vec![population; (config.samples * annealing.runs) as usize],
            systems,
            target: config.replicas,
            slots: AnnealingOptions::slots(config.replicas) as u32,
            sweeps_done: 0,
            schedule: Vec::new(),
            pending_copies: None,
        })
    }

    /// The anneal of `checkpoint` (of this config: the fingerprints agree), with the engine
    /// holding its lattices. Refuses a checkpoint whose shape does not fit.
    fn resume(
        systems: IsingSystems,
        config: &Config,
        annealing: &AnnealingOptions,
        checkpoint: AnnealingCheckpoint,
        engine: &mut dyn Engine,
    ) -> Result<Anneal> {
        let anneal = Anneal {
            populations: checkpoint.populations,
            systems,
            target: config.replicas,
            slots: AnnealingOptions::slots(config.replicas) as u32,
            sweeps_done: checkpoint.sweeps_done,
            schedule: checkpoint.schedule,
            pending_copies: None,
        };
        let steps = anneal.schedule.len();
        let fits = checkpoint.spins.len() == anneal.systems.spin_count() as u64
            && anneal.populations.len() == (config.samples * annealing.runs) as usize
            && anneal.sweeps_done == steps as u64 * u64::from(annealing.theta)
            && anneal.populations.iter().all(|p| {
                (1..=anneal.slots as usize).contains(&p.families.len())
                    && p.families.iter().all(|&f| f < anneal.target)
                    && p.estimates.len() == steps
                    && (annealing.reweighting.is_none() || histogram_holds_every_step(p, config))
            });
        if !fits {
            return Err(Error::State(format!(
                "the annealing checkpoint does not match the config ({steps} steps, {} sweeps, \
                 {} populations, {} spins): finish that run with the version that started it",
                anneal.sweeps_done,
                anneal.populations.len(),
                checkpoint.spins.len()
            )));
        }
        // The engine stays at beta 0 for now: the next step's resampling moves it to the next
        // beta before any sweep, and measurements do not depend on it.
        let spins = checkpoint
            .spins
            .reshape(anneal.systems.systems(), anneal.systems.lattice.sites())?;
        engine.set_spins(&spins)?;
        Ok(anneal)
    }

    /// The current beta (0 before the first step).
    fn beta(&self) -> f64 {
        self.schedule.last().copied().unwrap_or(0.0)
    }

    /// Temperature steps done.
    fn step(&self) -> u32 {
        self.schedule.len() as u32
    }

    /// The steps from the current beta to the schedule's end, checkpointing between them:
    /// the engine time they took, or `None` where `halt_after` stopped the run.
    fn run_steps(
        &mut self,
        engine: &mut dyn Engine,
        annealing: &AnnealingOptions,
        checkpoints: &Checkpoints,
    ) -> Result<Option<Duration>> {
        let mut engine_time = Duration::ZERO;
        // A measurement reads the lattices only, so measuring a resumed population again
        // gives the energies it had when the checkpoint was written.
        if self.counts_populations(annealing) {
            let sizes: Vec<u32> = self
                .populations
                .iter()
                .map(|p| p.families.len() as u32)
                .collect();
            engine.count_populations(self.slots, &sizes)?;
        }
        let mut levels = self.levels(&engine.execute(&measurement_plan())?);
        // The histograms start with the random population at beta 0, once: a resumed anneal
        // (always past a step) carries them in its checkpoint.
        if annealing.reweighting.is_some() && self.schedule.is_empty() {
            self.record_histograms(&levels);
        }
        let mut next = next_beta(&annealing.schedule, self, &levels);
        // A step's families (which follow its copies) and estimates (family statistics above
        // all: a pass over every replica) are made on another thread beside the next step's
        // engine work; they need only what that work leaves alone (the step's levels, records
        // and copies, the families before them). The next step's table needs only the sizes.
        let mut deferred: Option<StepRecord> = None;
        while let Some(beta) = next {
            let mut clock = PhaseClock::new(self.step() + 1);
            let reweightings = self.resampling_table(engine, annealing, &levels, beta)?;
            clock.lap("resampling table, new betas");
            let from = self.sweeps_done;
            let plan = self.step_plan(annealing.theta)?;
            let step_started = Instant::now();
            let previous = deferred.take();
            let (measurements, estimates) = std::thread::scope(|scope| {
                let (this, levels) = (&mut *self, &levels);
                let worker = scope.spawn(move || {
                    this.settle_families();
                    previous.map(|record| this.estimates_of(levels, &record))
                });
                let measured = engine.execute(&plan);
                (
                    measured,
                    worker.join().expect("families and estimates do not panic"),
                )
            });
            engine_time += step_started.elapsed();
            self.push_estimates(estimates);
            let mut measurements = measurements?;
            clock.lap(
                "resampling, sweeps and measurement (and the last step's families, estimates)",
            );
            self.take_copies(std::mem::take(&mut measurements.copies))?;
            clock.lap("copies");
            levels = self.levels(&measurements);
            clock.lap("levels");
            if annealing.reweighting.is_some() {
                self.record_histograms(&levels);
            }
            next = next_beta(&annealing.schedule, self, &levels);
            clock.lap("histograms, next beta");
            let record = StepRecord {
                beta: self.beta(),
                reweightings,
                ln_z: self.populations.iter().map(|p| p.ln_z).collect(),
            };
            let checkpoint =
                next.is_some() && crosses_checkpoint(from, self.sweeps_done, checkpoints.every);
            // The overlaps complete this step's estimates, and a checkpoint or the end of the
            // schedule needs them: then they are made here.
            if annealing.overlaps || checkpoint || next.is_none() {
                self.settle_families();
                self.push_estimates(Some(self.estimates_of(&levels, &record)));
                if annealing.overlaps {
                    self.estimate_overlaps(&measurements, annealing.runs);
                }
                clock.lap("estimates");
            } else {
                deferred = Some(record);
            }
            clock.log();
            if checkpoint {
                self.save(checkpoints, engine.spins()?)?;
                if checkpoints
                    .halt_after
                    .is_some_and(|h| self.sweeps_done >= h)
                {
                    return Ok(None);
                }
            }
        }
        Ok(Some(engine_time))
    }

    /// Write the checkpoint of this state with the engine's lattices `spins`, atomically.
    fn save(&self, checkpoints: &Checkpoints, spins: SpinBits) -> Result<()> {
        let checkpoint = AnnealingCheckpoint {
            config_fingerprint: checkpoints.fingerprint,
            sweeps_done: self.sweeps_done,
            schedule: self.schedule.clone(),
            spins,
            populations: self.populations.clone(),
        };
        let path = &checkpoints.path;
        checkpoint.save(path).map_err(|e| Error::io(path, e))
    }

    /// First system of population `block`.
    fn base(&self, block: usize) -> usize {
        block * self.slots as usize
    }

    /// Whether the engine may measure the populations as histograms
    /// ([`Engine::count_populations`]): where nothing needs a replica's own counts (they are
    /// needed in a field, where the energy is not a function of the bond level, by multinomial
    /// resampling and by the overlaps) and the histograms are smaller than the populations.
    fn counts_populations(&self, annealing: &AnnealingOptions) -> bool {
        let lattice = self.systems.lattice;
        let bins = lattice.bonds() + lattice.sites() + 2;
        self.systems.field == 0.0
            && annealing.resampling != Resampling::Multinomial
            && !annealing.overlaps
            && bins <= u64::from(self.slots)
    }

    /// Every population's energy and magnetisation levels, from the engine's integer counts
    /// or its histograms.
    fn levels(&self, measurements: &Measurements) -> Vec<PopulationLevels> {
        if let Some(histograms) = &measurements.histograms {
            return (0..self.populations.len())
                .map(|b| {
                    let (satisfied, up) = histograms.of_block(b);
                    PopulationLevels::of_histograms(&self.systems, satisfied, up)
                })
                .collect();
        }
        (0..self.populations.len())
            .map(|block| {
                let observations = &measurements.observations[self.base(block)..];
                PopulationLevels::of(&self.systems, &observations[..self.size(block)])
            })
            .collect()
    }

    /// Take the copies `copies[system]` of each replica that the plan's resampling step made
    /// in every population, for the families to follow ([`Self::settle_families`]).
    fn take_copies(&mut self, copies: Vec<u32>) -> Result<()> {
        let slots = self.slots as usize;
        if copies.len() != self.populations.len() * slots {
            return Err(Error::State(format!(
                "the engine's resampling step returned {} copy counts for {} populations of {slots} slots",
                copies.len(),
                self.populations.len()
            )));
        }
        self.settle_families();
        let sizes = (self.populations.iter())
            .zip(copies.chunks(slots))
            .map(|(population, copies)| {
                let copies = &copies[..population.families.len()];
                copies.iter().map(|&n| n as usize).sum()
            })
            .collect();
        self.pending_copies = Some(PendingCopies { copies, sizes });
        Ok(())
    }

    /// Every new replica inherits its source's family, after the copies taken last.
    fn settle_families(&mut self) {
        let Some(PendingCopies { copies, .. }) = self.pending_copies.take() else {
            return;
        };
        let slots = self.slots as usize;
        for (population, copies) in self.populations.iter_mut().zip(copies.chunks(slots)) {
            let size = population.families.len();
            population.families = threads::repeat_by(&population.families, &copies[..size]);
        }
    }

    /// The size of population `block` after the copies taken last.
    fn size(&self, block: usize) -> usize {
        match &self.pending_copies {
            None => self.populations[block].families.len(),
            Some(pending) => pending.sizes[block],
        }
    }

    /// Add every population's energies to its histogram. Energies are integers at zero field
    /// (the only field `reweighting` takes): `E = -bond sum`.
    fn record_histograms(&mut self, levels: &[PopulationLevels]) {
        for (population, levels) in self.populations.iter_mut().zip(levels) {
            let energies = levels.energies.iter().map(|&e| e as i64);
            population
                .histogram
                .add_counts(energies.zip(levels.counts.iter().copied()));
        }
    }

    /// The overlaps at the current beta of every sample's run pairs: slot `j` of run `k <
    /// runs/2` with slot `j` of run `k + runs/2`, for every slot both populations fill, as the
    /// engine measures them (replica `r` with `r + replicas/2`, the runs' blocks being
    /// consecutive); recorded on run `k`.
    fn estimate_overlaps(&mut self, measurements: &Measurements, runs: u32) {
        let lattice = self.systems.lattice;
        let (n, size) = (lattice.sites(), lattice.size as usize);
        let phases = PlanePhases::new(lattice.size);
        let half = runs as usize / 2;
        // Overlaps per sample, pair `k slots + j` joining run k's slot j with run k + runs/2's.
        let pairs_per_sample = half * self.slots as usize;
        for block in 0..self.populations.len() {
            let (sample, run) = (block / runs as usize, block % runs as usize);
            if run >= half {
                continue;
            }
            let active = self.populations[block]
                .families
                .len()
                .min(self.populations[block + half].families.len());
            let first = sample * pairs_per_sample + run * self.slots as usize;
            let pairs = threads::from_fn(active, |j| {
                let o = first + j;
                let planes = &measurements.overlap_planes[o * size..][..size];
                let (differing, kmin) = phases.overlap_from_planes(planes, n);
                // q_l = 1 - 2 B_l / (d N): the overlap's formula over bonds.
                let link = overlap(measurements.link_overlaps[o] as i64, lattice.bonds());
                (overlap(differing, n), kmin, link)
            });
            let estimates = self.populations[block].estimates.last_mut();
            if let Some(last) = estimates {
                last.pairs = PairOverlaps::of_pairs(&pairs);
            }
        }
    }

    /// The resampling of every population from the current beta to `next`: its table goes to
    /// the engine for the next plan's resampling step, and the engine moves to `next`. The
    /// reweightings, for the estimates.
    fn resampling_table(
        &mut self,
        engine: &mut dyn Engine,
        options: &AnnealingOptions,
        levels: &[PopulationLevels],
        next: f64,
    ) -> Result<Vec<Reweighting>> {
        // The step to the k-th beta after 0 draws with step number k.
        let step = self.step() + 1;
        let beta = self.beta();
        let mut reweightings = Vec::with_capacity(self.populations.len());
        let mut table = ResamplingTable {
            keyed: levels[0].keyed,
            slots: self.slots,
            heads: Vec::with_capacity(levels.len()),
            entries: Vec::new(),
        };
        for (block, levels) in levels.iter().enumerate() {
            let reweighting = Reweighting::new(levels, next - beta);
            let key = ResampleKey {
                seed: self.systems.seed,
                step,
                block: block as u32,
            };
            let (keyed, entries) =
                copy_entries(options.resampling, levels, &reweighting, self.target, key);
            table.keyed = keyed;
            table.heads.push(TableHead {
                lo: levels.lo,
                len: entries.len() as u32,
                offset: table.entries.len() as u32,
                size: self.size(block) as u32,
                batch: block as u32,
            });
            table.entries.extend(entries);
            self.populations[block].ln_z += reweighting.ln_q;
            reweightings.push(reweighting);
        }
        engine.set_resampling(&table)?;
        engine.set_betas(&[next])?;
        self.schedule.push(next);
        Ok(reweightings)
    }

    /// The resampling step to the current beta, `theta` sweeps there, then a measurement. The
    /// sweeps number on from the previous step's, keying the Metropolis randoms.
    fn step_plan(&mut self, theta: u32) -> Result<Plan> {
        let mut plan = Plan::default();
        plan.resample(self.step())?;
        for _ in 0..theta {
            let sweep = u32::try_from(self.sweeps_done).map_err(|_| {
                Error::State(format!(
                    "population annealing: step {} passes {} sweeps, the range of the \
                     random-number counter; use fewer steps or a smaller theta",
                    self.step(),
                    u32::MAX
                ))
            })?;
            plan.sweep(sweep);
            self.sweeps_done += 1;
        }
        plan.measure();
        Ok(plan)
    }

    /// Every population's estimates at the step of `record`, from its levels `levels` and
    /// its families (those of the populations until the next step's copies).
    fn estimates_of(
        &self,
        levels: &[PopulationLevels],
        record: &StepRecord,
    ) -> Vec<AnnealingEstimates> {
        let (n, beta) = (self.systems.lattice.sites(), record.beta);
        let steps = levels.iter().zip(&record.reweightings).zip(&record.ln_z);
        let estimate =
            |((levels, reweighting), ln_z): ((&PopulationLevels, &Reweighting), &f64),
             population: &Population| {
                let energies = Levels {
                    values: &levels.energies,
                    counts: &levels.counts,
                };
                let magnetisations = Levels {
                    values: &levels.magnetisations,
                    counts: &levels.magnetisation_counts,
                };
                let [e, c, abs_m, m2, m4, u4] =
                    population_moments(beta, n, energies, magnetisations);
                let (families, rho_t, rho_s) = family_statistics(&population.families);
                let ln_z = ln_z / n as f64;
                let f = -ln_z / beta;
                AnnealingEstimates {
                    beta,
                    population: population.families.len() as u32,
                    e,
                    c,
                    abs_m,
                    m2,
                    m4,
                    u4,
                    ln_z,
                    f,
                    s: beta * (e - f),
                    overlap: reweighting.overlap,
                    effective_population: reweighting.effective_size,
                    families,
                    rho_t,
                    rho_s,
                    pairs: PairOverlaps::MISSING,
                }
            };
        steps
            .zip(&self.populations)
            .map(|(step, population)| estimate(step, population))
            .collect()
    }

    /// Append a step's estimates (one per population), if there are any.
    fn push_estimates(&mut self, estimates: Option<Vec<AnnealingEstimates>>) {
        for (population, estimate) in self
            .populations
            .iter_mut()
            .zip(estimates.into_iter().flatten())
        {
            population.estimates.push(estimate);
        }
    }
}

/// What a step's estimates need besides its levels and its populations' families: its beta,
/// its reweightings and every population's `ln Z` after it.
struct StepRecord {
    beta: f64,
    reweightings: Vec<Reweighting>,
    ln_z: Vec<f64>,
}

/// Whether `population`'s histogram counts every replica of every step, beta 0's included.
fn histogram_holds_every_step(population: &Population, config: &Config) -> bool {
    let counted: u64 = population.histogram.counts.values().sum();
    let replicas = population.estimates.iter().map(|a| u64::from(a.population));
    counted == u64::from(config.replicas) + replicas.sum::<u64>()
}

/// Kaufman's exact values at every beta of the schedule, for the 2D ferromagnet at zero field.
fn exact_values(config: &Config, schedule: &[f64]) -> Vec<ExactIsing2d> {
    let model = config.model;
    let exact =
        model.dims() == 2 && model.field() == 0.0 && model.disorder() == Disorder::Ferromagnet;
    match exact {
        true => schedule
            .iter()
            .map(|&beta| kaufman(model.size(), beta))
            .collect(),
        false => Vec::new(),
    }
}

/// `annealing.json`, `annealing.csv` (per beta, mean and error over populations, exact values
/// where known), `annealing_populations.csv` (per population and beta) and the plot.
fn write_outputs(
    out: &Path,
    config: &Config,
    anneal: &Anneal,
    summary: &AnnealingSummary,
) -> Result<()> {
    write_json(out, ANNEALING_JSON, summary)?;
    write_file(out, ANNEALING_CSV, averages_csv(summary).as_bytes())?;
    write_file(
        out,
        POPULATIONS_CSV,
        populations_csv(anneal, config.samples, !summary.overlaps.is_empty()).as_bytes(),
    )?;
    if !summary.reweighted.is_empty() {
        write_file(out, REWEIGHTED_CSV, reweighted_csv(summary).as_bytes())?;
    }
    if config.plots {
        write_annealing_plot(out, summary)?;
    }
    Ok(())
}

/// The terminal's table: per beta (at most [`TABLE_ROWS`], evenly spread over the schedule,
/// the last included) e, c and f with their errors, and the exact values where known.
pub fn annealing_table(summary: &AnnealingSummary) -> String {
    let steps = summary.steps.len();
    let stride = steps.div_ceil(TABLE_ROWS).max(1);
    let mut table = format!(
        "{:>10} {:>22} {:>22} {:>22} {:>11} {:>11} {:>11}\n",
        "beta", "e", "c", "f", "exact e", "exact c", "exact f"
    );
    let shown = (0..steps).filter(|k| k % stride == 0 || k + 1 == steps);
    for k in shown {
        let a = &summary.steps[k];
        let estimate = |x: Estimate| format!("{:.6} +- {:.6}", x.mean, x.err);
        let exact = summary
            .exact
            .get(k)
            .map_or([String::new(), String::new(), String::new()], |x| {
                [x.e, x.c, x.f].map(|v| format!("{v:.6}"))
            });
        table.push_str(&format!(
            "{:>10.6} {:>22} {:>22} {:>22} {:>11} {:>11} {:>11}\n",
            a.beta,
            estimate(a.e),
            estimate(a.c),
            estimate(a.f),
            exact[0],
            exact[1],
            exact[2]
        ));
    }
    table
}

/// Most rows of [`annealing_table`].
const TABLE_ROWS: usize = 20;

/// The columns of [`averages_csv`] for the nine estimates of an [`AnnealingAverage`], each
/// with its error, after `prefix`.
fn average_columns(prefix: &str) -> String {
    ["e", "c", "abs_m", "m2", "m4", "u4", "ln_z", "f", "s"]
        .iter()
        .map(|q| format!("{prefix}{q},{prefix}{q}_err"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Each estimate's mean, then its error.
fn estimate_values<const N: usize>(estimates: [Estimate; N]) -> impl Iterator<Item = String> {
    estimates
        .into_iter()
        .flat_map(|x| [x.mean.to_string(), x.err.to_string()])
}

/// An [`AnnealingAverage`]'s nine estimates and their errors, in [`average_columns`]' order.
fn average_values(a: &AnnealingAverage) -> impl Iterator<Item = String> {
    estimate_values([a.e, a.c, a.abs_m, a.m2, a.m4, a.u4, a.ln_z, a.f, a.s])
}

/// The overlap columns of [`averages_csv`].
const OVERLAP_COLUMNS: [&str; 7] = ["q2", "q4", "g", "chi_sg", "q2_kmin", "xi_over_l", "ql"];

/// Per beta: each estimate's mean and error over the populations, the weighted average over
/// runs (`w_` columns), the overlaps where measured, then the exact e, c, f.
fn averages_csv(summary: &AnnealingSummary) -> String {
    let mut header = vec![
        "beta,populations".to_string(),
        average_columns(""),
        average_columns("w_"),
    ];
    if !summary.overlaps.is_empty() {
        header.extend(OVERLAP_COLUMNS.map(|q| format!("{q},{q}_err")));
    }
    header.push("exact_e,exact_c,exact_f".to_string());
    let mut csv = header.join(",") + "\n";
    for (k, a) in summary.steps.iter().enumerate() {
        let exact = summary.exact.get(k);
        let mut row = vec![a.beta.to_string(), a.runs.to_string()];
        row.extend(average_values(a));
        row.extend(summary.weighted.get(k).into_iter().flat_map(average_values));
        if let Some(o) = summary.overlaps.get(k).map(|o| o.overlaps) {
            row.extend(estimate_values([
                o.q2,
                o.q4,
                o.g,
                o.chi_sg,
                o.q2_kmin,
                o.xi_over_l,
                o.ql,
            ]));
        }
        row.extend(exact_columns(exact));
        csv.push_str(&row.join(","));
        csv.push('\n');
    }
    csv
}

/// Kaufman's e, c, f, or empty columns.
fn exact_columns(exact: Option<&ExactIsing2d>) -> [String; 3] {
    [exact.map(|x| x.e), exact.map(|x| x.c), exact.map(|x| x.f)]
        .map(|x| x.map_or(String::new(), |x| x.to_string()))
}

/// Per reweighting beta: the multi-histogram e, c, ln Z/N, f (mean and error over the
/// populations), then the exact e, c, f.
fn reweighted_csv(summary: &AnnealingSummary) -> String {
    let mut csv = String::from(
        "beta,populations,e,e_err,c,c_err,ln_z,ln_z_err,f,f_err,exact_e,exact_c,exact_f\n",
    );
    for (k, a) in summary.reweighted.iter().enumerate() {
        let mut row = vec![a.beta.to_string(), a.runs.to_string()];
        row.extend(estimate_values([a.e, a.c, a.ln_z, a.f]));
        row.extend(exact_columns(summary.reweighted_exact.get(k)));
        csv.push_str(&row.join(","));
        csv.push('\n');
    }
    csv
}

/// Per population (sample, run) and beta, every estimate of [`AnnealingEstimates`] (the pair
/// overlaps with `overlaps`).
fn populations_csv(anneal: &Anneal, samples: u32, overlaps: bool) -> String {
    let runs = anneal.populations.len() as u32 / samples;
    let mut csv = String::from(
        "sample,run,beta,population,e,c,abs_m,m2,m4,u4,ln_z,f,s,overlap,effective_population,\
         families,rho_t,rho_s",
    );
    csv.push_str(if overlaps {
        ",q2,q4,q2_kmin,ql\n"
    } else {
        "\n"
    });
    for (block, population) in anneal.populations.iter().enumerate() {
        let (sample, run) = (block as u32 / runs, block as u32 % runs);
        for a in &population.estimates {
            let values = [
                a.beta,
                a.e,
                a.c,
                a.abs_m,
                a.m2,
                a.m4,
                a.u4,
                a.ln_z,
                a.f,
                a.s,
                a.overlap,
                a.effective_population,
            ];
            let mut row = vec![sample.to_string(), run.to_string()];
            row.extend(values[..1].iter().map(f64::to_string));
            row.push(a.population.to_string());
            row.extend(values[1..].iter().map(f64::to_string));
            row.extend([
                a.families.to_string(),
                a.rho_t.to_string(),
                a.rho_s.to_string(),
            ]);
            if overlaps {
                let pairs = a.pairs;
                row.extend([pairs.q2, pairs.q4, pairs.q2_kmin, pairs.ql].map(|x| x.to_string()));
            }
            csv.push_str(&row.join(","));
            csv.push('\n');
        }
    }
    csv
}
