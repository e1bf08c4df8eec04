//! CPU twin of `vector_overrelaxation`: one checkerboard colour of one vector-spin lattice, each
//! spin reflected about its local field (`s' = 2 (s . h) h - s`, `h = H / |H|`), the
//! microcanonical move that keeps the energy; no randoms.

use std::ops::Range;

use super::vector_metropolis::SiteUpdate;
use crate::model::vector::fixed::{FRACTION_BITS, Vector, dot, unit};

/// `s` reflected about the direction of `h` and normalised ([`unit`]), in spin units; `s` itself
/// where `h` is zero. In exact arithmetic the reflection keeps `s . H` and `|s|`; here each
/// component is rounded (floor shifts, `unit`'s rounding) to within a few `2^-28`, and the
/// result is normalised again, so `|s|` never drifts.
pub fn reflect(s: &Vector, h: &Vector, n: usize) -> Vector {
    let Some(direction) = unit(h, n) else {
        return *s;
    };
    let projection = dot(s, &direction, n) >> FRACTION_BITS;
    let mut v = [0i32; 3];
    for a in 0..n {
        v[a] = ((2 * projection * i64::from(direction[a])) >> FRACTION_BITS) as i32 - s[a];
    }
    unit(&v, n).unwrap_or(*s)
}

/// Over-relaxation of the sites `sites` (colour indices `ci`; `0 .. N/2` all) of `colour` of
/// one system's `spins` (component-major).
pub fn overrelax_colour(update: &SiteUpdate, spins: &mut [i32], colour: u32, sites: Range<u64>) {
    let lattice = update.lattice;
    for ci in sites {
        let i = lattice.colour_site(colour, ci);
        let h = update.local_field(spins, i);
        let s = update.spin(spins, i);
        update.set_spin(spins, i, &reflect(&s, &h, update.directions.n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::vector::fixed::ONE;

    #[test]
    fn reflection_keeps_the_energy_and_is_its_own_inverse() {
        let h = [3 * ONE / 2, -ONE / 3, ONE / 7];
        let s = unit(&[ONE / 2, ONE / 5, -ONE], 3).unwrap();
        let r = reflect(&s, &h, 3);
        let energy = |v: &Vector| dot(v, &h, 3) as f64 / (f64::from(ONE) * f64::from(ONE));
        assert!((energy(&r) - energy(&s)).abs() < 1e-7);
        let back = reflect(&r, &h, 3);
        assert!(
            back.iter().zip(&s).all(|(a, b)| (a - b).abs() < 16),
            "{back:?} {s:?}"
        );
        assert_eq!(reflect(&s, &[0; 3], 3), s);
    }
}
