//! The wgpu pipeline manager: device, limits, composed shaders, cached pipelines, and errors.
//!
//! wgpu reports validation errors and device loss through callbacks; the context collects them
//! and [`WgpuContext::check`] turns them into [`Error`]s after every submission, so a run fails
//! with the reason instead of producing garbage.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::driver_statistics;
use super::shaders::{Bindings, MulhiloPath, bindings, compose, validate};
use super::specialize::{prune_constant_branches, set_constants};
use crate::config::PhiloxPath;
use crate::engine::dispatch::DispatchParams;
use crate::engine::kernels::Kernel;
use crate::engine::memory::largest_fitting;
use crate::error::{Error, Result};
use crate::threads;

/// Serialises the driver calls that were seen to hang NVIDIA's Vulkan driver when several
/// threads of one process make them at once: enumerating adapters, opening devices, and
/// compiling pipelines. Software adapters (lavapipe) compile without it: there compiling is most
/// of an engine's opening, the threads' compiles can share the cores, and Vulkan lets them.
static DRIVER_CALLS: Mutex<()> = Mutex::new(());

/// Hold the process-wide driver lock (see [`DRIVER_CALLS`]).
pub fn driver_lock() -> std::sync::MutexGuard<'static, ()> {
    DRIVER_CALLS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Key of a cached pipeline: kernel, Philox path and override constants (as bits).
type PipelineKey = (Kernel, MulhiloPath, Vec<(&'static str, u64)>);

/// A copy queued by [`WgpuContext::queue_read`] into the staging buffer.
#[must_use = "finish_read gives the words"]
pub struct PendingRead {
    submission: wgpu::SubmissionIndex,
    size: u64,
}

/// A device with its queue, limits and pipeline cache.
pub struct WgpuContext {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    pub mulhilo: MulhiloPath,
    /// Whether shader modules keep wgpu's runtime bounds checks.
    bounds_checks: bool,
    /// Where the driver's statistics of each kernel built go ([`driver_statistics`]).
    statistics: Option<PathBuf>,
    simple_layout: BindingLayout,
    multispin_layout: BindingLayout,
    simple_tempering_layout: BindingLayout,
    multispin_tempering_layout: BindingLayout,
    simple_cluster_layout: BindingLayout,
    vector_layout: BindingLayout,
    vector_cluster_layout: BindingLayout,
    pipelines: HashMap<PipelineKey, wgpu::ComputePipeline>,
    /// The mappable buffer downloads go through, grown to the largest and kept: a new one per
    /// download costs its allocation and zeroing (a population anneal reads 16 MB a step).
    staging: std::cell::RefCell<Option<wgpu::Buffer>>,
    errors: Arc<Mutex<Vec<String>>>,
    lost: Arc<Mutex<Option<String>>>,
}

/// A bind group layout and the pipeline layout of it.
struct BindingLayout {
    bind_group: wgpu::BindGroupLayout,
    /// Group 1 of the tempering or the cluster kernels.
    tempering: Option<wgpu::BindGroupLayout>,
    pipeline: wgpu::PipelineLayout,
}

/// The binding layouts of [`Bindings`]: 0 dispatch parameters (uniform, dynamic offset),
/// 1 spins, 2 thresholds (read-only), 3 observations, and for the multispin kernels
/// 4 couplings (read-only), 5 overlaps; for the vector kernels 4 couplings, 5 proposal widths
/// and 6 phases (all read-only). A kernel uses a subset.
fn binding_layout(device: &wgpu::Device, bindings: Bindings) -> BindingLayout {
    let mut entries = vec![
        wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: true,
                min_binding_size: wgpu::BufferSize::new(
                    std::mem::size_of::<DispatchParams>() as u64
                ),
            },
            count: None,
        },
        storage(1, false),
        storage(2, true),
        storage(3, false),
    ];
    match bindings {
        Bindings::Multispin => entries.extend([storage(4, true), storage(5, false)]),
        Bindings::Vector => entries.extend((4..=7).map(|binding| storage(binding, true))),
        _ => {}
    }
    let bind_group = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("spinflip"),
        entries: &entries,
    });
    let pipeline = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("spinflip"),
        bind_group_layouts: &[Some(&bind_group)],
        immediate_size: 0,
    });
    BindingLayout {
        bind_group,
        tempering: None,
        pipeline,
    }
}

/// The tempering kernels' layout: `engine`'s group 0 as it is (so the engine's bind group
/// serves both) and group 1: 0 swap tables (read-only), 1 state, 2 masks, 3 history.
fn tempering_layout(device: &wgpu::Device, engine: &BindingLayout) -> BindingLayout {
    group_1_layout(device, engine, "spinflip tempering", 4)
}

/// The cluster kernels' layout: the simple or vector engine's group 0 as it is and group 1: 0 activation
/// thresholds (read-only), 1 bonds, 2 labels, 3 counts, 4 sizes.
fn cluster_layout(device: &wgpu::Device, engine: &BindingLayout) -> BindingLayout {
    group_1_layout(device, engine, "spinflip clusters", 5)
}

/// `engine`'s group 0 and a group 1 of `buffers` storage buffers, the first read-only.
fn group_1_layout(
    device: &wgpu::Device,
    engine: &BindingLayout,
    label: &str,
    buffers: u32,
) -> BindingLayout {
    let entries: Vec<_> = (0..buffers).map(|i| storage(i, i == 0)).collect();
    let tempering = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    });
    let pipeline = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &[Some(&engine.bind_group), Some(&tempering)],
        immediate_size: 0,
    });
    BindingLayout {
        bind_group: engine.bind_group.clone(),
        tempering: Some(tempering),
        pipeline,
    }
}

/// The usage of the engines' storage buffers: bound, written from and read back to the host.
pub(super) fn storage_usage() -> wgpu::BufferUsages {
    wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC
}

/// A storage-buffer entry of a compute bind group layout.
fn storage(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A shader module without wgpu's runtime bounds checks.
#[allow(
    unsafe_code,
    reason = "wgpu's opt-out of bounds checks is an unsafe call"
)]
fn unchecked_module(
    device: &wgpu::Device,
    descriptor: wgpu::ShaderModuleDescriptor<'_>,
) -> wgpu::ShaderModule {
    // SAFETY: every kernel guards its thread index against the word or site counts that size its
    // buffers, and derives every other index from in-range coordinates (periodic wrap); naga has
    // validated the module, and the bit-equality tests run each kernel with the checks on and off.
    unsafe {
        device.create_shader_module_trusted(descriptor, wgpu::ShaderRuntimeChecks::unchecked())
    }
}

impl WgpuContext {
    /// Open `adapter` with its own limits (large lattices need them) and SHADER_INT64 where
    /// the adapter has it and `philox` allows it. With `statistics`, the device is opened so that
    /// the driver's statistics of every kernel built can be written there ([`driver_statistics`]).
    pub fn new(
        adapter: &wgpu::Adapter,
        philox: PhiloxPath,
        bounds_checks: bool,
        statistics: Option<PathBuf>,
    ) -> Result<Self> {
        let info = adapter.get_info();
        let has_int64 = adapter.features().contains(wgpu::Features::SHADER_INT64);
        let mulhilo = match philox {
            PhiloxPath::Auto if has_int64 => MulhiloPath::Int64,
            PhiloxPath::Auto | PhiloxPath::U32 => MulhiloPath::U32,
            PhiloxPath::Int64 if has_int64 => MulhiloPath::Int64,
            PhiloxPath::Int64 => {
                return Err(Error::Adapter(format!(
                    "philox: Int64 needs SHADER_INT64, which {} ({}) lacks; use Auto or U32",
                    info.name,
                    info.backend.to_str()
                )));
            }
        };
        let required_features = match mulhilo {
            MulhiloPath::Int64 => wgpu::Features::SHADER_INT64,
            MulhiloPath::U32 => wgpu::Features::empty(),
        };
        let descriptor = wgpu::DeviceDescriptor {
            label: Some("spinflip"),
            required_features,
            required_limits: adapter.limits(),
            ..Default::default()
        };
        let (device, queue) = match statistics {
            Some(_) => driver_statistics::open_device(adapter, &descriptor)?,
            None => pollster::block_on(adapter.request_device(&descriptor)).map_err(|e| {
                Error::Adapter(format!("{}: cannot open the device: {e}", info.name))
            })?,
        };
        let errors = Arc::new(Mutex::new(Vec::new()));
        let lost = Arc::new(Mutex::new(None));
        {
            let errors = errors.clone();
            device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
                errors.lock().expect("error list").push(e.to_string());
            }));
            let lost = lost.clone();
            device.set_device_lost_callback(move |reason, message| {
                *lost.lock().expect("lost flag") = Some(format!("{reason:?}: {message}"));
            });
        }
        let simple_layout = binding_layout(&device, Bindings::Simple);
        let multispin_layout = binding_layout(&device, Bindings::Multispin);
        let simple_tempering_layout = tempering_layout(&device, &simple_layout);
        let multispin_tempering_layout = tempering_layout(&device, &multispin_layout);
        let simple_cluster_layout = cluster_layout(&device, &simple_layout);
        let vector_layout = binding_layout(&device, Bindings::Vector);
        let vector_cluster_layout = cluster_layout(&device, &vector_layout);
        let limits = device.limits();
        Ok(WgpuContext {
            device,
            queue,
            info,
            limits,
            mulhilo,
            bounds_checks,
            statistics,
            simple_layout,
            multispin_layout,
            simple_tempering_layout,
            multispin_tempering_layout,
            simple_cluster_layout,
            vector_layout,
            vector_cluster_layout,
            pipelines: HashMap::new(),
            staging: std::cell::RefCell::new(None),
            errors,
            lost,
        })
    }

    fn layout(&self, bindings: Bindings) -> &BindingLayout {
        match bindings {
            Bindings::Simple => &self.simple_layout,
            Bindings::Multispin => &self.multispin_layout,
            Bindings::SimpleTempering => &self.simple_tempering_layout,
            Bindings::MultispinTempering => &self.multispin_tempering_layout,
            Bindings::SimpleClusters => &self.simple_cluster_layout,
            Bindings::Vector => &self.vector_layout,
            Bindings::VectorClusters => &self.vector_cluster_layout,
        }
    }

    /// The bind group layout of `bindings`.
    pub fn bind_group_layout(&self, bindings: Bindings) -> &wgpu::BindGroupLayout {
        &self.layout(bindings).bind_group
    }

    /// Group 1 of the tempering or cluster kernels of `bindings`.
    pub fn tempering_group_layout(&self, bindings: Bindings) -> &wgpu::BindGroupLayout {
        self.layout(bindings)
            .tempering
            .as_ref()
            .expect("tempering and cluster bindings have a group 1")
    }

    /// A bind group 1 of the tempering or cluster kernels of `bindings`: `buffers` at bindings
    /// 0, 1, ... in order.
    pub fn group_one(
        &self,
        label: &str,
        bindings: Bindings,
        buffers: &[&wgpu::Buffer],
    ) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: self.tempering_group_layout(bindings),
            entries: &entries,
        })
    }

    /// `name (backend)` of the adapter.
    pub fn adapter_name(&self) -> String {
        format!("{} ({})", self.info.name, self.info.backend.to_str())
    }

    /// The driver and its version, as the adapter reports them (empty where it reports none).
    pub fn driver(&self) -> String {
        format!("{} {}", self.info.driver, self.info.driver_info)
            .trim()
            .to_string()
    }

    /// Fail with the first error wgpu reported since the last check, or device loss.
    pub fn check(&self) -> Result<()> {
        if let Some(reason) = self.lost.lock().expect("lost flag").take() {
            return Err(Error::DeviceLost(reason));
        }
        let mut errors = self.errors.lock().expect("error list");
        if !errors.is_empty() {
            let all = std::mem::take(&mut *errors).join("\n");
            return Err(Error::Gpu(all));
        }
        Ok(())
    }

    /// Wait for `submission` and those before it (not for later ones), then
    /// [`check`](Self::check).
    pub fn wait_for(&self, submission: wgpu::SubmissionIndex) -> Result<()> {
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(submission),
                timeout: None,
            })
            .map_err(|e| Error::Gpu(format!("waiting for the GPU: {e}")))?;
        self.check()
    }

    /// Wait for every submission so far, then [`check`](Self::check).
    pub fn wait(&self) -> Result<()> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(format!("waiting for the GPU: {e}")))?;
        self.check()
    }

    /// The pipeline of `kernel` with override `constants`, compiled once and cached.
    pub fn pipeline(
        &mut self,
        kernel: Kernel,
        constants: &[(&'static str, u32)],
    ) -> Result<&wgpu::ComputePipeline> {
        let key: PipelineKey = (
            kernel,
            self.mulhilo,
            constants.iter().map(|&(k, v)| (k, u64::from(v))).collect(),
        );
        if !self.pipelines.contains_key(&key) {
            let pipeline = {
                let software = self.info.device_type == wgpu::DeviceType::Cpu;
                let _guard = (!software).then(driver_lock);
                self.build_pipeline(kernel, constants)?
            };
            self.pipelines.insert(key.clone(), pipeline);
        }
        Ok(&self.pipelines[&key])
    }

    fn build_pipeline(
        &self,
        kernel: Kernel,
        constants: &[(&'static str, u32)],
    ) -> Result<wgpu::ComputePipeline> {
        let source = compose(kernel, self.mulhilo)?;
        // Engines pass one set of constants to all their kernels; each takes those it declares.
        let constants: Vec<(&str, f64)> = constants
            .iter()
            .filter(|(k, _)| source.contains(&format!("override {k}:")))
            .map(|&(k, v)| (k, f64::from(v)))
            .collect();
        let (module, info) = validate(&source, self.mulhilo)?;
        let mut specialized = set_constants(&module, &info, &constants)?;
        let layout = bindings(kernel).map(|b| &self.layout(b).pipeline);
        if layout.is_some() {
            // The driver gets only the code that the constants select (`specialize.rs`).
            prune_constant_branches(&mut specialized);
        }
        let twin = (self.statistics.as_ref()).map(|dir| (dir, specialized.clone()));
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let descriptor = wgpu::ShaderModuleDescriptor {
            label: Some(kernel.module()),
            source: wgpu::ShaderSource::Naga(std::borrow::Cow::Owned(specialized)),
        };
        let module = match self.bounds_checks {
            true => self.device.create_shader_module(descriptor),
            false => unchecked_module(&self.device, descriptor),
        };
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(kernel.module()),
                layout,
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
        if let Some(error) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("kernel {}: {error}", kernel.module())));
        }
        if let Some((dir, module)) = twin {
            driver_statistics::write(&self.device, kernel.module(), &module, &constants, dir)?;
        }
        Ok(pipeline)
    }

    /// A buffer of `size` bytes; fails clearly beyond the device's buffer limit.
    pub fn buffer(
        &self,
        label: &str,
        size: u64,
        usage: wgpu::BufferUsages,
    ) -> Result<wgpu::Buffer> {
        if size > self.limits.max_buffer_size {
            return Err(Error::Limits(format!(
                "buffer `{label}` needs {size} bytes but max_buffer_size of {} is {}",
                self.adapter_name(),
                self.limits.max_buffer_size
            )));
        }
        Ok(self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: size.max(16),
            usage,
            mapped_at_creation: false,
        }))
    }

    /// A storage buffer (copyable both ways) holding `words`.
    pub fn upload(&self, label: &str, words: &[u32]) -> Result<wgpu::Buffer> {
        let buffer = self.buffer(label, 4 * words.len() as u64, storage_usage())?;
        self.write_words(&buffer, words);
        Ok(buffer)
    }

    /// The bind group 0 of a kernel with its own bindings (derived from its shader): `buffers`
    /// bound whole at bindings 0, 1, ... in order.
    pub fn bind_buffers(
        &self,
        label: &str,
        pipeline: &wgpu::ComputePipeline,
        buffers: &[&wgpu::Buffer],
    ) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, buffer)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: buffer.as_entire_binding(),
            })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        })
    }

    /// Queue `words` into the start of `buffer`: the next submission sees them.
    pub fn write_words(&self, buffer: &wgpu::Buffer, words: &[u32]) {
        self.queue
            .write_buffer(buffer, 0, bytemuck::cast_slice(words));
    }

    /// The largest storage binding: a whole buffer bound, within both limits.
    fn storage_binding_bytes(&self) -> u64 {
        self.limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
    }

    /// Refuse a storage binding of `bytes` (lattices of size `size`) beyond
    /// `max_storage_buffer_binding_size`, naming what needs it and the largest lattice size (a
    /// multiple of `step`) whose `bytes_at(size)` fits, searched as the memory checks search
    /// ([`largest_fitting`]).
    pub fn check_storage(
        &self,
        what: &str,
        size: u32,
        bytes: u64,
        bytes_at: impl Fn(u32) -> u64,
        step: u32,
    ) -> Result<()> {
        let binding = self.storage_binding_bytes();
        if bytes <= binding {
            return Ok(());
        }
        let fits = |k: u64| bytes_at(k as u32 * step) <= binding;
        let largest = largest_fitting(1, u64::from(size / step), fits)
            .map_or("none".to_string(), |k| format!("size: {}", k as u32 * step));
        Err(Error::Limits(format!(
            "{what} need {bytes} bytes, but max_storage_buffer_binding_size of {} is {binding} \
             bytes; the largest size that fits is {largest}",
            self.adapter_name(),
        )))
    }

    /// Measurement slots of `per_slot` bytes that one storage buffer binding holds, less a swap
    /// round's scratch slot: the most a plan may fill ([`crate::engine::Engine::max_plan_slots`]).
    pub fn plan_slots(&self, per_slot: u64) -> u64 {
        (self.storage_binding_bytes() / per_slot.max(1)).saturating_sub(1)
    }

    /// Refuse a plan whose `slots` measurements need `bytes` of `what` in one storage binding
    /// beyond the largest (a run's plans stay within it: the loops size them by
    /// [`crate::engine::Engine::max_plan_slots`]).
    pub fn check_plan_measurements(&self, what: &str, slots: u32, bytes: u64) -> Result<()> {
        let binding = self.storage_binding_bytes();
        if bytes <= binding {
            return Ok(());
        }
        Err(Error::Limits(format!(
            "a plan of {slots} measurement slots needs {bytes} bytes of {what}, but the largest \
             storage binding of {} (max_storage_buffer_binding_size, max_buffer_size) is \
             {binding} bytes: plan fewer measurements",
            self.adapter_name(),
        )))
    }

    /// Refuse more systems (workgroup grid z) than `max_compute_workgroups_per_dimension` for
    /// parallel tempering, whose kernels launch every system at once; the engines' updates and
    /// measurements run in pieces (`Dispatcher::enqueue_layered`).
    pub fn check_tempering_systems(&self, systems: u32) -> Result<()> {
        let max = self.limits.max_compute_workgroups_per_dimension;
        if systems > max {
            return Err(Error::Limits(format!(
                "parallel tempering: {systems} systems (word systems for multispin) exceed \
                 max_compute_workgroups_per_dimension = {max}; use fewer samples or replicas"
            )));
        }
        Ok(())
    }

    /// Refuse a workgroup size the adapter cannot run.
    pub fn check_workgroup_size(&self, workgroup_size: u32) -> Result<()> {
        let limits = &self.limits;
        if workgroup_size > limits.max_compute_invocations_per_workgroup
            || workgroup_size > limits.max_compute_workgroup_size_x
        {
            return Err(Error::Limits(format!(
                "workgroup_size {workgroup_size} exceeds the adapter's max_compute_invocations_per_workgroup = {}",
                limits.max_compute_invocations_per_workgroup
            )));
        }
        Ok(())
    }

    /// Copy `size` bytes of `buffer` to the host as values of `T` (copied out of the mapping, so
    /// aligned for `T`).
    pub fn read_buffer<T: bytemuck::Pod>(
        &self,
        buffer: &wgpu::Buffer,
        size: u64,
    ) -> Result<Vec<T>> {
        self.read_ranges(buffer, std::slice::from_ref(&(0..size)))
    }

    /// The byte ranges `ranges` of `buffer` (multiples of 4), concatenated.
    pub fn read_ranges<T: bytemuck::Pod>(
        &self,
        buffer: &wgpu::Buffer,
        ranges: &[std::ops::Range<u64>],
    ) -> Result<Vec<T>> {
        let pieces: Vec<_> = ranges.iter().map(|r| (buffer, r.clone())).collect();
        let pending = self.queue_read(&pieces)?;
        self.finish_read(pending)
    }

    /// The first `bytes` (a multiple of 4) of each of `buffers`, in one copy and one wait, each
    /// copied out of the mapping straight into its own vector.
    pub fn read_buffers(&self, buffers: &[(&wgpu::Buffer, u64)]) -> Result<Vec<Vec<u32>>> {
        let pieces: Vec<_> = buffers.iter().map(|&(b, bytes)| (b, 0..bytes)).collect();
        let pending = self.queue_read(&pieces)?;
        self.with_mapped(pending, |mapped| {
            let mut rest = mapped;
            (buffers.iter())
                .map(|&(_, bytes)| {
                    let (this, after) = rest.split_at(bytes as usize);
                    rest = after;
                    copy_out(this)
                })
                .collect()
        })
    }

    /// Queue the copy of the byte ranges `pieces` of their buffers (multiples of 4),
    /// concatenated, into the kept staging buffer, after the work submitted so far;
    /// [`Self::finish_read`] waits for it (and for nothing submitted later).
    pub fn queue_read(
        &self,
        pieces: &[(&wgpu::Buffer, std::ops::Range<u64>)],
    ) -> Result<PendingRead> {
        let size = pieces
            .iter()
            .map(|(_, range)| range.end - range.start)
            .sum();
        let mut kept = self.staging.borrow_mut();
        if kept.as_ref().is_none_or(|b| b.size() < size) {
            *kept = None;
            *kept = Some(self.buffer(
                "staging",
                size,
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            )?);
        }
        let staging = kept.as_ref().expect("allocated above");
        let mut encoder = self.device.create_command_encoder(&Default::default());
        let mut offset = 0;
        for (buffer, range) in pieces {
            let len = range.end - range.start;
            encoder.copy_buffer_to_buffer(buffer, range.start, staging, offset, len);
            offset += len;
        }
        let submission = self.queue.submit([encoder.finish()]);
        Ok(PendingRead { submission, size })
    }

    /// The words of a [`Self::queue_read`], once its copy is done.
    pub fn finish_read<T: bytemuck::Pod>(&self, pending: PendingRead) -> Result<Vec<T>> {
        self.with_mapped(pending, copy_out)
    }

    /// `read` of the staging buffer's bytes of a [`Self::queue_read`], mapped once its copy is
    /// done.
    fn with_mapped<R>(&self, pending: PendingRead, read: impl FnOnce(&[u8]) -> R) -> Result<R> {
        let kept = self.staging.borrow();
        let staging = kept.as_ref().expect("allocated by queue_read");
        let slice = staging.slice(..pending.size);
        let (sender, receiver) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = sender.send(r);
        });
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(pending.submission),
                timeout: None,
            })
            .map_err(|e| Error::Gpu(format!("waiting for the GPU: {e}")))?;
        self.check()?;
        receiver
            .recv()
            .map_err(|_| Error::Gpu("buffer mapping was dropped".into()))?
            .map_err(|e| Error::Gpu(format!("mapping a buffer for reading: {e}")))?;
        let mapped = slice
            .get_mapped_range()
            .map_err(|e| Error::Gpu(format!("reading a mapped buffer: {e}")))?;
        let values = read(&mapped);
        drop(mapped);
        staging.unmap();
        Ok(values)
    }
}

/// Bytes per task of [`copy_out`].
const COPY_OUT_CHUNK: usize = 1 << 20;

/// The values in `mapped`, copied out chunk by chunk in parallel: one core reads a mapped
/// staging buffer of the H100's Vulkan driver at about 1.2 GB/s (the 412 MB of a 3D spin glass
/// plan's overlap counts in 320 ms), page faults of the mapping and of the new vector included.
fn copy_out<T: bytemuck::Pod>(mapped: &[u8]) -> Vec<T> {
    let mut values = vec![T::zeroed(); mapped.len() / std::mem::size_of::<T>()];
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut values);
    threads::for_chunks(bytes, COPY_OUT_CHUNK, |c, chunk| {
        chunk.copy_from_slice(&mapped[c * COPY_OUT_CHUNK..][..chunk.len()]);
    });
    values
}
