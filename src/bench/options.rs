//! The options of `spinflip bench` and the run config of one measurement.

use std::path::PathBuf;

use clap::ValueEnum;

use crate::config::{
    Algorithm, AnnealingSchedule, Backend, Boundaries, Boundary, ClusterUpdate, Config, Disorder,
    EngineKind, Lanes, LatticeKind, Layout, MetropolisOrder, Model, PhiloxPath, Proposal, Randoms,
    ReplicaMoves, Resampling, StateStorage, Sweeps, Temperatures,
};

/// Which backends to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchBackend {
    /// The CPU and wgpu engines (CUDA only when named: most machines have no NVIDIA driver).
    All,
    Cpu,
    Wgpu,
    Cuda,
}

/// Which engines (and multispin layouts) to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchEngine {
    /// One spin per 32-bit word.
    Simple,
    /// Multispin, 32 systems per word (lanes chosen by `--lanes`).
    Amsc,
    /// Multispin, 32 sites of one lattice per word (sizes that are multiples of 64).
    Smsc,
}

/// The model measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchModel {
    Ising,
    /// Edwards-Anderson +-J (multispin engines only).
    Ea,
    /// XY (O(2)) ferromagnet: the vector-spin engine, uniform Metropolis proposals (`--engine`
    /// does not apply).
    Xy,
    /// Heisenberg (O(3)) ferromagnet, as `xy`.
    Heisenberg,
    /// The `--states`-state Potts ferromagnet on the vector-spin engine, a state a word
    /// (Metropolis over the other states, or `--heat-bath`).
    Potts,
    /// The Blume-Capel model at `--crystal-field`, as `potts`.
    BlumeCapel,
    /// The `--states`-state clock ferromagnet on the vector-spin engine (XY spins on its
    /// angles; with `--clusters`, Wolff's embedding).
    Clock,
}

impl BenchModel {
    /// The model as a row names it.
    pub fn label(self) -> &'static str {
        match self {
            BenchModel::Ising => "Ising",
            BenchModel::Ea => "EA",
            BenchModel::Xy => "XY",
            BenchModel::Heisenberg => "Heisenberg",
            BenchModel::Potts => "Potts",
            BenchModel::BlumeCapel => "Blume-Capel",
            BenchModel::Clock => "clock",
        }
    }
}

/// Options of `spinflip bench`.
#[derive(Debug, Clone, clap::Parser)]
pub struct BenchOptions {
    /// Backends to measure.
    #[arg(long, value_enum, default_value = "all")]
    pub backend: BenchBackend,
    /// Engines to measure.
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["simple", "amsc", "smsc"])]
    pub engine: Vec<BenchEngine>,
    /// Model.
    #[arg(long, value_enum, default_value = "ising")]
    pub model: BenchModel,
    /// What AMSC lanes hold (the default: replicas for the Ising model, samples for EA).
    #[arg(long, value_enum)]
    pub lanes: Option<LanesArg>,
    /// How multispin decisions draw random numbers.
    #[arg(long, value_enum, default_value = "exact")]
    pub randoms: RandomsArg,
    /// Lattice dimension.
    #[arg(long, default_value_t = 2)]
    pub dims: u32,
    /// Linear sizes (even; SMSC measures the multiples of 64 only).
    #[arg(long, value_delimiter = ',', default_values_t = vec![256, 1024, 4096])]
    pub sizes: Vec<u32>,
    /// Systems per run (AMSC rounds up to whole words of 32).
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
    /// Workgroup size of the GPU kernels (the cluster updates' and the vector Metropolis
    /// kernels take their own, 256; wgpu's vector tiles a thread a site of a tile's colour).
    #[arg(long, default_value_t = 64)]
    pub workgroup_size: u32,
    /// Compile the GPU kernels with wgpu's runtime bounds checks.
    #[arg(long)]
    pub bounds_checks: bool,
    /// Write what the Vulkan driver made of each WGSL kernel (statistics, internal
    /// representations) into this directory.
    #[arg(long)]
    pub pipeline_statistics: Option<PathBuf>,
    /// Print JSON lines instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Parallel tempering: each measurement is also made with swap rounds and measurements,
    /// whose cost the row shows against plain sweeps.
    #[arg(long)]
    pub tempering: bool,
    /// Each measurement is also made with the lattices split into this many slabs (threads of
    /// this process, each with its own engine and device context, trading halo planes as MPI
    /// ranks do): the row shows their rate and its cost against one engine. One slab trades
    /// with itself, so its cost is the halo exchange's alone.
    #[arg(long, default_value_t = 0)]
    pub slabs: u32,
    /// With `--tempering`: temperatures of the ladder (beta to 2 beta, geometric in T).
    #[arg(long, default_value_t = 32)]
    pub temperatures: u32,
    /// With `--tempering`: independent chains (replicas) per sample.
    #[arg(long, default_value_t = 2)]
    pub chains: u32,
    /// With `--tempering`: sweeps between swap rounds.
    #[arg(long, default_value_t = 1)]
    pub swap_every: u64,
    /// With `--tempering`: sweeps between measurements.
    #[arg(long, default_value_t = 10)]
    pub measure_every: u64,
    /// Population annealing: each row times one whole anneal of a population of `--systems`
    /// replicas (per sample): `--steps` temperature steps, linear in beta up to `--beta`, each
    /// `--theta` sweeps and a measurement, with the resampling between steps (host decisions,
    /// device copies, new thresholds). AMSC lanes hold replicas unless `--lanes` says otherwise.
    #[arg(long, conflicts_with = "tempering")]
    pub annealing: bool,
    /// With `--annealing`: Metropolis sweeps per temperature step.
    #[arg(long, default_value_t = 10)]
    pub theta: u32,
    /// With `--annealing`: temperature steps.
    #[arg(long, default_value_t = 20)]
    pub steps: u32,
    /// With `--annealing`: disorder samples, one population each (`--model ea`).
    #[arg(long, default_value_t = 1)]
    pub samples: u32,
    /// Cluster updates instead of sweeps (the simple engine, `--engine simple`; `--model potts`,
    /// the vector engine's states; `--model clock`, Wolff's embedding): each row times updates
    /// of this kind alone and shows their spins per ns per update, the labelling's passes over
    /// the lattices per update and the bytes per site an update moves at least.
    #[arg(long, value_enum, conflicts_with_all = ["tempering", "annealing"])]
    pub clusters: Option<ClustersArg>,
    /// `--model xy|heisenberg`: Weigel's (2012) double checkerboard with tiles of this many sites a
    /// side (16 suits 2D, 8 suits 3D; sizes it does not tile are skipped, naming why), instead
    /// of the plain checkerboard.
    #[arg(long)]
    pub tile: Option<u32>,
    /// With `--tile`: Metropolis hits per site and sweep (multi-hit).
    #[arg(long, default_value_t = 1, requires = "tile")]
    pub hits: u32,
    /// `--model potts|clock`: the states `q`.
    #[arg(long, default_value_t = 3)]
    pub states: u32,
    /// `--model blume-capel`: the crystal field `D`.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub crystal_field: f64,
    /// `--model potts|blume-capel`: the heat bath instead of Metropolis.
    #[arg(long)]
    pub heat_bath: bool,
    /// `--model potts|blume-capel`: the states in bit planes (`updates: (storage: BitPlanes)`),
    /// 32 sites a word.
    #[arg(long, conflicts_with = "heat_bath")]
    pub planes: bool,
    /// `--model ea|potts`: Gaussian couplings, one sample (the Edwards-Anderson glass then runs
    /// on the vector engine as two discrete states, as its runs do).
    #[arg(long)]
    pub gaussian: bool,
    /// With `--tempering`, `--model ea|potts`: Houdayer's replica move of every replica pair
    /// after each sweep (the glass then runs on the vector engine as discrete states, as its
    /// runs do); the row times the sweeps with their moves, against a row without them.
    #[arg(long, requires = "tempering")]
    pub houdayer: bool,
    /// With `--model ising`: the antiferromagnet (every `J = -1`), on the multispin engines as
    /// coupling bits (on the bipartite lattices its staggered magnetisation counted by
    /// sublattice); on the simple engine, two discrete states on the vector engine.
    #[arg(long)]
    pub antiferromagnet: bool,
    /// The lattice (2D): the square one, or the triangular, honeycomb or kagome lattice on the
    /// vector-spin engine (the Ising model as two discrete states); the honeycomb and triangular
    /// Ising models with `--engine amsc` or `smsc` (no `simple`) on the multispin engine.
    #[arg(long, value_enum, default_value = "square")]
    pub lattice: LatticeArg,
    /// Every axis open: the edge sites leave out the bonds across it (`boundaries: (Open,
    /// ..)`); the Ising models on the multispin engines with `--engine amsc` or `smsc`.
    #[arg(long)]
    pub open: bool,
}

/// The lattices selectable on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LatticeArg {
    Square,
    Triangular,
    Honeycomb,
    Kagome,
}

impl LatticeArg {
    /// The config's lattice; `None` for the square (or cubic) one of `--dims`.
    fn kind(self) -> Option<LatticeKind> {
        match self {
            LatticeArg::Square => None,
            LatticeArg::Triangular => Some(LatticeKind::Triangular),
            LatticeArg::Honeycomb => Some(LatticeKind::Honeycomb),
            LatticeArg::Kagome => Some(LatticeKind::Kagome),
        }
    }
}

impl BenchOptions {
    /// Whether the rows are the vector engine's: where the run config of an engine asked for
    /// goes there ([`Config::is_vector`]: vector spins, discrete states, the Gaussian glass and
    /// one with replica moves, the kagome lattice, the honeycomb and triangular ones but on
    /// multispin engines alone, `--engine amsc,smsc`). The lattice's size does not enter that
    /// choice, so the first size stands for all.
    pub fn runs_vector_engine(&self) -> bool {
        let Some(&size) = self.sizes.first() else {
            return false;
        };
        (self.engine.iter())
            .any(|&engine| bench_config(self, Backend::Cpu, engine, size).is_vector())
    }

    /// The model of the multispin engine's rows: its label, the antiferromagnet, and the
    /// lattice where it is not the square or cubic one ("Ising antiferromagnet honeycomb").
    pub fn row_model(&self) -> String {
        let mut label = self.model.label().to_string();
        if self.antiferromagnet {
            label += " antiferromagnet";
        }
        if self.open {
            label += " open";
        }
        match self.lattice.to_possible_value() {
            Some(lattice) if self.lattice != LatticeArg::Square => {
                format!("{label} {}", lattice.get_name())
            }
            _ => label,
        }
    }

    /// The couplings of the glass models.
    fn glass_disorder(&self) -> Disorder {
        match self.gaussian {
            true => Disorder::Gaussian,
            false => Disorder::Bimodal,
        }
    }
}

/// Cluster updates selectable on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ClustersArg {
    SwendsenWang,
    Wolff,
}

impl ClustersArg {
    /// The config's name of the update.
    pub fn update(self) -> ClusterUpdate {
        match self {
            ClustersArg::SwendsenWang => ClusterUpdate::SwendsenWang,
            ClustersArg::Wolff => ClusterUpdate::Wolff,
        }
    }
}

/// Philox paths selectable on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PhiloxArg {
    Auto,
    Int64,
    U32,
}

/// AMSC lane meanings selectable on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LanesArg {
    Replicas,
    Samples,
    Temperatures,
}

/// Random-number modes selectable on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RandomsArg {
    Exact,
    Packed,
    Shared,
}

/// The run config of one measurement: the engine's system counts follow its packing.
pub(super) fn bench_config(
    options: &BenchOptions,
    backend: Backend,
    engine: BenchEngine,
    size: u32,
) -> Config {
    let mut config = Config::default_config().expect("the built-in config is valid");
    let (dims, field) = (options.dims, 0.0);
    let boundaries = match options.open {
        true => Boundaries::new(&vec![Boundary::Open; dims as usize]),
        false => Boundaries::PERIODIC,
    };
    config.model = match options.model {
        BenchModel::Ising => Model::Ising {
            dims,
            size,
            antiferromagnet: options.antiferromagnet,
            lattice: options.lattice.kind(),
            boundaries,
            field,
            dilution: 0.0,
        },
        BenchModel::Ea => Model::EdwardsAnderson {
            dims,
            size,
            lattice: options.lattice.kind(),
            boundaries,
            field,
            disorder: options.glass_disorder(),
            dilution: 0.0,
        },
        BenchModel::Xy => Model::XY {
            dims,
            size,
            antiferromagnet: false,
            lattice: options.lattice.kind(),
            boundaries,
            field,
            disorder: Disorder::Ferromagnet,
        },
        BenchModel::Heisenberg => Model::Heisenberg {
            dims,
            size,
            antiferromagnet: false,
            lattice: options.lattice.kind(),
            boundaries,
            field,
            disorder: Disorder::Ferromagnet,
        },
        BenchModel::Potts => Model::Potts {
            q: options.states,
            dims,
            size,
            antiferromagnet: false,
            lattice: options.lattice.kind(),
            boundaries,
            field,
            disorder: match (options.gaussian, options.houdayer) {
                (true, _) => Disorder::Gaussian,
                (false, true) => Disorder::Bimodal,
                (false, false) => Disorder::Ferromagnet,
            },
            dilution: 0.0,
        },
        BenchModel::Clock => Model::Clock {
            q: options.states,
            dims,
            size,
            field,
            disorder: Disorder::Ferromagnet,
            antiferromagnet: false,
            lattice: options.lattice.kind(),
            boundaries,
        },
        BenchModel::BlumeCapel => Model::BlumeCapel {
            dims,
            size,
            antiferromagnet: false,
            lattice: options.lattice.kind(),
            boundaries,
            crystal_field: options.crystal_field,
            field,
            dilution: 0.0,
        },
    };
    if options.heat_bath {
        config.updates.proposal = Proposal::HeatBath;
    }
    if options.planes {
        config.updates.storage = StateStorage::BitPlanes;
    }
    if let Some(tile) = options.tile {
        let hits = options.hits;
        config.updates.metropolis = MetropolisOrder::DoubleCheckerboard { tile, hits };
    }
    config.backend = backend;
    config.adapter = options.adapter.clone();
    config.workgroup_size = options.workgroup_size;
    config.bounds_checks = options.bounds_checks;
    config.pipeline_statistics = options.pipeline_statistics.clone();
    config.philox = match options.philox {
        PhiloxArg::Auto => PhiloxPath::Auto,
        PhiloxArg::Int64 => PhiloxPath::Int64,
        PhiloxArg::U32 => PhiloxPath::U32,
    };
    let randoms = match options.randoms {
        RandomsArg::Exact => Randoms::Exact,
        RandomsArg::Packed => Randoms::Packed,
        RandomsArg::Shared => Randoms::Shared,
    };
    let lanes = match (options.lanes, options.model) {
        (Some(LanesArg::Replicas), _)
        | (
            None,
            BenchModel::Ising
            | BenchModel::Xy
            | BenchModel::Heisenberg
            | BenchModel::Potts
            | BenchModel::BlumeCapel
            | BenchModel::Clock,
        ) => Lanes::Replicas,
        // Populations are replicas.
        (None, BenchModel::Ea) if options.annealing => Lanes::Replicas,
        (Some(LanesArg::Samples), _) | (None, BenchModel::Ea) => Lanes::Samples,
        (Some(LanesArg::Temperatures), _) => Lanes::Temperatures,
    };
    let words = options.systems.div_ceil(32).max(1);
    let (temperatures, samples, replicas) = match (engine, options.tempering) {
        (BenchEngine::Simple | BenchEngine::Smsc, false) => (1, 1, options.systems),
        (BenchEngine::Simple | BenchEngine::Smsc, true) => {
            (options.temperatures, 1, options.chains)
        }
        (BenchEngine::Amsc, false) => match lanes {
            Lanes::Replicas => (1, 1, 32 * words),
            Lanes::Samples => (1, 32 * words, 1),
            Lanes::Temperatures => (32, words, 1),
        },
        // Chains are replicas: with lanes holding replicas, 32 chains per word.
        (BenchEngine::Amsc, true) => match lanes {
            Lanes::Replicas => (options.temperatures, 1, 32 * words),
            Lanes::Samples => (options.temperatures, 32 * words, options.chains),
            Lanes::Temperatures => (options.temperatures, options.systems, options.chains),
        },
    };
    if options.annealing {
        config.algorithm = Algorithm::Annealing {
            theta: options.theta,
            schedule: AnnealingSchedule::Linear {
                beta_max: options.beta,
                count: options.steps,
            },
            resampling: Resampling::FloorCeil,
            runs: 1,
            overlaps: false,
            reweighting: None,
        };
        config.temperatures = Temperatures::default();
        config.sweeps = Sweeps::default();
    } else if let Some(clusters) = options.clusters {
        config.algorithm = Algorithm::Clusters {
            update: clusters.update(),
            clusters: 1,
            metropolis: 0,
        };
        config.temperatures = Temperatures::Betas(vec![options.beta]);
    } else if options.tempering {
        config.algorithm = Algorithm::Tempering {
            every: options.swap_every,
            tune: false,
            moves: match options.houdayer {
                true => ReplicaMoves::Houdayer { per_sweep: 1 },
                false => ReplicaMoves::None,
            },
        };
        let t = 1.0 / options.beta;
        config.temperatures = Temperatures::GeometricT {
            min: t / 2.0,
            max: t,
            count: temperatures,
        };
    } else {
        // Temperatures in lanes spread around the requested beta.
        config.temperatures = Temperatures::Betas(
            (0..temperatures)
                .map(|t| options.beta * (1.0 + 0.01 * f64::from(t)))
                .collect(),
        );
    }
    (config.samples, config.replicas) = match options.annealing {
        true => (options.samples, options.systems),
        false => (samples, replicas),
    };
    config.engine = match engine {
        BenchEngine::Simple => EngineKind::Simple,
        BenchEngine::Amsc => EngineKind::Multispin {
            layout: Layout::Amsc { lanes },
            randoms,
        },
        BenchEngine::Smsc => EngineKind::Multispin {
            layout: Layout::Smsc,
            randoms,
        },
    };
    // Vector spins have one engine (the honeycomb and triangular Ising models run on the engine
    // named).
    if config.is_vector() {
        config.engine = EngineKind::Auto;
    }
    config
}
