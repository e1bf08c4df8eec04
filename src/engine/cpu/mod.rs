//! The pure-Rust engine: the reference every GPU kernel is checked against bit for bit, and the
//! fallback where no GPU adapter exists. Each kernel mirrors its WGSL twin of the same name in
//! `shaders/wgsl/`; systems run in parallel on the CPU's cores.

mod bitslice;
mod clock_bonds;
mod clock_flip;
mod cluster_bonds;
mod cluster_flip;
mod cluster_label;
mod cluster_roots;
mod cluster_wolff;
mod copy_systems;
pub mod discrete_metropolis;
mod discrete_observables;
mod discrete_overlap;
mod discrete_pack;
pub mod discrete_planes_metropolis;
mod discrete_unpack;
pub mod hot_start;
mod metropolis_simple;
mod multispin;
mod multispin_metropolis;
mod multispin_observables;
mod multispin_overlap;
mod observables;
mod simple;
mod tempering_exchange;
mod tempering_swap;
mod vector;
mod vector_exchange;
pub mod vector_hot_start;
pub mod vector_metropolis;
mod vector_observables;
mod vector_overlap;
pub mod vector_overrelaxation;
pub mod vector_tiles;

pub use bitslice::{BondCount, LaneCounter, count_equals};
pub use cluster_bonds::{active_bonds, bond_active, plane_groups};
pub use cluster_flip::{flip_marked, mark_flips, mark_seed_cluster};
pub use cluster_label::{find_root, label_sites, start_labelling};
pub use cluster_roots::point_at_roots;
pub use cluster_wolff::WolffGrowth;
pub use copy_systems::{copy_lanes, copy_lattices};
pub use metropolis_simple::sweep_colour;
pub use multispin::CpuMultispinEngine;
pub use multispin_observables::observe_lanes;
pub use multispin_overlap::overlap_planes;
pub use observables::observe;
pub use simple::{CpuEngine, CpuSimple};
pub use tempering_exchange::exchange;
pub use tempering_swap::{CpuTempering, swap_uniforms};
pub use vector::CpuVectorEngine;
pub use vector_observables::observe_vector;
pub use vector_overlap::overlap_vector;

use super::check_tempering_state;
use super::tempering::{SwapLayout, swap_tables};
use crate::error::Result;
use crate::model::ising::IsingSystems;

/// The CPU engines' tempering from a state, with the swap tables of its systems.
fn cpu_tempering(systems: &IsingSystems, swaps: SwapLayout, state: &[u32]) -> Result<CpuTempering> {
    check_tempering_state(systems, state)?;
    Ok(CpuTempering {
        tables: swap_tables(systems)?,
        state: state.to_vec(),
        swaps,
    })
}

/// The tempering state of a CPU engine's `tempering`; empty without tempering.
fn tempering_state(tempering: &Option<CpuTempering>) -> Vec<u32> {
    tempering
        .as_ref()
        .map_or_else(Vec::new, |t| t.state.clone())
}

/// The CPU engines' adapter name.
fn cpu_description() -> String {
    format!("CPU ({} threads)", rayon::current_num_threads())
}
