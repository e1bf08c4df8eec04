//! Choosing and opening the engine a config asks for.

use crate::config::{Backend, Config};
use crate::engine::Engine;
use crate::engine::cpu::{CpuEngine, CpuMultispinEngine};
use crate::engine::gpu::context::driver_lock;
use crate::engine::gpu::{GpuContext, MultispinGpuEngine, SimpleGpuEngine, adapters};
use crate::engine::multispin::MultispinLayout;
use crate::error::{Error, Result};
use crate::model::ising::IsingSystems;

/// Open the adapter the config names (or the best one) as a GPU context.
pub fn open_gpu_context(config: &Config) -> Result<GpuContext> {
    let _guard = driver_lock();
    let instance = adapters::instance();
    let adapter = adapters::choose(adapters::enumerate(&instance), config.adapter.as_deref())?;
    GpuContext::new(&adapter, config.philox, config.bounds_checks)
}

/// The engine for `config`, its lattices all spins down until `set_spins`. The engine checks
/// the device's limits before anything large is allocated. `Auto` falls back to the CPU engine,
/// with a warning, only when there is no usable adapter; `Wgpu` fails instead.
pub fn open_engine(config: &Config, systems: IsingSystems) -> Result<Box<dyn Engine>> {
    let gpu = |systems: IsingSystems| -> Result<Box<dyn Engine>> {
        let ctx = open_gpu_context(config)?;
        let size = config.workgroup_size;
        Ok(match config.engine.multispin() {
            None => Box::new(SimpleGpuEngine::new(ctx, systems, size)?),
            Some(options) => Box::new(MultispinGpuEngine::new(
                ctx,
                MultispinLayout::new(systems, options),
                size,
            )?),
        })
    };
    let cpu = |systems: IsingSystems| -> Box<dyn Engine> {
        match config.engine.multispin() {
            None => Box::new(CpuEngine::new(systems)),
            Some(options) => Box::new(CpuMultispinEngine::new(MultispinLayout::new(
                systems, options,
            ))),
        }
    };
    match config.backend {
        Backend::Cpu => Ok(cpu(systems)),
        Backend::Wgpu => gpu(systems),
        Backend::Auto => match gpu(systems.clone()) {
            Err(Error::Adapter(reason)) if config.adapter.is_none() => {
                log::warn!("{reason}; using the CPU engine");
                Ok(cpu(systems))
            }
            other => other,
        },
    }
}
