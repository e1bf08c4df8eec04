//! CPU twin of `vector_hot_start`: every spin of a vector-spin lattice uniform on the circle or
//! sphere (over a clock model's angles), every discrete state uniform over the `q`. Site `i` of
//! system `b` takes the point ([`propose`] with [`UNIFORM`]) of block
//! `(i, 0, VectorInitialSpins, 0, 0, b)`, or the state `mulhi(w_0, q)` of its word 0.

use super::vector_metropolis::{UNIFORM, propose};
use crate::model::vector::fixed::{Directions, ONE, Vector, mulhi};
use crate::rng::{Counter, Purpose, random_block};

/// The block of site `i` of the run's system `system`.
fn initial_block(seed: u64, system: u32, i: u64) -> [u32; 4] {
    let counter = Counter {
        word: i as u32,
        sweep: 0,
        purpose: Purpose::VectorInitialSpins,
        colour: 0,
        draw: 0,
        batch: system,
    };
    random_block(seed, counter)
}

/// The initial spin of site `i` of the run's system `system`, of `directions`.
pub fn initial_spin(seed: u64, system: u32, i: u64, directions: Directions) -> Vector {
    // A point of the sphere is never the zero vector: the fallback is never taken.
    let words = initial_block(seed, system, i);
    propose(&words, &[0; 3], UNIFORM, directions).unwrap_or([ONE, 0, 0])
}

/// The initial lattice of discrete states `0 .. q` of the run's system `system`.
pub fn initial_states(seed: u64, system: u32, sites: u64, q: u32) -> Vec<i32> {
    (0..sites)
        .map(|i| mulhi(initial_block(seed, system, i)[0], q) as i32)
        .collect()
}

/// The initial lattice of the run's system `system` of `sites` sites, component-major.
pub fn initial_lattice(seed: u64, system: u32, sites: u64, directions: Directions) -> Vec<i32> {
    let n = directions.n;
    let mut spins = vec![0; n * sites as usize];
    for i in 0..sites {
        let s = initial_spin(seed, system, i, directions);
        for a in 0..n {
            spins[a * sites as usize + i as usize] = s[a];
        }
    }
    spins
}
