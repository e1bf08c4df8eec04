//! Population annealing on the multispin CUDA engine: its copies and its resampling step on the
//! device (`engine::cuda::copy_systems`, `engine::cuda::resampling`), ahead of a plan's sweeps,
//! and what the host reads back once the plan's work is done.

use super::MultispinCudaEngine;
use super::modules::ThresholdHome;
use crate::engine::annealing::{PopulationHistograms, ResamplingTable, no_table};
use crate::engine::backend::multispin::MultispinAnnealing;
use crate::engine::copy_maps::{identity_map, multispin_unit, system_positions};
use crate::engine::cuda::copy_systems::CudaCopies;
use crate::engine::cuda::launch::{enqueue_overwrite, overwrite};
use crate::engine::cuda::resampling::{CudaResampling, PendingStep};
use crate::error::Result;

impl MultispinCudaEngine {
    /// The copy kernel and its buffers, built by the first copy or resampling step.
    fn ensure_copies(&mut self) -> Result<()> {
        let layout = &self.host.layout;
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
            let (layout, copies) = (
                &self.host.layout,
                self.copies.as_mut().expect("ensured above"),
            );
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
                (slots, lattice.links(), lattice.sites()),
                layout.smsc(),
                self.block_size,
            )?);
        }
        Ok(())
    }
}

impl MultispinAnnealing for MultispinCudaEngine {
    type PendingStep = PendingStep;

    fn enqueue_resample(&mut self, step: u32, base: u32) -> Result<PendingStep> {
        let resampling = self.resampling.as_mut().ok_or_else(no_table)?;
        let copies = self.copies.as_mut().expect("created with the resampling");
        resampling.enqueue(
            &self.device,
            (self.host.layout.systems.seed, step),
            (&self.observations, base),
            copies,
            &mut self.spins,
        )
    }

    fn resamples(&self) -> bool {
        self.resampling.is_some()
    }

    fn enqueue_histograms(&mut self, base: u32) -> Result<()> {
        let resampling = self.resampling.as_mut().expect("checked by the caller");
        resampling.enqueue_histograms(&self.device, &self.observations, base)
    }

    fn read_resampled(
        &mut self,
        step: Option<PendingStep>,
        histograms: bool,
    ) -> Result<(Vec<u32>, Option<PopulationHistograms>)> {
        let resampling = self.resampling.as_mut().expect("checked by the caller");
        let copies = self.copies.as_mut().expect("created with the resampling");
        let spins = &mut self.spins;
        resampling.read_back(&self.device, step, (copies, spins), histograms)
    }

    fn thresholds_compiled(&self) -> bool {
        matches!(self.threshold_home, ThresholdHome::Compiled)
    }

    fn write_thresholds(&mut self) -> Result<()> {
        let tables = self.host.layout.threshold_tables();
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

    fn set_population_sizes(&mut self, slots: u32, sizes: &[u32]) -> Result<bool> {
        self.ensure_resampling(slots)?;
        let resampling = self.resampling.as_mut().expect("ensured above");
        resampling.set_sizes(&self.device, sizes)?;
        // Histograms replace every replica's counts, and nothing reads the overlaps.
        self.overlap_kernel = None;
        Ok(true)
    }
}
