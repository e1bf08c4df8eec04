//! The run directory: the names of the files every run writes there, how a run is asked to
//! use it (fresh, resumed, forced), and what every loop (Metropolis sweeps, population
//! annealing, vector spins) shares about it: the start it receives ([`RunStart`]), its start
//! lines, its checkpoints' boundaries and how it ends.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::config::{Boundaries, Config, LatticeKind, TemperatureScale};
use crate::console::note;
use crate::engine::EngineInfo;
use crate::error::{CheckpointError, Error, Result};
use crate::io::checkpoint::fingerprint;
use crate::io::output::write_file;
use crate::io::provenance::{Provenance, ProvenanceClock};
use crate::model::Lattice;
use crate::stop::{StopReason, Stops};

/// File names in the output directory.
pub const CHECKPOINT: &str = "checkpoint.bin";
pub const CONFIG: &str = "config.ron";
pub const SUMMARY: &str = "summary.json";
pub const FINAL_STATE: &str = "final_state.npy";
pub const COUPLINGS: &str = "couplings.npy";
/// A diluted model's empty sites (`vector::outputs`).
pub const VACANCIES: &str = "vacancies.npy";

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
    /// [`trajectory_fingerprint`] of the config: what its checkpoints carry, so that they
    /// resume with any config that continues the same trajectory.
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
            fingerprint: trajectory_fingerprint(config, &config_text),
            config_text,
            checkpoint: options.out.join(CHECKPOINT),
            clock: ProvenanceClock::start(options.resume),
        }
    }

    /// For `--resume`: the checkpoint in the run's directory as `load` (its layout's) reads it,
    /// given the fingerprints it accepts: this config's trajectory's, and the full text's that
    /// earlier versions wrote (of this config, or of the directory's `config.ron` where that
    /// continues the same trajectory). Refused where there is none, and where another config
    /// wrote it: naming the fields that differ where `config.ron` is that config.
    pub fn load_checkpoint<T>(
        &self,
        load: impl FnOnce(&Path, &[u64]) -> Result<T, CheckpointError>,
    ) -> Result<T> {
        let path = checkpoint_to_resume(&self.options.out)?;
        let started = StartedConfig::read(&self.options.out);
        let mut accepted = vec![self.fingerprint, fingerprint(&self.config_text)];
        if let Some(started) = &started
            && started.trajectory_fingerprint == self.fingerprint
        {
            accepted.push(started.text_fingerprint);
        }
        load(&path, &accepted).map_err(|error| self.naming_changes(error, started.as_ref()))
    }

    /// `error`, where it refuses a checkpoint that `started` wrote as another config's, with
    /// the fields in which that config differs from this one in place of the fingerprints.
    fn naming_changes(&self, error: CheckpointError, started: Option<&StartedConfig>) -> Error {
        let CheckpointError::InFile { path, source } = error else {
            return error.into();
        };
        let changes = match (&*source, started) {
            (CheckpointError::ConfigMismatch { found, .. }, Some(started))
                if started.wrote(*found) =>
            {
                self.changes_from(started)
            }
            _ => String::new(),
        };
        let source = match changes.is_empty() {
            true => source,
            false => Box::new(CheckpointError::ConfigChanged(changes)),
        };
        CheckpointError::InFile { path, source }.into()
    }

    /// What of the trajectory differs between `started` and this run's config, in words: the
    /// fields, else the instances their notes name; empty where nothing does.
    fn changes_from(&self, started: &StartedConfig) -> String {
        let auto = auto_chose(self.engine_choice).is_some();
        let mut changes: Vec<String> = (self.config.trajectory_changes(&started.config))
            .iter()
            .map(|change| match change.field == "engine" && auto {
                true => format!(
                    "{change}, which engine: Auto chose (name the checkpoint's engine to resume \
                     it)"
                ),
                false => change.to_string(),
            })
            .collect();
        let (then, now) = (notes(&started.text), notes(&self.config_text));
        if changes.is_empty() && then.ne(now) {
            let noted = |text| notes(text).collect::<Vec<_>>().join(" ");
            changes.push(format!(
                "the checkpoint's run noted `{}`, this run `{}`",
                noted(&started.text),
                noted(&self.config_text)
            ));
        }
        changes.join(", and ")
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

/// The fingerprint a checkpoint of `config` carries: of [`Config::trajectory`] and the notes
/// of the config's text `config_text` (the instance it read), so that it resumes with any config
/// that continues the same trajectory.
fn trajectory_fingerprint(config: &Config, config_text: &str) -> u64 {
    let trajectory = config.trajectory().to_ron_string();
    fingerprint(&notes(config_text).fold(trajectory, |text, note| text + note + "\n"))
}

/// The comment lines of a config's text: the note of the instance it read
/// ([`crate::io::instance::noting_instance`]).
fn notes(config_text: &str) -> impl Iterator<Item = &str> {
    config_text.lines().filter(|line| line.starts_with("//"))
}

/// The config a run's directory says the run was started with: its `config.ron` (which each
/// invocation that resumes the run writes anew), with the fingerprints its checkpoints carry.
struct StartedConfig {
    config: Config,
    text: String,
    /// What this version writes.
    trajectory_fingerprint: u64,
    /// What earlier versions wrote: of the whole text.
    text_fingerprint: u64,
}

impl StartedConfig {
    /// `None` where the directory has no `config.ron`, or one that this version cannot read.
    fn read(out: &Path) -> Option<Self> {
        let text = std::fs::read_to_string(out.join(CONFIG)).ok()?;
        let config = Config::from_ron_str(&text).ok()?;
        Some(StartedConfig {
            trajectory_fingerprint: trajectory_fingerprint(&config, &text),
            text_fingerprint: fingerprint(&text),
            config,
            text,
        })
    }

    /// Whether a checkpoint that carries `found` was written by this config.
    fn wrote(&self, found: u64) -> bool {
        [self.trajectory_fingerprint, self.text_fingerprint].contains(&found)
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
    /// How the lattice closes along each axis (left out where every axis is periodic).
    #[serde(default, skip_serializing_if = "Boundaries::is_periodic")]
    pub boundaries: Boundaries,
    /// The lattice, where not the square or cubic one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lattice: Option<LatticeKind>,
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
            boundaries: config.model.boundaries(),
            lattice: Some(config.model.lattice()).filter(|kind| !kind.is_hypercubic()),
        }
    }

    /// The run's lattice: its shape, dimension and linear size.
    pub fn lattice(&self) -> Lattice {
        let kind = (self.lattice).unwrap_or(LatticeKind::hypercubic(self.dims));
        Lattice::of_kind(kind, self.dims, self.size)
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
fn checkpoint_to_resume(out: &Path) -> Result<PathBuf> {
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
    use crate::config::Backend;
    use crate::config::testing::SAMPLE;

    /// Where a run goes leaves its checkpoints' fingerprint alone; the seed and the instance
    /// noted in the config's text do not.
    #[test]
    fn the_fingerprint_covers_the_trajectory_and_the_instance_noted() {
        let config = Config::from_ron_str(SAMPLE).unwrap();
        let of = |config: &Config| trajectory_fingerprint(config, &config.to_ron_string());
        let moved = Config {
            backend: Backend::Wgpu,
            checkpoint_every: 1,
            ..config.clone()
        };
        assert_eq!(of(&moved), of(&config));
        let reseeded = Config {
            seed: 1,
            ..config.clone()
        };
        assert_ne!(of(&reseeded), of(&config));
        let noted = format!(
            "{}// couplings read from j.npy, FNV-1a 64 0123456789abcdef\n",
            config.to_ron_string()
        );
        assert_ne!(trajectory_fingerprint(&config, &noted), of(&config));
    }

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
