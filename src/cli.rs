//! The command line: `spinflip run | plot | devices | exact | bench`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use crate::bench::{BenchOptions, bench};
use crate::config::{Backend, Config};
use crate::console::{note, say};
use crate::engine::wgpu::adapters;
use crate::error::{Error, Result};
use crate::exact::kaufman_twisted;
use crate::io::run_dir::{CHECKPOINT, RunOptions};
use crate::run::RunOutcome;
use crate::run::run;
use crate::stop::{RESUME_EXIT_STATUS, parse_wall_time};

/// Monte Carlo simulation of Ising-type spin models on GPUs.
#[derive(Debug, Parser)]
#[command(name = "spinflip", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Backends selectable on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    Auto,
    Cpu,
    Wgpu,
    Cuda,
}

impl From<BackendArg> for Backend {
    fn from(b: BackendArg) -> Self {
        match b {
            BackendArg::Auto => Backend::Auto,
            BackendArg::Cpu => Backend::Cpu,
            BackendArg::Wgpu => Backend::Wgpu,
            BackendArg::Cuda => Backend::Cuda,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a simulation from a RON config (the built-in default without one).
    Run {
        /// RON config file.
        config: Option<PathBuf>,
        /// Output directory.
        #[arg(long, default_value = "spinflip-out")]
        out: PathBuf,
        /// Continue a killed run from OUT/checkpoint.bin.
        #[arg(long, conflicts_with = "force")]
        resume: bool,
        /// Start afresh even where OUT holds an earlier run: its files are replaced, and those
        /// of its files this run does not write (other temperatures', tempering tables) removed.
        #[arg(long)]
        force: bool,
        /// Override the config's backend.
        #[arg(long, value_enum)]
        backend: Option<BackendArg>,
        /// Override the config's adapter (index, backend name or name substring).
        #[arg(long)]
        adapter: Option<String>,
        /// Print the built-in default config and exit.
        #[arg(long)]
        print_default: bool,
        /// Stop with a checkpoint before this much time has passed since the start, and exit
        /// with status 75 (continue with --resume): seconds, 23h50m, or [D-]HH:MM:SS. SIGTERM,
        /// SIGINT and SIGUSR1 stop the same way.
        #[arg(long, value_parser = parse_wall_time)]
        wall_time: Option<Duration>,
    },
    /// Redraw a run's plots and snapshots from its output directory; with several directories
    /// (runs of one model at different L), overlay them instead (Binder U4 and e versus beta,
    /// or g and xi_L/L versus T) for finite-size crossings.
    ///
    /// One directory: plot_<key>.svg, timeseries_<tag>.svg and snapshot_<tag>.png, replacing
    /// the run's own. Several: overlay_<key>.svg, one curve per run, labelled by L (and by the
    /// directory where runs share L). Files go into the first directory unless --out names
    /// another.
    Plot {
        /// Run output directories (directories written by earlier versions are read too).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Write the figures into OUT (created if missing) instead of the first directory.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// List GPU adapters with their limits and features, then CUDA devices.
    Devices {
        /// JSON (the wgpu adapters only) instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Kaufman's exact e, c, f of the 2D Ising model on an L x L periodic lattice, as JSON.
    Exact {
        #[arg(long)]
        size: u32,
        #[arg(long)]
        beta: f64,
        /// Antiperiodic axes (0, 1 or 2): the torus twisted along them, whose bonds across
        /// those edges are reversed (`boundaries: (Periodic, Antiperiodic)` for 1).
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=2))]
        antiperiodic: u32,
    },
    /// Measure sweep throughput (flips/ns, ps/flip) per backend and size.
    Bench(BenchOptions),
}

/// Tell how a run ended (its table, where its results are, or how to continue it); the exit
/// status. A run that failed for want of disk space after a checkpoint exits with
/// [`RESUME_EXIT_STATUS`] too: its last checkpoint is intact (checkpoints are replaced
/// atomically), and it continues once there is space.
fn report(outcome: Result<RunOutcome>, config: &Config, out: &Path) -> Result<u8> {
    let outcome = match outcome {
        Err(error) if error.is_out_of_space() && out.join(CHECKPOINT).is_file() => {
            note!("spinflip: error: {error}");
            note!(
                "spinflip: the disk is full, but the last checkpoint in {} is intact: free space \
                 and continue with `spinflip run ... --out {} --resume` (exit status \
                 {RESUME_EXIT_STATUS})",
                out.display(),
                out.display()
            );
            return Ok(RESUME_EXIT_STATUS);
        }
        outcome => outcome?,
    };
    match outcome {
        RunOutcome::Completed(summary) => {
            say!("{}", crate::metropolis::summary_table(&summary));
            say!("results in {}", out.display());
        }
        RunOutcome::Annealed(summary) => {
            say!("{}", crate::annealing::annealing_table(&summary));
            say!("results in {}", out.display());
        }
        RunOutcome::Vector(summary) => {
            say!(
                "{}",
                crate::vector::vector_table(&summary, config.model.disorder())
            );
            say!("results in {}", out.display());
        }
        RunOutcome::Halted { sweeps_done } => say!("halted after {sweeps_done} sweeps"),
        RunOutcome::Stopped {
            sweeps_done,
            reason,
        } => {
            note!(
                "spinflip: stopped after {sweeps_done} sweeps ({reason}) with a checkpoint \
                 in {}: continue with `spinflip run ... --out {} --resume` (exit status \
                 {RESUME_EXIT_STATUS})",
                out.display(),
                out.display()
            );
            return Ok(RESUME_EXIT_STATUS);
        }
    }
    Ok(0)
}

/// Execute the parsed command line; the exit status of a success: 0, or
/// [`RESUME_EXIT_STATUS`] where a run stopped early with a checkpoint to resume.
pub fn execute(cli: Cli) -> Result<u8> {
    // The wall time counts the process's start-up (MPI's too) as a batch system does.
    let started = crate::stop::process_start();
    match cli.command {
        Command::Run {
            config,
            out,
            resume,
            force,
            backend,
            adapter,
            print_default,
            wall_time,
        } => {
            if print_default {
                let source = Config::default_source();
                std::io::stdout()
                    .write_all(source.as_bytes())
                    .map_err(|e| Error::io("standard output", e))?;
                return Ok(0);
            }
            let mut config = match &config {
                Some(path) => Config::from_path(path)?,
                None => Config::default_config()?,
            };
            if let Some(backend) = backend {
                config.backend = backend.into();
            }
            if adapter.is_some() {
                config.adapter = adapter;
            }
            let options = RunOptions {
                resume,
                progress: true,
                overwrite: force,
                deadline: wall_time.map(|limit| started + limit),
                ..RunOptions::new(&out)
            };
            report(run(&config, &options), &config, &out)
        }
        Command::Plot { dirs, out } => {
            let out = crate::plot::redraw(&dirs, out.as_deref())?;
            say!("plots in {}", out.display());
            Ok(0)
        }
        Command::Devices { json } => devices(json).map(|()| 0),
        Command::Exact {
            size,
            beta,
            antiperiodic,
        } => {
            if size < 2 || size % 2 != 0 {
                return Err(Error::Usage(format!(
                    "--size must be even and >= 2, got {size}"
                )));
            }
            if !(beta.is_finite() && beta > 0.0) {
                return Err(Error::Usage(format!(
                    "--beta must be finite and > 0, got {beta}"
                )));
            }
            let exact = kaufman_twisted(size, beta, antiperiodic).ok_or_else(|| {
                Error::Usage(format!(
                    "the {size} x {size} torus twisted along {antiperiodic} axes at beta {beta}: \
                     Kaufman's terms cancel past the digits of a double (a smaller size or beta)"
                ))
            })?;
            say!(
                "{}",
                serde_json::to_string(&exact).expect("plain numbers serialise")
            );
            Ok(0)
        }
        Command::Bench(options) => bench(&options).map(|()| 0),
    }
}

fn devices(json: bool) -> Result<()> {
    let instance = adapters::instance();
    let summaries: Vec<_> = adapters::enumerate(&instance)
        .iter()
        .enumerate()
        .map(|(i, a)| adapters::summarize(i, a))
        .collect();
    if json {
        say!(
            "{}",
            serde_json::to_string_pretty(&summaries).expect("plain data serialises")
        );
        return Ok(());
    }
    if summaries.is_empty() {
        say!("no GPU adapter found; `run` uses the CPU engine with backend Auto");
    }
    for s in &summaries {
        say!("{}: {} ({}, {})", s.index, s.name, s.backend, s.device_type);
        say!("    driver: {}", s.driver);
        say!(
            "    SHADER_INT64: {}, subgroups: {}",
            s.shader_int64,
            s.subgroups
        );
        say!(
            "    max_buffer_size: {}, max_storage_buffer_binding_size: {}",
            s.max_buffer_size,
            s.max_storage_buffer_binding_size
        );
        say!(
            "    max_compute_workgroups_per_dimension: {}, max_compute_invocations_per_workgroup: {}, workgroup storage: {} bytes",
            s.max_compute_workgroups_per_dimension,
            s.max_compute_invocations_per_workgroup,
            s.max_compute_workgroup_storage_size
        );
    }
    print_cuda_devices();
    Ok(())
}

/// The CUDA devices, or why there are none: listing never fails the command.
#[cfg(feature = "cuda")]
fn print_cuda_devices() {
    match crate::engine::cuda::devices() {
        Err(error) => say!("{error}"),
        Ok(devices) if devices.is_empty() => say!("CUDA: no device"),
        Ok(devices) => {
            for d in &devices {
                say!(
                    "cuda {}: {} (compute capability {}, {} multiprocessors)",
                    d.index,
                    d.name,
                    d.compute_capability,
                    d.multiprocessors
                );
                say!(
                    "    memory: {} bytes, driver CUDA version: {}",
                    d.memory_bytes,
                    d.driver_cuda_version
                );
            }
        }
    }
}

#[cfg(not(feature = "cuda"))]
fn print_cuda_devices() {
    say!("CUDA: not compiled in (rebuild with `--features cuda`)");
}
