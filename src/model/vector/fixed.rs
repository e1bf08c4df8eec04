//! The fixed-point arithmetic of vector spins, the one definition every backend computes.
//!
//! A spin component is an `i32` in units of `2^-28` ([`ONE`] is 1.0), so a unit vector's
//! components lie in `[-2^28, 2^28]`. Every quantity of an update is an integer, and every
//! operation is exact integer arithmetic (sums, products in 64 bits) or one of three
//! functions defined exactly here: the arithmetic right shift (floor division by a power of
//! two), the truncating 64-bit division, and the floor square root [`isqrt`]. A backend may
//! compute them any way it likes, as long as it computes these integers: then the CPU, WGSL
//! and CUDA give the same bits by construction, without relying on how a compiler or driver
//! rounds, contracts or flushes floats (design/vector-spins.md says why floats cannot give
//! that). The kernels in `shaders/wgsl/vector.wgsl` and `shaders/cuda/vector.cuh` mirror this
//! file function by function.

/// Fractional bits of a spin component.
pub const FRACTION_BITS: u32 = 28;

/// 1.0 in spin units.
pub const ONE: i32 = 1 << FRACTION_BITS;

/// Largest `|H|` (local field plus uniform field, in units of 1) whose components fit an `i32`
/// in spin units: `z + |h|` must stay below it.
pub const MAX_LOCAL_FIELD: f64 = 8.0;

/// Bits by which an energy change in units of `2^-56` (a product of two spin units) is shifted
/// to the units of the acceptance tables, `2^-24`.
pub const ENERGY_SHIFT: u32 = 32;

/// Bits of the energy unit of the acceptance tables: an energy change `k` in units of `2^-24`.
pub const TABLE_FRACTION_BITS: u32 = 2 * FRACTION_BITS - ENERGY_SHIFT;

/// Entries of one byte's acceptance table.
pub const TABLE_BYTE: usize = 256;

/// Bytes of an energy change in table units (below `2^28`: `|dE| <= 2 * 8`).
pub const TABLE_BYTES: usize = 4;

/// Entries of one temperature's acceptance table: [`TABLE_BYTES`] tables of [`TABLE_BYTE`].
pub const TABLE_LEN: usize = TABLE_BYTES * TABLE_BYTE;

/// Bits by which a bond's dot product (units `2^-56`) is shifted for the measured sums (units
/// `2^-32`), so that the sums over 2^31 sites fit an `i64`.
pub const MEASURE_SHIFT: u32 = 24;

/// Fractional bits of a measured bond product, `2 * FRACTION_BITS - MEASURE_SHIFT`.
pub const MEASURE_FRACTION_BITS: u32 = 2 * FRACTION_BITS - MEASURE_SHIFT;

/// A spin or a local field: components beyond the model's `n` are zero.
pub type Vector = [i32; 3];

/// `floor(sqrt(x))`.
pub fn isqrt(x: u64) -> u64 {
    x.isqrt()
}

/// `a . b` of the first `n` components, exactly (each product below 2^62 in magnitude for the
/// ranges of an update).
pub fn dot(a: &Vector, b: &Vector, n: usize) -> i64 {
    (0..n).map(|i| i64::from(a[i]) * i64::from(b[i])).sum()
}

/// `v / |v|` in spin units, `None` for the zero vector: `v` (components below `2^31` in
/// magnitude, `v . v < 2^63`) is first scaled by the power of two `2^k` that brings `v . v`
/// into `[2^60, 2^62)`, then each component is `(v_a 2^k 2^28) / floor(sqrt(v . v 4^k))`,
/// truncated. The norm of the result differs from 1 by less than `2^-26` (each component
/// truncated by less than one unit, the root by less than `2^-30` of itself).
pub fn unit(v: &Vector, n: usize) -> Option<Vector> {
    let square = dot(v, v, n) as u64;
    if square == 0 {
        return None;
    }
    let k = (square.leading_zeros().saturating_sub(2)) / 2;
    let root = isqrt(square << (2 * k)) as i64;
    let mut u = [0; 3];
    for a in 0..n {
        u[a] = ((i64::from(v[a]) << (k + FRACTION_BITS)) / root) as i32;
    }
    Some(u)
}

/// The high word of the 64-bit product of two 32-bit words.
pub fn mulhi(a: u32, b: u32) -> u32 {
    ((u64::from(a) * u64::from(b)) >> 32) as u32
}

/// The acceptance threshold of an energy change `k > 0` in units of `2^-24` (below `2^28`),
/// from a temperature's table ([`acceptance_table`]): the product of the four bytes' entries,
/// taken byte 0 first, each product's high word. A move is accepted where a uniform random
/// word is below it.
pub fn threshold(k: u32, table: &[u32]) -> u32 {
    let entry = |byte: usize| table[byte * TABLE_BYTE + ((k >> (8 * byte)) & 0xff) as usize];
    mulhi(mulhi(mulhi(entry(0), entry(1)), entry(2)), entry(3))
}

/// The acceptance table of inverse temperature `beta`: entry `b` of byte `j` is
/// `exp(-beta b 256^j 2^-24) 2^32`, rounded and held below `2^32`. Computed on the host in
/// `f64` and handed to every backend, so the kernels never evaluate an exponential.
pub fn acceptance_table(beta: f64) -> Vec<u32> {
    let unit = (-f64::from(TABLE_FRACTION_BITS)).exp2();
    (0..TABLE_BYTES)
        .flat_map(|byte| {
            (0..TABLE_BYTE).map(move |b| {
                let energy = b as f64 * 256f64.powi(byte as i32) * unit;
                ((-beta * energy).exp() * 2f64.powi(32))
                    .round()
                    .min(f64::from(u32::MAX)) as u32
            })
        })
        .collect()
}

/// Whether the Metropolis test accepts the energy change `delta` (units `2^-56`) with the
/// random word `u` under a temperature's table: always where `delta <= 0`, else where `u` is
/// below the threshold of `delta` shifted to table units (floor).
pub fn accepts(delta: i64, u: u32, table: &[u32]) -> bool {
    delta <= 0 || u < threshold((delta >> ENERGY_SHIFT) as u32, table)
}

/// A spin component in units of 1.
pub fn to_f64(component: i32) -> f64 {
    f64::from(component) / f64::from(ONE)
}

/// A value in units of 1 as spin units, rounded.
pub fn from_f64(value: f64) -> i32 {
    (value * f64::from(ONE)).round() as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(v: &Vector, n: usize) -> f64 {
        (dot(v, v, n) as f64).sqrt() / f64::from(ONE)
    }

    #[test]
    fn unit_vectors_have_norm_one_within_two_to_the_minus_26() {
        let vectors: [Vector; 5] = [
            [1, 0, 0],
            [3, -4, 0],
            [ONE, ONE, ONE],
            [-(i32::MAX / 2), 12345, 1],
            [7, 7, -ONE / 1000],
        ];
        for n in [2, 3] {
            for v in &vectors {
                let u = unit(v, n).unwrap();
                assert!((norm(&u, n) - 1.0).abs() < 2f64.powi(-26), "{v:?} -> {u:?}");
            }
        }
        assert_eq!(unit(&[3, -4, 0], 2), Some([3 * ONE / 5, -4 * ONE / 5, 0]));
        assert_eq!(unit(&[0, 0, 5], 2), None);
    }

    #[test]
    fn thresholds_follow_the_boltzmann_factor() {
        for beta in [0.1, 0.7, 3.0] {
            let table = acceptance_table(beta);
            for energy in [1e-6, 0.01, 0.5, 2.0, 7.9, 15.9] {
                let k = (energy * 2f64.powi(24)) as u32;
                let expected = (-beta * f64::from(k) * 2f64.powi(-24)).exp();
                let got = f64::from(threshold(k, &table)) / 2f64.powi(32);
                assert!(
                    (got - expected).abs() < 1e-8,
                    "{beta} {energy}: {got} {expected}"
                );
            }
        }
    }

    #[test]
    fn downhill_is_always_accepted_and_uphill_by_the_table() {
        let table = acceptance_table(1.0);
        assert!(accepts(0, u32::MAX, &table));
        assert!(accepts(-5, u32::MAX, &table));
        let delta = 1i64 << 56; // dE = 1: threshold exp(-1) 2^32
        let t = (-1f64).exp() * 2f64.powi(32);
        assert!(accepts(delta, (t - 4.0) as u32, &table));
        assert!(!accepts(delta, (t + 4.0) as u32, &table));
    }
}
