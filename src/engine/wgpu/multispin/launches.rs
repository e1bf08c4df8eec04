//! The multispin wgpu engine's launches: the kernels each dispatch of a submission runs, with
//! their grids, the colour-1 updates that tally the swap round after them, and the submission.

use super::MultispinWgpuEngine;
use crate::engine::dispatch::{Dispatch, swap_tally};
use crate::engine::multispin::RUNS_PER_TALLY_THREAD;
use crate::engine::wgpu::launch::Launches;
use crate::engine::wgpu::tempering::WgpuTempering;

impl MultispinWgpuEngine {
    /// The kernels a dispatch runs, with their grids: a swap round measures every word system
    /// into the scratch slot before the tempering kernels decide, unless the update before it
    /// tallied them ([`crate::engine::multispin::TALLY_RUNS`]): `tally` says whether this
    /// dispatch is such an update or such a round ([`Self::with_tallies`]).
    fn kernels(&self, dispatch: &Dispatch, tally: bool) -> Launches<'_> {
        let layout = &self.host.layout;
        let words = layout.word_systems();
        let strips = u64::from(layout.strips());
        let observe = (
            &self.observe,
            self.dispatcher.grid(&self.ctx, strips, words),
        );
        let mut kernels = match (dispatch, &self.swap_tally) {
            (Dispatch::Sweep(_), Some(swap_tally)) if tally => {
                let threads = layout.update_threads().div_ceil(RUNS_PER_TALLY_THREAD);
                let grid = self.dispatcher.grid(&self.ctx, u64::from(threads), words);
                vec![(swap_tally, grid)]
            }
            (d @ Dispatch::Sweep(_), _) => {
                let threads = d.params().update_threads(layout.update_threads());
                let grid = self.dispatcher.grid(&self.ctx, u64::from(threads), words);
                vec![(&self.sweep, grid)]
            }
            (Dispatch::Measure(_), _) => {
                let mut kernels = vec![observe];
                if let Some(overlap) = &self.overlap {
                    let pairs = layout.overlap_word_pairs().len() as u32;
                    kernels.push((overlap, self.dispatcher.grid(&self.ctx, strips, pairs)));
                }
                kernels
            }
            // Refused before any launch (`engine::backend::multispin::execute`).
            (Dispatch::Cluster(_), _) => Vec::new(),
            (Dispatch::Swap(_), _) if tally => Vec::new(),
            (Dispatch::Swap(_), _) => {
                let pipeline = self.swap_observe.as_ref().unwrap_or(&self.observe);
                vec![(pipeline, observe.1)]
            }
        };
        if let Some(tempering) = &self.tempering {
            kernels.extend(tempering.kernels(&self.ctx, &self.dispatcher, dispatch));
        }
        kernels
    }

    /// `dispatches` with the colour-1 updates before swap rounds that tally those rounds' counts
    /// (where the engine has the tally; [`swap_tally`]) moved to the rounds' scratch slots, and
    /// for each dispatch whether it tallies (an update) or was tallied (a round).
    fn with_tallies(&self, dispatches: &[Dispatch]) -> (Vec<Dispatch>, Vec<bool>) {
        let mut tallies = vec![false; dispatches.len()];
        let mut dispatches = dispatches.to_vec();
        if self.swap_tally.is_some() {
            for i in 0..dispatches.len() {
                if let Some((round, slot)) = swap_tally(&dispatches[i..])
                    && let Dispatch::Sweep(params) = &mut dispatches[i]
                {
                    params.slot = slot;
                    tallies[i] = true;
                    tallies[i + round] = true;
                }
            }
        }
        (dispatches, tallies)
    }

    /// Submit `dispatches` (clearing the measurements first where `clear`) without waiting, their
    /// grids in pieces where they hold more word systems or pairs than the adapter's grid takes
    /// along z ([`crate::engine::wgpu::launch::Dispatcher::enqueue_layered`]).
    pub(super) fn enqueue(&self, dispatches: &[Dispatch], clear: bool) -> wgpu::SubmissionIndex {
        let (dispatches, tallies) = self.with_tallies(dispatches);
        let buffers = self
            .measurements
            .as_ref()
            .expect("ensured before submitting");
        let clear: Vec<&wgpu::Buffer> = match (clear, &self.overlap) {
            (false, _) => Vec::new(),
            (true, Some(_)) => vec![&buffers.observations, &buffers.overlaps],
            (true, None) => vec![&buffers.observations],
        };
        let tempering = self.tempering.as_ref().map(WgpuTempering::bind_group);
        let launches: Vec<_> = (dispatches.iter().zip(tallies))
            .map(|(d, tally)| (*d, self.kernels(d, tally)))
            .collect();
        (self.dispatcher).enqueue_layered(
            &self.ctx,
            &buffers.bind_group,
            tempering,
            &launches,
            &clear,
        )
    }
}
