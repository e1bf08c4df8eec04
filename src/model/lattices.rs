//! The honeycomb and kagome lattices, drawn on the lattices the engines walk: the honeycomb as
//! a brick wall of the square lattice (its bond from `(x, y)` to `(x, y + 1)` only where
//! `x + y` is even: every site keeps three neighbours), the kagome as the triangular lattice
//! without the sites of odd `x` and odd `y` (every other site keeps four neighbours, in
//! corner-sharing triangles). Missing bonds are couplings of 0 and missing sites vacancies, so
//! every engine that reads a coupling per bond and keeps empty sites runs them with its own
//! kernels.

use super::boundaries::edge_factor;
use super::{Lattice, Shape};
use crate::config::Boundaries;

/// The bonds of the honeycomb `lattice` (drawn on the square one) that its brick wall lacks,
/// in increasing order ([`is_gap`]).
pub fn honeycomb_gaps(lattice: &Lattice) -> impl Iterator<Item = u64> + Clone + '_ {
    (0..lattice.bonds()).filter(|&bond| is_gap(lattice, bond))
}

/// The sites of the triangular lattice `lattice` that the kagome lattice lacks, in increasing
/// order: odd `x` and odd `y`.
pub fn kagome_holes(lattice: &Lattice) -> Vec<u32> {
    (0..lattice.sites())
        .filter(|&site| is_kagome_hole(lattice, site))
        .map(|site| site as u32)
        .collect()
}

/// Whether site `site` of `lattice` is a kagome lattice's hole (odd `x` and odd `y` of the
/// triangular lattice it is drawn on); false on every other lattice.
pub fn is_kagome_hole(lattice: &Lattice, site: u64) -> bool {
    // The shape first: the outputs ask this of every site of every lattice.
    if lattice.shape != Shape::Kagome {
        return false;
    }
    let [x, y, _] = lattice.coords(site);
    x % 2 == 1 && y % 2 == 1
}

/// Whether bond `bond` of `lattice` is missing: a honeycomb's `+y` bond (`site * 2 + 1`) from
/// a site whose `x + y` is odd.
pub fn is_gap(lattice: &Lattice, bond: u64) -> bool {
    if lattice.shape != Shape::Honeycomb || bond.is_multiple_of(2) {
        return false;
    }
    let [x, y, _] = lattice.coords(bond / 2);
    (x + y) % 2 == 1
}

/// The sign of the coupling of bond `bond` of `lattice` closed by `boundaries`, relative to
/// the lattice's `J`: 0 where it joins no pair of spins (a honeycomb's gap, [`is_gap`], or
/// across an open edge), -1 across an antiperiodic edge ([`edge_factor`]), else 1.
pub fn bond_sign(boundaries: Boundaries, lattice: &Lattice, bond: u64) -> i8 {
    match is_gap(lattice, bond) {
        true => 0,
        false => edge_factor(boundaries, lattice, bond),
    }
}

/// Whether bond `bond` of `lattice` closed by `boundaries` joins no pair of spins: its
/// [`bond_sign`] is 0.
pub fn is_missing_bond(boundaries: Boundaries, lattice: &Lattice, bond: u64) -> bool {
    bond_sign(boundaries, lattice, bond) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every site of the brick wall keeps three neighbours, and the kagome lattice's sites four
    /// of the triangular lattice's six, none of them missing.
    #[test]
    fn honeycomb_and_kagome_sites_keep_three_and_four_neighbours() {
        let square = Lattice::shaped(Shape::Honeycomb, 2, 6);
        let gaps: Vec<u64> = honeycomb_gaps(&square).collect();
        assert_eq!(gaps.len(), 18);
        for site in 0..square.sites() {
            let kept = (square.neighbours(site).enumerate())
                .map(|(k, j)| square.neighbour_bond(site, j, k))
                .filter(|&bond| !gaps.contains(&bond))
                .count();
            assert_eq!(kept, 3, "site {site}");
        }
        assert!(gaps.iter().all(|&b| is_gap(&square, b)));

        let triangular = Lattice::shaped(Shape::Kagome, 2, 6);
        let holes = kagome_holes(&triangular);
        assert_eq!(holes.len() as u64, 36 - triangular.spins());
        for site in (0..triangular.sites()).filter(|s| !holes.contains(&(*s as u32))) {
            let kept = (triangular.neighbours(site))
                .filter(|&j| !holes.contains(&(j as u32)))
                .count();
            assert_eq!(kept, 4, "site {site}");
        }
    }
}
