//! The kernel table shared by the device backends: every compute kernel is one file in
//! `shaders/wgsl/` (`.wgsl`, composed by `engine::wgpu::shaders`) and one in `shaders/cuda/`
//! (`.cu`, composed by `engine::cuda::shaders`) of the same name, with its CPU twin in
//! `engine::cpu`; a [`Kernel`] names it with the variant it is composed for (word layout, or the
//! engine whose buffers a tempering kernel shares).

use crate::config::Layout;
use crate::engine::multispin::MultispinLayout;

/// How the multispin kernels pack spins into words: the module `multispin_layout` resolves to
/// `multispin_layout_amsc` or `multispin_layout_smsc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WordLayout {
    Amsc,
    Smsc,
}

impl WordLayout {
    /// The word layout of the multispin `layout`.
    pub fn of(layout: &MultispinLayout) -> Self {
        match layout.layout {
            Layout::Amsc { .. } => WordLayout::Amsc,
            Layout::Smsc => WordLayout::Smsc,
        }
    }
}

/// The compute kernels, one per file in `shaders/wgsl/` and in `shaders/cuda/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kernel {
    MetropolisSimple,
    Observables,
    PhiloxKat,
    MultispinMetropolis(WordLayout),
    MultispinObservables(WordLayout),
    MultispinOverlap(WordLayout),
    /// Parallel tempering, for the simple or the multispin engine's buffers (WGSL: that engine's
    /// bindings as group 0, the tempering buffers as group 1).
    TemperingSwap(KernelEngine),
    TemperingExchange(KernelEngine),
    TemperingHistory(KernelEngine),
    /// Population annealing's copies, for either engine (whole words or lanes), with buffers of
    /// its own (map, snapshot, spins).
    CopySystems,
    /// The hot start, for either engine (constant `MULTISPIN`), with buffers of its own (lane
    /// table, spins).
    HotStart,
    /// Population annealing's resampling step on the device ([`crate::engine::resampling`]),
    /// with buffers of their own.
    ResampleCount,
    ResampleScan,
    ResampleScatter,
    ResampleHistogram,
    /// A cluster update's passes ([`crate::engine::clusters`]) on the spins of the simple engine
    /// or of the vector engine's discrete states (WGSL: that engine's bindings as group 0, the
    /// cluster buffers as group 1).
    ClusterBonds(ClusterSpins),
    ClusterLabel(ClusterSpins),
    ClusterMerge(ClusterSpins),
    ClusterRoots(ClusterSpins),
    ClusterFlip(ClusterSpins),
    /// The vector-spin kernels ([`crate::engine::vector`]), with bindings of their own kind.
    VectorHotStart,
    VectorMetropolis,
    VectorTiles,
    VectorOverrelaxation,
    VectorObservables,
    VectorOverlap,
    VectorExchange,
    /// The discrete states' update and sums on the vector-spin kernels' bindings
    /// ([`crate::model::vector::states`]).
    DiscreteMetropolis,
    DiscreteObservables,
    DiscreteOverlap,
    /// The discrete states' bit planes ([`crate::engine::planes`]) on the same bindings: the
    /// states packed into planes, unpacked, and the update of the planes.
    DiscretePack,
    DiscreteUnpack,
    DiscretePlanesMetropolis,
}

/// Which engine's bindings (the simple engine's or the multispin engine's) a tempering kernel
/// shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KernelEngine {
    Simple,
    Multispin,
}

/// Which spins a cluster kernel updates, and so whose bindings it shares: the simple engine's
/// signs, or the vector engine's discrete states or clock spins (whose bonds and flips are the
/// kernels `clock_bonds` and `clock_flip`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClusterSpins {
    Signs,
    States,
    Clock,
}

impl Kernel {
    /// The passes of one cluster update on `spins`, in order: bonds, label, merge, roots, flip.
    pub fn cluster_passes(spins: ClusterSpins) -> [Kernel; 5] {
        [
            Kernel::ClusterBonds(spins),
            Kernel::ClusterLabel(spins),
            Kernel::ClusterMerge(spins),
            Kernel::ClusterRoots(spins),
            Kernel::ClusterFlip(spins),
        ]
    }

    /// Every kernel, for validation tests.
    pub const ALL: [Kernel; 49] = [
        Kernel::MetropolisSimple,
        Kernel::Observables,
        Kernel::PhiloxKat,
        Kernel::MultispinMetropolis(WordLayout::Amsc),
        Kernel::MultispinMetropolis(WordLayout::Smsc),
        Kernel::MultispinObservables(WordLayout::Amsc),
        Kernel::MultispinObservables(WordLayout::Smsc),
        Kernel::MultispinOverlap(WordLayout::Amsc),
        Kernel::MultispinOverlap(WordLayout::Smsc),
        Kernel::TemperingSwap(KernelEngine::Simple),
        Kernel::TemperingSwap(KernelEngine::Multispin),
        Kernel::TemperingExchange(KernelEngine::Simple),
        Kernel::TemperingExchange(KernelEngine::Multispin),
        Kernel::TemperingHistory(KernelEngine::Simple),
        Kernel::TemperingHistory(KernelEngine::Multispin),
        Kernel::CopySystems,
        Kernel::HotStart,
        Kernel::ResampleCount,
        Kernel::ResampleScan,
        Kernel::ResampleScatter,
        Kernel::ResampleHistogram,
        Kernel::ClusterBonds(ClusterSpins::Signs),
        Kernel::ClusterLabel(ClusterSpins::Signs),
        Kernel::ClusterMerge(ClusterSpins::Signs),
        Kernel::ClusterRoots(ClusterSpins::Signs),
        Kernel::ClusterFlip(ClusterSpins::Signs),
        Kernel::ClusterBonds(ClusterSpins::States),
        Kernel::ClusterLabel(ClusterSpins::States),
        Kernel::ClusterMerge(ClusterSpins::States),
        Kernel::ClusterRoots(ClusterSpins::States),
        Kernel::ClusterFlip(ClusterSpins::States),
        Kernel::ClusterBonds(ClusterSpins::Clock),
        Kernel::ClusterLabel(ClusterSpins::Clock),
        Kernel::ClusterMerge(ClusterSpins::Clock),
        Kernel::ClusterRoots(ClusterSpins::Clock),
        Kernel::ClusterFlip(ClusterSpins::Clock),
        Kernel::VectorHotStart,
        Kernel::VectorMetropolis,
        Kernel::VectorTiles,
        Kernel::VectorOverrelaxation,
        Kernel::VectorObservables,
        Kernel::VectorOverlap,
        Kernel::VectorExchange,
        Kernel::DiscreteMetropolis,
        Kernel::DiscreteObservables,
        Kernel::DiscreteOverlap,
        Kernel::DiscretePack,
        Kernel::DiscreteUnpack,
        Kernel::DiscretePlanesMetropolis,
    ];

    /// The module (file stem) of the kernel.
    pub fn module(self) -> &'static str {
        match self {
            Kernel::MetropolisSimple => "metropolis_simple",
            Kernel::Observables => "observables",
            Kernel::PhiloxKat => "philox_kat",
            Kernel::MultispinMetropolis(_) => "multispin_metropolis",
            Kernel::MultispinObservables(_) => "multispin_observables",
            Kernel::MultispinOverlap(_) => "multispin_overlap",
            Kernel::TemperingSwap(_) => "tempering_swap",
            Kernel::TemperingExchange(_) => "tempering_exchange",
            Kernel::TemperingHistory(_) => "tempering_history",
            Kernel::CopySystems => "copy_systems",
            Kernel::HotStart => "hot_start",
            Kernel::ResampleCount => "resample_count",
            Kernel::ResampleScan => "resample_scan",
            Kernel::ResampleScatter => "resample_scatter",
            Kernel::ResampleHistogram => "resample_histogram",
            Kernel::ClusterBonds(ClusterSpins::Clock) => "clock_bonds",
            Kernel::ClusterBonds(_) => "cluster_bonds",
            Kernel::ClusterLabel(_) => "cluster_label",
            Kernel::ClusterMerge(_) => "cluster_merge",
            Kernel::ClusterRoots(_) => "cluster_roots",
            Kernel::ClusterFlip(ClusterSpins::Clock) => "clock_flip",
            Kernel::ClusterFlip(_) => "cluster_flip",
            Kernel::VectorHotStart => "vector_hot_start",
            Kernel::VectorMetropolis => "vector_metropolis",
            Kernel::VectorTiles => "vector_tiles",
            Kernel::VectorOverrelaxation => "vector_overrelaxation",
            Kernel::VectorObservables => "vector_observables",
            Kernel::VectorOverlap => "vector_overlap",
            Kernel::VectorExchange => "vector_exchange",
            Kernel::DiscreteMetropolis => "discrete_metropolis",
            Kernel::DiscreteObservables => "discrete_observables",
            Kernel::DiscreteOverlap => "discrete_overlap",
            Kernel::DiscretePack => "discrete_pack",
            Kernel::DiscreteUnpack => "discrete_unpack",
            Kernel::DiscretePlanesMetropolis => "discrete_planes_metropolis",
        }
    }

    /// The word layout a multispin kernel is composed for.
    pub fn word_layout(self) -> WordLayout {
        match self {
            Kernel::MultispinMetropolis(layout)
            | Kernel::MultispinObservables(layout)
            | Kernel::MultispinOverlap(layout) => layout,
            _ => WordLayout::Amsc,
        }
    }
}

/// Words of the `philox_kat` kernel's buffer per `(counter, key)` pair: the counter (4 words)
/// and the key (2) it reads, then the block (4) it writes.
const PHILOX_KAT_WORDS: usize = 10;

/// The `philox_kat` kernel's buffer for `inputs`, its blocks zeroed.
pub fn philox_kat_io(inputs: &[([u32; 4], [u32; 2])]) -> Vec<u32> {
    inputs
        .iter()
        .flat_map(|(ctr, key)| ctr.iter().chain(key).copied().chain([0; 4]))
        .collect()
}

/// The blocks the `philox_kat` kernel wrote into its buffer `io`.
pub fn philox_kat_blocks(io: &[u32]) -> Vec<[u32; 4]> {
    io.chunks_exact(PHILOX_KAT_WORDS)
        .map(|w| [w[6], w[7], w[8], w[9]])
        .collect()
}
