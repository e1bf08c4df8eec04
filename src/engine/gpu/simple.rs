//! The simple GPU engine: one spin per i32 word, kernels `metropolis_simple` and `observables`.
//!
//! Data layout: `spins[b N + site]` for system `b` (temperature-major, then replica) and site in
//! natural order; `thresholds[t][spin_up][(n + z) / 2]`; `observations[slot][b]` as four u32
//! words (up lo/hi, satisfied lo/hi).

use super::context::GpuContext;
use super::plan::{Dispatch, DispatchParams, submissions};
use super::shaders::Kernel;
use crate::engine::{Engine, EngineInfo, Observation, Plan, check_spin_count};
use crate::error::{Error, Result};
use crate::model::ising::IsingSystems;

/// Dispatch-parameter entries per submission (each 256 bytes of uniform buffer).
const MAX_DISPATCHES: usize = 1024;
/// Site updates per submission, so that a submission stays well under a second on slow adapters.
const FLIP_BUDGET: u64 = 1 << 27;
/// Sites each thread of the observables kernel visits (bounds the workgroup's u32 sums).
const SITES_PER_OBSERVER: u64 = 16;

/// The simple Ising engine on a wgpu device.
pub struct SimpleGpuEngine {
    ctx: GpuContext,
    systems: IsingSystems,
    workgroup_size: u32,
    spins: wgpu::Buffer,
    params: wgpu::Buffer,
    params_stride: u64,
    thresholds: wgpu::Buffer,
    sweep_pipeline: wgpu::ComputePipeline,
    observe_pipeline: wgpu::ComputePipeline,
    observations: Option<ObservationBuffer>,
}

/// The observation buffer with its capacity in slots and the bind group that binds it.
struct ObservationBuffer {
    buffer: wgpu::Buffer,
    slots: u32,
    bind_group: wgpu::BindGroup,
}

impl SimpleGpuEngine {
    /// Allocate `systems` on the device of `ctx` (lattices zeroed until [`Engine::set_spins`]);
    /// fails clearly where the lattices exceed the device's limits.
    pub fn new(mut ctx: GpuContext, systems: IsingSystems, workgroup_size: u32) -> Result<Self> {
        check_fits(&ctx, &systems, workgroup_size)?;
        let constants = [
            ("WG_SIZE", workgroup_size),
            ("L", systems.lattice.size),
            ("DIMS", systems.lattice.dims),
            ("REPLICAS", systems.replicas),
        ];
        let sweep_pipeline = ctx.pipeline(Kernel::MetropolisSimple, &constants)?.clone();
        let observe_pipeline = ctx.pipeline(Kernel::Observables, &constants)?.clone();
        let spin_bytes = 4 * systems.lattice.sites() * u64::from(systems.systems());
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let spins_buffer = ctx.buffer("spins", spin_bytes, storage)?;
        let table = systems.thresholds();
        let thresholds = ctx.buffer("thresholds", 4 * table.len() as u64, storage)?;
        ctx.queue
            .write_buffer(&thresholds, 0, bytemuck::cast_slice(&table));
        let params_stride = u64::from(ctx.limits.min_uniform_buffer_offset_alignment)
            .max(std::mem::size_of::<DispatchParams>() as u64);
        let params = ctx.buffer(
            "dispatch params",
            params_stride * MAX_DISPATCHES as u64,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        )?;
        let engine = SimpleGpuEngine {
            ctx,
            systems,
            workgroup_size,
            spins: spins_buffer,
            params,
            params_stride,
            thresholds,
            sweep_pipeline,
            observe_pipeline,
            observations: None,
        };
        engine.ctx.check()?;
        Ok(engine)
    }

    /// Observation buffer with room for at least `slots` slots.
    fn ensure_observations(&mut self, slots: u32) -> Result<()> {
        if self.observations.as_ref().is_some_and(|o| o.slots >= slots) {
            return Ok(());
        }
        let bytes = observation_bytes(slots, self.systems.systems());
        let buffer = self.ctx.buffer(
            "observations",
            bytes,
            wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
        )?;
        let bind_group = self.bind_group(&buffer);
        self.observations = Some(ObservationBuffer {
            buffer,
            slots: slots.max(1),
            bind_group,
        });
        Ok(())
    }

    /// Grid of workgroups covering `threads` threads per system: x up to the dimension limit,
    /// spilling into y; z is the system.
    fn grid(&self, threads: u64) -> (u32, u32, u32) {
        let groups = threads.div_ceil(u64::from(self.workgroup_size)).max(1);
        let max = u64::from(self.ctx.limits.max_compute_workgroups_per_dimension);
        let x = groups.min(max);
        (x as u32, groups.div_ceil(x) as u32, self.systems.systems())
    }

    /// The bind group of the shared layout over this engine's buffers and `observations`.
    fn bind_group(&self, observations: &wgpu::Buffer) -> wgpu::BindGroup {
        self.ctx
            .device
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("simple"),
                layout: &self.ctx.bind_group_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &self.params,
                            offset: 0,
                            size: wgpu::BufferSize::new(
                                std::mem::size_of::<DispatchParams>() as u64
                            ),
                        }),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: self.spins.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: self.thresholds.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: observations.as_entire_binding(),
                    },
                ],
            })
    }

    fn encode_submission(&self, dispatches: &[Dispatch], clear: bool) -> Result<()> {
        let mut bytes = vec![0u8; self.params_stride as usize * dispatches.len()];
        for (i, d) in dispatches.iter().enumerate() {
            let at = i * self.params_stride as usize;
            bytes[at..at + std::mem::size_of::<DispatchParams>()]
                .copy_from_slice(bytemuck::bytes_of(d.params()));
        }
        self.ctx.queue.write_buffer(&self.params, 0, &bytes);
        let observations = self.observations.as_ref().expect("ensured before encoding");
        let lattice = self.systems.lattice;
        let sweep_grid = self.grid(lattice.sites_per_colour().div_ceil(4));
        let observe_grid = self.grid(lattice.sites().div_ceil(SITES_PER_OBSERVER));
        let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
        if clear {
            encoder.clear_buffer(&observations.buffer, 0, None);
        }
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            for (i, d) in dispatches.iter().enumerate() {
                let (pipeline, (x, y, z)) = match d {
                    Dispatch::Sweep(_) => (&self.sweep_pipeline, sweep_grid),
                    Dispatch::Measure(_) => (&self.observe_pipeline, observe_grid),
                };
                pass.set_pipeline(pipeline);
                pass.set_bind_group(
                    0,
                    &observations.bind_group,
                    &[(i as u64 * self.params_stride) as u32],
                );
                pass.dispatch_workgroups(x, y, z);
            }
        }
        self.ctx.queue.submit([encoder.finish()]);
        self.ctx.wait()
    }
}

impl Engine for SimpleGpuEngine {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            backend: "wgpu".into(),
            adapter: self.ctx.adapter_name(),
        }
    }

    fn set_spins(&mut self, spins: &[i32]) -> Result<()> {
        check_spin_count(&self.systems, spins)?;
        self.ctx
            .queue
            .write_buffer(&self.spins, 0, bytemuck::cast_slice(spins));
        self.ctx.wait()
    }

    fn spins(&mut self) -> Result<Vec<i32>> {
        let bytes = self.ctx.read_buffer(&self.spins, self.spins.size())?;
        Ok(bytemuck::cast_slice(&bytes).to_vec())
    }

    fn execute(&mut self, plan: &Plan) -> Result<Vec<Observation>> {
        self.ensure_observations(plan.slots)?;
        let flips_per_sweep = self.systems.lattice.sites() * u64::from(self.systems.systems());
        let sweeps_per_submission = (FLIP_BUDGET / flips_per_sweep).max(1);
        let seed = self.systems.seed;
        let systems = self.systems.systems();
        let subs = submissions(plan, seed, systems, MAX_DISPATCHES, sweeps_per_submission);
        for (i, dispatches) in subs.iter().enumerate() {
            self.encode_submission(dispatches, i == 0)?;
        }
        if plan.slots == 0 {
            return Ok(Vec::new());
        }
        let observations = self.observations.as_ref().expect("ensured above");
        let bytes = self
            .ctx
            .read_buffer(&observations.buffer, observation_bytes(plan.slots, systems))?;
        let words: &[u32] = bytemuck::cast_slice(&bytes);
        Ok(words
            .chunks_exact(4)
            .map(|w| Observation {
                up: u64::from(w[0]) | u64::from(w[1]) << 32,
                satisfied: u64::from(w[2]) | u64::from(w[3]) << 32,
            })
            .collect())
    }
}

fn observation_bytes(slots: u32, systems: u32) -> u64 {
    16 * u64::from(slots.max(1)) * u64::from(systems)
}

/// Refuse lattices beyond the device's limits, naming the limit and the largest L that fits.
fn check_fits(ctx: &GpuContext, systems: &IsingSystems, workgroup_size: u32) -> Result<()> {
    let limits = &ctx.limits;
    let lattice = systems.lattice;
    let binding = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    let per_site = 4 * u64::from(systems.systems());
    if lattice.sites() * per_site > binding {
        let max_sites = binding / per_site;
        let mut largest = (max_sites as f64).powf(1.0 / f64::from(lattice.dims)) as u32 & !1;
        while u64::from(largest).pow(lattice.dims) > max_sites {
            largest -= 2;
        }
        return Err(Error::Limits(format!(
            "{} systems of L = {} in {}D need {} bytes of spins (4 bytes per spin), but \
             max_storage_buffer_binding_size of {} is {binding} bytes; the largest L that fits is {largest}",
            systems.systems(),
            lattice.size,
            lattice.dims,
            lattice.sites() * per_site,
            ctx.adapter_name(),
        )));
    }
    if systems.systems() > limits.max_compute_workgroups_per_dimension {
        return Err(Error::Limits(format!(
            "{} systems exceed max_compute_workgroups_per_dimension = {}",
            systems.systems(),
            limits.max_compute_workgroups_per_dimension
        )));
    }
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
