//! The multispin wgpu engine's launches: the kernels each dispatch of a submission runs, with
//! their grids, the colour-1 updates that tally the swap round after them, the sweeps that make
//! the exchange of the round before them, and the submission.

use super::MultispinWgpuEngine;
use crate::engine::dispatch::{Dispatch, DispatchParams, NO_SLOT, pair_rounds, swap_tally};
use crate::engine::multispin::RUNS_PER_TALLY_THREAD;
use crate::engine::wgpu::launch::{Grid, Launches};
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
            (Dispatch::Sweep(params), _) => vec![self.update(params, tally, words)],
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

    /// The plain update of sweep dispatch `params` (the tally's where `tally`) over `systems`
    /// word systems from its first layer on.
    fn update(
        &self,
        params: &DispatchParams,
        tally: bool,
        systems: u32,
    ) -> (&wgpu::ComputePipeline, Grid) {
        let layout = &self.host.layout;
        let (pipeline, threads) = match (tally, &self.swap_tally) {
            (true, Some(swap_tally)) => (
                swap_tally,
                layout.update_threads().div_ceil(RUNS_PER_TALLY_THREAD),
            ),
            _ => (&self.sweep, params.update_threads(layout.update_threads())),
        };
        let grid = self.dispatcher.grid(&self.ctx, u64::from(threads), systems);
        (pipeline, grid)
    }

    /// The dispatches of a sweep pass that makes the exchange of the swap round before it
    /// (`params.paired_round`; its tally where `tally`): the plain update of the temperatures in
    /// no pair of the round (below its parity, and the last of an odd count), a dispatch per
    /// range from its first word system on, then the paired update of the round's pairs, a
    /// grid layer per pair (which adds no tally where `tally` is not set: `slot` [`NO_SLOT`]).
    fn paired_sweep(&self, params: &DispatchParams, tally: bool) -> Vec<(Dispatch, Launches<'_>)> {
        let (pairs, tempering) = (self.pairs.as_ref(), self.tempering.as_ref());
        let (paired, swaps) = pairs
            .zip(tempering.map(WgpuTempering::swaps))
            .expect("paired sweeps only with their kernels");
        let (parity, groups) = (params.paired_round - 1, swaps.groups);
        let pairs = swaps.chains.round_pairs(parity);
        let unpaired = [0..parity, parity + 2 * pairs..swaps.chains.temperatures];
        let mut launches: Vec<_> = (unpaired.into_iter())
            .filter(|range| !range.is_empty())
            .map(|range| {
                let plain = DispatchParams {
                    paired_round: 0,
                    first_layer: range.start * groups,
                    ..*params
                };
                let systems = range.len() as u32 * groups;
                (
                    Dispatch::Sweep(plain),
                    vec![self.update(&plain, tally, systems)],
                )
            })
            .collect();
        if pairs > 0 {
            let threads = self.host.layout.update_threads();
            let threads = match paired.tallies {
                true => threads.div_ceil(RUNS_PER_TALLY_THREAD),
                false => threads,
            };
            let params = DispatchParams {
                slot: if tally { params.slot } else { NO_SLOT },
                ..*params
            };
            let grid = self
                .dispatcher
                .grid(&self.ctx, u64::from(threads), pairs * groups);
            launches.push((Dispatch::Sweep(params), vec![(&paired.pipeline, grid)]));
        }
        launches
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
        let (mut dispatches, tallies) = self.with_tallies(dispatches);
        if self.pairs.is_some() {
            pair_rounds(&mut dispatches);
        }
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
        let mut launches = Vec::with_capacity(dispatches.len());
        for (d, tally) in dispatches.iter().zip(tallies) {
            match d {
                Dispatch::Sweep(params) if params.paired_round != 0 => {
                    launches.extend(self.paired_sweep(params, tally));
                }
                _ => launches.push((*d, self.kernels(d, tally))),
            }
        }
        (self.dispatcher).enqueue_layered(
            &self.ctx,
            &buffers.bind_group,
            tempering,
            &launches,
            &clear,
        )
    }
}
