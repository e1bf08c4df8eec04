//! Recording and submitting the dispatches of a plan, shared by the wgpu engines.
//!
//! Each dispatch reads its [`DispatchParams`] from its own entry of a uniform buffer bound
//! with a dynamic offset (entries a multiple of `min_uniform_buffer_offset_alignment` apart); a submission
//! writes its entries, records one compute pass and submits; the engine then waits for the
//! device (checking wgpu's error and device-loss callbacks) or, for a slab's bulk, goes on.

use super::context::WgpuContext;
use crate::engine::dispatch::{Dispatch, DispatchParams, layer_pieces};
use crate::error::Result;

/// Dispatch-parameter entries per submission.
pub const MAX_DISPATCHES: usize = 1024;

/// Workgroups along x, y and z.
pub type Grid = (u32, u32, u32);

/// The kernels one dispatch runs, with their grids.
pub type Launches<'a> = Vec<(&'a wgpu::ComputePipeline, Grid)>;

/// The uniform buffer of dispatch parameters and the workgroup size of an engine's kernels.
pub struct Dispatcher {
    params: wgpu::Buffer,
    stride: u64,
    workgroup_size: u32,
}

impl Dispatcher {
    pub fn new(ctx: &WgpuContext, workgroup_size: u32) -> Result<Self> {
        let stride = (std::mem::size_of::<DispatchParams>() as u64)
            .next_multiple_of(u64::from(ctx.limits.min_uniform_buffer_offset_alignment));
        let params = ctx.buffer(
            "dispatch params",
            stride * MAX_DISPATCHES as u64,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        )?;
        Ok(Dispatcher {
            params,
            stride,
            workgroup_size,
        })
    }

    /// Threads per workgroup of the engine's kernels.
    pub fn workgroup_size(&self) -> u32 {
        self.workgroup_size
    }

    /// Binding 0 of a bind group: one entry of the parameter buffer.
    pub fn params_entry(&self) -> wgpu::BindGroupEntry<'_> {
        wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &self.params,
                offset: 0,
                size: wgpu::BufferSize::new(std::mem::size_of::<DispatchParams>() as u64),
            }),
        }
    }

    /// Workgroups covering `threads` threads per system: x up to the dimension limit, spilling
    /// into y; z counts the systems.
    pub fn grid(&self, ctx: &WgpuContext, threads: u64, systems: u32) -> Grid {
        self.grid_of(ctx, threads, systems, self.workgroup_size)
    }

    /// [`Dispatcher::grid`] for a kernel of workgroups of `workgroup_size` threads.
    pub fn grid_of(
        &self,
        ctx: &WgpuContext,
        threads: u64,
        systems: u32,
        workgroup_size: u32,
    ) -> Grid {
        let groups = threads.div_ceil(u64::from(workgroup_size)).max(1);
        let max = u64::from(ctx.limits.max_compute_workgroups_per_dimension);
        let x = groups.min(max);
        (x as u32, groups.div_ceil(x) as u32, systems)
    }

    /// Write the parameters of `dispatches` (at most [`MAX_DISPATCHES`]), clear `clear`, run
    /// every `(pipeline, grid)` that `kernels` gives for each dispatch in one compute pass and
    /// submit, without waiting: the next wait ([`WgpuContext::wait`], or
    /// [`WgpuContext::wait_for`] the submission returned) or read finds the work done or waits
    /// for it (the queue runs submissions in order) and reports its errors.
    /// `bind_group` is group 0 (with the dispatch's parameters), `tempering` group 1 of the
    /// tempering kernels.
    pub fn enqueue<'a>(
        &self,
        ctx: &WgpuContext,
        bind_group: &wgpu::BindGroup,
        tempering: Option<&wgpu::BindGroup>,
        dispatches: &[Dispatch],
        clear: &[&wgpu::Buffer],
        kernels: impl Fn(usize, &Dispatch) -> Vec<(&'a wgpu::ComputePipeline, Grid)>,
    ) -> wgpu::SubmissionIndex {
        let mut bytes = vec![0u8; self.stride as usize * dispatches.len()];
        for (entry, d) in bytes.chunks_mut(self.stride as usize).zip(dispatches) {
            entry[..std::mem::size_of::<DispatchParams>()]
                .copy_from_slice(bytemuck::bytes_of(d.params()));
        }
        ctx.queue.write_buffer(&self.params, 0, &bytes);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        for buffer in clear {
            encoder.clear_buffer(buffer, 0, None);
        }
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            if let Some(group) = tempering {
                pass.set_bind_group(1, group, &[]);
            }
            for (i, d) in dispatches.iter().enumerate() {
                pass.set_bind_group(0, bind_group, &[(i as u64 * self.stride) as u32]);
                for (pipeline, (x, y, z)) in kernels(i, d) {
                    pass.set_pipeline(pipeline);
                    pass.dispatch_workgroups(x, y, z);
                }
            }
        }
        ctx.queue.submit([encoder.finish()])
    }

    /// [`Dispatcher::enqueue`] of `dispatches` with their launches, each cut into dispatches of
    /// its pieces where its grids hold more layers (systems, word systems, replica pairs) than
    /// the adapter's grid takes along z ([`layered`]), in submissions of at most
    /// [`MAX_DISPATCHES`] (the first clears `clear`); the last submission.
    pub fn enqueue_layered(
        &self,
        ctx: &WgpuContext,
        bind_group: &wgpu::BindGroup,
        group_1: Option<&wgpu::BindGroup>,
        dispatches: &[(Dispatch, Launches)],
        clear: &[&wgpu::Buffer],
    ) -> wgpu::SubmissionIndex {
        let pieces = layered(dispatches, ctx.limits.max_compute_workgroups_per_dimension);
        let mut chunks: Vec<_> = pieces.chunks(MAX_DISPATCHES).collect();
        if chunks.is_empty() {
            chunks.push(&[]);
        }
        let mut submitted = None;
        for (k, chunk) in chunks.into_iter().enumerate() {
            let params: Vec<Dispatch> = chunk.iter().map(|(d, _)| *d).collect();
            let cleared = if k == 0 { clear } else { &[] };
            let kernels = |i: usize, _: &Dispatch| chunk[i].1.clone();
            let index = self.enqueue(ctx, bind_group, group_1, &params, cleared, kernels);
            submitted = Some(index);
        }
        submitted.expect("at least one submission")
    }
}

/// `dispatches` with each one whose grids hold more layers than `max` cut into dispatches of
/// its pieces ([`layer_pieces`]): each piece runs the launches that reach its layers, with the
/// piece's first layer in `first_layer`, which the kernels add to their z.
fn layered<'a>(dispatches: &[(Dispatch, Launches<'a>)], max: u32) -> Vec<(Dispatch, Launches<'a>)> {
    let mut pieces = Vec::with_capacity(dispatches.len());
    for (dispatch, launches) in dispatches {
        let layers = launches.iter().map(|(_, (_, _, z))| *z).max().unwrap_or(1);
        for (first, count) in layer_pieces(layers, max) {
            let piece = (launches.iter())
                .filter(|(_, (_, _, z))| *z > first)
                .map(|&(pipeline, (x, y, z))| (pipeline, (x, y, count.min(z - first))))
                .collect();
            pieces.push((dispatch.from_layer(first), piece));
        }
    }
    pieces
}
