//! spinflip: Monte Carlo simulation of Ising-type spin models on GPUs.
//!
//! Layers, from the bottom (docs/ARCHITECTURE.md is the map): [`config`] (the RON schema),
//! [`rng`] (Philox and the counter scheme), [`threads`], [`atomic`] (crash-safe writes),
//! [`console`] (lines that a closed stream cannot end a run with), [`stop`];
//! [`model`] (geometry, the systems of a run, couplings) and [`exact`]; [`stats`] (estimators);
//! [`engine`] (the plan an engine replays, and the CPU, wgpu and CUDA backends); [`io`] (files
//! and checkpoints); [`mpi`] (runs split over ranks); the algorithms' homes [`tempering`],
//! [`annealing`] and [`metropolis`] (the loop of sweeps); [`plot`]; [`run`] (one run from its
//! config to its files); [`bench`] and [`cli`].
//!
//! Using the library directly: ten sweeps of two replicas on the CPU engine, then one
//! measurement of exact integer observables.
//!
//! ```
//! use spinflip::engine::{Engine, Plan, cpu::CpuEngine};
//! use spinflip::model::{Lattice, ising::IsingSystems};
//!
//! let systems = IsingSystems::ferromagnet(Lattice::new(2, 8), 0.0, vec![0.44], 2, 1);
//! let mut engine = CpuEngine::new(systems.clone());
//! engine.set_spins(&spinflip::engine::cpu::hot_start::initial_spins(&systems).into())?;
//! let mut plan = Plan::default();
//! for sweep in 0..10 {
//!     plan.sweep(sweep);
//! }
//! plan.measure();
//! let observations = engine.execute(&plan)?.observations;
//! assert_eq!(observations.len(), 2);
//! assert!(observations.iter().all(|o| o.up <= 64 && o.satisfied <= 128));
//! # Ok::<(), spinflip::Error>(())
//! ```

pub mod annealing;
pub mod atomic;
pub mod bench;
pub mod cli;
pub mod cluster;
pub mod config;
pub mod console;
pub mod engine;
pub mod error;
pub mod exact;
pub mod io;
pub mod metropolis;
pub mod model;
pub mod mpi;
pub mod plot;
pub mod rng;
pub mod run;
pub mod runtime_dir;
pub mod stats;
pub mod stop;
pub mod tempering;
pub mod threads;
pub mod vector;

pub use error::{Error, Result};
