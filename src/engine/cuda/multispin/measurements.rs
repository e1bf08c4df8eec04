//! The multispin CUDA engine's measurements: the observation and overlap counters of a plan's
//! slots, read back on the read stream while the device runs the plan's later batches.

use super::MultispinCudaEngine;
use crate::engine::Measurements;
use crate::engine::cuda::launch::{allocate, clear};
use crate::engine::multispin::LANES;
use crate::error::Result;

impl MultispinCudaEngine {
    fn observation_pairs(&self, slots: u32) -> usize {
        slots as usize * self.host.layout.word_systems() as usize * LANES as usize
    }

    /// Overlap counters for `slots` slots: none where no overlap kernel runs (without replica
    /// pairs, or once populations are counted as histograms).
    fn overlap_counts(&self, slots: u32) -> usize {
        let pairs = match self.overlap_kernel {
            Some(_) => self.host.layout.overlap_word_pairs().len(),
            None => 0,
        };
        slots as usize * pairs * self.host.layout.pair_counts() as usize
    }

    /// Zeroed observation and overlap counters for `slots` slots.
    pub(super) fn clear_measurements(&mut self, slots: u32) -> Result<()> {
        let pairs = self.observation_pairs(slots);
        if self.observations.len() < 2 * pairs {
            self.observations = allocate(&self.device, 2 * pairs, "observations")?;
        }
        let counts = self.overlap_counts(slots);
        if self.overlaps.len() < counts {
            self.overlaps = allocate(&self.device, counts, "overlaps")?;
        }
        clear(&self.device, &mut self.observations, "observations")?;
        match self.overlap_kernel {
            Some(_) => clear(&self.device, &mut self.overlaps, "overlaps"),
            None => Ok(()),
        }
    }

    /// Read the slots from the last read up to `slots` (measured by the batches the device has
    /// run) into [`crate::engine::multispin::SlotsRead`], on the read stream: beside the batch
    /// the device runs meanwhile.
    pub(super) fn read_slots(&mut self, slots: u32) -> Result<()> {
        let first = self.read.slots;
        if slots <= first {
            return Ok(());
        }
        let started = std::time::Instant::now();
        let stream = self.read_stream.stream();
        let observations = self.observation_pairs(first)..self.observation_pairs(slots);
        let counts = self.overlap_counts(first)..self.overlap_counts(slots);
        let per_word = self.observation_staging.read_range(
            &self.device,
            stream,
            &self.observations,
            2 * observations.start..2 * observations.end,
            "observations",
        )?;
        let per_pair = match self.overlap_kernel {
            None => &[],
            Some(_) => self.overlap_staging.read_range(
                &self.device,
                stream,
                &self.overlaps,
                counts,
                "overlaps",
            )?,
        };
        let per_word: &[[u64; 2]] = bytemuck::cast_slice(per_word);
        self.read
            .fill(&self.host.layout, per_word, per_pair, started.elapsed());
        Ok(())
    }

    /// The plan's measurements: those of its last batches read now, after the earlier ones.
    pub(super) fn read_measured(&mut self, slots: u32) -> Result<Measurements> {
        self.device.synchronize("running the sweep kernels")?;
        self.read.mark_beside();
        self.read_slots(slots)?;
        let mut measurements = std::mem::take(&mut self.read).finish("cuda");
        if let Some(tempering) = &self.tempering {
            measurements.labels = tempering.read_history(&self.device, slots)?;
        }
        Ok(measurements)
    }
}
