//! The interface between the device engines and their backends. The wgpu and CUDA backends
//! differ in how they launch kernels, copy systems and read results back; what an engine does
//! with those three (the order of a plan's resampling, sweeps and read-backs, the checks of
//! population annealing's calls) is the same on both and is written here once:
//!
//! - [`simple`]: the simple engines (`engine::wgpu::simple`, `engine::cuda::simple`);
//! - [`multispin`]: the multispin engines (`engine::wgpu::multispin`,
//!   `engine::cuda::multispin`).
//!
//! Each backend implements the trait of an engine kind ([`simple::SimpleBackend`],
//! [`multispin::MultispinBackend`]); its `Engine::execute` and `Populations` methods call the
//! functions beside the trait.

pub mod multispin;
pub mod simple;
