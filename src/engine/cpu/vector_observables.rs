//! CPU twin of `vector_observables`: the exact integer sums of one vector-spin lattice that every
//! estimate of the vector models is computed from (see [`VectorObservation`]).

use super::vector_metropolis::SiteUpdate;
use crate::engine::vector::VectorObservation;
use crate::model::vector::PhaseTable;
use crate::model::vector::fixed::{FRACTION_BITS, MEASURE_SHIFT, ONE, dot, is_empty};

/// The observation of one system's `spins` (component-major).
pub fn observe_vector(
    update: &SiteUpdate,
    spins: &[i32],
    phases: &PhaseTable,
) -> VectorObservation {
    let lattice = update.lattice;
    let n = update.directions.n;
    let (directions, dims) = (u64::from(lattice.directions()), lattice.dims as usize);
    let one_squared = i64::from(ONE) * i64::from(ONE);
    let mut o = VectorObservation::default();
    for i in 0..lattice.sites() {
        let s = update.spin(spins, i);
        let coords = lattice.coords(i);
        let sign = lattice.sublattice_sign(i);
        for (a, c) in s.iter().enumerate().take(n) {
            o.magnetisation[a] += i64::from(*c);
            o.staggered[a] += sign * i64::from(*c);
        }
        for (d, j) in lattice.forward_neighbours(i).enumerate() {
            let t = update.spin(spins, j);
            let coupling = update.bonds.coupling(i * directions + d as u64);
            let bond = |product: i64| {
                update
                    .scale
                    .bond_measure(coupling, product >> MEASURE_SHIFT)
            };
            o.bonds[d] += bond(dot(&s, &t, n));
            let twist = i64::from(s[0]) * i64::from(t[1]) - i64::from(s[1]) * i64::from(t[0]);
            o.twists[lattice.bond_class(i, d as u32) as usize] += bond(twist);
            if d >= dims {
                continue;
            }
            let x = coords[d] as usize;
            let (cos, sin) = (i64::from(phases.cos[x]), i64::from(phases.sin[x]));
            for (f, c) in o.fourier[d].iter_mut().zip(&s).take(n) {
                f[0] += (i64::from(*c) * cos) >> FRACTION_BITS;
                f[1] += (i64::from(*c) * sin) >> FRACTION_BITS;
            }
        }
        if !is_empty(&s) {
            let deviation = (dot(&s, &s, n) - one_squared).unsigned_abs() >> MEASURE_SHIFT;
            o.norm_deviation = o.norm_deviation.max(deviation.min(u64::from(u32::MAX)));
        }
    }
    o
}
