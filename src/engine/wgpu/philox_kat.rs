//! Philox on the GPU: blocks for given (counter, key) pairs, through the `philox_kat` kernel.
//! Used to check both WGSL multiply paths against the known-answer vectors on a real adapter.

use super::context::WgpuContext;
use crate::engine::kernels::{Kernel, philox_kat_blocks, philox_kat_io};
use crate::error::Result;

/// Philox4x32-10 of each `(counter, key)` pair, computed by the adapter of `ctx`.
pub fn philox_blocks(
    ctx: &mut WgpuContext,
    inputs: &[([u32; 4], [u32; 2])],
) -> Result<Vec<[u32; 4]>> {
    let words = philox_kat_io(inputs);
    let io = ctx.upload("philox io", &words)?;
    let workgroup_size = 64;
    let pipeline = ctx
        .pipeline(Kernel::PhiloxKat, &[("WG_SIZE", workgroup_size)])?
        .clone();
    let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("philox kat"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 1,
            resource: io.as_entire_binding(),
        }],
    });
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups((inputs.len() as u32).div_ceil(workgroup_size), 1, 1);
    }
    ctx.queue.submit([encoder.finish()]);
    let out: Vec<u32> = ctx.read_buffer(&io, 4 * words.len() as u64)?;
    Ok(philox_kat_blocks(&out))
}
