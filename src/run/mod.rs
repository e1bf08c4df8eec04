//! One run from its config to its files, for every model: check the config, resolve `engine:
//! Auto` (vector spins have one engine), prepare the run directory (its lock, the refusal to
//! replace a run, the couplings file where the config gives one, the hints), and hand the run to
//! its loop (Metropolis sweeps of Ising spins, with or without parallel tempering or cluster
//! updates, in [`crate::metropolis`]; population annealing in [`crate::annealing`]; vector
//! spins in [`crate::vector`]); then draw its figures where the config asks for plots (the loops
//! hand back what they are drawn from, and know nothing of [`crate::plot`]).

mod checks;
mod hints;

use std::convert::Infallible;
use std::path::Path;

use crate::annealing::{
    ANNEALING_FILES, AnnealedSystems, AnnealingSummary, anneal, checkpoint, ising_annealed,
};
use crate::atomic::ensure_writable_dir;
use crate::config::Config;
use crate::console::note;
use crate::error::{Error, Result};
use crate::io::checkpoint::{RunKind, format_at};
use crate::io::instance::{noting_instance, noting_vacancies, read_instance, read_vacancies};
use crate::io::lock::RunLock;
use crate::io::output::is_temperature_file;
use crate::io::run_dir::{
    CHECKPOINT, COUPLINGS, Ended, FINAL_STATE, RunOptions, RunStart, SUMMARY, VACANCIES, auto_chose,
};
use crate::metropolis::{self, Summary, run_sweeps};
use crate::plot::{is_run_figure, write_annealing_plot, write_run_plots, write_vector_plots};
use crate::stop::StopReason;
use crate::tempering::TEMPERING_FILES;
use crate::vector::{AnnealedStates, VectorFinished, VectorSummary, run_vector};

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

/// The engine choice of every vector-spin run, in the words of `Config::resolve_engine`.
const VECTOR_ENGINE: &str =
    "the vector-spin engine (the only one for vector spins, discrete states and diluted lattices)";

/// What a loop hands back where it ran to its end: the results, and what the figures are drawn
/// from.
enum Finished {
    Sweeps(Box<metropolis::Finished>),
    Annealed(Box<AnnealingSummary>),
    Vector(Box<VectorFinished>),
}

/// Run `config`, writing everything into `options.out`.
pub fn run(config: &Config, options: &RunOptions) -> Result<RunOutcome> {
    config.validate()?;
    let (config, engine_choice) = &resolve_engine(config, options)?;
    ensure_writable_dir(&options.out).map_err(|e| Error::Usage(e.to_string()))?;
    // Before anything looks at the directory's files: another run may be writing them.
    let _lock = RunLock::acquire(&options.out)?;
    let instance = read_instance(config)?;
    let vacancies = read_vacancies(config)?;
    let config_text = noting_instance(config.to_ron_string(), instance.as_deref());
    let config_text = noting_vacancies(config_text, vacancies.as_ref().map(|(_, named)| &**named));
    refuse_replacing_a_run(options)?;
    clear_replaced_run(options)?;
    let auto = auto_chose(engine_choice).is_some();
    if let Some(hint) = hints::idle_lanes_hint(config, auto).filter(|_| options.progress) {
        note!("{hint}");
    }
    let start = &RunStart::new(config, engine_choice, options, config_text);
    let vacancies = vacancies.map(|(vacancies, _)| vacancies);
    let ended = if config.algorithm.annealing().is_some() {
        let systems = |view: &Config| -> Box<dyn AnnealedSystems> {
            match config.is_vector() {
                true => Box::new(AnnealedStates::new(view, instance, vacancies)),
                false => Box::new(ising_annealed(view, instance)),
            }
        };
        anneal(start, systems)?.map(Finished::Annealed)
    } else if config.is_vector() {
        run_vector(start, instance, vacancies)?.map(Finished::Vector)
    } else {
        run_sweeps(start, instance)?.map(Finished::Sweeps)
    };
    let finished = match ended.completed() {
        Ok(finished) => finished,
        Err(early) => return Ok(RunOutcome::early(early)),
    };
    if config.plots {
        finished.draw(&options.out)?;
    }
    Ok(finished.outcome())
}

/// `config` (validated, which checks the multispin layout it may take as it will run) with
/// `engine: Auto` resolved, and the engine choice in words: vector spins have one engine (their
/// configs leave `engine` at `Auto`, which stays as it is); an Ising model with an antiperiodic
/// or open axis, on the honeycomb, triangular or kagome lattice, or the antiferromagnet takes a
/// multispin layout where one fits, else its two states, and keeps its two states where it
/// resumes a run of them ([`holds_states`]).
fn resolve_engine(config: &Config, options: &RunOptions) -> Result<(Config, String)> {
    let resumes_states = options.resume && holds_states(&options.out.join(CHECKPOINT));
    if let Some((resolved, choice)) = config.states_on_multispin().filter(|_| !resumes_states) {
        log::info!("{choice}");
        return Ok((resolved, choice));
    }
    match config.is_vector() {
        true => Ok((config.clone(), VECTOR_ENGINE.to_string())),
        false => Ok(config.resolve_engine()?),
    }
}

/// Whether the checkpoint at `path` is of a run on the vector engines (discrete states, clock
/// angles): an Ising model that `engine: Auto` ran as two states before it took a multispin
/// layout (an antiperiodic or open axis, another lattice, the antiferromagnet) resumes as it
/// started.
fn holds_states(path: &Path) -> bool {
    format_at(path).is_some_and(|format| {
        RunKind::of(format) == Some(RunKind::Vector) || checkpoint::holds_words(format)
    })
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

/// A fresh run told to replace an earlier one (`--force`) first removes the earlier run's files
/// that it may not write again: at other temperatures, or as another kind of run, they would
/// stay beside its own and read as its results. Its per-temperature files and figures, its
/// summaries, final state and disorder (read above where the config names them), and its
/// tempering and annealing tables go; the checkpoint and config are replaced as the run writes
/// them, and files spinflip does not write stay.
fn clear_replaced_run(options: &RunOptions) -> Result<()> {
    if options.resume || !options.overwrite || !options.out.join(CHECKPOINT).exists() {
        return Ok(());
    }
    let listing = |e| Error::io(options.out.clone(), e);
    for entry in std::fs::read_dir(&options.out).map_err(listing)? {
        let entry = entry.map_err(listing)?;
        let replaced = entry.file_name().to_str().is_some_and(is_replaced_output);
        if replaced && entry.file_type().map_err(listing)?.is_file() {
            let path = entry.path();
            std::fs::remove_file(&path).map_err(|e| Error::io(path, e))?;
        }
    }
    Ok(())
}

/// Whether `name` is one of the files [`clear_replaced_run`] removes.
fn is_replaced_output(name: &str) -> bool {
    let of_every_run = [SUMMARY, FINAL_STATE, COUPLINGS, VACANCIES];
    is_temperature_file(name)
        || is_run_figure(name)
        || of_every_run.contains(&name)
        || TEMPERING_FILES.contains(&name)
        || ANNEALING_FILES.contains(&name)
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

impl Finished {
    /// The figures and snapshots of the run, into `out`.
    fn draw(&self, out: &Path) -> Result<()> {
        match self {
            Finished::Sweeps(finished) => write_run_plots(
                out,
                &finished.summary,
                &finished.series,
                |m| finished.sweep_of(m),
                &finished.spins,
            ),
            Finished::Annealed(summary) => write_annealing_plot(out, summary),
            Finished::Vector(finished) => write_vector_plots(out, finished),
        }
    }

    fn outcome(self) -> RunOutcome {
        match self {
            Finished::Sweeps(finished) => RunOutcome::Completed(Box::new(finished.summary)),
            Finished::Annealed(summary) => RunOutcome::Annealed(summary),
            Finished::Vector(finished) => RunOutcome::Vector(Box::new(finished.summary)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::EngineKind;
    use crate::config::testing::sample_with;

    /// An open Ising model that `engine: Auto` puts on a multispin layout keeps its two states
    /// where it resumes a checkpoint of them (a run started before it took the layout), and
    /// takes the layout where it starts or resumes words.
    #[test]
    fn a_run_of_two_states_resumes_as_two_states() {
        let text = sample_with(
            "Ising(dims: 2, size: 32,",
            "Ising(dims: 2, size: 64, boundaries: (Open, Open),",
        );
        let config = Config::from_ron_str(&text).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let checkpoint = |format: u32| {
            let mut bytes = b"SPINFLIP".to_vec();
            bytes.extend(format.to_le_bytes());
            std::fs::write(dir.path().join(CHECKPOINT), bytes).unwrap();
        };
        let engine = |resume: bool| {
            let options = RunOptions {
                resume,
                ..RunOptions::new(dir.path())
            };
            resolve_engine(&config, &options).unwrap().0.engine
        };
        assert!(
            matches!(engine(true), EngineKind::Multispin { .. }),
            "no checkpoint"
        );
        // A vector run's sweeps (format 22) and an anneal of states (format 24).
        for states in [22, 24] {
            checkpoint(states);
            assert_eq!(engine(true), EngineKind::Auto, "format {states}");
            assert!(matches!(engine(false), EngineKind::Multispin { .. }));
        }
        // Multispin sweeps (format 10) and an anneal of Ising spins (format 12).
        for words in [10, 12] {
            checkpoint(words);
            assert!(
                matches!(engine(true), EngineKind::Multispin { .. }),
                "format {words}"
            );
        }
    }
}
