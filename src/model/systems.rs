//! The systems of a run, for every model: each (temperature, disorder sample, replica), and the
//! numbering every engine, checkpoint and output shares.
//!
//! System `b = (t S + s) R + r` is replica `r` of sample `s` at temperature `t`, of `S` samples
//! with `R` replicas each; chain set `c = s R + r` is one replica of one sample across the
//! temperatures; overlap `k = (t S + s) P + p` is pair `p` of sample `s` at temperature `t`, of
//! `P = R/2` pairs, joining replicas `p` and `p + R/2` (a spin glass's; the ferromagnet measures
//! none).
//!
//! Sample slices. An engine may hold a slice of a run's disorder samples
//! ([`SystemIndex::sample_slice`]: samples `first .. first + count` of the run's `S`, every
//! temperature and replica of them), to spread independent samples over processes. Its buffers
//! are indexed by the slice's own (local) numbers, but every random stream is keyed by the run's
//! (global) ones ([`SliceIndex`]), so a slice draws exactly the randoms its samples draw in an
//! engine of the whole run, and its results are those systems' bit for bit.
//!
//! Each model's systems ([`IsingSystems`](super::ising::IsingSystems),
//! [`VectorSystems`](super::vector::VectorSystems)) are a [`SystemIndex`] and what is the
//! model's own (lattice, field, couplings). They dereference to their index: the index is what
//! they are as a set of systems, not a part they hand out, and the engines, the tempering, the
//! statistics and the outputs read its fields and numbering on either model alike
//! (`systems.betas`, `systems.system(t, s, r)`), at hundreds of places that a second name on the
//! path would only lengthen. What needs only the numbering takes a `&SystemIndex` and serves
//! every model, either systems coercing to it (`Chains::of`, `tempering::finish_tempering`).

use crate::config::Disorder;

/// The (temperature x sample x replica) systems of a run, or of a slice of its samples.
#[derive(Debug, Clone, PartialEq)]
pub struct SystemIndex {
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

impl SystemIndex {
    /// The systems of a whole run: `replicas` replicas of each of `samples` samples of
    /// `disorder` at each of `betas`.
    pub fn new(
        betas: Vec<f64>,
        disorder: Disorder,
        samples: u32,
        replicas: u32,
        seed: u64,
    ) -> Self {
        SystemIndex {
            betas,
            disorder,
            samples,
            replicas,
            seed,
            first_sample: 0,
            all_samples: samples,
        }
    }

    /// The systems of samples `first .. first + count` of these (numbered within them; a slice
    /// of a slice is a slice of the run): every temperature and replica of those samples,
    /// drawing the randoms they draw here. Panics on an empty range or one past the samples:
    /// the caller splits a validated run.
    pub fn sample_slice(&self, first: u32, count: u32) -> SystemIndex {
        let end = first.checked_add(count);
        assert!(
            count > 0 && end.is_some_and(|end| end <= self.samples),
            "sample slice {first} .. {first} + {count} is empty or outside the {} samples",
            self.samples
        );
        SystemIndex {
            samples: count,
            first_sample: self.first_sample + first,
            ..self.clone()
        }
    }

    /// Number of systems: temperatures x samples x replicas.
    pub fn systems(&self) -> u32 {
        self.betas.len() as u32 * self.systems_per_temperature()
    }

    /// Systems at one temperature: samples x replicas.
    pub fn systems_per_temperature(&self) -> u32 {
        self.samples * self.replicas
    }

    /// Index of system (temperature `t`, sample `s`, replica `r`).
    pub fn system(&self, t: u32, s: u32, r: u32) -> u32 {
        (t * self.samples + s) * self.replicas + r
    }

    /// The temperature index of system `b`.
    pub fn temperature_of(&self, b: u32) -> u32 {
        b / self.systems_per_temperature()
    }

    /// The sample of system `b`.
    pub fn sample_of(&self, b: u32) -> u32 {
        (b / self.replicas) % self.samples
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

    /// The run's index of local system `b`: the Philox batch of its hot start and (simple and
    /// vector engines) its Metropolis randoms.
    pub fn global_system(&self, b: u32) -> u32 {
        self.slice_index().global(b)
    }

    /// The run's index of local chain set `c = s R + r`: the Philox batch of its swaps.
    pub fn global_chain_set(&self, c: u32) -> u32 {
        self.slice_index().global(c)
    }

    /// Replica pairs per (temperature, sample) whose overlap is measured: replica `r` with
    /// `r + replicas/2`, for a spin glass with at least two replicas.
    pub fn overlap_pairs(&self) -> u32 {
        match self.disorder {
            Disorder::Ferromagnet => 0,
            _ => self.replicas / 2,
        }
    }

    /// Number of measured overlaps: temperatures x samples x pairs.
    pub fn overlaps(&self) -> u32 {
        self.betas.len() as u32 * self.samples * self.overlap_pairs()
    }

    /// Index of overlap (temperature `t`, sample `s`, pair `p`).
    pub fn overlap(&self, t: u32, s: u32, p: u32) -> u32 {
        (t * self.samples + s) * self.overlap_pairs() + p
    }

    /// The two systems of overlap `k`: replicas `p` and `p + R/2` of its temperature and sample.
    pub fn overlap_systems(&self, k: u32) -> (u32, u32) {
        let pairs = self.overlap_pairs();
        let first = (k / pairs) * self.replicas + k % pairs;
        (first, first + self.replicas / 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glass(samples: u32, replicas: u32) -> SystemIndex {
        SystemIndex::new(vec![0.3, 0.5], Disorder::Bimodal, samples, replicas, 1)
    }

    #[test]
    fn systems_are_numbered_temperature_sample_replica() {
        let index = glass(5, 3);
        assert_eq!((index.systems(), index.systems_per_temperature()), (30, 15));
        let mut b = 0;
        for t in 0..2 {
            for s in 0..5 {
                for r in 0..3 {
                    assert_eq!(index.system(t, s, r), b);
                    assert_eq!((index.temperature_of(b), index.sample_of(b)), (t, s));
                    b += 1;
                }
            }
        }
    }

    #[test]
    fn overlaps_pair_replica_r_with_r_plus_half() {
        let index = glass(3, 4);
        assert_eq!((index.overlap_pairs(), index.overlaps()), (2, 12));
        for t in 0..2 {
            for s in 0..3 {
                for p in 0..2 {
                    let k = index.overlap(t, s, p);
                    let pair = (index.system(t, s, p), index.system(t, s, p + 2));
                    assert_eq!(index.overlap_systems(k), pair);
                }
            }
        }
        let ferromagnet = SystemIndex::new(vec![0.3], Disorder::Ferromagnet, 1, 4, 1);
        assert_eq!(ferromagnet.overlaps(), 0);
    }

    #[test]
    fn slices_number_systems_and_chain_sets_as_the_run_does() {
        let run = glass(5, 3);
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
        glass(5, 2).sample_slice(3, 3);
    }

    #[test]
    #[should_panic(expected = "is empty")]
    fn an_empty_slice_is_refused() {
        glass(5, 2).sample_slice(2, 0);
    }
}
