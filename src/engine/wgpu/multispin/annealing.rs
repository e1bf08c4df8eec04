//! Population annealing on the multispin wgpu engine: its copies and its resampling step on the
//! device (`engine::wgpu::copy_systems`, `engine::wgpu::resampling`), ahead of a plan's
//! submissions, and what the host reads back once they are done.

use super::MultispinWgpuEngine;
use crate::engine::annealing::{PopulationHistograms, ResamplingTable, no_measurement, no_table};
use crate::engine::backend::multispin::MultispinAnnealing;
use crate::engine::copy_maps::{identity_map, multispin_unit, system_positions};
use crate::engine::multispin::LANES;
use crate::engine::wgpu::copy_systems::WgpuCopies;
use crate::engine::wgpu::resampling::{PendingStep, WgpuResampling};
use crate::error::Result;

impl MultispinWgpuEngine {
    /// The copy kernel and its buffers, built by the first copy or resampling step.
    fn ensure_copies(&mut self) -> Result<()> {
        let layout = &self.layout;
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
            let (layout, copies) = (&self.layout, self.copies.as_ref().expect("ensured above"));
            // Lanes that hold no system (AMSC lanes of temperatures beyond the last) keep
            // their bits: the device's steps write only the entries of systems.
            self.ctx.write_words(copies.map(), &identity_map(layout));
            let lattice = layout.lattice();
            self.resampling = Some(WgpuResampling::new(
                &mut self.ctx,
                &system_positions(layout),
                (slots, lattice.bonds(), lattice.sites()),
                layout.smsc(),
                self.dispatcher.workgroup_size(),
            )?);
        }
        Ok(())
    }
}

impl MultispinAnnealing for MultispinWgpuEngine {
    type PendingStep = PendingStep;

    /// Submit resampling step `step` on the device, from the last plan's last measurement.
    fn enqueue_resample(&mut self, step: u32) -> Result<PendingStep> {
        let slot = self.last_measured.take().ok_or_else(no_measurement)?;
        let resampling = self.resampling.as_mut().ok_or_else(no_table)?;
        let buffers = self.measurements.as_ref().expect("measured before");
        let copies = self.copies.as_ref().expect("created with the resampling");
        let base = slot * self.layout.word_systems() * LANES;
        resampling.enqueue(
            &self.ctx,
            &self.dispatcher,
            (self.layout.systems.seed, step),
            &buffers.observations,
            base,
            copies,
            &self.spins,
        )
    }

    /// After a plan's submissions: the copies of its resampling step `step` and, where the
    /// engine counts populations and the plan measured, the histograms of its last
    /// measurement, in one read. A refused step leaves the lattices as they were before it
    /// and no measurement to resample from (the plan's measured lattices were put back).
    fn read_back(
        &mut self,
        step: Option<PendingStep>,
        slots: u32,
    ) -> Result<(Vec<u32>, Option<PopulationHistograms>)> {
        let histograms = self.count_populations && slots > 0;
        let Some(resampling) = self
            .resampling
            .as_ref()
            .filter(|_| step.is_some() || histograms)
        else {
            return self.ctx.wait().map(|()| (Vec::new(), None));
        };
        if histograms {
            let buffers = self.measurements.as_ref().expect("ensured before reading");
            let base = (slots - 1) * self.layout.word_systems() * LANES;
            resampling.enqueue_histograms(&self.ctx, &self.dispatcher, &buffers.observations, base);
        }
        let copies = self.copies.as_ref().expect("created with the resampling");
        let read = resampling.read_back(&self.ctx, step, (copies, &self.spins), histograms);
        if read.is_err() {
            self.last_measured = None;
        }
        read
    }

    fn thresholds_compiled(&self) -> bool {
        self.fixed_thresholds
    }

    fn write_thresholds(&mut self) -> Result<()> {
        self.ctx
            .write_words(&self.thresholds, &self.layout.threshold_tables());
        Ok(())
    }

    fn copy_lanes(&mut self, map: &[u32]) -> Result<()> {
        self.ensure_copies()?;
        let copies = self.copies.as_ref().expect("ensured above");
        copies.copy(&self.ctx, &self.dispatcher, &self.spins, map)
    }

    fn set_resampling_table(&mut self, table: &ResamplingTable) -> Result<()> {
        self.ensure_resampling(table.slots)?;
        let resampling = self.resampling.as_mut().expect("ensured above");
        resampling.set_table(&self.ctx, table)
    }

    fn count_populations_of(&mut self, slots: u32, sizes: &[u32]) -> Result<()> {
        self.ensure_resampling(slots)?;
        let resampling = self.resampling.as_ref().expect("ensured above");
        resampling.set_sizes(&self.ctx, sizes)?;
        self.count_populations = true;
        // Histograms replace every replica's counts, and nothing reads the overlaps.
        self.overlap = None;
        Ok(())
    }
}
