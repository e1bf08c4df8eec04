//! The run directory: the names of the files every run writes there, how a run is asked to
//! use it (fresh, resumed, forced), and what every loop (Metropolis sweeps, population
//! annealing, vector spins) shares about it: the start it receives ([`RunStart`]), its start
//! lines, its checkpoints' boundaries and how it ends.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::config::{Config, TemperatureScale};
use crate::console::note;
use crate::engine::EngineInfo;
use crate::error::{Error, Result};
use crate::io::checkpoint::fingerprint;
use crate::io::output::write_file;
use crate::io::provenance::{Provenance, ProvenanceClock};
use crate::stop::{StopReason, Stops};

/// File names in the output directory.
pub const CHECKPOINT: &str = "checkpoint.bin";
pub const CONFIG: &str = "config.ron";
pub const SUMMARY: &str = "summary.json";
pub const FINAL_STATE: &str = "final_state.npy";
pub const COUPLINGS: &str = "couplings.npy";

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Output directory (created if missing).
    pub out: PathBuf,
    /// Continue from `out/checkpoint.bin`.
    pub resume: bool,
    /// Show a progress bar (on a terminal) or log lines.
    pub progress: bool,
    /// Told how far a run of sweeps has come after each plan, whether or not `progress` is on.
    pub on_progress: Option<ProgressHook>,
    /// Stop after a checkpoint at or past this many sweeps, as a killed run would (tests).
    pub halt_after: Option<u64>,
    /// Start afresh even where `out` already holds a run's checkpoint.
    pub overwrite: bool,
    /// Stop with a checkpoint before this time (`--wall-time`, counted from the start of the
    /// process), leaving the margin of [`crate::stop::Stops`].
    pub deadline: Option<Instant>,
}

impl RunOptions {
    /// A fresh, quiet run into `out`.
    pub fn new(out: impl Into<PathBuf>) -> Self {
        RunOptions {
            out: out.into(),
            resume: false,
            progress: false,
            on_progress: None,
            halt_after: None,
            overwrite: false,
            deadline: None,
        }
    }
}

/// A run as the entry hands it to its loop: the config (validated, `engine: Auto` resolved), the
/// engine choice in words, how to run, and what every loop derives from them alike: the config's
/// text, the fingerprint its checkpoints carry, their path, and the clock of this invocation's
/// provenance.
pub struct RunStart<'a> {
    pub config: &'a Config,
    /// Whether the config named the engine, or what `engine: Auto` chose and why.
    pub engine_choice: &'a str,
    pub options: &'a RunOptions,
    /// The config's RON with its instance noted (`config.ron`).
    config_text: String,
    /// [`fingerprint`] of the config's text: a checkpoint of another config is refused.
    pub fingerprint: u64,
    /// `checkpoint.bin` in the run's directory.
    pub checkpoint: PathBuf,
    clock: ProvenanceClock,
}

impl<'a> RunStart<'a> {
    /// The start of a run of `config` (its text `config_text`), now.
    pub fn new(
        config: &'a Config,
        engine_choice: &'a str,
        options: &'a RunOptions,
        config_text: String,
    ) -> Self {
        RunStart {
            config,
            engine_choice,
            options,
            fingerprint: fingerprint(&config_text),
            config_text,
            checkpoint: options.out.join(CHECKPOINT),
            clock: ProvenanceClock::start(options.resume),
        }
    }

    /// Write `config.ron`, once the engine has opened and a resumed run's checkpoint has been
    /// read against the config: a run refused there leaves the directory's `config.ron`, the
    /// one its checkpoint was written by, as it was.
    pub fn write_config(&self) -> Result<()> {
        write_file(&self.options.out, CONFIG, self.config_text.as_bytes())
    }

    /// Where progress is shown, on standard error: the start line ([`start_line`]; `plan`,
    /// what the run will do) and, for `--resume`, the sweep the run continues from (`of` the
    /// sweeps in all, where they are known before the run).
    pub fn announce(&self, info: &EngineInfo, plan: &str, sweeps_done: u64, of: Option<u64>) {
        if !self.options.progress {
            return;
        }
        note!(
            "{}",
            start_line(self.config, info, self.engine_choice, plan)
        );
        if self.options.resume {
            let of = of.map_or(String::new(), |total| format!(" of {total}"));
            note!("spinflip: resuming from sweep {sweeps_done}{of}");
        }
    }

    /// The provenance of this invocation, ending now, on the engine `info`.
    pub fn provenance(&self, info: &EngineInfo) -> Provenance {
        self.clock.finish(info)
    }

    /// What stops the run early, with a checkpoint: a signal, or [`RunOptions::deadline`].
    pub fn stops(&self) -> Stops {
        Stops::new(self.options.deadline)
    }

    /// At the boundary `from -> to` between two plans of a loop of sweeps (not after its
    /// last): write a checkpoint (`write`) where the plan crossed a multiple of the config's
    /// `checkpoint_every` or `stops` asks for a stop, and say whether the loop ends there:
    /// stopped, or halted at the first checkpoint from [`RunOptions::halt_after`] on.
    pub fn checkpoint_between_plans<S>(
        &self,
        (from, to): (u64, u64),
        stops: &mut Stops,
        write: impl FnOnce() -> Result<()>,
    ) -> Result<Option<Ended<S>>> {
        let stop = stops.due();
        if !crosses_checkpoint(from, to, self.config.checkpoint_every) && stop.is_none() {
            return Ok(None);
        }
        let writing = Instant::now();
        write()?;
        stops.checkpoint_took(writing.elapsed());
        Ok(ended_at_checkpoint(stop, to, self.options.halt_after))
    }
}

/// A function told `(sweeps done, sweeps in all)` after each plan of a run of sweeps (population
/// annealing does not call it), for a program that embeds the library and shows progress its own
/// way (the Python package hands it to a Python callable). It runs on the loop's thread, between
/// plans: the run waits for it.
#[derive(Clone)]
pub struct ProgressHook(pub Arc<dyn Fn(u64, u64) + Send + Sync>);

impl std::fmt::Debug for ProgressHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressHook")
    }
}

/// How a loop ended: with its results, halted after a checkpoint ([`RunOptions::halt_after`]),
/// or stopped by a signal or the wall time after writing one (then to be resumed).
#[derive(Debug, Clone, PartialEq)]
pub enum Ended<S> {
    Completed(S),
    Halted {
        sweeps_done: u64,
    },
    Stopped {
        sweeps_done: u64,
        reason: StopReason,
    },
}

impl<S> Ended<S> {
    /// The results of a completed loop, or how it ended early, as the end of a caller whose
    /// results are of another type.
    pub fn completed<T>(self) -> std::result::Result<S, Ended<T>> {
        match self {
            Ended::Completed(results) => Ok(results),
            Ended::Halted { sweeps_done } => Err(Ended::Halted { sweeps_done }),
            Ended::Stopped {
                sweeps_done,
                reason,
            } => Err(Ended::Stopped {
                sweeps_done,
                reason,
            }),
        }
    }

    /// The results of a completed loop turned into `f`'s; an early end as it was.
    pub fn map<T>(self, f: impl FnOnce(S) -> T) -> Ended<T> {
        match self.completed() {
            Ok(results) => Ended::Completed(f(results)),
            Err(early) => early,
        }
    }
}

/// What ran where: the first fields of `summary.json` and `annealing.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunDescription {
    pub spinflip_version: String,
    pub backend: String,
    pub adapter: String,
    pub engine: String,
    /// Whether the config named the engine, or what `engine: Auto` chose and why.
    #[serde(default)]
    pub engine_choice: String,
    /// "Ising 2D", "Edwards-Anderson +-J 3D".
    pub model: String,
    pub dims: u32,
    pub size: u32,
    pub field: f64,
    pub samples: u32,
    /// Replicas per sample and temperature (population annealing: the target population R).
    pub replicas: u32,
    pub seed: u64,
    /// Whether the config gave temperatures or inverse temperatures: the file names, the table
    /// and the warnings show them so (`beta` for summaries written before it was recorded).
    #[serde(default)]
    pub temperature_scale: TemperatureScale,
}

impl RunDescription {
    pub fn new(config: &Config, info: EngineInfo, engine_choice: &str) -> Self {
        RunDescription {
            spinflip_version: env!("CARGO_PKG_VERSION").to_string(),
            backend: info.backend,
            adapter: info.adapter,
            engine: info.engine,
            engine_choice: engine_choice.to_string(),
            model: config.model.name(),
            dims: config.model.dims(),
            size: config.model.size(),
            field: config.model.field(),
            samples: config.samples,
            replicas: config.replicas,
            seed: config.seed,
            temperature_scale: config.temperatures.scale(),
        }
    }
}

/// The line a run prints on standard error as it starts: the model, the adapter and backend,
/// the engine and why it runs (named, or what `engine: Auto` saw), and `plan`, what the run
/// will do.
fn start_line(config: &Config, info: &EngineInfo, engine_choice: &str, plan: &str) -> String {
    let model = RunDescription::new(config, info.clone(), engine_choice).model;
    format!(
        "spinflip: {model} L={} on {} ({}), engine {} ({}); {plan}",
        config.model.size(),
        info.adapter,
        info.backend,
        info.engine,
        why_this_engine(engine_choice)
    )
}

/// Why the engine runs, in short: `engine: Auto`'s reason (the words in the last parentheses of
/// its choice, after the engine it names), or the choice as it stands.
fn why_this_engine(engine_choice: &str) -> String {
    match auto_chose(engine_choice) {
        Some(rest) => match rest.split_once(" (") {
            Some((_, why)) => format!("engine: Auto, as {}", why.strip_suffix(')').unwrap_or(why)),
            None => format!("engine: Auto chose {rest}"),
        },
        None => engine_choice.to_string(),
    }
}

/// What `engine: Auto` chose and why, where the engine choice (`Config::resolve_engine`'s
/// words) is Auto's; `None` for an engine named in the config.
pub fn auto_chose(engine_choice: &str) -> Option<&str> {
    engine_choice.strip_prefix("no engine given, so engine: Auto chose ")
}

/// Whether a multiple of `every` lies in `(from, to]`.
pub fn crosses_checkpoint(from: u64, to: u64, every: u64) -> bool {
    every > 0 && to / every > from / every
}

/// How a loop ends at the checkpoint it has just written after `sweeps_done` sweeps: stopped
/// for `stop`, halted at the first checkpoint from `halt_after` on, or not (`None`).
pub fn ended_at_checkpoint<S>(
    stop: Option<StopReason>,
    sweeps_done: u64,
    halt_after: Option<u64>,
) -> Option<Ended<S>> {
    match stop {
        Some(reason) => Some(Ended::Stopped {
            sweeps_done,
            reason,
        }),
        None if halt_after.is_some_and(|h| sweeps_done >= h) => Some(Ended::Halted { sweeps_done }),
        None => None,
    }
}

/// The checkpoint in `out` that `--resume` continues, refused where there is none.
pub fn checkpoint_to_resume(out: &Path) -> Result<PathBuf> {
    let path = out.join(CHECKPOINT);
    if !path.exists() {
        return Err(Error::Usage(format!(
            "--resume: no checkpoint at {}: no run there wrote one yet, so there is nothing to \
             continue; run the same command without --resume to start the run",
            path.display()
        )));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reason_of_auto_is_kept_whole() {
        let choice = "no engine given, so engine: Auto chose Multispin(layout:Amsc(lanes:\
                      Temperatures),randoms:Exact) (the temperatures (at most 32) share words, \
                      one per lane)";
        assert_eq!(
            why_this_engine(choice),
            "engine: Auto, as the temperatures (at most 32) share words, one per lane"
        );
        let named = "engine named in the config";
        assert_eq!(why_this_engine(named), named);
    }
}
