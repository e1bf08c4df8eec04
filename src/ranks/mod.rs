//! Runs split over MPI ranks: `mpirun -np N spinflip run config.ron` (feature `mpi`).
//!
//! Rank 0 runs the one simulation loop, exactly as on one device; its engine is a
//! [`world::RankedEngine`] that forwards every engine call (open, hot start, plans, spins,
//! tempering state, betas, copies) to the other ranks, which replay them on engines of their own
//! ([`world::follow`]), and merges their answers. The loop, the estimators, checkpoints and
//! outputs never see ranks, and rank 0 alone writes files.
//!
//! Independent systems are split by disorder sample: rank `k` holds samples `first .. first +
//! count` ([`SampleSlice`], from [`partition`]) at every temperature and replica, opened on
//! [`IsingSystems::sample_slice`], whose engines key every Philox counter by the whole run's
//! indices. So a run on N ranks ends with the same spins and writes the same files as on one
//! device. Everything exchanged is exact (integer counts, spins as bits), and the whole run's
//! arrays are the ranks' arrays concatenated sample block by sample block ([`merge_samples`],
//! [`slice_samples`]): systems `b = (t S + s) R + r`, overlaps `(t S + s) P + p`, chain sets
//! `c = s R + r` all put the sample outside the replica and inside the temperature.
//!
//! This module holds what does not need MPI (the partition, the merges, the wire format in
//! [`wire`]), so it is tested in every build; [`world`] holds the MPI side.

pub mod wire;
#[cfg(feature = "mpi")]
pub mod world;

use crate::config::{Config, Lanes, Layout};
use crate::engine::{Measurements, Observation, SpinBits};
use crate::error::{Error, Result};
use crate::model::couplings::Disorder;
use crate::model::ising::IsingSystems;

/// This process's rank among the ranks on its node, 0 when it runs alone: where the config
/// names no adapter, rank `k` of a node takes its `k`-th GPU (modulo their number).
pub fn local_rank() -> usize {
    #[cfg(feature = "mpi")]
    return world::placement().map_or(0, |p| p.local_rank as usize);
    #[cfg(not(feature = "mpi"))]
    0
}

/// The samples one rank holds: `first .. first + count` of the run's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleSlice {
    pub first: u32,
    pub count: u32,
}

/// Samples that must stay together on one rank: the 32 lanes of a word where lanes hold
/// samples, else one.
pub fn sample_group(config: &Config) -> u32 {
    match config.engine.multispin().map(|options| options.layout) {
        Some(Layout::Amsc {
            lanes: Lanes::Samples,
        }) => 32,
        _ => 1,
    }
}

/// Rank `k`'s samples out of `ranks`: whole groups of `group` samples, as even as they go (the
/// first ranks take the smaller shares). Refuses a run with fewer groups than ranks.
pub fn partition(systems: &IsingSystems, group: u32, ranks: u32) -> Result<Vec<SampleSlice>> {
    let groups = u64::from(systems.samples / group);
    if systems.disorder == Disorder::Ferromagnet && ranks > 1 {
        return Err(Error::Usage(format!(
            "{ranks} MPI ranks for the ferromagnet: ranks split a run by disorder sample and the \
             ferromagnet has one; splitting one lattice into slabs over ranks is not built yet, \
             so run it on one rank (without mpirun, or -np 1)"
        )));
    }
    if groups < u64::from(ranks) {
        let unit = if group == 1 {
            "one sample".to_string()
        } else {
            format!("{group} samples (the lanes of a word)")
        };
        return Err(Error::Usage(format!(
            "{ranks} MPI ranks for {} disorder samples: each rank needs at least {unit}, so this \
             run divides over at most {groups} ranks; use fewer ranks or more samples",
            systems.samples
        )));
    }
    let ranks = u64::from(ranks);
    Ok((0..ranks)
        .map(|k| {
            let (from, to) = (k * groups / ranks, (k + 1) * groups / ranks);
            SampleSlice {
                first: (from * u64::from(group)) as u32,
                count: ((to - from) * u64::from(group)) as u32,
            }
        })
        .collect())
}

/// The whole run's array `[outer][sample][inner]` from the ranks' arrays `[outer][local
/// sample][inner]` (rank `k` holding `slices[k]`, which cover the samples in order).
pub fn merge_samples<T: Copy>(
    parts: &[Vec<T>],
    slices: &[SampleSlice],
    outer: usize,
    inner: usize,
) -> Result<Vec<T>> {
    for (k, (part, slice)) in parts.iter().zip(slices).enumerate() {
        let expected = outer * slice.count as usize * inner;
        if part.len() != expected {
            return Err(Error::State(format!(
                "rank {k} returned {} values where its {} samples hold {expected}",
                part.len(),
                slice.count
            )));
        }
    }
    let samples: usize = slices.iter().map(|s| s.count as usize).sum();
    let mut whole = Vec::with_capacity(outer * samples * inner);
    for o in 0..outer {
        for (part, slice) in parts.iter().zip(slices) {
            let block = slice.count as usize * inner;
            whole.extend_from_slice(&part[o * block..][..block]);
        }
    }
    Ok(whole)
}

/// Rank `slice`'s part `[outer][local sample][inner]` of the whole run's `[outer][sample][inner]`
/// (`samples` samples in all).
pub fn slice_samples<T: Copy>(
    whole: &[T],
    slice: SampleSlice,
    samples: u32,
    outer: usize,
    inner: usize,
) -> Vec<T> {
    let (row, block) = (samples as usize * inner, slice.count as usize * inner);
    let start = slice.first as usize * inner;
    (0..outer)
        .flat_map(|o| &whole[o * row + start..][..block])
        .copied()
        .collect()
}

/// The shape of a run's per-system arrays, for merging them: `temperatures x samples x
/// replicas` systems of `sites` spins, `pairs` overlap pairs per (temperature, sample), `size`
/// x-planes of overlap counts.
#[derive(Debug, Clone, Copy)]
pub struct RunShape {
    pub temperatures: usize,
    pub samples: u32,
    pub replicas: usize,
    pub pairs: usize,
    pub size: usize,
    pub sites: u64,
}

impl RunShape {
    pub fn of(systems: &IsingSystems) -> Self {
        RunShape {
            temperatures: systems.betas.len(),
            samples: systems.samples,
            replicas: systems.replicas as usize,
            pairs: systems.overlap_pairs() as usize,
            size: systems.lattice.size as usize,
            sites: systems.lattice.sites(),
        }
    }

    /// The whole run's measurements of a plan filling `slots` slots from the ranks' (the
    /// temperature history, of sample 0, from the rank holding it: the first).
    pub fn merge_measurements(
        &self,
        parts: Vec<Measurements>,
        slices: &[SampleSlice],
        slots: usize,
    ) -> Result<Measurements> {
        let outer = slots * self.temperatures;
        let merge = |values: fn(&Measurements) -> &[u32], inner: usize| {
            let parts: Vec<Vec<u32>> = parts.iter().map(|m| values(m).to_vec()).collect();
            merge_samples(&parts, slices, outer, inner)
        };
        let observations: Vec<Vec<Observation>> =
            parts.iter().map(|m| m.observations.clone()).collect();
        let observations = merge_samples(&observations, slices, outer, self.replicas)?;
        let (overlap_planes, link_overlaps) = if self.pairs == 0 {
            (Vec::new(), Vec::new())
        } else {
            let links: Vec<Vec<u64>> = parts.iter().map(|m| m.link_overlaps.clone()).collect();
            (
                merge(|m| &m.overlap_planes, self.pairs * self.size)?,
                merge_samples(&links, slices, outer, self.pairs)?,
            )
        };
        let labels = parts
            .into_iter()
            .next()
            .map(|m| m.labels)
            .unwrap_or_default();
        Ok(Measurements {
            observations,
            overlap_planes,
            link_overlaps,
            labels,
        })
    }

    /// The whole run's lattices from the ranks' (each a [`SpinBits`] of its systems).
    pub fn merge_spins(&self, parts: &[SpinBits], slices: &[SampleSlice]) -> Result<SpinBits> {
        let systems = self.temperatures as u32 * self.samples * self.replicas as u32;
        let mut whole = SpinBits::down(systems, self.sites);
        for (k, (part, slice)) in parts.iter().zip(slices).enumerate() {
            let local = self.temperatures as u32 * slice.count * self.replicas as u32;
            if part.systems() != local || part.sites() != self.sites {
                return Err(Error::State(format!(
                    "rank {k} returned {} lattices of {} sites where it holds {local} of {}",
                    part.systems(),
                    part.sites(),
                    self.sites
                )));
            }
            for t in 0..self.temperatures as u32 {
                let block = slice.count * self.replicas as u32;
                let to = (t * self.samples + slice.first) * self.replicas as u32;
                whole.copy_systems_from(to, part, t * block, block);
            }
        }
        Ok(whole)
    }

    /// Rank `slice`'s lattices of the whole run's `whole`.
    pub fn slice_spins(&self, whole: &SpinBits, slice: SampleSlice) -> SpinBits {
        let block = slice.count * self.replicas as u32;
        let mut part = SpinBits::down(self.temperatures as u32 * block, self.sites);
        for t in 0..self.temperatures as u32 {
            let from = (t * self.samples + slice.first) * self.replicas as u32;
            part.copy_systems_from(t * block, whole, from, block);
        }
        part
    }

    /// Rank `slice`'s copy map of the whole run's `sources` (a source system for every system,
    /// [`crate::engine::Engine::copy_systems`]), in its own system numbers. Refuses a map that
    /// moves a lattice to a sample on another rank.
    pub fn slice_copy_map(&self, sources: &[u32], slice: SampleSlice) -> Result<Vec<u32>> {
        let replicas = self.replicas as u32;
        let local = slice_samples(
            sources,
            slice,
            self.samples,
            self.temperatures,
            self.replicas,
        );
        local
            .into_iter()
            .map(|b| {
                let (t, s, r) = (
                    b / (self.samples * replicas),
                    b / replicas % self.samples,
                    b % replicas,
                );
                if !(slice.first..slice.first + slice.count).contains(&s) {
                    return Err(Error::State(format!(
                        "copy map: system {b} (sample {s}) would be copied to a sample outside \
                         samples {}..{} of its rank",
                        slice.first,
                        slice.first + slice.count
                    )));
                }
                Ok((t * slice.count + s - slice.first) * replicas + r)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Lattice;

    fn glass(samples: u32) -> IsingSystems {
        IsingSystems::spin_glass(Lattice::new(2, 4), 0.0, vec![0.3, 0.5, 0.7], samples, 2, 5)
    }

    #[test]
    fn partition_is_contiguous_even_and_refuses_too_many_ranks() {
        let slices = partition(&glass(7), 1, 3).unwrap();
        let counts: Vec<u32> = slices.iter().map(|s| s.count).collect();
        assert_eq!(counts, [2, 2, 3]);
        assert_eq!(slices[1].first, 2);
        assert_eq!(slices[2].first, 4);
        let lanes = partition(&glass(96), 32, 2).unwrap();
        assert_eq!(
            lanes,
            [
                SampleSlice {
                    first: 0,
                    count: 32
                },
                SampleSlice {
                    first: 32,
                    count: 64
                }
            ]
        );
        let error = partition(&glass(64), 32, 3).unwrap_err().to_string();
        assert!(error.contains("at most 2 ranks"), "{error}");
        let ferromagnet = IsingSystems::ferromagnet(Lattice::new(2, 4), 0.0, vec![0.4], 2, 1);
        let error = partition(&ferromagnet, 1, 2).unwrap_err().to_string();
        assert!(error.contains("slabs"), "{error}");
        assert_eq!(partition(&ferromagnet, 1, 1).unwrap().len(), 1);
    }

    #[test]
    fn merging_the_slices_of_an_array_gives_it_back() {
        let shape = RunShape::of(&glass(5));
        let slices = partition(&glass(5), 1, 3).unwrap();
        let whole: Vec<u32> = (0..2 * 3 * 5 * 2).collect();
        let parts: Vec<Vec<u32>> = slices
            .iter()
            .map(|&s| slice_samples(&whole, s, 5, 2 * 3, 2))
            .collect();
        assert_eq!(merge_samples(&parts, &slices, 6, 2).unwrap(), whole);
        assert!(merge_samples(&parts[..2], &slices[1..], 6, 2).is_err());

        let mut spins = SpinBits::down(3 * 5 * 2, 16);
        for b in 0..30 {
            for i in 0..16 {
                spins.set(b, i, (b * 7 + i as u32 * 3) % 5 < 2);
            }
        }
        let parts: Vec<SpinBits> = slices
            .iter()
            .map(|&s| shape.slice_spins(&spins, s))
            .collect();
        assert_eq!(parts[1].systems(), 3 * 2 * 2);
        // Rank 1 holds samples 1 and 2. Its system (1*2+0)*2+1 = 5, sample 1 at temperature 1,
        // replica 1, is the whole run's (1*5+1)*2+1 = 13.
        assert_eq!(slices[1], SampleSlice { first: 1, count: 2 });
        assert_eq!(parts[1].system_signs(5), spins.system_signs(13));
        assert_eq!(shape.merge_spins(&parts, &slices).unwrap(), spins);
    }

    #[test]
    fn copy_maps_are_renumbered_per_rank_and_stay_within_it() {
        let shape = RunShape::of(&glass(4));
        let slices = partition(&glass(4), 1, 2).unwrap();
        // Every system copies the other replica of its (temperature, sample).
        let sources: Vec<u32> = (0..3 * 4 * 2).map(|b| b ^ 1).collect();
        let local = shape.slice_copy_map(&sources, slices[1]).unwrap();
        let expected: Vec<u32> = (0..3 * 2 * 2).map(|b| b ^ 1).collect();
        assert_eq!(local, expected);
        let mut across = sources.clone();
        across[4] = 0; // sample 2, temperature 0 takes sample 0's lattice
        assert!(shape.slice_copy_map(&across, slices[1]).is_err());
    }
}
