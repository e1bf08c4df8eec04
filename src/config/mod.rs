//! The run configuration: a RON file a physicist writes, checked before any work starts.
//!
//! Parsing names the offending field and its line and column; `Config::validate` names the
//! offending value. [`Config::to_ron_string`] is the resolved config that a run writes next to
//! its results; [`Config::trajectory`] is what of it decides the run's bits (whose fingerprint
//! a checkpoint carries, `trajectory.rs`).
//!
//! This module holds the types only; each check lives with what it checks (the lattice and the
//! system counts with the model, the engine's limits and the `engine: Auto` choice with the
//! engines, each algorithm's options in its home), and `Config::validate` runs them in order.

mod algorithm;
mod boundaries;
mod engine;
mod model;
mod ron_errors;
mod trajectory;
#[cfg(test)]
mod unknown_fields;
mod updates;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use algorithm::{
    Algorithm, AnnealingOptions, AnnealingSchedule, ClusterOptions, ClusterUpdate, ReplicaMoves,
    Resampling, Sweeps,
};
pub use boundaries::{Boundaries, Boundary};
pub use engine::{Backend, EngineKind, Lanes, Layout, MultispinOptions, PhiloxPath, Randoms};
pub use model::{
    Disorder, LatticeKind, MAX_CLOCK_STATES, MAX_POTTS_STATES, Model, Quenched, TemperatureScale,
    Temperatures,
};
pub use trajectory::FieldChange;
pub use updates::{MetropolisOrder, Proposal, StateStorage, VectorUpdates};

use algorithm::one;

/// The built-in configuration (`spinflip run` without `--config`), commented for copying.
const DEFAULT_RON: &str = include_str!("../../assets/default.ron");

/// Sites per system of the simple engine (one spin per 32-bit word) stay below this, so that
/// site indices fit in a `u32` (and in an `i32`, which shader index arithmetic may use).
pub const MAX_SIMPLE_SITES: u64 = 1 << 31;

/// Spin words per word system of the multispin engines stay below this: their kernels index a
/// word system's words with 32-bit arithmetic (colour words, thread indices, rows times words per
/// row, the Philox word counter), kept within an `i32` as for the simple engine. An AMSC word is
/// one site (of 32 lanes), an SMSC word 32 sites of one system.
pub const MAX_MULTISPIN_WORDS: u64 = 1 << 31;

/// Sites per system of the multispin engines stay below this: the hot start (the CPU engine's
/// `initial_spins`, which the GPU kernels mirror) numbers its Philox blocks of four sites with a
/// 32-bit counter word, so 2^34 sites would reuse random words. It also keeps a line of sites
/// within the 18 planes of the bit-sliced lane counters (`dims * L < 2^18`).
pub const MAX_MULTISPIN_SITES: u64 = 1 << 34;

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The RON text does not describe a [`Config`].
    #[error("{}:{line}:{col}: {msg}", path.as_deref().unwrap_or(Path::new("<config>")).display())]
    Parse {
        path: Option<PathBuf>,
        line: usize,
        col: usize,
        msg: String,
    },
    /// The config parses but describes something that cannot be simulated.
    #[error("invalid config: {0}")]
    Invalid(String),
    /// The config file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// `Err(ConfigError::Invalid(msg))`: how every check refuses a config.
pub fn invalid(msg: String) -> Result<(), ConfigError> {
    Err(ConfigError::Invalid(msg))
}

/// A complete run configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub model: Model,
    #[serde(default, skip_serializing_if = "Temperatures::is_default")]
    pub temperatures: Temperatures,
    /// Replicas per temperature and sample: independent copies with their own random numbers
    /// (for the Edwards-Anderson model replicas `r` and `r + replicas/2` give the overlaps).
    pub replicas: u32,
    /// Disorder samples (Edwards-Anderson); 1 for the ferromagnet.
    #[serde(default = "one")]
    pub samples: u32,
    /// The spin glass's couplings: drawn from the seed (the default, left out of the resolved
    /// config so that older configs keep their text and fingerprint) or read from a file.
    #[serde(default, skip_serializing_if = "Quenched::is_drawn")]
    pub couplings: Quenched,
    /// A diluted model's empty sites: drawn from the seed (the default, left out of the
    /// resolved config) or read from a file (`vacancies.npy` of a run).
    #[serde(default, skip_serializing_if = "Quenched::is_drawn")]
    pub vacancies: Quenched,
    /// The engine and, for the multispin engine, its layout and random-number mode.
    #[serde(default)]
    pub engine: EngineKind,
    #[serde(default, skip_serializing_if = "Sweeps::is_default")]
    pub sweeps: Sweeps,
    /// Metropolis alone (the default), parallel tempering, population annealing or cluster
    /// updates.
    #[serde(default, skip_serializing_if = "Algorithm::is_metropolis")]
    pub algorithm: Algorithm,
    /// The vector-spin models' Metropolis proposal and over-relaxation (left out: uniform
    /// proposals, no over-relaxation); refused for the Ising models.
    #[serde(default, skip_serializing_if = "VectorUpdates::is_default")]
    pub updates: VectorUpdates,
    pub seed: u64,
    /// Auto when left out, as `engine` is; always written into the resolved config, so the
    /// fingerprint of a config that names it is unchanged.
    #[serde(default)]
    pub backend: Backend,
    /// Adapter choice: an index, a substring of the adapter name, or a backend name.
    #[serde(default)]
    pub adapter: Option<String>,
    #[serde(default)]
    pub philox: PhiloxPath,
    /// Compile the GPU kernels with wgpu's runtime bounds checks. Off by default: the kernels
    /// index within their buffers by construction, the checks cost up to 5x on an H100, and
    /// the tests run the kernels both ways.
    #[serde(default)]
    pub bounds_checks: bool,
    /// A directory for what the Vulkan driver made of each GPU kernel (its statistics and
    /// internal representations, `VK_KHR_pipeline_executable_properties`): a diagnostic for
    /// performance work. A wgpu run on another adapter than Vulkan, or on a driver without
    /// the extension, is refused; the CUDA and CPU backends have no use for it.
    #[serde(default)]
    pub pipeline_statistics: Option<PathBuf>,
    /// Sweeps between checkpoints; 0 writes one only at the end. Population annealing writes
    /// one after each temperature step (`theta` sweeps) that reaches a multiple of it.
    #[serde(default = "default_checkpoint_every")]
    pub checkpoint_every: u64,
    /// Threads per workgroup of the GPU kernels; the cluster updates' kernels take their own
    /// (`engine::clusters::WORKGROUP_SIZE`), as do the vector engine's Metropolis kernels
    /// (`engine::vector::METROPOLIS_WORKGROUP_SIZE`) and, on wgpu, its tiles (a thread a site
    /// of a tile's colour, 64 to 256).
    #[serde(default = "default_workgroup_size")]
    pub workgroup_size: u32,
    /// Write SVG plots and PNG snapshots of the final lattices beside the results. Left out of
    /// the resolved config while on, so that configs which do not mention it keep their text
    /// and with it the fingerprint of their checkpoints.
    #[serde(default = "default_plots", skip_serializing_if = "is_default_plots")]
    pub plots: bool,
    /// How `final_state.npy` stores the final lattices: `Int8` (+1/-1), `Packed` (uint8, 8
    /// spins a byte, for `numpy.unpackbits`) or `Auto` (the default: packed above
    /// [`PACKED_FINAL_STATE_SPINS`] spins). Left out of the resolved config while `Auto`, so
    /// older configs keep their fingerprint.
    #[serde(default, skip_serializing_if = "FinalState::is_auto")]
    pub final_state: FinalState,
}

/// Spins above which `final_state: Auto` writes the packed form: 2^28 (a 16384^2 lattice as
/// int8 is 256 MiB; packed, 32 MiB).
pub const PACKED_FINAL_STATE_SPINS: u64 = 1 << 28;

/// How `final_state.npy` stores the final lattices (see README, "Outputs").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum FinalState {
    /// `Packed` above [`PACKED_FINAL_STATE_SPINS`] spins, `Int8` up to it.
    #[default]
    Auto,
    /// int8 +1/-1, shape `(T, [S,] R, [L,] L, L)`.
    Int8,
    /// uint8, each x-row of `L` spins as `ceil(L/8)` bytes, first spin in the most significant
    /// bit (1 = up): `numpy.unpackbits(a, axis=-1, count=L)` gives the lattices as 0/1.
    Packed,
}

impl FinalState {
    fn is_auto(&self) -> bool {
        *self == FinalState::Auto
    }

    /// Whether a run of `spins` spins writes the packed form.
    pub fn packed(self, spins: u64) -> bool {
        match self {
            FinalState::Auto => spins > PACKED_FINAL_STATE_SPINS,
            FinalState::Int8 => false,
            FinalState::Packed => true,
        }
    }
}

fn default_plots() -> bool {
    true
}

fn is_default_plots(plots: &bool) -> bool {
    *plots == default_plots()
}

fn default_checkpoint_every() -> u64 {
    10_000
}

fn default_workgroup_size() -> u32 {
    64
}

impl Config {
    /// Parse RON text; errors carry line and column and name the field.
    pub fn from_ron_str(text: &str) -> Result<Config, ConfigError> {
        parse(text, None)
    }

    /// Read and parse a RON file; errors name the file.
    pub fn from_path(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        parse(&text, Some(path))
    }

    /// The built-in configuration ([`Config::default_source`]).
    pub fn default_config() -> Result<Config, ConfigError> {
        Config::from_ron_str(DEFAULT_RON)
    }

    /// The commented RON text of the built-in configuration.
    pub fn default_source() -> &'static str {
        DEFAULT_RON
    }

    /// Whether the run goes to the vector engines ([`crate::vector`]'s loop): the model's spins
    /// ([`Model::is_vector`]), or an Ising model with replica moves, or with an antiperiodic
    /// axis or on the honeycomb, triangular or kagome lattice where the config names no
    /// multispin engine, which run on its two discrete states (`engine: Auto` names one before
    /// the run where a layout fits: `Config::states_on_multispin`).
    pub fn is_vector(&self) -> bool {
        self.model.is_vector() || self.ising_as_states()
    }

    /// The discrete states of the run's spins: the model's ([`Model::discrete_states`]), or an
    /// Ising model's two where it runs on the vector engines.
    pub fn discrete_states(&self) -> Option<u32> {
        match self.ising_as_states() {
            true => Some(2),
            false => self.model.discrete_states(),
        }
    }

    /// Whether an Ising model the multispin engine could run goes to the vector engines as
    /// two discrete states: with replica moves, or with an edge other than periodic (an
    /// antiperiodic axis, whose reversed bonds the multispin engine takes, or an open one,
    /// whose missing bonds it leaves out, only where the config names it), or on the
    /// honeycomb, triangular or kagome lattice (which only the multispin engine's words take),
    /// or the bipartite antiferromagnet at zero field (whose staggered magnetisation the
    /// multispin engine counts in place of the uniform one) where the config names no
    /// multispin engine.
    fn ising_as_states(&self) -> bool {
        let staggered = self.model.is_staggered();
        let off_multispin =
            !self.model.boundaries().is_periodic() || self.model.is_shaped_ising() || staggered;
        let named = matches!(self.engine, EngineKind::Multispin { .. });
        self.ising_with_moves() || (self.model.is_ising() && off_multispin && !named)
    }

    /// Whether an Ising model has replica moves ([`ReplicaMoves`]).
    fn ising_with_moves(&self) -> bool {
        self.model.is_ising() && !self.algorithm.replica_moves().is_none()
    }

    /// Pretty RON that [`Config::from_ron_str`] reads back to an equal config.
    pub fn to_ron_string(&self) -> String {
        let pretty = ron::ser::PrettyConfig::new().depth_limit(1);
        let mut text = ron::ser::to_string_pretty(self, pretty)
            .expect("a Config holds only plain data, which RON always serialises");
        text.push('\n');
        text
    }
}

impl AnnealingOptions {
    /// The config of the systems an engine runs for this anneal: one temperature (changed at
    /// each step), `runs` populations of [`AnnealingOptions::slots`] replicas per sample,
    /// Metropolis; what the engine checks validate.
    pub fn engine_config(&self, config: &Config) -> Result<Config, ConfigError> {
        let replicas = Self::slots(config.replicas) * u64::from(self.runs);
        let replicas = u32::try_from(replicas).map_err(|_| {
            ConfigError::Invalid(format!(
                "replicas: {} runs of {} population slots each exceed {} replicas",
                self.runs,
                Self::slots(config.replicas),
                u32::MAX
            ))
        })?;
        Ok(Config {
            temperatures: Temperatures::Betas(vec![1.0]),
            replicas,
            sweeps: Sweeps {
                thermalize: 0,
                measure: 1,
                every: 1,
            },
            algorithm: Algorithm::Metropolis,
            ..config.clone()
        })
    }
}

fn parse(text: &str, path: Option<&Path>) -> Result<Config, ConfigError> {
    ron::from_str(text).map_err(|e| ConfigError::Parse {
        path: path.map(Path::to_path_buf),
        line: e.span.start.line,
        col: e.span.start.col,
        msg: ron_errors::describe(&e, text),
    })
}

/// A sample config and the assertions that the config's tests and the checks' tests (each
/// beside what it checks) share.
#[cfg(test)]
pub(crate) mod testing {
    use super::{Boundaries, Config, ConfigError, Model};

    pub(crate) const SAMPLE: &str = "(
    model: Ising(dims: 2, size: 32, field: 0.0),
    temperatures: Betas([0.40, 0.44]),
    replicas: 4,
    sweeps: (thermalize: 2000, measure: 20000, every: 10),
    seed: 12345,
    backend: Auto,
)";

    /// SAMPLE's model.
    pub(crate) const SAMPLE_MODEL: Model = Model::Ising {
        dims: 2,
        size: 32,
        antiferromagnet: false,
        lattice: None,
        boundaries: Boundaries::PERIODIC,
        field: 0.0,
        dilution: 0.0,
    };

    /// SAMPLE with one textual change, which must be present.
    pub(crate) fn sample_with(from: &str, to: &str) -> String {
        assert!(SAMPLE.contains(from), "test edit {from:?} does not apply");
        SAMPLE.replacen(from, to, 1)
    }

    pub(crate) fn parse_error(text: &str) -> (usize, usize, String) {
        match Config::from_ron_str(text) {
            Err(ConfigError::Parse { line, col, msg, .. }) => (line, col, msg),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    pub(crate) fn invalid_message(text: &str) -> String {
        let config = Config::from_ron_str(text).unwrap_or_else(|e| panic!("must parse: {e}"));
        match config.validate() {
            Err(ConfigError::Invalid(msg)) => msg,
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    pub(crate) fn assert_mentions(msg: &str, parts: &[&str]) {
        for part in parts {
            assert!(
                msg.contains(part),
                "message {msg:?} does not mention {part:?}"
            );
        }
    }

    /// SAMPLE with `from` changed to `to` must fail to parse, at `line` where given, with a
    /// message that mentions every one of `parts`.
    pub(crate) fn assert_edit_refused(from: &str, to: &str, line: Option<usize>, parts: &[&str]) {
        let (at, _, msg) = parse_error(&sample_with(from, to));
        if let Some(line) = line {
            assert_eq!(at, line, "{msg}");
        }
        assert_mentions(&msg, parts);
    }

    /// SAMPLE with parallel tempering every `every` sweeps over `temperatures`.
    pub(crate) fn tempering(temperatures: &str, every: u64) -> String {
        sample_with(
            "temperatures: Betas([0.40, 0.44]),",
            &format!("temperatures: {temperatures}, algorithm: Tempering(every: {every}),"),
        )
    }

    /// Each `(from, to, needles)`: replacing `from` by `to` in the sample must be refused with
    /// a message mentioning every needle.
    pub(crate) fn assert_refused(cases: &[(&str, &str, &[&str])]) {
        for (from, to, needles) in cases {
            assert_mentions(&invalid_message(&sample_with(from, to)), needles);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{
        SAMPLE, SAMPLE_MODEL, assert_edit_refused, assert_mentions, parse_error, sample_with,
    };
    use super::*;

    #[test]
    fn sample_parses_with_defaults() {
        let config = Config::from_ron_str(SAMPLE).unwrap();
        assert_eq!(config.model, SAMPLE_MODEL);
        assert_eq!(config.temperatures.betas(), vec![0.40, 0.44]);
        assert_eq!(config.replicas, 4);
        assert_eq!(
            config.sweeps,
            Sweeps {
                thermalize: 2000,
                measure: 20000,
                every: 10
            }
        );
        assert_eq!(config.sweeps.measurements(), 2000);
        assert_eq!(config.seed, 12345);
        assert_eq!(config.backend, Backend::Auto);
        assert_eq!(config.adapter, None);
        assert_eq!(config.philox, PhiloxPath::Auto);
        assert_eq!(config.checkpoint_every, 10_000);
        assert_eq!(config.workgroup_size, 64);
        config.validate().unwrap();
    }

    /// A config without `backend` runs on Auto, as one without `engine` does, and its resolved
    /// text names the backend like the text of a config that says `backend: Auto`.
    #[test]
    fn backend_defaults_to_auto() {
        let text = sample_with("    backend: Auto,\n", "");
        let config = Config::from_ron_str(&text).unwrap();
        assert_eq!(config.backend, Backend::Auto);
        let named = Config::from_ron_str(SAMPLE).unwrap();
        assert_eq!(config.to_ron_string(), named.to_ron_string());
    }

    #[test]
    fn field_defaults_to_zero_and_optional_fields_parse() {
        let text = sample_with(
            "backend: Auto,",
            "backend: Wgpu, adapter: Some(\"llvmpipe\"), philox: U32, checkpoint_every: 0, workgroup_size: 256,",
        );
        let config = Config::from_ron_str(&text.replace(", field: 0.0", "")).unwrap();
        assert_eq!(config.model, SAMPLE_MODEL);
        assert_eq!(config.backend, Backend::Wgpu);
        assert_eq!(config.adapter.as_deref(), Some("llvmpipe"));
        assert_eq!(config.philox, PhiloxPath::U32);
        assert_eq!(config.checkpoint_every, 0);
        assert_eq!(config.workgroup_size, 256);
    }

    #[test]
    fn temperatures_are_inverted() {
        let config = Config::from_ron_str(&sample_with(
            "Betas([0.40, 0.44])",
            "Temperatures([2.0, 0.5])",
        ))
        .unwrap();
        assert_eq!(config.temperatures.betas(), vec![0.5, 2.0]);
    }

    #[test]
    fn to_ron_string_round_trips() {
        let mut config = Config::from_ron_str(SAMPLE).unwrap();
        config.adapter = Some("NVIDIA \"H100\"".into());
        config.philox = PhiloxPath::Int64;
        config.temperatures =
            Temperatures::Temperatures(vec![0.1 + 0.2, 1.0 / 3.0, 2.269185314213022]);
        config.seed = u64::MAX;
        let text = config.to_ron_string();
        assert_eq!(Config::from_ron_str(&text).unwrap(), config, "{text}");
    }

    #[test]
    fn final_state_is_auto_by_default_and_only_a_choice_is_written() {
        let config = Config::from_ron_str(SAMPLE).unwrap();
        assert_eq!(config.final_state, FinalState::Auto);
        assert!(!config.to_ron_string().contains("final_state"));
        assert!(!FinalState::Auto.packed(PACKED_FINAL_STATE_SPINS));
        assert!(FinalState::Auto.packed(PACKED_FINAL_STATE_SPINS + 1));
        assert!(FinalState::Packed.packed(16) && !FinalState::Int8.packed(1 << 40));
        let packed = Config {
            final_state: FinalState::Packed,
            ..config
        };
        assert_written_and_read_back(&packed, "final_state: Packed");
    }

    #[test]
    fn plots_are_on_by_default_and_only_off_is_written() {
        let config = Config::from_ron_str(SAMPLE).unwrap();
        assert!(config.plots);
        assert!(
            !config.to_ron_string().contains("plots"),
            "old configs keep their text"
        );
        let off = Config {
            plots: false,
            ..config
        };
        assert_written_and_read_back(&off, "plots: false");
    }

    /// `config` written as RON says `field` and reads back as itself.
    fn assert_written_and_read_back(config: &Config, field: &str) {
        let text = config.to_ron_string();
        assert!(text.contains(field), "{text}");
        assert_eq!(&Config::from_ron_str(&text).unwrap(), config);
    }

    #[test]
    fn misspelled_field_is_named_with_its_line() {
        let (line, col, msg) = parse_error(&sample_with("size: 32", "sizee: 32"));
        assert_eq!((line, col), (2, 27));
        assert_mentions(&msg, &["unknown field `sizee`", "`dims`, `size`, `field`"]);
        let shown = ConfigError::Parse {
            path: Some("config.ron".into()),
            line,
            col,
            msg,
        }
        .to_string();
        assert!(
            shown.starts_with("config.ron:2:27: unknown field `sizee`"),
            "{shown}"
        );
    }

    #[test]
    fn unknown_top_level_field_is_named() {
        let seeds = "seed: 12345,\n    seeds: 1,";
        let parts = ["unknown field `seeds`", "`Config`"];
        assert_edit_refused("seed: 12345,", seeds, Some(7), &parts);
    }

    #[test]
    fn wrong_type_names_the_field() {
        assert_edit_refused("size: 32", "size: \"32\"", Some(2), &["integer", "`size`"]);
        assert_edit_refused("replicas: 4", "replicas: 4.5", Some(4), &["`replicas`"]);
        assert_edit_refused("0.44", "\"hot\"", None, &["float", "`temperatures`"]);
    }

    #[test]
    fn missing_field_is_named() {
        let replicas = ["missing field `replicas`"];
        assert_edit_refused("    replicas: 4,\n", "", None, &replicas);
        let dims = ["missing field `dims`", "`Ising`"];
        assert_edit_refused("dims: 2, ", "", Some(2), &dims);
    }

    #[test]
    fn bad_backend_name_lists_the_choices() {
        let choices = [
            "`OpenCl`",
            "`Auto`, `Cpu`, `Wgpu`, `Cuda`",
            "field `backend`",
        ];
        assert_edit_refused("backend: Auto", "backend: OpenCl", Some(7), &choices);
    }

    #[test]
    fn field_names_inside_strings_and_comments_are_not_fields() {
        // Between the field and the bad value, so a scanner that did not skip them would name
        // `count` or `gpu`.
        let replicas = ["field `replicas`"];
        assert_edit_refused(
            "replicas: 4",
            "replicas: /* count: */ \"4\"",
            None,
            &replicas,
        );
        let adapter = "backend: Auto, adapter: Some(\"gpu: 0\" 1),";
        assert_edit_refused("backend: Auto,", adapter, None, &["field `adapter`"]);
        assert_edit_refused(
            "replicas: 4",
            "replicas: // count: \n \"4\"",
            None,
            &replicas,
        );
    }

    #[test]
    fn parse_error_of_a_file_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ron");
        std::fs::write(&path, sample_with("size: 32", "sizee: 32")).unwrap();
        let shown = Config::from_path(&path).unwrap_err().to_string();
        assert!(
            shown.starts_with(&format!("{}:2:27: unknown field `sizee`", path.display())),
            "{shown}"
        );
        let missing = Config::from_path(&dir.path().join("absent.ron"))
            .unwrap_err()
            .to_string();
        assert!(missing.contains("absent.ron"), "{missing}");
    }
}
