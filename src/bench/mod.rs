//! `spinflip bench`: sweep throughput per backend, engine, layout, model and lattice size.
//!
//! Each measurement starts from a hot (random) lattice, runs doubling sweep counts (each in
//! plans as long as `spinflip run`'s) until one takes at least `--seconds`, and reports that
//! count's rate: site updates (flip attempts) per nanosecond and picoseconds per flip.
//! Pipeline compilation and uploads are outside the timed plans. With `--annealing` a row is
//! one whole population anneal instead (see [`AnnealingShares`]).

use std::time::Instant;

use serde::Serialize;

use crate::config::{Backend, ClusterUpdate, Config};
use crate::console::{note, say};
use crate::engine::clusters::BYTES_PER_SITE;
use crate::engine::tempering::Chains;
use crate::engine::{Engine, EngineInfo, clusters_of, tempering_of};
use crate::error::{Error, Result};
use crate::metropolis::Schedule;
use crate::model::ising::IsingSystems;
use crate::model::ising::ising_systems;
use crate::mpi::open_engine;

mod annealing;
mod options;
mod slabs;
mod vector;

use annealing::{AnnealingShares, bench_anneal};
use options::bench_config;
pub use options::{
    BenchBackend, BenchEngine, BenchModel, BenchOptions, ClustersArg, LanesArg, PhiloxArg,
    RandomsArg,
};
use slabs::timed_slabs;
use vector::bench_vectors;

/// One row of the benchmark table.
#[derive(Debug, Clone, Serialize)]
pub struct BenchResult {
    pub backend: String,
    pub adapter: String,
    pub engine: String,
    pub model: String,
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
    /// With `--clusters`: the update timed (its rate is `flips_per_ns`, spins per ns per
    /// update) and its floor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clusters: Option<ClusterFloor>,
}

/// What bounds a cluster update: the labelling's kernel passes per update (0 for the CPU's
/// union-find, 2 for the kernels' unrecorded update: the tiles, then the bonds between them) and
/// the bytes per site it moves at least
/// ([`crate::engine::clusters::BYTES_PER_SITE`]).
#[derive(Debug, Clone, Serialize)]
pub struct ClusterFloor {
    pub update: String,
    pub labelling_passes: u64,
    pub bytes_per_site: u64,
}

/// Run the benchmark and print its table.
pub fn bench(options: &BenchOptions) -> Result<()> {
    if options.dims != 2 && options.dims != 3 {
        return Err(Error::Usage(format!(
            "--dims must be 2 or 3, got {}",
            options.dims
        )));
    }
    if options.antiferromagnet && options.model != BenchModel::Ising {
        return Err(Error::Usage(format!(
            "--antiferromagnet is of the Ising model (--model ising), got --model {}",
            options.model.label()
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
    if options.runs_vector_engine() {
        return bench_vectors(options, &backends);
    }
    if options.annealing && !options.json {
        say!(
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
        say!(
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
                + &match options.clusters {
                    Some(_) => format!(" {:>13} {:>7} {:>7}", "update", "passes", "B/site"),
                    None => String::new(),
                }
        );
    }
    for backend in backends {
        for &engine in &options.engine {
            for &size in &options.sizes {
                let config = bench_config(options, backend, engine, size);
                if let Err(reason) = config.validate() {
                    skipped(options, &format!("skipped {engine:?} L={size}: {reason}"));
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
                        skipped(options, &format!("skipped {engine:?} L={size}: {reason}"));
                    }
                    result => print_result(options, &result?),
                }
            }
        }
    }
    Ok(())
}

/// A row the bench cannot measure (a config it refuses, a device too small): in the table, or
/// on stderr with --json, whose stdout is JSON lines.
fn skipped(options: &BenchOptions, why: &str) {
    match options.json {
        true => note!("{why}"),
        false => say!("{why}"),
    }
}

fn print_result(options: &BenchOptions, result: &BenchResult) {
    if options.json {
        say!(
            "{}",
            serde_json::to_string(result).expect("plain data serialises")
        );
    } else if let Some(a) = &result.annealing {
        let percent = |share: f64| format!("{:.1}%", 100.0 * share);
        say!(
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
        say!(
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
                + &result.clusters.as_ref().map_or(String::new(), |c| format!(
                    " {:>13} {:>7} {:>7}",
                    c.update, c.labelling_passes, c.bytes_per_site
                ))
        );
    }
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
        clusters: config.algorithm.clusters(),
    };
    let clusters = match plain.clusters {
        Some(clusters) => Some(cluster_floor(engine.as_mut(), &plain, clusters.update)?),
        None => None,
    };
    let (sweeps, seconds) = timed(engine.as_mut(), &plain, &systems, options.seconds)?;
    let info = engine.info();
    // Site updates: the lattice's spins (a kagome lattice's holes are none).
    let flips_per_sweep = systems.lattice.spins() * u64::from(systems.systems());
    let ps_per_flip =
        |sweeps: u64, seconds: f64| seconds * 1e12 / (sweeps * flips_per_sweep) as f64;
    let ps = ps_per_flip(sweeps, seconds);
    let tempering_ps_per_flip = match config.algorithm.swap_every() {
        None => None,
        Some(every) => {
            tempering_of(engine.as_mut())?.set_tempering(&Chains::of(&systems).initial_state())?;
            let schedule = Schedule {
                every: options.measure_every,
                swap_every: Some(every),
                clusters: None,
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
        clusters,
        ..result
    })
}

/// Cluster updates a cluster row runs before it is timed: Swendsen-Wang's, which bring a hot
/// start to equilibrium in a few tens of updates where Wolff's one cluster an update would take
/// about `N / <|C|>` of them; an update's time depends on the clusters it labels (a hot
/// lattice's are small: Wolff at 2D beta_c, 4096^2, read 42 spins/ns from the hot start on an
/// H200, CUDA, against Swendsen-Wang's 25).
pub const EQUILIBRATING_UPDATES: u64 = 100;

/// Bring `engine`'s lattices to equilibrium by [`EQUILIBRATING_UPDATES`] Swendsen-Wang steps of
/// `schedule`, then start its cluster updates of kind `update` and count the labelling passes
/// of one update of `schedule` (its first step).
fn cluster_floor(
    engine: &mut dyn Engine,
    schedule: &Schedule,
    update: ClusterUpdate,
) -> Result<ClusterFloor> {
    clusters_of(engine)?.set_clusters(ClusterUpdate::SwendsenWang)?;
    engine.execute(&schedule.plan(0, EQUILIBRATING_UPDATES))?;
    clusters_of(engine)?.set_clusters(update)?;
    let before = clusters_of(engine)?.labelling_iterations();
    engine.execute(&schedule.plan(0, 1))?;
    Ok(ClusterFloor {
        update: format!("{update:?}"),
        labelling_passes: clusters_of(engine)?.labelling_iterations() - before,
        bytes_per_site: BYTES_PER_SITE,
    })
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
            model: options.row_model(),
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
            clusters: None,
        }
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
    use crate::config::{Lanes, Layout};
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

    /// `--clusters`: a row of Swendsen-Wang updates on the CPU and on wgpu, with the
    /// labelling's passes (none for the CPU's union-find, two for the kernels' unrecorded
    /// update: the tiles, then the bonds between them).
    #[test]
    fn cluster_bench_times_updates_and_counts_labelling_passes() {
        crate::runtime_dir::for_tests();
        let options = options(&[
            "--clusters",
            "swendsen-wang",
            "--engine",
            "simple",
            "--sizes",
            "16",
            "--seconds",
            "0.01",
        ]);
        for (backend, passes) in [(Backend::Cpu, 0), (Backend::Wgpu, 2)] {
            let config = bench_config(&options, backend, BenchEngine::Simple, 16);
            config.validate().unwrap();
            let result = bench_one(&options, &config).unwrap();
            let floor = result.clusters.unwrap();
            assert_eq!(floor.update, "SwendsenWang");
            assert_eq!(floor.labelling_passes, passes, "{backend:?}");
            assert!(result.sweeps > 0 && result.flips_per_ns > 0.0);
        }
        let amsc = bench_config(&options, Backend::Cpu, BenchEngine::Amsc, 16);
        assert!(
            amsc.validate()
                .unwrap_err()
                .to_string()
                .contains("simple engine")
        );
    }

    /// A Wolff row is timed on lattices that Swendsen-Wang brought to equilibrium: at beta = 0.6,
    /// deep in the ordered phase of the 2D Ising model (|m| = 0.97), the hot start's lattice is
    /// ordered after [`cluster_floor`], where one Wolff update would leave it near m = 0.
    #[test]
    fn cluster_rows_are_timed_on_lattices_in_equilibrium() {
        let options = options(&[
            "--clusters",
            "wolff",
            "--engine",
            "simple",
            "--sizes",
            "32",
            "--beta",
            "0.6",
        ]);
        let config = bench_config(&options, Backend::Cpu, BenchEngine::Simple, 32);
        config.validate().unwrap();
        let mut engine = open_engine(&config, ising_systems(&config)).unwrap();
        engine.hot_start().unwrap();
        let magnetisation = |engine: &mut dyn Engine| {
            let spins = engine.spins().unwrap();
            let bits = spins.bits().unwrap();
            (2.0 * bits.up_count() as f64 / bits.len() as f64 - 1.0).abs()
        };
        assert!(magnetisation(engine.as_mut()) < 0.2);
        let schedule = Schedule {
            thermalize: 0,
            measure: 1,
            every: 1,
            swap_every: None,
            clusters: config.algorithm.clusters(),
        };
        let floor = cluster_floor(engine.as_mut(), &schedule, ClusterUpdate::Wolff).unwrap();
        assert_eq!(floor.update, "Wolff");
        let m = magnetisation(engine.as_mut());
        assert!(m > 0.9, "|m| = {m} after the equilibrating updates");
    }

    /// A population the device cannot hold is refused with a limits error (which the bench
    /// prints as a skipped row) before anything large is allocated: the simple engine's 66 624
    /// systems of 64^2 exceed the grid's 65535 layers (and lavapipe's binding size).
    #[test]
    fn annealing_bench_refuses_what_the_device_cannot_hold() {
        crate::runtime_dir::for_tests();
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
