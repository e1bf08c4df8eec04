//! Runs split over MPI ranks: `mpirun -np N spinflip run config.ron` (feature `mpi`).
//!
//! Rank 0 runs the one simulation loop, exactly as on one device; its engine is a
//! [`ranked::RankedEngine`], one for every model, that forwards every engine call (open, hot
//! start, plans, spins, tempering state, betas, copies, widths, exchanges) to the other ranks,
//! which replay them on engines of their own ([`world::follow`]), and merges their answers. The loop, the estimators, checkpoints and
//! outputs never see ranks, and rank 0 alone writes files.
//!
//! Independent systems are split by disorder sample: rank `k` holds samples `first .. first +
//! count` ([`Share`], from [`partition`]) at every temperature and replica, opened on
//! [`IsingSystems::sample_slice`], whose engines key every Philox counter by the whole run's
//! indices. So a run on N ranks ends with the same spins and writes the same files as on one
//! device. Everything exchanged is exact (integer counts, spins as bits), and the whole run's
//! arrays are the ranks' arrays concatenated sample block by sample block ([`merge_samples`],
//! [`slice_samples`]): systems `b = (t S + s) R + r`, overlaps `(t S + s) P + p`, chain sets
//! `c = s R + r` all put the sample outside the replica and inside the temperature.
//!
//! Vector-spin runs split by sample alone ([`vector_split`]), on
//! [`VectorSystems::sample_slice`], with the same merges. What is a model's (its split, the
//! slicing and merging of its arrays) is its division of the ranked engine: `ising` and
//! `vector`.
//!
//! This module holds what does not need MPI (the partition, the merges, the wire format in
//! [`wire`]), so it is tested in every build; [`ranked`], [`world`], `ising`, `vector`, `serve`
//! and `halo` hold the MPI side.

#[cfg(feature = "mpi")]
mod followers;
#[cfg(feature = "mpi")]
mod halo;
#[cfg(feature = "mpi")]
mod ising;
mod open;
#[cfg(feature = "mpi")]
pub mod ranked;
#[cfg(feature = "mpi")]
mod serve;
#[cfg(feature = "mpi")]
mod vector;
pub mod wire;
#[cfg(feature = "mpi")]
pub mod world;

use crate::config::{Algorithm, Config, Disorder, Lanes, Layout};
use crate::engine::annealing::{PopulationHistograms, ResamplingTable, TableHead};
use crate::engine::{Betas, Measurements, SpinBits};
use crate::error::{Error, Result};
use crate::model::Lattice;
use crate::model::ising::IsingSystems;
use crate::model::systems::SystemIndex;
use crate::model::vector::VectorSystems;
pub use open::{open_engine, open_engine_with_betas, open_vector_engine};

/// What one rank holds of a run: samples or planes `first .. first + count` of the run's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Share {
    pub first: u32,
    pub count: u32,
}

/// How a run is split over ranks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Split {
    /// Rank `k` holds disorder samples `shares[k]`, every temperature and replica of them
    /// ([`IsingSystems::sample_slice`]).
    Samples(Vec<Share>),
    /// Rank `k` holds planes `shares[k]` of the slowest axis of every lattice
    /// ([`IsingSystems::plane_slab`]), trading halo planes with its neighbours after each
    /// colour ([`crate::engine::Halo`]).
    Slabs(Vec<Share>),
}

impl Split {
    pub fn shares(&self) -> &[Share] {
        match self {
            Split::Samples(shares) | Split::Slabs(shares) => shares,
        }
    }
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

/// Planes that stay together in a slab: a slab starts on an even plane and holds whole pairs,
/// so every slab has two boundary planes and the checkerboard's parity of its first plane is
/// that of plane 0.
pub const SLAB_PLANES: u32 = 2;

/// How `systems` (engine resolved in `config`, opened for `betas`) split over `ranks`: by
/// disorder sample where there are groups enough (see [`sample_group`]), else, for Metropolis
/// sweeps on the multispin engine, each lattice into slabs of whole plane pairs. Refuses what neither
/// fits, saying what would.
pub fn split(config: &Config, systems: &IsingSystems, betas: Betas, ranks: u32) -> Result<Split> {
    let too_few_samples = match sample_shares(systems.samples, sample_group(config), ranks) {
        Ok(shares) => return Ok(Split::Samples(shares)),
        Err(why) => why,
    };
    // Slabs of one lattice: the multispin engines (SMSC and every AMSC lane kind).
    let multispin = config.engine.multispin().is_some();
    let sweeps_only =
        betas == Betas::Fixed && !matches!(config.algorithm, Algorithm::Tempering { .. });
    let plane_groups = systems.lattice.size / SLAB_PLANES;
    if multispin && sweeps_only && plane_groups >= ranks {
        return Ok(Split::Slabs(even_shares(plane_groups, SLAB_PLANES, ranks)));
    }
    Err(Error::Usage(format!(
        "{too_few_samples} Splitting each lattice into slabs of planes instead takes Metropolis \
         sweeps (no tempering, no annealing) on the multispin engine (engine: Multispin(...), \
         not Simple) and at least {SLAB_PLANES} of the L = {} planes per rank. Use fewer \
         ranks{}",
        systems.lattice.size,
        if systems.disorder == Disorder::Bimodal {
            " or more samples"
        } else {
            ""
        }
    )))
}

/// How the vector-spin `systems` (the whole run's, of the model `model`) split over `ranks`:
/// by disorder sample alone (a lattice's vector spins are not split into slabs), each rank
/// holding at least one sample. Refuses more ranks than samples, saying how many fit.
pub fn vector_split(model: &str, systems: &VectorSystems, ranks: u32) -> Result<Vec<Share>> {
    sample_shares(systems.samples, 1, ranks).map_err(|too_few_samples| {
        let remedy = match systems.disorder {
            Disorder::Ferromagnet => {
                "the ferromagnet has one sample, so run it on one rank (or without mpirun)"
            }
            _ => "use fewer ranks or more samples",
        };
        Error::Usage(format!(
            "{model}: {too_few_samples} Vector spins split over ranks by sample only; {remedy}."
        ))
    })
}

/// `samples` disorder samples in groups of `group` (see [`sample_group`]) over `ranks` ranks,
/// contiguous and as even as they go; where the groups are fewer than the ranks, why, as the
/// first sentence of a refusal.
fn sample_shares(samples: u32, group: u32, ranks: u32) -> std::result::Result<Vec<Share>, String> {
    let groups = samples / group;
    if groups >= ranks {
        return Ok(even_shares(groups, group, ranks));
    }
    let unit = match group {
        1 => "one sample".to_string(),
        _ => format!("{group} samples (the lanes of a word)"),
    };
    let plural = if groups == 1 { "" } else { "s" };
    Err(format!(
        "{ranks} MPI ranks for {samples} disorder sample(s): split by sample, each rank needs at \
         least {unit}, so this run divides over at most {groups} rank{plural}."
    ))
}

/// `units` units of `group` items over `ranks` ranks (`units >= ranks`), contiguous, as even
/// as they go (the first ranks take the smaller shares).
fn even_shares(units: u32, group: u32, ranks: u32) -> Vec<Share> {
    let (units, ranks) = (u64::from(units), u64::from(ranks));
    (0..ranks)
        .map(|k| {
            let (from, to) = (k * units / ranks, (k + 1) * units / ranks);
            Share {
                first: (from * u64::from(group)) as u32,
                count: ((to - from) * u64::from(group)) as u32,
            }
        })
        .collect()
}

/// The whole run's array `[outer][sample][inner]` from the ranks' arrays `[outer][local
/// sample][inner]` (rank `k` holding `slices[k]`, which cover the samples in order).
pub fn merge_samples<T: Copy>(
    parts: &[Vec<T>],
    slices: &[Share],
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
    slice: Share,
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
        Self::of_index(systems, systems.lattice)
    }

    /// The shape of the systems `index` on `lattice`, of any model.
    pub fn of_index(index: &SystemIndex, lattice: Lattice) -> Self {
        RunShape {
            temperatures: index.betas.len(),
            samples: index.samples,
            replicas: index.replicas as usize,
            pairs: index.overlap_pairs() as usize,
            size: lattice.size as usize,
            sites: lattice.sites(),
        }
    }

    /// The whole run's measurements of a plan filling `slots` slots from the ranks' (the
    /// temperature history, of sample 0, from the rank holding it: the first).
    pub fn merge_measurements(
        &self,
        parts: Vec<Measurements>,
        slices: &[Share],
        slots: usize,
    ) -> Result<Measurements> {
        let outer = slots * self.temperatures;
        // Each field's parts, moved out of the ranks' measurements.
        let mut labels = None;
        let (mut observations, mut planes, mut links) = (Vec::new(), Vec::new(), Vec::new());
        let (mut copies, mut histograms) = (Vec::new(), Vec::new());
        for part in parts {
            labels.get_or_insert(part.labels);
            copies.push(part.copies);
            observations.push(part.observations);
            planes.push(part.overlap_planes);
            links.push(part.link_overlaps);
            histograms.extend(part.histograms.map(|h| *h));
        }
        // Histograms of the populations stand for the observations (which are then empty).
        let (observations, histograms) = match histograms.is_empty() {
            true => (
                merge_samples(&observations, slices, outer, self.replicas)?,
                None,
            ),
            false => (Vec::new(), Some(self.merge_histograms(histograms, slices)?)),
        };
        // No overlaps where there are no pairs, or where the engines measure the populations
        // as histograms (which replace every replica's counts).
        let unmeasured = planes.iter().all(Vec::is_empty) && links.iter().all(Vec::is_empty);
        let (overlap_planes, link_overlaps) = if self.pairs == 0 || unmeasured {
            (Vec::new(), Vec::new())
        } else {
            (
                merge_samples(&planes, slices, outer, self.pairs * self.size)?,
                merge_samples(&links, slices, outer, self.pairs)?,
            )
        };
        let copies = match copies.iter().all(Vec::is_empty) {
            true => Vec::new(),
            false => merge_samples(&copies, slices, self.temperatures, self.replicas)?,
        };
        Ok(Measurements {
            observations,
            overlap_planes,
            link_overlaps,
            labels: labels.unwrap_or_default(),
            copies,
            histograms,
            // Cluster updates are not split over ranks (refused before they start).
            cluster_sizes: Vec::new(),
            ..Measurements::default()
        })
    }

    /// The whole run's population histograms from every rank's (blocks `[t][sample][run]`, as
    /// the systems they count: a sample's runs are consecutive blocks of its replicas).
    fn merge_histograms(
        &self,
        parts: Vec<PopulationHistograms>,
        slices: &[Share],
    ) -> Result<Box<PopulationHistograms>> {
        if parts.len() != slices.len() {
            return Err(Error::State(format!(
                "{} of {} ranks counted their populations as histograms",
                parts.len(),
                slices.len()
            )));
        }
        let (bond_bins, site_bins) = (parts[0].bond_bins, parts[0].site_bins);
        let first = self.temperatures * slices[0].count as usize * bond_bins.max(1) as usize;
        let runs = parts[0].satisfied.len() / first.max(1);
        let (satisfied, up): (Vec<_>, Vec<_>) =
            parts.into_iter().map(|h| (h.satisfied, h.up)).unzip();
        let merge = |parts: &[Vec<u32>], bins: u32| {
            merge_samples(parts, slices, self.temperatures, runs * bins as usize)
        };
        Ok(Box::new(PopulationHistograms {
            bond_bins,
            site_bins,
            satisfied: merge(&satisfied, bond_bins)?,
            up: merge(&up, site_bins)?,
        }))
    }

    /// The whole run's lattices from the ranks' (each a [`SpinBits`] of its systems).
    pub fn merge_spins(&self, parts: &[SpinBits], slices: &[Share]) -> Result<SpinBits> {
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
                let bits = u64::from(block) * self.sites;
                whole.copy_bits_from(
                    u64::from(to) * self.sites,
                    part,
                    u64::from(t * block) * self.sites,
                    bits,
                );
            }
        }
        Ok(whole)
    }

    /// Rank `slice`'s lattices of the whole run's `whole`.
    pub fn slice_spins(&self, whole: &SpinBits, slice: Share) -> SpinBits {
        let block = slice.count * self.replicas as u32;
        let mut part = SpinBits::down(self.temperatures as u32 * block, self.sites);
        for t in 0..self.temperatures as u32 {
            let from = (t * self.samples + slice.first) * self.replicas as u32;
            part.copy_bits_from(
                u64::from(t * block) * self.sites,
                whole,
                u64::from(from) * self.sites,
                u64::from(block) * self.sites,
            );
        }
        part
    }

    /// Sites of one plane of the slowest axis: `L^(d-1)`.
    fn plane_sites(&self) -> u64 {
        self.sites / self.size as u64
    }

    /// The whole run's measurements from the slabs' (each counts its own planes: the sum).
    pub fn sum_measurements(parts: Vec<Measurements>) -> Result<Measurements> {
        let mut parts = parts.into_iter();
        let mut whole = parts.next().unwrap_or_default();
        for (k, part) in parts.enumerate() {
            let same = part.observations.len() == whole.observations.len()
                && part.overlap_planes.len() == whole.overlap_planes.len()
                && part.link_overlaps.len() == whole.link_overlaps.len();
            if !same {
                return Err(Error::State(format!(
                    "rank {} measured {} systems where rank 0 measured {}",
                    k + 1,
                    part.observations.len(),
                    whole.observations.len()
                )));
            }
            for (o, p) in whole.observations.iter_mut().zip(part.observations) {
                o.up += p.up;
                o.satisfied += p.satisfied;
            }
            for (o, p) in whole.overlap_planes.iter_mut().zip(part.overlap_planes) {
                *o += p;
            }
            for (o, p) in whole.link_overlaps.iter_mut().zip(part.link_overlaps) {
                *o += p;
            }
        }
        Ok(whole)
    }

    /// The whole run's lattices from the slabs' (each a [`SpinBits`] of every system's planes
    /// `shares[k]`).
    pub fn merge_slabs(&self, parts: &[SpinBits], shares: &[Share]) -> Result<SpinBits> {
        let systems = self.temperatures as u32 * self.samples * self.replicas as u32;
        let mut whole = SpinBits::down(systems, self.sites);
        for (k, (part, share)) in parts.iter().zip(shares).enumerate() {
            let sites = u64::from(share.count) * self.plane_sites();
            if part.systems() != systems || part.sites() != sites {
                return Err(Error::State(format!(
                    "rank {k} returned {} lattices of {} sites where it holds {systems} slabs of \
                     {sites}",
                    part.systems(),
                    part.sites()
                )));
            }
            let at = u64::from(share.first) * self.plane_sites();
            for b in 0..u64::from(systems) {
                whole.copy_bits_from(b * self.sites + at, part, b * sites, sites);
            }
        }
        Ok(whole)
    }

    /// Every lattice's planes `share` of the whole run's `whole`.
    pub fn slab_of(&self, whole: &SpinBits, share: Share) -> SpinBits {
        let sites = u64::from(share.count) * self.plane_sites();
        let at = u64::from(share.first) * self.plane_sites();
        let mut part = SpinBits::down(whole.systems(), sites);
        for b in 0..u64::from(whole.systems()) {
            part.copy_bits_from(b * sites, whole, b * self.sites + at, sites);
        }
        part
    }

    /// Rank `slice`'s copy map of the whole run's `sources` (a source system for every system,
    /// [`crate::engine::Populations::copy_systems`]), in its own system numbers. Refuses a map that
    /// moves a lattice to a sample on another rank.
    /// The blocks of `table` (each `runs` consecutive ones of a sample, the systems of one
    /// temperature) that hold the samples of `slice`, their entries rebased.
    pub fn slice_resampling(&self, table: &ResamplingTable, slice: Share) -> ResamplingTable {
        let runs = table.heads.len() / self.samples as usize;
        let heads = &table.heads[slice.first as usize * runs..][..slice.count as usize * runs];
        let mut entries = Vec::new();
        let heads = heads
            .iter()
            .map(|head| {
                let offset = entries.len() as u32;
                entries
                    .extend_from_slice(&table.entries[head.offset as usize..][..head.len as usize]);
                TableHead { offset, ..*head }
            })
            .collect();
        ResamplingTable {
            heads,
            entries,
            ..table.clone()
        }
    }

    pub fn slice_copy_map(&self, sources: &[u32], slice: Share) -> Result<Vec<u32>> {
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
    use crate::config::ReplicaMoves;
    use crate::engine::Observation;
    use crate::model::{Lattice, Shape};

    fn glass(samples: u32) -> IsingSystems {
        IsingSystems::spin_glass(Lattice::new(2, 4), 0.0, vec![0.3, 0.5, 0.7], samples, 2, 5)
    }

    fn config(layout: Layout) -> Config {
        Config {
            engine: crate::config::EngineKind::Multispin {
                layout,
                randoms: crate::config::Randoms::Exact,
            },
            ..Config::default_config().expect("the built-in config is valid")
        }
    }

    fn amsc(lanes: Lanes) -> Config {
        config(Layout::Amsc { lanes })
    }

    fn shares(split: Result<Split>) -> Vec<u32> {
        split.unwrap().shares().iter().map(|s| s.count).collect()
    }

    #[test]
    fn samples_split_contiguous_and_even_and_refuse_too_many_ranks() {
        let replicas = amsc(Lanes::Replicas);
        let split = split(&replicas, &glass(7), Betas::Fixed, 3).unwrap();
        assert!(matches!(split, Split::Samples(_)));
        let firsts: Vec<u32> = split.shares().iter().map(|s| s.first).collect();
        assert_eq!(firsts, [0, 2, 4]);
        assert_eq!(shares(Ok(split)), [2, 2, 3]);
        let lanes = amsc(Lanes::Samples);
        assert_eq!(
            shares(super::split(&lanes, &glass(96), Betas::Fixed, 2)),
            [32, 64]
        );
        let error = super::split(&lanes, &glass(64), Betas::Fixed, 3).unwrap_err();
        assert!(error.to_string().contains("at most 2 ranks"), "{error}");
    }

    #[test]
    fn vector_spins_split_by_sample_and_refuse_more_ranks_than_samples() {
        let xy = VectorSystems::uniform(Lattice::new(2, 4), 2, (1, 0.0), vec![0.5], 2, 3);
        let glass = xy.clone().with_disorder(Disorder::Gaussian, 5);
        let shares = vector_split("XY", &glass, 3).unwrap();
        let bounds: Vec<_> = shares.iter().map(|s| (s.first, s.count)).collect();
        assert_eq!(bounds, [(0, 1), (1, 2), (3, 2)]);
        let error = vector_split("XY Gaussian spin glass 2D", &glass, 6).unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with("XY Gaussian spin glass 2D: 6 MPI ranks for 5 disorder sample(s)")
                && message.contains("at most 5 ranks")
                && message.contains("more samples"),
            "{message}"
        );
        let error = vector_split("XY 2D", &xy, 2).unwrap_err().to_string();
        assert!(
            error.contains("at most 1 rank.") && error.contains("the ferromagnet has one sample"),
            "{error}"
        );
    }

    #[test]
    fn multispin_sweeps_split_into_slabs_of_plane_pairs_where_samples_are_too_few() {
        let smsc = config(Layout::Smsc);
        let ferromagnet = IsingSystems::ferromagnet(Lattice::new(2, 64), 0.0, vec![0.4], 2, 1);
        let split = split(&smsc, &ferromagnet, Betas::Fixed, 3).unwrap();
        assert!(matches!(split, Split::Slabs(_)), "{split:?}");
        let shares = split.shares();
        assert_eq!(shares.iter().map(|s| s.count).sum::<u32>(), 64);
        assert!(shares.iter().all(|s| s.first % 2 == 0 && s.count % 2 == 0));
        // 33 ranks would leave one without a plane pair.
        let error = super::split(&smsc, &ferromagnet, Betas::Fixed, 33).unwrap_err();
        assert!(
            error.to_string().contains("at least 2 of the L = 64"),
            "{error}"
        );
        // Slabs take Metropolis sweeps only.
        let error = super::split(&smsc, &ferromagnet, Betas::Changing, 2).unwrap_err();
        assert!(error.to_string().contains("no annealing"), "{error}");
        let tempering = Config {
            algorithm: Algorithm::Tempering {
                every: 1,
                tune: false,
                moves: ReplicaMoves::None,
            },
            ..smsc.clone()
        };
        assert!(super::split(&tempering, &ferromagnet, Betas::Fixed, 2).is_err());
        let amsc_slabs = super::split(&amsc(Lanes::Replicas), &ferromagnet, Betas::Fixed, 2);
        assert!(matches!(amsc_slabs, Ok(Split::Slabs(_))));
        let simple = Config {
            engine: crate::config::EngineKind::Simple,
            ..smsc.clone()
        };
        let error = super::split(&simple, &ferromagnet, Betas::Fixed, 2).unwrap_err();
        assert!(error.to_string().contains("not Simple"), "{error}");
        // The triangular and kagome lattices too, whose colours update in halves.
        for shape in [Shape::Triangular, Shape::Kagome] {
            let lattice = Lattice::shaped(shape, 2, 192);
            let words = IsingSystems::ferromagnet(lattice, 0.0, vec![0.4], 2, 1);
            let slabs = super::split(&smsc, &words, Betas::Fixed, 2);
            assert!(matches!(slabs, Ok(Split::Slabs(_))), "{shape:?}");
        }
        // One rank takes the whole run, by sample.
        assert_eq!(
            super::split(&smsc, &ferromagnet, Betas::Fixed, 1)
                .unwrap()
                .shares()
                .len(),
            1
        );
    }

    #[test]
    fn slabs_of_lattices_merge_back_and_measurements_add_up() {
        let systems = IsingSystems::ferromagnet(Lattice::new(3, 4), 0.0, vec![0.4], 3, 1);
        let shape = RunShape::of(&systems);
        let mut spins = SpinBits::down(3, 64);
        for b in 0..3 {
            for i in 0..64 {
                spins.set(b, i, (b * 5 + i as u32 * 7).is_multiple_of(3));
            }
        }
        let shares = [Share { first: 0, count: 2 }, Share { first: 2, count: 2 }];
        let parts: Vec<SpinBits> = shares.iter().map(|&s| shape.slab_of(&spins, s)).collect();
        assert_eq!(parts[1].sites(), 32);
        // Site 5 of plane z = 3 of system 2 is site 16 + 5 of its second slab.
        assert_eq!(parts[1].up(2, 21), spins.up(2, 48 + 5));
        assert_eq!(shape.merge_slabs(&parts, &shares).unwrap(), spins);
        let measured = |up, satisfied, plane| Measurements {
            observations: vec![Observation { up, satisfied }],
            overlap_planes: vec![plane, 1],
            link_overlaps: vec![u64::from(plane)],
            labels: Vec::new(),
            copies: Vec::new(),
            histograms: None,
            ..Measurements::default()
        };
        let sum = RunShape::sum_measurements(vec![measured(3, 4, 5), measured(10, 20, 30)]);
        let expected = Measurements {
            overlap_planes: vec![35, 2],
            ..measured(13, 24, 35)
        };
        assert_eq!(sum.unwrap(), expected);
    }

    #[test]
    fn merging_the_slices_of_an_array_gives_it_back() {
        let shape = RunShape::of(&glass(5));
        let slices = even_shares(5, 1, 3);
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
        assert_eq!(slices[1], Share { first: 1, count: 2 });
        assert_eq!(parts[1].system_signs(5), spins.system_signs(13));
        assert_eq!(shape.merge_spins(&parts, &slices).unwrap(), spins);
    }

    #[test]
    fn copy_maps_are_renumbered_per_rank_and_stay_within_it() {
        let shape = RunShape::of(&glass(4));
        let slices = even_shares(4, 1, 2);
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
