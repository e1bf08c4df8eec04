//! CPU twin of `discrete_overlap` (`shaders/wgsl/discrete_overlap.wgsl`,
//! `shaders/cuda/discrete_overlap.cu`): the exact integer sums of the overlap of two replicas of
//! discrete states of one sample (see [`VectorOverlap::states`]).

use crate::engine::vector::VectorOverlap;
use crate::model::Lattice;
use crate::model::vector::PhaseTable;

/// The overlap of the lattices `a` and `b` of `q` states (the vacancy `q` on empty sites): the
/// sites of each pair of states and their Fourier components.
pub fn overlap_states(
    lattice: Lattice,
    q: u32,
    (a, b): (&[i32], &[i32]),
    phases: &PhaseTable,
) -> VectorOverlap {
    let mut o = VectorOverlap::default();
    for (i, (&s, &t)) in a.iter().zip(b).enumerate() {
        let (s, t) = (s as u32, t as u32);
        if s == q || t == q {
            continue;
        }
        let c = (s * q + t) as usize;
        o.states[c] += 1;
        let coords = lattice.coords(i as u64);
        let directions = o.state_fourier[c].iter_mut().zip(coords);
        for (direction, x) in directions.take(lattice.dims as usize) {
            direction[0] += i64::from(phases.cos[x as usize]);
            direction[1] += i64::from(phases.sin[x as usize]);
        }
    }
    o
}
