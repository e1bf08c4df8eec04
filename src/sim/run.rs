//! The run loop: plan a chunk of sweeps, let the engine replay it, record the exact integer
//! observations, checkpoint, repeat; then write the series, the final lattices and the summary.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{Schedule, initial_spins, ising_systems, open_engine};
use crate::config::Config;
use crate::engine::{EngineInfo, Observation};
use crate::error::{Error, Result};
use crate::exact::{ExactIsing2d, kaufman};
use crate::io::atomic::ensure_writable_dir;
use crate::io::checkpoint::{Checkpoint, fingerprint};
use crate::io::output::{SeriesRow, npy_i8, series_csv, write_file, write_json};
use crate::model::ising::IsingSystems;
use crate::stats::{IsingEstimates, ising_estimates};

/// Most measurement slots one plan fills (bounds the observation buffer).
const MAX_SLOTS_PER_CHUNK: u64 = 4096;
/// Chunks per run at least, so progress is reported as the run goes.
const MIN_CHUNKS: u64 = 100;
/// File names in the output directory.
const CHECKPOINT: &str = "checkpoint.bin";
const CONFIG: &str = "config.ron";
const SUMMARY: &str = "summary.json";
const FINAL_STATE: &str = "final_state.npy";

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Output directory (created if missing).
    pub out: PathBuf,
    /// Continue from `out/checkpoint.bin`.
    pub resume: bool,
    /// Show a progress bar (on a terminal) or log lines.
    pub progress: bool,
    /// Stop after a checkpoint at or past this many sweeps, as a killed run would (tests).
    pub halt_after: Option<u64>,
    /// Start afresh even where `out` already holds a run's checkpoint.
    pub overwrite: bool,
}

impl RunOptions {
    /// A fresh, quiet run into `out`.
    pub fn new(out: impl Into<PathBuf>) -> Self {
        RunOptions {
            out: out.into(),
            resume: false,
            progress: false,
            halt_after: None,
            overwrite: false,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RunOutcome {
    Completed(Summary),
    Halted { sweeps_done: u64 },
}

/// The results of one temperature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TemperatureSummary {
    #[serde(flatten)]
    pub estimates: IsingEstimates,
    /// Kaufman's exact finite-size values (2D, zero field only).
    pub exact: Option<ExactIsing2d>,
}

/// `summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub spinflip_version: String,
    pub backend: String,
    pub adapter: String,
    pub engine: String,
    pub model: String,
    pub dims: u32,
    pub size: u32,
    pub field: f64,
    pub replicas: u32,
    pub seed: u64,
    pub sweeps: u64,
    pub measurements: u64,
    /// Spin-flip attempts per nanosecond of engine time (this invocation's part of the run;
    /// 0 when it ran no sweeps, as when resuming a finished run).
    pub flips_per_ns: f64,
    pub ps_per_flip: f64,
    pub runs: Vec<TemperatureSummary>,
}

/// The state a run carries between chunks; it is exactly what a checkpoint holds.
struct RunState {
    sweeps_done: u64,
    bond_sums: Vec<i64>,
    magnetisations: Vec<i64>,
}

/// Run `config`, writing everything into `options.out`.
pub fn run(config: &Config, options: &RunOptions) -> Result<RunOutcome> {
    config.validate()?;
    ensure_writable_dir(&options.out).map_err(|e| Error::Usage(e.to_string()))?;
    let config_text = config.to_ron_string();
    let config_fingerprint = fingerprint(&config_text);
    let systems = ising_systems(config);
    let schedule = Schedule::from(&config.sweeps);
    let checkpoint_path = options.out.join(CHECKPOINT);
    if !options.resume && !options.overwrite && checkpoint_path.exists() {
        return Err(Error::Usage(format!(
            "{} already holds a run ({CHECKPOINT}); continue it with --resume, or start over with --force",
            options.out.display()
        )));
    }
    let mut engine = open_engine(config, systems.clone())?;
    let (mut state, spins) = if options.resume {
        resume_state(&options.out, config_fingerprint, &systems, &schedule)?
    } else {
        (
            RunState {
                sweeps_done: 0,
                bond_sums: Vec::new(),
                magnetisations: Vec::new(),
            },
            initial_spins(&systems),
        )
    };
    write_file(&options.out, CONFIG, config_text.as_bytes())?;
    engine.set_spins(&spins)?;
    let info = engine.info();
    log::info!("running on {} ({})", info.adapter, info.backend);
    let progress = Progress::new(options.progress, schedule.total(), state.sweeps_done);
    let chunk = chunk_sweeps(&schedule, config.checkpoint_every);
    let mut engine_time = Duration::ZERO;
    let first_sweep = state.sweeps_done;
    while state.sweeps_done < schedule.total() {
        let from = state.sweeps_done;
        let to = (from + chunk).min(schedule.total());
        let plan = schedule.plan(from, to);
        let started = Instant::now();
        let observations = engine.execute(&plan)?;
        engine_time += started.elapsed();
        record(&systems, &observations.observations, &mut state);
        state.sweeps_done = to;
        progress.update(to);
        if crosses_checkpoint(from, to, config.checkpoint_every) && to < schedule.total() {
            save_checkpoint(
                &checkpoint_path,
                config_fingerprint,
                &state,
                engine.spins()?,
            )?;
            if options.halt_after.is_some_and(|h| to >= h) {
                progress.finish();
                return Ok(RunOutcome::Halted { sweeps_done: to });
            }
        }
    }
    progress.finish();
    // One download of the final lattices serves the last checkpoint and the final state.
    let checkpoint = save_checkpoint(
        &checkpoint_path,
        config_fingerprint,
        &state,
        engine.spins()?,
    )?;
    let series: Vec<_> = (0..systems.betas.len())
        .map(|t| series_of(&systems, &state, t))
        .collect();
    let flips =
        (schedule.total() - first_sweep) * systems.lattice.sites() * u64::from(systems.systems());
    let summary = summarize(
        config,
        &systems,
        &schedule,
        &series,
        &info,
        flips,
        engine_time,
    );
    write_outputs(
        &options.out,
        &systems,
        &schedule,
        &series,
        &checkpoint.spins,
        &summary,
    )?;
    Ok(RunOutcome::Completed(summary))
}

/// Sweeps per chunk: at most one checkpoint interval, a bounded number of measurements, and a
/// small fraction of the run so progress shows.
fn chunk_sweeps(schedule: &Schedule, checkpoint_every: u64) -> u64 {
    let mut chunk = schedule.total().div_ceil(MIN_CHUNKS).max(1);
    chunk = chunk.min(MAX_SLOTS_PER_CHUNK * schedule.every);
    if checkpoint_every > 0 {
        chunk = chunk.min(checkpoint_every);
    }
    chunk
}

/// Whether a multiple of `every` lies in `(from, to]`.
fn crosses_checkpoint(from: u64, to: u64, every: u64) -> bool {
    every > 0 && to / every > from / every
}

fn resume_state(
    out: &Path,
    config_fingerprint: u64,
    systems: &IsingSystems,
    schedule: &Schedule,
) -> Result<(RunState, Vec<i32>)> {
    let path = out.join(CHECKPOINT);
    if !path.exists() {
        return Err(Error::Usage(format!(
            "--resume: no checkpoint at {}",
            path.display()
        )));
    }
    let checkpoint = Checkpoint::load(&path, config_fingerprint)?;
    let per_measurement = systems.systems() as usize;
    let measurements = schedule.measurements_before(checkpoint.sweeps_done) as usize;
    let expected_spins = systems.spin_count();
    if checkpoint.sweeps_done > schedule.total()
        || checkpoint.spins.len() != expected_spins
        || checkpoint.bond_sums.len() != measurements * per_measurement
        || checkpoint.magnetisations.len() != measurements * per_measurement
    {
        return Err(Error::State(format!(
            "checkpoint {} does not match the config (sweeps {}, {} spins, {} measurements)",
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
    };
    Ok((state, checkpoint.spins))
}

/// Write the checkpoint of `state` with the lattices `spins` atomically; returns it.
fn save_checkpoint(
    path: &Path,
    config_fingerprint: u64,
    state: &RunState,
    spins: Vec<i32>,
) -> Result<Checkpoint> {
    let checkpoint = Checkpoint {
        config_fingerprint,
        sweeps_done: state.sweeps_done,
        spins,
        bond_sums: state.bond_sums.clone(),
        magnetisations: state.magnetisations.clone(),
    };
    checkpoint.save(path).map_err(|e| Error::io(path, e))?;
    Ok(checkpoint)
}

/// Append a plan's observations (slot-major) as bond sums and magnetisations.
fn record(systems: &IsingSystems, observations: &[Observation], state: &mut RunState) {
    let n = systems.lattice.sites() as i64;
    let bonds = systems.lattice.bonds() as i64;
    for o in observations {
        state.magnetisations.push(2 * o.up as i64 - n);
        state.bond_sums.push(2 * o.satisfied as i64 - bonds);
    }
}

/// One temperature's measurements per replica: total energies and magnetisations.
type TemperatureSeries = (Vec<Vec<f64>>, Vec<Vec<i64>>);

/// The series of one temperature, from the slot-major measurement record.
fn series_of(systems: &IsingSystems, state: &RunState, temperature: usize) -> TemperatureSeries {
    let per_measurement = systems.systems() as usize;
    let replicas = systems.replicas as usize;
    let mut energies = vec![Vec::new(); replicas];
    let mut magnetisations = vec![Vec::new(); replicas];
    for (bonds, ms) in state
        .bond_sums
        .chunks(per_measurement)
        .zip(state.magnetisations.chunks(per_measurement))
    {
        for r in 0..replicas {
            let b = temperature * replicas + r;
            energies[r].push(systems.energy(bonds[b], ms[b]));
            magnetisations[r].push(ms[b]);
        }
    }
    (energies, magnetisations)
}

fn summarize(
    config: &Config,
    systems: &IsingSystems,
    schedule: &Schedule,
    series: &[TemperatureSeries],
    info: &EngineInfo,
    flips: u64,
    engine_time: Duration,
) -> Summary {
    let lattice = systems.lattice;
    let runs = systems
        .betas
        .iter()
        .zip(series)
        .map(|(&beta, (energies, magnetisations))| {
            let exact =
                (lattice.dims == 2 && systems.field == 0.0).then(|| kaufman(lattice.size, beta));
            TemperatureSummary {
                estimates: ising_estimates(beta, lattice.sites(), energies, magnetisations),
                exact,
            }
        })
        .collect();
    // A resumed run that was already complete ran no sweeps: report no rate rather than 0/0.
    let flips_per_ns = match flips {
        0 => 0.0,
        _ => flips as f64 / (engine_time.as_secs_f64() * 1e9).max(f64::MIN_POSITIVE),
    };
    let ps_per_flip = if flips_per_ns > 0.0 {
        1000.0 / flips_per_ns
    } else {
        0.0
    };
    Summary {
        spinflip_version: env!("CARGO_PKG_VERSION").to_string(),
        backend: info.backend.clone(),
        adapter: info.adapter.clone(),
        engine: "simple".into(),
        model: format!("Ising {}D", lattice.dims),
        dims: lattice.dims,
        size: lattice.size,
        field: systems.field,
        replicas: systems.replicas,
        seed: config.seed,
        sweeps: schedule.total(),
        measurements: schedule.measurements_before(schedule.total()),
        flips_per_ns,
        ps_per_flip,
        runs,
    }
}

fn write_outputs(
    out: &Path,
    systems: &IsingSystems,
    schedule: &Schedule,
    series: &[TemperatureSeries],
    spins: &[i32],
    summary: &Summary,
) -> Result<()> {
    for (t, (beta, (energies, magnetisations))) in systems.betas.iter().zip(series).enumerate() {
        let mut rows = Vec::new();
        for (m, _) in energies[0].iter().enumerate() {
            for r in 0..systems.replicas as usize {
                rows.push(SeriesRow {
                    measurement: m as u64,
                    sweep: schedule.sweep_of_measurement(m as u64) + 1,
                    replica: r as u32,
                    energy: energies[r][m],
                    magnetisation: magnetisations[r][m],
                });
            }
        }
        let name = format!("timeseries_t{t:02}_beta_{beta}.csv");
        write_file(
            out,
            &name,
            series_csv(&rows, systems.lattice.sites()).as_bytes(),
        )?;
    }
    let l = systems.lattice.size as usize;
    let mut shape = vec![systems.betas.len(), systems.replicas as usize];
    shape.extend(std::iter::repeat_n(l, systems.lattice.dims as usize));
    write_file(
        out,
        FINAL_STATE,
        &npy_i8(&shape, spins.iter().map(|&s| s as i8)),
    )?;
    write_json(out, SUMMARY, summary)
}

/// A progress bar on a terminal, plain log lines otherwise.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    enabled: bool,
    total: u64,
    started: Instant,
}

impl Progress {
    fn new(enabled: bool, total: u64, done: u64) -> Self {
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(total);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:40}] {pos}/{len} sweeps, eta {eta}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar.set_position(done);
            bar
        });
        Progress {
            bar,
            enabled,
            total,
            started: Instant::now(),
        }
    }

    fn update(&self, done: u64) {
        match &self.bar {
            Some(bar) => bar.set_position(done),
            None if self.enabled => eprintln!(
                "spinflip: {done}/{} sweeps ({:.1} s)",
                self.total,
                self.started.elapsed().as_secs_f64()
            ),
            None => {}
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
        "{} L={} on {} ({}), {:.3} flips/ns\n{:>9} {:>24} {:>13} {:>22} {:>13} {:>20} {:>20} {:>8}\n",
        summary.model,
        summary.size,
        summary.adapter,
        summary.backend,
        summary.flips_per_ns,
        "beta",
        "e",
        "e exact",
        "c",
        "c exact",
        "|m|",
        "U4",
        "tau_e"
    );
    let pm = |e: &crate::stats::Estimate| format!("{:.7} ± {:.7}", e.mean, e.err);
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
