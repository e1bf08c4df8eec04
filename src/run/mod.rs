//! One run from its config to its files: check the config, resolve `engine: Auto`, prepare the
//! run directory, and hand the run to its algorithm's loop (Metropolis sweeps, with or without
//! parallel tempering, in [`crate::metropolis`]; population annealing in
//! [`crate::annealing`]); then draw its figures where the config asks for plots (the loops
//! hand back what they are drawn from, and know nothing of [`crate::plot`]).

mod checks;
mod hints;

use std::convert::Infallible;

use crate::annealing::{AnnealingSummary, anneal};
use crate::atomic::ensure_writable_dir;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::io::instance::{noting_instance, read_instance};
use crate::io::lock::RunLock;
use crate::io::run_dir::{CHECKPOINT, Ended, RunOptions, auto_chose};
use crate::metropolis::{Finished, Summary, run_sweeps};
use crate::plot::{write_annealing_plot, write_run_plots, write_vector_plots};
use crate::stop::StopReason;
use crate::vector::{VectorSummary, run_vector};

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RunOutcome {
    Completed(Box<Summary>),
    /// A population-annealing run.
    Annealed(Box<AnnealingSummary>),
    /// A run of vector spins (`XY`, `Heisenberg`).
    Vector(Box<VectorSummary>),
    Halted {
        sweeps_done: u64,
    },
    /// Stopped by a signal or the wall time, with a checkpoint to continue from (`--resume`).
    Stopped {
        sweeps_done: u64,
        reason: StopReason,
    },
}

/// Run `config`, writing everything into `options.out`.
pub fn run(config: &Config, options: &RunOptions) -> Result<RunOutcome> {
    config.validate()?;
    if config.model.is_vector() {
        return run_vector_model(config, options);
    }
    let (config, engine_choice) = &config.resolve_engine()?;
    ensure_writable_dir(&options.out).map_err(|e| Error::Usage(e.to_string()))?;
    // Before anything looks at the directory's files: another run may be writing them.
    let _lock = RunLock::acquire(&options.out)?;
    let instance = read_instance(config)?;
    let config_text = noting_instance(config.to_ron_string(), instance.as_deref());
    refuse_replacing_a_run(options)?;
    let auto = auto_chose(engine_choice).is_some();
    if let Some(hint) = hints::idle_lanes_hint(config, auto).filter(|_| options.progress) {
        eprintln!("{hint}");
    }
    Ok(match config.algorithm.annealing() {
        Some(_) => {
            match anneal(config, engine_choice, options, &config_text, instance)?.completed() {
                Ok(summary) => {
                    if config.plots {
                        write_annealing_plot(&options.out, &summary)?;
                    }
                    RunOutcome::Annealed(summary)
                }
                Err(early) => RunOutcome::early(early),
            }
        }
        None => {
            match run_sweeps(config, engine_choice, options, &config_text, instance)?.completed() {
                Ok(finished) => {
                    if config.plots {
                        write_figures(&options.out, &finished)?;
                    }
                    RunOutcome::Completed(Box::new(finished.summary))
                }
                Err(early) => RunOutcome::early(early),
            }
        }
    })
}

/// A vector-spin run: its own loop on its own engine, on the backend the config names.
fn run_vector_model(config: &Config, options: &RunOptions) -> Result<RunOutcome> {
    ensure_writable_dir(&options.out).map_err(|e| Error::Usage(e.to_string()))?;
    let _lock = RunLock::acquire(&options.out)?;
    refuse_replacing_a_run(options)?;
    let config_text = config.to_ron_string();
    let engine_choice = "the vector-spin engine (the only one for XY and Heisenberg)";
    Ok(
        match run_vector(config, engine_choice, options, &config_text)?.completed() {
            Ok(finished) => {
                if config.plots {
                    write_vector_plots(&options.out, &finished)?;
                }
                RunOutcome::Vector(Box::new(finished.summary))
            }
            Err(early) => RunOutcome::early(early),
        },
    )
}

/// A fresh run refuses a directory that holds a run's checkpoint, unless told to replace it.
fn refuse_replacing_a_run(options: &RunOptions) -> Result<()> {
    if !options.resume && !options.overwrite && options.out.join(CHECKPOINT).exists() {
        return Err(Error::Usage(format!(
            "{} already holds a run ({CHECKPOINT}); continue it with --resume, or start over with --force",
            options.out.display()
        )));
    }
    Ok(())
}

impl RunOutcome {
    /// The outcome of a loop that ended before its end.
    fn early(ended: Ended<Infallible>) -> Self {
        match ended {
            Ended::Halted { sweeps_done } => RunOutcome::Halted { sweeps_done },
            Ended::Stopped {
                sweeps_done,
                reason,
            } => RunOutcome::Stopped {
                sweeps_done,
                reason,
            },
            Ended::Completed(never) => match never {},
        }
    }
}

/// The figures and snapshots of a finished run of sweeps, into `out`.
fn write_figures(out: &std::path::Path, finished: &Finished) -> Result<()> {
    let sweep_of = |m| finished.sweep_of(m);
    write_run_plots(
        out,
        &finished.summary,
        &finished.series,
        sweep_of,
        &finished.spins,
    )
}
