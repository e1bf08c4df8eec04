//! CPU twin of `discrete_overlap` (`shaders/wgsl/discrete_overlap.wgsl`,
//! `shaders/cuda/discrete_overlap.cu`): the exact integer sums of the overlap of two replicas of
//! discrete states of one sample (see [`StateSums`]).

use crate::engine::vector::StateSums;
use crate::model::Lattice;
use crate::model::vector::PhaseTable;

/// The overlap of the lattices `a` and `b` of `q` states (the vacancy `q` on empty sites) into
/// `sums` (zeroed, [`StateSums`] of the `q^2` pairs of states): the sites of each pair of states
/// and their Fourier components.
pub fn overlap_states(
    lattice: Lattice,
    q: u32,
    (a, b): (&[i32], &[i32]),
    phases: &PhaseTable,
    sums: &mut [i64],
) {
    let pairs = (q * q) as usize;
    debug_assert_eq!(sums.len(), StateSums::pair_words(pairs));
    for (i, (&s, &t)) in a.iter().zip(b).enumerate() {
        let (s, t) = (s as u32, t as u32);
        if s == q || t == q {
            continue;
        }
        let c = (s * q + t) as usize;
        sums[c] += 1;
        let coords = lattice.coords(i as u64);
        for (d, x) in coords.into_iter().take(lattice.dims as usize).enumerate() {
            let at = pairs + 2 * (3 * c + d);
            sums[at] += i64::from(phases.cos[x as usize]);
            sums[at + 1] += i64::from(phases.sin[x as usize]);
        }
    }
}
