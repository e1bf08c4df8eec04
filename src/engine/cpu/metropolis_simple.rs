//! CPU mirror of `shaders/wgsl/metropolis_simple.wgsl`: checkerboard Metropolis, one spin per word.
//!
//! Thread `g` of the kernel updates colour sites `4g .. 4g+3` with the four words of the Philox
//! block `(word = g, sweep, MetropolisSimple, colour, batch)`; here the same loop runs serially.

use crate::model::Lattice;
use crate::model::ising::{IsingSystems, table_index};
use crate::rng::{Counter, Purpose, random_block};

/// Update every site of `colour` in one system's lattice `spins` (local system index `batch`;
/// its randoms are the run's system's, [`SystemIndex::global_system`]).
///
/// [`SystemIndex::global_system`]: crate::model::systems::SystemIndex::global_system
pub fn sweep_colour(
    systems: &IsingSystems,
    thresholds: &[u32],
    spins: &mut [i32],
    batch: u32,
    sweep: u32,
    colour: u32,
) {
    let lattice = systems.lattice;
    let z = lattice.coordination();
    let table_len = systems.table_len() as usize;
    let temperature = systems.temperature_of(batch) as usize;
    let table = &thresholds[temperature * table_len..][..table_len];
    let per_colour = lattice.sites_per_colour();
    let global = systems.global_system(batch);
    for group in 0..per_colour.div_ceil(4) {
        let counter = Counter {
            word: group as u32,
            sweep,
            purpose: Purpose::MetropolisSimple,
            colour,
            draw: 0,
            batch: global,
        };
        let randoms = random_block(systems.seed, counter);
        for (j, &random) in randoms.iter().enumerate() {
            let ci = 4 * group + j as u64;
            if ci >= per_colour {
                break;
            }
            let site = lattice.colour_site(colour, ci) as usize;
            let spin = spins[site];
            let neighbour_sum = neighbour_sum(&lattice, spins, site as u64);
            if random <= table[table_index(z, spin > 0, neighbour_sum)] {
                spins[site] = -spin;
            }
        }
    }
}

fn neighbour_sum(lattice: &Lattice, spins: &[i32], site: u64) -> i32 {
    lattice.neighbours(site).map(|n| spins[n as usize]).sum()
}
