//! The engines written once over their backends. A backend (CPU, wgpu, CUDA) holds the
//! lattices and kernels and does what its engine asks; the engine checks each call and orders a
//! plan's copies, launches and reads, the same on every backend. A backend's traits are sized
//! by capability, so that a model or backend provides only what its engine uses:
//!
//! - [`simple`]: the simple engine, [`simple::SimpleEngine`], over [`simple::SimpleBackend`]
//!   (sweeps and measurements) with [`simple::TemperingBackend`], [`simple::AnnealingBackend`]
//!   and [`simple::ClusterBackend`]: `engine::cpu::simple::CpuSimple`,
//!   `engine::wgpu::simple::WgpuSimple`, `engine::cuda::simple::CudaSimple`;
//! - [`vector`]: the vector-spin engine, [`vector::VectorEngine`], over
//!   [`vector::VectorBackend`] with [`vector::ProposalBackend`] and [`vector::ExchangeBackend`]:
//!   `engine::cpu::vector::CpuVector`, `engine::wgpu::vector::WgpuVector`,
//!   `engine::cuda::vector::CudaVector` (the device ones launch a run of passes through
//!   [`vector::VectorKernels`]);
//! - [`multispin`]: the multispin engine's `Engine` face, plans and population annealing,
//!   over [`multispin::MultispinLattices`], [`multispin::MultispinBackend`] and
//!   [`multispin::MultispinAnnealing`], which `engine::cpu::multispin::CpuMultispinEngine`,
//!   `engine::wgpu::multispin::MultispinWgpuEngine` and
//!   `engine::cuda::multispin::MultispinCudaEngine` implement (their state is large and bound
//!   to the word layout, so each backend's engine is its own type, and everything else is
//!   shared).

pub mod multispin;
pub mod simple;
pub mod vector;
