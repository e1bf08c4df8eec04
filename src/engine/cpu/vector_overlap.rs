//! CPU twin of `vector_overlap` (`shaders/wgsl/vector_overlap.wgsl`,
//! `shaders/cuda/vector_overlap.cu`): the exact integer sums of the tensor overlap of two
//! replicas of one sample (see [`VectorOverlap`]).

use crate::engine::vector::VectorOverlap;
use crate::model::Lattice;
use crate::model::vector::PhaseTable;
use crate::model::vector::fixed::{FRACTION_BITS, MEASURE_SHIFT};

/// The overlap of the lattices `a` and `b` (component-major) of `components`-vectors.
pub fn overlap_vector(
    lattice: Lattice,
    components: usize,
    (a, b): (&[i32], &[i32]),
    phases: &PhaseTable,
) -> VectorOverlap {
    let sites = lattice.sites() as usize;
    let dims = lattice.dims as usize;
    let mut o = VectorOverlap::default();
    for i in 0..sites {
        let coords = lattice.coords(i as u64);
        for mu in 0..components {
            for nu in 0..components {
                let product = i64::from(a[mu * sites + i]) * i64::from(b[nu * sites + i]);
                let q = product >> MEASURE_SHIFT;
                o.q[mu][nu] += q;
                for (d, direction) in o.fourier.iter_mut().enumerate().take(dims) {
                    let x = coords[d] as usize;
                    let f = &mut direction[mu][nu];
                    f[0] += (q * i64::from(phases.cos[x])) >> FRACTION_BITS;
                    f[1] += (q * i64::from(phases.sin[x])) >> FRACTION_BITS;
                }
            }
        }
    }
    o
}
