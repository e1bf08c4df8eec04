//! Population annealing on the multispin CUDA engine: its copies and its resampling step on the
//! device (`engine::cuda::copy_systems`, `engine::cuda::resampling`), ahead of a plan's sweeps,
//! and what the host reads back once the plan's work is done.

use super::MultispinCudaEngine;
use super::modules::ThresholdHome;
use crate::engine::annealing::{PopulationHistograms, ResamplingTable, no_measurement, no_table};
use crate::engine::backend::multispin::MultispinAnnealing;
use crate::engine::copy_maps::{identity_map, multispin_unit, system_positions};
use crate::engine::cuda::copy_systems::CudaCopies;
use crate::engine::cuda::launch::{enqueue_overwrite, overwrite};
use crate::engine::cuda::resampling::{CudaResampling, PendingStep};
use crate::engine::multispin::LANES;
use crate::error::Result;

impl MultispinCudaEngine {
    /// The copy kernel and its buffers, built by the first copy or resampling step.
    fn ensure_copies(&mut self) -> Result<()> {
        let layout = &self.layout;
        CudaCopies::ensure(
            &mut self.copies,
            &mut self.device,
            (layout.word_systems(), layout.system_words()),
            multispin_unit(layout),
            self.spins.len(),
            self.block_size,
        )?;
        Ok(())
    }

    /// The resampling kernels for blocks of `slots`, built (with the copy kernel and its
    /// identity map) by the first call or where the blocks change.
    fn ensure_resampling(&mut self, slots: u32) -> Result<()> {
        if self.resampling.as_ref().is_none_or(|r| r.slots() != slots) {
            self.ensure_copies()?;
            let (layout, copies) = (&self.layout, self.copies.as_mut().expect("ensured above"));
            // Lanes that hold no system (AMSC lanes of temperatures beyond the last) keep
            // their bits: the device's steps write only the entries of systems.
            overwrite(
                &self.device,
                &identity_map(layout),
                copies.map_mut(),
                "copy map",
            )?;
            let lattice = layout.lattice();
            self.resampling = Some(CudaResampling::new(
                &mut self.device,
                &system_positions(layout),
                (slots, lattice.bonds(), lattice.sites()),
                layout.smsc(),
                self.block_size,
            )?);
        }
        Ok(())
    }
}

impl MultispinAnnealing for MultispinCudaEngine {
    type PendingStep = PendingStep;

    /// Enqueue resampling step `step` on the device, from the last plan's last measurement.
    fn enqueue_resample(&mut self, step: u32) -> Result<PendingStep> {
        let slot = self.last_measured.take().ok_or_else(no_measurement)?;
        let resampling = self.resampling.as_mut().ok_or_else(no_table)?;
        let copies = self.copies.as_mut().expect("created with the resampling");
        let base = slot * self.layout.word_systems() * LANES;
        resampling.enqueue(
            &self.device,
            (self.layout.systems.seed, step),
            (&self.observations, base),
            copies,
            &mut self.spins,
        )
    }

    /// Once a plan's work is enqueued, with one wait for it: the copies of its resampling step
    /// `step` and, where the engine counts populations and the plan measured, the histograms of
    /// its last measurement. A refused step leaves the lattices as they were before it and no
    /// measurement to resample from (the plan's measured lattices were put back).
    fn read_back(
        &mut self,
        step: Option<PendingStep>,
        slots: u32,
    ) -> Result<(Vec<u32>, Option<PopulationHistograms>)> {
        let histograms = self.count_populations && slots > 0;
        let Some(resampling) = (self.resampling.as_mut()).filter(|_| step.is_some() || histograms)
        else {
            let waited = self.device.synchronize("running the sweep kernels");
            return waited.map(|()| (Vec::new(), None));
        };
        if histograms {
            let base = (slots - 1) * self.layout.word_systems() * LANES;
            resampling.enqueue_histograms(&self.device, &self.observations, base)?;
        }
        let copies = self.copies.as_mut().expect("created with the resampling");
        let spins = &mut self.spins;
        let read = resampling.read_back(&self.device, step, (copies, spins), histograms);
        if read.is_err() {
            self.last_measured = None;
        }
        read
    }

    fn thresholds_compiled(&self) -> bool {
        matches!(self.threshold_home, ThresholdHome::Compiled)
    }

    fn write_thresholds(&mut self) -> Result<()> {
        let tables = self.layout.threshold_tables();
        match self.threshold_home {
            ThresholdHome::Constant => self.write_constant_tables(&tables),
            // The next plan's sweeps, enqueued behind this copy, are the first to read it.
            _ => enqueue_overwrite(&self.device, &tables, &mut self.thresholds, "thresholds"),
        }
    }

    fn copy_lanes(&mut self, map: &[u32]) -> Result<()> {
        self.ensure_copies()?;
        let copies = self.copies.as_mut().expect("ensured above");
        copies.copy(&self.device, &mut self.spins, map)
    }

    fn set_resampling_table(&mut self, table: &ResamplingTable) -> Result<()> {
        self.ensure_resampling(table.slots)?;
        let resampling = self.resampling.as_mut().expect("ensured above");
        resampling.set_table(&self.device, table)
    }

    fn count_populations_of(&mut self, slots: u32, sizes: &[u32]) -> Result<()> {
        self.ensure_resampling(slots)?;
        let resampling = self.resampling.as_mut().expect("ensured above");
        resampling.set_sizes(&self.device, sizes)?;
        self.count_populations = true;
        // Histograms replace every replica's counts, and nothing reads the overlaps.
        self.overlap_kernel = None;
        Ok(())
    }
}
