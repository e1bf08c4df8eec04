//! Couplings `J_ij` of the ferromagnet and of the Edwards-Anderson +-J spin glass.
//!
//! Every bond is the forward bond of one site: bond `site * dims + d` joins `site` to its
//! neighbour in direction `+d` (d = 0: +x, 1: +y, 2: +z), so each bond is listed once. A
//! bimodal sample draws one bit per bond from Philox, independently of how any engine packs it:
//! bit `i` of sample `s` is bit `i mod 32` of word `(i / 32) mod 4` of the block
//! `(word = i / 128, sweep 0, Couplings, colour 0, batch s)`. Bit 1 means an antiferromagnetic
//! bond, `J = -1`. A sample's couplings are thus the same for every layout, lane assignment and
//! backend.

use super::Lattice;
use crate::config::Disorder;
use crate::rng::{Counter, Purpose, random_block};

/// The antiferromagnetic-bond bits of one sample, 32 bonds per word (bond `i` is bit `i mod 32`
/// of word `i / 32`); all zero for the ferromagnet.
pub fn antiferromagnetic_bonds(
    disorder: Disorder,
    lattice: &Lattice,
    seed: u64,
    sample: u32,
) -> Vec<u32> {
    let words = (lattice.bonds() as usize).div_ceil(32);
    match disorder {
        Disorder::Ferromagnet => vec![0; words],
        Disorder::Bimodal => (0..words.div_ceil(4))
            .flat_map(|block| {
                let counter = Counter {
                    // 128 bonds per block: below 2^32 blocks for every lattice the config takes.
                    word: u32::try_from(block).expect("fewer than 2^39 bonds per sample"),
                    sweep: 0,
                    purpose: Purpose::Couplings,
                    colour: 0,
                    draw: 0,
                    batch: sample,
                };
                random_block(seed, counter)
            })
            .take(words)
            .collect(),
    }
}

/// Whether bond `bond` is antiferromagnetic in the bits of [`antiferromagnetic_bonds`].
pub fn is_antiferromagnetic(bits: &[u32], bond: u64) -> bool {
    bits[(bond / 32) as usize] >> (bond % 32) & 1 == 1
}

/// The couplings of one sample as `J = +-1` per bond (`site * dims + d`), for exact
/// enumeration and readers that want plain numbers.
pub fn coupling_values(disorder: Disorder, lattice: &Lattice, seed: u64, sample: u32) -> Vec<i8> {
    let bits = antiferromagnetic_bonds(disorder, lattice, seed, sample);
    (0..lattice.bonds())
        .map(|bond| {
            if is_antiferromagnetic(&bits, bond) {
                -1
            } else {
                1
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bimodal_bonds_are_balanced_and_differ_between_samples() {
        let lattice = Lattice::new(3, 16);
        let a = coupling_values(Disorder::Bimodal, &lattice, 9, 0);
        let b = coupling_values(Disorder::Bimodal, &lattice, 9, 1);
        assert_eq!(a.len(), 3 * 4096);
        let negative = a.iter().filter(|&&j| j < 0).count() as f64;
        // Binomial(12288, 1/2): 4 sigma is 222.
        assert!((negative - 6144.0).abs() < 222.0, "{negative}");
        let same = a.iter().zip(&b).filter(|(x, y)| x == y).count() as f64;
        assert!(
            (same - 6144.0).abs() < 222.0,
            "samples are independent: {same}"
        );
        assert_eq!(a, coupling_values(Disorder::Bimodal, &lattice, 9, 0));
    }

    #[test]
    fn ferromagnet_has_only_positive_bonds() {
        let lattice = Lattice::new(2, 6);
        let j = coupling_values(Disorder::Ferromagnet, &lattice, 9, 0);
        assert_eq!(j, vec![1; 72]);
    }

    #[test]
    fn bond_bits_follow_the_philox_blocks() {
        let lattice = Lattice::new(2, 16);
        let bits = antiferromagnetic_bonds(Disorder::Bimodal, &lattice, 5, 3);
        let block = |word| {
            random_block(
                5,
                Counter {
                    word,
                    sweep: 0,
                    purpose: Purpose::Couplings,
                    colour: 0,
                    draw: 0,
                    batch: 3,
                },
            )
        };
        assert_eq!(bits[..4], block(0));
        assert_eq!(bits[4..8], block(1));
        assert_eq!(bits.len(), 16);
    }
}
