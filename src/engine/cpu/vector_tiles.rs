//! CPU twin of `vector_tiles` (`shaders/wgsl/vector_tiles.wgsl`, `shaders/cuda/vector_tiles.cu`):
//! Weigel's (2012) double checkerboard on one vector-spin lattice. Every tile of one tile colour
//! ([`Tiles`]) updates its sites `hits` times, each hit over the tile's sites of checkerboard
//! colour 0, then of colour 1, one Metropolis hit per site against its current neighbours; the
//! halo (the other tile colour's spins) is held fixed. The tiles of a colour share no bond, so
//! they are updated one after another here and all at once on a GPU, with the same result.
//!
//! Randoms: as [`super::vector_metropolis`]'s, hit `hit` of site `i` (of colour `c`) at sweep
//! `t` takes the words [`HitWords`] gives it from the blocks `(i, t, VectorMetropolis, d, c,
//! b)`: the site fixes its colour and tile, so the plain checkerboard with the same hits draws
//! the same words.

use std::ops::Range;

use super::vector_metropolis::{HEAT_BATH, HitWords, SiteUpdate, SweepKey, metropolis_hit};
use crate::model::vector::tiles::Tiles;

/// The double checkerboard on the tiles `which` (numbered as [`Tiles::origin`]'s `q`; `0 ..`
/// [`Tiles::per_colour`] all) of colour `key.colour` of one system's `spins` (component-major),
/// `hits` proposals per site, with the proposal `width` and the acceptance `table` of its
/// temperature; returns the accepted moves.
pub fn tiles_colour(
    update: &SiteUpdate,
    spins: &mut [i32],
    (tiles, key, which): (Tiles, SweepKey, Range<u64>),
    (width, hits): (i32, u32),
    table: &[u32],
) -> u64 {
    let n = update.directions.n;
    let heat_bath = width == HEAT_BATH;
    // The words each site's earlier hits left for its later ones, colour-major: every tile's
    // sites in turn (a pair's first hit leaves them before its second takes them).
    let mut randoms = vec![HitWords::default(); tiles.sites() as usize];
    let mut accepted = 0;
    for q in which {
        let origin = tiles.origin(key.colour, q);
        for hit in 0..hits {
            for colour in 0..2 {
                let site_key = SweepKey { colour, ..key };
                for ci in 0..tiles.sites() / 2 {
                    let i = tiles.site(origin, colour, ci);
                    let h = update.local_field(spins, i);
                    let mut s = update.spin(spins, i);
                    let proposal = (&mut s, &h);
                    let site_randoms =
                        &mut randoms[(u64::from(colour) * tiles.sites() / 2 + ci) as usize];
                    let words = site_randoms.next((&site_key, i, hit), n, heat_bath);
                    if metropolis_hit(update, &words, proposal, (width, table)) {
                        update.set_spin(spins, i, &s);
                        accepted += 1;
                    }
                }
            }
        }
    }
    accepted
}
