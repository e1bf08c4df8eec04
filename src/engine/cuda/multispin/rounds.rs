//! The multispin CUDA engine's parallel-tempering rounds: the swap round's measurement and
//! decisions, and its exchange, made by the paired update of the sweep after it where it can
//! (`multispin_metropolis_pairs`), else by `tempering_exchange`.
#![allow(unsafe_code, reason = "kernel launches are unsafe in cudarc")]

use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::{CudaModule, CudaStream, PushKernelArg};

use super::modules::{
    Counts, DECIDING_BLOCK_SIZE, DECIDING_MOST_COLOUR_WORDS, DECIDING_WORDS_PER_THREAD,
    DecidingPairs, PAIRS_FUNCTION, PairKernels, TALLY_WORDS_PER_THREAD, UpdateKernel,
    runs_per_thread, update_module,
};
use super::{MultispinCudaEngine, PendingRound};
use crate::engine::cuda::driver::driver_error;
use crate::engine::cuda::launch::FittedKernel;
use crate::engine::dispatch::DispatchParams;
use crate::engine::kernels::WordLayout;
use crate::engine::no_tempering;
use crate::engine::tempering::Exchange;
use crate::error::Result;

/// The round slot argument of the paired update for a round its colour 0 does not decide.
const NO_ROUND: u32 = u32::MAX;

impl MultispinCudaEngine {
    /// The paired updates, where the tempering's swap rounds exchange lanes or whole word
    /// systems (not neighbour lanes within words, which pairs of word systems do not hold);
    /// colour 0's from a module compiled with the tempering constants `tempering_constants`
    /// ([`crate::engine::tempering::chain_slice_kernel_constants`]).
    pub(super) fn load_pair_kernels(
        &mut self,
        tempering_constants: &[(&'static str, u32)],
    ) -> Result<Option<PairKernels>> {
        let Some(tempering) = &self.tempering else {
            return Ok(None);
        };
        if tempering.swaps().exchange == Exchange::WithinWords
            || !self.host.layout.bonds_join_the_colours()
        {
            return Ok(None);
        }
        let runs = runs_per_thread(&self.host.layout, DECIDING_WORDS_PER_THREAD);
        let deciding = match self.host.layout.colour_words() <= DECIDING_MOST_COLOUR_WORDS {
            true => {
                let constants = [self.constants.as_slice(), tempering_constants].concat();
                let words = WordLayout::of(&self.host.layout);
                Some(update_module(&mut self.device, words, &constants, 0, (runs, false))?.0)
            }
            false => None,
        };
        let load = |module: &Arc<CudaModule>, block_size| {
            let function = module
                .load_function(PAIRS_FUNCTION)
                .map_err(driver_error("loading kernel multispin_metropolis_pairs"))?;
            FittedKernel::new(function, block_size)
        };
        let tally = self.swap_tally.as_ref();
        let deciding = match deciding {
            Some(module) => Some(DecidingPairs {
                kernel: load(&module, DECIDING_BLOCK_SIZE)?,
                module,
                runs_per_thread: runs,
            }),
            None => None,
        };
        let [colour_0, colour_1] = &self.sweep_modules;
        Ok(Some(PairKernels {
            colours: [
                load(colour_0, self.block_size)?,
                load(colour_1, self.block_size)?,
            ],
            tally: tally
                .map(|tally| load(&tally.module, tally.kernel.block_size))
                .transpose()?,
            deciding,
        }))
    }

    /// The scratch slot that the next swap round counts into, of the two after the plan's own
    /// (`plan_scratch`, the first, as the plan's dispatches name it).
    pub(super) fn round_slot(&self, plan_scratch: u32) -> u32 {
        plan_scratch + self.scratch_flip
    }

    /// Enqueue a swap round: every word system measured into its scratch slot unless the update
    /// before it tallied them (`tallied`), then its decisions, by the swap kernel or by the
    /// paired update of the sweep after it (where there is one, the round has pairs and a round
    /// ran since the tempering state was set); its exchange stays pending where the paired update
    /// can make it, else follows.
    pub(super) fn launch_swap(&mut self, params: &DispatchParams, tallied: bool) -> Result<()> {
        let params = DispatchParams {
            slot: self.round_slot(params.slot),
            ..*params
        };
        self.scratch_flip ^= 1;
        if !tallied {
            self.launch_observe(&params, Counts::Bonds, 0)?;
        }
        let chains = self
            .tempering
            .as_ref()
            .ok_or_else(no_tempering)?
            .swaps()
            .chains;
        let deciding = self
            .pair_kernels
            .as_ref()
            .is_some_and(|kernels| kernels.deciding.is_some());
        // A round of no pairs (two temperatures, odd parity) leaves no paired update to clear
        // its records.
        let decided = !deciding || !self.ends_tracked || chains.round_pairs(params.colour) == 0;
        if decided {
            let tempering = self.tempering.as_mut().ok_or_else(no_tempering)?;
            tempering.launch_swap(&self.device, &params, &mut self.observations)?;
        }
        self.ends_tracked = true;
        self.pending_round = Some(PendingRound { params, decided });
        if self.pair_kernels.is_none() {
            self.flush_exchange()?;
        }
        Ok(())
    }

    /// Enqueue the pending swap round's decisions, if still to make, and its exchange.
    pub(super) fn flush_exchange(&mut self) -> Result<()> {
        let (Some(round), Some(tempering)) = (self.pending_round.take(), &mut self.tempering)
        else {
            return Ok(());
        };
        if !round.decided {
            tempering.launch_swap(&self.device, &round.params, &mut self.observations)?;
        }
        tempering.launch_exchange(&self.device, &round.params, &mut self.spins)
    }

    /// The pending swap round where `sweeps` begin with a whole sweep (colour 0, then 1, each of
    /// every thread), whose paired update then makes its exchange; otherwise (pieces of a sweep,
    /// [`crate::engine::Step::Part`]) its exchange is enqueued now.
    pub(super) fn take_pending_round(
        &mut self,
        sweeps: &[&DispatchParams],
    ) -> Result<Option<PendingRound>> {
        if let [first, second, ..] = sweeps
            && (first.colour, second.colour) == (0, 1)
            && (first.threads, second.threads) == (0, 0)
        {
            return Ok(self.pending_round.take());
        }
        self.flush_exchange()?;
        Ok(None)
    }

    /// Enqueue the sweep `sweeps` (colours 0 and 1) after swap round `round` with its exchange
    /// applied on load: pairs (k, k + 1) of the round by the paired update, the temperatures in
    /// no pair (below the round's parity, and the last of an odd count) by the plain one. The
    /// paired update's colour 0 decides the round where the swap kernel did not, after the
    /// streams join (its pairs read what both streams' last sweep wrote). The colour-1 update
    /// tallies the next round into scratch slot `tally` where there is one.
    /// The unpaired temperatures go first, one range a stream, beside the other streams' pairs,
    /// rather than last on the first stream, four short launches in a row while the other
    /// stream had finished (3D EA on an H200, one run each: L = 16 0.616 -> 0.613 ps/flip
    /// packed, 0.692 -> 0.685 exact; L = 32 0.518 -> 0.516 and 0.596 -> 0.595).
    pub(super) fn launch_paired_sweep(
        &self,
        round: &PendingRound,
        sweeps: &[&DispatchParams],
        tally: Option<u32>,
    ) -> Result<()> {
        let tempering = self.tempering.as_ref().ok_or_else(no_tempering)?;
        let (temperatures, groups) = (
            tempering.swaps().chains.temperatures,
            tempering.swaps().groups,
        );
        if !round.decided {
            self.sweep_streams.join()?;
        }
        let parity = round.params.colour;
        let pairs = tempering.swaps().chains.round_pairs(parity);
        let tally_on = |params: &DispatchParams| tally.filter(|_| params.colour == 1);
        let unpaired = [0..parity, parity + 2 * pairs..temperatures];
        let unpaired = unpaired.into_iter().filter(|range| !range.is_empty());
        for (range, stream) in unpaired.zip(self.sweep_streams.streams().cycle()) {
            for params in sweeps {
                let (params, kernel) = self.update_kernel(params, tally_on(params));
                let systems = range.start * groups..range.end * groups;
                self.launch_sweep(stream, systems, &params, kernel)?;
            }
        }
        for streams in self.sweep_streams.unit_rounds(pairs * groups, 2) {
            for params in sweeps {
                let (params, kernel) = self.pair_kernel(params, tally_on(params), round);
                for (stream, units) in streams.iter().filter(|(_, units)| !units.is_empty()) {
                    self.launch_pairs(stream, units.clone(), &params, kernel, round)?;
                }
            }
        }
        Ok(())
    }

    /// The paired update of `params.colour` after `round` (colour 0's deciding the round where
    /// the swap kernel did not), or the tally's into scratch slot `slot`.
    fn pair_kernel(
        &self,
        params: &DispatchParams,
        tally: Option<u32>,
        round: &PendingRound,
    ) -> (DispatchParams, UpdateKernel<'_>) {
        let kernels = self
            .pair_kernels
            .as_ref()
            .expect("paired updates only with their kernels");
        let deciding = kernels.deciding.as_ref().filter(|_| !round.decided);
        let (params, kernel, runs_per_thread) = match (tally, &kernels.tally, deciding) {
            (Some(slot), Some(kernel), _) => (
                DispatchParams { slot, ..*params },
                kernel,
                runs_per_thread(&self.host.layout, TALLY_WORDS_PER_THREAD),
            ),
            (_, _, Some(deciding)) if params.colour == 0 => {
                (*params, &deciding.kernel, deciding.runs_per_thread)
            }
            _ => (*params, &kernels.colours[params.colour as usize], 1),
        };
        let kernel = UpdateKernel {
            function: &kernel.function,
            block_size: kernel.block_size,
            runs_per_thread,
        };
        (params, kernel)
    }

    /// Enqueue the paired update of pair units `units` (see [`PAIRS_FUNCTION`]) on `stream`
    /// with `kernel`, after swap round `round`.
    fn launch_pairs(
        &self,
        stream: &CudaStream,
        units: Range<u32>,
        params: &DispatchParams,
        kernel: UpdateKernel<'_>,
        round: &PendingRound,
    ) -> Result<()> {
        let tempering = self.tempering.as_ref().ok_or_else(no_tempering)?;
        let layers = (&units.start, units.len() as u32);
        let (mut launch, config) = self.update_launch(stream, params, layers, kernel);
        let (groups, parity) = (&tempering.swaps().groups, &round.params.colour);
        let round_slot = match round.decided {
            true => NO_ROUND,
            false => round.params.slot,
        };
        let (tables, state) = tempering.round_buffers();
        launch
            .arg(tempering.masks())
            .arg(groups)
            .arg(parity)
            .arg(&round_slot)
            .arg(&round.params.sweep)
            .arg(tables)
            .arg(state);
        // SAFETY: the arguments match multispin_metropolis_pairs's parameters in order and type
        // (multispin_metropolis's, with the first pair unit for the first word system, then the
        // `unsigned` masks, the groups, parity, round slot and round sweep by value, and the
        // `unsigned` swap tables and tempering state). Each unit's word systems (k groups + q
        // and the next temperature's, k + 1 < the temperatures) are in the spin buffer, their
        // masks and chain sets' state in the tempering's, and a round slot names one of the two
        // scratch slots `clear_measurements` sized (the kernel writes the masks, state and
        // records of its own units alone); the rest as in `launch_sweep`.
        unsafe { launch.launch(config) }
            .map_err(driver_error("launching kernel multispin_metropolis_pairs"))?;
        Ok(())
    }
}
