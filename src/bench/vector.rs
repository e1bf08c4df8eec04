//! `spinflip bench --model xy|heisenberg`: the vector-spin engine's Metropolis sweeps (uniform
//! proposals, one hit, no over-relaxation) per backend and size, in picoseconds per attempted
//! update, beside the update's memory floor (bytes it must move at the least).

use std::time::Instant;

use serde::Serialize;

use super::options::{BenchEngine, BenchOptions, bench_config};
use crate::config::{Backend, Config};
use crate::engine::open::open_vector_engine;
use crate::engine::vector::{UNIFORM, VectorSweeps};
use crate::error::{Error, Result};
use crate::model::vector::vector_systems;

/// One row of the vector benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct VectorBenchResult {
    pub backend: String,
    pub adapter: String,
    pub model: String,
    pub size: u32,
    pub systems: u32,
    pub sweeps: u32,
    pub seconds: f64,
    /// Picoseconds per attempted Metropolis update (site and proposal).
    pub ps_per_update: f64,
    /// The least memory traffic of an update, [`bytes_per_update`].
    pub bytes_per_update: u32,
}

/// Bytes an update of `n`-component spins moves at the least: its spin read and written, and
/// the neighbours' (the other colour's spins, each read once per colour pass by some update),
/// `4 n` bytes each. Divided into a device's memory bandwidth this is the floor of a sweep
/// that reads its lattices from memory; tiles updated several times in on-chip memory (the
/// double checkerboard) go below it.
pub fn bytes_per_update(n: u32) -> u32 {
    3 * 4 * n
}

/// Measure every backend of `backends` at every size of `options` and print the rows (JSON
/// lines with `--json`); sizes the device cannot hold are skipped, naming why.
pub(super) fn bench_vectors(options: &BenchOptions, backends: &[Backend]) -> Result<()> {
    if !options.json {
        println!(
            "{:<6} {:<40} {:<16} {:>6} {:>7} {:>7} {:>10} {:>10}",
            "backend", "adapter", "model", "L", "systems", "sweeps", "ps/update", "B/update"
        );
    }
    for &backend in backends {
        for &size in &options.sizes {
            let config = bench_config(options, backend, BenchEngine::Simple, size);
            let result = match config.validate() {
                Err(reason) => Err(Error::Limits(reason.to_string())),
                Ok(()) => bench_vector(&config, options.seconds),
            };
            match result {
                Err(Error::Limits(reason)) if options.json => {
                    eprintln!("skipped L={size}: {reason}")
                }
                Err(Error::Limits(reason)) => println!("skipped L={size}: {reason}"),
                result => print_row(options.json, &result?),
            }
        }
    }
    Ok(())
}

fn print_row(json: bool, row: &VectorBenchResult) {
    match json {
        true => println!(
            "{}",
            serde_json::to_string(row).expect("plain data serialises")
        ),
        false => println!(
            "{:<6} {:<40} {:<16} {:>6} {:>7} {:>7} {:>10.2} {:>10}",
            row.backend,
            row.adapter,
            row.model,
            row.size,
            row.systems,
            row.sweeps,
            row.ps_per_update,
            row.bytes_per_update
        ),
    }
}

/// The row of `config` (a validated vector-spin config): sweeps of doubling count until one run
/// takes `min_seconds` (after one sweep that compiles the kernels), then that count once more.
pub(super) fn bench_vector(config: &Config, min_seconds: f64) -> Result<VectorBenchResult> {
    let systems = vector_systems(config);
    let updates = VectorSweeps {
        hits: 1,
        overrelaxation: 0,
    };
    let mut engine = open_vector_engine(config, systems.clone(), updates)?;
    engine.hot_start()?;
    let widths = vec![UNIFORM; systems.betas.len()];
    let mut run = |from: u32, sweeps: u32| -> Result<f64> {
        let started = Instant::now();
        engine.sweeps(from..from + sweeps, &widths)?;
        Ok(started.elapsed().as_secs_f64())
    };
    run(0, 1)?;
    let (mut from, mut sweeps) = (1, 1);
    let seconds = loop {
        if run(from, sweeps)? >= min_seconds || sweeps >= 1 << 20 {
            break run(from + sweeps, sweeps)?;
        }
        from += sweeps;
        sweeps *= 2;
    };
    let info = engine.info();
    let updates =
        f64::from(sweeps) * (systems.lattice.sites() * u64::from(systems.systems())) as f64;
    Ok(VectorBenchResult {
        backend: info.backend,
        adapter: info.adapter,
        model: config.model.name(),
        size: systems.lattice.size,
        systems: systems.systems(),
        sweeps,
        seconds,
        ps_per_update: seconds * 1e12 / updates,
        bytes_per_update: bytes_per_update(systems.components),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn a_heisenberg_row_times_the_cpu_engine_and_states_its_floor() {
        let options = BenchOptions::parse_from([
            "bench",
            "--model",
            "heisenberg",
            "--dims",
            "3",
            "--sizes",
            "4",
            "--seconds",
            "0.01",
        ]);
        let config = bench_config(&options, Backend::Cpu, BenchEngine::Amsc, 4);
        config.validate().unwrap();
        let row = bench_vector(&config, options.seconds).unwrap();
        assert_eq!(
            (row.backend.as_str(), row.size, row.bytes_per_update),
            ("cpu", 4, 36)
        );
        assert!(row.ps_per_update > 0.0 && row.sweeps >= 1, "{row:?}");
        assert_eq!(row.model, "Heisenberg 3D");
    }
}
