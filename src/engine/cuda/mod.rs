//! The CUDA engine (feature `cuda`): CUDA C kernels from `shaders/cuda/`, compiled at run time by
//! NVRTC for the device's architecture and launched through the driver API (cudarc). Both
//! libraries are loaded when first needed, so a build with the feature still runs, and fails
//! clearly, where NVIDIA's driver or NVRTC is missing.
//!
//! Each kernel mirrors its WGSL twin of the same name and its CPU twin in `engine::cpu`, with the
//! same random words and thresholds, so all three engines produce the same bits.

mod clusters;
mod compile;
mod context;
mod copy_systems;
mod driver;
mod halos;
mod hot_start;
mod launch;
mod multispin;
pub mod philox_kat;
mod resampling;
pub mod shaders;
mod simple;
mod streams;
mod tempering;
mod vector;

pub use context::{CudaDevice, CudaDeviceSummary, device_count, devices, driver_loadable};
pub use halos::HALO_PATH_VARIABLE;
pub use multispin::{CONSTANT_TABLE_WORDS, MultispinCudaEngine};
pub use simple::SimpleCudaEngine;
pub use vector::CudaVectorEngine;
