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

pub mod boundaries;
pub(crate) mod checks;
pub mod couplings;
pub mod ising;
pub mod systems;
pub mod vacancies;
pub mod vector;

/// A periodic square (2D) or simple-cubic (3D) lattice of even linear size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lattice {
    pub dims: u32,
    pub size: u32,
}

impl Lattice {
    /// The lattice, for `dims` 2 or 3 and an even `size` >= 2 (the config validates this).
    pub fn new(dims: u32, size: u32) -> Self {
        assert!(dims == 2 || dims == 3, "dims must be 2 or 3");
        assert!(size >= 2 && size.is_multiple_of(2), "size must be even");
        Lattice { dims, size }
    }

    /// Number of sites, `L^d`.
    pub fn sites(&self) -> u64 {
        u64::from(self.size).pow(self.dims)
    }

    /// Number of sites of one checkerboard colour.
    pub fn sites_per_colour(&self) -> u64 {
        self.sites() / 2
    }

    /// Coordination number `z = 2d`.
    pub fn coordination(&self) -> u32 {
        2 * self.dims
    }

    /// Number of nearest-neighbour bonds, `d N`.
    pub fn bonds(&self) -> u64 {
        u64::from(self.dims) * self.sites()
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

    /// Site index of coordinates (taken modulo L).
    pub fn index(&self, [x, y, z]: [u32; 3]) -> u64 {
        let l = u64::from(self.size);
        let (x, y, z) = (u64::from(x) % l, u64::from(y) % l, u64::from(z) % l);
        (z * l + y) * l + x
    }

    /// Site index of the `ci`-th site of `colour`.
    pub fn colour_site(&self, colour: u32, ci: u64) -> u64 {
        let half = u64::from(self.size / 2);
        let l = u64::from(self.size);
        let row = ci / half;
        let (y, z) = (row % l, row / l);
        let x = 2 * (ci % half) + ((y + z + u64::from(colour)) & 1);
        row * l + x
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

    /// The bond (`site * dims + d`, from the site whose `+d` neighbour the other is) between
    /// site `i` and `j`, its `k`-th neighbour in the order of [`Lattice::neighbours`].
    pub fn neighbour_bond(&self, i: u64, j: u64, k: usize) -> u64 {
        let (dims, d) = (u64::from(self.dims), k as u64 / 2);
        match k % 2 {
            0 => j * dims + d,
            _ => i * dims + d,
        }
    }

    /// The `2d` nearest neighbours of a site: `-x, +x, -y, +y[, -z, +z]`.
    pub fn neighbours(&self, index: u64) -> impl Iterator<Item = u64> + '_ {
        let [x, y, z] = self.coords(index);
        let l = self.size;
        let dims = self.dims as usize;
        let steps: [[u32; 3]; 6] = [
            [x + l - 1, y, z],
            [x + 1, y, z],
            [x, y + l - 1, z],
            [x, y + 1, z],
            [x, y, z + l - 1],
            [x, y, z + 1],
        ];
        steps.into_iter().take(2 * dims).map(move |c| self.index(c))
    }

    /// The `d` forward neighbours (`+x, +y[, +z]`): each bond counted once.
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

    #[test]
    fn neighbours_have_the_other_colour_and_wrap() {
        let lattice = Lattice::new(3, 4);
        let n: Vec<u64> = lattice.neighbours(0).collect();
        assert_eq!(n, vec![3, 1, 12, 4, 48, 16]);
        let f: Vec<u64> = lattice.forward_neighbours(0).collect();
        assert_eq!(f, vec![1, 4, 16]);
    }
}
