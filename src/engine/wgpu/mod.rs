//! The wgpu engine: WGSL kernels from `shaders/wgsl/` on any Vulkan, Metal, DX12 or GL adapter.

pub mod adapters;
mod clusters;
pub mod context;
pub mod copy_systems;
pub mod driver_statistics;
mod hot_start;
pub mod launch;
mod multispin;
pub mod philox_kat;
pub mod resampling;
pub mod shaders;
mod simple;
mod specialize;
mod tempering;
mod vector;

pub use context::WgpuContext;
pub use multispin::MultispinWgpuEngine;
pub use simple::SimpleWgpuEngine;
pub use vector::WgpuVectorEngine;
