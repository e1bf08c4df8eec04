//! The engine, its multispin layout and random numbers, and the backend it runs on.

use serde::{Deserialize, Serialize};

/// Which engine runs the sweeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum EngineKind {
    /// The fastest engine that fits the model and the system counts (`Config::resolve_engine`),
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
    /// `Config::resolve_engine` replaces before anything runs).
    pub fn multispin(&self) -> Option<MultispinOptions> {
        match *self {
            EngineKind::Multispin { layout, randoms } => Some(MultispinOptions { layout, randoms }),
            EngineKind::Simple | EngineKind::Auto => None,
        }
    }

    /// An exact-randoms multispin engine with `layout`.
    pub fn multispin_with(layout: Layout) -> EngineKind {
        EngineKind::Multispin {
            layout,
            randoms: Randoms::Exact,
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
    /// One 32-bit uniform per word shared by its 32 lanes, as in Weigel 2012; Lulli et al. 2015:
    /// cheaper, but it correlates the lanes.
    Shared,
    /// Exact as `Exact` (an independent uniform per lane), with fewer random words: past each
    /// word's first Philox block, the lanes still undecided in the words one GPU thread updates
    /// (`MultispinLayout::word_run`) share one stream of bit planes, packed into one word (see
    /// docs/design/random-numbers.md). A different random stream from `Exact`'s, which stays
    /// reachable.
    Packed,
}

/// Which engine runs the sweeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Backend {
    /// The best GPU adapter, else the CPU (also when the config leaves `backend` out).
    #[default]
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
