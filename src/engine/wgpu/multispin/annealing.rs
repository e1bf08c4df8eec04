//! Population annealing on the multispin wgpu engine: its copies and its resampling step on the
//! device (`engine::wgpu::copy_systems`, `engine::wgpu::resampling`), ahead of a plan's
//! submissions, and what the host reads back once they are done.

use super::MultispinWgpuEngine;
use crate::engine::annealing::{PopulationHistograms, ResamplingTable, no_table};
use crate::engine::backend::multispin::MultispinAnnealing;
use crate::engine::copy_maps::{identity_map, multispin_unit, system_positions};
use crate::engine::wgpu::copy_systems::WgpuCopies;
use crate::engine::wgpu::resampling::{PendingStep, WgpuResampling};
use crate::error::Result;

impl MultispinWgpuEngine {
    /// The copy kernel and its buffers, built by the first copy or resampling step.
    fn ensure_copies(&mut self) -> Result<()> {
        let layout = &self.host.layout;
        WgpuCopies::ensure(
            &mut self.copies,
            &mut self.ctx,
            &self.spins,
            (layout.word_systems(), layout.system_words()),
            multispin_unit(layout),
            self.dispatcher.workgroup_size(),
        )?;
        Ok(())
    }

    /// The resampling kernels for blocks of `slots`, built (with the copy kernel and its
    /// identity map) by the first call or where the blocks change.
    fn ensure_resampling(&mut self, slots: u32) -> Result<()> {
        if self.resampling.as_ref().is_none_or(|r| r.slots() != slots) {
            self.ensure_copies()?;
            let (layout, copies) = (
                &self.host.layout,
                self.copies.as_ref().expect("ensured above"),
            );
            // Lanes that hold no system (AMSC lanes of temperatures beyond the last) keep
            // their bits: the device's steps write only the entries of systems.
            self.ctx.write_words(copies.map(), &identity_map(layout));
            let lattice = layout.lattice();
            self.resampling = Some(WgpuResampling::new(
                &mut self.ctx,
                &system_positions(layout),
                (slots, lattice.links(), lattice.sites()),
                layout.smsc(),
                self.dispatcher.workgroup_size(),
            )?);
        }
        Ok(())
    }
}

impl MultispinAnnealing for MultispinWgpuEngine {
    type PendingStep = PendingStep;

    fn enqueue_resample(&mut self, step: u32, base: u32) -> Result<PendingStep> {
        let resampling = self.resampling.as_mut().ok_or_else(no_table)?;
        let buffers = self.measurements.as_ref().expect("measured before");
        let copies = self.copies.as_mut().expect("created with the resampling");
        let pending = resampling.enqueue(
            &self.ctx,
            &self.dispatcher,
            (self.host.layout.systems.seed, step),
            &buffers.observations,
            base,
            copies,
            &mut self.spins,
        )?;
        self.rebind_spins();
        Ok(pending)
    }

    fn resamples(&self) -> bool {
        self.resampling.is_some()
    }

    fn enqueue_histograms(&mut self, base: u32) -> Result<()> {
        let resampling = self.resampling.as_ref().expect("checked by the caller");
        let buffers = self.measurements.as_ref().expect("ensured before reading");
        resampling.enqueue_histograms(&self.ctx, &self.dispatcher, &buffers.observations, base);
        Ok(())
    }

    fn read_resampled(
        &mut self,
        step: Option<PendingStep>,
        histograms: bool,
    ) -> Result<(Vec<u32>, Option<PopulationHistograms>)> {
        let resampling = self.resampling.as_ref().expect("checked by the caller");
        let copies = self.copies.as_mut().expect("created with the resampling");
        let read = resampling.read_back(&self.ctx, step, (copies, &mut self.spins), histograms);
        if read.is_err() {
            self.rebind_spins();
        }
        read
    }

    fn thresholds_compiled(&self) -> bool {
        self.fixed_thresholds
    }

    fn write_thresholds(&mut self) -> Result<()> {
        self.ctx
            .write_words(&self.thresholds, &self.host.layout.threshold_tables());
        Ok(())
    }

    fn copy_lanes(&mut self, map: &[u32]) -> Result<()> {
        self.ensure_copies()?;
        let copies = self.copies.as_mut().expect("ensured above");
        copies.copy(&self.ctx, &self.dispatcher, &mut self.spins, map)?;
        self.rebind_spins();
        Ok(())
    }

    fn set_resampling_table(&mut self, table: &ResamplingTable) -> Result<()> {
        self.ensure_resampling(table.slots)?;
        let resampling = self.resampling.as_mut().expect("ensured above");
        resampling.set_table(&self.ctx, table)
    }

    fn set_population_sizes(&mut self, slots: u32, sizes: &[u32]) -> Result<bool> {
        self.ensure_resampling(slots)?;
        let resampling = self.resampling.as_ref().expect("ensured above");
        resampling.set_sizes(&self.ctx, sizes)?;
        // Histograms replace every replica's counts, and nothing reads the overlaps.
        self.overlap = None;
        Ok(true)
    }
}
