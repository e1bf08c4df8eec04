//! The run loop: plan a chunk of sweeps, let the engine replay it, record the exact integer
//! observations, checkpoint, repeat; then write the series, the final lattices and the summary.

use rayon::prelude::*;
use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::Schedule;
use crate::config::{Config, Disorder, FinalState, Randoms};
use crate::engine::Engine;
use crate::engine::tempering::{Chains, Section};
use crate::engine::{EngineInfo, Measurements, SpinBits};
use crate::error::{Error, Result};
use crate::exact::{ExactIsing2d, kaufman};
use crate::io::checkpoint::{Checkpoint, fingerprint};
use crate::io::output::{
    OverlapRow, SeriesRow, overlaps_csv, samples_csv, series_csv, temperature_suffix, write_file,
    write_json, write_lattices_npy, write_npy_i8,
};
use crate::io::run_dir::{
    CHECKPOINT, CONFIG, Ended, FINAL_STATE, RunDescription, RunOptions, SUMMARY,
    checkpoint_to_resume, crosses_checkpoint,
};
use crate::model::couplings::coupling_values;
use crate::model::ising::IsingSystems;
use crate::model::ising::ising_systems;
use crate::mpi::open_engine;
use crate::stats::{
    EquilibrationCheck, IsingEstimates, PlanePhases, SampleSeries, SpinGlassEstimates, UnitSeries,
    independent_unit, ising_estimates, log_binning, overlap, spin_glass_estimates,
};
use crate::tempering::{
    LOW_ACCEPTANCE, TemperingDiagnostics, retune, round_trips_of, tempering_diagnostics,
    tuning_stops,
};

/// Chunks per run at least, so progress is reported as the run goes.
const MIN_CHUNKS: u64 = 100;
const COUPLINGS: &str = "couplings.npy";
const TEMPERATURE_HISTORY: &str = "temperature_history.csv";
const ROUND_TRIPS: &str = "round_trips.csv";

/// The results of one temperature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TemperatureSummary {
    #[serde(flatten)]
    pub estimates: IsingEstimates,
    /// Kaufman's exact finite-size values (2D, zero field only).
    pub exact: Option<ExactIsing2d>,
}

/// `summary.json`. Fields recorded since a later version (`#[serde(default)]`) default when
/// read back, so older summaries still load (`spinflip plot` reads them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    #[serde(flatten)]
    pub run: RunDescription,
    /// How the multispin engine drew its random numbers, and what that means for the lanes.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub randoms: Option<String>,
    /// What one independent unit of the errors is; every temperature's `units` counts them.
    #[serde(default)]
    pub independent_unit: String,
    pub sweeps: u64,
    pub measurements: u64,
    /// Spin-flip attempts per nanosecond of engine time (this invocation's part of the run;
    /// 0 when it ran no sweeps, as when resuming a finished run).
    pub flips_per_ns: f64,
    pub ps_per_flip: f64,
    /// The ferromagnet: per temperature, every replica's series together.
    pub runs: Vec<TemperatureSummary>,
    /// The Edwards-Anderson model: per temperature, averages over disorder samples.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub spin_glass: Vec<SpinGlassEstimates>,
    /// Parallel tempering: swap acceptance per pair and round trips.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tempering: Option<TemperingDiagnostics>,
    /// Measurements taken while thermalising (not in the estimates; in `thermalization_*.csv`).
    #[serde(default)]
    pub thermalization_measurements: u64,
    /// Per temperature, the logarithmic-binning equilibration check over the whole run.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub equilibration: Vec<EquilibrationCheck>,
}

/// The state a run carries between chunks; it is exactly what a checkpoint holds.
#[derive(Default)]
struct RunState {
    sweeps_done: u64,
    /// `[measurement][system]`.
    bond_sums: Vec<i64>,
    magnetisations: Vec<i64>,
    /// `[measurement][overlap]`: sites where the pair differs, `|q(k_min)|^2`, and bonds with
    /// `q_i q_j = -1`.
    overlaps: Vec<i64>,
    overlaps_kmin: Vec<f64>,
    link_overlaps: Vec<i64>,
    /// The ladder with tempering (tuned as the run goes, or as configured).
    betas: Vec<f64>,
    /// The engine's tempering state at the last checkpoint (empty without tempering).
    tempering: Vec<u32>,
    /// `[measurement][r][k]`: the walker at temperature `k` of chain `r` of sample 0.
    temperature_history: Vec<u32>,
}

/// Run the sweeps of `config` (validated, engine resolved; `config_text` its RON, whose
/// fingerprint the checkpoints carry), writing everything into `options.out`, or continue the
/// run of its checkpoint there (`options.resume`).
pub fn run_sweeps(
    config: &Config,
    engine_choice: &str,
    options: &RunOptions,
    config_text: &str,
) -> Result<Ended<Box<Summary>>> {
    let checkpoint_path = options.out.join(CHECKPOINT);
    let config_fingerprint = fingerprint(config_text);
    let mut systems = ising_systems(config);
    let schedule = Schedule::from(config);
    let (mut state, resumed) = if options.resume {
        let (state, spins) = resume_state(&options.out, config_fingerprint, &systems, &schedule)?;
        (state, Some(spins))
    } else {
        (RunState::default(), None)
    };
    if schedule.swap_every.is_some() {
        // A resumed run continues on its (possibly tuned) ladder.
        if state.betas.is_empty() {
            state.betas = systems.betas.clone();
        }
        systems.betas = state.betas.clone();
        if state.tempering.is_empty() {
            state.tempering = Chains::of(&systems).initial_state();
        }
    }
    let mut engine = open_engine(config, systems.clone())?;
    write_file(&options.out, CONFIG, config_text.as_bytes())?;
    // A fresh run's lattices are computed on the engine's device: they never exist on the host
    // before the first checkpoint.
    match resumed {
        Some(spins) => engine.set_spins(&spins)?,
        None => engine.hot_start()?,
    }
    if schedule.swap_every.is_some() {
        engine.set_tempering(&state.tempering)?;
    }
    let tuning_stops = match config.algorithm.tunes() {
        true => tuning_stops(schedule.thermalize),
        false => Vec::new(),
    };
    let info = engine.info();
    log::info!("running on {} ({})", info.adapter, info.backend);
    let flips_per_sweep = systems.lattice.sites() * u64::from(systems.systems());
    let progress = Progress::new(
        options.progress,
        schedule.total(),
        state.sweeps_done,
        flips_per_sweep,
    );
    let chunk = chunk_sweeps(
        &schedule,
        config.checkpoint_every,
        &systems,
        engine.max_plan_slots(),
    );
    let mut engine_time = Duration::ZERO;
    let first_sweep = state.sweeps_done;
    while state.sweeps_done < schedule.total() {
        let from = state.sweeps_done;
        let next_stop = tuning_stops.iter().copied().find(|&stop| stop > from);
        let to = (from + chunk)
            .min(schedule.total())
            .min(next_stop.unwrap_or(u64::MAX));
        let plan = schedule.plan(from, to);
        let started = Instant::now();
        let measurements = engine.execute(&plan)?;
        engine_time += started.elapsed();
        record(&systems, &measurements, &mut state);
        state.sweeps_done = to;
        progress.update(to);
        if next_stop == Some(to) {
            let stage_start = tuning_stops.iter().copied().rfind(|&stop| stop < to);
            let stage = (stage_start.unwrap_or(0), to);
            engine = retune_ladder(config, engine, &mut systems, &mut state, &schedule, stage)?;
        }
        if crosses_checkpoint(from, to, config.checkpoint_every) && to < schedule.total() {
            state.tempering = engine.tempering()?;
            save_checkpoint(
                &checkpoint_path,
                config_fingerprint,
                &state,
                engine.spins()?,
            )?;
            if options.halt_after.is_some_and(|h| to >= h) {
                progress.finish();
                return Ok(Ended::Halted { sweeps_done: to });
            }
        }
    }
    progress.finish();
    // One download of the final lattices serves the last checkpoint and the final state.
    state.tempering = engine.tempering()?;
    let checkpoint = save_checkpoint(
        &checkpoint_path,
        config_fingerprint,
        &state,
        engine.spins()?,
    )?;
    let series = RunSeries::new(&systems, &schedule, &state);
    let flips = (schedule.total() - first_sweep) * flips_per_sweep;
    let mut summary = summarize(
        config,
        engine_choice,
        &systems,
        &schedule,
        &series,
        &info,
        flips_per_ns(flips, engine_time),
    );
    if let Some(every) = schedule.swap_every {
        let chains = Chains::of(&systems);
        let frozen = tuning_stops.last().copied();
        let diagnostics = tempering_diagnostics(
            &chains,
            &state.tempering,
            &systems.betas,
            every,
            (frozen.unwrap_or(0), schedule.total()),
        );
        warn_about_tempering(&diagnostics);
        write_file(
            &options.out,
            TEMPERATURE_HISTORY,
            temperature_history_csv(&systems, &schedule, &state.temperature_history).as_bytes(),
        )?;
        write_file(
            &options.out,
            ROUND_TRIPS,
            round_trips_csv(&systems, &state.tempering, schedule.total()).as_bytes(),
        )?;
        summary.tempering = Some(diagnostics);
    }
    write_outputs(
        &options.out,
        &systems,
        &schedule,
        &series,
        &checkpoint.spins,
        &summary,
        (config.plots, config.final_state),
    )?;
    Ok(Ended::Completed(Box::new(summary)))
}

/// Sweeps per chunk: at most one checkpoint interval, a bounded number of measurements (and of
/// bytes of them), and a small fraction of the run so progress shows.
fn chunk_sweeps(
    schedule: &Schedule,
    checkpoint_every: u64,
    systems: &IsingSystems,
    max_slots: u64,
) -> u64 {
    let mut chunk = schedule.total().div_ceil(MIN_CHUNKS).max(1);
    chunk = chunk.min(schedule.most_sweeps_per_plan(systems, max_slots));
    if checkpoint_every > 0 {
        chunk = chunk.min(checkpoint_every);
    }
    chunk
}

fn resume_state(
    out: &Path,
    config_fingerprint: u64,
    systems: &IsingSystems,
    schedule: &Schedule,
) -> Result<(RunState, SpinBits)> {
    let path = checkpoint_to_resume(out)?;
    let checkpoint = Checkpoint::load(&path, config_fingerprint)?;
    let per_measurement = systems.systems() as usize;
    let measurements = schedule.measurements_before(checkpoint.sweeps_done) as usize;
    let expected_spins = systems.spin_count() as u64;
    let overlaps = measurements * systems.overlaps() as usize;
    let chains = Chains::of(systems);
    let (tempering, history) = match schedule.swap_every {
        Some(_) => (
            chains.state_words(),
            measurements * (systems.replicas * chains.temperatures) as usize,
        ),
        None => (0, 0),
    };
    if checkpoint.sweeps_done > schedule.total()
        || checkpoint.spins.len() != expected_spins
        || checkpoint.bond_sums.len() != measurements * per_measurement
        || checkpoint.magnetisations.len() != measurements * per_measurement
        || checkpoint.overlaps.len() != overlaps
        || checkpoint.overlaps_kmin.len() != overlaps
        || checkpoint.link_overlaps.len() != overlaps
        || checkpoint.tempering.len() != tempering
        || checkpoint.betas.len()
            != if tempering > 0 {
                systems.betas.len()
            } else {
                0
            }
        || checkpoint.temperature_history.len() != history
    {
        return Err(Error::State(format!(
            "checkpoint {} does not match the config (sweeps {}, {} spins, {} measurements; a \
             checkpoint of a spinflip that did not yet measure the thermalisation, or the link \
             overlap, has fewer: finish that run with the version that started it)",
            path.display(),
            checkpoint.sweeps_done,
            checkpoint.spins.len(),
            checkpoint.bond_sums.len() / per_measurement.max(1)
        )));
    }
    let state = RunState {
        sweeps_done: checkpoint.sweeps_done,
        bond_sums: checkpoint.bond_sums,
        magnetisations: checkpoint.magnetisations,
        overlaps: checkpoint.overlaps,
        overlaps_kmin: checkpoint.overlaps_kmin,
        link_overlaps: checkpoint.link_overlaps,
        betas: checkpoint.betas,
        tempering: checkpoint.tempering,
        temperature_history: checkpoint.temperature_history,
    };
    let spins = checkpoint
        .spins
        .reshape(systems.systems(), systems.lattice.sites())?;
    Ok((state, spins))
}

/// Write the checkpoint of `state` with the lattices `spins` atomically; returns it.
fn save_checkpoint(
    path: &Path,
    config_fingerprint: u64,
    state: &RunState,
    spins: SpinBits,
) -> Result<Checkpoint> {
    let checkpoint = Checkpoint {
        config_fingerprint,
        sweeps_done: state.sweeps_done,
        spins,
        bond_sums: state.bond_sums.clone(),
        magnetisations: state.magnetisations.clone(),
        overlaps: state.overlaps.clone(),
        overlaps_kmin: state.overlaps_kmin.clone(),
        link_overlaps: state.link_overlaps.clone(),
        betas: state.betas.clone(),
        tempering: state.tempering.clone(),
        temperature_history: state.temperature_history.clone(),
    };
    checkpoint.save(path).map_err(|e| Error::io(path, e))?;
    Ok(checkpoint)
}

/// Append a plan's measurements (slot-major) as bond sums, magnetisations and overlaps.
fn record(systems: &IsingSystems, measurements: &Measurements, state: &mut RunState) {
    let n = systems.lattice.sites();
    let bonds = systems.lattice.bonds() as i64;
    for o in &measurements.observations {
        state.magnetisations.push(2 * o.up as i64 - n as i64);
        state.bond_sums.push(2 * o.satisfied as i64 - bonds);
    }
    // Overlaps in parallel, in order: every measurement holds one per overlap pair.
    let phases = PlanePhases::new(systems.lattice.size);
    let overlaps: Vec<(i64, f64)> = measurements
        .overlap_planes
        .par_chunks_exact(systems.lattice.size as usize)
        .map(|planes| phases.overlap_from_planes(planes, n))
        .collect();
    state.overlaps.extend(overlaps.iter().map(|o| o.0));
    state.overlaps_kmin.extend(overlaps.iter().map(|o| o.1));
    let links = measurements.link_overlaps.iter();
    state.link_overlaps.extend(links.map(|&b| b as i64));
    state
        .temperature_history
        .extend_from_slice(&measurements.labels);
}

/// Every series of a run, `[temperature][sample]`, from the slot-major record: the first
/// `thermalization` measurements were taken while thermalising, the rest enter the estimates.
/// `production` holds the latter, split off once for the estimates and the outputs.
struct RunSeries {
    all: Vec<Vec<SampleSeries>>,
    thermalization: usize,
    production: Vec<Vec<SampleSeries>>,
}

impl RunSeries {
    /// The measurements while thermalising.
    fn thermalizing(&self) -> Vec<Vec<SampleSeries>> {
        self.part(0..self.thermalization)
    }

    fn part(&self, range: std::ops::Range<usize>) -> Vec<Vec<SampleSeries>> {
        let part = |samples: &Vec<SampleSeries>| {
            samples
                .iter()
                .map(|s| s.measurements(range.clone()))
                .collect()
        };
        self.all.iter().map(part).collect()
    }

    fn new(systems: &IsingSystems, schedule: &Schedule, state: &RunState) -> Self {
        let (temperatures, samples) = (systems.betas.len() as u32, systems.samples);
        let (replicas, pairs) = (systems.replicas as usize, systems.overlap_pairs() as usize);
        let per_measurement = systems.systems() as usize;
        let overlaps_per_measurement = systems.overlaps() as usize;
        let n = systems.lattice.sites();
        let series_of = |t: u32, s: u32| {
            let first = systems.system(t, s, 0) as usize;
            let mut series = SampleSeries {
                energies: vec![Vec::new(); replicas],
                magnetisations: vec![Vec::new(); replicas],
                overlaps: vec![Vec::new(); pairs],
                overlaps_kmin: vec![Vec::new(); pairs],
                link_overlaps: vec![Vec::new(); pairs],
            };
            for (bonds, ms) in state
                .bond_sums
                .chunks(per_measurement)
                .zip(state.magnetisations.chunks(per_measurement))
            {
                for r in 0..replicas {
                    let b = first + r;
                    series.energies[r].push(systems.energy(bonds[b], ms[b]));
                    series.magnetisations[r].push(ms[b]);
                }
            }
            let first_pair = (t * samples + s) as usize * pairs;
            let chunk = overlaps_per_measurement.max(1);
            for ((differing, kmin), links) in state
                .overlaps
                .chunks(chunk)
                .zip(state.overlaps_kmin.chunks(chunk))
                .zip(state.link_overlaps.chunks(chunk))
            {
                for p in 0..pairs {
                    series.overlaps[p].push(overlap(differing[first_pair + p], n));
                    series.overlaps_kmin[p].push(kmin[first_pair + p]);
                    // q_l = 1 - 2 B_l / (d N): the overlap's formula over bonds.
                    let link = overlap(links[first_pair + p], systems.lattice.bonds());
                    series.link_overlaps[p].push(link);
                }
            }
            series
        };
        let mut series = RunSeries {
            all: (0..temperatures)
                .map(|t| (0..samples).map(|s| series_of(t, s)).collect())
                .collect(),
            thermalization: schedule.thermalization_measurements() as usize,
            production: Vec::new(),
        };
        series.production = series.part(series.thermalization..usize::MAX);
        series
    }
}

fn summarize(
    config: &Config,
    engine_choice: &str,
    systems: &IsingSystems,
    schedule: &Schedule,
    series: &RunSeries,
    info: &EngineInfo,
    flips_per_ns: f64,
) -> Summary {
    let lattice = systems.lattice;
    let (unit, unit_description) = independent_unit(&config.engine);
    let temperatures = systems.betas.iter().zip(&series.production);
    let (runs, spin_glass) = match systems.disorder {
        Disorder::Ferromagnet => {
            let runs = temperatures
                .map(|(&beta, samples)| {
                    let exact = (lattice.dims == 2 && systems.field == 0.0)
                        .then(|| kaufman(lattice.size, beta));
                    let only = &samples[0];
                    let estimates = ising_estimates(
                        beta,
                        lattice.sites(),
                        &only.energies,
                        &only.magnetisations,
                        unit,
                    );
                    TemperatureSummary { estimates, exact }
                })
                .collect();
            (runs, Vec::new())
        }
        Disorder::Bimodal => {
            let spin_glass = temperatures
                .map(|(&beta, samples)| {
                    spin_glass_estimates(beta, lattice.sites(), lattice.size, samples, unit)
                })
                .collect();
            (Vec::new(), spin_glass)
        }
    };
    let ps_per_flip = if flips_per_ns > 0.0 {
        1000.0 / flips_per_ns
    } else {
        0.0
    };
    let randoms = match config.engine.multispin() {
        Some(options) if options.randoms == Randoms::Shared => Some(
            "shared: one uniform per word for all its lanes (papers 000/002); decisions of the \
             lanes of a word are correlated"
                .to_string(),
        ),
        Some(_) => Some("exact: an independent uniform per lane and decision".to_string()),
        None => None,
    };
    Summary {
        run: RunDescription::new(config, info.clone(), engine_choice),
        randoms,
        independent_unit: unit_description,
        sweeps: schedule.total(),
        measurements: schedule.measurements_before(schedule.total())
            - schedule.thermalization_measurements(),
        flips_per_ns,
        ps_per_flip,
        runs,
        spin_glass,
        tempering: None,
        thermalization_measurements: schedule.thermalization_measurements(),
        equilibration: equilibration_checks(systems, schedule, series),
    }
}

/// The logarithmic-binning check of every temperature over all measurements: the energy, and
/// the spin glass's `q^2` per sample or the ferromagnet's `|m|` per replica. Drift is logged.
fn equilibration_checks(
    systems: &IsingSystems,
    schedule: &Schedule,
    series: &RunSeries,
) -> Vec<EquilibrationCheck> {
    let second_name = match systems.disorder {
        Disorder::Bimodal => "q2",
        Disorder::Ferromagnet => "abs_m",
    };
    let checks: Vec<EquilibrationCheck> = systems
        .betas
        .iter()
        .zip(&series.all)
        .map(|(&beta, samples)| {
            let measurements = samples[0].energies[0].len() as u64;
            let sweeps: Vec<u64> = (0..measurements)
                .map(|m| schedule.sweep_of_measurement(m) + 1)
                .collect();
            let (energies, second) = unit_series(systems, samples);
            let mut observables = vec![UnitSeries {
                name: "e",
                units: &energies,
            }];
            if systems.overlap_pairs() > 0 || systems.disorder == Disorder::Ferromagnet {
                observables.push(UnitSeries {
                    name: second_name,
                    units: &second,
                });
            }
            // Errors need at least two independent units.
            (energies.len() > 1).then(|| log_binning(beta, &sweeps, &observables))
        })
        .collect::<Option<Vec<_>>>()
        .unwrap_or_default();
    for check in checks.iter().filter(|c| !c.stable) {
        log::warn!(
            "equilibration: at beta {} the averages over the last logarithmic bins of sweeps \
             differ ({}); do not trust these results before a longer run agrees",
            check.beta,
            check.drift
        );
    }
    checks
}

/// Per independent unit of one temperature, at every measurement: `e` and the second observable
/// of the check. The spin glass's units are samples (replicas and overlap pairs averaged), the
/// ferromagnet's replicas (`|m|`).
fn unit_series(systems: &IsingSystems, samples: &[SampleSeries]) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let n = systems.lattice.sites() as f64;
    let mean = |values: Vec<f64>| values.iter().sum::<f64>() / values.len().max(1) as f64;
    match systems.disorder {
        Disorder::Bimodal => samples
            .iter()
            .map(|s| {
                (0..s.energies[0].len())
                    .map(|m| {
                        let e = mean(s.energies.iter().map(|r| r[m] / n).collect());
                        let q2 = mean(s.overlaps.iter().map(|p| p[m] * p[m]).collect());
                        (e, q2)
                    })
                    .unzip()
            })
            .unzip(),
        Disorder::Ferromagnet => samples[0]
            .energies
            .iter()
            .zip(&samples[0].magnetisations)
            .map(|(e, m)| {
                let e = e.iter().map(|x| x / n).collect();
                let m = m.iter().map(|&x| (x as f64 / n).abs()).collect();
                (e, m)
            })
            .unzip(),
    }
}

/// At the end of tuning stage `(from, to)`: move the ladder towards equal swap acceptance over
/// the stage, reset the acceptance counts for the next, and reopen the engine on the new ladder
/// with the same spins and tempering state.
fn retune_ladder(
    config: &Config,
    mut engine: Box<dyn Engine>,
    systems: &mut IsingSystems,
    state: &mut RunState,
    schedule: &Schedule,
    (from, to): (u64, u64),
) -> Result<Box<dyn Engine>> {
    let every = schedule.swap_every.expect("tuning needs tempering");
    let chains = Chains::of(systems);
    state.tempering = engine.tempering()?;
    let stage = tempering_diagnostics(&chains, &state.tempering, &systems.betas, every, (from, to));
    systems.betas = retune(&systems.betas, &stage.acceptance);
    log::info!(
        "tempering: ladder tuned after sweep {to} (acceptance {:?}): betas {:?}",
        stage.acceptance,
        systems.betas
    );
    let accepted = chains.index(Section::Accepted, 0, 0);
    state.tempering[accepted..].fill(0);
    state.betas = systems.betas.clone();
    let spins = engine.spins()?;
    drop(engine);
    let mut engine = open_engine(config, systems.clone())?;
    engine.set_spins(&spins)?;
    engine.set_tempering(&state.tempering)?;
    Ok(engine)
}

/// Log what makes a tempering run untrustworthy: pairs that hardly swap, chains that never
/// crossed the ladder.
fn warn_about_tempering(d: &TemperingDiagnostics) {
    for (k, &a) in d.acceptance.iter().enumerate() {
        if a < LOW_ACCEPTANCE {
            log::warn!(
                "tempering: swaps between beta {} and {} were accepted {:.1}% of the time; \
                 add temperatures between them",
                d.betas[k],
                d.betas[k + 1],
                100.0 * a
            );
        }
    }
    if d.chain_sets_without_round_trip > 0 {
        log::warn!(
            "tempering: {} chain sets had no walker cross the ladder and back (round trip); \
             their low-temperature results may not be in equilibrium: run longer",
            d.chain_sets_without_round_trip
        );
    }
}

/// `temperature_history.csv`: at each measurement, the temperature of every walker of every
/// chain of sample 0.
fn temperature_history_csv(systems: &IsingSystems, schedule: &Schedule, history: &[u32]) -> String {
    use std::fmt::Write as _;
    let temperatures = systems.betas.len();
    let mut csv = String::from("measurement,sweep,chain,walker,temperature_index,beta\n");
    let per_measurement = systems.replicas as usize * temperatures;
    for (m, labels) in history.chunks(per_measurement.max(1)).enumerate() {
        let sweep = schedule.sweep_of_measurement(m as u64) + 1;
        for (r, walkers) in labels.chunks(temperatures).enumerate() {
            for (k, walker) in walkers.iter().enumerate() {
                let beta = systems.betas[k];
                let _ = writeln!(csv, "{m},{sweep},{r},{walker},{k},{beta}");
            }
        }
    }
    csv
}

/// `round_trips.csv`: per chain (sample, replica) the round trips of its walkers and the sweeps
/// per round trip (`sweeps x walkers / trips`, empty without any).
fn round_trips_csv(systems: &IsingSystems, state: &[u32], sweeps: u64) -> String {
    use std::fmt::Write as _;
    let chains = Chains::of(systems);
    let mut csv = String::from("sample,chain,round_trips,sweeps_per_round_trip\n");
    for c in 0..chains.sets {
        let trips = round_trips_of(&chains, state, c);
        let per_trip = match trips {
            0 => String::new(),
            _ => format!(
                "{}",
                (sweeps * u64::from(chains.temperatures)) as f64 / trips as f64
            ),
        };
        let (sample, chain) = (c / systems.replicas, c % systems.replicas);
        let _ = writeln!(csv, "{sample},{chain},{trips},{per_trip}");
    }
    csv
}

/// Spin-flip attempts per nanosecond. A resumed run that was already complete ran no sweeps:
/// it reports no rate (0) rather than 0/0.
fn flips_per_ns(flips: u64, time: Duration) -> f64 {
    match flips {
        0 => 0.0,
        _ => flips as f64 / (time.as_secs_f64() * 1e9).max(f64::MIN_POSITIVE),
    }
}

/// The CSV rows of one temperature's series (every sample and replica, measurement-major) and
/// of its overlaps; measurement `m` followed sweep `sweep_of(m)`.
fn series_rows(
    samples: &[SampleSeries],
    disordered: bool,
    sweep_of: impl Fn(usize) -> u64,
) -> (Vec<SeriesRow>, Vec<OverlapRow>) {
    let mut rows = Vec::new();
    let mut overlap_rows = Vec::new();
    for m in 0..samples[0].energies[0].len() {
        for (s, sample) in samples.iter().enumerate() {
            for (r, (energies, magnetisations)) in sample
                .energies
                .iter()
                .zip(&sample.magnetisations)
                .enumerate()
            {
                rows.push(SeriesRow {
                    measurement: m as u64,
                    sweep: sweep_of(m),
                    sample: disordered.then_some(s as u32),
                    replica: r as u32,
                    energy: energies[m],
                    magnetisation: magnetisations[m],
                });
            }
            for (p, ((q, kmin), links)) in sample
                .overlaps
                .iter()
                .zip(&sample.overlaps_kmin)
                .zip(&sample.link_overlaps)
                .enumerate()
            {
                overlap_rows.push(OverlapRow {
                    measurement: m as u64,
                    sweep: sweep_of(m),
                    sample: s as u32,
                    pair: p as u32,
                    q: q[m],
                    q2_kmin: kmin[m],
                    q_link: links[m],
                });
            }
        }
    }
    (rows, overlap_rows)
}

fn write_outputs(
    out: &Path,
    systems: &IsingSystems,
    schedule: &Schedule,
    series: &RunSeries,
    spins: &SpinBits,
    summary: &Summary,
    (plots, final_state): (bool, FinalState),
) -> Result<()> {
    let disordered = systems.disorder == Disorder::Bimodal;
    let sweep_of = |m: usize| schedule.sweep_of_measurement(m as u64) + 1;
    let sites = systems.lattice.sites();
    let thermalizing = series.thermalizing();
    for (t, (beta, samples)) in systems.betas.iter().zip(&series.production).enumerate() {
        let after = |m: usize| sweep_of(m + series.thermalization);
        let (rows, overlap_rows) = series_rows(samples, disordered, after);
        let (thermalization_rows, _) = series_rows(&thermalizing[t], disordered, sweep_of);
        let suffix = temperature_suffix(t, *beta, "csv");
        write_file(
            out,
            &format!("timeseries_{suffix}"),
            series_csv(&rows, sites).as_bytes(),
        )?;
        write_file(
            out,
            &format!("thermalization_{suffix}"),
            series_csv(&thermalization_rows, sites).as_bytes(),
        )?;
        if disordered {
            write_file(
                out,
                &format!("overlaps_{suffix}"),
                overlaps_csv(&overlap_rows).as_bytes(),
            )?;
            let per_sample = &summary.spin_glass[t].per_sample;
            write_file(
                out,
                &format!("samples_{suffix}"),
                samples_csv(per_sample).as_bytes(),
            )?;
        }
    }
    let lattice = systems.lattice;
    let lattice_shape = vec![lattice.size as usize; lattice.dims as usize];
    let mut shape = vec![systems.betas.len()];
    if disordered {
        shape.push(systems.samples as usize);
    }
    shape.push(systems.replicas as usize);
    shape.extend(&lattice_shape);
    let path = out.join(FINAL_STATE);
    write_lattices_npy(&path, &shape, spins, final_state.packed(spins.len()))
        .map_err(|e| Error::io(path, e))?;
    if disordered {
        let mut shape = vec![systems.samples as usize];
        shape.extend(&lattice_shape);
        shape.push(lattice.dims as usize);
        let couplings = (0..systems.samples)
            .flat_map(|s| coupling_values(systems.disorder, &lattice, systems.seed, s));
        // Streamed: all samples' bonds as int8 are 6 GiB for 1024 samples of a 128^3 lattice.
        let path = out.join(COUPLINGS);
        write_npy_i8(&path, &shape, couplings).map_err(|e| Error::io(path, e))?;
    }
    if plots {
        crate::plot::write_run_plots(out, summary, &series.all, sweep_of, spins)?;
    }
    write_json(out, SUMMARY, summary)
}

/// A progress bar on a terminal, plain log lines otherwise (one per chunk, about every 1% of
/// the run), both with the rate and the time left.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    enabled: bool,
    total: u64,
    /// Sweeps done when this invocation started: the rate counts only the sweeps since.
    first: u64,
    flips_per_sweep: u64,
    started: Instant,
}

impl Progress {
    fn new(enabled: bool, total: u64, done: u64, flips_per_sweep: u64) -> Self {
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(total);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:40}] {pos}/{len} sweeps, {msg}, eta {eta}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar.set_message("? flips/ns");
            bar.set_position(done);
            bar
        });
        Progress {
            bar,
            enabled,
            total,
            first: done,
            flips_per_sweep,
            started: Instant::now(),
        }
    }

    fn update(&self, done: u64) {
        let elapsed = self.started.elapsed();
        match &self.bar {
            Some(bar) => {
                bar.set_message(format!("{:.3} flips/ns", self.rate(done, elapsed)));
                bar.set_position(done);
            }
            None if self.enabled => eprintln!("{}", self.log_line(done, elapsed)),
            None => {}
        }
    }

    /// Spin-flip attempts per nanosecond of this invocation so far (wall time).
    fn rate(&self, done: u64, elapsed: Duration) -> f64 {
        flips_per_ns((done - self.first) * self.flips_per_sweep, elapsed)
    }

    /// The line printed without a terminal.
    fn log_line(&self, done: u64, elapsed: Duration) -> String {
        format!(
            "spinflip: {done}/{} sweeps ({:.0}%), {:.1} s, {:.3} flips/ns, {} left",
            self.total,
            100.0 * done as f64 / self.total as f64,
            elapsed.as_secs_f64(),
            self.rate(done, elapsed),
            self.time_left(done, elapsed)
        )
    }

    /// The time the remaining sweeps take at this invocation's pace so far, in words.
    fn time_left(&self, done: u64, elapsed: Duration) -> String {
        if done <= self.first {
            return "unknown time".to_string();
        }
        let seconds =
            elapsed.as_secs_f64() * (self.total - done) as f64 / (done - self.first) as f64;
        match seconds {
            s if s < 120.0 => format!("about {s:.0} s"),
            s if s < 7200.0 => format!("about {:.0} min", s / 60.0),
            s => format!("about {:.1} h", s / 3600.0),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}

/// A table of the summary for the terminal: estimates with errors, and exact values where known.
pub fn summary_table(summary: &Summary) -> String {
    use std::fmt::Write as _;
    let mut table = format!(
        "{} L={} on {} ({}, {}), {:.3} flips/ns\n",
        summary.run.model,
        summary.run.size,
        summary.run.adapter,
        summary.run.backend,
        summary.run.engine,
        summary.flips_per_ns,
    );
    if !summary.equilibration.is_empty() {
        let stable = summary.equilibration.iter().filter(|c| c.stable).count();
        let _ = writeln!(
            table,
            "equilibration (logarithmic bins): {stable} of {} temperatures stable",
            summary.equilibration.len()
        );
    }
    if let Some(t) = &summary.tempering {
        let (low, high) = t
            .acceptance
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(l, h), &a| (l.min(a), h.max(a)));
        let _ = writeln!(
            table,
            "tempering: a swap round every {} sweeps, {} rounds; swap acceptance {:.3}..{:.3} \
             over {} pairs; {} round trips{}",
            t.every,
            t.rounds,
            low,
            high,
            t.acceptance.len(),
            t.round_trips,
            t.sweeps_per_round_trip
                .map_or(String::new(), |s| format!(" ({s:.0} sweeps each)"))
        );
    }
    let pm = |e: &crate::stats::Estimate| format!("{:.7} ± {:.7}", e.mean, e.err);
    if !summary.spin_glass.is_empty() {
        let _ = writeln!(
            table,
            "{} samples; errors from the spread over samples\n{:>9} {:>24} {:>22} {:>20} {:>20} {:>20}",
            summary.run.samples, "beta", "e", "c", "q2", "g", "xi_L/L"
        );
        for t in &summary.spin_glass {
            let _ = writeln!(
                table,
                "{:>9.6} {:>24} {:>22} {:>20} {:>20} {:>20}",
                t.beta,
                pm(&t.e),
                pm(&t.c),
                pm(&t.q2),
                pm(&t.g),
                pm(&t.xi_over_l)
            );
        }
        return table;
    }
    let _ = writeln!(
        table,
        "{:>9} {:>24} {:>13} {:>22} {:>13} {:>20} {:>20} {:>8}",
        "beta", "e", "e exact", "c", "c exact", "|m|", "U4", "tau_e"
    );
    for run in &summary.runs {
        let est = &run.estimates;
        let (e_exact, c_exact) = run.exact.map_or(("-".to_string(), "-".to_string()), |x| {
            (format!("{:.8}", x.e), format!("{:.8}", x.c))
        });
        let _ = writeln!(
            table,
            "{:>9.6} {:>24} {:>13} {:>22} {:>13} {:>20} {:>20} {:>8.2}",
            est.beta,
            pm(&est.e),
            e_exact,
            pm(&est.c),
            c_exact,
            pm(&est.abs_m),
            pm(&est.u4),
            est.tau_e
        );
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Observation;
    use crate::model::Lattice;

    /// A 65536^2 lattice (2^32 sites, 2^33 bonds) with every spin up: the recorded integers and
    /// the energy do not wrap.
    #[test]
    fn record_holds_counts_past_u32() {
        let lattice = Lattice::new(2, 65536);
        let systems = IsingSystems::ferromagnet(lattice, 0.5, vec![0.4], 1, 1);
        let measurements = Measurements {
            observations: vec![Observation {
                up: 1 << 32,
                satisfied: 1 << 33,
            }],
            ..Measurements::default()
        };
        let mut state = RunState::default();
        record(&systems, &measurements, &mut state);
        assert_eq!(state.magnetisations, vec![1 << 32]);
        assert_eq!(state.bond_sums, vec![1 << 33]);
        let energy = systems.energy(state.bond_sums[0], state.magnetisations[0]);
        assert_eq!(energy, -(2.0f64.powi(33)) - 0.5 * 2.0f64.powi(32));
        assert_eq!(overlap(1 << 31, lattice.sites()), 0.0);
    }

    /// A resumed run (200 of 1000 sweeps done before) of 10^6 flips per sweep: 400 more sweeps
    /// in 2 s are 0.2 flips/ns, and the other 400 take 2 s more.
    #[test]
    fn progress_lines_show_the_rate_and_the_time_left() {
        let progress = Progress::new(false, 1000, 200, 1_000_000);
        let line = progress.log_line(600, Duration::from_secs(2));
        assert_eq!(
            line,
            "spinflip: 600/1000 sweeps (60%), 2.0 s, 0.200 flips/ns, about 2 s left"
        );
        let slow = progress.log_line(201, Duration::from_secs(100));
        assert!(slow.ends_with("about 22.2 h left"), "{slow}");
        let start = progress.log_line(200, Duration::ZERO);
        assert!(
            start.ends_with("0.000 flips/ns, unknown time left"),
            "{start}"
        );
    }

    #[test]
    fn chunks_of_a_large_lattice_fit_the_measurement_budget() {
        let lattice = Lattice::new(2, 65536);
        let systems = IsingSystems::spin_glass(lattice, 0.0, vec![0.4], 1, 2, 1);
        let schedule = Schedule::from(&crate::config::Sweeps {
            thermalize: 10,
            measure: 1000,
            every: 1,
        });
        assert!(chunk_sweeps(&schedule, 0, &systems, u64::MAX) >= 1);
    }
}
