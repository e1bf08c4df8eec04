//! The multispin wgpu engine's measurements: the observation and overlap buffers of a plan's
//! slots, copied out behind each submission and read while the device runs the next.

use super::{MeasurementBuffers, MultispinWgpuEngine};
use crate::engine::Measurements;
use crate::engine::multispin::LANES;
use crate::engine::wgpu::context::{PendingRead, storage_usage};
use crate::engine::wgpu::shaders::Bindings;
use crate::engine::wgpu::simple::counter_pairs;
use crate::error::Result;

impl MultispinWgpuEngine {
    pub(super) fn observation_bytes(&self, slots: u32) -> u64 {
        16 * u64::from(LANES) * u64::from(slots.max(1)) * u64::from(self.host.layout.word_systems())
    }

    /// Bytes of overlap counters for `slots` slots: none where no overlap kernel runs (without
    /// replica pairs, or once populations are counted as histograms).
    pub(super) fn overlap_bytes(&self, slots: u32) -> u64 {
        let pairs = match self.overlap {
            Some(_) => self.host.layout.overlap_word_pairs().len() as u64,
            None => 0,
        };
        4 * u64::from(self.host.layout.pair_counts()) * u64::from(slots.max(1)) * pairs
    }

    /// Measurement buffers with room for at least `slots` slots.
    pub(super) fn ensure_measurements(&mut self, slots: u32) -> Result<()> {
        if self.measurements.as_ref().is_some_and(|m| m.slots >= slots) {
            return Ok(());
        }
        for (what, bytes) in [
            ("observations", self.observation_bytes(slots)),
            ("overlaps", self.overlap_bytes(slots)),
        ] {
            self.ctx.check_plan_measurements(what, slots, bytes)?;
        }
        let observations = self.ctx.buffer(
            "observations",
            self.observation_bytes(slots),
            storage_usage(),
        )?;
        let overlaps = self
            .ctx
            .buffer("overlaps", self.overlap_bytes(slots), storage_usage())?;
        let bind_group = self.bind_group(&observations, &overlaps);
        self.measurements = Some(MeasurementBuffers {
            observations,
            overlaps,
            slots: slots.max(1),
            bind_group,
        });
        Ok(())
    }

    /// The bind group of the shared layout over this engine's buffers and the measurement
    /// buffers.
    fn bind_group(&self, observations: &wgpu::Buffer, overlaps: &wgpu::Buffer) -> wgpu::BindGroup {
        let buffers = [
            &self.spins,
            &self.thresholds,
            observations,
            &self.couplings,
            overlaps,
        ];
        let mut entries = vec![self.dispatcher.params_entry()];
        entries.extend(
            buffers
                .iter()
                .enumerate()
                .map(|(i, b)| wgpu::BindGroupEntry {
                    binding: i as u32 + 1,
                    resource: b.as_entire_binding(),
                }),
        );
        self.ctx
            .device
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("multispin"),
                layout: self.ctx.bind_group_layout(Bindings::Multispin),
                entries: &entries,
            })
    }

    /// Bind the spins anew, after a copy or a refused step handed the engine the other spin
    /// buffer.
    pub(super) fn rebind_spins(&mut self) {
        if let Some(buffers) = &self.measurements {
            let bind_group = self.bind_group(&buffers.observations, &buffers.overlaps);
            self.measurements
                .as_mut()
                .expect("checked above")
                .bind_group = bind_group;
        }
    }

    /// Queue the copy of the slots from the last read up to `slots` (their measurements enqueued
    /// before) for [`Self::finish_read`]; `None` where there are none.
    pub(super) fn queue_slots(&self, slots: u32) -> Result<Option<(PendingRead, u32)>> {
        let first = self.read.slots;
        if slots <= first {
            return Ok(None);
        }
        let buffers = self.measurements.as_ref().expect("ensured before reading");
        let (observations, overlaps) = (self.observation_bytes(1), self.overlap_bytes(1));
        let (first, end) = (u64::from(first), u64::from(slots));
        let mut pieces = vec![(
            &buffers.observations,
            first * observations..end * observations,
        )];
        if self.overlap.is_some() {
            pieces.push((&buffers.overlaps, first * overlaps..end * overlaps));
        }
        Ok(Some((self.ctx.queue_read(&pieces)?, slots)))
    }

    /// Wait for a submission, and fill the slots copied behind it.
    pub(super) fn finish_submission(
        &mut self,
        (submitted, read): (wgpu::SubmissionIndex, Option<(PendingRead, u32)>),
    ) -> Result<()> {
        match read {
            Some(read) => self.finish_read(read),
            None => self.ctx.wait_for(submitted),
        }
    }

    /// Fill the slots a [`Self::queue_slots`] copied into
    /// [`crate::engine::multispin::SlotsRead`].
    fn finish_read(&mut self, (pending, slots): (PendingRead, u32)) -> Result<()> {
        let started = std::time::Instant::now();
        let words: Vec<u32> = self.ctx.finish_read(pending)?;
        let slots = u64::from(slots - self.read.slots);
        let observation_words = (slots * self.observation_bytes(1) / 4) as usize;
        let (observations, per_pair) = words.split_at(observation_words);
        let per_word: Vec<[u64; 2]> = counter_pairs(observations).collect();
        self.read
            .fill(&self.host.layout, &per_word, per_pair, started.elapsed());
        Ok(())
    }

    /// The plan's measurements: those of its last batches read now, after the earlier ones.
    pub(super) fn read_measured(&mut self, slots: u32) -> Result<Measurements> {
        self.read.mark_beside();
        if let Some(read) = self.queue_slots(slots)? {
            self.finish_read(read)?;
        }
        let mut measurements = std::mem::take(&mut self.read).finish("wgpu");
        if let Some(tempering) = &self.tempering {
            measurements.labels = tempering.read_history(&self.ctx, slots)?;
        }
        Ok(measurements)
    }
}
