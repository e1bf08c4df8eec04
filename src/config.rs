//! The run configuration: a RON file a physicist writes, checked before any work starts.
//!
//! Parsing names the offending field and its line and column; [`Config::validate`] names the
//! offending value. [`Config::to_ron_string`] is the resolved config that a run writes next to
//! its results (and whose fingerprint a checkpoint carries).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use crate::model::couplings::Disorder;
use crate::stats::UnitSize;

/// The built-in configuration (`spinflip run` without `--config`), commented for copying.
const DEFAULT_RON: &str = include_str!("../assets/default.ron");

/// Sites per system of the simple engine (one spin per 32-bit word) stay below this, so that
/// site indices fit in a `u32` (and in an `i32`, which shader index arithmetic may use).
pub const MAX_SIMPLE_SITES: u64 = 1 << 31;

/// Spin words per word system of the multispin engines stay below this: their kernels index a
/// word system's words with 32-bit arithmetic (colour words, thread indices, rows times words per
/// row, the Philox word counter), kept within an `i32` as for the simple engine. An AMSC word is
/// one site (of 32 lanes), an SMSC word 32 sites of one system.
pub const MAX_MULTISPIN_WORDS: u64 = 1 << 31;

/// Sites per system of the multispin engines stay below this: the hot start
/// ([`crate::engine::cpu::hot_start::initial_spins`]) numbers its Philox blocks of four sites with a 32-bit counter
/// word, so 2^34 sites would reuse random words. It also keeps a line of sites within the 18
/// planes of the bit-sliced lane counters (`dims * L < 2^18`).
pub const MAX_MULTISPIN_SITES: u64 = 1 << 34;

/// Workgroup sizes the GPU engines accept: powers of two in this range.
const WORKGROUP_SIZES: std::ops::RangeInclusive<u32> = 32..=1024;

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

/// The spin model and its lattice.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Model {
    /// Ferromagnetic Ising model (J = 1) on a periodic `size^dims` lattice in a uniform field `h`.
    Ising {
        dims: u32,
        size: u32,
        #[serde(default)]
        field: f64,
    },
    /// Edwards-Anderson spin glass with bimodal couplings `J_ij = +-1` (probability 1/2 each),
    /// drawn per disorder sample from the seed, in a uniform field `h`.
    EdwardsAnderson {
        dims: u32,
        size: u32,
        #[serde(default)]
        field: f64,
    },
}

impl Model {
    /// Lattice dimension.
    pub fn dims(&self) -> u32 {
        match *self {
            Model::Ising { dims, .. } | Model::EdwardsAnderson { dims, .. } => dims,
        }
    }

    /// Linear size L.
    pub fn size(&self) -> u32 {
        match *self {
            Model::Ising { size, .. } | Model::EdwardsAnderson { size, .. } => size,
        }
    }

    /// Uniform field h.
    pub fn field(&self) -> f64 {
        match *self {
            Model::Ising { field, .. } | Model::EdwardsAnderson { field, .. } => field,
        }
    }

    /// The couplings of the model.
    pub fn disorder(&self) -> Disorder {
        match self {
            Model::Ising { .. } => Disorder::Ferromagnet,
            Model::EdwardsAnderson { .. } => Disorder::Bimodal,
        }
    }
}

/// Which engine runs the sweeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum EngineKind {
    /// The fastest engine that fits the model and the system counts ([`Config::resolve_engine`]),
    /// chosen before the run and written into its `config.ron`.
    #[default]
    Auto,
    /// One spin per 32-bit word: the readable reference (Ising ferromagnet only).
    Simple,
    /// One spin per bit, 32 lanes per word (multispin coding).
    Multispin {
        layout: Layout,
        #[serde(default)]
        randoms: Randoms,
    },
}

impl EngineKind {
    /// The multispin engine's options, `None` for the simple engine (and for `Auto`, which
    /// [`Config::resolve_engine`] replaces before anything runs).
    pub fn multispin(&self) -> Option<MultispinOptions> {
        match *self {
            EngineKind::Multispin { layout, randoms } => Some(MultispinOptions { layout, randoms }),
            EngineKind::Simple | EngineKind::Auto => None,
        }
    }

    /// An exact-randoms multispin engine with `layout`.
    fn multispin_with(layout: Layout) -> EngineKind {
        EngineKind::Multispin {
            layout,
            randoms: Randoms::Exact,
        }
    }

    /// Which systems make one independent unit of the error estimates, and what that unit is
    /// (for the summary): with `randoms: Shared` the 32 replicas or samples in the lanes of an
    /// AMSC word share every random number, so they are one unit. Temperatures in lanes are
    /// different estimates (each takes one lane of a word), and an SMSC word is one system whose
    /// sites share randoms, which its own time series already carries: both keep every system
    /// independent.
    pub fn independent_unit(&self) -> (UnitSize, String) {
        let alone = "one replica (one sample where errors come from the spread over samples)";
        let shared = self
            .multispin()
            .filter(|options| options.randoms == Randoms::Shared);
        let lanes = |what: &str| {
            format!(
                "32 {what}: the lanes of a multispin word share their random numbers (randoms: \
                 Shared), so a word's 32 {what} count as one unit"
            )
        };
        match shared.map(|options| options.layout) {
            Some(Layout::Amsc {
                lanes: Lanes::Replicas,
            }) => (
                UnitSize {
                    replicas: 32,
                    samples: 1,
                },
                lanes("replicas"),
            ),
            Some(Layout::Amsc {
                lanes: Lanes::Samples,
            }) => (
                UnitSize {
                    replicas: 1,
                    samples: 32,
                },
                lanes("samples"),
            ),
            Some(Layout::Amsc {
                lanes: Lanes::Temperatures,
            }) => (
                UnitSize::SYSTEM,
                format!(
                    "{alone}: the lanes of a word share their random numbers but hold different \
                     temperatures, so each temperature's estimates take one lane per word \
                     (differences between temperatures are correlated)"
                ),
            ),
            Some(Layout::Smsc) => (
                UnitSize::SYSTEM,
                format!(
                    "{alone}: the 32 sites of an SMSC word share a random number within one \
                     system, which that system's own time series carries"
                ),
            ),
            None => (
                UnitSize::SYSTEM,
                format!("{alone}: every system draws its own random numbers"),
            ),
        }
    }
}

/// How the multispin engine packs spins and draws its random numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MultispinOptions {
    pub layout: Layout,
    pub randoms: Randoms,
}

/// What the 32 bits of a spin word are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Layout {
    /// Asynchronous: bit b of every word is the same site of lane b's system.
    Amsc { lanes: Lanes },
    /// Synchronous: the bits of a word are 32 consecutive same-colour sites along x of one
    /// lattice (size a multiple of 64).
    Smsc,
}

/// What the 32 lanes of an asynchronous (AMSC) word hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Lanes {
    /// 32 independent replicas of one system (replicas a multiple of 32).
    Replicas,
    /// 32 disorder samples, each lane its own couplings (samples a multiple of 32).
    Samples,
    /// Up to 32 temperatures of one sample, one per lane (per-lane thresholds).
    Temperatures,
}

/// How Metropolis decisions get their random numbers in the multispin engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Randoms {
    /// An independent 32-bit uniform per lane and decision (bit-sliced comparison).
    #[default]
    Exact,
    /// One 32-bit uniform per word shared by its 32 lanes, as in papers 000/002: cheaper, but
    /// it correlates the lanes.
    Shared,
    /// Exact as `Exact` (an independent uniform per lane), with fewer random words: past each
    /// word's first Philox block, the lanes still undecided in the words one GPU thread updates
    /// (`MultispinLayout::word_run`) share one stream of bit planes, packed into one word (see
    /// docs/ARCHITECTURE.md). A different random stream from `Exact`'s, which stays reachable.
    Packed,
}

/// The temperatures simulated (k_B = J = 1): a list of inverse temperatures or temperatures, or
/// a generated ladder. Left out with `algorithm: Annealing`, whose schedule gives the
/// temperatures (the default, an empty list, is refused for every other algorithm).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Temperatures {
    /// Inverse temperatures beta.
    Betas(Vec<f64>),
    /// Temperatures T = 1 / beta.
    Temperatures(Vec<f64>),
    /// `count` temperatures from `min` to `max`, geometric in T (equal ratios), ascending in T.
    GeometricT { min: f64, max: f64, count: u32 },
    /// `count` inverse temperatures from `min` to `max`, equally spaced in beta, ascending.
    LinearBeta { min: f64, max: f64, count: u32 },
}

impl Default for Temperatures {
    fn default() -> Self {
        Temperatures::Betas(Vec::new())
    }
}

impl Temperatures {
    fn is_default(&self) -> bool {
        *self == Temperatures::default()
    }

    /// The inverse temperatures, in the order given (generated ladders from `min` to `max`).
    pub fn betas(&self) -> Vec<f64> {
        match self {
            Temperatures::Betas(betas) => betas.clone(),
            Temperatures::Temperatures(ts) => ts.iter().map(|t| 1.0 / t).collect(),
            Temperatures::GeometricT { min, max, count } => ladder(*count)
                .map(|f| 1.0 / (min * (max / min).powf(f)))
                .collect(),
            Temperatures::LinearBeta { min, max, count } => {
                ladder(*count).map(|f| min + (max - min) * f).collect()
            }
        }
    }
}

/// `count` fractions from 0 to 1 inclusive (just 0 for one).
fn ladder(count: u32) -> impl Iterator<Item = f64> {
    let steps = f64::from(count.saturating_sub(1).max(1));
    (0..count).map(move |i| f64::from(i) / steps)
}

/// The Monte Carlo algorithm around the Metropolis sweeps.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub enum Algorithm {
    /// Metropolis sweeps at fixed temperatures.
    #[default]
    Metropolis,
    /// Parallel tempering: after every `every` sweeps a swap round between neighbour
    /// temperatures of each chain (replica) of each sample, even and odd pairs alternately.
    /// With `tune`, the inner temperatures of a generated ladder move towards equal swap
    /// acceptance during the first half of the thermalisation; then the ladder is frozen.
    Tempering {
        every: u64,
        #[serde(default, skip_serializing_if = "is_false")]
        tune: bool,
    },
    /// Population annealing (paper 001): `replicas` is the population size R; the fields are
    /// those of [`AnnealingOptions`].
    Annealing {
        theta: u32,
        schedule: AnnealingSchedule,
        #[serde(default, skip_serializing_if = "Resampling::is_default")]
        resampling: Resampling,
        #[serde(default = "one", skip_serializing_if = "is_one")]
        runs: u32,
        #[serde(default, skip_serializing_if = "is_false")]
        overlaps: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reweighting: Option<u32>,
    },
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl Algorithm {
    fn is_metropolis(&self) -> bool {
        *self == Algorithm::Metropolis
    }

    /// Whether the ladder is tuned during thermalisation.
    pub fn tunes(&self) -> bool {
        matches!(self, Algorithm::Tempering { tune: true, .. })
    }

    /// Sweeps between swap rounds, `None` without tempering.
    pub fn swap_every(&self) -> Option<u64> {
        match *self {
            Algorithm::Tempering { every, .. } => Some(every),
            Algorithm::Metropolis | Algorithm::Annealing { .. } => None,
        }
    }

    /// The population-annealing options, `None` for the other algorithms.
    pub fn annealing(&self) -> Option<AnnealingOptions> {
        match self {
            Algorithm::Annealing {
                theta,
                schedule,
                resampling,
                runs,
                overlaps,
                reweighting,
            } => Some(AnnealingOptions {
                theta: *theta,
                schedule: schedule.clone(),
                resampling: *resampling,
                runs: *runs,
                overlaps: *overlaps,
                reweighting: *reweighting,
            }),
            _ => None,
        }
    }
}

/// Population annealing: a population of `replicas` starts at beta = 0 from independent random
/// spins; each temperature step resamples it to the next beta and gives every replica `theta`
/// Metropolis sweeps there, then measures.
#[derive(Debug, Clone, PartialEq)]
pub struct AnnealingOptions {
    /// Metropolis sweeps per temperature step.
    pub theta: u32,
    pub schedule: AnnealingSchedule,
    /// Paper 001's floor/ceil unless the config says otherwise.
    pub resampling: Resampling,
    /// Independent populations (each with its own randoms), for errors over runs.
    pub runs: u32,
    /// The spin-glass overlap at every beta, between slot `j` of run `k` and slot `j` of run
    /// `k + runs/2` of the same sample (Edwards-Anderson, an even number of runs).
    pub overlaps: bool,
    /// Multi-histogram reweighting of every step's energies (paper 001) onto this many betas,
    /// `beta_last k / points` for `k = 1..=points` (zero field: integer energies).
    pub reweighting: Option<u32>,
}

/// The inverse temperatures after beta = 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AnnealingSchedule {
    /// These betas, strictly increasing, all > 0.
    Betas(Vec<f64>),
    /// `count` betas equally spaced in beta: `beta_max k / count` for `k = 1..=count`.
    Linear { beta_max: f64, count: u32 },
    /// Each next beta chosen by bisection so that the overlap of the energy histograms before
    /// and after the step, computed from the reweighting factors (paper 001), is `overlap`;
    /// until `beta_max`.
    Adaptive { overlap: f64, beta_max: f64 },
}

/// How a population is resampled to the next temperature from the expected numbers of copies
/// `tau_i = R w_i / sum_j w_j`, `w_i = exp(-(beta' - beta) E_i)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Resampling {
    /// Paper 001: `floor(tau_i)` or `floor(tau_i) + 1` copies, the latter with probability
    /// `tau_i - floor(tau_i)`; the population size fluctuates slightly around R.
    #[default]
    FloorCeil,
    /// `tau_i` rounded to the nearest integer (no randoms; the size may drift from R).
    Nearest,
    /// R independent draws from the weights: the size stays R.
    Multinomial,
}

/// Slack above R in the engine's population slots: the floor/ceil sizes differ from R by a sum
/// of independent terms of variance at most 1/4, so more than `4 sqrt(R)` has probability below
/// `2 exp(-32)` (Hoeffding); a step that still overflows stops the run with an error.
const POPULATION_SLACK_SIGMAS: f64 = 4.0;
/// Population slots come in multiples of this: whole words of replica lanes, and for the spin
/// glass whole pairs of them (the overlap pairs replica r with r + replicas/2).
const POPULATION_SLOT_UNIT: u64 = 64;

impl AnnealingOptions {
    /// Engine slots per population: R plus [`POPULATION_SLACK_SIGMAS`] `sqrt(R)`, rounded up to
    /// [`POPULATION_SLOT_UNIT`]. The population size fluctuates (paper 001's floor/ceil), the
    /// engines' layouts do not: replicas beyond the current size are idle slots.
    pub fn slots(replicas: u32) -> u64 {
        let r = u64::from(replicas);
        let slack = (POPULATION_SLACK_SIGMAS * f64::from(replicas).sqrt()).ceil() as u64 + 1;
        (r + slack).div_ceil(POPULATION_SLOT_UNIT) * POPULATION_SLOT_UNIT
    }

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

impl Resampling {
    fn is_default(&self) -> bool {
        *self == Resampling::default()
    }
}

/// The sweep schedule: `thermalize` sweeps, then `measure` sweeps with a measurement after
/// every `every`-th of them. Left out with `algorithm: Annealing` (whose `theta` says how
/// many sweeps each temperature step takes).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sweeps {
    pub thermalize: u64,
    pub measure: u64,
    pub every: u64,
}

impl Sweeps {
    fn is_default(&self) -> bool {
        *self == Sweeps::default()
    }

    /// Number of measurements per system (`every` must be at least 1: see [`Config::validate`]).
    pub fn measurements(&self) -> u64 {
        self.measure / self.every.max(1)
    }
}

/// Which engine runs the sweeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Backend {
    /// The best GPU adapter, else the CPU.
    Auto,
    /// The CPU reference engine.
    Cpu,
    /// A wgpu adapter; no adapter is an error.
    Wgpu,
    /// An NVIDIA GPU through CUDA (needs the `cuda` feature); `adapter` is the device index.
    Cuda,
}

/// How the WGSL Philox forms its 32x32 -> 64-bit products.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum PhiloxPath {
    /// `Int64` where the adapter has `SHADER_INT64`, else `U32`.
    #[default]
    Auto,
    /// Native 64-bit integer multiply.
    Int64,
    /// Four 16x16 partial products in u32 arithmetic.
    U32,
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
    /// The engine and, for the multispin engine, its layout and random-number mode.
    #[serde(default)]
    pub engine: EngineKind,
    #[serde(default, skip_serializing_if = "Sweeps::is_default")]
    pub sweeps: Sweeps,
    /// Metropolis alone (the default), parallel tempering or population annealing.
    #[serde(default, skip_serializing_if = "Algorithm::is_metropolis")]
    pub algorithm: Algorithm,
    pub seed: u64,
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
    /// Threads per workgroup of the GPU kernels.
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

fn one() -> u32 {
    1
}

fn is_one(value: &u32) -> bool {
    *value == 1
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

    /// Pretty RON that [`Config::from_ron_str`] reads back to an equal config.
    pub fn to_ron_string(&self) -> String {
        let pretty = ron::ser::PrettyConfig::new().depth_limit(1);
        let mut text = ron::ser::to_string_pretty(self, pretty)
            .expect("a Config holds only plain data, which RON always serialises");
        text.push('\n');
        text
    }

    /// Check everything that parsing cannot: the first problem found is reported. `engine:
    /// Auto` is checked as the engine it chooses.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if let Some(options) = self.algorithm.annealing() {
            return validate_annealing(self, &options);
        }
        validate_model(&self.model)?;
        validate_temperatures(&self.temperatures)?;
        validate_systems(self)?;
        let (engine, choice) = self.choose_engine()?;
        validate_engine(self, &engine).map_err(|error| match error {
            ConfigError::Invalid(msg) if self.engine == EngineKind::Auto => {
                ConfigError::Invalid(format!("{choice}: {msg}"))
            }
            other => other,
        })?;
        validate_sweeps(&self.sweeps)?;
        validate_algorithm(self)?;
        validate_workgroup_size(self.workgroup_size)
    }

    /// This config with `engine: Auto` replaced by the engine it chooses, and how the engine
    /// was chosen (logged). The run writes the resolved config, so its checkpoint fingerprint
    /// and a `--resume` from either config name the same engine, and a config that names its
    /// engine serialises as before.
    pub fn resolve_engine(&self) -> Result<(Config, String), ConfigError> {
        let (engine, choice) = match self.algorithm.annealing() {
            Some(options) => options.engine_config(self)?.choose_engine()?,
            None => self.choose_engine()?,
        };
        if self.engine == EngineKind::Auto {
            log::info!("{choice}");
        }
        let resolved = Config {
            engine,
            ..self.clone()
        };
        Ok((resolved, choice))
    }

    /// The engine this config runs and why: the one it names, or for `Auto` the first of
    /// [`auto_candidates`] that fits the model, the lattice and the system counts. Where none
    /// fits, the ferromagnet falls back to the simple engine (whose limit [`validate_engine`]
    /// then reports); the spin glass, which needs the multispin engine, gets an error that says
    /// what each layout would need.
    fn choose_engine(&self) -> Result<(EngineKind, String), ConfigError> {
        if self.engine != EngineKind::Auto {
            return Ok((self.engine, "engine named in the config".to_string()));
        }
        let fits = |engine: &EngineKind| validate_engine(self, engine).is_ok();
        match auto_candidates(self)
            .into_iter()
            .find(|(engine, _)| fits(engine))
        {
            Some((engine, why)) => Ok((engine, auto_chose(&engine, why))),
            None if self.model.disorder() == Disorder::Ferromagnet => Ok((
                EngineKind::Simple,
                auto_chose(
                    &EngineKind::Simple,
                    "nothing fits; the simple engine is the fallback for the ferromagnet",
                ),
            )),
            None => Err(ConfigError::Invalid(no_multispin_layout_fits(self))),
        }
    }
}

/// The engines `Auto` tries, fastest first, with why each is chosen: AMSC where 32 or more
/// systems fill the lanes of words (for the ferromagnet, temperatures in lanes only where they
/// fill at least half of them: idle lanes cost as much as busy ones), else SMSC (one lattice,
/// 32 sites per word), else, for the ferromagnet, the simple engine.
fn auto_candidates(config: &Config) -> Vec<(EngineKind, &'static str)> {
    let amsc = |lanes| EngineKind::multispin_with(Layout::Amsc { lanes });
    let disordered = config.model.disorder() == Disorder::Bimodal;
    let temperatures = config.temperatures.betas().len();
    let mut candidates = Vec::new();
    if disordered {
        candidates.push((
            amsc(Lanes::Samples),
            "samples in multiples of 32 fill the lanes of words",
        ));
    }
    candidates.push((
        amsc(Lanes::Replicas),
        "replicas in multiples of 32 fill the lanes of words",
    ));
    if disordered || temperatures >= 16 {
        candidates.push((
            amsc(Lanes::Temperatures),
            "the temperatures (at most 32) share words, one per lane",
        ));
    }
    candidates.push((
        EngineKind::multispin_with(Layout::Smsc),
        "one lattice per system, 32 sites per word (size a multiple of 64)",
    ));
    if !disordered {
        candidates.push((
            EngineKind::Simple,
            "too few systems to fill multispin words, and a size that is not a multiple of 64",
        ));
    }
    candidates
}

/// What `Auto` chose and why, in the config's own words.
fn auto_chose(engine: &EngineKind, why: &str) -> String {
    let named = ron::to_string(engine).expect("an engine kind is plain data");
    format!("no engine given, so engine: Auto chose {named} ({why})")
}

/// Why no multispin layout takes a spin-glass config, layout by layout.
fn no_multispin_layout_fits(config: &Config) -> String {
    let needs = auto_candidates(config)
        .iter()
        .filter_map(|(engine, _)| validate_engine(config, engine).err())
        .map(|error| match error {
            ConfigError::Invalid(msg) => msg,
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join("; ");
    format!(
        "model EdwardsAnderson needs the multispin engine, and with no engine given (engine: \
         Auto) none of its layouts fits: {needs}"
    )
}

fn invalid(msg: String) -> Result<(), ConfigError> {
    Err(ConfigError::Invalid(msg))
}

fn validate_model(model: &Model) -> Result<(), ConfigError> {
    let (dims, size, field) = (model.dims(), model.size(), model.field());
    if !(2..=3).contains(&dims) {
        return invalid(format!("dims must be 2 or 3, got {dims}"));
    }
    if size < 2 {
        return invalid(format!("size must be at least 2, got {size}"));
    }
    if size % 2 != 0 {
        return invalid(format!(
            "size must be even for the checkerboard update, got {size}"
        ));
    }
    if !field.is_finite() {
        return invalid(format!("field must be finite, got {field}"));
    }
    Ok(())
}

/// Sites per system within what `engine` indexes.
fn validate_site_limit(model: &Model, engine: &EngineKind) -> Result<(), ConfigError> {
    let (dims, size) = (model.dims(), model.size());
    let sites = u128::from(size).pow(dims);
    let limit = SiteLimit::of(engine);
    if sites >= u128::from(limit.sites) {
        return invalid(format!(
            "lattice {size}^{dims} has {sites} sites, but {} takes fewer than {} = 2^{} sites per \
             system ({}){}",
            limit.engine,
            limit.sites,
            limit.sites.trailing_zeros(),
            limit.reason,
            limit.hint
        ));
    }
    Ok(())
}

/// The largest lattice (in sites per system) an engine indexes, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SiteLimit {
    /// Sites per system must stay below this (a power of two).
    pub sites: u64,
    /// The engine, in words.
    pub engine: &'static str,
    /// What bounds it.
    pub reason: &'static str,
    /// Where larger lattices can go (empty if nowhere).
    pub hint: &'static str,
}

impl SiteLimit {
    /// The limit of `engine`: the simple engine and AMSC (one site per word) take fewer than
    /// 2^31 sites ([`MAX_SIMPLE_SITES`], [`MAX_MULTISPIN_WORDS`]); SMSC (32 sites per word) would
    /// index 2^36 sites in 2^31 words, but the hot start's 32-bit Philox block counter bounds
    /// it at 2^34 ([`MAX_MULTISPIN_SITES`]).
    pub fn of(engine: &EngineKind) -> SiteLimit {
        let words = "word indices within a system are 32-bit";
        match engine.multispin().map(|options| options.layout) {
            None => SiteLimit {
                sites: MAX_SIMPLE_SITES,
                engine: "the simple engine",
                reason: "site indices are 32-bit",
                hint: "; engine: Multispin(layout: Smsc) takes up to 2^34 sites, with a size \
                       that is a multiple of 64",
            },
            Some(Layout::Amsc { .. }) => SiteLimit {
                sites: MAX_MULTISPIN_WORDS.min(MAX_MULTISPIN_SITES),
                engine: "layout Amsc (one site per word)",
                reason: words,
                hint: "; layout Smsc takes larger lattices",
            },
            Some(Layout::Smsc) if MAX_MULTISPIN_WORDS * 32 < MAX_MULTISPIN_SITES => SiteLimit {
                sites: MAX_MULTISPIN_WORDS * 32,
                engine: "layout Smsc (32 sites per word)",
                reason: words,
                hint: "",
            },
            Some(Layout::Smsc) => SiteLimit {
                sites: MAX_MULTISPIN_SITES,
                engine: "layout Smsc",
                reason: "the hot start numbers its blocks of 4 random spins with a 32-bit counter",
                hint: "",
            },
        }
    }
}

fn validate_temperatures(temperatures: &Temperatures) -> Result<(), ConfigError> {
    let (name, values) = match temperatures {
        Temperatures::Betas(v) => ("beta", v.clone()),
        Temperatures::Temperatures(v) => ("temperature", v.clone()),
        Temperatures::GeometricT { min, max, count } => {
            validate_ladder("GeometricT", *min, *max, *count)?;
            ("temperature", vec![*min, *max])
        }
        Temperatures::LinearBeta { min, max, count } => {
            validate_ladder("LinearBeta", *min, *max, *count)?;
            ("beta", vec![*min, *max])
        }
    };
    if values.is_empty() {
        return invalid("temperatures: at least one is needed".into());
    }
    if let Some(i) = values.iter().position(|v| !(v.is_finite() && *v > 0.0)) {
        return invalid(format!(
            "temperatures: {name} #{} must be finite and > 0, got {}",
            i + 1,
            values[i]
        ));
    }
    let repeat = (0..values.len())
        .flat_map(|j| (0..j).map(move |i| (i, j)))
        .find(|&(i, j)| values[i] == values[j]);
    match repeat {
        Some((i, j)) => invalid(format!(
            "temperatures: {name} #{} and #{} are both {}: a repeated temperature only \
             duplicates work (ask for more replicas instead), and in a tempering ladder a zero \
             gap in beta is meaningless",
            i + 1,
            j + 1,
            values[i]
        )),
        None => Ok(()),
    }
}

/// A generated ladder needs at least one rung and, with more than one, two distinct ends.
fn validate_ladder(kind: &str, min: f64, max: f64, count: u32) -> Result<(), ConfigError> {
    if count == 0 {
        return invalid(format!("temperatures: {kind} needs count >= 1, got 0"));
    }
    if count > 1 && min.partial_cmp(&max) != Some(std::cmp::Ordering::Less) {
        return invalid(format!(
            "temperatures: {kind} needs min < max, got min {min}, max {max}"
        ));
    }
    Ok(())
}

/// Replicas, samples, and the system count (temperatures x samples x replicas) that system
/// indices hold in a `u32`.
fn validate_systems(config: &Config) -> Result<(), ConfigError> {
    if config.replicas == 0 {
        return invalid("replicas must be at least 1, got 0".into());
    }
    if config.samples == 0 {
        return invalid("samples must be at least 1, got 0".into());
    }
    let disordered = config.model.disorder() == Disorder::Bimodal;
    if !disordered && config.samples != 1 {
        return invalid(format!(
            "samples: the Ising ferromagnet has no disorder, so samples must be 1, got {}",
            config.samples
        ));
    }
    if disordered && config.replicas > 1 && !config.replicas.is_multiple_of(2) {
        return invalid(format!(
            "replicas: the overlap pairs replica r with r + replicas/2, so an Edwards-Anderson \
             run needs 1 or an even number of replicas, got {}",
            config.replicas
        ));
    }
    let temperatures = config.temperatures.betas().len() as u64;
    let systems = temperatures * u64::from(config.samples) * u64::from(config.replicas);
    if systems > u64::from(u32::MAX) {
        return invalid(format!(
            "{temperatures} temperatures x {} samples x {} replicas = {systems} systems, more than {}",
            config.samples,
            config.replicas,
            u32::MAX
        ));
    }
    Ok(())
}

/// What each engine and layout can pack: the lattice, the model, the system counts.
fn validate_engine(config: &Config, engine: &EngineKind) -> Result<(), ConfigError> {
    validate_site_limit(&config.model, engine)?;
    let options = match engine.multispin() {
        None if config.model.disorder() == Disorder::Bimodal => {
            return invalid(
                "model EdwardsAnderson needs the multispin engine: \
                 engine: Multispin(layout: Amsc(lanes: Samples))"
                    .into(),
            );
        }
        None => return Ok(()),
        Some(options) => options,
    };
    let size = config.model.size();
    match options.layout {
        Layout::Smsc if !size.is_multiple_of(64) => invalid(format!(
            "layout Smsc packs 32 same-colour sites along x in a word: size must be a multiple \
             of 64, got {size}"
        )),
        Layout::Smsc => Ok(()),
        Layout::Amsc { lanes } => validate_lanes(config, lanes),
    }
}

fn validate_lanes(config: &Config, lanes: Lanes) -> Result<(), ConfigError> {
    let disordered = config.model.disorder() == Disorder::Bimodal;
    let temperatures = config.temperatures.betas().len();
    match lanes {
        Lanes::Samples if !config.samples.is_multiple_of(32) => invalid(format!(
            "lanes: Samples packs 32 disorder samples per word: samples must be a multiple of \
             32, got {}",
            config.samples
        )),
        Lanes::Temperatures if temperatures > 32 => invalid(format!(
            "lanes: Temperatures packs one temperature per lane: at most 32 temperatures, got \
             {temperatures}"
        )),
        Lanes::Replicas if !config.replicas.is_multiple_of(32) => invalid(format!(
            "lanes: Replicas packs 32 replicas per word: replicas must be a multiple of 32, got {}",
            config.replicas
        )),
        Lanes::Replicas if disordered && !config.replicas.is_multiple_of(64) => invalid(format!(
            "lanes: Replicas with the Edwards-Anderson model pairs replica r with r + \
             replicas/2 in the same lane of another word: replicas must be a multiple of 64, got {}",
            config.replicas
        )),
        _ => Ok(()),
    }
}

fn validate_sweeps(sweeps: &Sweeps) -> Result<(), ConfigError> {
    let Sweeps {
        thermalize,
        measure,
        every,
    } = *sweeps;
    if measure == 0 {
        return invalid("sweeps: measure must be at least 1, got 0".into());
    }
    if every == 0 {
        return invalid("sweeps: every must be at least 1, got 0".into());
    }
    if every > measure {
        return invalid(format!(
            "sweeps: every ({every}) must not exceed measure ({measure}): there would be no measurement"
        ));
    }
    // The sweep number is a 32-bit word of the Philox counter: more sweeps would reuse randoms.
    match thermalize.checked_add(measure) {
        Some(total) if total <= u64::from(u32::MAX) => Ok(()),
        _ => invalid(format!(
            "sweeps: thermalize + measure ({thermalize} + {measure}) exceeds {} sweeps, \
             the range of the random-number counter; split the run into several seeds",
            u32::MAX
        )),
    }
}

/// Parallel tempering needs a ladder (at least two temperatures, strictly monotonic in beta, so
/// that every pair has a gap) and a swap interval.
fn validate_algorithm(config: &Config) -> Result<(), ConfigError> {
    let Some(every) = config.algorithm.swap_every() else {
        return Ok(());
    };
    if every == 0 {
        return invalid(
            "algorithm: Tempering needs every >= 1 (sweeps between swap rounds), got 0".into(),
        );
    }
    let betas = config.temperatures.betas();
    if betas.len() < 2 {
        return invalid(format!(
            "algorithm: Tempering swaps between neighbour temperatures: at least 2 are needed, \
             got {}",
            betas.len()
        ));
    }
    if config.algorithm.tunes() {
        validate_tuning(config, every)?;
    }
    // Every neighbour pair in the order of the first (NaN-free: validated before).
    let order = betas[1].partial_cmp(&betas[0]);
    match betas
        .windows(2)
        .position(|w| order == Some(std::cmp::Ordering::Equal) || w[1].partial_cmp(&w[0]) != order)
    {
        Some(i) => invalid(format!(
            "algorithm: Tempering needs a strictly monotonic ladder (each neighbour pair swaps): \
             beta #{} = {} and #{} = {} break the order of the first two",
            i + 1,
            betas[i],
            i + 2,
            betas[i + 1]
        )),
        None => Ok(()),
    }
}

/// Tuning moves the inner temperatures of a generated ladder, in stages of at least two swap
/// rounds each during the first half of the thermalisation.
fn validate_tuning(config: &Config, every: u64) -> Result<(), ConfigError> {
    if matches!(
        config.temperatures,
        Temperatures::Betas(_) | Temperatures::Temperatures(_)
    ) {
        return invalid(
            "algorithm: Tempering(tune: true) moves the inner temperatures, but a Betas or \
             Temperatures list is fixed: give the ladder as GeometricT or LinearBeta (its ends \
             stay where they are), or drop tune"
                .into(),
        );
    }
    let needed = 2 * every * u64::from(crate::tempering::TUNING_STAGES) * 2;
    if config.sweeps.thermalize < needed {
        return invalid(format!(
            "algorithm: Tempering(tune: true) tunes in {} stages of at least two swap rounds \
             during the first half of the thermalisation: thermalize must be at least {needed} \
             sweeps, got {}",
            crate::tempering::TUNING_STAGES,
            config.sweeps.thermalize
        ));
    }
    Ok(())
}

/// The smallest population.
const MIN_POPULATION: u32 = 2;

/// Population annealing: the options, the schedule, the backend, then the engine's systems as
/// [`AnnealingOptions::engine_config`] describes them and the memory they need.
fn validate_annealing(config: &Config, options: &AnnealingOptions) -> Result<(), ConfigError> {
    if !config.temperatures.is_default() || !config.sweeps.is_default() {
        return invalid(
            "algorithm: Annealing takes its temperatures from its schedule and its sweeps from \
             theta: leave out temperatures and sweeps"
                .into(),
        );
    }
    if config.replicas < MIN_POPULATION {
        return invalid(format!(
            "replicas: population annealing resamples a population of replicas: at least \
             {MIN_POPULATION} are needed, got {}",
            config.replicas
        ));
    }
    if options.theta == 0 {
        return invalid(
            "algorithm: Annealing needs theta >= 1 (Metropolis sweeps per temperature step), got 0"
                .into(),
        );
    }
    if options.runs == 0 {
        return invalid("algorithm: Annealing needs runs >= 1, got 0".into());
    }
    validate_annealing_analysis(config, options)?;
    validate_annealing_schedule(&options.schedule, options.theta)?;
    let view = options.engine_config(config)?;
    view.validate()?;
    validate_population_memory(config, options)
}

/// The optional analyses: the overlap needs a spin glass and runs in pairs, the reweighting
/// integer energies and at least one point.
fn validate_annealing_analysis(
    config: &Config,
    options: &AnnealingOptions,
) -> Result<(), ConfigError> {
    if options.overlaps && config.model.disorder() == Disorder::Ferromagnet {
        return invalid(
            "algorithm: Annealing overlaps: true measures the spin-glass overlap q, which needs \
             model: EdwardsAnderson (the ferromagnet has no replica pairs)"
                .into(),
        );
    }
    let (dims, size) = (config.model.dims(), config.model.size());
    let bonds = u64::from(dims) * u64::from(size).pow(dims);
    if bonds > u64::from(u32::MAX) {
        return invalid(format!(
            "algorithm: Annealing resamples by the satisfied-bond count, kept in 32 bits: a \
             lattice of {bonds} bonds is too large (at most {})",
            u32::MAX
        ));
    }
    if options.overlaps && options.runs % 2 == 1 {
        return invalid(format!(
            "algorithm: Annealing overlaps: true pairs run k with run k + runs/2 (two independent \
             populations of one sample): runs must be even, got {}",
            options.runs
        ));
    }
    match options.reweighting {
        Some(0) => invalid(
            "algorithm: Annealing reweighting: Some(points) needs points >= 1, got 0".into(),
        ),
        Some(_) if config.model.field() != 0.0 => invalid(format!(
            "algorithm: Annealing reweighting needs integer energies, field 0 (the histograms are \
             of the bond sum), got field {}",
            config.model.field()
        )),
        _ => Ok(()),
    }
}

fn validate_annealing_schedule(
    schedule: &AnnealingSchedule,
    theta: u32,
) -> Result<(), ConfigError> {
    let positive = |name: &str, beta: f64| match beta.is_finite() && beta > 0.0 {
        true => Ok(()),
        false => invalid(format!(
            "algorithm: Annealing schedule: {name} must be finite and > 0, got {beta}"
        )),
    };
    let steps = match schedule {
        AnnealingSchedule::Betas(betas) => {
            if betas.is_empty() {
                return invalid("algorithm: Annealing schedule: Betas needs at least one".into());
            }
            for (i, &beta) in betas.iter().enumerate() {
                positive(&format!("beta #{}", i + 1), beta)?;
            }
            if let Some(i) = betas.windows(2).position(|w| w[1] <= w[0]) {
                return invalid(format!(
                    "algorithm: Annealing schedule: the betas must increase (the population is \
                     cooled from beta = 0): beta #{} = {} is not above #{} = {}",
                    i + 2,
                    betas[i + 1],
                    i + 1,
                    betas[i]
                ));
            }
            betas.len() as u64
        }
        AnnealingSchedule::Linear { beta_max, count } => {
            positive("beta_max", *beta_max)?;
            if *count == 0 {
                return invalid("algorithm: Annealing schedule: Linear needs count >= 1".into());
            }
            u64::from(*count)
        }
        AnnealingSchedule::Adaptive { overlap, beta_max } => {
            positive("beta_max", *beta_max)?;
            if !(*overlap > 0.0 && *overlap < 1.0) {
                return invalid(format!(
                    "algorithm: Annealing schedule: the target overlap of Adaptive must lie in \
                     (0, 1), got {overlap}"
                ));
            }
            // Checked again as the run goes: the steps are not known in advance.
            1
        }
    };
    // The sweep number is a 32-bit word of the Philox counter: more sweeps would reuse randoms.
    if steps * u64::from(theta) > u64::from(u32::MAX) {
        return invalid(format!(
            "algorithm: Annealing: {steps} steps x theta {theta} exceeds {} sweeps, the range \
             of the random-number counter",
            u32::MAX
        ));
    }
    Ok(())
}

/// The population's lattices must fit in memory: refuse a population that does not, naming
/// the largest that does. CPU only for now ([`population_memory_limit`]).
fn validate_population_memory(
    config: &Config,
    options: &AnnealingOptions,
) -> Result<(), ConfigError> {
    let Some(limit) = population_memory_limit(config.backend) else {
        return Ok(());
    };
    let fits = |replicas: u32| -> bool {
        let trial = Config {
            replicas,
            ..config.clone()
        };
        options
            .engine_config(&trial)
            .is_ok_and(|view| population_bytes(&view) <= limit)
    };
    if fits(config.replicas) {
        return Ok(());
    }
    let (mut lo, mut hi) = (MIN_POPULATION - 1, config.replicas);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) { lo = mid } else { hi = mid }
    }
    let largest = match lo {
        n if n < MIN_POPULATION => "none does".to_string(),
        n => format!("the largest population that fits is replicas: {n}"),
    };
    invalid(format!(
        "replicas: a population of {} replicas of this lattice needs about {} MiB, more than \
         the {} MiB of memory available; {largest}",
        config.replicas,
        options
            .engine_config(config)
            .map_or(u64::MAX, |view| population_bytes(&view))
            >> 20,
        limit >> 20
    ))
}

/// Bytes a population annealing run holds at once: the lattices as they travel between the
/// engine and the host or a checkpoint (one bit per spin) and the engine's state twice (the
/// copy reads a snapshot of it).
fn population_bytes(view: &Config) -> u64 {
    let systems = crate::model::ising::ising_systems(view);
    let spins = systems.spin_count() as u64;
    let engine = match view.choose_engine().map(|(engine, _)| engine.multispin()) {
        Ok(Some(options)) => {
            4 * crate::engine::multispin::MultispinLayout::new(systems, options).words()
        }
        _ => 4 * spins,
    };
    spins.div_ceil(8) + 2 * engine
}

/// The memory a population may fill on `backend`: the CPU's available memory (from
/// `/proc/meminfo`; `None` where it cannot be read). The wgpu engines check their device's
/// limits when they allocate (the copies' snapshot too), and so do the CUDA engines.
fn population_memory_limit(backend: Backend) -> Option<u64> {
    match backend {
        Backend::Cpu => available_memory(),
        Backend::Auto | Backend::Wgpu | Backend::Cuda => None,
    }
}

/// `MemAvailable` of `/proc/meminfo`, in bytes.
fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib << 10)
}

fn validate_workgroup_size(size: u32) -> Result<(), ConfigError> {
    if !size.is_power_of_two() || !WORKGROUP_SIZES.contains(&size) {
        return invalid(format!(
            "workgroup_size must be a power of two in {}..={}, got {size}",
            WORKGROUP_SIZES.start(),
            WORKGROUP_SIZES.end()
        ));
    }
    Ok(())
}

fn parse(text: &str, path: Option<&Path>) -> Result<Config, ConfigError> {
    ron::from_str(text).map_err(|e| ConfigError::Parse {
        path: path.map(Path::to_path_buf),
        line: e.span.start.line,
        col: e.span.start.col,
        msg: describe(&e, text),
    })
}

/// A parse error's message in our words. Errors about a value (wrong type, out of range,
/// unknown variant) do not say which field it belongs to, so the nearest field name before the
/// error position is added.
fn describe(error: &ron::error::SpannedError, text: &str) -> String {
    use ron::Error as E;
    let within = |outer: &Option<String>| {
        outer
            .as_ref()
            .map_or(String::new(), |o| format!(" in `{o}`"))
    };
    match &error.code {
        E::NoSuchStructField {
            expected,
            found,
            outer,
        } => format!(
            "unknown field `{found}`{}, expected one of {}",
            within(outer),
            quoted_list(expected)
        ),
        E::MissingStructField { field, outer } => {
            format!("missing field `{field}`{}", within(outer))
        }
        E::DuplicateStructField { field, outer } => {
            format!("duplicate field `{field}`{}", within(outer))
        }
        E::NoSuchEnumVariant {
            expected,
            found,
            outer,
        } => with_field(
            format!(
                "unknown variant `{found}`{}, expected one of {}",
                within(outer),
                quoted_list(expected)
            ),
            text,
            error.span.start,
        ),
        other => with_field(lowercase_first(&other.to_string()), text, error.span.start),
    }
}

fn quoted_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn lowercase_first(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map_or(String::new(), |c| c.to_lowercase().chain(chars).collect())
}

fn with_field(msg: String, text: &str, at: ron::error::Position) -> String {
    match field_before(text, byte_offset(text, at)) {
        Some(field) => format!("{msg} (in field `{field}`)"),
        None => msg,
    }
}

/// Byte offset of a 1-based (line, column in characters) position, clamped to the text.
fn byte_offset(text: &str, at: ron::error::Position) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(at.line.saturating_sub(1))
        .map(str::len)
        .sum();
    let line = &text[line_start.min(text.len())..];
    let col = line
        .char_indices()
        .nth(at.col.saturating_sub(1))
        .map_or(line.len(), |(i, _)| i);
    line_start + col
}

/// The last `identifier:` in `text[..end]`, skipping strings and comments.
fn field_before(text: &str, end: usize) -> Option<&str> {
    let bytes = &text.as_bytes()[..end.min(text.len())];
    let mut field = None;
    let mut ident: Option<(usize, usize)> = None;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let next = bytes.get(i + 1).copied();
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            ident = Some((start, i));
            continue;
        }
        match (c, next) {
            (b'"', _) => i = skip_string(bytes, i),
            (b'/', Some(b'/')) => i = find(bytes, i, b"\n"),
            (b'/', Some(b'*')) => i = find(bytes, i + 2, b"*/") + 1,
            (b':', _) => field = ident.map(|(s, e)| &text[s..e]).or(field),
            _ => {}
        }
        if !c.is_ascii_whitespace() {
            ident = None;
        }
        i += 1;
    }
    field
}

/// Index of the closing quote of the string starting at `open` (or the end).
fn skip_string(bytes: &[u8], open: usize) -> usize {
    let mut i = open + 1;
    while i < bytes.len() && bytes[i] != b'"' {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    i
}

/// Index of the first occurrence of `needle` at or after `from` (or the end).
fn find(bytes: &[u8], from: usize, needle: &[u8]) -> usize {
    bytes
        .get(from..)
        .and_then(|rest| rest.windows(needle.len()).position(|w| w == needle))
        .map_or(bytes.len(), |p| from + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "(
    model: Ising(dims: 2, size: 32, field: 0.0),
    temperatures: Betas([0.40, 0.44]),
    replicas: 4,
    sweeps: (thermalize: 2000, measure: 20000, every: 10),
    seed: 12345,
    backend: Auto,
)";

    /// SAMPLE with one textual change, which must be present.
    fn sample_with(from: &str, to: &str) -> String {
        assert!(SAMPLE.contains(from), "test edit {from:?} does not apply");
        SAMPLE.replacen(from, to, 1)
    }

    fn parse_error(text: &str) -> (usize, usize, String) {
        match Config::from_ron_str(text) {
            Err(ConfigError::Parse { line, col, msg, .. }) => (line, col, msg),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    fn invalid_message(text: &str) -> String {
        let config = Config::from_ron_str(text).unwrap_or_else(|e| panic!("must parse: {e}"));
        match config.validate() {
            Err(ConfigError::Invalid(msg)) => msg,
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    fn assert_mentions(msg: &str, parts: &[&str]) {
        for part in parts {
            assert!(
                msg.contains(part),
                "message {msg:?} does not mention {part:?}"
            );
        }
    }

    #[test]
    fn sample_parses_with_defaults() {
        let config = Config::from_ron_str(SAMPLE).unwrap();
        assert_eq!(
            config.model,
            Model::Ising {
                dims: 2,
                size: 32,
                field: 0.0
            }
        );
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

    #[test]
    fn field_defaults_to_zero_and_optional_fields_parse() {
        let text = sample_with(
            "backend: Auto,",
            "backend: Wgpu, adapter: Some(\"llvmpipe\"), philox: U32, checkpoint_every: 0, workgroup_size: 256,",
        );
        let config = Config::from_ron_str(&text.replace(", field: 0.0", "")).unwrap();
        assert_eq!(
            config.model,
            Model::Ising {
                dims: 2,
                size: 32,
                field: 0.0
            }
        );
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
        let (line, _, msg) =
            parse_error(&sample_with("seed: 12345,", "seed: 12345,\n    seeds: 1,"));
        assert_eq!(line, 7);
        assert_mentions(&msg, &["unknown field `seeds`", "`Config`"]);
    }

    #[test]
    fn wrong_type_names_the_field() {
        let (line, _, msg) = parse_error(&sample_with("size: 32", "size: \"32\""));
        assert_eq!(line, 2);
        assert_mentions(&msg, &["integer", "`size`"]);
        let (line, _, msg) = parse_error(&sample_with("replicas: 4", "replicas: 4.5"));
        assert_eq!(line, 4);
        assert_mentions(&msg, &["`replicas`"]);
        let (_, _, msg) = parse_error(&sample_with("0.44", "\"hot\""));
        assert_mentions(&msg, &["float", "`temperatures`"]);
    }

    #[test]
    fn missing_field_is_named() {
        let (_, _, msg) = parse_error(&sample_with("    replicas: 4,\n", ""));
        assert_mentions(&msg, &["missing field `replicas`"]);
        let (line, _, msg) = parse_error(&sample_with("dims: 2, ", ""));
        assert_eq!(line, 2);
        assert_mentions(&msg, &["missing field `dims`", "`Ising`"]);
    }

    #[test]
    fn bad_backend_name_lists_the_choices() {
        let (line, _, msg) = parse_error(&sample_with("backend: Auto", "backend: OpenCl"));
        assert_eq!(line, 7);
        assert_mentions(
            &msg,
            &[
                "`OpenCl`",
                "`Auto`, `Cpu`, `Wgpu`, `Cuda`",
                "field `backend`",
            ],
        );
    }

    #[test]
    fn field_names_inside_strings_and_comments_are_not_fields() {
        // Between the field and the bad value, so a scanner that did not skip them would name
        // `count` or `gpu`.
        let text = sample_with("replicas: 4", "replicas: /* count: */ \"4\"");
        let (_, _, msg) = parse_error(&text);
        assert_mentions(&msg, &["field `replicas`"]);
        let text = sample_with(
            "backend: Auto,",
            "backend: Auto, adapter: Some(\"gpu: 0\" 1),",
        );
        let (_, _, msg) = parse_error(&text);
        assert_mentions(&msg, &["field `adapter`"]);
        let text = sample_with("replicas: 4", "replicas: // count: \n \"4\"");
        let (_, _, msg) = parse_error(&text);
        assert_mentions(&msg, &["field `replicas`"]);
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

    /// SAMPLE with parallel tempering every `every` sweeps over `temperatures`.
    fn tempering(temperatures: &str, every: u64) -> String {
        sample_with(
            "temperatures: Betas([0.40, 0.44]),",
            &format!("temperatures: {temperatures}, algorithm: Tempering(every: {every}),"),
        )
    }

    #[test]
    fn generated_ladders_run_from_min_to_max() {
        let geometric = Temperatures::GeometricT {
            min: 0.5,
            max: 2.0,
            count: 3,
        };
        let betas = geometric.betas();
        assert_eq!(betas.len(), 3);
        assert!((betas[0] - 2.0).abs() < 1e-12 && (betas[1] - 1.0).abs() < 1e-12);
        assert!((betas[2] - 0.5).abs() < 1e-12);
        let linear = Temperatures::LinearBeta {
            min: 0.2,
            max: 0.5,
            count: 4,
        };
        let betas = linear.betas();
        assert!((betas[1] - 0.3).abs() < 1e-12 && (betas[3] - 0.5).abs() < 1e-12);
        let config =
            Config::from_ron_str(&tempering("GeometricT(min: 0.5, max: 2.0, count: 8)", 1))
                .unwrap();
        config.validate().unwrap();
        assert_eq!(config.algorithm.swap_every(), Some(1));
    }

    #[test]
    fn bad_tempering_input_is_refused_before_anything_runs() {
        let cases = [
            (tempering("Betas([0.4])", 1), vec!["at least 2", "got 1"]),
            (
                tempering("Betas([0.4, 0.5])", 0),
                vec!["every >= 1", "got 0"],
            ),
            (
                tempering("Betas([0.4, 0.5, 0.45])", 1),
                vec!["strictly monotonic", "#2 = 0.5", "#3 = 0.45"],
            ),
            (
                tempering("Temperatures([1.0, 1.2, 1.2])", 1),
                vec!["#2 and #3 are both 1.2", "zero gap"],
            ),
            (
                tempering("GeometricT(min: 2.0, max: 0.5, count: 4)", 1),
                vec!["GeometricT", "min < max"],
            ),
            (
                tempering("LinearBeta(min: 0.1, max: 0.5, count: 0)", 1),
                vec!["LinearBeta", "count >= 1"],
            ),
            (
                tempering("LinearBeta(min: -0.1, max: 0.5, count: 3)", 1),
                vec!["beta", "> 0", "-0.1"],
            ),
        ];
        for (text, parts) in cases {
            assert_mentions(&invalid_message(&text), &parts);
        }
        // A layout that cannot hold the chains: each replica is a chain, 32 per word.
        let two_chains_in_replica_lanes = tempering("LinearBeta(min: 0.3, max: 0.5, count: 4)", 1)
            .replace(
                "replicas: 4,",
                "replicas: 2, engine: Multispin(layout: Amsc(lanes: Replicas)),",
            );
        assert_mentions(
            &invalid_message(&two_chains_in_replica_lanes),
            &["lanes: Replicas", "multiple of 32", "got 2"],
        );
    }

    #[test]
    fn odd_size_is_refused() {
        let msg = invalid_message(&sample_with("size: 32", "size: 33"));
        assert_eq!(msg, "size must be even for the checkerboard update, got 33");
    }

    #[test]
    fn lattice_shape_is_checked() {
        assert_mentions(
            &invalid_message(&sample_with("dims: 2", "dims: 4")),
            &["dims", "got 4"],
        );
        assert_mentions(
            &invalid_message(&sample_with("size: 32", "size: 0")),
            &["size", "got 0"],
        );
        // No engine given: Auto falls back to the simple engine, and the message says so and
        // names the engine that takes larger lattices.
        assert_mentions(
            &invalid_message(&sample_with("size: 32", "size: 46342")),
            &[
                "46342^2",
                "sites",
                "engine: Auto chose Simple",
                "the simple engine takes fewer than 2147483648 = 2^31",
                "Multispin(layout: Smsc) takes up to 2^34 sites, with a size that is a multiple of 64",
            ],
        );
        // 1290^3 < 2^31 < 1292^3: the bound is exactly 2^31 sites.
        let too_big = sample_with("dims: 2, size: 32", "dims: 3, size: 1292");
        assert_mentions(&invalid_message(&too_big), &["1292^3"]);
        let just_fits = sample_with("dims: 2, size: 32", "dims: 3, size: 1290");
        Config::from_ron_str(&just_fits)
            .unwrap()
            .validate()
            .unwrap();
        assert_mentions(
            &invalid_message(&sample_with("field: 0.0", "field: inf")),
            &["field", "inf"],
        );
    }

    /// The sample with `engine` and lattice `dims`, `size`.
    fn lattice_with(engine: &str, dims: u32, size: u32) -> String {
        sample_with("replicas: 4,", &format!("replicas: 32, engine: {engine},"))
            .replace("dims: 2, size: 32", &format!("dims: {dims}, size: {size}"))
    }

    #[test]
    fn site_limit_depends_on_the_engine() {
        let smsc = "Multispin(layout: Smsc)";
        let amsc = "Multispin(layout: Amsc(lanes: Replicas))";
        // The benchmark target: 65536^2 = 2^32 sites, 2^27 SMSC words.
        let target = Config::from_ron_str(&lattice_with(smsc, 2, 65536)).unwrap();
        target.validate().unwrap();
        let shared = lattice_with("Multispin(layout: Smsc, randoms: Shared)", 2, 65536);
        Config::from_ron_str(&shared).unwrap().validate().unwrap();
        let glass = lattice_with(smsc, 2, 65536).replace("Ising(", "EdwardsAnderson(");
        Config::from_ron_str(&glass).unwrap().validate().unwrap();
        // The simple engine and AMSC (one site per word) keep 2^31.
        assert_mentions(
            &invalid_message(&lattice_with("Simple", 2, 65536)),
            &[
                "65536^2 has 4294967296 sites",
                "the simple engine takes fewer than 2147483648 = 2^31 sites per system",
                "Smsc",
            ],
        );
        assert_mentions(
            &invalid_message(&lattice_with(amsc, 2, 65536)),
            &["65536^2", "Amsc", "2147483648 = 2^31", "32-bit"],
        );
        Config::from_ron_str(&lattice_with(amsc, 2, 46340))
            .unwrap()
            .validate()
            .unwrap();
        // SMSC: below 2^34 sites; 131008 = 2^17 - 64 is the largest 2D size.
        let largest = Config::from_ron_str(&lattice_with(smsc, 2, 131_008)).unwrap();
        largest.validate().unwrap();
        assert_mentions(
            &invalid_message(&lattice_with(smsc, 2, 131_072)),
            &[
                "131072^2 has 17179869184 sites",
                "17179869184 = 2^34",
                "32-bit counter",
            ],
        );
        // 2560^3 < 2^34 < 2624^3.
        Config::from_ron_str(&lattice_with(smsc, 3, 2560))
            .unwrap()
            .validate()
            .unwrap();
        assert_mentions(
            &invalid_message(&lattice_with(smsc, 3, 2624)),
            &["2624^3", "2^34"],
        );
        // Sizes beyond u32 products are refused, not wrapped.
        assert_mentions(
            &invalid_message(&lattice_with(smsc, 3, 4_294_967_232)),
            &["4294967232^3", "2^34"],
        );
    }

    #[test]
    fn site_limits_follow_the_index_bounds() {
        let limit = |engine| SiteLimit::of(&engine).sites;
        let smsc = EngineKind::Multispin {
            layout: Layout::Smsc,
            randoms: Randoms::Exact,
        };
        let amsc = EngineKind::Multispin {
            layout: Layout::Amsc {
                lanes: Lanes::Samples,
            },
            randoms: Randoms::Shared,
        };
        assert_eq!(limit(EngineKind::Simple), 1 << 31);
        assert_eq!(limit(amsc), 1 << 31);
        assert_eq!(limit(smsc), 1 << 34);
        // Words per word system stay below 2^31 in both layouts (an SMSC word is 32 sites).
        assert!(limit(amsc) <= MAX_MULTISPIN_WORDS);
        assert!(limit(smsc) / 32 <= MAX_MULTISPIN_WORDS);
        // The hot start's Philox block counter (4 sites per block) is a u32.
        assert!((limit(smsc) - 1) / 4 <= u64::from(u32::MAX));
    }

    /// Each `(from, to, needles)`: replacing `from` by `to` in the sample must be refused with
    /// a message mentioning every needle.
    fn assert_refused(cases: &[(&str, &str, &[&str])]) {
        for (from, to, needles) in cases {
            assert_mentions(&invalid_message(&sample_with(from, to)), needles);
        }
    }

    #[test]
    fn repeated_temperatures_are_refused() {
        assert_refused(&[
            (
                "[0.40, 0.44]",
                "[0.40, 0.44, 0.40]",
                &["beta #1 and #3 are both 0.4", "duplicates work", "zero gap"],
            ),
            (
                "Betas([0.40, 0.44])",
                "Temperatures([2.0, 2.0])",
                &["temperature #1 and #2 are both 2"],
            ),
        ]);
    }

    /// The engine `Auto` resolves to for the sample with `from` replaced by `to`.
    fn auto_engine(from: &str, to: &str) -> EngineKind {
        let config = Config::from_ron_str(&sample_with(from, to)).unwrap();
        assert_eq!(config.engine, EngineKind::Auto, "no engine given");
        config.validate().unwrap();
        let (resolved, choice) = config.resolve_engine().unwrap();
        assert!(choice.contains("engine: Auto chose"), "{choice}");
        resolved.engine
    }

    #[test]
    fn auto_engine_picks_the_fastest_that_fits() {
        let amsc = |lanes| EngineKind::multispin_with(Layout::Amsc { lanes });
        let smsc = EngineKind::multispin_with(Layout::Smsc);
        // Few systems on a small lattice: the simple engine.
        assert_eq!(
            auto_engine("replicas: 4", "replicas: 4"),
            EngineKind::Simple
        );
        assert_eq!(
            auto_engine("replicas: 4", "replicas: 64"),
            amsc(Lanes::Replicas)
        );
        assert_eq!(auto_engine("size: 32", "size: 64"), smsc);
        // One huge lattice only SMSC takes.
        assert_eq!(auto_engine("size: 32", "size: 65536"), smsc);
        // Sixteen temperatures fill half the lanes of a word.
        let many = format!(
            "Betas({:?})",
            (1..=16).map(|i| 0.02 * f64::from(i)).collect::<Vec<_>>()
        );
        assert_eq!(
            auto_engine("Betas([0.40, 0.44])", &many),
            amsc(Lanes::Temperatures)
        );
        // The spin glass: samples in lanes first, then replicas, then temperatures.
        let glass = |counts: &str| {
            sample_with("Ising(", "EdwardsAnderson(").replace("replicas: 4,", counts)
        };
        let resolved = |text: String| {
            let config = Config::from_ron_str(&text).unwrap();
            config.validate().unwrap();
            config.resolve_engine().unwrap().0.engine
        };
        assert_eq!(
            resolved(glass("replicas: 2, samples: 64,")),
            amsc(Lanes::Samples)
        );
        assert_eq!(resolved(glass("replicas: 64,")), amsc(Lanes::Replicas));
        assert_eq!(resolved(glass("replicas: 2,")), amsc(Lanes::Temperatures));
        // Nothing fits: the error says what each layout needs.
        let crowded = glass("replicas: 2, samples: 4,").replace(
            "Betas([0.40, 0.44])",
            &format!("Betas({:?})", (1..=33).map(f64::from).collect::<Vec<_>>()),
        );
        assert_mentions(
            &invalid_message(&crowded),
            &[
                "EdwardsAnderson needs the multispin engine",
                "engine: Auto",
                "samples must be a multiple of 32, got 4",
                "replicas must be a multiple of 32, got 2",
                "at most 32 temperatures, got 33",
                "multiple of 64, got 32",
            ],
        );
    }

    #[test]
    fn resolving_keeps_a_named_engine_and_records_an_auto_choice() {
        let named = sample_with("replicas: 4,", "replicas: 4, engine: Simple,");
        let config = Config::from_ron_str(&named).unwrap();
        let (resolved, choice) = config.resolve_engine().unwrap();
        assert_eq!(resolved.to_ron_string(), config.to_ron_string());
        assert_eq!(choice, "engine named in the config");
        // Auto is replaced in the text the run writes (and fingerprints), which reads back to
        // the same engine.
        let auto = Config::from_ron_str(&sample_with("replicas: 4", "replicas: 32")).unwrap();
        let (resolved, _) = auto.resolve_engine().unwrap();
        let text = resolved.to_ron_string();
        assert!(!text.contains("engine: Auto"), "{text}");
        let read_back = Config::from_ron_str(&text).unwrap();
        assert_eq!(read_back.resolve_engine().unwrap().0, resolved);
    }

    #[test]
    fn bad_betas_are_named_with_their_position() {
        assert_refused(&[
            ("0.44", "0.0", &["beta #2", "got 0"]),
            ("0.40", "-0.4", &["beta #1", "got -0.4"]),
            ("0.44", "NaN", &["beta #2", "got NaN"]),
            ("0.44", "inf", &["beta #2", "got inf"]),
            ("[0.40, 0.44]", "[]", &["at least one"]),
            (
                "Betas([0.40, 0.44])",
                "Temperatures([2.0, -1.0])",
                &["temperature #2", "got -1"],
            ),
        ]);
    }

    #[test]
    fn bad_sweeps_and_counts_are_refused() {
        assert_refused(&[
            ("measure: 20000", "measure: 0", &["measure", "got 0"]),
            (
                "measure: 20000",
                "measure: 4294967295",
                &["exceeds 4294967295 sweeps"],
            ),
            ("every: 10", "every: 0", &["every", "got 0"]),
            (
                "every: 10",
                "every: 20001",
                &["every (20001)", "measure (20000)"],
            ),
            ("replicas: 4", "replicas: 0", &["replicas", "got 0"]),
            (
                "backend: Auto,",
                "backend: Auto, workgroup_size: 48,",
                &["workgroup_size", "got 48"],
            ),
            (
                "backend: Auto,",
                "backend: Auto, workgroup_size: 2048,",
                &["workgroup_size", "got 2048"],
            ),
        ]);
    }

    #[test]
    fn engines_and_layouts_refuse_what_they_cannot_pack() {
        let ea = |engine: &str, extra: &str| {
            sample_with(
                "replicas: 4,",
                &format!("replicas: 4, engine: {engine}, {extra}"),
            )
            .replace("Ising(", "EdwardsAnderson(")
        };
        assert_mentions(
            &invalid_message(&ea("Simple", "samples: 8,")),
            &["EdwardsAnderson needs the multispin engine"],
        );
        assert_mentions(
            &invalid_message(&ea(
                "Multispin(layout: Amsc(lanes: Samples))",
                "samples: 40,",
            )),
            &["multiple of 32", "got 40"],
        );
        assert_mentions(
            &invalid_message(&ea("Multispin(layout: Smsc)", "")),
            &["multiple of 64", "got 32"],
        );
        assert_mentions(
            &invalid_message(&ea("Multispin(layout: Amsc(lanes: Replicas))", "")),
            &["replicas must be a multiple of 32", "got 4"],
        );
        let odd = ea("Multispin(layout: Amsc(lanes: Temperatures))", "")
            .replace("replicas: 4", "replicas: 3");
        assert_mentions(
            &invalid_message(&odd),
            &["1 or an even number of replicas", "got 3"],
        );
        let replicas_32 = ea("Multispin(layout: Amsc(lanes: Replicas))", "")
            .replace("replicas: 4", "replicas: 32");
        assert_mentions(
            &invalid_message(&replicas_32),
            &["multiple of 64", "got 32"],
        );
        let many = ea("Multispin(layout: Amsc(lanes: Temperatures))", "").replace(
            "Betas([0.40, 0.44])",
            &format!("Betas({:?})", (1..=33).map(f64::from).collect::<Vec<_>>()),
        );
        assert_mentions(
            &invalid_message(&many),
            &["at most 32 temperatures", "got 33"],
        );
        assert_mentions(
            &invalid_message(&sample_with("replicas: 4,", "replicas: 4, samples: 2,")),
            &["ferromagnet has no disorder", "got 2"],
        );
        assert_mentions(
            &invalid_message(&sample_with("replicas: 4,", "replicas: 4, samples: 0,")),
            &["samples must be at least 1"],
        );
        let fine = ea(
            "Multispin(layout: Amsc(lanes: Samples), randoms: Shared)",
            "samples: 64,",
        );
        Config::from_ron_str(&fine).unwrap().validate().unwrap();
        let (_, _, msg) = parse_error(&ea("Multispin(layout: Amsc(lanes: Sites))", ""));
        assert_mentions(&msg, &["`Sites`", "`Replicas`, `Samples`, `Temperatures`"]);
    }

    #[test]
    fn every_equal_to_measure_gives_one_measurement() {
        let config = Config::from_ron_str(&sample_with("every: 10", "every: 20000")).unwrap();
        config.validate().unwrap();
        assert_eq!(config.sweeps.measurements(), 1);
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
        let text = packed.to_ron_string();
        assert!(text.contains("final_state: Packed"), "{text}");
        assert_eq!(Config::from_ron_str(&text).unwrap(), packed);
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
        let text = off.to_ron_string();
        assert!(text.contains("plots: false"), "{text}");
        assert_eq!(Config::from_ron_str(&text).unwrap(), off);
    }

    #[test]
    fn default_config_is_valid_and_as_documented() {
        let config = Config::default_config().unwrap();
        config.validate().unwrap();
        assert_eq!(
            config.model,
            Model::Ising {
                dims: 2,
                size: 64,
                field: 0.0
            }
        );
        assert_eq!(config.temperatures.betas(), vec![0.40, 0.4406868, 0.48]);
        assert_eq!(
            (config.replicas, config.samples, config.seed, config.backend),
            (32, 1, 12345, Backend::Auto)
        );
        assert_eq!(config.engine, EngineKind::Auto);
        assert_eq!(
            config.resolve_engine().unwrap().0.engine,
            EngineKind::Multispin {
                layout: Layout::Amsc {
                    lanes: Lanes::Replicas
                },
                randoms: Randoms::Exact
            }
        );
        assert_eq!(
            config.sweeps,
            Sweeps {
                thermalize: 2000,
                measure: 20000,
                every: 10
            }
        );
        assert!(
            Config::default_source().contains("//"),
            "the default config is commented"
        );
    }
}
