//! CPU mirror of `shaders/wgsl/metropolis_simple.wgsl`: checkerboard Metropolis, one spin per word.
//!
//! Thread `g` of the kernel updates colour sites `4g .. 4g+3` with the four words of the Philox
//! block `(word = g, sweep, MetropolisSimple, colour, batch)`; a dispatch updates a range of
//! groups, all of them for a whole colour or those of a piece of a sweep
//! ([`crate::engine::backend::simple::part_groups`]). Here blocks of groups decide
//! their flips on rayon's pool and the flips are applied after: a site's decision reads its own
//! spin and its neighbours, which are all of the other colour, so the order of the decisions
//! does not matter and the lattice is the kernel's bit for bit.

use std::ops::Range;

use rayon::prelude::*;

use crate::model::Lattice;
use crate::model::ising::{IsingSystems, table_index};
use crate::rng::{Counter, Purpose, random_block};

/// Groups of four colour sites one task decides.
const GROUPS_PER_TASK: u64 = 1 << 12;
/// Groups decided before their flips are applied: it bounds the list of flips.
const GROUPS_PER_PASS: u64 = 1 << 20;

/// Update the sites of `colour` in groups `groups` (of four colour sites; every group for the
/// whole colour) of one system's lattice `spins` (local system index `batch`; its randoms are
/// the run's system's, [`SystemIndex::global_system`]).
///
/// [`SystemIndex::global_system`]: crate::model::systems::SystemIndex::global_system
pub fn sweep_colour(
    systems: &IsingSystems,
    thresholds: &[u32],
    spins: &mut [i32],
    (batch, sweep, colour): (u32, u32, u32),
    groups: Range<u32>,
) {
    let (update, split) = ((batch, sweep, colour), (GROUPS_PER_TASK, GROUPS_PER_PASS));
    sweep_colour_split(systems, thresholds, spins, update, groups, split);
}

/// [`sweep_colour`] with `groups_per_task` groups decided by one task and `groups_per_pass`
/// before their flips are applied.
fn sweep_colour_split(
    systems: &IsingSystems,
    thresholds: &[u32],
    spins: &mut [i32],
    (batch, sweep, colour): (u32, u32, u32),
    groups: Range<u32>,
    (groups_per_task, groups_per_pass): (u64, u64),
) {
    let table_len = systems.table_len() as usize;
    let temperature = systems.temperature_of(batch) as usize;
    let decide = Decide {
        systems,
        table: &thresholds[temperature * table_len..][..table_len],
        global: systems.global_system(batch),
        sweep,
        colour,
    };
    let groups = u64::from(groups.start)..u64::from(groups.end);
    for pass in groups.clone().step_by(groups_per_pass as usize) {
        let end = (pass + groups_per_pass).min(groups.end);
        let tasks: Vec<u64> = (pass..end).step_by(groups_per_task as usize).collect();
        let flips: Vec<Vec<usize>> = tasks
            .par_iter()
            .map(|&first| decide.flips(spins, first..(first + groups_per_task).min(end)))
            .collect();
        for site in flips.into_iter().flatten() {
            spins[site] = -spins[site];
        }
    }
}

/// The Metropolis decisions of one system's sites of one colour in one sweep.
struct Decide<'a> {
    systems: &'a IsingSystems,
    /// The acceptance thresholds of the system's temperature.
    table: &'a [u32],
    global: u32,
    sweep: u32,
    colour: u32,
}

impl Decide<'_> {
    /// The sites of the groups `groups` whose spins flip.
    fn flips(&self, spins: &[i32], groups: Range<u64>) -> Vec<usize> {
        let lattice = self.systems.lattice;
        let z = lattice.coordination();
        let per_colour = lattice.sites_per_colour();
        let mut flips = Vec::new();
        for group in groups {
            let counter = Counter {
                word: group as u32,
                sweep: self.sweep,
                purpose: Purpose::MetropolisSimple,
                colour: self.colour,
                draw: 0,
                batch: self.global,
            };
            let randoms = random_block(self.systems.seed, counter);
            for (j, &random) in randoms.iter().enumerate() {
                let ci = 4 * group + j as u64;
                if ci >= per_colour {
                    break;
                }
                let site = lattice.colour_site(self.colour, ci) as usize;
                let up = spins[site] > 0;
                let neighbour_sum = neighbour_sum(&lattice, spins, site as u64);
                if random <= self.table[table_index(z, up, neighbour_sum)] {
                    flips.push(site);
                }
            }
        }
        flips
    }
}

fn neighbour_sum(lattice: &Lattice, spins: &[i32], site: u64) -> i32 {
    lattice.neighbours(site).map(|n| spins[n as usize]).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::backend::simple::{all_groups, part_groups};
    use crate::engine::cpu::hot_start::initial_spins;
    use crate::model::ising::IsingSystems;

    /// Decisions split into tasks of one group and passes of three give the lattice of one task
    /// deciding every site: the order of a colour's decisions does not matter.
    #[test]
    fn any_split_of_a_colour_gives_the_same_lattice() {
        let systems = IsingSystems::ferromagnet(Lattice::new(3, 6), 0.0, vec![0.3], 1, 1);
        let thresholds = systems.thresholds();
        let start = initial_spins(&systems).to_signs();
        let after = |split: (u64, u64)| {
            let mut spins = start.clone();
            for (sweep, colour) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                let (update, groups) = ((0, sweep, colour), all_groups(&systems.lattice));
                sweep_colour_split(&systems, &thresholds, &mut spins, update, groups, split);
            }
            spins
        };
        let whole = after((u64::MAX / 2, u64::MAX / 2));
        assert_ne!(whole, start, "some spins flip");
        assert_eq!(after((1, 3)), whole);
        assert_eq!(after((5, 64)), whole);
    }

    /// A colour updated in pieces, the groups of consecutive plane ranges (empty ones, and cuts
    /// inside a group where a plane holds no whole number of groups), gives the lattice of the
    /// whole colour.
    #[test]
    fn pieces_of_a_colour_give_the_whole_colour() {
        for (dims, size) in [(2, 2), (2, 6), (3, 6)] {
            let lattice = Lattice::new(dims, size);
            let systems = IsingSystems::ferromagnet(lattice, 0.0, vec![0.3], 1, 1);
            let thresholds = systems.thresholds();
            let start = initial_spins(&systems).to_signs();
            let after = |cuts: &[u32]| {
                let mut spins = start.clone();
                for (sweep, colour) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                    for planes in cuts.windows(2) {
                        let groups = part_groups(&lattice, planes[0]..planes[1]);
                        sweep_colour(
                            &systems,
                            &thresholds,
                            &mut spins,
                            (0, sweep, colour),
                            groups,
                        );
                    }
                }
                spins
            };
            let whole = after(&[0, size]);
            assert_ne!(whole, start, "some spins flip");
            let every_plane: Vec<u32> = (0..=size).collect();
            assert_eq!(after(&every_plane), whole);
            assert_eq!(after(&[0, 1, 1, size - 1, size, size]), whole);
        }
    }
}
