//! Parallel tempering on a CUDA device, shared by the simple and multispin engines: kernels
//! `tempering_swap`, `tempering_exchange` and `tempering_history`, the twins of the WGSL ones
//! (see `engine::wgpu::tempering`). A swap round follows the engine's measurement of every system
//! into the scratch slot; all three run on the device's default stream, ordered after the
//! sweeps of the blocking streams.
#![allow(
    unsafe_code,
    reason = "kernel launches and passing DispatchParams by value are unsafe in cudarc"
)]

use cudarc::driver::{CudaFunction, CudaSlice, DeviceRepr, PushKernelArg};

use super::context::CudaDevice;
use super::driver::driver_error;
use super::launch::{allocate, check_fits, download, launch_config, upload};
use crate::engine::check_tempering_state;
use crate::engine::dispatch::DispatchParams;
use crate::engine::kernels::{Kernel, KernelEngine};
use crate::engine::tempering::{Records, SwapLayout, UNIT_THREADS, kernel_constants, swap_tables};
use crate::error::Result;
use crate::model::ising::IsingSystems;

/// The tempering buffers and kernels of a CUDA engine.
pub struct CudaTempering {
    swaps: SwapLayout,
    records: Records,
    block_size: u32,
    tables: CudaSlice<u32>,
    state: CudaSlice<u32>,
    masks: CudaSlice<u32>,
    /// `[slot][r][k]`, grown to the largest plan seen.
    history: CudaSlice<u32>,
    /// In blocks of one warp, one per unit of the round (see tempering_swap.cu).
    swap: CudaFunction,
    exchange: CudaFunction,
    record_history: CudaFunction,
}

impl CudaTempering {
    /// Upload `state` and the swap tables of `systems`; compile the kernels.
    pub fn new(
        device: &mut CudaDevice,
        systems: &IsingSystems,
        swaps: SwapLayout,
        (engine, records): (KernelEngine, Records),
        state: &[u32],
        block_size: u32,
    ) -> Result<Self> {
        check_tempering_state(systems, state)?;
        // Its kernels launch every (word) system at once.
        check_fits(device, block_size, records.systems(), "(word) systems")?;
        check_fits(
            device,
            block_size,
            swaps.groups,
            "groups of tempering chains",
        )?;
        let constants = kernel_constants(&swaps, &records);
        let swap = device.function(Kernel::TemperingSwap(engine), &constants)?;
        let exchange = device.function(Kernel::TemperingExchange(engine), &constants)?;
        let record_history = device.function(Kernel::TemperingHistory(engine), &constants)?;
        Ok(CudaTempering {
            tables: upload(device, &swap_tables(systems)?, "swap tables")?,
            state: upload(device, state, "tempering state")?,
            masks: allocate(device, swaps.mask_words(), "swap masks")?,
            history: allocate(device, 1, "temperature history")?,
            swaps,
            records,
            block_size,
            swap,
            exchange,
            record_history,
        })
    }

    /// Words of the history of one measurement.
    fn history_words(&self) -> usize {
        self.swaps.replicas as usize * self.swaps.chains.temperatures as usize
    }

    /// Room in the history for `slots` measurements.
    pub fn ensure_history(&mut self, device: &CudaDevice, slots: u32) -> Result<()> {
        let needed = slots as usize * self.history_words();
        if self.history.len() < needed {
            self.history = allocate(device, needed, "temperature history")?;
        }
        Ok(())
    }

    /// Enqueue a swap round's decisions from the counts in the scratch slot `params.slot` of
    /// `observations`; the exchanges of the spins follow ([`Self::launch_exchange`], or the
    /// multispin engine's paired update).
    pub fn launch_swap(
        &mut self,
        device: &CudaDevice,
        params: &DispatchParams,
        observations: &mut CudaSlice<u64>,
    ) -> Result<()> {
        let config = launch_config(
            device,
            UNIT_THREADS,
            u64::from(self.swaps.round_units()) * u64::from(UNIT_THREADS),
            1,
        );
        let mut launch = device.stream.launch_builder(&self.swap);
        launch
            .arg(params)
            .arg(observations)
            .arg(&self.tables)
            .arg(&mut self.state)
            .arg(&mut self.masks);
        // SAFETY: the arguments match tempering_swap's parameters in order and type
        // (DispatchParams by value, `unsigned long long` observations, `unsigned` tables, state
        // and masks). A warp per unit of the round, past the last unit none; each stays within
        // its unit's pairs, lanes and records. The engine sized the observations for the
        // scratch slot `params.slot` (SLOT_RECORDS records of two counters each), and the state
        // and masks for these chains.
        unsafe { launch.launch(config) }
            .map_err(driver_error("launching kernel tempering_swap"))?;
        Ok(())
    }

    /// Enqueue the spin exchanges of the swap round `params` (after its decisions).
    pub fn launch_exchange<T: DeviceRepr>(
        &self,
        device: &CudaDevice,
        params: &DispatchParams,
        spins: &mut CudaSlice<T>,
    ) -> Result<()> {
        let words = self.records.system_words;
        let config = launch_config(device, self.block_size, words.into(), self.swaps.groups);
        let mut launch = device.stream.launch_builder(&self.exchange);
        launch.arg(params).arg(spins).arg(&self.masks);
        // SAFETY: the arguments match tempering_exchange's parameters (DispatchParams, the spins
        // as `unsigned` words, whatever their element type, and the masks). Threads past the
        // words of a system return; z counts the groups, whose systems the spin buffer holds.
        unsafe { launch.launch(config) }
            .map_err(driver_error("launching kernel tempering_exchange"))?;
        Ok(())
    }

    /// The swap tables and the state, for the paired update that decides a round.
    pub fn round_buffers(&self) -> (&CudaSlice<u32>, &CudaSlice<u32>) {
        (&self.tables, &self.state)
    }

    /// The exchange masks of the last swap round of each parity, `[k][q]`.
    pub fn masks(&self) -> &CudaSlice<u32> {
        &self.masks
    }

    /// The swap layout.
    pub fn swaps(&self) -> &SwapLayout {
        &self.swaps
    }

    /// Enqueue the copy of the labels of sample 0's chains into history slot `params.slot`.
    pub fn launch_history(&mut self, device: &CudaDevice, params: &DispatchParams) -> Result<()> {
        let words = self.history_words() as u64;
        let config = launch_config(device, self.block_size, words, 1);
        let mut launch = device.stream.launch_builder(&self.record_history);
        launch.arg(params).arg(&self.state).arg(&mut self.history);
        // SAFETY: the arguments match tempering_history's parameters (DispatchParams, `unsigned`
        // state and history); `ensure_history` sized the history for this plan's slots.
        unsafe { launch.launch(config) }
            .map_err(driver_error("launching kernel tempering_history"))?;
        Ok(())
    }

    /// The state (see [`crate::engine::tempering`]).
    pub fn read_state(&self, device: &CudaDevice) -> Result<Vec<u32>> {
        download(device, &self.state, "tempering state")
    }

    /// The history of the first `slots` measurements of a plan.
    pub fn read_history(&self, device: &CudaDevice, slots: u32) -> Result<Vec<u32>> {
        let mut history = download(device, &self.history, "temperature history")?;
        history.truncate(slots as usize * self.history_words());
        Ok(history)
    }
}
