//! The double checkerboard's tiles (Weigel 2012), the geometry every backend's `vector_tiles`
//! shares: cubes of `size` sites a side (squares in 2D), `L / size` of them along each axis,
//! coloured by the parity of the sum of their tile coordinates. The tiles of one colour share
//! no bond (an even number of tiles per side keeps the colouring periodic), so each can be
//! updated alone with its one-site halo, the neighbouring tiles' spins, held fixed.
//!
//! Tiles of colour `T` are numbered as the sites of checkerboard colour `T` are
//! ([`Lattice::colour_site`] on the lattice of tiles), and the sites of colour `c` within a
//! tile as those of colour `c` on a lattice of side `size` (the tile's origin has even
//! coordinates, so a site's colour within the tile is its colour in the lattice). A GPU keeps
//! a tile and its halo, `(size + 2)^d` sites of `n` components, in workgroup memory.

use std::ops::Range;

use crate::model::Lattice;
use crate::model::vector::fixed::QUARTER_TURNS;

/// Workgroup memory a tile and its halo may take: WebGPU's default limit (16 KiB), less room
/// for the kernel's own counters. With the words its hits carry and the angle table, the
/// kernel of such a tile takes at most [`MAX_WORKGROUP_BYTES`] ([`Tiles::workgroup_bytes`]).
pub const MAX_TILE_BYTES: u64 = 16 * 1024 - 256;

/// Workgroup memory the tile kernel of any valid config fits: what Metal, lavapipe and the
/// desktop Vulkan drivers give a workgroup (each GPU engine checks its adapter's own limit).
pub const MAX_WORKGROUP_BYTES: u64 = 32 * 1024;

/// The tiles of a lattice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tiles {
    pub lattice: Lattice,
    /// Sites along a side of a tile.
    pub size: u32,
}

impl Tiles {
    /// Tiles along each axis.
    pub fn per_side(&self) -> u32 {
        self.lattice.size / self.size
    }

    /// Tiles of one colour.
    pub fn per_colour(&self) -> u64 {
        u64::from(self.per_side()).pow(self.lattice.dims) / 2
    }

    /// Sites of a tile.
    pub fn sites(&self) -> u64 {
        u64::from(self.size).pow(self.lattice.dims)
    }

    /// Sites of a tile with its halo, `(size + 2)^d`: what a workgroup loads.
    pub fn padded_sites(&self) -> u64 {
        u64::from(self.size + 2).pow(self.lattice.dims)
    }

    /// Bytes of workgroup memory a tile of `components`-vectors and its halo take.
    pub fn bytes(&self, components: u32) -> u64 {
        4 * u64::from(components) * self.padded_sites()
    }

    /// Bytes of workgroup memory the tile kernel takes: the tile and its halo, the two words
    /// an XY pair's first hit leaves each site for its second (`vector_metropolis`'s
    /// `HitWords`; one word for other spins), the quarter turn's table of the proposals'
    /// angles and the accepted count.
    pub fn workgroup_bytes(&self, components: u32) -> u64 {
        let spares = match components {
            2 => 8 * self.sites(),
            _ => 4,
        };
        let angles = 8 * QUARTER_TURNS as u64;
        self.bytes(components) + spares + angles + 4
    }

    /// The lattice of tiles, whose sites are the tiles.
    fn tile_lattice(&self) -> Lattice {
        Lattice::new(self.lattice.dims, self.per_side())
    }

    /// The coordinates of the first site of tile `q` of colour `colour`.
    pub fn origin(&self, colour: u32, q: u64) -> [u32; 3] {
        let tiles = self.tile_lattice();
        tiles
            .coords(tiles.colour_site(colour, q))
            .map(|t| t * self.size)
    }

    /// The tiles of either colour (numbered as [`Tiles::origin`]'s `q`) whose first site lies
    /// on planes `planes` of the lattice's slowest axis: a tile's share of a piece of a sweep
    /// ([`crate::engine::Step::Part`]), as [`Lattice::plane_units`] is a site's. The tiles of
    /// consecutive plane ranges are consecutive, and those of `0 .. L` are all of a colour.
    pub fn plane_tiles(&self, planes: Range<u32>) -> Range<u64> {
        // A tile's first site lies on plane `t size` of its tile plane `t`.
        let tile_planes = planes.start.div_ceil(self.size)..planes.end.div_ceil(self.size);
        self.tile_lattice().plane_units(tile_planes, 1)
    }

    /// The site of the `ci`-th site of colour `colour` of the tile at `origin`.
    pub fn site(&self, origin: [u32; 3], colour: u32, ci: u64) -> u64 {
        let tile = Lattice::new(self.lattice.dims, self.size);
        let local = tile.coords(tile.colour_site(colour, ci));
        self.lattice.index([0, 1, 2].map(|a| origin[a] + local[a]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The promise of [`MAX_TILE_BYTES`]: every tile whose halo fits it (2D and 3D, circle and
    /// sphere, every even size) runs in [`MAX_WORKGROUP_BYTES`] with what its kernel adds.
    #[test]
    fn every_valid_tile_kernel_fits_the_workgroup_memory_of_every_adapter() {
        let mut largest = 0;
        for (dims, components) in [(2, 2), (2, 3), (3, 2), (3, 3)] {
            for size in (2..).step_by(2) {
                let tiles = Tiles {
                    lattice: Lattice::new(dims, 4 * size),
                    size,
                };
                if tiles.bytes(components) > MAX_TILE_BYTES {
                    break;
                }
                largest = largest.max(tiles.workgroup_bytes(components));
            }
        }
        assert!(largest <= MAX_WORKGROUP_BYTES, "{largest} bytes");
        assert!(
            largest > MAX_WORKGROUP_BYTES - 2048,
            "{largest} bytes: the bound is not tight"
        );
    }

    #[test]
    fn the_tiles_of_both_colours_cover_every_site_once_and_keep_its_colour() {
        for (dims, size, tile) in [(2, 8, 2), (2, 12, 6), (3, 8, 2), (3, 8, 4)] {
            let tiles = Tiles {
                lattice: Lattice::new(dims, size),
                size: tile,
            };
            let mut seen = vec![0u32; tiles.lattice.sites() as usize];
            for t in 0..2 {
                for q in 0..tiles.per_colour() {
                    let origin = tiles.origin(t, q);
                    let tile_colour = origin.iter().map(|o| o / tile).sum::<u32>() % 2;
                    assert_eq!(tile_colour, t, "{dims}D L={size} B={tile}: tile {q}");
                    for c in 0..2 {
                        for ci in 0..tiles.sites() / 2 {
                            let i = tiles.site(origin, c, ci);
                            let colour = tiles.lattice.coords(i).iter().sum::<u32>() % 2;
                            assert_eq!(colour, c);
                            seen[i as usize] += 1;
                        }
                    }
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{dims}D L={size} B={tile}");
        }
    }

    /// Consecutive plane ranges give consecutive tiles, `0 .. L` all of a colour, and each
    /// tile's origin lies on the planes of its range.
    #[test]
    fn plane_tiles_divide_a_colour_by_the_planes_of_origins() {
        for (dims, size, tile) in [(2, 8, 2), (2, 12, 6), (3, 8, 2), (3, 8, 4)] {
            let tiles = Tiles {
                lattice: Lattice::new(dims, size),
                size: tile,
            };
            assert_eq!(tiles.plane_tiles(0..size), 0..tiles.per_colour());
            for cut in 0..=size {
                let below = tiles.plane_tiles(0..cut);
                assert_eq!(below.end, tiles.plane_tiles(cut..size).start);
            }
            for plane in 0..size {
                for q in tiles.plane_tiles(plane..plane + 1) {
                    for colour in 0..2 {
                        let origin = tiles.origin(colour, q);
                        assert_eq!(
                            origin[dims as usize - 1],
                            plane,
                            "{dims}D L={size} B={tile}"
                        );
                    }
                }
            }
        }
    }
}
