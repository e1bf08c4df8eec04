//! The measurement series of a run, per temperature and sample, from the loop's slot-major
//! record of exact integers.

use super::Schedule;
use super::state::RunState;
use crate::model::ising::IsingSystems;
use crate::stats::{SampleSeries, overlap};

/// Every series of a run, `[temperature][sample]`, from the slot-major record: the first
/// `thermalization` measurements were taken while thermalising, the rest enter the estimates.
/// `production` holds the latter, split off once for the estimates and the outputs.
pub(super) struct RunSeries {
    pub(super) all: Vec<Vec<SampleSeries>>,
    pub(super) thermalization: usize,
    pub(super) production: Vec<Vec<SampleSeries>>,
    /// With cluster updates, `[temperature][replica][measurement]` of the production: the
    /// cluster sizes' statistic of the ferromagnet's (one sample's) replicas; empty without.
    pub(super) cluster_sizes: Vec<Vec<Vec<u64>>>,
}

impl RunSeries {
    /// The measurements while thermalising.
    pub(super) fn thermalizing(&self) -> Vec<Vec<SampleSeries>> {
        self.part(0..self.thermalization)
    }

    fn part(&self, range: std::ops::Range<usize>) -> Vec<Vec<SampleSeries>> {
        let part = |samples: &Vec<SampleSeries>| {
            samples
                .iter()
                .map(|s| s.measurements(range.clone()))
                .collect()
        };
        self.all.iter().map(part).collect()
    }

    pub(super) fn new(systems: &IsingSystems, schedule: &Schedule, state: &RunState) -> Self {
        let (temperatures, samples) = (systems.betas.len() as u32, systems.samples);
        let (replicas, pairs) = (systems.replicas as usize, systems.overlap_pairs() as usize);
        let per_measurement = systems.systems() as usize;
        let overlaps_per_measurement = systems.overlaps() as usize;
        let n = systems.lattice.spins();
        let series_of = |t: u32, s: u32| {
            let first = systems.system(t, s, 0) as usize;
            let mut series = SampleSeries {
                energies: vec![Vec::new(); replicas],
                magnetisations: vec![Vec::new(); replicas],
                overlaps: vec![Vec::new(); pairs],
                overlaps_kmin: vec![Vec::new(); pairs],
                link_overlaps: vec![Vec::new(); pairs],
            };
            for (bonds, ms) in state
                .bond_sums
                .chunks(per_measurement)
                .zip(state.magnetisations.chunks(per_measurement))
            {
                for r in 0..replicas {
                    let b = first + r;
                    series.energies[r].push(systems.energy(bonds[b], ms[b]));
                    series.magnetisations[r].push(ms[b]);
                }
            }
            let first_pair = systems.overlap(t, s, 0) as usize;
            let chunk = overlaps_per_measurement.max(1);
            for ((differing, kmin), links) in state
                .overlaps
                .chunks(chunk)
                .zip(state.overlaps_kmin.chunks(chunk))
                .zip(state.link_overlaps.chunks(chunk))
            {
                for p in 0..pairs {
                    series.overlaps[p].push(overlap(differing[first_pair + p], n));
                    series.overlaps_kmin[p].push(kmin[first_pair + p]);
                    // q_l = 1 - 2 B_l / N_b over the lattice's N_b links: the overlap's formula over
                    // bonds.
                    let link = overlap(links[first_pair + p], systems.links());
                    series.link_overlaps[p].push(link);
                }
            }
            series
        };
        let mut series = RunSeries {
            all: (0..temperatures)
                .map(|t| (0..samples).map(|s| series_of(t, s)).collect())
                .collect(),
            thermalization: schedule.thermalization_measurements() as usize,
            production: Vec::new(),
            cluster_sizes: Vec::new(),
        };
        if schedule.clusters.is_some() {
            let skipped = series.thermalization * per_measurement;
            let production = state.cluster_sizes.get(skipped..).unwrap_or_default();
            series.cluster_sizes = (0..temperatures)
                .map(|t| {
                    (0..systems.replicas)
                        .map(|r| {
                            let b = systems.system(t, 0, r) as usize;
                            production
                                .chunks(per_measurement)
                                .map(|sizes| sizes[b])
                                .collect()
                        })
                        .collect()
                })
                .collect();
        }
        series.production = series.part(series.thermalization..usize::MAX);
        series
    }
}
