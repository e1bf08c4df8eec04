//! Choosing and opening the engine a config asks for.

use crate::config::{Backend, Config};
use crate::engine::cpu::{CpuEngine, CpuMultispinEngine, CpuVectorEngine};
use crate::engine::memory::{Place, Room, check_ising_engine, check_vector_engine};
use crate::engine::multispin::MultispinLayout;
use crate::engine::vector::VectorSweeps;
use crate::engine::wgpu::context::driver_lock;
use crate::engine::wgpu::{
    MultispinWgpuEngine, SimpleWgpuEngine, WgpuContext, WgpuVectorEngine, adapters,
};
use crate::engine::{Betas, Engine, Halo};
use crate::error::{Error, Result};
use crate::model::ising::IsingSystems;
use crate::model::vector::VectorSystems;

/// Open the adapter the config names (or the best one) as a GPU context.
pub fn open_wgpu_context(config: &Config) -> Result<WgpuContext> {
    let _guard = driver_lock();
    let instance = adapters::instance();
    let adapter = adapters::choose(adapters::enumerate(&instance), config.adapter.as_deref())?;
    WgpuContext::new(
        &adapter,
        config.philox,
        config.bounds_checks,
        config.pipeline_statistics.clone(),
    )
}

/// The engine of `systems` on this process's own device (or CPU), refused before it allocates
/// anything where it does not fit the memory there ([`crate::engine::memory`]).
pub fn open_local_engine(
    config: &Config,
    systems: IsingSystems,
    betas: Betas,
) -> Result<Box<dyn Engine>> {
    let (config, _) = &config.resolve_engine()?;
    let gpu = |systems: IsingSystems| -> Result<Box<dyn Engine>> {
        let ctx = open_wgpu_context(config)?;
        check_ising_engine(config, &systems, betas, &Room::host(Place::Wgpu))?;
        let size = config.workgroup_size;
        Ok(match config.engine.multispin() {
            None => Box::new(SimpleWgpuEngine::new(ctx, systems, size)?),
            Some(options) => Box::new(MultispinWgpuEngine::new(
                ctx,
                MultispinLayout::new(systems, options),
                size,
                betas,
            )?),
        })
    };
    let cpu = |systems: IsingSystems| -> Result<Box<dyn Engine>> {
        check_ising_engine(config, &systems, betas, &Room::host(Place::Cpu))?;
        Ok(match config.engine.multispin() {
            None => Box::new(CpuEngine::new(systems)),
            Some(options) => Box::new(CpuMultispinEngine::new(MultispinLayout::new(
                systems, options,
            ))),
        })
    };
    match config.backend {
        Backend::Cpu => cpu(systems),
        Backend::Wgpu => gpu(systems),
        Backend::Cuda => open_cuda_engine(config, systems, betas),
        Backend::Auto => match gpu(systems.clone()) {
            Err(Error::Adapter(reason)) if config.adapter.is_none() => {
                log::warn!("{reason}; using the CPU engine");
                cpu(systems)
            }
            other => other,
        },
    }
}

/// The vector-spin engine of `systems` (a whole run's or a sample slice's) on this process's
/// own device (or CPU), on the backend `config` names: `Auto` takes the wgpu adapter where there
/// is one, else the CPU, as for Ising spins. Refused before it allocates anything where it does
/// not fit the memory there.
pub fn open_local_vector_engine(
    config: &Config,
    systems: VectorSystems,
    updates: VectorSweeps,
) -> Result<Box<dyn Engine>> {
    let size = config.workgroup_size;
    let gpu = |ctx, systems: VectorSystems| -> Result<Box<dyn Engine>> {
        check_vector_engine(&systems, updates, &Room::host(Place::Wgpu))?;
        Ok(Box::new(WgpuVectorEngine::new(
            ctx, systems, updates, size,
        )?))
    };
    let cpu = |systems: VectorSystems| -> Result<Box<dyn Engine>> {
        check_vector_engine(&systems, updates, &Room::host(Place::Cpu))?;
        Ok(Box::new(CpuVectorEngine::new(systems, updates)?))
    };
    match config.backend {
        Backend::Cpu => cpu(systems),
        Backend::Wgpu => gpu(open_wgpu_context(config)?, systems),
        Backend::Cuda => open_cuda_vector(config, systems, updates),
        Backend::Auto => match open_wgpu_context(config) {
            Err(Error::Adapter(reason)) if config.adapter.is_none() => {
                log::warn!("{reason}; using the CPU engine");
                cpu(systems)
            }
            Err(error) => Err(error),
            Ok(ctx) => gpu(ctx, systems),
        },
    }
}

/// The CUDA vector-spin engine on the device `config.adapter` names (device 0 without one).
#[cfg(feature = "cuda")]
fn open_cuda_vector(
    config: &Config,
    systems: VectorSystems,
    updates: VectorSweeps,
) -> Result<Box<dyn Engine>> {
    use crate::engine::cuda::{CudaDevice, CudaVectorEngine};
    let device = CudaDevice::open(config.adapter.as_deref())?;
    check_vector_engine(&systems, updates, &device.memory_room()?)?;
    let size = config.workgroup_size;
    Ok(Box::new(CudaVectorEngine::new(
        device, systems, updates, size,
    )?))
}

#[cfg(not(feature = "cuda"))]
fn open_cuda_vector(_: &Config, _: VectorSystems, _: VectorSweeps) -> Result<Box<dyn Engine>> {
    Err(Error::Cuda(CUDA_NOT_COMPILED_IN.into()))
}

/// The engine of `systems`, a slab of a run's lattices ([`IsingSystems::plane_slab`]), on this
/// process's own device (or CPU), trading its boundary planes with the neighbouring slabs through
/// `halo` ([`crate::engine::slabs`]). Only the multispin engines hold slabs (`engine: Auto` must
/// resolve to one); its betas stay fixed (slabs refuse annealing), so `betas` must be
/// [`Betas::Fixed`]. `Auto` falls back to the CPU engine as [`open_local_engine`] does.
pub fn open_slab_engine(
    config: &Config,
    systems: IsingSystems,
    betas: Betas,
    halo: Box<dyn Halo>,
) -> Result<Box<dyn Engine>> {
    let (config, _) = &config.resolve_engine()?;
    let Some(options) = config.engine.multispin() else {
        return Err(Error::State(format!(
            "lattices split into slabs need a multispin engine, not {:?}",
            config.engine
        )));
    };
    if betas != Betas::Fixed {
        return Err(crate::engine::slabs::refuse("population annealing"));
    }
    let layout = MultispinLayout::new(systems, options);
    crate::engine::slabs::check_slab(&layout)?;
    let cpu = |layout: MultispinLayout, halo| -> Result<Box<dyn Engine>> {
        check_ising_engine(config, &layout.systems, betas, &Room::host(Place::Cpu))?;
        Ok(Box::new(CpuMultispinEngine::slab(layout, halo)?))
    };
    let gpu = |ctx, layout: MultispinLayout, halo| -> Result<Box<dyn Engine>> {
        check_ising_engine(config, &layout.systems, betas, &Room::host(Place::Wgpu))?;
        let size = config.workgroup_size;
        Ok(Box::new(MultispinWgpuEngine::slab(
            ctx, layout, size, halo,
        )?))
    };
    match config.backend {
        Backend::Cpu => cpu(layout, halo),
        Backend::Wgpu => gpu(open_wgpu_context(config)?, layout, halo),
        Backend::Cuda => open_cuda_slab(config, layout, halo),
        Backend::Auto => match open_wgpu_context(config) {
            Err(Error::Adapter(reason)) if config.adapter.is_none() => {
                log::warn!("{reason}; using the CPU engine");
                cpu(layout, halo)
            }
            Err(error) => Err(error),
            Ok(ctx) => gpu(ctx, layout, halo),
        },
    }
}

/// The multispin CUDA engine of a slab on the device `config.adapter` names (device 0 without
/// one).
#[cfg(feature = "cuda")]
fn open_cuda_slab(
    config: &Config,
    layout: MultispinLayout,
    halo: Box<dyn Halo>,
) -> Result<Box<dyn Engine>> {
    use crate::engine::cuda::{CudaDevice, MultispinCudaEngine};
    let device = CudaDevice::open(config.adapter.as_deref())?;
    check_ising_engine(
        config,
        &layout.systems,
        Betas::Fixed,
        &device.memory_room()?,
    )?;
    let size = config.workgroup_size;
    Ok(Box::new(MultispinCudaEngine::slab(
        device, layout, size, halo,
    )?))
}

#[cfg(not(feature = "cuda"))]
fn open_cuda_slab(_: &Config, _: MultispinLayout, _: Box<dyn Halo>) -> Result<Box<dyn Engine>> {
    Err(Error::Cuda(CUDA_NOT_COMPILED_IN.into()))
}

/// The simple or multispin CUDA engine on the device `config.adapter` names (device 0 without
/// one).
#[cfg(feature = "cuda")]
fn open_cuda_engine(
    config: &Config,
    systems: IsingSystems,
    betas: Betas,
) -> Result<Box<dyn Engine>> {
    use crate::engine::cuda::{CudaDevice, MultispinCudaEngine, SimpleCudaEngine};
    let device = CudaDevice::open(config.adapter.as_deref())?;
    check_ising_engine(config, &systems, betas, &device.memory_room()?)?;
    let size = config.workgroup_size;
    Ok(match config.engine.multispin() {
        None => Box::new(SimpleCudaEngine::new(device, systems, size)?),
        Some(options) => Box::new(MultispinCudaEngine::with_betas(
            device,
            MultispinLayout::new(systems, options),
            size,
            betas,
        )?),
    })
}

/// Why `Cuda` cannot run in a build without the `cuda` feature.
#[cfg(not(feature = "cuda"))]
pub const CUDA_NOT_COMPILED_IN: &str = "this spinflip was built without the `cuda` feature; \
     rebuild with `cargo build --release --features cuda`";

#[cfg(not(feature = "cuda"))]
fn open_cuda_engine(_: &Config, _: IsingSystems, _: Betas) -> Result<Box<dyn Engine>> {
    Err(Error::Cuda(CUDA_NOT_COMPILED_IN.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cuda_config() -> Config {
        let mut config = Config::default_config().expect("the built-in config is valid");
        config.backend = Backend::Cuda;
        config.engine = crate::config::EngineKind::Simple;
        config
    }

    fn tiny_systems() -> IsingSystems {
        IsingSystems::ferromagnet(crate::model::Lattice::new(2, 4), 0.0, vec![0.4], 1, 1)
    }

    #[cfg(not(feature = "cuda"))]
    #[test]
    fn cuda_without_the_feature_says_how_to_rebuild() {
        let Err(error) = open_local_engine(&cuda_config(), tiny_systems(), Betas::Fixed) else {
            panic!("a CUDA engine without the feature");
        };
        assert_eq!(
            error.to_string(),
            "CUDA: this spinflip was built without the `cuda` feature; \
             rebuild with `cargo build --release --features cuda`"
        );
    }

    /// With the feature, a machine without NVIDIA's driver (CI) gets an error, not a panic.
    #[cfg(feature = "cuda")]
    #[test]
    fn cuda_without_a_driver_is_an_error() {
        if let Err(error) = open_local_engine(&cuda_config(), tiny_systems(), Betas::Fixed) {
            assert!(matches!(error, Error::Cuda(_)), "{error}");
        }
    }
}
