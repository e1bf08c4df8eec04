//! CPU twin of `discrete_observables`: the exact integer sums of one lattice of discrete states
//! that every estimate of the Potts and Blume-Capel models is computed from (see
//! [`StateSums`]).

use super::discrete_metropolis::StateUpdate;
use crate::engine::vector::{StateSums, VectorObservation};
use crate::model::vector::PhaseTable;

/// The observation of one system's states: per direction `d` the bonds
/// `sum_i J_{i,i+d} P(s_i, s_{i+d})`, the sum of the values `s(a)` and its Fourier component
/// `[d][0]` (the value times the phase table's spin units); and into `sums` (zeroed,
/// [`StateSums`]) the sites in each state, each state's Fourier component and its staggered
/// count; empty sites count in none of them.
pub fn observe_states(
    update: &StateUpdate,
    spins: &[i32],
    phases: &PhaseTable,
    sums: &mut [i64],
) -> VectorObservation {
    let lattice = update.lattice;
    let (directions, dims) = (u64::from(lattice.directions()), lattice.dims as usize);
    let q = update.states.q as usize;
    debug_assert_eq!(sums.len(), StateSums::words(q));
    let mut o = VectorObservation::default();
    for i in 0..lattice.sites() {
        let a = spins[i as usize] as u32;
        if a == update.states.vacancy() {
            continue;
        }
        let value = i64::from(update.states.value[a as usize]);
        sums[a as usize] += 1;
        sums[7 * q + a as usize] += lattice.sublattice_sign(i);
        o.magnetisation[0] += value;
        let coords = lattice.coords(i);
        for (d, j) in lattice.forward_neighbours(i).enumerate() {
            let coupling = update.bonds.coupling(i * directions + d as u64);
            o.bonds[d] += i64::from(update.bond(coupling, a, spins[j as usize] as u32));
            if d >= dims {
                continue;
            }
            let x = coords[d] as usize;
            let (cos, sin) = (i64::from(phases.cos[x]), i64::from(phases.sin[x]));
            o.fourier[d][0][0] += value * cos;
            o.fourier[d][0][1] += value * sin;
            let at = q + 2 * (3 * a as usize + d);
            sums[at] += cos;
            sums[at + 1] += sin;
        }
    }
    o
}
