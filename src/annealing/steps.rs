//! One temperature step's work on the host, between the engine's calls: the populations'
//! levels from a measurement, the resampling table to the next beta, the plans of the step,
//! the families following the engine's copies, the histograms, and the estimates (the
//! overlaps among them).

use std::ops::Range;

use rayon::prelude::*;

use super::model::AnnealedSystems;
use super::resampling::{
    PopulationLevels, ResampleKey, Reweighting, ReweightingQuality, copy_entries,
};
use super::{
    AnnealingEstimates, Levels, PairOverlaps, Population, StaggeredMoments, family_statistics,
    population_moments,
};
use crate::config::{AnnealingOptions, Resampling};
use crate::engine::annealing::{ResamplingTable, TableHead};
use crate::engine::{Engine, Measurements, Plan, populations_of, unit_runs};
use crate::error::{Error, Result};
use crate::model::Lattice;
use crate::stats::{PlanePhases, overlap};
use crate::stop::Stops;
use crate::threads;

/// A resampling step's copies of every system, with the population sizes they make (summed
/// once: the table, the levels and the estimates each ask for them).
pub(super) struct PendingCopies {
    copies: Vec<u32>,
    sizes: Vec<usize>,
}

/// What the loop carries from one temperature step to the next; with the engine's spins, it
/// is what an [`AnnealingCheckpoint`] holds.
pub(super) struct Anneal {
    pub(super) systems: Box<dyn AnnealedSystems>,
    /// The target population size R.
    pub(super) target: u32,
    pub(super) slots: u32,
    pub(super) populations: Vec<Population>,
    pub(super) sweeps_done: u64,
    /// The betas after 0 so far: the current beta is the last, the steps begun its length.
    pub(super) schedule: Vec<f64>,
    /// The copies of the last step's resampling while the families do not follow them yet
    /// (they follow beside the engine's next plan, [`Anneal::settle_families`]); the
    /// populations' sizes take them into account ([`Anneal::size`]).
    pub(super) pending_copies: Option<PendingCopies>,
    /// The step under way where the run stopped, or resumed, between two of its plans.
    pub(super) step_under_way: Option<OpenStep>,
}

/// A temperature step begun (its beta the schedule's last) and not yet measured.
pub(super) struct OpenStep {
    pub(super) record: StepRecord,
    /// The number of its first sweep (`theta` per step before it), which keys its randoms.
    pub(super) first_sweep: u32,
    /// Units of its sweeps done ([`SweepUnits`]).
    pub(super) units_done: u64,
}

/// The loop's position in a step's sweeps, in units: a sweep is the model's passes
/// ([`AnnealedSystems::sweep_passes`]) over the planes of the lattice's slowest axis, a unit
/// one pass over one plane ([`Plan::sweep_units`]). Plans end on whole sweeps where the engine
/// updates no pieces of one ([`Engine::sweep_parts`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct SweepUnits {
    passes: u32,
    planes: u32,
    /// The units a plan's end is a multiple of: one, or a sweep's.
    granule: u64,
}

impl SweepUnits {
    /// The units of the sweeps of `systems` on an engine that updates pieces of sweeps
    /// (`sweep_parts`) or not.
    pub(super) fn of(systems: &dyn AnnealedSystems, sweep_parts: bool) -> Self {
        Self::new(systems.lattice(), systems.sweep_passes(), sweep_parts)
    }

    /// The units of sweeps of `passes` passes over the planes of `lattice`.
    fn new(lattice: Lattice, passes: u32, sweep_parts: bool) -> Self {
        let mut units = SweepUnits {
            passes,
            planes: lattice.size,
            granule: 1,
        };
        if !sweep_parts {
            units.granule = units.per_sweep();
        }
        units
    }

    /// Units of one sweep.
    pub(super) fn per_sweep(&self) -> u64 {
        u64::from(self.passes * self.planes)
    }

    /// Whether a plan may end at unit `units`.
    pub(super) fn is_plan_end(&self, units: u64) -> bool {
        units.is_multiple_of(self.granule)
    }

    /// The end of the plan from unit `from` that `stops` paces, `end` at the latest: on a
    /// whole sweep where the engine updates no pieces of one.
    pub(super) fn plan_end(&self, stops: &Stops, from: u64, end: u64) -> u64 {
        stops
            .plan_end(from, end)
            .next_multiple_of(self.granule)
            .min(end)
    }

    /// Append units `units` of the sweeps numbered from `first_sweep` on, a sweep at a time.
    fn append(&self, plan: &mut Plan, first_sweep: u32, units: Range<u64>) {
        for (k, within) in unit_runs(self.per_sweep(), units) {
            plan.sweep_units(first_sweep + k as u32, (self.passes, self.planes), within);
        }
    }
}

impl Anneal {
    /// First system of population `block`.
    fn base(&self, block: usize) -> usize {
        block * self.slots as usize
    }

    /// Whether the engine may measure the populations as histograms
    /// ([`crate::engine::Populations::count_populations`]): where nothing needs a replica's own counts (they are
    /// needed in a field, where the energy is not a function of the bond level, by multinomial
    /// resampling and by the overlaps) and the histograms are smaller than the populations.
    pub(super) fn counts_populations(&self, annealing: &AnnealingOptions) -> bool {
        let lattice = self.systems.lattice();
        let bins = lattice.links() + lattice.sites() + 2;
        self.systems.bond_levels()
            && annealing.resampling != Resampling::Multinomial
            && !annealing.overlaps
            && bins <= u64::from(self.slots)
    }

    /// Every population's energy and magnetisation levels, from the engine's integer counts
    /// or its histograms. The populations make theirs in parallel: an anneal of many disorder
    /// samples has hundreds of populations, each too small for [`threads::map`] to split.
    pub(super) fn levels(&self, measurements: &Measurements) -> Vec<PopulationLevels> {
        (0..self.populations.len())
            .into_par_iter()
            .map(|block| {
                let systems = self.base(block)..self.base(block) + self.size(block);
                self.systems.levels(measurements, block, systems)
            })
            .collect()
    }

    /// Take the copies `copies[system]` of each replica that the plan's resampling step made
    /// in every population, for the families to follow ([`Self::settle_families`]).
    pub(super) fn take_copies(&mut self, copies: Vec<u32>) -> Result<()> {
        let slots = self.slots as usize;
        if copies.len() != self.populations.len() * slots {
            return Err(Error::State(format!(
                "the engine's resampling step returned {} copy counts for {} populations of {slots} slots",
                copies.len(),
                self.populations.len()
            )));
        }
        self.settle_families();
        let sizes = (self.populations.iter())
            .zip(copies.chunks(slots))
            .map(|(population, copies)| {
                let copies = &copies[..population.families.len()];
                copies.iter().map(|&n| n as usize).sum()
            })
            .collect();
        self.pending_copies = Some(PendingCopies { copies, sizes });
        Ok(())
    }

    /// Every new replica inherits its source's family, after the copies taken last.
    pub(super) fn settle_families(&mut self) {
        let Some(PendingCopies { copies, .. }) = self.pending_copies.take() else {
            return;
        };
        let slots = self.slots as usize;
        // In parallel over the populations, as `levels`: with many samples these passes over
        // every replica, and the estimates', took most of a step (2D, L = 4, 512 populations of
        // 2^14 replicas on an H200: 127 ms a step on one thread, 35 ms in parallel).
        (self.populations.par_iter_mut())
            .zip(copies.par_chunks(slots))
            .for_each(|(population, copies)| {
                let size = population.families.len();
                population.families = threads::repeat_by(&population.families, &copies[..size]);
            });
    }

    /// The size of population `block` after the copies taken last.
    fn size(&self, block: usize) -> usize {
        match &self.pending_copies {
            None => self.populations[block].families.len(),
            Some(pending) => pending.sizes[block],
        }
    }

    /// Add every population's energies to its histogram, in the model's energy unit, where
    /// they are whole numbers ([`AnnealedSystems::energy_unit`]; exactly: the unit is a power
    /// of two).
    pub(super) fn record_histograms(&mut self, levels: &[PopulationLevels]) {
        let unit = self.systems.energy_unit();
        // In parallel over the populations, as `levels`.
        (self.populations.par_iter_mut())
            .zip(levels)
            .for_each(|(population, levels)| {
                let energies = levels.energies.iter().map(|&e| (e / unit).round() as i64);
                population
                    .histogram
                    .add_counts(energies.zip(levels.counts.iter().copied()));
            });
    }

    /// The overlaps at the current beta of every sample's run pairs: slot `j` of run `k <
    /// runs/2` with slot `j` of run `k + runs/2`, for every slot both populations fill, as the
    /// engine measures them (replica `r` with `r + replicas/2`, the runs' blocks being
    /// consecutive); recorded on run `k`.
    pub(super) fn estimate_overlaps(&mut self, measurements: &Measurements, runs: u32) {
        let lattice = self.systems.lattice();
        let (n, size, links) = (lattice.spins(), lattice.size as usize, self.systems.links());
        let phases = PlanePhases::new(lattice.size);
        let half = runs as usize / 2;
        // Overlaps per sample, pair `k slots + j` joining run k's slot j with run k + runs/2's.
        let pairs_per_sample = half * self.slots as usize;
        for block in 0..self.populations.len() {
            let (sample, run) = (block / runs as usize, block % runs as usize);
            if run >= half {
                continue;
            }
            let active = self.populations[block]
                .families
                .len()
                .min(self.populations[block + half].families.len());
            let first = sample * pairs_per_sample + run * self.slots as usize;
            let pairs = threads::from_fn(active, |j| {
                let o = first + j;
                let planes = &measurements.overlap_planes[o * size..][..size];
                let (differing, kmin) = phases.overlap_from_planes(planes, n);
                // q_l = 1 - 2 B_l / N_b over the lattice's N_b links: the overlap's formula over
                // bonds.
                let link = overlap(measurements.link_overlaps[o] as i64, links);
                (overlap(differing, n), kmin, link)
            });
            let estimates = self.populations[block].estimates.last_mut();
            if let Some(last) = estimates {
                last.pairs = PairOverlaps::of_pairs(&pairs);
            }
        }
    }

    /// Begin the step to `next` of `theta` sweeps: the resampling of every population from the
    /// current beta, whose table goes to the engine for the step's first plan, and the engine
    /// moves to `next`.
    pub(super) fn begin_step(
        &mut self,
        engine: &mut dyn Engine,
        options: &AnnealingOptions,
        levels: &[PopulationLevels],
        next: f64,
    ) -> Result<OpenStep> {
        let last_sweep = self.sweeps_done + u64::from(options.theta) - 1;
        if u32::try_from(last_sweep).is_err() {
            return Err(Error::State(format!(
                "population annealing: step {} passes {} sweeps, the range of the \
                 random-number counter; use fewer steps or a smaller theta",
                self.step() + 1,
                u32::MAX
            )));
        }
        let first_sweep = self.sweeps_done as u32;
        let reweightings = self.resampling_table(engine, options, levels, next)?;
        Ok(OpenStep {
            record: StepRecord {
                beta: next,
                reweightings: reweightings.iter().map(Reweighting::quality).collect(),
                ln_z: self.populations.iter().map(|p| p.ln_z).collect(),
            },
            first_sweep,
            units_done: 0,
        })
    }

    /// The resampling of every population from the current beta to `next`: its table goes to
    /// the engine for the next plan's resampling step, and the engine moves to `next`. The
    /// reweightings, for the estimates.
    fn resampling_table(
        &mut self,
        engine: &mut dyn Engine,
        options: &AnnealingOptions,
        levels: &[PopulationLevels],
        next: f64,
    ) -> Result<Vec<Reweighting>> {
        // The step to the k-th beta after 0 draws with step number k.
        let step = self.step() + 1;
        let beta = self.beta();
        let mut reweightings = Vec::with_capacity(self.populations.len());
        let mut table = ResamplingTable {
            keyed: levels[0].keyed,
            slots: self.slots,
            heads: Vec::with_capacity(levels.len()),
            entries: Vec::new(),
        };
        // Each population's reweighting and copy entries in parallel, as `levels` (a population
        // in a field has a level a replica), then the table in population order.
        let seed = self.systems.index().seed;
        let resampled: Vec<_> = (levels.par_iter().enumerate())
            .map(|(block, levels)| {
                let reweighting = Reweighting::new(levels, next - beta);
                let block = block as u32;
                let key = ResampleKey { seed, step, block };
                let copies =
                    copy_entries(options.resampling, levels, &reweighting, self.target, key);
                (reweighting, copies)
            })
            .collect();
        for (block, (levels, (reweighting, (keyed, entries)))) in
            levels.iter().zip(resampled).enumerate()
        {
            table.keyed = keyed;
            table.heads.push(TableHead {
                lo: levels.lo,
                len: entries.len() as u32,
                offset: table.entries.len() as u32,
                size: self.size(block) as u32,
                batch: block as u32,
            });
            table.entries.extend(entries);
            self.populations[block].ln_z += reweighting.ln_q;
            reweightings.push(reweighting);
        }
        let populations = populations_of(engine)?;
        populations.set_resampling(&table)?;
        populations.set_betas(&[next])?;
        self.schedule.push(next);
        Ok(reweightings)
    }

    /// The plan of units `units` of `step`'s sweeps (of `theta` sweeps in all, cut as `cut`
    /// says): the step's resampling step first where they are its first, its measurement last
    /// where they are its last. The sweeps number on from the previous step's, keying the
    /// Metropolis randoms.
    pub(super) fn step_plan(
        &self,
        step: &OpenStep,
        units: Range<u64>,
        (theta, cut): (u32, SweepUnits),
    ) -> Result<Plan> {
        let mut plan = Plan::default();
        if units.start == 0 {
            plan.resample(self.step())?;
        }
        let last = units.end == u64::from(theta) * cut.per_sweep();
        cut.append(&mut plan, step.first_sweep, units);
        if last {
            plan.measure();
        }
        Ok(plan)
    }

    /// Every population's estimates at the step of `record`, from its levels `levels` and
    /// its families (those of the populations until the next step's copies).
    pub(super) fn estimates_of(
        &self,
        levels: &[PopulationLevels],
        record: &StepRecord,
    ) -> Vec<AnnealingEstimates> {
        let (n, beta) = (self.systems.lattice().spins(), record.beta);
        let steps = levels.iter().zip(&record.reweightings).zip(&record.ln_z);
        let estimate =
            |((levels, reweighting), ln_z): ((&PopulationLevels, &ReweightingQuality), &f64),
             population: &Population| {
                let energies = Levels {
                    values: &levels.energies,
                    counts: &levels.counts,
                };
                let magnetisations = Levels {
                    values: &levels.magnetisations,
                    counts: &levels.magnetisation_counts,
                };
                let [e, c, abs_m, m2, m4, u4] =
                    population_moments(beta, n, energies, magnetisations);
                let staggered = match levels.staggered.is_empty() {
                    true => StaggeredMoments::MISSING,
                    false => StaggeredMoments::of(
                        n,
                        Levels {
                            values: &levels.staggered,
                            counts: &levels.staggered_counts,
                        },
                    ),
                };
                let (families, rho_t, rho_s) = family_statistics(&population.families);
                let ln_z = ln_z / n as f64;
                let f = -ln_z / beta;
                AnnealingEstimates {
                    beta,
                    population: population.families.len() as u32,
                    e,
                    c,
                    abs_m,
                    m2,
                    m4,
                    u4,
                    ln_z,
                    f,
                    s: beta * (e - f),
                    overlap: reweighting.overlap,
                    effective_population: reweighting.effective_size,
                    families,
                    rho_t,
                    rho_s,
                    pairs: PairOverlaps::MISSING,
                    staggered,
                }
            };
        // In parallel over the populations, as `levels`: this runs beside the next step's
        // first plan, which waits for it.
        let steps: Vec<_> = steps.zip(&self.populations).collect();
        steps
            .into_par_iter()
            .map(|(step, population)| estimate(step, population))
            .collect()
    }

    /// Append a step's estimates (one per population), if there are any.
    pub(super) fn push_estimates(&mut self, estimates: Option<Vec<AnnealingEstimates>>) {
        for (population, estimate) in self
            .populations
            .iter_mut()
            .zip(estimates.into_iter().flatten())
        {
            population.estimates.push(estimate);
        }
    }
}

/// What a step's estimates need besides its levels and its populations' families: its beta,
/// its reweightings and every population's `ln Z` after it.
pub(super) struct StepRecord {
    pub(super) beta: f64,
    pub(super) reweightings: Vec<ReweightingQuality>,
    pub(super) ln_z: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Step;

    /// Units cut at any plane are the pieces of the sweeps they hold, a sweep they hold whole
    /// is that sweep (here 8 units a sweep: two passes over 4 planes).
    #[test]
    fn a_steps_units_are_whole_sweeps_or_their_pieces() {
        let cut = SweepUnits::new(Lattice::new(2, 4), 2, true);
        assert_eq!(cut.per_sweep(), 8);
        let mut plan = Plan::default();
        cut.append(&mut plan, 10, 3..21);
        let part = |sweep, pass, planes| Step::Part {
            sweep,
            pass,
            planes,
        };
        assert_eq!(
            plan.steps,
            [
                part(10, 0, [3, 4]),
                part(10, 1, [0, 4]),
                Step::Sweep { sweep: 11 },
                part(12, 0, [0, 4]),
                part(12, 1, [0, 1]),
            ]
        );
    }

    /// Plans end where the pace allows (the first plan's one unit), on a whole sweep where the
    /// engine updates no pieces, never past the step's end.
    #[test]
    fn plans_end_on_a_unit_or_on_a_whole_sweep() {
        let lattice = Lattice::new(2, 4);
        let (pieces, whole) = (
            SweepUnits::new(lattice, 2, true),
            SweepUnits::new(lattice, 2, false),
        );
        let stops = Stops::new(None);
        assert_eq!(pieces.plan_end(&stops, 0, 16), 1);
        assert_eq!(whole.plan_end(&stops, 0, 16), 8);
        assert_eq!(whole.plan_end(&stops, 8, 12), 12);
        assert!(pieces.is_plan_end(5) && !whole.is_plan_end(5) && whole.is_plan_end(16));
    }
}
