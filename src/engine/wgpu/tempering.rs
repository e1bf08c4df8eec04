//! Parallel tempering on a wgpu device, shared by the simple and multispin engines: kernels
//! `tempering_swap` (decisions, labels, counters, masks; the spins of accepted pairs where
//! systems are small), `tempering_exchange` (the spins of accepted pairs of larger systems) and
//! `tempering_history` (the labels at a measurement). Their group 1 holds the swap tables, the
//! state, the masks and the history; group 0 is the engine's own.
//!
//! A swap dispatch runs the engine's observables kernel into the scratch slot (the first past
//! the plan's slots) unless the update before it tallied the round, then the swap kernel, a
//! workgroup per unit of the round ([`SwapLayout::group_units`]), and the exchange kernel
//! unless the swap kernel exchanged; the swap kernel clears the scratch records after reading
//! them, so every round counts from zero.

use super::context::{WgpuContext, storage_usage};
use super::launch::{Dispatcher, Grid};
use super::shaders::Bindings;
use crate::engine::check_tempering_state;
use crate::engine::dispatch::Dispatch;
use crate::engine::kernels::{Kernel, KernelEngine};
use crate::engine::tempering::{Records, SwapLayout, UNIT_THREADS, kernel_constants, swap_tables};
use crate::error::{Error, Result};
use crate::model::ising::IsingSystems;

/// Words of a (word) system up to which each unit of the swap kernel also exchanges its pairs'
/// spins instead of `tempering_exchange`: one workgroup streams them, which costs less than a
/// second kernel over every system while systems are small (3D spin glass, 32 temperatures, 64
/// groups, H200, ps/flip with a round every sweep: 0.720 -> 0.697 at L = 16, 4096 words; 0.734
/// -> 0.708 at L = 24, 13824 words; 0.638 -> 0.643 at L = 32, 32768 words; with the swap
/// kernel's exchange eight words at a time, H100: 0.823 -> 0.828 at L = 32).
const SWAP_EXCHANGING_MOST_WORDS: u32 = 16384;

/// Invocations of a swap kernel's workgroup: a unit's 32 decisions, and with the exchanges
/// more to stream the words.
fn unit_size(swap_exchanges: bool) -> u32 {
    match swap_exchanges {
        true => 256,
        false => UNIT_THREADS,
    }
}

/// The tempering buffers and kernels of a wgpu engine.
pub struct WgpuTempering {
    swaps: SwapLayout,
    engine: KernelEngine,
    records: Records,
    tables: wgpu::Buffer,
    state: wgpu::Buffer,
    masks: wgpu::Buffer,
    /// `[slot][r][k]` with room for `history_slots` measurements.
    history: wgpu::Buffer,
    history_slots: u32,
    bind_group: wgpu::BindGroup,
    swap: wgpu::ComputePipeline,
    /// Whether the swap kernel exchanges the spins too ([`SWAP_EXCHANGING_MOST_WORDS`]).
    swap_exchanges: bool,
    exchange: wgpu::ComputePipeline,
    record_history: wgpu::ComputePipeline,
}

impl WgpuTempering {
    /// Upload `state` and the swap tables of `systems`; compile the kernels.
    pub fn new(
        ctx: &mut WgpuContext,
        systems: &IsingSystems,
        swaps: SwapLayout,
        (engine, records): (KernelEngine, Records),
        state: &[u32],
        workgroup_size: u32,
    ) -> Result<Self> {
        check_tempering_state(systems, state)?;
        // Its kernels launch every (word) system at once.
        ctx.check_tempering_systems(records.systems())?;
        let max_groups = ctx.limits.max_compute_workgroups_per_dimension;
        if swaps.groups > max_groups {
            return Err(Error::Limits(format!(
                "tempering: {} groups of chains exceed the {max_groups} workgroups of one \
                 dispatch dimension; use fewer samples or replicas",
                swaps.groups
            )));
        }
        let swap_exchanges = records.system_words <= SWAP_EXCHANGING_MOST_WORDS;
        let mut constants = kernel_constants(&swaps, &records);
        constants.push(("WG_SIZE", workgroup_size));
        constants.push(("SWAP_EXCHANGES", u32::from(swap_exchanges)));
        constants.push(("UNIT_SIZE", unit_size(swap_exchanges)));
        let swap = ctx
            .pipeline(Kernel::TemperingSwap(engine), &constants)?
            .clone();
        let exchange = ctx
            .pipeline(Kernel::TemperingExchange(engine), &constants)?
            .clone();
        let record_history = ctx
            .pipeline(Kernel::TemperingHistory(engine), &constants)?
            .clone();
        let tables = ctx.upload("swap tables", &swap_tables(systems)?)?;
        let state = ctx.upload("tempering state", state)?;
        let masks = ctx.buffer("swap masks", 4 * swaps.mask_words() as u64, storage_usage())?;
        let history = ctx.buffer("temperature history", 4, storage_usage())?;
        let bind_group = bind_group(ctx, engine, [&tables, &state, &masks, &history]);
        Ok(WgpuTempering {
            swaps,
            engine,
            records,
            tables,
            state,
            masks,
            history,
            history_slots: 0,
            bind_group,
            swap,
            swap_exchanges,
            exchange,
            record_history,
        })
    }

    /// Group 1 of the tempering kernels.
    pub fn bind_group(&self) -> &wgpu::BindGroup {
        &self.bind_group
    }

    /// Words of the history of one measurement.
    fn history_words(&self) -> u64 {
        u64::from(self.swaps.replicas) * u64::from(self.swaps.chains.temperatures)
    }

    /// Room in the history for `slots` measurements.
    pub fn ensure_history(&mut self, ctx: &WgpuContext, slots: u32) -> Result<()> {
        if slots <= self.history_slots {
            return Ok(());
        }
        let bytes = 4 * self.history_words() * u64::from(slots);
        self.history = ctx.buffer("temperature history", bytes, storage_usage())?;
        self.history_slots = slots;
        let buffers = [&self.tables, &self.state, &self.masks, &self.history];
        self.bind_group = bind_group(ctx, self.engine, buffers);
        Ok(())
    }

    /// The tempering kernels of a dispatch, after the engine's own: the swap round's decisions
    /// and exchanges, or a measurement's history.
    pub fn kernels(
        &self,
        ctx: &WgpuContext,
        dispatcher: &Dispatcher,
        dispatch: &Dispatch,
    ) -> Vec<(&wgpu::ComputePipeline, Grid)> {
        match dispatch {
            Dispatch::Sweep(_) | Dispatch::Cluster(_) => Vec::new(),
            Dispatch::Swap(_) => {
                let unit_size = unit_size(self.swap_exchanges);
                let units = u64::from(self.swaps.group_units()) * u64::from(unit_size);
                // A workgroup per unit of the round (x) and group (z).
                let swap = dispatcher.grid_of(ctx, units, self.swaps.groups, unit_size);
                let mut kernels = vec![(&self.swap, swap)];
                if !self.swap_exchanges {
                    let words = u64::from(self.records.system_words);
                    let exchange = dispatcher.grid(ctx, words, self.swaps.groups);
                    kernels.push((&self.exchange, exchange));
                }
                kernels
            }
            Dispatch::Measure(_) => {
                let grid = dispatcher.grid(ctx, self.history_words(), 1);
                vec![(&self.record_history, grid)]
            }
        }
    }

    /// The state (see [`crate::engine::tempering`]).
    pub fn read_state(&self, ctx: &WgpuContext) -> Result<Vec<u32>> {
        let words = self.swaps.chains.state_words() as u64;
        ctx.read_buffer(&self.state, 4 * words)
    }

    /// The history of the first `slots` measurements of a plan.
    pub fn read_history(&self, ctx: &WgpuContext, slots: u32) -> Result<Vec<u32>> {
        if slots == 0 {
            return Ok(Vec::new());
        }
        ctx.read_buffer(&self.history, 4 * self.history_words() * u64::from(slots))
    }
}

fn bind_group(
    ctx: &WgpuContext,
    engine: KernelEngine,
    buffers: [&wgpu::Buffer; 4],
) -> wgpu::BindGroup {
    let bindings = match engine {
        KernelEngine::Simple => Bindings::SimpleTempering,
        KernelEngine::Multispin => Bindings::MultispinTempering,
    };
    ctx.group_one("tempering", bindings, &buffers)
}
