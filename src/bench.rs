//! `spinflip bench`: sweep throughput per backend, engine, layout, model and lattice size.
//!
//! Each measurement starts from a hot (random) lattice, runs doubling sweep counts (each in
//! plans as long as `spinflip run`'s) until one takes at least `--seconds`, and reports that
//! count's rate: site updates (flip attempts) per nanosecond and picoseconds per flip.
//! Pipeline compilation and uploads are outside the timed plans. With `--annealing` a row is
//! one whole population anneal instead (see [`AnnealingShares`]).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::ValueEnum;
use serde::Serialize;

use crate::annealing::anneal_engine;
use crate::annealing::engine_systems;
use crate::config::{
    Algorithm, AnnealingOptions, AnnealingSchedule, Backend, Config, EngineKind, Lanes, Layout,
    Model, PhiloxPath, Randoms, Resampling, Sweeps, Temperatures,
};
use crate::engine::annealing::ResamplingTable;
use crate::engine::open::open_slab_engine;
use crate::engine::slabs::LocalHalos;
use crate::engine::tempering::Chains;
use crate::engine::{Betas, Engine, EngineInfo, Measurements, Plan, SpinBits, Step};
use crate::error::{Error, Result};
use crate::metropolis::Schedule;
use crate::model::ising::IsingSystems;
use crate::model::ising::ising_systems;
use crate::mpi::open_engine;
use crate::mpi::open_engine_with_betas;

/// Which backends to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchBackend {
    /// The CPU and wgpu engines (CUDA only when named: most machines have no NVIDIA driver).
    All,
    Cpu,
    Wgpu,
    Cuda,
}

/// Which engines (and multispin layouts) to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchEngine {
    /// One spin per 32-bit word.
    Simple,
    /// Multispin, 32 systems per word (lanes chosen by `--lanes`).
    Amsc,
    /// Multispin, 32 sites of one lattice per word (sizes that are multiples of 64).
    Smsc,
}

/// The model measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchModel {
    Ising,
    /// Edwards-Anderson +-J (multispin engines only).
    Ea,
}

/// Options of `spinflip bench`.
#[derive(Debug, Clone, clap::Parser)]
pub struct BenchOptions {
    /// Backends to measure.
    #[arg(long, value_enum, default_value = "all")]
    pub backend: BenchBackend,
    /// Engines to measure.
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["simple", "amsc", "smsc"])]
    pub engine: Vec<BenchEngine>,
    /// Model.
    #[arg(long, value_enum, default_value = "ising")]
    pub model: BenchModel,
    /// What AMSC lanes hold (the default: replicas for the Ising model, samples for EA).
    #[arg(long, value_enum)]
    pub lanes: Option<LanesArg>,
    /// How multispin decisions draw random numbers.
    #[arg(long, value_enum, default_value = "exact")]
    pub randoms: RandomsArg,
    /// Lattice dimension.
    #[arg(long, default_value_t = 2)]
    pub dims: u32,
    /// Linear sizes (even; SMSC measures the multiples of 64 only).
    #[arg(long, value_delimiter = ',', default_values_t = vec![256, 1024, 4096])]
    pub sizes: Vec<u32>,
    /// Systems per run (AMSC rounds up to whole words of 32).
    #[arg(long, default_value_t = 1)]
    pub systems: u32,
    /// Inverse temperature.
    #[arg(long, default_value_t = 0.4406868)]
    pub beta: f64,
    /// Minimum duration of the timed plan, seconds.
    #[arg(long, default_value_t = 1.0)]
    pub seconds: f64,
    /// GPU adapter (index, backend name or name substring; for CUDA the device index).
    #[arg(long)]
    pub adapter: Option<String>,
    /// WGSL Philox multiply path.
    #[arg(long, value_enum, default_value = "auto")]
    pub philox: PhiloxArg,
    /// Workgroup size of the GPU kernels.
    #[arg(long, default_value_t = 64)]
    pub workgroup_size: u32,
    /// Compile the GPU kernels with wgpu's runtime bounds checks.
    #[arg(long)]
    pub bounds_checks: bool,
    /// Write what the Vulkan driver made of each WGSL kernel (statistics, internal
    /// representations) into this directory.
    #[arg(long)]
    pub pipeline_statistics: Option<PathBuf>,
    /// Print JSON lines instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Parallel tempering: each measurement is also made with swap rounds and measurements,
    /// whose cost the row shows against plain sweeps.
    #[arg(long)]
    pub tempering: bool,
    /// Each measurement is also made with the lattices split into this many slabs (threads of
    /// this process, each with its own engine and device context, trading halo planes as MPI
    /// ranks do): the row shows their rate and its cost against one engine. One slab trades
    /// with itself, so its cost is the halo exchange's alone.
    #[arg(long, default_value_t = 0)]
    pub slabs: u32,
    /// With `--tempering`: temperatures of the ladder (beta to 2 beta, geometric in T).
    #[arg(long, default_value_t = 32)]
    pub temperatures: u32,
    /// With `--tempering`: independent chains (replicas) per sample.
    #[arg(long, default_value_t = 2)]
    pub chains: u32,
    /// With `--tempering`: sweeps between swap rounds.
    #[arg(long, default_value_t = 1)]
    pub swap_every: u64,
    /// With `--tempering`: sweeps between measurements.
    #[arg(long, default_value_t = 10)]
    pub measure_every: u64,
    /// Population annealing: each row times one whole anneal of a population of `--systems`
    /// replicas (per sample): `--steps` temperature steps, linear in beta up to `--beta`, each
    /// `--theta` sweeps and a measurement, with the resampling between steps (host decisions,
    /// device copies, new thresholds). AMSC lanes hold replicas unless `--lanes` says otherwise.
    #[arg(long, conflicts_with = "tempering")]
    pub annealing: bool,
    /// With `--annealing`: Metropolis sweeps per temperature step.
    #[arg(long, default_value_t = 10)]
    pub theta: u32,
    /// With `--annealing`: temperature steps.
    #[arg(long, default_value_t = 20)]
    pub steps: u32,
    /// With `--annealing`: disorder samples, one population each (`--model ea`).
    #[arg(long, default_value_t = 1)]
    pub samples: u32,
}

/// Philox paths selectable on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PhiloxArg {
    Auto,
    Int64,
    U32,
}

/// AMSC lane meanings selectable on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LanesArg {
    Replicas,
    Samples,
    Temperatures,
}

/// Random-number modes selectable on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RandomsArg {
    Exact,
    Packed,
    Shared,
}

/// One row of the benchmark table.
#[derive(Debug, Clone, Serialize)]
pub struct BenchResult {
    pub backend: String,
    pub adapter: String,
    pub engine: String,
    pub model: &'static str,
    pub dims: u32,
    pub size: u32,
    pub systems: u32,
    pub sweeps: u64,
    pub seconds: f64,
    pub flips_per_ns: f64,
    pub ps_per_flip: f64,
    /// With `--tempering`: the rate with swap rounds and measurements, and their cost relative
    /// to plain sweeps (`ps_per_flip` is then that of plain sweeps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tempering_ps_per_flip: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tempering_overhead: Option<f64>,
    /// With `--slabs`: the rate of the same sweeps on slabs, and its cost relative to one
    /// engine of the whole lattices.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slabs_ps_per_flip: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slabs_overhead: Option<f64>,
    /// With `--annealing`: what the anneal was and where its time went.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annealing: Option<AnnealingShares>,
}

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
    /// The resampling step: `Engine::set_resampling` (the table's upload) and the plans'
    /// `Step::Resample` (the decisions, the copy map and the gather of the lattices).
    pub copies: f64,
    /// `Engine::set_betas`: new threshold tables written to the device.
    pub betas: f64,
    /// The host between engine calls: energy histograms, the resampling table, the adaptive
    /// step, the families and the estimates.
    pub host: f64,
    /// Resampling in all: `copies + betas + host`.
    pub resampling: f64,
}
/// Run the benchmark and print its table.
pub fn bench(options: &BenchOptions) -> Result<()> {
    if options.dims != 2 && options.dims != 3 {
        return Err(Error::Usage(format!(
            "--dims must be 2 or 3, got {}",
            options.dims
        )));
    }
    if let Some(bad) = options.sizes.iter().find(|&&l| l < 2 || l % 2 != 0) {
        return Err(Error::Usage(format!(
            "--sizes must be even and >= 2, got {bad}"
        )));
    }
    let backends = match options.backend {
        BenchBackend::All => vec![Backend::Cpu, Backend::Wgpu],
        BenchBackend::Cpu => vec![Backend::Cpu],
        BenchBackend::Wgpu => vec![Backend::Wgpu],
        BenchBackend::Cuda => vec![Backend::Cuda],
    };
    if options.annealing && !options.json {
        println!(
            "{:<6} {:<40} {:<56} {:>4} {:>6} {:>8} {:>8} {:>11} {:>8} {:>10} {:>7} {:>8} {:>7} {:>7} \
             {:>7} {:>7}",
            "backend",
            "adapter",
            "engine",
            "dims",
            "L",
            "R",
            "slots",
            "steps x th",
            "seconds",
            "ps/flip",
            "sweeps",
            "measure",
            "resamp",
            "copies",
            "betas",
            "host"
        );
    } else if !options.json {
        println!(
            "{:<6} {:<40} {:<56} {:>4} {:>6} {:>7} {:>7} {:>10} {:>10}{}",
            "backend",
            "adapter",
            "engine",
            "dims",
            "L",
            "systems",
            "sweeps",
            "flips/ns",
            "ps/flip",
            [(options.tempering, "PT"), (options.slabs > 0, "slabs")]
                .iter()
                .filter(|(on, _)| *on)
                .map(|(_, what)| format!(
                    " {:>14} {:>10}",
                    format!("{what} ps/flip"),
                    format!("{what} cost")
                ))
                .collect::<String>()
        );
    }
    for backend in backends {
        for &engine in &options.engine {
            for &size in &options.sizes {
                let config = bench_config(options, backend, engine, size);
                if let Err(reason) = config.validate() {
                    if !options.json {
                        println!("skipped {engine:?} L={size}: {reason}");
                    }
                    continue;
                }
                let result = match options.annealing {
                    true => bench_anneal(options, &config),
                    false => bench_one(options, &config),
                };
                match result {
                    // What the device cannot hold is a reason to skip the row, not the bench
                    // (said on stderr with --json, whose stdout is JSON lines).
                    Err(Error::Limits(reason)) => {
                        let skipped = format!("skipped {engine:?} L={size}: {reason}");
                        match options.json {
                            true => eprintln!("{skipped}"),
                            false => println!("{skipped}"),
                        }
                    }
                    result => print_result(options, &result?),
                }
            }
        }
    }
    Ok(())
}

fn print_result(options: &BenchOptions, result: &BenchResult) {
    if options.json {
        println!(
            "{}",
            serde_json::to_string(result).expect("plain data serialises")
        );
    } else if let Some(a) = &result.annealing {
        let percent = |share: f64| format!("{:.1}%", 100.0 * share);
        println!(
            "{:<6} {:<40} {:<56} {:>4} {:>6} {:>8} {:>8} {:>11} {:>8.3} {:>10.3} {:>7} {:>8} {:>7} {:>7} \
             {:>7} {:>7}",
            result.backend,
            result.adapter,
            format!("{} {}", result.engine, result.model),
            result.dims,
            result.size,
            a.replicas,
            a.slots,
            format!("{} x {}", a.steps, a.theta),
            result.seconds,
            result.ps_per_flip,
            percent(a.sweeps),
            percent(a.measurements),
            percent(a.resampling),
            percent(a.copies),
            percent(a.betas),
            percent(a.host)
        );
    } else {
        println!(
            "{:<6} {:<40} {:<56} {:>4} {:>6} {:>7} {:>7} {:>10.3} {:>10.2}{}",
            result.backend,
            result.adapter,
            format!("{} {}", result.engine, result.model),
            result.dims,
            result.size,
            result.systems,
            result.sweeps,
            result.flips_per_ns,
            result.ps_per_flip,
            [
                (result.tempering_ps_per_flip, result.tempering_overhead),
                (result.slabs_ps_per_flip, result.slabs_overhead)
            ]
            .iter()
            .map(|&figures| match figures {
                (Some(ps), Some(cost)) => format!(" {ps:>14.3} {:>9.1}%", 100.0 * cost),
                _ => String::new(),
            })
            .collect::<String>()
        );
    }
}

/// The run config of one measurement: the engine's system counts follow its packing.
fn bench_config(
    options: &BenchOptions,
    backend: Backend,
    engine: BenchEngine,
    size: u32,
) -> Config {
    let mut config = Config::default_config().expect("the built-in config is valid");
    let (dims, field) = (options.dims, 0.0);
    config.model = match options.model {
        BenchModel::Ising => Model::Ising { dims, size, field },
        BenchModel::Ea => Model::EdwardsAnderson { dims, size, field },
    };
    config.backend = backend;
    config.adapter = options.adapter.clone();
    config.workgroup_size = options.workgroup_size;
    config.bounds_checks = options.bounds_checks;
    config.pipeline_statistics = options.pipeline_statistics.clone();
    config.philox = match options.philox {
        PhiloxArg::Auto => PhiloxPath::Auto,
        PhiloxArg::Int64 => PhiloxPath::Int64,
        PhiloxArg::U32 => PhiloxPath::U32,
    };
    let randoms = match options.randoms {
        RandomsArg::Exact => Randoms::Exact,
        RandomsArg::Packed => Randoms::Packed,
        RandomsArg::Shared => Randoms::Shared,
    };
    let lanes = match (options.lanes, options.model) {
        (Some(LanesArg::Replicas), _) | (None, BenchModel::Ising) => Lanes::Replicas,
        // Populations are replicas.
        (None, BenchModel::Ea) if options.annealing => Lanes::Replicas,
        (Some(LanesArg::Samples), _) | (None, BenchModel::Ea) => Lanes::Samples,
        (Some(LanesArg::Temperatures), _) => Lanes::Temperatures,
    };
    let words = options.systems.div_ceil(32).max(1);
    let (temperatures, samples, replicas) = match (engine, options.tempering) {
        (BenchEngine::Simple | BenchEngine::Smsc, false) => (1, 1, options.systems),
        (BenchEngine::Simple | BenchEngine::Smsc, true) => {
            (options.temperatures, 1, options.chains)
        }
        (BenchEngine::Amsc, false) => match lanes {
            Lanes::Replicas => (1, 1, 32 * words),
            Lanes::Samples => (1, 32 * words, 1),
            Lanes::Temperatures => (32, words, 1),
        },
        // Chains are replicas: with lanes holding replicas, 32 chains per word.
        (BenchEngine::Amsc, true) => match lanes {
            Lanes::Replicas => (options.temperatures, 1, 32 * words),
            Lanes::Samples => (options.temperatures, 32 * words, options.chains),
            Lanes::Temperatures => (options.temperatures, options.systems, options.chains),
        },
    };
    if options.annealing {
        config.algorithm = Algorithm::Annealing {
            theta: options.theta,
            schedule: AnnealingSchedule::Linear {
                beta_max: options.beta,
                count: options.steps,
            },
            resampling: Resampling::FloorCeil,
            runs: 1,
            overlaps: false,
            reweighting: None,
        };
        config.temperatures = Temperatures::default();
        config.sweeps = Sweeps::default();
    } else if options.tempering {
        config.algorithm = Algorithm::Tempering {
            every: options.swap_every,
            tune: false,
        };
        let t = 1.0 / options.beta;
        config.temperatures = Temperatures::GeometricT {
            min: t / 2.0,
            max: t,
            count: temperatures,
        };
    } else {
        // Temperatures in lanes spread around the requested beta.
        config.temperatures = Temperatures::Betas(
            (0..temperatures)
                .map(|t| options.beta * (1.0 + 0.01 * f64::from(t)))
                .collect(),
        );
    }
    (config.samples, config.replicas) = match options.annealing {
        true => (options.samples, options.systems),
        false => (samples, replicas),
    };
    config.engine = match engine {
        BenchEngine::Simple => EngineKind::Simple,
        BenchEngine::Amsc => EngineKind::Multispin {
            layout: Layout::Amsc { lanes },
            randoms,
        },
        BenchEngine::Smsc => EngineKind::Multispin {
            layout: Layout::Smsc,
            randoms,
        },
    };
    config
}

fn bench_one(options: &BenchOptions, config: &Config) -> Result<BenchResult> {
    let systems = ising_systems(config);
    let mut engine = open_engine(config, systems.clone())?;
    engine.hot_start()?;
    let plain = Schedule {
        thermalize: 0,
        measure: u64::from(u32::MAX),
        every: u64::from(u32::MAX),
        swap_every: None,
    };
    let (sweeps, seconds) = timed(engine.as_mut(), &plain, &systems, options.seconds)?;
    let info = engine.info();
    let flips_per_sweep = systems.lattice.sites() * u64::from(systems.systems());
    let ps_per_flip =
        |sweeps: u64, seconds: f64| seconds * 1e12 / (sweeps * flips_per_sweep) as f64;
    let ps = ps_per_flip(sweeps, seconds);
    let tempering_ps_per_flip = match config.algorithm.swap_every() {
        None => None,
        Some(every) => {
            engine.set_tempering(&Chains::of(&systems).initial_state())?;
            let schedule = Schedule {
                every: options.measure_every,
                swap_every: Some(every),
                ..plain
            };
            let (sweeps, seconds) = timed(engine.as_mut(), &schedule, &systems, options.seconds)?;
            Some(ps_per_flip(sweeps, seconds))
        }
    };
    let slabs_ps_per_flip = match options.slabs {
        0 => None,
        slabs => {
            drop(engine);
            let seconds = timed_slabs(config, &systems, slabs, sweeps)?;
            Some(ps_per_flip(sweeps, seconds))
        }
    };
    let result = BenchResult::new(options, info, &systems, (sweeps, seconds, ps));
    Ok(BenchResult {
        tempering_ps_per_flip,
        tempering_overhead: tempering_ps_per_flip.map(|t| t / ps - 1.0),
        slabs_ps_per_flip,
        slabs_overhead: slabs_ps_per_flip.map(|s| s / ps - 1.0),
        ..result
    })
}

/// Seconds of `sweeps` plain sweeps of the lattices of `systems` split into `slabs` slabs of
/// even planes (threads of this process trading halos, [`LocalHalos`]), after one sweep that
/// compiles and warms up: the longest of the slabs' times from a common start.
fn timed_slabs(config: &Config, systems: &IsingSystems, slabs: u32, sweeps: u64) -> Result<f64> {
    let size = systems.lattice.size;
    if slabs == 0 || 2 * slabs > size {
        return Err(Error::Usage(format!(
            "--slabs {slabs}: a slab needs two planes of the {size} planes at least"
        )));
    }
    let first = |k: u32| (u64::from(size / 2) * u64::from(k) / u64::from(slabs)) as u32 * 2;
    let start = std::sync::Barrier::new(slabs as usize);
    let plain = Schedule {
        thermalize: 0,
        measure: u64::from(u32::MAX),
        every: u64::from(u32::MAX),
        swap_every: None,
    };
    let times: Vec<Result<f64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = LocalHalos::ring(slabs as usize)
            .into_iter()
            .zip(0..slabs)
            .map(|(halo, k)| {
                let slab = systems.plane_slab(first(k), first(k + 1) - first(k));
                let (start, plain) = (&start, &plain);
                scope.spawn(move || -> Result<f64> {
                    let ready =
                        open_slab_engine(config, slab, Betas::Fixed, halo).and_then(|mut e| {
                            e.hot_start()?;
                            e.execute(&plain.plan(0, 1))?;
                            Ok(e)
                        });
                    // Every slab passes the start once, ready or not; one that failed drops its
                    // halo, and its neighbours' exchanges then fail instead of waiting.
                    start.wait();
                    let mut engine = ready?;
                    let started = Instant::now();
                    engine.execute(&plain.plan(1, 1 + sweeps))?;
                    Ok(started.elapsed().as_secs_f64())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a slab's thread panicked"))
            .collect()
    });
    times
        .into_iter()
        .try_fold(0.0f64, |longest, time| Ok(longest.max(time?)))
}

impl BenchResult {
    /// The row of `sweeps` sweeps in `seconds` at `ps` per flip of an engine of `systems`,
    /// without tempering or annealing figures.
    fn new(
        options: &BenchOptions,
        info: EngineInfo,
        systems: &IsingSystems,
        (sweeps, seconds, ps): (u64, f64, f64),
    ) -> Self {
        BenchResult {
            backend: info.backend,
            adapter: info.adapter,
            engine: info.engine,
            model: match options.model {
                BenchModel::Ising => "Ising",
                BenchModel::Ea => "EA",
            },
            dims: options.dims,
            size: systems.lattice.size,
            systems: systems.systems(),
            sweeps,
            seconds,
            flips_per_ns: 1000.0 / ps,
            ps_per_flip: ps,
            tempering_ps_per_flip: None,
            tempering_overhead: None,
            slabs_ps_per_flip: None,
            slabs_overhead: None,
            annealing: None,
        }
    }
}

/// One whole anneal of `config` (algorithm `Annealing`), timed by kind of work (see
/// [`AnnealingShares`]). The copy kernel and the measurement buffers are made ready before the
/// anneal (one copy that keeps every system, one measurement), as any anneal past its first
/// step finds them.
fn bench_anneal(options: &BenchOptions, config: &Config) -> Result<BenchResult> {
    let annealing = config
        .algorithm
        .annealing()
        .ok_or_else(|| Error::State("bench_anneal needs algorithm: Annealing".into()))?;
    let view = annealing.engine_config(config)?;
    let systems = engine_systems(&view);
    let mut engine = open_engine_with_betas(&view, systems.clone(), Betas::Changing)?;
    engine.copy_systems(&(0..systems.systems()).collect::<Vec<_>>())?;
    let mut plan = Plan::default();
    plan.measure();
    engine.execute(&plan)?;
    // A resampling step that moves nothing builds the step's kernels and buffers.
    let slots = AnnealingOptions::slots(config.replicas) as u32;
    engine.set_resampling(&ResamplingTable::identity(slots, systems.systems() / slots))?;
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
    let flips = sweeps * population * systems.lattice.sites();
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

    fn set_spins(&mut self, spins: &SpinBits) -> Result<()> {
        self.engine.set_spins(spins)
    }

    fn spins(&mut self) -> Result<SpinBits> {
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

    fn set_tempering(&mut self, state: &[u32]) -> Result<()> {
        self.engine.set_tempering(state)
    }

    fn tempering(&mut self) -> Result<Vec<u32>> {
        self.engine.tempering()
    }

    fn set_betas(&mut self, betas: &[f64]) -> Result<()> {
        let engine = &mut *self.engine;
        timed_call(&mut self.times.betas, || engine.set_betas(betas))
    }

    fn copy_systems(&mut self, sources: &[u32]) -> Result<()> {
        let engine = &mut *self.engine;
        timed_call(&mut self.times.copies, || engine.copy_systems(sources))
    }

    fn set_resampling(&mut self, table: &ResamplingTable) -> Result<()> {
        let engine = &mut *self.engine;
        timed_call(&mut self.times.copies, || engine.set_resampling(table))
    }

    fn count_populations(&mut self, slots: u32, sizes: &[u32]) -> Result<bool> {
        self.engine.count_populations(slots, sizes)
    }

    fn max_plan_slots(&self) -> u64 {
        self.engine.max_plan_slots()
    }
}

/// Runs of `schedule` of doubling length until one takes `min_seconds` (after one sweep that
/// compiles pipelines and warms caches), then that length once more; its sweeps and seconds.
/// A run's sweeps go in plans of at most `most_sweeps_per_plan` sweeps, as `spinflip run`
/// splits them. The repeat finds the engine's buffers for those plans (measurement counters,
/// page-locked download memory) already allocated, as every plan of a run after its first does.
fn timed(
    engine: &mut dyn Engine,
    schedule: &Schedule,
    systems: &IsingSystems,
    min_seconds: f64,
) -> Result<(u64, f64)> {
    let per_plan = schedule.most_sweeps_per_plan(systems, engine.max_plan_slots());
    let mut run = |from: u64, sweeps: u64| -> Result<f64> {
        let started = Instant::now();
        for start in (from..from + sweeps).step_by(per_plan as usize) {
            engine.execute(&schedule.plan(start, (start + per_plan).min(from + sweeps)))?;
        }
        Ok(started.elapsed().as_secs_f64())
    };
    run(0, 1)?;
    let (mut from, mut sweeps) = (1, 1);
    loop {
        let seconds = run(from, sweeps)?;
        if seconds >= min_seconds || sweeps >= 1 << 20 {
            return Ok((sweeps, run(from + sweeps, sweeps)?));
        }
        from += sweeps;
        sweeps *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// `spinflip bench ...` options.
    fn options(args: &[&str]) -> BenchOptions {
        BenchOptions::parse_from(std::iter::once("bench").chain(args.iter().copied()))
    }

    /// The benchmark target: `spinflip bench --engine smsc --sizes 65536` passes validation and
    /// describes 2^32 sites in 2^27 words; the simple engine is skipped naming its limit.
    #[test]
    fn smsc_at_65536_squared_is_benchmarked_and_simple_is_skipped() {
        let options = options(&["--engine", "smsc,simple,amsc", "--sizes", "65536"]);
        let smsc = bench_config(&options, Backend::Wgpu, BenchEngine::Smsc, 65536);
        smsc.validate().unwrap();
        let layout = crate::engine::multispin::MultispinLayout::new(
            ising_systems(&smsc),
            smsc.engine.multispin().unwrap(),
        );
        assert_eq!(layout.lattice().sites(), 1 << 32);
        assert_eq!(layout.words(), 1 << 27);
        let simple = bench_config(&options, Backend::Cpu, BenchEngine::Simple, 65536);
        let msg = simple.validate().unwrap_err().to_string();
        assert!(
            msg.contains("simple engine") && msg.contains("2^31"),
            "{msg}"
        );
        let amsc = bench_config(&options, Backend::Cpu, BenchEngine::Amsc, 65536);
        let msg = amsc.validate().unwrap_err().to_string();
        assert!(msg.contains("Amsc") && msg.contains("2^31"), "{msg}");
    }

    /// The annealing bench's target cases are valid configs: 2D Ising L = 64 with R = 2^16 and
    /// 2^20 replicas and 3D EA L = 16, AMSC lanes holding replicas.
    #[test]
    fn annealing_bench_configs_of_the_target_cases_validate() {
        for (args, size) in [
            (
                ["--systems", "65536", "--model", "ising", "--dims", "2"],
                64,
            ),
            (
                ["--systems", "1048576", "--model", "ising", "--dims", "2"],
                64,
            ),
            (["--systems", "65536", "--model", "ea", "--dims", "3"], 16),
        ] {
            let options = options(&[&["--annealing"], args.as_slice()].concat());
            let config = bench_config(&options, Backend::Cuda, BenchEngine::Amsc, size);
            config
                .validate()
                .unwrap_or_else(|e| panic!("{args:?}: {e}"));
            let annealing = config.algorithm.annealing().unwrap();
            let view = annealing.engine_config(&config).unwrap();
            assert_eq!(
                view.engine.multispin().unwrap().layout,
                Layout::Amsc {
                    lanes: Lanes::Replicas
                }
            );
        }
    }

    /// A small anneal on the CPU: every sweep counted, the shares of the time add up to one.
    #[test]
    fn annealing_bench_times_a_whole_anneal() {
        let options = options(&[
            "--annealing",
            "--backend",
            "cpu",
            "--engine",
            "amsc",
            "--sizes",
            "8",
            "--systems",
            "64",
            "--steps",
            "3",
            "--theta",
            "2",
        ]);
        let config = bench_config(&options, Backend::Cpu, BenchEngine::Amsc, 8);
        config.validate().unwrap();
        let result = bench_anneal(&options, &config).unwrap();
        assert_eq!(result.sweeps, 6);
        assert_eq!(result.systems, 64);
        let a = result.annealing.unwrap();
        assert_eq!((a.replicas, a.steps, a.theta), (64, 3, 2));
        assert!(a.slots > 64, "{}", a.slots);
        let parts = [a.sweeps, a.measurements, a.copies, a.betas, a.host];
        assert!(parts.iter().all(|&p| (0.0..=1.0).contains(&p)), "{parts:?}");
        let sum: f64 = parts.iter().sum();
        assert!((sum - 1.0).abs() < 1e-9, "{parts:?}");
        assert!(a.sweeps > 0.0 && a.copies > 0.0, "{parts:?}");
        assert!(result.ps_per_flip > 0.0);
    }

    /// A population the device cannot hold is refused with a limits error (which the bench
    /// prints as a skipped row) before anything large is allocated: the simple engine's 66 624
    /// systems of 64^2 exceed the grid's 65535 layers (and lavapipe's binding size).
    #[test]
    fn annealing_bench_refuses_what_the_device_cannot_hold() {
        let options = options(&[
            "--annealing",
            "--backend",
            "wgpu",
            "--engine",
            "simple",
            "--sizes",
            "64",
            "--systems",
            "65536",
            "--steps",
            "1",
            "--theta",
            "1",
        ]);
        let config = bench_config(&options, Backend::Wgpu, BenchEngine::Simple, 64);
        config.validate().unwrap();
        match bench_anneal(&options, &config) {
            Err(Error::Limits(reason)) => assert!(reason.contains("66624"), "{reason}"),
            other => panic!("not refused for its limits: {:?}", other.map(|r| r.engine)),
        }
    }
}
