//! Ising-type systems `H = -sum_<ij> J_ij s_i s_j - h sum_i s_i` and their Metropolis thresholds.
//!
//! The systems of a run are every (temperature, disorder sample, replica), numbered
//! `b = (t * samples + s) * replicas + r`. For the ferromagnet (`J = 1`), flipping `s` with
//! neighbour sum `n` changes the energy by `dE = 2 s (n + h)`. The flip is
//! accepted iff a uniform 32-bit word `U` satisfies `U <= t`, where the threshold
//! `t = min(ceil(exp(-beta dE) 2^32), 2^32) - 1` (clamped at 0) is computed once on the host in
//! f64 and handed to every engine, so CPU and GPU take exactly the same decisions. For `dE <= 0`
//! `t = 2^32 - 1` (always accept); otherwise the acceptance probability is `exp(-beta dE)`
//! rounded up to the next multiple of `2^-32`.
//!
//! Sample slices. An engine may hold a slice of a run's disorder samples
//! ([`IsingSystems::sample_slice`]: samples `first .. first + count` of the run's `S`, every
//! temperature and replica of them), to spread independent samples over processes. Its buffers
//! are indexed by the slice's own (local) numbers, but every random stream is keyed by the run's
//! (global) ones ([`SliceIndex`]), so a slice draws exactly the randoms its samples draw in an
//! engine of the whole run, and its results are those systems' bit for bit.

use std::sync::Arc;

use super::Lattice;
use super::couplings::{Instance, antiferromagnetic_bonds};
use crate::config::{Config, Disorder};
use crate::error::{Error, Result};

/// Everything that defines the simulated systems of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct IsingSystems {
    pub lattice: Lattice,
    pub field: f64,
    pub betas: Vec<f64>,
    pub disorder: Disorder,
    /// Disorder samples of these systems (1 for the ferromagnet): the run's, or a slice's.
    pub samples: u32,
    /// Replicas per temperature and sample.
    pub replicas: u32,
    pub seed: u64,
    /// The run's number of the first sample here: 0 for a whole run.
    pub first_sample: u32,
    /// The run's disorder samples: `samples` for a whole run.
    pub all_samples: u32,
    /// The band of planes of the slowest axis these systems hold ([`IsingSystems::plane_slab`]);
    /// `None` for whole lattices.
    pub slab: Option<PlaneSlab>,
    /// The run's couplings where the config gives them (`couplings: File(..)`); `None` where
    /// they are drawn from the seed.
    pub instance: Option<Arc<Instance>>,
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

/// How the local index of a system, word system or chain set of a sample slice maps to the
/// run's, the index that keys its randoms. Indices come in blocks per temperature: `block` of
/// them here, `run_block` in the run, where this slice's block starts at `first`:
/// `global(i) = (i / block) run_block + first + i mod block`. The identity for a whole run
/// (`block = run_block`, `first = 0`). The kernels take the three numbers as the constants
/// [`SliceIndex::CONSTANTS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SliceIndex {
    pub block: u32,
    pub run_block: u32,
    pub first: u32,
}

impl SliceIndex {
    /// Names of the kernel constants (WGSL overrides, CUDA defines), in the order of
    /// [`SliceIndex::constants`].
    pub const CONSTANTS: [&'static str; 3] = ["SLICE_BLOCK", "RUN_BLOCK", "SLICE_FIRST"];

    /// The identity, for indices that are the run's already.
    pub const IDENTITY: SliceIndex = SliceIndex {
        block: 1,
        run_block: 1,
        first: 0,
    };

    /// The systems `(t S' + s) R + r` of the `S'` samples from the run's sample `first` (of its
    /// `S`, `all_samples`), `R` replicas each: blocks of `S' R` per temperature, `S R` in the
    /// run, this slice's starting at `first R`.
    pub fn of_samples((first, samples): (u32, u32), all_samples: u32, replicas: u32) -> Self {
        SliceIndex {
            block: samples * replicas,
            run_block: all_samples * replicas,
            first: first * replicas,
        }
    }

    /// The run's index of local index `i`.
    pub fn global(&self, i: u32) -> u32 {
        (i / self.block) * self.run_block + self.first + i % self.block
    }

    /// The kernel constants.
    pub fn constants(&self) -> [(&'static str, u32); 3] {
        let [block, run_block, first] = Self::CONSTANTS;
        [
            (block, self.block),
            (run_block, self.run_block),
            (first, self.first),
        ]
    }
}

impl IsingSystems {
    /// The antiferromagnetic-bond bits of the run's sample `sample` (see
    /// [`antiferromagnetic_bonds`]): the instance's, or drawn from the seed.
    pub fn antiferromagnetic_bonds(&self, sample: u32) -> Vec<u32> {
        match &self.instance {
            Some(instance) => instance.bonds(sample).to_vec(),
            None => antiferromagnetic_bonds(self.disorder, &self.lattice, self.seed, sample),
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
        IsingSystems {
            lattice,
            field,
            betas,
            disorder: Disorder::Ferromagnet,
            samples: 1,
            replicas,
            seed,
            first_sample: 0,
            all_samples: 1,
            slab: None,
            instance: None,
        }
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
        IsingSystems {
            disorder: Disorder::Bimodal,
            samples,
            all_samples: samples,
            ..IsingSystems::ferromagnet(lattice, field, betas, replicas, seed)
        }
    }

    /// The systems of samples `first .. first + count` of these (numbered within them; a slice
    /// of a slice is a slice of the run): every temperature and replica of those samples,
    /// drawing the randoms they draw here. Panics on an empty range or one past the samples:
    /// the caller splits a validated run.
    pub fn sample_slice(&self, first: u32, count: u32) -> IsingSystems {
        let end = first.checked_add(count);
        assert!(
            count > 0 && end.is_some_and(|end| end <= self.samples),
            "sample slice {first} .. {first} + {count} is empty or outside the {} samples",
            self.samples
        );
        IsingSystems {
            samples: count,
            first_sample: self.first_sample + first,
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

    /// Whether these are all the run's samples.
    pub fn whole_run(&self) -> bool {
        self.samples == self.all_samples
    }

    /// The run's number of local sample `s`: the Philox batch of its couplings.
    pub fn global_sample(&self, s: u32) -> u32 {
        self.first_sample + s
    }

    /// The run's numbering of local systems (`b = (t S + s) R + r`) and chain sets
    /// (`c = s R + r`, below one block): blocks of `S R` per temperature, `S_run R` in the run.
    pub fn slice_index(&self) -> SliceIndex {
        SliceIndex::of_samples(
            (self.first_sample, self.samples),
            self.all_samples,
            self.replicas,
        )
    }

    /// The run's index of local system `b`: the Philox batch of its hot start and (simple
    /// engine) its Metropolis randoms.
    pub fn global_system(&self, b: u32) -> u32 {
        self.slice_index().global(b)
    }

    /// The run's index of local chain set `c = s R + r`: the Philox batch of its swaps.
    pub fn global_chain_set(&self, c: u32) -> u32 {
        self.slice_index().global(c)
    }

    /// Number of systems: temperatures x samples x replicas.
    pub fn systems(&self) -> u32 {
        self.betas.len() as u32 * self.samples * self.replicas
    }

    /// Index of system (temperature `t`, sample `s`, replica `r`).
    pub fn system(&self, t: u32, s: u32, r: u32) -> u32 {
        (t * self.samples + s) * self.replicas + r
    }

    /// The temperature index of system `b`.
    pub fn temperature_of(&self, b: u32) -> u32 {
        b / (self.samples * self.replicas)
    }

    /// Replica pairs per (temperature, sample) whose overlap is measured: replica `r` with
    /// `r + replicas/2`, for the Edwards-Anderson model with at least two replicas.
    pub fn overlap_pairs(&self) -> u32 {
        match self.disorder {
            Disorder::Ferromagnet => 0,
            _ => self.replicas / 2,
        }
    }

    /// Number of measured overlaps: temperatures x samples x pairs, numbered
    /// `(t * samples + s) * pairs + p`.
    pub fn overlaps(&self) -> u32 {
        self.betas.len() as u32 * self.samples * self.overlap_pairs()
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
    // 1 - exp(-2 beta) without cancellation at small beta.
    let p = -(-2.0 * beta).exp_m1();
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
    IsingSystems {
        lattice: Lattice::new(model.dims(), model.size()),
        field: model.field(),
        betas: config.temperatures.betas(),
        disorder: model.disorder(),
        samples: config.samples,
        replicas: config.replicas,
        seed: config.seed,
        first_sample: 0,
        all_samples: config.samples,
        slab: None,
        instance: None,
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
    fn slices_number_systems_and_chain_sets_as_the_run_does() {
        let run = IsingSystems::spin_glass(Lattice::new(2, 4), 0.0, vec![0.3, 0.5], 5, 3, 1);
        assert!(run.whole_run());
        // A whole run's indices are its own.
        for b in 0..run.systems() {
            assert_eq!(run.global_system(b), b);
        }
        let slice = run.sample_slice(1, 3).sample_slice(1, 2);
        assert_eq!(
            (slice.first_sample, slice.samples, slice.all_samples),
            (2, 2, 5)
        );
        assert!(!slice.whole_run());
        for t in 0..2 {
            for s in 0..2 {
                assert_eq!(slice.global_sample(s), s + 2);
                for r in 0..3 {
                    let b = slice.system(t, s, r);
                    assert_eq!(slice.global_system(b), run.system(t, s + 2, r));
                }
            }
        }
        // Chain sets c = s R + r.
        assert_eq!(slice.global_chain_set(4), 2 * 3 + 4);
        assert_eq!(SliceIndex::IDENTITY.global(77), 77);
    }

    #[test]
    #[should_panic(expected = "outside the 5 samples")]
    fn a_slice_past_the_samples_is_refused() {
        let run = IsingSystems::spin_glass(Lattice::new(2, 4), 0.0, vec![0.3], 5, 2, 1);
        run.sample_slice(3, 3);
    }

    #[test]
    #[should_panic(expected = "is empty")]
    fn an_empty_slice_is_refused() {
        let run = IsingSystems::spin_glass(Lattice::new(2, 4), 0.0, vec![0.3], 5, 2, 1);
        run.sample_slice(2, 0);
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
