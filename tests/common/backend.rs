//! The GPU backends the equality tests (`tests/equality/`) run on, each opening its engines the
//! same way, so that a test is written once over [`Gpu`] and instantiated per backend.
//!
//! wgpu runs on whatever adapter wgpu finds (lavapipe in CI) and never skips: without an adapter
//! its tests fail. CUDA skips, printing a notice, where the machine has no CUDA driver
//! (`libcuda.so`) or no device: CI has no NVIDIA GPU, and `cargo test --features cuda` must still
//! pass there. Anything else that goes wrong on a machine with a device (no NVRTC, a compile
//! error, a kernel fault) fails the test.

use std::fmt;

use spinflip::config::{Backend, PhiloxPath};
use spinflip::engine::multispin::MultispinLayout;
use spinflip::engine::vector::VectorSweeps;
use spinflip::engine::wgpu::philox_kat;
use spinflip::engine::wgpu::{MultispinWgpuEngine, SimpleWgpuEngine, WgpuVectorEngine};
use spinflip::engine::{Betas, Engine, Halo};
use spinflip::model::ising::IsingSystems;
use spinflip::model::vector::VectorSystems;

/// What Philox4x32-10 takes: `(counter, key)`.
pub type PhiloxInput = ([u32; 4], [u32; 2]);

/// A GPU backend, as one variant of its kernels (the value: wgpu's Philox path and bounds checks;
/// CUDA has one).
pub trait Gpu: Copy + fmt::Display + Send + Sync + 'static {
    /// The backend as a config names it (`backend: Wgpu`).
    const BACKEND: Backend;
    /// Threads per workgroup (block) that every engine takes and that must not change a bit.
    const BLOCK_SIZES: &[u32];

    /// Whether this machine runs the backend; where not, prints that `test` is skipped.
    fn present(test: &str) -> bool;

    /// Every way the kernels compute Philox, the default first: wgpu's two WGSL paths (Int64,
    /// U32), CUDA's one.
    fn philox_paths() -> Vec<Self>;

    /// These kernels without the backend's runtime bounds checks (wgpu's `bounds_checks:
    /// false`); CUDA has none to leave out.
    fn unchecked(self) -> Self;

    /// The simple engine of `systems`.
    fn simple(self, systems: &IsingSystems, block_size: u32) -> Box<dyn Engine>;

    /// The multispin engine of `layout`, opened for `betas` that stay fixed or change.
    fn multispin(self, layout: &MultispinLayout, block_size: u32, betas: Betas) -> Box<dyn Engine>;

    /// The multispin engine of the slab `layout.systems` hold, trading halos through `halo`.
    fn slab(
        self,
        layout: &MultispinLayout,
        block_size: u32,
        halo: Box<dyn Halo>,
    ) -> Box<dyn Engine>;

    /// Philox4x32-10 of each `(counter, key)` computed by the backend's kernels.
    fn philox_blocks(self, inputs: &[PhiloxInput]) -> Vec<[u32; 4]>;

    /// The vector-spin engine of `systems`.
    fn vector(
        self,
        systems: &VectorSystems,
        updates: VectorSweeps,
        block_size: u32,
    ) -> Box<dyn Engine>;

    /// The kernels as the tests run them unless they name another variant.
    fn default() -> Self {
        Self::philox_paths()[0]
    }

    /// The variant of case `i` of tests that alternate the Philox paths over their cases.
    fn alternating(i: usize) -> Self {
        let paths = Self::philox_paths();
        paths[i % paths.len()]
    }
}

/// wgpu on the adapter wgpu finds, with a WGSL Philox path, bounds checks on or off.
#[derive(Debug, Clone, Copy)]
pub struct Wgpu {
    pub philox: PhiloxPath,
    pub bounds_checks: bool,
}

impl Wgpu {
    /// The kernels of the Philox path `philox`, bounds-checked.
    pub fn with(philox: PhiloxPath) -> Self {
        Wgpu {
            philox,
            bounds_checks: true,
        }
    }

    fn context(self) -> spinflip::engine::wgpu::WgpuContext {
        super::gpu_with_checks(self.philox, self.bounds_checks)
    }
}

impl fmt::Display for Wgpu {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "wgpu {:?}", self.philox)?;
        if !self.bounds_checks {
            write!(f, " unchecked")?;
        }
        Ok(())
    }
}

impl Gpu for Wgpu {
    const BACKEND: Backend = Backend::Wgpu;
    const BLOCK_SIZES: &[u32] = &[32, 64, 256];

    fn present(_: &str) -> bool {
        true
    }

    fn philox_paths() -> Vec<Self> {
        vec![Wgpu::with(PhiloxPath::Int64), Wgpu::with(PhiloxPath::U32)]
    }

    fn unchecked(self) -> Self {
        Wgpu {
            bounds_checks: false,
            ..self
        }
    }

    fn simple(self, systems: &IsingSystems, block_size: u32) -> Box<dyn Engine> {
        Box::new(SimpleWgpuEngine::new(self.context(), systems.clone(), block_size).unwrap())
    }

    fn multispin(self, layout: &MultispinLayout, block_size: u32, betas: Betas) -> Box<dyn Engine> {
        let ctx = self.context();
        Box::new(MultispinWgpuEngine::new(ctx, layout.clone(), block_size, betas).unwrap())
    }

    fn slab(
        self,
        layout: &MultispinLayout,
        block_size: u32,
        halo: Box<dyn Halo>,
    ) -> Box<dyn Engine> {
        let (ctx, layout) = (self.context(), layout.clone());
        Box::new(MultispinWgpuEngine::slab(ctx, layout, block_size, halo).unwrap())
    }

    fn philox_blocks(self, inputs: &[PhiloxInput]) -> Vec<[u32; 4]> {
        philox_kat::philox_blocks(&mut self.context(), inputs).unwrap()
    }

    fn vector(
        self,
        systems: &VectorSystems,
        updates: VectorSweeps,
        block_size: u32,
    ) -> Box<dyn Engine> {
        let (ctx, systems) = (self.context(), systems.clone());
        Box::new(WgpuVectorEngine::new(ctx, systems, updates, block_size).unwrap())
    }
}

#[cfg(feature = "cuda")]
#[allow(unused_imports, reason = "only the equality tests use the backends")]
pub use cuda::{Cuda, device};

#[cfg(feature = "cuda")]
mod cuda {
    use std::fmt;

    use spinflip::config::Backend;
    use spinflip::engine::cuda::philox_kat;
    use spinflip::engine::cuda::{
        CudaDevice, CudaVectorEngine, MultispinCudaEngine, SimpleCudaEngine, device_count,
        driver_loadable,
    };
    use spinflip::engine::multispin::MultispinLayout;
    use spinflip::engine::vector::VectorSweeps;
    use spinflip::engine::{Betas, Engine, Halo};
    use spinflip::model::ising::IsingSystems;
    use spinflip::model::vector::VectorSystems;

    use super::{Gpu, PhiloxInput};

    /// CUDA on device 0.
    #[derive(Debug, Clone, Copy)]
    pub struct Cuda;

    /// Device 0, which [`Cuda::present`] said exists.
    pub fn device() -> CudaDevice {
        CudaDevice::open(None).unwrap_or_else(|e| panic!("opening CUDA device 0: {e}"))
    }

    impl fmt::Display for Cuda {
        fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "CUDA")
        }
    }

    impl Gpu for Cuda {
        const BACKEND: Backend = Backend::Cuda;
        const BLOCK_SIZES: &[u32] = &[32, 64, 256, 1024];

        fn present(test: &str) -> bool {
            match device_count() {
                Ok(0) => eprintln!("SKIPPED {test}: the CUDA driver found no device"),
                Err(error) if !driver_loadable() => eprintln!("SKIPPED {test}: {error}"),
                Err(error) => panic!("{test}: {error}"),
                Ok(_) => return true,
            }
            false
        }

        fn philox_paths() -> Vec<Self> {
            vec![Cuda]
        }

        fn unchecked(self) -> Self {
            self
        }

        fn simple(self, systems: &IsingSystems, block_size: u32) -> Box<dyn Engine> {
            Box::new(SimpleCudaEngine::new(device(), systems.clone(), block_size).unwrap())
        }

        fn multispin(
            self,
            layout: &MultispinLayout,
            block_size: u32,
            betas: Betas,
        ) -> Box<dyn Engine> {
            let layout = layout.clone();
            Box::new(MultispinCudaEngine::with_betas(device(), layout, block_size, betas).unwrap())
        }

        fn slab(
            self,
            layout: &MultispinLayout,
            block_size: u32,
            halo: Box<dyn Halo>,
        ) -> Box<dyn Engine> {
            let layout = layout.clone();
            Box::new(MultispinCudaEngine::slab(device(), layout, block_size, halo).unwrap())
        }

        fn philox_blocks(self, inputs: &[PhiloxInput]) -> Vec<[u32; 4]> {
            philox_kat::philox_blocks(&mut device(), inputs).unwrap()
        }

        fn vector(
            self,
            systems: &VectorSystems,
            updates: VectorSweeps,
            block_size: u32,
        ) -> Box<dyn Engine> {
            let systems = systems.clone();
            Box::new(CudaVectorEngine::new(device(), systems, updates, block_size).unwrap())
        }
    }
}
