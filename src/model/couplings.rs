//! Couplings `J_ij` of the ferromagnet and of the Edwards-Anderson +-J spin glass, and the
//! instance a config gives any spin glass.
//!
//! Every bond is the forward bond of one site: bond `site * directions + d` joins `site` to its
//! neighbour in direction `+d` (d = 0: +x, 1: +y, 2: +z or the triangular lattice's diagonal
//! +(1, 1)), so each bond is listed once. A
//! bimodal sample draws one bit per bond from Philox, independently of how any engine packs it:
//! bit `i` of sample `s` is bit `i mod 32` of word `(i / 32) mod 4` of the block
//! `(word = i / 128, sweep 0, Couplings, colour 0, batch s)`. Bit 1 means an antiferromagnetic
//! bond, `J = -1`. A sample's couplings are thus the same for every layout, lane assignment and
//! backend.

use std::fmt::Display;

use super::Lattice;
use super::lattices::is_gap;
use super::vector::fixed::{GAUSSIAN_FRACTION_BITS, MAX_GAUSSIAN_COUPLING, exact_coupling_word};
use crate::config::Disorder;
use crate::error::{Error, Result};
use crate::rng::{Counter, Purpose, random_block};

/// A spin glass's couplings given by the user (`couplings: File(..)`) for the samples of a
/// whole run, in the form the models take them.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    /// Where the couplings came from, as the summary records it.
    pub source: String,
    /// FNV-1a 64 of the file's bytes: it joins the config's fingerprint, so a checkpoint
    /// resumes only with the instance it was written with.
    pub checksum: u64,
    couplings: InstanceCouplings,
}

/// The couplings of an instance's samples, a sample's after another.
#[derive(Debug, Clone, PartialEq)]
pub enum InstanceCouplings {
    /// `J = +-1`: the antiferromagnetic-bond bits, in the layout of [`antiferromagnetic_bonds`]
    /// (the Edwards-Anderson glass and the bimodal vector glasses).
    Bimodal(Vec<Vec<u32>>),
    /// Gaussian `J`: the fixed-point words, one per bond `site * dims + d`
    /// ([`crate::model::vector::gaussian`]).
    Gaussian(Vec<Vec<i32>>),
}

impl Instance {
    /// The instance of `samples` samples of `lattice` whose couplings are `values`, `J = +-1`
    /// per bond (`site * dims + d`), sample after sample; refused, naming the first bond that
    /// is neither, unless every value is `+-1`.
    pub fn from_values(
        values: impl ExactSizeIterator<Item = i8>,
        lattice: &Lattice,
        samples: u32,
        (source, checksum): (String, u64),
    ) -> Result<Self> {
        let bonds_per_sample = lattice.bonds() as usize;
        assert_eq!(values.len(), samples as usize * bonds_per_sample);
        let mut bonds = vec![vec![0u32; bonds_per_sample.div_ceil(32)]; samples as usize];
        for (i, j) in values.enumerate() {
            let (sample, bond) = (i / bonds_per_sample, i % bonds_per_sample);
            match j {
                1 => {}
                -1 => bonds[sample][bond / 32] |= 1 << (bond % 32),
                _ => return Err(refused(&source, "couplings are +1 or -1", lattice, i, j)),
            }
        }
        Ok(Instance::from_bonds(source, checksum, bonds))
    }

    /// The instance of `samples` samples of `lattice` whose Gaussian couplings are `values`,
    /// per bond (`site * dims + d`), sample after sample; refused, naming the first, unless
    /// every value is one the engines' fixed point holds exactly (as every drawn one is).
    pub fn from_gaussian_values(
        values: impl ExactSizeIterator<Item = f64>,
        lattice: &Lattice,
        samples: u32,
        (source, checksum): (String, u64),
    ) -> Result<Self> {
        let bonds_per_sample = lattice.bonds() as usize;
        assert_eq!(values.len(), samples as usize * bonds_per_sample);
        let mut words: Vec<Vec<i32>> = (0..samples)
            .map(|_| Vec::with_capacity(bonds_per_sample))
            .collect();
        for (i, j) in values.enumerate() {
            let Some(word) = exact_coupling_word(j) else {
                let rule = format!(
                    "Gaussian couplings are multiples of 2^-{GAUSSIAN_FRACTION_BITS} with |J| <= \
                     {MAX_GAUSSIAN_COUPLING} (the fixed point every engine computes in)"
                );
                return Err(refused(&source, &rule, lattice, i, j));
            };
            words[i / bonds_per_sample].push(word);
        }
        Ok(Instance {
            source,
            checksum,
            couplings: InstanceCouplings::Gaussian(words),
        })
    }

    /// The instance of the antiferromagnetic-bond bits `bonds`, a sample's after another (as
    /// [`Instance::bonds`] gives them).
    pub fn from_bonds(source: String, checksum: u64, bonds: Vec<Vec<u32>>) -> Self {
        Instance {
            source,
            checksum,
            couplings: InstanceCouplings::Bimodal(bonds),
        }
    }

    /// The run's samples.
    pub fn samples(&self) -> u32 {
        match &self.couplings {
            InstanceCouplings::Bimodal(bonds) => bonds.len() as u32,
            InstanceCouplings::Gaussian(words) => words.len() as u32,
        }
    }

    /// The couplings of every sample.
    pub fn couplings(&self) -> &InstanceCouplings {
        &self.couplings
    }

    /// The antiferromagnetic-bond bits of the run's sample `sample` of a `+-J` instance (the
    /// only one the Ising models take).
    pub fn bonds(&self, sample: u32) -> &[u32] {
        match &self.couplings {
            InstanceCouplings::Bimodal(bonds) => &bonds[sample as usize],
            InstanceCouplings::Gaussian(_) => {
                unreachable!("Gaussian couplings are no bits (the Ising models refuse them)")
            }
        }
    }
}

/// The refusal of value `value` of a couplings file `source` (index `i`, sample after sample,
/// of the bonds of `lattice`), which breaks `rule`.
fn refused(source: &str, rule: &str, lattice: &Lattice, i: usize, value: impl Display) -> Error {
    let bonds_per_sample = lattice.bonds() as usize;
    let (sample, bond) = (i / bonds_per_sample, i % bonds_per_sample);
    let directions = lattice.directions() as usize;
    Error::Usage(format!(
        "{source}: {rule}, but sample {sample}, site {}, direction {} holds {value}",
        bond / directions,
        bond % directions,
    ))
}

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
        Disorder::Gaussian => {
            unreachable!("Gaussian couplings are no bits (model::vector::gaussian)")
        }
        Disorder::Bimodal => (0..words.div_ceil(4))
            .flat_map(|block| {
                // 128 bonds per block: below 2^32 blocks for every lattice the config takes.
                let block = u32::try_from(block).expect("fewer than 2^39 bonds per sample");
                couplings_block(seed, block, BIMODAL_DRAW, sample)
            })
            .take(words)
            .collect(),
    }
}

/// The `draw` of the couplings' Philox blocks of the +-J bits (the Gaussian couplings take
/// another, `model::vector::gaussian`).
const BIMODAL_DRAW: u32 = 0;

/// Philox block `block` of the couplings of sample `sample`, draw `draw`: the random words every
/// kind of drawn coupling is made from.
pub fn couplings_block(seed: u64, block: u32, draw: u32, sample: u32) -> [u32; 4] {
    let counter = Counter {
        word: block,
        sweep: 0,
        purpose: Purpose::Couplings,
        colour: 0,
        draw,
        batch: sample,
    };
    random_block(seed, counter)
}

/// Whether bond `bond` is antiferromagnetic in the bits of [`antiferromagnetic_bonds`].
pub fn is_antiferromagnetic(bits: &[u32], bond: u64) -> bool {
    bits[(bond / 32) as usize] >> (bond % 32) & 1 == 1
}

/// The couplings of one sample as `J = +-1` per bond (`site * dims + d`), for exact
/// enumeration and readers that want plain numbers.
pub fn coupling_values(disorder: Disorder, lattice: &Lattice, seed: u64, sample: u32) -> Vec<i8> {
    let bits = antiferromagnetic_bonds(disorder, lattice, seed, sample);
    coupling_signs(&bits, lattice.bonds()).collect()
}

/// `J = +-1` of the first `bonds` bonds of the antiferromagnetic-bond bits `bits`.
pub fn coupling_signs(bits: &[u32], bonds: u64) -> impl Iterator<Item = i8> + '_ {
    (0..bonds).map(|bond| match is_antiferromagnetic(bits, bond) {
        true => -1,
        false => 1,
    })
}

/// `J` of every bond of `lattice` from its antiferromagnetic-bond bits `bits`: +-1, and 0 at
/// the honeycomb's gaps ([`super::lattices::is_gap`]), which join no pair of sites.
pub fn coupling_signs_of(lattice: &Lattice, bits: &[u32]) -> Vec<i8> {
    (0..lattice.bonds())
        .zip(coupling_signs(bits, lattice.bonds()))
        .map(|(bond, j)| if is_gap(lattice, bond) { 0 } else { j })
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
    fn an_instance_of_the_drawn_values_has_the_drawn_bits() {
        let lattice = Lattice::new(3, 4);
        let values: Vec<i8> = (0..3)
            .flat_map(|s| coupling_values(Disorder::Bimodal, &lattice, 7, s))
            .collect();
        let instance =
            Instance::from_values(values.into_iter(), &lattice, 3, ("j.npy".into(), 1)).unwrap();
        for s in 0..3 {
            let drawn = antiferromagnetic_bonds(Disorder::Bimodal, &lattice, 7, s);
            assert_eq!(instance.bonds(s), drawn);
        }
    }

    #[test]
    fn an_instance_with_a_coupling_other_than_plus_or_minus_one_is_refused() {
        let lattice = Lattice::new(2, 4);
        let mut values = vec![1i8; 2 * 32];
        values[32 + 2 * 5 + 1] = 0;
        let err = Instance::from_values(values.into_iter(), &lattice, 2, ("j.npy".into(), 1))
            .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("j.npy") && msg.contains("sample 1, site 5, direction 1 holds 0"),
            "{msg}"
        );
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
