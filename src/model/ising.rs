//! Ising-type systems `H = -sum_<ij> J_ij s_i s_j - h sum_i s_i` and their Metropolis thresholds.
//!
//! The systems of a run are every (temperature, disorder sample, replica), numbered by their
//! [`SystemIndex`] ([`crate::model::systems`], sample slices included); a slice keeps the run's
//! couplings ([`IsingSystems::sample_slice`]). For the ferromagnet (`J = 1`), flipping `s` with
//! neighbour sum `n` changes the energy by `dE = 2 s (n + h)`. The flip is accepted iff a
//! uniform 32-bit word `U` satisfies `U <= t`, where the threshold
//! `t = min(ceil(exp(-beta dE) 2^32), 2^32) - 1` (clamped at 0) is computed once on the host in
//! f64 and handed to every engine, so CPU and GPU take exactly the same decisions. For `dE <= 0`
//! `t = 2^32 - 1` (always accept); otherwise the acceptance probability is `exp(-beta dE)`
//! rounded up to the next multiple of `2^-32`.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use super::Lattice;
use super::boundaries::{clear_open_seams, reverse_antiperiodic_seams};
use super::couplings::{Instance, antiferromagnetic_bonds, coupling_signs_of};
use super::lattices::open_links;
use super::systems::SystemIndex;
use crate::config::{Boundaries, Config, Disorder};
use crate::error::{Error, Result};

/// Everything that defines the simulated systems of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct IsingSystems {
    /// The temperatures, samples and replicas, and their numbering.
    pub index: SystemIndex,
    pub lattice: Lattice,
    pub field: f64,
    /// The band of planes of the slowest axis these systems hold ([`IsingSystems::plane_slab`]);
    /// `None` for whole lattices.
    pub slab: Option<PlaneSlab>,
    /// The run's couplings where the config gives them (`couplings: File(..)`); `None` where
    /// they are drawn from the seed.
    pub instance: Option<Arc<Instance>>,
    /// How the lattice closes along each axis: the bonds across an antiperiodic edge are
    /// reversed ([`IsingSystems::antiferromagnetic_bonds`]); the Ising engines take no open
    /// edge but the multispin engine, whose updates and measurements leave out the bonds across
    /// it.
    pub boundaries: Boundaries,
    /// Every `J = -1`: every bond reversed ([`IsingSystems::antiferromagnetic_bonds`]). On a
    /// bipartite lattice the multispin engine measures its staggered magnetisation
    /// ([`IsingSystems::staggered`]).
    pub antiferromagnet: bool,
}

/// Planes `first .. first + planes` of the slowest axis (y in 2D, z in 3D) of every system of a
/// run: one engine's share of lattices split over several engines (MPI ranks). `first` and
/// `planes` are even, so a plane's checkerboard parity is the same counted in the slab or in the
/// lattice, and `planes >= 2`, so the two boundary planes differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlaneSlab {
    pub first: u32,
    pub planes: u32,
}

impl Deref for IsingSystems {
    type Target = SystemIndex;

    fn deref(&self) -> &SystemIndex {
        &self.index
    }
}

impl DerefMut for IsingSystems {
    fn deref_mut(&mut self) -> &mut SystemIndex {
        &mut self.index
    }
}

impl IsingSystems {
    /// The antiferromagnetic-bond bits the engines take for the run's sample `sample`: its
    /// couplings ([`IsingSystems::sample_bonds`]), every bond reversed for the
    /// antiferromagnet, then the bonds across each antiperiodic edge reversed.
    pub fn antiferromagnetic_bonds(&self, sample: u32) -> Vec<u32> {
        let mut bits = self.sample_bonds(sample);
        if self.antiferromagnet {
            reverse_every_bond(&self.lattice, &mut bits);
        }
        reverse_antiperiodic_seams(self.boundaries, &self.lattice, &mut bits);
        bits
    }

    /// `J` of every bond of the run's sample `sample` as the engines take it: its
    /// [`Self::antiferromagnetic_bonds`] as signs, 0 across an open edge and at the
    /// honeycomb's gaps.
    pub fn coupling_signs(&self, sample: u32) -> Vec<i8> {
        let mut signs = coupling_signs_of(&self.lattice, &self.antiferromagnetic_bonds(sample));
        clear_open_seams(self.boundaries, &self.lattice, &mut signs);
        signs
    }

    /// The antiferromagnetic-bond bits of the run's sample `sample` before its edges are
    /// closed (see [`antiferromagnetic_bonds`]): the instance's, or drawn from the seed; what
    /// `couplings.npy` records.
    pub fn sample_bonds(&self, sample: u32) -> Vec<u32> {
        match &self.instance {
            Some(instance) => instance.bonds(sample).to_vec(),
            None => antiferromagnetic_bonds(self.disorder, &self.lattice, self.seed, sample),
        }
    }

    /// Whether the magnetisation measured is the staggered one, `M_s = sum_i (-1)^(x+y+z) s_i`
    /// (up spins counted on colour 0, down spins on colour 1 of the checkerboard): the
    /// antiferromagnet's on a bipartite lattice (square, cubic, honeycomb), which reaches the
    /// Ising engines only at zero field
    /// ([`Model::is_staggered`](crate::config::Model::is_staggered)).
    pub fn staggered(&self) -> bool {
        self.antiferromagnet && self.lattice.shape.is_bipartite()
    }

    /// Bonds that join two spins: the lattice's links ([`Lattice::links`]) less those across
    /// an open edge ([`open_links`]).
    pub fn links(&self) -> u64 {
        self.lattice.links() - open_links(self.boundaries, &self.lattice)
    }

    /// Whether the engines read coupling bits: a spin glass's, an antiferromagnet's, or a
    /// ferromagnet's with an antiperiodic edge.
    pub fn reads_couplings(&self) -> bool {
        self.disorder == Disorder::Bimodal
            || self.antiferromagnet
            || self.boundaries.any_antiperiodic()
    }

    /// The systems of `index` on whole lattices in `field`, their couplings drawn from the
    /// seed.
    pub fn new(index: SystemIndex, lattice: Lattice, field: f64) -> Self {
        IsingSystems {
            index,
            lattice,
            field,
            slab: None,
            instance: None,
            boundaries: Boundaries::PERIODIC,
            antiferromagnet: false,
        }
    }

    /// The ferromagnet at `betas` with `replicas` replicas each.
    pub fn ferromagnet(
        lattice: Lattice,
        field: f64,
        betas: Vec<f64>,
        replicas: u32,
        seed: u64,
    ) -> Self {
        let index = SystemIndex::new(betas, Disorder::Ferromagnet, 1, replicas, seed);
        IsingSystems::new(index, lattice, field)
    }

    /// The Edwards-Anderson +-J spin glass at `betas`, `samples` disorder samples with
    /// `replicas` replicas each.
    pub fn spin_glass(
        lattice: Lattice,
        field: f64,
        betas: Vec<f64>,
        samples: u32,
        replicas: u32,
        seed: u64,
    ) -> Self {
        let index = SystemIndex::new(betas, Disorder::Bimodal, samples, replicas, seed);
        IsingSystems::new(index, lattice, field)
    }

    /// The systems of samples `first .. first + count` of these ([`SystemIndex::sample_slice`]),
    /// with the run's couplings (a given instance is indexed by the run's samples).
    pub fn sample_slice(&self, first: u32, count: u32) -> IsingSystems {
        IsingSystems {
            index: self.index.sample_slice(first, count),
            ..self.clone()
        }
    }

    /// Refuse a slab that is not a band of whole, even-aligned planes of the slowest axis:
    /// `first` and `planes` even, `planes >= 2`, `first + planes <= L`, of whole lattices.
    pub fn check_plane_slab(&self, first: u32, planes: u32) -> Result<()> {
        let l = self.lattice.size;
        let fits = first.checked_add(planes).is_some_and(|end| end <= l);
        let problem = if self.slab.is_some() {
            Some("these systems are a slab already".to_string())
        } else if planes < 2 || !fits {
            Some(format!(
                "planes {first} .. {first} + {planes} are not at least 2 of the {l} planes"
            ))
        } else if !first.is_multiple_of(2) || !planes.is_multiple_of(2) {
            Some(format!(
                "a slab starts at an even plane and holds an even number of planes (so the \
                 checkerboard colours of its planes are the lattice's), not {first} .. {first} \
                 + {planes}"
            ))
        } else {
            None
        };
        match problem {
            Some(problem) => Err(Error::State(format!("plane slab: {problem}"))),
            None => Ok(()),
        }
    }

    /// The slab of planes `first .. first + planes` of the slowest axis (y in 2D, z in 3D) of
    /// every system: the same systems, drawing the randoms their planes draw in the whole
    /// lattices. Panics where [`IsingSystems::check_plane_slab`] refuses: the caller splits a
    /// validated run.
    pub fn plane_slab(&self, first: u32, planes: u32) -> IsingSystems {
        if let Err(error) = self.check_plane_slab(first, planes) {
            panic!("{error}");
        }
        IsingSystems {
            slab: Some(PlaneSlab { first, planes }),
            ..self.clone()
        }
    }

    /// Sites of one system held here: the lattice's, or a slab's planes'.
    pub fn held_sites(&self) -> u64 {
        let lattice = self.lattice;
        match self.slab {
            Some(slab) => u64::from(slab.planes) * u64::from(lattice.size).pow(lattice.dims - 1),
            None => lattice.sites(),
        }
    }

    /// Number of spins of all systems together (of the slab's planes in a slab).
    pub fn spin_count(&self) -> usize {
        self.held_sites() as usize * self.systems() as usize
    }

    /// Entries of one temperature's threshold table: `2 (z + 1)`.
    pub fn table_len(&self) -> u32 {
        2 * (self.lattice.coordination() + 1)
    }

    /// Metropolis thresholds for every temperature, concatenated. Entry
    /// `[t][spin_up][(n + z) / 2]` is the threshold for flipping a spin (`spin_up` = 1 for +1)
    /// whose neighbour sum is `n`, at temperature `t`.
    pub fn thresholds(&self) -> Vec<u32> {
        let z = self.lattice.coordination() as i32;
        let mut table = Vec::with_capacity(self.betas.len() * self.table_len() as usize);
        for &beta in &self.betas {
            for spin in [-1i32, 1] {
                for n in (-z..=z).step_by(2) {
                    let delta_e = 2.0 * f64::from(spin) * (f64::from(n) + self.field);
                    table.push(threshold(beta, delta_e));
                }
            }
        }
        table
    }

    /// The cluster updates' bond activation threshold of every temperature
    /// ([`activation_threshold`]).
    pub fn activation_thresholds(&self) -> Vec<u32> {
        self.betas
            .iter()
            .map(|&beta| activation_threshold(beta))
            .collect()
    }

    /// Total energy from the bond sum `B = sum_<ij> s_i s_j` and magnetisation `M`.
    pub fn energy(&self, bond_sum: i64, magnetisation: i64) -> f64 {
        -(bond_sum as f64) - self.field * magnetisation as f64
    }
}

/// Reverse the bits of every bond of `lattice` in `bits` (the words past the last bond keep
/// their zeros).
fn reverse_every_bond(lattice: &Lattice, bits: &mut [u32]) {
    let bonds = lattice.bonds();
    for (k, word) in (0u64..).zip(bits.iter_mut()) {
        let in_word = bonds.saturating_sub(32 * k).min(32);
        *word ^= u32::MAX.checked_shr(32 - in_word as u32).unwrap_or(0);
    }
}

/// The acceptance threshold `t` of an energy change at inverse temperature `beta`.
pub fn threshold(beta: f64, delta_e: f64) -> u32 {
    if delta_e <= 0.0 {
        return u32::MAX;
    }
    let scaled = ((-beta * delta_e).exp() * 4_294_967_296.0).ceil();
    if scaled >= 4_294_967_296.0 {
        u32::MAX
    } else if scaled <= 1.0 {
        0
    } else {
        scaled as u32 - 1
    }
}

/// The bond activation threshold of the cluster updates (Swendsen-Wang, Wolff) at inverse
/// temperature `beta` (`J = 1`): a bond between two equal spins is active iff its uniform 32-bit
/// word `U < t`, with `t = round(2^32 (1 - exp(-2 beta)))` computed here once in f64 (clamped
/// to `2^32 - 1`), so with probability `t / 2^32`; the engines compare integers only.
pub fn activation_threshold(beta: f64) -> u32 {
    bond_activation(2.0 * beta)
}

/// The bond activation threshold `round(2^32 (1 - exp(-k)))` (clamped to `2^32 - 1`) of a
/// bond whose equal spins lose `k / beta` of energy when they part: `2 beta J` for Ising spins,
/// `beta J` for Potts states.
pub fn bond_activation(k: f64) -> u32 {
    // 1 - exp(-k) without cancellation at small k.
    let p = -(-k).exp_m1();
    let scaled = (p * 4_294_967_296.0).round();
    if scaled >= 4_294_967_295.0 {
        u32::MAX
    } else if scaled <= 0.0 {
        0
    } else {
        scaled as u32
    }
}

/// Index of a table entry, as used by the kernels: `spin_up * (z + 1) + (n + z) / 2`.
pub fn table_index(coordination: u32, spin_up: bool, neighbour_sum: i32) -> usize {
    let z = coordination as i32;
    (u32::from(spin_up) * (coordination + 1)) as usize + ((neighbour_sum + z) / 2) as usize
}

/// The systems a (validated) config describes.
pub fn ising_systems(config: &Config) -> IsingSystems {
    let model = config.model;
    let index = SystemIndex::new(
        config.temperatures.betas(),
        model.disorder(),
        config.samples,
        config.replicas,
        config.seed,
    );
    IsingSystems {
        boundaries: model.boundaries(),
        antiferromagnet: model.is_antiferromagnet(),
        ..IsingSystems::new(index, Lattice::of(&model), model.field())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_accept_downhill_and_match_boltzmann() {
        assert_eq!(threshold(0.4, -4.0), u32::MAX);
        assert_eq!(threshold(0.4, 0.0), u32::MAX);
        let t = threshold(0.4, 8.0);
        let p = (f64::from(t) + 1.0) / 4_294_967_296.0;
        assert!((p - (-3.2f64).exp()).abs() < 1e-9);
        assert_eq!(threshold(1e9, 8.0), 0);
    }

    #[test]
    fn activation_thresholds_round_the_bond_probability() {
        assert_eq!(activation_threshold(0.0), 0);
        assert_eq!(activation_threshold(1e9), u32::MAX);
        let beta_c = 0.5 * (1.0 + 2f64.sqrt()).ln();
        // 1 - exp(-2 beta_c) = 1 - 1 / (1 + sqrt 2) = 2 - sqrt 2.
        let t = activation_threshold(beta_c);
        assert!(
            (f64::from(t) / 4_294_967_296.0 - (2.0 - 2f64.sqrt())).abs() <= 0.5 / 4_294_967_296.0
        );
    }

    #[test]
    fn table_layout_matches_table_index() {
        let systems = IsingSystems::ferromagnet(Lattice::new(2, 4), 0.5, vec![0.3, 0.5], 1, 1);
        let table = systems.thresholds();
        assert_eq!(table.len(), 20);
        // Second temperature, spin up with all neighbours up: dE = 2 (4 + 0.5) = 9.
        let i = 10 + table_index(4, true, 4);
        assert_eq!(table[i], threshold(0.5, 9.0));
        // Spin down, neighbours all up: dE = -2 (4 + 0.5) < 0.
        assert_eq!(table[table_index(4, false, 4)], u32::MAX);
    }
}
