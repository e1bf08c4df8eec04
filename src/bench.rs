//! `spinflip bench`: sweep throughput per backend and lattice size.
//!
//! Each measurement runs plans of doubling sweep counts until one takes at least
//! `--seconds`, and reports that plan's rate: site updates (flip attempts) per nanosecond and
//! picoseconds per flip. Pipeline compilation and uploads are outside the timed plans.

use std::time::Instant;

use clap::ValueEnum;
use serde::Serialize;

use crate::config::{Backend, Config, PhiloxPath};
use crate::engine::{Engine, Plan};
use crate::error::{Error, Result};
use crate::model::Lattice;
use crate::model::ising::IsingSystems;
use crate::sim::{initial_spins, open_engine};

/// Which backends to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchBackend {
    /// The CPU and wgpu engines (CUDA only when named: most machines have no NVIDIA driver).
    All,
    Cpu,
    Wgpu,
    Cuda,
}

/// Options of `spinflip bench`.
#[derive(Debug, Clone, clap::Parser)]
pub struct BenchOptions {
    /// Backends to measure.
    #[arg(long, value_enum, default_value = "all")]
    pub backend: BenchBackend,
    /// Lattice dimension.
    #[arg(long, default_value_t = 2)]
    pub dims: u32,
    /// Linear sizes (even).
    #[arg(long, value_delimiter = ',', default_values_t = vec![256, 1024, 4096])]
    pub sizes: Vec<u32>,
    /// Independent systems per run.
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
    /// Print JSON lines instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Philox paths selectable on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PhiloxArg {
    Auto,
    Int64,
    U32,
}

/// One row of the benchmark table.
#[derive(Debug, Clone, Serialize)]
pub struct BenchResult {
    pub backend: String,
    pub adapter: String,
    pub engine: &'static str,
    pub dims: u32,
    pub size: u32,
    pub systems: u32,
    pub sweeps: u64,
    pub seconds: f64,
    pub flips_per_ns: f64,
    pub ps_per_flip: f64,
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
    if !options.json {
        println!(
            "{:<6} {:<40} {:>4} {:>6} {:>7} {:>7} {:>10} {:>10}",
            "engine", "adapter", "dims", "L", "systems", "sweeps", "flips/ns", "ps/flip"
        );
    }
    for backend in backends {
        for &size in &options.sizes {
            let result = bench_one(options, backend, size)?;
            if options.json {
                println!(
                    "{}",
                    serde_json::to_string(&result).expect("plain data serialises")
                );
            } else {
                println!(
                    "{:<6} {:<40} {:>4} {:>6} {:>7} {:>7} {:>10.3} {:>10.1}",
                    result.backend,
                    result.adapter,
                    result.dims,
                    result.size,
                    result.systems,
                    result.sweeps,
                    result.flips_per_ns,
                    result.ps_per_flip
                );
            }
        }
    }
    Ok(())
}

fn bench_config(options: &BenchOptions, backend: Backend) -> Config {
    let mut config = Config::default_config().expect("the built-in config is valid");
    config.backend = backend;
    config.adapter = options.adapter.clone();
    config.workgroup_size = options.workgroup_size;
    config.philox = match options.philox {
        PhiloxArg::Auto => PhiloxPath::Auto,
        PhiloxArg::Int64 => PhiloxPath::Int64,
        PhiloxArg::U32 => PhiloxPath::U32,
    };
    config
}

fn bench_one(options: &BenchOptions, backend: Backend, size: u32) -> Result<BenchResult> {
    let systems = IsingSystems {
        lattice: Lattice::new(options.dims, size),
        field: 0.0,
        betas: vec![options.beta],
        replicas: options.systems,
        seed: 1,
    };
    let config = bench_config(options, backend);
    let mut engine = open_engine(&config, systems.clone())?;
    engine.set_spins(&initial_spins(&systems))?;
    let flips_per_sweep = systems.lattice.sites() * u64::from(systems.systems());
    let (mut sweeps, mut next_sweep) = (1u64, 0u64);
    timed_sweeps(engine.as_mut(), &mut next_sweep, 1)?; // compiles pipelines, warms caches
    loop {
        let seconds = timed_sweeps(engine.as_mut(), &mut next_sweep, sweeps)?;
        if seconds >= options.seconds || sweeps >= 1 << 20 {
            let flips_per_ns = (sweeps * flips_per_sweep) as f64 / (seconds * 1e9);
            let info = engine.info();
            return Ok(BenchResult {
                backend: info.backend,
                adapter: info.adapter,
                engine: "simple",
                dims: options.dims,
                size,
                systems: systems.systems(),
                sweeps,
                seconds,
                flips_per_ns,
                ps_per_flip: 1000.0 / flips_per_ns,
            });
        }
        sweeps *= 2;
    }
}

fn timed_sweeps(engine: &mut dyn Engine, next_sweep: &mut u64, sweeps: u64) -> Result<f64> {
    let mut plan = Plan::default();
    for _ in 0..sweeps {
        plan.sweep(*next_sweep as u32);
        *next_sweep += 1;
    }
    let started = Instant::now();
    engine.execute(&plan)?;
    Ok(started.elapsed().as_secs_f64())
}
