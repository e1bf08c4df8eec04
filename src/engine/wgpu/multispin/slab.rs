//! A slab of the multispin wgpu engine ([`crate::engine::slabs`]): its halo exchange, and its
//! sweeps with the exchange beside the bulk's update.

use super::MultispinWgpuEngine;
use crate::engine::Plan;
use crate::engine::dispatch::{Dispatch, measured_slots};
use crate::engine::slabs::{
    PlaneStore, SlabPass, SlabStep, SlabSweep, exchange_colour, slab_steps,
};
use crate::engine::wgpu::context::{PendingRead, WgpuContext};
use crate::error::Result;

/// A device buffer of spin words as the halo exchange reads and writes it.
struct DeviceWords<'a> {
    ctx: &'a WgpuContext,
    buffer: &'a wgpu::Buffer,
    /// Queued once the boundary planes' copy is, before waiting for it: a slab's bulk, which
    /// then runs while the planes are exchanged.
    beside: Option<Box<dyn FnOnce() + 'a>>,
}

impl PlaneStore for DeviceWords<'_> {
    fn read(&mut self, ranges: &[std::ops::Range<usize>]) -> Result<Vec<u32>> {
        let pieces: Vec<_> = ranges
            .iter()
            .map(|range| (self.buffer, 4 * range.start as u64..4 * range.end as u64))
            .collect();
        let pending = self.ctx.queue_read(&pieces)?;
        if let Some(beside) = self.beside.take() {
            beside();
        }
        self.ctx.finish_read(pending)
    }

    fn write(&mut self, start: usize, words: &[u32]) -> Result<()> {
        self.ctx
            .queue
            .write_buffer(self.buffer, 4 * start as u64, bytemuck::cast_slice(words));
        Ok(())
    }
}

impl MultispinWgpuEngine {
    /// A slab's halo exchange of `colour` (nothing for whole lattices): download of its
    /// boundary planes, exchange, upload of the halos (queued before the next submission).
    fn exchange(&mut self, colour: u32) -> Result<()> {
        let Some(halo) = self.host.halo.as_deref_mut() else {
            return Ok(());
        };
        let mut store = DeviceWords {
            ctx: &self.ctx,
            buffer: &self.spins,
            beside: None,
        };
        exchange_colour(&self.host.layout, halo, &mut store, colour)
    }

    /// A slab's plan a step at a time ([`slab_steps`]): each pass with its exchange, each
    /// measurement read behind its submission; the first submission clears the measurements.
    pub(super) fn run_slab(&mut self, plan: &Plan) -> Result<()> {
        let mut clear = true;
        let mut behind: Option<(wgpu::SubmissionIndex, Option<(PendingRead, u32)>)> = None;
        for step in slab_steps(&self.host.layout, plan) {
            match step {
                SlabStep::Pass(pass) => {
                    // The slab's exchange reads through the same staging buffer: the read
                    // behind goes first.
                    if let Some(previous) = behind.take() {
                        self.finish_submission(previous)?;
                    }
                    self.sweep_slab(&pass, std::mem::take(&mut clear))?;
                }
                SlabStep::Dispatch(dispatch) => {
                    let submitted = self.enqueue(&[dispatch], std::mem::take(&mut clear));
                    if let Some(previous) = behind.take() {
                        self.finish_submission(previous)?;
                    }
                    let read = self.queue_slots(measured_slots(&[dispatch]).unwrap_or(0))?;
                    behind = Some((submitted, read));
                }
            }
        }
        match behind {
            Some(last) => self.finish_submission(last),
            None => Ok(()),
        }
    }

    /// A slab's pass ([`SlabPass`]); where it completes the pass, with its exchange beside the
    /// bulk ([`SlabSweep`]), in queue order: the edge planes' update, the copy of the boundary
    /// planes, the bulk; the host waits for the copy alone and exchanges the planes while the
    /// device runs the bulk, and the halos' upload goes before the next submission.
    fn sweep_slab(&mut self, pass: &SlabPass, clear: bool) -> Result<()> {
        let parts = SlabSweep::new(&self.host.layout, pass);
        let mut edges: Vec<Dispatch> = parts.edges.into_iter().map(Dispatch::Sweep).collect();
        if !pass.exchange {
            edges.extend(parts.bulk.map(Dispatch::Sweep));
            self.enqueue(&edges, clear);
            return Ok(());
        }
        self.enqueue(&edges, clear);
        let mut halo = self.host.halo.take().expect("a slab has its halo");
        let engine = &*self;
        let bulk = move || {
            if let Some(bulk) = parts.bulk {
                engine.enqueue(&[Dispatch::Sweep(bulk)], false);
            }
        };
        let mut store = DeviceWords {
            ctx: &engine.ctx,
            buffer: &engine.spins,
            beside: Some(Box::new(bulk)),
        };
        let exchanged = exchange_colour(
            &engine.host.layout,
            halo.as_mut(),
            &mut store,
            pass.colour(),
        );
        drop(store);
        self.host.halo = Some(halo);
        exchanged
    }

    /// Make a slab's halos of both colours current (after new spins).
    pub(super) fn exchange_halos(&mut self) -> Result<()> {
        (0..2).try_for_each(|colour| self.exchange(colour))
    }
}
