//! Enumerating and choosing wgpu adapters.

use serde::Serialize;

use crate::error::{Error, Result};

/// A wgpu instance over every backend compiled in (`WGPU_BACKEND` narrows it).
pub fn instance() -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env())
}

/// Every adapter of every backend, in wgpu's order (the index used by `--adapter N`).
pub fn enumerate(instance: &wgpu::Instance) -> Vec<wgpu::Adapter> {
    pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()))
}

/// What `spinflip devices` shows of an adapter.
#[derive(Debug, Clone, Serialize)]
pub struct AdapterSummary {
    pub index: usize,
    pub name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
    pub shader_int64: bool,
    pub subgroups: bool,
    pub max_buffer_size: u64,
    pub max_storage_buffer_binding_size: u64,
    pub max_compute_workgroups_per_dimension: u32,
    pub max_compute_invocations_per_workgroup: u32,
    pub max_compute_workgroup_storage_size: u32,
}

/// A summary of adapter `index`.
pub fn summarize(index: usize, adapter: &wgpu::Adapter) -> AdapterSummary {
    let info = adapter.get_info();
    let limits = adapter.limits();
    let features = adapter.features();
    AdapterSummary {
        index,
        name: info.name,
        backend: info.backend.to_str().to_string(),
        device_type: format!("{:?}", info.device_type),
        driver: format!("{} {}", info.driver, info.driver_info)
            .trim()
            .to_string(),
        shader_int64: features.contains(wgpu::Features::SHADER_INT64),
        subgroups: features.contains(wgpu::Features::SUBGROUP),
        max_buffer_size: limits.max_buffer_size,
        max_storage_buffer_binding_size: limits.max_storage_buffer_binding_size,
        max_compute_workgroups_per_dimension: limits.max_compute_workgroups_per_dimension,
        max_compute_invocations_per_workgroup: limits.max_compute_invocations_per_workgroup,
        max_compute_workgroup_storage_size: limits.max_compute_workgroup_storage_size,
    }
}

/// Preference of a device type when no adapter is named: hardware before software.
fn rank(device_type: wgpu::DeviceType) -> u32 {
    match device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

/// Backend preference among adapters of the same type: the native compute APIs first.
fn backend_rank(backend: wgpu::Backend) -> u32 {
    match backend {
        wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
        _ => 1,
    }
}

/// Choose an adapter. `selector` is an index (`"0"`), a backend name (`"vulkan"`, `"metal"`,
/// `"dx12"`, `"gl"`) or a case-insensitive substring of the adapter name; without one, the best
/// hardware adapter, else a software one (of several equally good ones, MPI rank `k` of a node
/// takes the `k`-th). Errors list the adapters that exist.
pub fn choose(adapters: Vec<wgpu::Adapter>, selector: Option<&str>) -> Result<wgpu::Adapter> {
    if adapters.is_empty() {
        return Err(Error::Adapter(
            "no GPU adapter found (no Vulkan, Metal, DX12 or GL driver)".into(),
        ));
    }
    let listing = adapters
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let info = a.get_info();
            format!("  {i}: {} ({})", info.name, info.backend.to_str())
        })
        .collect::<Vec<_>>()
        .join("\n");
    let Some(selector) = selector else {
        // The best kind of adapter; ranks of an MPI job on one node take one each in turn.
        let preference = |a: &wgpu::Adapter| {
            let info = a.get_info();
            (rank(info.device_type), backend_rank(info.backend))
        };
        let best = adapters.iter().map(preference).min();
        let mut best: Vec<_> = adapters
            .into_iter()
            .filter(|a| Some(preference(a)) == best)
            .collect();
        let turn = crate::engine::placement::local_rank() % best.len();
        return Ok(best.swap_remove(turn));
    };
    let wanted = selector.to_lowercase();
    let position = match wanted.parse::<usize>() {
        Ok(index) if index < adapters.len() => Some(index),
        Ok(_) => None,
        Err(_) => adapters.iter().position(|a| {
            let info = a.get_info();
            info.backend.to_str() == wanted || info.name.to_lowercase().contains(&wanted)
        }),
    };
    match position {
        Some(index) => Ok(adapters.into_iter().nth(index).expect("index is in range")),
        None => Err(Error::Adapter(format!(
            "no adapter matches `{selector}`; the adapters are:\n{listing}"
        ))),
    }
}
