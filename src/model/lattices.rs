//! The honeycomb and kagome lattices, drawn on the lattices the engines walk: the honeycomb as
//! a brick wall of the square lattice (its bond from `(x, y)` to `(x, y + 1)` only where
//! `x + y` is even: every site keeps three neighbours), the kagome as the triangular lattice
//! without the sites of odd `x` and odd `y` (every other site keeps four neighbours, in
//! corner-sharing triangles). Missing bonds are couplings of 0 and missing sites vacancies, so
//! every engine that reads a coupling per bond and keeps empty sites runs them with its own
//! kernels.

use super::boundaries::{crosses_seam, edge_factor, seam_bonds};
use super::{Lattice, Shape};
use crate::config::{Boundaries, Boundary};

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

/// Whether bond `bond` of `lattice` joins two spins: one of its [`Lattice::links`], neither a
/// honeycomb's gap ([`is_gap`]) nor a bond to a kagome hole ([`is_kagome_hole`]).
pub fn is_link(lattice: &Lattice, bond: u64) -> bool {
    let directions = u64::from(lattice.directions());
    let (site, d) = (bond / directions, (bond % directions) as usize);
    let hole = |site| is_kagome_hole(lattice, site);
    let far = || (lattice.forward_neighbours(site).nth(d)).expect("a direction of the lattice");
    !is_gap(lattice, bond) && !hole(site) && !hole(far())
}

/// The links of `lattice` ([`is_link`]) across its open edges, each once: a bond on the seams
/// of two open axes (the triangular lattice's diagonal from a corner) counts on the first.
pub fn open_links(boundaries: Boundaries, lattice: &Lattice) -> u64 {
    let open: Vec<u32> = (0..lattice.dims)
        .filter(|&axis| boundaries.axis(axis) == Boundary::Open)
        .collect();
    let mut links = 0;
    for (i, &axis) in open.iter().enumerate() {
        let earlier = |bond| open[..i].iter().any(|&a| crosses_seam(lattice, bond, a));
        let seam =
            seam_bonds(lattice, axis).filter(|&bond| is_link(lattice, bond) && !earlier(bond));
        links += seam.count() as u64;
    }
    links
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The open links are the links whose coupling the open edges clear, counted over every
    /// bond, on every lattice with one and with every axis open.
    #[test]
    fn open_links_are_the_links_the_open_edges_clear() {
        use Boundary::{Open, Periodic};
        let lattices = [
            Lattice::new(2, 6),
            Lattice::new(3, 4),
            Lattice::shaped(Shape::Triangular, 2, 6),
            Lattice::shaped(Shape::Honeycomb, 2, 6),
            Lattice::shaped(Shape::Kagome, 2, 6),
        ];
        for lattice in lattices {
            for axes in [
                [Open, Periodic, Open],
                [Periodic, Open, Periodic],
                [Open; 3],
            ] {
                let boundaries = Boundaries::new(&axes[..lattice.dims as usize]);
                let cleared = (0..lattice.bonds())
                    .filter(|&b| is_link(&lattice, b) && edge_factor(boundaries, &lattice, b) == 0)
                    .count() as u64;
                assert_eq!(
                    open_links(boundaries, &lattice),
                    cleared,
                    "{lattice:?} {axes:?}"
                );
            }
            let links = (0..lattice.bonds())
                .filter(|&b| is_link(&lattice, b))
                .count() as u64;
            assert_eq!(links, lattice.links(), "{lattice:?}");
        }
    }

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
