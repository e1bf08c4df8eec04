//! Open and antiperiodic edges, as couplings: the lattice stays the periodic one every engine
//! walks, and the bonds across an edge (the seam of an axis) take `0` (open) or `-J`
//! (antiperiodic) in place of `J`. Every engine that reads a coupling per bond thus runs every
//! boundary with its own kernels.
//!
//! The seam of axis `a` is the forward bonds `site * directions + d` of every site whose
//! coordinate `a` is `L - 1`, along every direction `d` that steps along `a` (the triangular
//! lattice's diagonal crosses both seams): the bonds that wrap to coordinate 0.

use std::ops::Mul;

use super::Lattice;
use crate::config::{Boundaries, Boundary};

/// The bonds of the seam of axis `axis`, in increasing order.
pub fn seam_bonds(lattice: &Lattice, axis: u32) -> impl Iterator<Item = u64> + '_ {
    let l = u64::from(lattice.size);
    let stride = l.pow(axis);
    let outer = l.pow(lattice.dims - 1 - axis);
    let directions = u64::from(lattice.directions());
    let crossing = (0..lattice.directions()).filter(move |&d| lattice.step(d)[axis as usize] == 1);
    (0..outer)
        .flat_map(move |o| (0..stride).map(move |inner| o * stride * l + (l - 1) * stride + inner))
        .flat_map(move |site| {
            crossing
                .clone()
                .map(move |d| site * directions + u64::from(d))
        })
}

/// What a boundary makes of `J` on its seam: `J`, 0 or `-J`.
fn seam_factor(boundary: Boundary) -> i8 {
    match boundary {
        Boundary::Periodic => 1,
        Boundary::Open => 0,
        Boundary::Antiperiodic => -1,
    }
}

/// The bonds across every edge of `lattice` other than periodic, each with its axis's
/// boundary.
fn edge_bonds(
    boundaries: Boundaries,
    lattice: &Lattice,
) -> impl Iterator<Item = (u64, Boundary)> + '_ {
    (0..lattice.dims)
        .map(move |axis| (axis, boundaries.axis(axis)))
        .filter(|&(_, boundary)| boundary != Boundary::Periodic)
        .flat_map(move |(axis, boundary)| seam_bonds(lattice, axis).map(move |b| (b, boundary)))
}

/// Close the edges of `lattice` as `boundaries` say on the couplings `bonds` of one sample (one
/// per bond `site * dims + d`): each seam bond multiplied by its boundary's factor. Applied
/// twice, it gives back the couplings but for the open seams, which stay 0: the couplings a
/// run's `couplings.npy` records.
pub fn close_edges<T>(boundaries: Boundaries, lattice: &Lattice, bonds: &mut [T])
where
    T: Copy + Mul<Output = T> + From<i8>,
{
    for (bond, boundary) in edge_bonds(boundaries, lattice) {
        bonds[bond as usize] = bonds[bond as usize] * T::from(seam_factor(boundary));
    }
}

/// Set the couplings `bonds` of one sample (one per bond `site * dims + d`) across the open
/// edges of `lattice` to 0: the signs of bits that hold a bit for every bond
/// ([`crate::model::couplings::coupling_signs_of`]) as the engines take them.
pub fn clear_open_seams(boundaries: Boundaries, lattice: &Lattice, bonds: &mut [i8]) {
    for (bond, boundary) in edge_bonds(boundaries, lattice) {
        if boundary == Boundary::Open {
            bonds[bond as usize] = 0;
        }
    }
}

/// The couplings `samples` (one per bond `site * dims + d`, a sample's after another) with
/// their edges closed ([`close_edges`]).
pub fn closed_samples<T>(
    boundaries: Boundaries,
    lattice: &Lattice,
    samples: Vec<Vec<T>>,
) -> Vec<Vec<T>>
where
    T: Copy + Mul<Output = T> + From<i8>,
{
    let close = |mut bonds: Vec<T>| {
        close_edges(boundaries, lattice, &mut bonds);
        bonds
    };
    samples.into_iter().map(close).collect()
}

/// Reverse the bonds across each antiperiodic edge of `lattice` in the antiferromagnetic-bond
/// bits `bits` of one sample (bond `i` is bit `i mod 32` of word `i / 32`); open edges are not
/// for bits.
pub fn reverse_antiperiodic_seams(boundaries: Boundaries, lattice: &Lattice, bits: &mut [u32]) {
    let reversed = edge_bonds(boundaries, lattice).filter(|&(_, b)| b == Boundary::Antiperiodic);
    for (bond, _) in reversed {
        bits[(bond / 32) as usize] ^= 1 << (bond % 32);
    }
}

/// What the edges make of the coupling of bond `bond` of `lattice`: the product of the factors
/// of the seams it crosses (1, 0 across an open edge, -1 across one antiperiodic edge; the
/// triangular diagonal from the corner crosses two), as [`close_edges`] closes them.
pub fn edge_factor(boundaries: Boundaries, lattice: &Lattice, bond: u64) -> i8 {
    // Before the coordinates: the cluster updates ask for every bond of periodic lattices too.
    if boundaries.is_periodic() {
        return 1;
    }
    (0..lattice.dims)
        .filter(|&axis| crosses_seam(lattice, bond, axis))
        .map(|axis| seam_factor(boundaries.axis(axis)))
        .product()
}

/// Whether bond `bond` of `lattice` is on the seam of axis `axis` ([`seam_bonds`]): its
/// direction steps along the axis from a site at coordinate `L - 1`.
pub fn crosses_seam(lattice: &Lattice, bond: u64, axis: u32) -> bool {
    let directions = u64::from(lattice.directions());
    let (site, d) = (bond / directions, (bond % directions) as u32);
    lattice.step(d)[axis as usize] == 1 && lattice.coords(site)[axis as usize] == lattice.size - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seam of each axis is the bonds of the sites on its last plane, in that direction.
    #[test]
    fn seam_bonds_are_the_last_planes_forward_bonds() {
        for (dims, size) in [(2, 4), (3, 4), (3, 2)] {
            let lattice = Lattice::new(dims, size);
            for axis in 0..dims {
                let expected: Vec<u64> = (0..lattice.sites())
                    .filter(|&site| lattice.coords(site)[axis as usize] == size - 1)
                    .map(|site| site * u64::from(dims) + u64::from(axis))
                    .collect();
                let seam: Vec<u64> = seam_bonds(&lattice, axis).collect();
                assert_eq!(seam, expected, "dims {dims}, L {size}, axis {axis}");
                let open = Boundaries::new(&[Boundary::Open; 3]);
                assert!(seam.iter().all(|&b| edge_factor(open, &lattice, b) == 0));
            }
        }
    }

    /// On the triangular lattice the diagonal `(1, 1)` crosses both seams: the bond at the
    /// corner `(L - 1, L - 1)` lies on each, and an open and an antiperiodic axis make it 0.
    #[test]
    fn the_triangular_diagonal_lies_on_both_seams() {
        let lattice = Lattice::triangular(3);
        for axis in 0..2 {
            let expected: Vec<u64> = (0..lattice.sites())
                .filter(|&site| lattice.coords(site)[axis as usize] == 2)
                .flat_map(|site| [site * 3 + u64::from(axis), site * 3 + 2])
                .collect();
            let mut seam: Vec<u64> = seam_bonds(&lattice, axis).collect();
            seam.sort_unstable();
            let mut expected = expected;
            expected.sort_unstable();
            assert_eq!(seam, expected, "axis {axis}");
        }
        let mut bonds = vec![1i8; 27];
        let edges = Boundaries::new(&[Boundary::Antiperiodic, Boundary::Open]);
        close_edges(edges, &lattice, &mut bonds);
        let corner = lattice.index([2, 2, 0]) * 3 + 2;
        assert_eq!(bonds[corner as usize], 0);
        assert_eq!(edge_factor(edges, &lattice, corner), 0);
        let twisted = Boundaries::new(&[Boundary::Antiperiodic, Boundary::Antiperiodic]);
        let mut bonds = vec![1i8; 27];
        close_edges(twisted, &lattice, &mut bonds);
        assert_eq!(bonds[corner as usize], 1, "reversed across both seams");
        assert_eq!(bonds[(lattice.index([2, 0, 0]) * 3 + 2) as usize], -1);
        for bond in 0..27 {
            assert_eq!(edge_factor(twisted, &lattice, bond), bonds[bond as usize]);
        }
    }

    #[test]
    fn closing_zeroes_open_seams_and_reverses_antiperiodic_ones() {
        let lattice = Lattice::new(2, 4);
        let boundaries = Boundaries::new(&[Boundary::Open, Boundary::Antiperiodic]);
        let mut bonds = vec![1i8; 32];
        bonds[1] = -1;
        let bulk = bonds.clone();
        close_edges(boundaries, &lattice, &mut bonds);
        for (bond, (&j, &before)) in bonds.iter().zip(&bulk).enumerate() {
            let [x, y, _] = lattice.coords(bond as u64 / 2);
            let expected = match (bond % 2, x, y) {
                (0, 3, _) => 0,
                (1, _, 3) => -before,
                _ => before,
            };
            assert_eq!(j, expected, "bond {bond}");
        }
        let mut bits = vec![0b10u32];
        let twisted = Boundaries::new(&[Boundary::Periodic, Boundary::Antiperiodic]);
        reverse_antiperiodic_seams(twisted, &lattice, &mut bits);
        // The y seam of 4^2: sites 12 .. 15, bonds 25, 27, 29, 31; bond 1 stays as it was.
        assert_eq!(bits, vec![0b10 | 1 << 25 | 1 << 27 | 1 << 29 | 1 << 31]);
        let mut words: Vec<i32> = bulk.iter().map(|&j| i32::from(j) << 24).collect();
        close_edges(boundaries, &lattice, &mut words);
        close_edges(boundaries, &lattice, &mut words);
        for (bond, (&w, &j)) in words.iter().zip(&bulk).enumerate() {
            let open = edge_factor(boundaries, &lattice, bond as u64) == 0;
            assert_eq!(w, if open { 0 } else { i32::from(j) << 24 });
            let factor = i32::from(edge_factor(boundaries, &lattice, bond as u64));
            assert_eq!(i32::from(bonds[bond]), factor * i32::from(j), "bond {bond}");
        }
    }
}
