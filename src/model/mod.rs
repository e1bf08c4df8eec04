//! Model geometry and Hamiltonians.
//!
//! Every model's systems are a [`systems::SystemIndex`] (the temperatures, samples and replicas
//! of a run or of a slice of its samples, and their numbering) with the model's own lattice,
//! field and couplings: [`ising::IsingSystems`], [`vector::VectorSystems`].
//!
//! Sites of an `L^d` periodic lattice are stored in natural order, `index = (z L + y) L + x`.
//! The checkerboard colour of a site is `(x + y + z) mod 2`; every neighbour of a site has the
//! other colour, so one colour is updated in parallel while the other is frozen (even L only).
//! Within a colour, sites are numbered row by row: colour index `ci = row * L/2 + k` with
//! `row = z L + y` and `x = 2k + ((y + z + colour) mod 2)`.
//!
//! The triangular lattice is the square one with the diagonal bond from `(x, y)` to
//! `(x + 1, y + 1)`: a third bond direction, six neighbours, and three colours
//! `(x + y) mod 3` (L a multiple of 3 where a run colours the sites; cluster updates alone take
//! any L), `x = 3k + ((colour - y) mod 3)` within a row. The
//! honeycomb and kagome lattices are drawn on these (`crate::config::LatticeKind`): the
//! honeycomb as a brick wall of the square lattice (the bond from `(x, y)` to `(x, y + 1)` only
//! where `x + y` is even), the kagome as the triangular lattice without the sites of odd `x` and
//! odd `y`.

pub mod boundaries;
pub(crate) mod checks;
pub mod couplings;
pub mod ising;
pub mod lattices;
pub mod systems;
pub mod vacancies;
pub mod vector;

use crate::config::{LatticeKind, Model};

/// How the sites of a lattice are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// The square (2D) or simple-cubic (3D) lattice: a bond along each axis.
    Hypercubic,
    /// The triangular lattice (2D): the square one's bonds and the diagonal `(1, 1)`.
    Triangular,
    /// The honeycomb lattice (2D), drawn on the square one ([`lattices`]).
    Honeycomb,
    /// The kagome lattice (2D), drawn on the triangular one ([`lattices`]).
    Kagome,
}

impl Shape {
    /// The shape of the lattice `kind` names.
    pub fn of(kind: LatticeKind) -> Self {
        match kind {
            LatticeKind::Square | LatticeKind::Cubic => Shape::Hypercubic,
            LatticeKind::Triangular => Shape::Triangular,
            LatticeKind::Honeycomb => Shape::Honeycomb,
            LatticeKind::Kagome => Shape::Kagome,
        }
    }

    /// What the linear size must be a multiple of: 2 (the checkerboard), 3 (the triangular
    /// lattice's colours), 6 (the kagome lattice's colours and cells).
    pub fn size_step(self) -> u32 {
        match self {
            Shape::Hypercubic | Shape::Honeycomb => 2,
            Shape::Triangular => 3,
            Shape::Kagome => 6,
        }
    }

    /// Whether the lattice splits into two sublattices whose sites neighbour only the other's
    /// (the even sizes of [`Shape::size_step`] close every axis bipartitely): the square,
    /// cubic and honeycomb lattices, whose antiferromagnets order in the staggered
    /// magnetisation.
    pub fn is_bipartite(self) -> bool {
        matches!(self, Shape::Hypercubic | Shape::Honeycomb)
    }
}

/// A periodic lattice of `size` sites a side: square (2D) or simple-cubic (3D) of even linear
/// size, or triangular (2D) of a size that is a multiple of 3; or the honeycomb or kagome
/// lattice drawn on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lattice {
    pub dims: u32,
    pub size: u32,
    pub shape: Shape,
}

impl Lattice {
    /// The lattice, for `dims` 2 or 3 and an even `size` >= 2 (the config validates this).
    pub fn new(dims: u32, size: u32) -> Self {
        assert!(dims == 2 || dims == 3, "dims must be 2 or 3");
        assert!(size >= 2 && size.is_multiple_of(2), "size must be even");
        Lattice {
            dims,
            size,
            shape: Shape::Hypercubic,
        }
    }

    /// The triangular lattice of `size` sites a side, at least 3; a multiple of 3 where its
    /// sites are coloured ([`Lattice::colours`]; the config validates this).
    pub fn triangular(size: u32) -> Self {
        assert!(size >= 3, "size must be at least 3");
        Lattice {
            dims: 2,
            size,
            shape: Shape::Triangular,
        }
    }

    /// The lattice of `shape` with `size` sites a side of the lattice it is drawn on.
    pub fn shaped(shape: Shape, dims: u32, size: u32) -> Self {
        let lattice = match shape {
            Shape::Triangular | Shape::Kagome => Lattice::triangular(size),
            _ => Lattice::new(dims, size),
        };
        Lattice { shape, ..lattice }
    }

    /// The lattice of `model`.
    pub fn of(model: &Model) -> Self {
        Lattice::of_kind(model.lattice(), model.dims(), model.size())
    }

    /// The lattice `kind` of `dims` dimensions and linear size `size`, as a config names it.
    pub fn of_kind(kind: LatticeKind, dims: u32, size: u32) -> Self {
        Lattice::shaped(Shape::of(kind), dims, size)
    }

    /// This lattice at linear size `size`, a multiple of [`Lattice::size_step`].
    pub fn resized(&self, size: u32) -> Self {
        Lattice::shaped(self.shape, self.dims, size)
    }

    /// What the linear size must be a multiple of ([`Shape::size_step`]).
    pub fn size_step(&self) -> u32 {
        self.shape.size_step()
    }

    /// Whether the lattice's geometry is the triangular one (the kagome lattice's too): three
    /// directions, three colours.
    pub fn is_triangular(&self) -> bool {
        matches!(self.shape, Shape::Triangular | Shape::Kagome)
    }

    /// Bond directions per site, `d` (the bond `site * directions + d` joins a site to its
    /// `+d` neighbour): the axes, and the triangular lattice's diagonal.
    pub fn directions(&self) -> u32 {
        match self.is_triangular() {
            true => 3,
            false => self.dims,
        }
    }

    /// Colours of the parallel updates: 2 (the checkerboard), 3 on the triangular lattice.
    pub fn colours(&self) -> u32 {
        match self.is_triangular() {
            true => 3,
            false => 2,
        }
    }

    /// The step of bond direction `d`.
    pub fn step(&self, d: u32) -> [u32; 3] {
        match d {
            0 => [1, 0, 0],
            1 => [0, 1, 0],
            _ if self.is_triangular() => [1, 1, 0],
            _ => [0, 0, 1],
        }
    }

    /// Number of sites, `L^d`.
    pub fn sites(&self) -> u64 {
        u64::from(self.size).pow(self.dims)
    }

    /// Sites that hold a spin: all but the kagome lattice's holes (three quarters of the
    /// triangular lattice's sites). Energies and entropies are per such site.
    pub fn spins(&self) -> u64 {
        match self.shape {
            Shape::Kagome => self.sites() / 4 * 3,
            _ => self.sites(),
        }
    }

    /// Number of sites of one colour.
    pub fn sites_per_colour(&self) -> u64 {
        debug_assert!(
            self.size.is_multiple_of(self.size_step()),
            "the colours of {self:?} do not tile it"
        );
        self.sites() / u64::from(self.colours())
    }

    /// Coordination number `z`, the bonds of a site: `2d` for the square and cubic lattices, 6
    /// for the triangular one and the kagome lattice drawn on it (whose holes are empty sites),
    /// 3 for the honeycomb's brick wall, whose sites each lack one of the square lattice's y
    /// bonds.
    pub fn coordination(&self) -> u32 {
        match self.shape {
            Shape::Honeycomb => 3,
            _ => 2 * self.directions(),
        }
    }

    /// Number of nearest-neighbour bonds in the bond list, one per direction and site (the
    /// honeycomb's missing y bonds and the bonds of the kagome lattice's holes included, as 0).
    pub fn bonds(&self) -> u64 {
        u64::from(self.directions()) * self.sites()
    }

    /// Number of bonds that join two spins: [`Lattice::bonds`] less the honeycomb's missing y
    /// bonds (one for every two sites) and the kagome holes' six each (a quarter of the sites).
    pub fn links(&self) -> u64 {
        match self.shape {
            Shape::Honeycomb => self.bonds() - self.sites() / 2,
            Shape::Kagome => self.bonds() / 2,
            _ => self.bonds(),
        }
    }

    /// Whether the sites of `colour` have their bond towards `-y` and towards `+y`: both, but on
    /// the honeycomb's brick wall only up from sites of even `x + y` (colour 0 of the
    /// checkerboard) and down from the others.
    pub fn y_bonds(&self, colour: u32) -> [bool; 2] {
        match self.shape {
            Shape::Honeycomb => [colour == 1, colour == 0],
            _ => [true, true],
        }
    }

    /// The classes of bonds whose unit vectors in space ([`Lattice::bond_vector`]) the
    /// measurements tell apart: the bond directions, and on the honeycomb lattice a third, its
    /// x bonds from sites of odd `x + y` ([`Lattice::bond_class`]).
    pub fn bond_classes(&self) -> u32 {
        self.directions() + u32::from(self.shape == Shape::Honeycomb)
    }

    /// The class of the bond from `site` along direction `d`: `d`, but 2 for a honeycomb's x
    /// bond from a site of odd `x + y` (the kernels' `HONEYCOMB`).
    pub fn bond_class(&self, site: u64, d: u32) -> u32 {
        match self.shape == Shape::Honeycomb && d == 0 && self.sublattice_sign(site) < 0 {
            true => 2,
            false => d,
        }
    }

    /// The unit vector in space from a site to its neighbour by a bond of class `c`
    /// ([`Lattice::bond_class`]): the axes of the square and cubic lattices; on the triangular
    /// lattice (each row half a site left of the one before, as the snapshots draw it) and the
    /// kagome lattice drawn on it `(1, 0)`, `(-1/2, sqrt 3 / 2)` and the diagonal
    /// `(1/2, sqrt 3 / 2)`; on the honeycomb lattice, whose brick wall's x bonds point two ways
    /// (a hexagon's sides: a site of even `x + y` has its y bond up, the others down),
    /// `(sqrt 3 / 2, -1/2)` for the x bonds from sites of even `x + y`, `(0, 1)` for the y
    /// bonds and `(sqrt 3 / 2, 1/2)` for the x bonds from the other sites.
    pub fn bond_vector(&self, c: u32) -> [f64; 3] {
        let half_root_3 = 3f64.sqrt() / 2.0;
        match (self.shape, c) {
            (Shape::Hypercubic, _) => self.step(c).map(f64::from),
            (Shape::Honeycomb, 0) => [half_root_3, -0.5, 0.0],
            (Shape::Honeycomb, 1) => [0.0, 1.0, 0.0],
            (Shape::Honeycomb, _) => [half_root_3, 0.5, 0.0],
            (_, 0) => [1.0, 0.0, 0.0],
            (_, 1) => [-0.5, half_root_3, 0.0],
            _ => [0.5, half_root_3, 0.0],
        }
    }

    /// The volume (area in 2D) the lattice covers, in units of its bond length: `L^d` on the
    /// square and cubic lattices, `sqrt 3 / 2 L^2` on the triangular lattice and on the kagome
    /// lattice drawn on it (whose holes are a quarter of those sites), `3 sqrt 3 / 4 L^2` on
    /// the honeycomb lattice (a hexagon of side 1 for every two sites).
    pub fn volume(&self) -> f64 {
        let cells = self.sites() as f64;
        match self.shape {
            Shape::Triangular | Shape::Kagome => cells * 3f64.sqrt() / 2.0,
            Shape::Honeycomb => cells * 3.0 * 3f64.sqrt() / 4.0,
            Shape::Hypercubic => cells,
        }
    }

    /// Coordinates `[x, y, z]` (z = 0 in 2D) of a site index.
    pub fn coords(&self, index: u64) -> [u32; 3] {
        let l = u64::from(self.size);
        [
            (index % l) as u32,
            ((index / l) % l) as u32,
            (index / (l * l)) as u32,
        ]
    }

    /// The sublattice sign `(-1)^(x + y + z)` of site `index`, which the staggered
    /// magnetisation weights the spins by (on a bipartite lattice, [`Shape::is_bipartite`],
    /// neighbours have opposite signs).
    pub fn sublattice_sign(&self, index: u64) -> i64 {
        let [x, y, z] = self.coords(index);
        1 - 2 * i64::from((x + y + z) & 1)
    }

    /// Site index of coordinates (taken modulo L).
    pub fn index(&self, [x, y, z]: [u32; 3]) -> u64 {
        let l = u64::from(self.size);
        let (x, y, z) = (u64::from(x) % l, u64::from(y) % l, u64::from(z) % l);
        (z * l + y) * l + x
    }

    /// Site index of the `ci`-th site of `colour`.
    pub fn colour_site(&self, colour: u32, ci: u64) -> u64 {
        let colours = u64::from(self.colours());
        let per_row = u64::from(self.size) / colours;
        let l = u64::from(self.size);
        let row = ci / per_row;
        let (y, z) = (row % l, row / l);
        let first = (u64::from(colour) + colours * l - y - z) % colours;
        row * l + colours * (ci % per_row) + first
    }

    /// The colour of site `index`: `(x + y + z) mod colours`.
    pub fn colour(&self, index: u64) -> u32 {
        let [x, y, z] = self.coords(index);
        (x + y + z) % self.colours()
    }

    /// The units of `sites_per_unit` consecutive colour sites (of either colour, indexed as
    /// [`Lattice::colour_site`]'s `ci`; unit `u` holds `ci` from `u * sites_per_unit`) whose
    /// first site lies on planes `planes` of the slowest axis. The ranges of consecutive plane
    /// ranges are consecutive, and those of `0 .. L` cover every unit once: how a sweep's
    /// pieces ([`crate::engine::Step::Part`]) divide a pass's threads.
    pub fn plane_units(
        &self,
        planes: std::ops::Range<u32>,
        sites_per_unit: u64,
    ) -> std::ops::Range<u64> {
        self.units_on_planes(planes, self.sites_per_colour(), sites_per_unit)
    }

    /// [`Lattice::plane_units`] of sites numbered plane by plane, `sites` of them in all (a
    /// colour's, or every site of the lattice).
    pub fn units_on_planes(
        &self,
        planes: std::ops::Range<u32>,
        sites: u64,
        sites_per_unit: u64,
    ) -> std::ops::Range<u64> {
        let per_plane = sites / u64::from(self.size);
        let first_unit = |plane: u32| (u64::from(plane) * per_plane).div_ceil(sites_per_unit);
        first_unit(planes.start)..first_unit(planes.end)
    }

    /// The bond (`site * directions + d`, from the site whose `+d` neighbour the other is)
    /// between site `i` and `j`, its `k`-th neighbour in the order of [`Lattice::neighbours`].
    pub fn neighbour_bond(&self, i: u64, j: u64, k: usize) -> u64 {
        let (directions, d) = (u64::from(self.directions()), k as u64 / 2);
        match k % 2 {
            0 => j * directions + d,
            _ => i * directions + d,
        }
    }

    /// The nearest neighbours of a site, a pair per direction: `-x, +x, -y, +y`, then
    /// `-z, +z` (cubic) or `-(1, 1), +(1, 1)` (triangular).
    pub fn neighbours(&self, index: u64) -> impl Iterator<Item = u64> + '_ {
        let coords = self.coords(index);
        let l = self.size;
        (0..self.directions()).flat_map(move |d| {
            let step = self.step(d);
            let back = std::array::from_fn(|a| coords[a] + (l - 1) * step[a]);
            let ahead = std::array::from_fn(|a| coords[a] + step[a]);
            [self.index(back), self.index(ahead)]
        })
    }

    /// The forward neighbour of each direction (`+x, +y`, then `+z` or `+(1, 1)`): each bond
    /// counted once.
    pub fn forward_neighbours(&self, index: u64) -> impl Iterator<Item = u64> + '_ {
        self.neighbours(index).skip(1).step_by(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Consecutive plane ranges give consecutive units, `0 .. L` all of them, and each unit's
    /// first site lies on the planes of its range.
    #[test]
    fn plane_units_divide_a_colour_by_the_planes_of_first_sites() {
        for (dims, size, per_unit) in [(2, 6, 4), (3, 6, 4), (2, 8, 1), (3, 4, 3)] {
            let lattice = Lattice::new(dims, size);
            let all = lattice.sites_per_colour().div_ceil(per_unit);
            assert_eq!(lattice.plane_units(0..size, per_unit), 0..all);
            for cut in 0..=size {
                let (below, above) = (
                    lattice.plane_units(0..cut, per_unit),
                    lattice.plane_units(cut..size, per_unit),
                );
                assert_eq!(below.end, above.start);
            }
            for plane in 0..size {
                for unit in lattice.plane_units(plane..plane + 1, per_unit) {
                    let first = lattice.colour_site(0, unit * per_unit);
                    assert_eq!(lattice.coords(first)[dims as usize - 1], plane);
                }
            }
        }
    }

    #[test]
    fn colour_sites_cover_each_colour_once() {
        for lattice in [Lattice::new(2, 6), Lattice::new(3, 4)] {
            let mut seen = vec![false; lattice.sites() as usize];
            for colour in 0..2 {
                for ci in 0..lattice.sites_per_colour() {
                    let site = lattice.colour_site(colour, ci);
                    let [x, y, z] = lattice.coords(site);
                    assert_eq!((x + y + z) % 2, colour);
                    assert!(!seen[site as usize]);
                    seen[site as usize] = true;
                }
            }
            assert!(seen.iter().all(|&s| s));
        }
    }

    /// The triangular lattice's three colours cover every site once, with `x + y` their
    /// colour mod 3; each of a site's six neighbours has another colour, and the bond between
    /// them is the same from either end.
    #[test]
    fn triangular_colours_cover_the_lattice_and_neighbours_differ() {
        let lattice = Lattice::triangular(6);
        assert_eq!((lattice.colours(), lattice.sites_per_colour()), (3, 12));
        let mut seen = [false; 36];
        for colour in 0..3 {
            for ci in 0..12 {
                let site = lattice.colour_site(colour, ci);
                let [x, y, _] = lattice.coords(site);
                assert_eq!((x + y) % 3, colour);
                assert!(!std::mem::replace(&mut seen[site as usize], true));
            }
        }
        let n: Vec<u64> = lattice.neighbours(7).collect();
        assert_eq!(n, vec![6, 8, 1, 13, 0, 14]);
        for i in 0..36 {
            for (k, j) in lattice.neighbours(i).enumerate() {
                assert_ne!(lattice.colour(i), lattice.colour(j));
                let back = lattice.neighbours(j).position(|m| m == i).unwrap();
                let bond = lattice.neighbour_bond(i, j, k);
                assert_eq!(lattice.neighbour_bond(j, i, back), bond);
            }
        }
    }

    #[test]
    fn neighbours_have_the_other_colour_and_wrap() {
        let lattice = Lattice::new(3, 4);
        let n: Vec<u64> = lattice.neighbours(0).collect();
        assert_eq!(n, vec![3, 1, 12, 4, 48, 16]);
        let f: Vec<u64> = lattice.forward_neighbours(0).collect();
        assert_eq!(f, vec![1, 4, 16]);
    }
}
