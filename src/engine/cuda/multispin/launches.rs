//! The multispin CUDA engine's launches: a batch of a plan's dispatches split into segments
//! (the sweeps up to a measurement or a swap round), their updates group by group of word
//! systems on the sweep streams, and the measurements' kernels.
#![allow(unsafe_code, reason = "kernel launches are unsafe in cudarc")]

use std::ops::Range;

use cudarc::driver::{CudaStream, LaunchArgs, LaunchConfig, PushKernelArg};

use super::MultispinCudaEngine;
use super::modules::{Counts, SwapTally, TALLY_WORDS_PER_THREAD, UpdateKernel, runs_per_thread};
use crate::engine::cuda::context::CudaDevice;
use crate::engine::cuda::driver::driver_error;
use crate::engine::cuda::launch::{Launches, launch_config, launch_layers};
use crate::engine::dispatch::{Dispatch, DispatchParams, measured_slots, swap_tally};
use crate::engine::multispin::MultispinLayout;
use crate::error::Result;

impl MultispinCudaEngine {
    /// The launch of update `kernel` on `stream` over `layers` layers (z: word systems, or the
    /// paired update's pair units) from `first` on, with the arguments every update takes, and
    /// its configuration.
    pub(super) fn update_launch<'a>(
        &'a self,
        stream: &'a CudaStream,
        params: &'a DispatchParams,
        (first, layers): (&'a u32, u32),
        kernel: UpdateKernel<'a>,
    ) -> (LaunchArgs<'a>, LaunchConfig) {
        let runs = params.update_threads(self.host.layout.update_threads());
        let threads = runs.div_ceil(kernel.runs_per_thread);
        let config = launch_config(&self.device, kernel.block_size, threads.into(), layers);
        let mut launch = stream.launch_builder(kernel.function);
        launch
            .arg(params)
            .arg(first)
            .arg(&self.spins)
            .arg(&self.thresholds)
            .arg(&self.couplings)
            .arg(&self.observations);
        (launch, config)
    }

    /// Enqueue the update of colour `params.colour` of word systems `systems` on `stream` with
    /// `kernel` (see [`Self::update_kernel`]), in launches of at most the device's grid z.
    pub(super) fn launch_sweep(
        &self,
        stream: &CudaStream,
        systems: Range<u32>,
        params: &DispatchParams,
        kernel: UpdateKernel<'_>,
    ) -> Result<()> {
        let most = self.device.max_grid[2];
        for first in systems.clone().step_by(most as usize) {
            let layers = (&first, most.min(systems.end - first));
            let (mut launch, config) = self.update_launch(stream, params, layers, kernel);
            // SAFETY: the arguments match multispin_metropolis's parameters in order and type
            // (DispatchParams by value, the first word system, then `unsigned` pointers and the
            // `unsigned long long` observations). The kernel stays in bounds: threads past the
            // colour's words update nothing, z counts word systems of `systems`, which the spin
            // buffer holds, and the threshold tables (here or in the module's constant memory)
            // and couplings are those of this layout; a tally adds to the records of slot
            // `params.slot`, which `clear_measurements` sized. Concurrent launches on other
            // streams write other word systems and records.
            unsafe { launch.launch(config) }
                .map_err(driver_error("launching kernel multispin_metropolis"))?;
        }
        Ok(())
    }

    /// Enqueue the measurement of every word system into slot `params.slot`, with the overlaps
    /// and the temperature history where there are any; its satisfied bonds from the records of
    /// scratch slot `tallied` where the update before it tallied them.
    fn launch_measure(&mut self, params: &DispatchParams, tallied: Option<u32>) -> Result<()> {
        match tallied {
            Some(records) => self.launch_observe(params, Counts::UpSpins, records)?,
            None => self.launch_observe(params, Counts::Both, 0)?,
        }
        if let Some(tempering) = &mut self.tempering {
            tempering.launch_history(&self.device, params)?;
        }
        let layout = &self.host.layout;
        let stream = &self.device.stream;
        if let Some(overlap) = &self.overlap_kernel {
            let pairs = layout.overlap_word_pairs().len() as u32;
            let config = launch_config(
                &self.device,
                overlap.block_size,
                layout.strips().into(),
                pairs,
            );
            let (spins, overlaps) = (&self.spins, &mut self.overlaps);
            launch_layers(&self.device, (params, config), |params, config| {
                let mut launch = stream.launch_builder(&overlap.function);
                launch.arg(params).arg(spins).arg(&mut *overlaps);
                // SAFETY: the arguments match multispin_overlap's parameters in order and
                // type (DispatchParams, `unsigned` spins and overlaps). Threads past the last
                // strip return, the piece's layers from `params.first_layer` are overlap pairs
                // of this layout, and `clear_measurements` sized the overlaps for this plan's
                // slots and pairs.
                unsafe { launch.launch(config) }
                    .map_err(driver_error("launching kernel multispin_overlap"))?;
                Ok(())
            })?;
        }
        Ok(())
    }

    /// The update of the pass `params.colour` (the module of its colour), or the swap round's
    /// tally into the scratch slot `slot`.
    pub(super) fn update_kernel(
        &self,
        params: &DispatchParams,
        tally: Option<u32>,
    ) -> (DispatchParams, UpdateKernel<'_>) {
        match (tally, &self.swap_tally) {
            (Some(slot), Some(SwapTally { kernel, .. })) => {
                let update = UpdateKernel {
                    function: &kernel.function,
                    block_size: kernel.block_size,
                    runs_per_thread: runs_per_thread(&self.host.layout, TALLY_WORDS_PER_THREAD),
                };
                (DispatchParams { slot, ..*params }, update)
            }
            _ => (
                *params,
                self.sweep_kernel(MultispinLayout::pass_colour(params.colour)),
            ),
        }
    }

    /// The plain update of `colour`.
    pub(super) fn sweep_kernel(&self, colour: u32) -> UpdateKernel<'_> {
        UpdateKernel {
            function: &self.sweep_kernels[colour as usize],
            block_size: self.block_size,
            runs_per_thread: 1,
        }
    }

    /// Enqueue the observables `counts` of every word system into slot `params.slot` (the
    /// satisfied bonds of [`Counts::UpSpins`] from the records of slot `records`), with the
    /// kernel for them where the engine has one, else counting both.
    pub(super) fn launch_observe(
        &mut self,
        params: &DispatchParams,
        counts: Counts,
        records: u32,
    ) -> Result<()> {
        let kernel = match counts {
            Counts::Bonds => self.swap_observe_kernel.as_ref(),
            Counts::UpSpins => self.tallied_observe_kernel.as_ref(),
            Counts::Both => None,
        };
        let kernel = kernel.unwrap_or(&self.observe_kernel);
        let layout = &self.host.layout;
        let stream = &self.device.stream;
        let config = launch_config(
            &self.device,
            kernel.block_size,
            layout.strips().into(),
            layout.word_systems(),
        );
        let (spins, couplings, observations) =
            (&self.spins, &self.couplings, &mut self.observations);
        launch_layers(&self.device, (params, config), |params, config| {
            let mut launch = stream.launch_builder(&kernel.function);
            launch
                .arg(params)
                .arg(spins)
                .arg(couplings)
                .arg(&mut *observations)
                .arg(&records);
            // SAFETY: the arguments match multispin_observables's parameters in order and
            // type (DispatchParams, `unsigned` spins and couplings, `unsigned long long`
            // observations, the records' slot by value). Threads past the last strip only add
            // their block's sums, the piece's layers from `params.first_layer` are word systems
            // of this layout, and `clear_measurements` sized the observations for this plan's
            // slots and the scratch slot after them, which `records` names where it is read.
            unsafe { launch.launch(config) }
                .map_err(driver_error("launching kernel multispin_observables"))?;
            Ok(())
        })
    }

    /// The scratch slot ([`Self::round_slot`]) of the swap round that the sweeps of a segment
    /// ending at `end` (the measurement or round after them) tally, where the engine has the
    /// tally and their last dispatch is a colour-1 update that can ([`swap_tally`]).
    fn swap_tally_slot(&self, batch: &[Dispatch], end: usize) -> Option<u32> {
        let update = end.checked_sub(2)?;
        self.swap_tally.as_ref()?;
        swap_tally(&batch[update..]).map(|(_, slot)| self.round_slot(slot))
    }
}

impl Launches for MultispinCudaEngine {
    fn device(&self) -> &CudaDevice {
        &self.device
    }

    fn part_threads(&self, pass: u32, planes: Range<u32>) -> Range<u32> {
        self.host.layout.plane_threads(pass, planes)
    }

    fn sweep_passes(&self) -> u32 {
        self.host.layout.sweep_passes()
    }

    /// Read what `batch` measured while the next batch runs (not for populations counted as
    /// histograms, which the plan's end reads).
    fn batch_done(&mut self, batch: &[Dispatch]) -> Result<()> {
        match (measured_slots(batch), self.host.count_populations) {
            (Some(slots), false) => self.read_slots(slots),
            _ => Ok(()),
        }
    }

    /// The sweeps between two measurements or swap rounds go group by group of word systems
    /// (see [`crate::engine::cuda::streams::SystemStreams`]), each group's in order; measurements
    /// and swap rounds cover every word system.
    fn launch_batch(&mut self, batch: &[Dispatch]) -> Result<()> {
        let ends_segment = |d: &Dispatch| matches!(d, Dispatch::Measure(_) | Dispatch::Swap(_));
        // The scratch slot of the round that the last sweeps tallied, until the round.
        let mut tallied = None;
        let mut end = 0;
        for segment in batch.split_inclusive(ends_segment) {
            end += segment.len();
            let sweeps: Vec<&DispatchParams> = segment
                .iter()
                .filter_map(|d| match d {
                    Dispatch::Sweep(params) => Some(params),
                    // Cluster steps are refused before any launch
                    // (`engine::backend::multispin::execute`).
                    Dispatch::Measure(_) | Dispatch::Swap(_) | Dispatch::Cluster(_) => None,
                })
                .collect();
            if !sweeps.is_empty() {
                tallied = self.swap_tally_slot(batch, end);
            }
            let last_tally = |k: usize| tallied.filter(|_| k + 1 == sweeps.len());
            // The first sweep after a swap round makes its exchange (pairs of colour dispatches).
            let paired = match self.take_pending_round(&sweeps)? {
                Some(round) => {
                    self.launch_paired_sweep(&round, &sweeps[..2], last_tally(1))?;
                    // Its pairs went to other streams than the groups of the sweeps after it.
                    if sweeps.len() > 2 {
                        self.sweep_streams.join()?;
                    }
                    2
                }
                None => 0,
            };
            for round in self.sweep_streams.rounds() {
                for (k, params) in sweeps.iter().enumerate().skip(paired) {
                    let (params, kernel) = self.update_kernel(params, last_tally(k));
                    for (stream, systems) in &round {
                        self.launch_sweep(stream, systems.clone(), &params, kernel)?;
                    }
                }
            }
            match segment.last() {
                Some(Dispatch::Measure(params)) => self.launch_measure(params, tallied)?,
                Some(Dispatch::Swap(params)) => {
                    self.launch_swap(params, tallied.take().is_some())?;
                }
                _ => {}
            }
        }
        Ok(())
    }
}
