//! Population annealing's host decisions (Barash et al. 2017): the reweighting factors of a step
//! from the engines' integer energies, the normalisation `Q`, the histogram overlap, and the table
//! each engine decides every replica's copies from ([`crate::engine::annealing`]), all in f64 in a
//! fixed order, so the decisions are a function of (config, seed) on every backend.
//!
//! The factors depend on a replica's energy only. At zero field the energy is a function of
//! the satisfied-bond count, so a population is its histogram over those bond levels (a few
//! thousand at most, however large the population) and the table has one entry per level; in
//! a field every replica is its own level and the table has one entry per replica.

use crate::config::Resampling;
use crate::engine::Observation;
use crate::engine::annealing::{Keyed, floor_ceil_entry};
use crate::model::ising::IsingSystems;
use crate::rng::{Counter, Purpose, random_block};
use crate::threads;

/// A population as levels: the distinct energies it may hold and how many of its replicas
/// hold each, and likewise its magnetisations (for the estimates).
#[derive(Debug, Clone, PartialEq)]
pub struct PopulationLevels {
    pub keyed: Keyed,
    /// The satisfied count of level 0 (keyed by bond level; 0 otherwise).
    pub lo: u32,
    pub energies: Vec<f64>,
    pub counts: Vec<u64>,
    /// Magnetisations `M` between the lowest and the highest, in steps of 2.
    pub magnetisations: Vec<f64>,
    pub magnetisation_counts: Vec<u64>,
    /// Staggered magnetisations `M_s` (an antiferromagnet on a bipartite lattice), else none:
    /// each replica's (two discrete states), or those between the lowest and the highest in
    /// steps of 2 (multispin words, whose up count is the staggered one at zero field; their
    /// `magnetisations` then stay empty).
    pub staggered: Vec<f64>,
    pub staggered_counts: Vec<u64>,
    /// The satisfied count of each replica (0 where keyed by replica), which the multinomial
    /// draw counts the replicas by.
    satisfied: Vec<u32>,
}

impl PopulationLevels {
    /// The levels of a population of `systems` whose replicas measured `observations`.
    pub fn of(systems: &IsingSystems, observations: &[Observation]) -> Self {
        let up = counted(observations, |o| o.up);
        let satisfied = threads::map(observations, |o| o.satisfied as u32);
        if systems.field == 0.0 {
            let bonds = counted(observations, |o| o.satisfied);
            return Self::at_zero_field(systems, bonds, up, satisfied);
        }
        let (n, bonds) = (systems.lattice.spins() as i64, systems.links() as i64);
        PopulationLevels {
            keyed: Keyed::Replica,
            lo: 0,
            energies: threads::map(observations, |o| {
                systems.energy(2 * o.satisfied as i64 - bonds, 2 * o.up as i64 - n)
            }),
            counts: vec![1; observations.len()],
            magnetisations: magnetisations(systems, up.0, up.1.len()),
            magnetisation_counts: up.1,
            staggered: Vec::new(),
            staggered_counts: Vec::new(),
            satisfied,
        }
    }

    /// The levels of a population whose replicas have the total energies `energies`,
    /// magnetisations `magnetisations` (`N |m|`) and staggered magnetisations `staggered`
    /// (`N |m_s|`, or none), each replica its own level (keyed by replica): models whose energy
    /// is no function of one integer count.
    pub fn of_replicas(energies: Vec<f64>, magnetisations: Vec<f64>, staggered: Vec<f64>) -> Self {
        let replicas = energies.len();
        PopulationLevels {
            keyed: Keyed::Replica,
            lo: 0,
            energies,
            counts: vec![1; replicas],
            magnetisation_counts: vec![1; magnetisations.len()],
            magnetisations,
            staggered_counts: vec![1; staggered.len()],
            staggered,
            satisfied: vec![0; replicas],
        }
    }

    /// The levels of a population of `systems` (at zero field) from its histograms of
    /// satisfied bonds and up spins ([`crate::engine::annealing::PopulationHistograms`]):
    /// those [`PopulationLevels::of`] makes from its replicas' counts, without the per-replica
    /// counts (multinomial resampling needs them).
    pub fn of_histograms(systems: &IsingSystems, satisfied: &[u32], up: &[u32]) -> Self {
        Self::at_zero_field(systems, occupied(satisfied), occupied(up), Vec::new())
    }

    /// The levels at zero field (keyed by bond level) of a population holding `bonds.1[k]`
    /// replicas with `bonds.0 + k` satisfied bonds and `up.1[k]` with `up.0 + k` up spins (of
    /// the bipartite antiferromagnet the staggered count, [`IsingSystems::staggered`]: its
    /// uniform magnetisation is not counted); `satisfied`, each replica's count, where known.
    fn at_zero_field(
        systems: &IsingSystems,
        (lo, counts): (u64, Vec<u64>),
        (up_lo, up_counts): (u64, Vec<u64>),
        satisfied: Vec<u32>,
    ) -> Self {
        let bonds = systems.links() as i64;
        let counted = (magnetisations(systems, up_lo, up_counts.len()), up_counts);
        let ((magnetisations, magnetisation_counts), (staggered, staggered_counts)) =
            match systems.staggered() {
                true => (Default::default(), counted),
                false => (counted, Default::default()),
            };
        PopulationLevels {
            keyed: Keyed::BondLevel,
            lo: lo as u32,
            energies: (lo..lo + counts.len() as u64)
                .map(|s| systems.energy(2 * s as i64 - bonds, 0))
                .collect(),
            counts,
            magnetisations,
            magnetisation_counts,
            staggered,
            staggered_counts,
            satisfied,
        }
    }

    /// Replicas of the population.
    pub fn replicas(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The level of replica `i`.
    fn level_of(&self, i: usize) -> usize {
        match self.keyed {
            Keyed::BondLevel => (self.satisfied[i] - self.lo) as usize,
            Keyed::Replica => i,
        }
    }

    /// The lowest energy a replica holds.
    fn lowest(&self) -> f64 {
        self.energies
            .iter()
            .zip(&self.counts)
            .filter(|&(_, &n)| n > 0)
            .fold(f64::INFINITY, |low, (&e, _)| low.min(e))
    }
}

/// The lowest `count` of `observations` and how many hold each count from it to the highest
/// (count 0 held by none for no observations), as [`occupied`] reads a histogram.
fn counted(
    observations: &[Observation],
    count: impl Fn(&Observation) -> u64 + Sync + Send,
) -> (u64, Vec<u64>) {
    let (lo, hi) = threads::bounds(observations, &count).unwrap_or((0, 0));
    let counts = threads::histogram(observations, (hi - lo + 1) as usize, |o| {
        (count(o) - lo) as usize
    });
    (lo, counts)
}

/// The magnetisations `M = 2 up - N` of `len` up-spin counts from `up_lo`.
fn magnetisations(systems: &IsingSystems, up_lo: u64, len: usize) -> Vec<f64> {
    let n = systems.lattice.spins() as i64;
    (up_lo..up_lo + len as u64)
        .map(|up| (2 * up as i64 - n) as f64)
        .collect()
}

/// The first occupied bin of `histogram` and the counts from it to the last occupied one
/// (bin 0 and one empty bin for an empty histogram).
fn occupied(histogram: &[u32]) -> (u64, Vec<u64>) {
    let first = histogram.iter().position(|&n| n > 0).unwrap_or(0);
    let last = histogram.iter().rposition(|&n| n > 0).unwrap_or(0);
    let counts = histogram[first..=last]
        .iter()
        .map(|&n| u64::from(n))
        .collect();
    (first as u64, counts)
}

/// The reweighting of one population from `beta` to `beta + delta`.
pub struct Reweighting {
    /// Per level `w exp(delta E_min)`: at most 1, so nothing overflows at any step.
    weights: Vec<f64>,
    /// `sum_levels count w`, the sum over the replicas.
    sum: f64,
    /// `ln Q`, `Q = (1/R) sum_i exp(-delta E_i)`.
    pub ln_q: f64,
    /// The overlap of the energy histograms before and after the step,
    /// `(1/R) sum_i min(1, exp(-delta E_i) / Q)`: 1 for `delta = 0`, falling as it grows.
    pub overlap: f64,
    /// The effective number of replicas of the weights, `(sum w)^2 / sum w^2`.
    pub effective_size: f64,
}

impl Reweighting {
    /// The factors `exp(-delta E)` of a population with energy levels `levels`.
    pub fn new(levels: &PopulationLevels, delta: f64) -> Self {
        let lowest = levels.lowest();
        let weights = factors(levels, lowest, delta);
        let sum = level_sum(levels, &weights, |w| w);
        Reweighting {
            ln_q: (sum / levels.replicas() as f64).ln() - delta * lowest,
            overlap: overlap(levels, &weights, sum),
            effective_size: sum * sum / level_sum(levels, &weights, |w| w * w),
            weights,
            sum,
        }
    }

    /// Its overlap and effective size, which the step's estimates record.
    pub fn quality(&self) -> ReweightingQuality {
        ReweightingQuality {
            overlap: self.overlap,
            effective_size: self.effective_size,
        }
    }

    /// The scale of the expected copies `tau_i = scale w_i = target w_i / sum_j w_j`: they sum
    /// to `target`.
    fn copy_scale(&self, target: u32) -> f64 {
        f64::from(target) / self.sum
    }
}

/// What a step's estimates keep of a population's [`Reweighting`] to the step's beta
/// ([`super::AnnealingEstimates::overlap`], [`super::AnnealingEstimates::effective_population`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReweightingQuality {
    pub overlap: f64,
    pub effective_size: f64,
}

/// The factors `exp(-delta (E - lowest))` of every level of `levels`.
fn factors(levels: &PopulationLevels, lowest: f64, delta: f64) -> Vec<f64> {
    threads::map(&levels.energies, |e| (-delta * (e - lowest)).exp())
}

/// `sum_levels count f(weight)` in level order.
fn level_sum(levels: &PopulationLevels, weights: &[f64], f: impl Fn(f64) -> f64) -> f64 {
    let terms = levels.counts.iter().zip(weights);
    terms.map(|(&n, &w)| n as f64 * f(w)).sum()
}

/// The histogram overlap `(1/R) sum_i min(1, w_i / mean w)` of `weights` summing to `sum`.
fn overlap(levels: &PopulationLevels, weights: &[f64], sum: f64) -> f64 {
    let r = levels.replicas() as f64;
    let mean = sum / r;
    level_sum(levels, weights, |w| (w / mean).min(1.0)) / r
}

/// Uniforms `4 c .. 4 c + 4` in `[0, 1)` of multinomial step `step` of population `block`:
/// uniform `i` (copy `i`) is word `i mod 4` of block `(i / 4, step, Resample, draw 1, colour 0,
/// block)`; draw 0 is the engines' per-replica stream ([`crate::engine::annealing`]).
fn uniforms(seed: u64, step: u32, block: u32, c: usize) -> [f64; 4] {
    let counter = Counter {
        word: c as u32,
        sweep: step,
        purpose: Purpose::Resample,
        colour: 0,
        draw: 1,
        batch: block,
    };
    random_block(seed, counter).map(|x| f64::from(x) / 4_294_967_296.0)
}

/// Where resampling draws its randoms: the seed, the step (1 for the step to the first beta
/// after 0) and the population (`sample runs + run`).
#[derive(Debug, Clone, Copy)]
pub struct ResampleKey {
    pub seed: u64,
    pub step: u32,
    pub block: u32,
}

/// The table entries (`[copies, threshold]`, see [`crate::engine::annealing`]) of a
/// population of target size `target` under `scheme`, keyed as `levels`, or by replica for
/// multinomial resampling (whose copies are drawn here, per copy); with that keying.
pub fn copy_entries(
    scheme: Resampling,
    levels: &PopulationLevels,
    reweighting: &Reweighting,
    target: u32,
    key: ResampleKey,
) -> (Keyed, Vec<[u32; 2]>) {
    let scale = reweighting.copy_scale(target);
    let weights = &reweighting.weights;
    match scheme {
        Resampling::FloorCeil => (
            levels.keyed,
            threads::map(weights, |w| floor_ceil_entry(w * scale)),
        ),
        Resampling::Nearest => (
            levels.keyed,
            threads::map(weights, |w| [(w * scale).round() as u32, 0]),
        ),
        Resampling::Multinomial => {
            let ResampleKey { seed, step, block } = key;
            let cumulative: Vec<f64> = (0..levels.satisfied.len())
                .scan(0.0, |sum, i| {
                    *sum += weights[levels.level_of(i)] * scale;
                    Some(*sum)
                })
                .collect();
            let last = cumulative.len() - 1;
            // The replica of each copy, found in parallel; then counted.
            let mut picks = vec![0u32; target as usize];
            threads::for_chunks(&mut picks, 4, |c, picks| {
                let uniforms = uniforms(seed, step, block, c);
                for (pick, u) in picks.iter_mut().zip(uniforms) {
                    let point = u * f64::from(target);
                    // Rounding may leave the last sum a little below `target`.
                    *pick = cumulative.partition_point(|&c| c <= point).min(last) as u32;
                }
            });
            let mut entries = vec![[0u32, 0]; cumulative.len()];
            for pick in picks {
                entries[pick as usize][0] += 1;
            }
            (Keyed::Replica, entries)
        }
    }
}

/// The next beta of an adaptive schedule: by bisection, the beta in `(beta, beta_max]` whose
/// histogram overlap with `beta` is `target`, or `beta_max` where even that overlaps more.
pub fn adaptive_beta(levels: &PopulationLevels, beta: f64, beta_max: f64, target: f64) -> f64 {
    // The lowest energy once, not at every one of the bisection's steps.
    let lowest = levels.lowest();
    let overlap_at = |next: f64| {
        let weights = factors(levels, lowest, next - beta);
        overlap(levels, &weights, level_sum(levels, &weights, |w| w))
    };
    if overlap_at(beta_max) >= target {
        return beta_max;
    }
    let (mut lo, mut hi) = (beta, beta_max);
    // 60 halvings reach the f64 resolution of any beta range.
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if overlap_at(mid) >= target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::annealing::{ResamplingTable, TableHead, resample};
    use crate::model::Lattice;

    const KEY: ResampleKey = ResampleKey {
        seed: 9,
        step: 1,
        block: 0,
    };

    /// A 2D 4x4 ferromagnet in `field`.
    fn systems(field: f64) -> IsingSystems {
        IsingSystems::ferromagnet(Lattice::new(2, 4), field, vec![0.3], 64, 5)
    }

    /// Observations with satisfied counts `satisfied`.
    fn observed(satisfied: impl Iterator<Item = u64>) -> Vec<Observation> {
        satisfied
            .map(|s| Observation {
                up: 3,
                satisfied: s,
            })
            .collect()
    }

    /// The copies of each replica: the engines' decisions from the table of `entries`.
    fn copies(levels: &PopulationLevels, entries: Vec<[u32; 2]>, keyed: Keyed) -> Vec<u32> {
        let size = levels.satisfied.len() as u32;
        let table = ResamplingTable {
            keyed,
            slots: size.next_multiple_of(64) * 2,
            heads: vec![TableHead {
                lo: levels.lo,
                len: entries.len() as u32,
                offset: 0,
                size,
                batch: KEY.block,
            }],
            entries,
        };
        let satisfied: Vec<u64> = levels.satisfied.iter().map(|&s| u64::from(s)).collect();
        let mut padded = satisfied.clone();
        padded.resize(table.slots as usize, 0);
        let resampled = resample(&table, KEY.seed, KEY.step, &padded).unwrap();
        resampled.copies[..satisfied.len()].to_vec()
    }

    #[test]
    fn reweighting_of_equal_energies_is_uniform() {
        let levels = PopulationLevels::of(&systems(0.0), &observed([20; 8].into_iter()));
        assert_eq!(
            (levels.keyed, levels.counts.as_slice()),
            (Keyed::BondLevel, &[8][..])
        );
        let r = Reweighting::new(&levels, 0.3);
        // E = -(2 * 20 - 32) = -8: ln Q = 0.3 * 8.
        assert!((r.ln_q - 2.4).abs() < 1e-12);
        assert!((r.overlap - 1.0).abs() < 1e-12);
        assert!((r.effective_size - 8.0).abs() < 1e-12);
        for scheme in [
            Resampling::FloorCeil,
            Resampling::Nearest,
            Resampling::Multinomial,
        ] {
            let (keyed, entries) = copy_entries(scheme, &levels, &r, 8, KEY);
            let copies = copies(&levels, entries, keyed);
            assert_eq!(copies.iter().sum::<u32>(), 8, "{scheme:?}");
        }
    }

    #[test]
    fn floor_ceil_copies_are_floor_or_ceil_and_multinomial_keeps_the_size() {
        let levels = PopulationLevels::of(&systems(0.0), &observed((0..64).map(|i| 10 + i % 7)));
        let r = Reweighting::new(&levels, 0.4);
        let scale = r.copy_scale(64);
        let (keyed, entries) = copy_entries(Resampling::FloorCeil, &levels, &r, 64, KEY);
        for (i, n) in copies(&levels, entries, keyed).into_iter().enumerate() {
            let tau = r.weights[levels.level_of(i)] * scale;
            assert!(
                f64::from(n) == tau.floor() || f64::from(n) == tau.ceil(),
                "{n} from {tau}"
            );
        }
        let (keyed, entries) = copy_entries(Resampling::Multinomial, &levels, &r, 64, KEY);
        assert_eq!(keyed, Keyed::Replica);
        assert_eq!(copies(&levels, entries, keyed).iter().sum::<u32>(), 64);
        assert!(r.overlap < 1.0 && r.effective_size < 64.0);
    }

    #[test]
    fn levels_from_histograms_are_those_from_the_replicas() {
        let systems = systems(0.0);
        let observations: Vec<Observation> = [(3, 20), (5, 22), (3, 20), (9, 25)]
            .map(|(up, satisfied)| Observation { up, satisfied })
            .to_vec();
        let mut satisfied = vec![0u32; 33];
        let mut up = vec![0u32; 17];
        for o in &observations {
            satisfied[o.satisfied as usize] += 1;
            up[o.up as usize] += 1;
        }
        let from_replicas = PopulationLevels::of(&systems, &observations);
        let from_histograms = PopulationLevels::of_histograms(&systems, &satisfied, &up);
        assert_eq!(
            PopulationLevels {
                satisfied: Vec::new(),
                ..from_replicas
            },
            from_histograms
        );
    }

    #[test]
    fn levels_in_a_field_are_the_replicas() {
        let observations = observed([20, 22, 20].into_iter());
        let levels = PopulationLevels::of(&systems(0.5), &observations);
        assert_eq!(levels.keyed, Keyed::Replica);
        assert_eq!(levels.counts, vec![1, 1, 1]);
        let at_zero = PopulationLevels::of(&systems(0.0), &observations);
        assert_eq!(
            (at_zero.lo, at_zero.counts.as_slice()),
            (20, &[2, 0, 1][..])
        );
        // The same population either way: the same Q.
        let (a, b) = (
            Reweighting::new(&at_zero, 0.2),
            Reweighting::new(&levels, 0.2),
        );
        assert!((a.ln_q - (b.ln_q - 0.2 * 0.5 * -10.0)).abs() < 1e-12);
    }

    #[test]
    fn adaptive_steps_hit_the_target_overlap() {
        let levels = PopulationLevels::of(&systems(0.0), &observed((0..200).map(|i| 8 + i % 17)));
        let next = adaptive_beta(&levels, 0.1, 5.0, 0.8);
        assert!(next > 0.1 && next < 5.0);
        let overlap = Reweighting::new(&levels, next - 0.1).overlap;
        assert!((overlap - 0.8).abs() < 1e-9, "{overlap}");
        assert_eq!(adaptive_beta(&levels, 0.1, 0.1000001, 0.8), 0.1000001);
    }
}
