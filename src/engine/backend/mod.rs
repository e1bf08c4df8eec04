//! The interface between the device engines and their backends. The wgpu and CUDA backends
//! differ in how they launch kernels, copy systems and read results back; what an engine does
//! with those three (the order of a plan's resampling, sweeps and read-backs, the checks of
//! population annealing's calls) is the same on both and is written here once:
//!
//! - [`simple`]: the simple engine itself, [`simple::SimpleEngine`], generic over its
//!   backend's buffers and kernels ([`simple::SimpleBackend`]: `engine::wgpu::simple::WgpuSimple`,
//!   `engine::cuda::simple::CudaSimple`);
//! - [`multispin`]: the multispin engines' plan and population annealing, over
//!   [`multispin::MultispinBackend`] and [`multispin::MultispinAnnealing`], which the engines
//!   `engine::wgpu::multispin::MultispinWgpuEngine` and `engine::cuda::multispin::MultispinCudaEngine`
//!   implement (their state is large and bound to the word layout, so the engine is the
//!   backend's own type, and only its orchestration is shared);
//! - [`vector`]: the vector-spin engines' plans, every sweep's passes, the accepted moves and
//!   the measurements, over [`vector::VectorBackend`], which
//!   `engine::wgpu::vector::WgpuVectorEngine` and `engine::cuda::vector::CudaVectorEngine`
//!   implement.

pub mod multispin;
pub mod simple;
pub mod vector;
