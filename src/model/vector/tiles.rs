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

use crate::model::Lattice;

/// Workgroup memory a tile and its halo may take: WebGPU's default limit (16 KiB), less room
/// for the kernel's own counters, so that any adapter runs any valid config.
pub const MAX_TILE_BYTES: u64 = 16 * 1024 - 256;

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

    /// The coordinates of the first site of tile `q` of colour `colour`.
    pub fn origin(&self, colour: u32, q: u64) -> [u32; 3] {
        let tiles = Lattice {
            dims: self.lattice.dims,
            size: self.per_side(),
        };
        tiles
            .coords(tiles.colour_site(colour, q))
            .map(|t| t * self.size)
    }

    /// The site of the `ci`-th site of colour `colour` of the tile at `origin`.
    pub fn site(&self, origin: [u32; 3], colour: u32, ci: u64) -> u64 {
        let tile = Lattice {
            dims: self.lattice.dims,
            size: self.size,
        };
        let local = tile.coords(tile.colour_site(colour, ci));
        self.lattice.index([0, 1, 2].map(|a| origin[a] + local[a]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
