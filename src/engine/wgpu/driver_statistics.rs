//! What the Vulkan driver made of a kernel: its statistics and internal representations
//! (`VK_KHR_pipeline_executable_properties`), written beside a run for performance work.
//!
//! wgpu creates its pipelines without the flags that keep these, so for each kernel the context
//! builds ([`WgpuContext::pipeline`](super::WgpuContext::pipeline)) this module compiles the same
//! WGSL and override constants to SPIR-V with naga, under the options wgpu uses for unchecked
//! modules (no bounds, loop or division checks), creates a twin pipeline with
//! `CAPTURE_STATISTICS` and `CAPTURE_INTERNAL_REPRESENTATIONS` on wgpu's own `VkDevice`, and
//! writes what the driver reports. The twin is destroyed at once; the run uses wgpu's pipeline.
//! The device must have been opened with the extension's feature ([`open_device`]).

use std::ffi::c_char;
use std::fmt::Write as _;
use std::path::Path;

use ash::vk;
use wgpu::hal::api::Vulkan;

use crate::error::{Error, Result};

/// Open `adapter` (a Vulkan one whose driver has `VK_KHR_pipeline_executable_properties`) as
/// wgpu would for `descriptor`, with the extension's `pipelineExecutableInfo` feature enabled.
pub fn open_device(
    adapter: &wgpu::Adapter,
    descriptor: &wgpu::DeviceDescriptor<'_>,
) -> Result<(wgpu::Device, wgpu::Queue)> {
    let name = adapter.get_info().name;
    let refuse = |why: &str| Error::Adapter(format!("pipeline statistics: {name}: {why}"));
    #[allow(unsafe_code, reason = "wgpu's access to the Vulkan adapter is unsafe")]
    // SAFETY: the hal adapter is only read here and outlives this call.
    let hal =
        unsafe { adapter.as_hal::<Vulkan>() }.ok_or_else(|| refuse("needs a Vulkan adapter"))?;
    let extension = ash::khr::pipeline_executable_properties::NAME;
    #[allow(unsafe_code, reason = "a Vulkan query")]
    // SAFETY: the physical device belongs to this instance.
    let available = unsafe {
        hal.shared_instance()
            .raw_instance()
            .enumerate_device_extension_properties(hal.raw_physical_device())
    }
    .map_err(|e| refuse(&format!("listing device extensions: {e}")))?;
    if !available
        .iter()
        .any(|p| p.extension_name_as_c_str() == Ok(extension))
    {
        return Err(refuse(&format!(
            "the driver lacks {}",
            extension.to_string_lossy()
        )));
    }
    // Leaked (a few bytes per device opened for statistics): the callback's create info may
    // hold it for any lifetime.
    let feature = Box::leak(Box::new(
        vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
            .pipeline_executable_info(true),
    ));
    let callback: Box<wgpu::hal::vulkan::CreateDeviceCallback<'_>> = Box::new(move |args| {
        args.extensions.push(extension);
        let info = std::mem::take(args.create_info);
        *args.create_info = info.push_next(feature);
    });
    #[allow(unsafe_code, reason = "opening a device through wgpu's hal is unsafe")]
    // SAFETY: the callback only adds an extension the driver lists and a feature struct that
    // outlives the call; wgpu then wraps the device it opened for exactly these features.
    let opened = unsafe {
        let device = hal
            .open_with_callback(
                descriptor.required_features,
                &descriptor.required_limits,
                &descriptor.memory_hints,
                Some(callback),
            )
            .map_err(|e| refuse(&format!("cannot open the device: {e}")))?;
        drop(hal);
        adapter.create_device_from_hal(device, descriptor)
    };
    opened.map_err(|e| refuse(&format!("cannot open the device: {e}")))
}

/// Compile `module` (the kernel specialised to `constants`, as the context hands it to wgpu) to
/// SPIR-V as wgpu would, create the twin pipeline on `device` and write the driver's report to
/// `dir/<label>-<n>.txt` (n: the first free number).
pub fn write(
    device: &wgpu::Device,
    label: &str,
    module: &naga::Module,
    constants: &[(&str, f64)],
    dir: &Path,
) -> Result<()> {
    let spirv = spirv(module).map_err(|e| Error::Gpu(format!("kernel {label}: {e}")))?;
    let report = driver_report(device, &spirv.words, &spirv.bindings)
        .map_err(|e| Error::Gpu(format!("pipeline statistics of {label}: {e}")))?;
    let mut text = format!("kernel {label}\nconstants {constants:?}\n");
    text.push_str(&report);
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let path = (0..)
        .map(|n| dir.join(format!("{label}-{n}.txt")))
        .find(|path| !path.exists())
        .expect("a free file name");
    crate::atomic::write_atomic(&path, text.as_bytes()).map_err(|e| Error::io(&path, e))?;
    log::info!(
        "pipeline statistics of {label} written to {}",
        path.display()
    );
    Ok(())
}

/// A kernel's SPIR-V and the buffers it binds, as `(group, binding, storage)`.
struct Spirv {
    words: Vec<u32>,
    bindings: Vec<(u32, u32, bool)>,
}

fn spirv(module: &naga::Module) -> std::result::Result<Spirv, String> {
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(module)
    .map_err(|e| format!("{e:?}"))?;
    let options = naga::back::spv::Options {
        lang_version: (1, 6),
        flags: naga::back::spv::WriterFlags::empty(),
        fake_missing_bindings: true,
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: naga::proc::BoundsCheckPolicy::Unchecked,
            buffer: naga::proc::BoundsCheckPolicy::Unchecked,
            image_load: naga::proc::BoundsCheckPolicy::Unchecked,
            binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
        },
        zero_initialize_workgroup_memory:
            naga::back::spv::ZeroInitializeWorkgroupMemoryMode::Native,
        force_loop_bounding: false,
        ray_query_initialization_tracking: false,
        task_dispatch_limits: None,
        mesh_shader_primitive_indices_clamp: false,
        emit_int_div_checks: false,
        ..Default::default()
    };
    let pipeline = naga::back::spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: "main".into(),
    };
    let words = naga::back::spv::write_vec(module, &info, &options, Some(&pipeline))
        .map_err(|e| format!("{e}"))?;
    let bindings = module
        .global_variables
        .iter()
        .filter_map(|(_, var)| {
            let binding = var.binding.as_ref()?;
            let storage = match var.space {
                naga::AddressSpace::Storage { .. } => true,
                naga::AddressSpace::Uniform => false,
                _ => return None,
            };
            Some((binding.group, binding.binding, storage))
        })
        .collect();
    Ok(Spirv { words, bindings })
}

/// The Vulkan objects of a twin pipeline, destroyed when dropped.
struct Twin<'a> {
    device: &'a ash::Device,
    module: vk::ShaderModule,
    sets: Vec<vk::DescriptorSetLayout>,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

#[allow(unsafe_code, reason = "raw Vulkan objects")]
impl Drop for Twin<'_> {
    fn drop(&mut self) {
        // SAFETY: every handle was created on `device` by `driver_report` (or is null), and none
        // is in use: the twin pipeline is never bound.
        unsafe {
            self.device.destroy_pipeline(self.pipeline, None);
            self.device.destroy_pipeline_layout(self.layout, None);
            for &set in &self.sets {
                self.device.destroy_descriptor_set_layout(set, None);
            }
            self.device.destroy_shader_module(self.module, None);
        }
    }
}

#[allow(unsafe_code, reason = "raw Vulkan calls on wgpu's device")]
fn driver_report(
    device: &wgpu::Device,
    words: &[u32],
    bindings: &[(u32, u32, bool)],
) -> std::result::Result<String, String> {
    // SAFETY: the hal device is only used for the calls below, on objects this function owns.
    let hal = unsafe { device.as_hal::<Vulkan>() }.ok_or("not a Vulkan device")?;
    let raw = hal.raw_device();
    let instance = hal.shared_instance().raw_instance();
    let mut twin = Twin {
        device: raw,
        module: vk::ShaderModule::null(),
        sets: Vec::new(),
        layout: vk::PipelineLayout::null(),
        pipeline: vk::Pipeline::null(),
    };
    // SAFETY (all calls below): valid create infos whose pointers outlive each call; the
    // handles go into `twin`, which destroys them.
    twin.module = unsafe {
        raw.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None)
    }
    .map_err(vk_err("shader module"))?;
    let groups = bindings.iter().map(|b| b.0 + 1).max().unwrap_or(0);
    for group in 0..groups {
        let entries: Vec<_> = bindings
            .iter()
            .filter(|b| b.0 == group)
            .map(|&(_, binding, storage)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(binding)
                    .descriptor_type(match storage {
                        true => vk::DescriptorType::STORAGE_BUFFER,
                        false => vk::DescriptorType::UNIFORM_BUFFER,
                    })
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&entries);
        let set = unsafe { raw.create_descriptor_set_layout(&info, None) }
            .map_err(vk_err("descriptor set layout"))?;
        twin.sets.push(set);
    }
    let info = vk::PipelineLayoutCreateInfo::default().set_layouts(&twin.sets);
    twin.layout = unsafe { raw.create_pipeline_layout(&info, None) }.map_err(vk_err("layout"))?;
    let stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(twin.module)
        .name(c"main");
    let info = vk::ComputePipelineCreateInfo::default()
        .flags(
            vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
                | vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR,
        )
        .stage(stage)
        .layout(twin.layout);
    twin.pipeline =
        unsafe { raw.create_compute_pipelines(vk::PipelineCache::null(), &[info], None) }
            .map_err(|(_, e)| format!("compute pipeline: {e}"))?[0];
    let properties = ash::khr::pipeline_executable_properties::Device::new(instance, raw);
    let pipeline_info = vk::PipelineInfoKHR::default().pipeline(twin.pipeline);
    let executables = unsafe { properties.get_pipeline_executable_properties(&pipeline_info) }
        .map_err(vk_err("executables"))?;
    let mut out = String::new();
    for (index, executable) in executables.iter().enumerate() {
        let info = vk::PipelineExecutableInfoKHR::default()
            .pipeline(twin.pipeline)
            .executable_index(index as u32);
        let _ = writeln!(
            out,
            "executable {index}: {} ({}), subgroup size {}",
            text(&executable.name),
            text(&executable.description),
            executable.subgroup_size
        );
        let statistics = unsafe { properties.get_pipeline_executable_statistics(&info) }
            .map_err(vk_err("statistics"))?;
        for statistic in &statistics {
            let _ = writeln!(
                out,
                "  {} = {}  ({})",
                text(&statistic.name),
                value(statistic),
                text(&statistic.description)
            );
        }
        for (name, body) in internal_representations(&properties, &info)? {
            let _ = writeln!(out, "--- internal representation: {name}\n{body}");
        }
    }
    Ok(out)
}

/// The executable's internal representations as `(name, text)`; binary ones by their size.
#[allow(unsafe_code, reason = "the two-call query of raw Vulkan data")]
fn internal_representations(
    properties: &ash::khr::pipeline_executable_properties::Device,
    info: &vk::PipelineExecutableInfoKHR<'_>,
) -> std::result::Result<Vec<(String, String)>, String> {
    let query = properties
        .fp()
        .get_pipeline_executable_internal_representations_khr;
    let device = properties.device();
    let mut count = 0u32;
    // SAFETY: the count query, then the headers, then the data into buffers of the sizes the
    // driver gave, each outliving the call that fills it.
    unsafe { query(device, info, &mut count, std::ptr::null_mut()) }
        .result()
        .map_err(|e| format!("internal representations: {e}"))?;
    let mut headers =
        vec![vk::PipelineExecutableInternalRepresentationKHR::default(); count as usize];
    unsafe { query(device, info, &mut count, headers.as_mut_ptr()) }
        .result()
        .map_err(|e| format!("internal representations: {e}"))?;
    let mut buffers: Vec<Vec<u8>> = headers.iter().map(|h| vec![0u8; h.data_size]).collect();
    for (header, buffer) in headers.iter_mut().zip(&mut buffers) {
        header.p_data = buffer.as_mut_ptr().cast();
    }
    unsafe { query(device, info, &mut count, headers.as_mut_ptr()) }
        .result()
        .map_err(|e| format!("internal representations: {e}"))?;
    Ok(headers
        .iter()
        .zip(&buffers)
        .map(|(header, data)| {
            let body = match header.is_text == vk::TRUE {
                true => String::from_utf8_lossy(data.split(|&b| b == 0).next().unwrap_or(&[]))
                    .into_owned(),
                false => format!("({} bytes of binary)", data.len()),
            };
            (
                format!("{} ({})", text(&header.name), text(&header.description)),
                body,
            )
        })
        .collect())
}

/// The message of a failed Vulkan call about `what`.
fn vk_err(what: &'static str) -> impl Fn(vk::Result) -> String {
    move |e| format!("{what}: {e}")
}

/// A driver's fixed-size C string.
fn text(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A statistic's value in its declared format.
#[allow(unsafe_code, reason = "reading the union member the driver declared")]
fn value(statistic: &vk::PipelineExecutableStatisticKHR<'_>) -> String {
    // SAFETY: each arm reads the member that `format` says the driver wrote.
    unsafe {
        match statistic.format {
            vk::PipelineExecutableStatisticFormatKHR::BOOL32 => {
                (statistic.value.b32 != 0).to_string()
            }
            vk::PipelineExecutableStatisticFormatKHR::INT64 => statistic.value.i64.to_string(),
            vk::PipelineExecutableStatisticFormatKHR::UINT64 => statistic.value.u64.to_string(),
            vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => statistic.value.f64.to_string(),
            other => format!("(format {other:?})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::kernels::Kernel;
    use crate::engine::wgpu::shaders::{MulhiloPath, compose, validate};
    use crate::engine::wgpu::specialize::set_constants;

    /// The twin's SPIR-V is made without a driver: it must come out for a real kernel, with the
    /// buffers the kernel binds.
    #[test]
    fn a_kernel_compiles_to_spirv_with_its_bindings() {
        let source = compose(Kernel::PhiloxKat, MulhiloPath::U32).expect("composed");
        let (module, info) = validate(&source, MulhiloPath::U32).expect("valid");
        let module = set_constants(&module, &info, &[]).expect("no constants needed");
        let spirv = spirv(&module).expect("SPIR-V");
        assert_eq!(spirv.words[0], 0x0723_0203, "SPIR-V magic number");
        assert!(!spirv.bindings.is_empty());
        assert!(spirv.bindings.iter().all(|&(group, _, _)| group == 0));
    }
}
