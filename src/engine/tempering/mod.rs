//! Parallel tempering as every engine and backend runs it: the chain sets and their state
//! (`chains.rs`), how an engine groups the walkers of a round and exchanges their spins, and the
//! records and constants the tempering kernels read (`layout.rs`), and the swap decision from
//! integer thresholds that every kernel mirrors (`decision.rs`). The ladder, its tuning and the
//! diagnostics are the host's.
//!
//! Chains. Replica `r` of sample `s` at every temperature is one tempering chain set
//! `c = s R + r` (`C = S R` of them): its `T` walkers exchange configurations between neighbour
//! temperatures. The system at temperature `k` of chain set `c` is `b = k C + c`, the usual system
//! index `(k S + s) R + r`. Swaps move *spins*, so system `b` always holds temperature `k`: the
//! thresholds, observables and overlaps of every layout stay as they are, and the walkers'
//! identities travel in the labels below.
//!
//! A swap round after sweep `n` with parity `p` decides every pair `(k, k + 1)` with `k = p mod 2`
//! of every chain set, from the counts of both walkers (`[up, satisfied]`, measured just before)
//! and Philox block `(word k, sweep n, purpose Swap, batch c')` (`U_0`, `U_1` as in
//! [`accept_swap`]), `c'` the run's index of the chain set ([`SystemIndex::global_chain_set`]:
//! a sample slice's chain sets swap as in the whole run). Accepted pairs swap their labels, count
//! in `accepted`, and exchange their spins: whole lattices (simple engine, SMSC), masked lanes
//! between the word systems of temperatures `k` and `k + 1` (AMSC lanes holding samples or
//! replicas), or neighbour lanes within each word (AMSC lanes holding temperatures).
//!
//! State, one `u32` array of four sections of `C T` words (`[c][k]` each):
//! `labels` (the walker at temperature `k`), `phases` (per walker: 0 none, 1 last at the bottom
//! `k = 0`, 2 at the top `k = T - 1` after the bottom), `trips` (per walker: round trips bottom ->
//! top -> bottom completed), `accepted` (per pair `k < T - 1`: swaps accepted).
//!
//! [`SystemIndex::global_chain_set`]: crate::model::systems::SystemIndex::global_chain_set

mod chains;
mod decision;
mod layout;

pub use chains::{AT_BOTTOM, AT_TOP, Chains, Section};
pub use decision::{
    FIELD_GAP_POSITIVE, GAP_POSITIVE, MAX_TABLE_WORDS, PAIR_HEADER, accept_swap, swap_tables,
};
pub use layout::{
    CHAIN_SLICE_CONSTANTS, Exchange, KERNEL_CONSTANTS, Records, SwapLayout, UNIT_THREADS,
    chain_slice_kernel_constants, exchange_masked, exchange_neighbour_lanes, kernel_constants,
};

#[cfg(doc)]
use crate::model::ising::IsingSystems;
