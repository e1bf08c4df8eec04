//! Population annealing's host decisions (paper 001): the reweighting factors of a step from
//! the engines' integer energies, the normalisation `Q`, the histogram overlap, and the number
//! of copies of each replica, all in f64 in replica order, with randoms from Philox (purpose
//! [`Purpose::Resample`]), so the decisions are a function of (config, seed) on every backend.

use crate::config::Resampling;
use crate::error::{Error, Result};
use crate::parallel;
use crate::rng::{Counter, Purpose, random_block};

/// The reweighting of one population from `beta` to `beta + delta`.
pub struct Reweighting {
    /// `w_i exp(delta E_min)`: at most 1, so nothing overflows at any step.
    weights: Vec<f64>,
    sum: f64,
    /// `ln Q`, `Q = (1/R) sum_i exp(-delta E_i)`.
    pub ln_q: f64,
}

impl Reweighting {
    /// The factors `exp(-delta E_i)` of a population with total energies `energies`.
    pub fn new(energies: &[f64], delta: f64) -> Self {
        Self::relative_to(energies, lowest(energies), delta)
    }

    /// [`Reweighting::new`] of `energies` whose lowest is `lowest`.
    fn relative_to(energies: &[f64], lowest: f64, delta: f64) -> Self {
        let weights = parallel::map(energies, |e| (-delta * (e - lowest)).exp());
        let sum: f64 = weights.iter().sum();
        let ln_q = (sum / energies.len() as f64).ln() - delta * lowest;
        Reweighting { weights, sum, ln_q }
    }

    /// The overlap of the energy histograms before and after the step,
    /// `(1/R) sum_i min(1, exp(-delta E_i) / Q)`: 1 for `delta = 0`, falling as it grows.
    pub fn overlap(&self) -> f64 {
        let r = self.weights.len() as f64;
        let mean = self.sum / r;
        self.weights
            .iter()
            .map(|w| (w / mean).min(1.0))
            .sum::<f64>()
            / r
    }

    /// The effective number of replicas of the weights, `(sum w)^2 / sum w^2`.
    pub fn effective_size(&self) -> f64 {
        self.sum * self.sum / self.weights.iter().map(|w| w * w).sum::<f64>()
    }

    /// The scale of the expected copies `tau_i = scale w_i = target w_i / sum_j w_j`: they sum
    /// to `target`.
    fn copy_scale(&self, target: u32) -> f64 {
        f64::from(target) / self.sum
    }

    /// Expected copies `tau_i` ([`Reweighting::copy_scale`]).
    #[cfg(test)]
    fn expected_copies(&self, target: u32) -> impl Iterator<Item = f64> + '_ {
        let scale = self.copy_scale(target);
        self.weights.iter().map(move |w| w * scale)
    }
}

/// The lowest of `energies`.
fn lowest(energies: &[f64]) -> f64 {
    energies.iter().copied().fold(f64::INFINITY, f64::min)
}

/// Which Philox stream of a step a scheme draws from.
#[derive(Clone, Copy)]
enum Draw {
    /// One uniform per replica of the population before the step (floor or ceil).
    PerReplica = 0,
    /// One uniform per replica of the population after it (multinomial).
    PerCopy = 1,
}

/// Uniforms `4 c .. 4 c + 4` in `[0, 1)` of stream `draw` of step `step` of population
/// `block`: uniform `i` is word `i mod 4` of block `(i / 4, step, Resample, draw, colour 0,
/// block)`.
fn uniforms(seed: u64, step: u32, block: u32, draw: Draw, c: usize) -> [f64; 4] {
    let counter = Counter {
        word: c as u32,
        sweep: step,
        purpose: Purpose::Resample,
        colour: 0,
        draw: draw as u32,
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

/// Copies of each replica under `scheme` for a population of target size `target`.
pub fn copy_counts(
    scheme: Resampling,
    reweighting: &Reweighting,
    target: u32,
    key: ResampleKey,
) -> Vec<u32> {
    let ResampleKey { seed, step, block } = key;
    let scale = reweighting.copy_scale(target);
    let weights = &reweighting.weights;
    match scheme {
        Resampling::FloorCeil => {
            let mut counts = vec![0u32; weights.len()];
            // One Philox block serves four replicas.
            parallel::for_chunks(&mut counts, 4, |c, counts| {
                let uniforms = uniforms(seed, step, block, Draw::PerReplica, c);
                for (k, n) in counts.iter_mut().enumerate() {
                    let tau = weights[4 * c + k] * scale;
                    *n = tau.floor() as u32 + u32::from(uniforms[k] < tau.fract());
                }
            });
            counts
        }
        Resampling::Nearest => parallel::map(weights, |w| (w * scale).round() as u32),
        Resampling::Multinomial => {
            let cumulative: Vec<f64> = weights
                .iter()
                .scan(0.0, |sum, w| {
                    *sum += w * scale;
                    Some(*sum)
                })
                .collect();
            let last = cumulative.len() - 1;
            // The replica of each copy, found in parallel; then counted.
            let mut picks = vec![0u32; target as usize];
            parallel::for_chunks(&mut picks, 4, |c, picks| {
                let uniforms = uniforms(seed, step, block, Draw::PerCopy, c);
                for (pick, u) in picks.iter_mut().zip(uniforms) {
                    let point = u * f64::from(target);
                    // Rounding may leave the last sum a little below `target`.
                    *pick = cumulative.partition_point(|&c| c <= point).min(last) as u32;
                }
            });
            let mut counts = vec![0u32; cumulative.len()];
            for pick in picks {
                counts[pick as usize] += 1;
            }
            counts
        }
    }
}

/// The new population in replica order: `counts[i]` copies of replica `i`, as the source
/// replica of each new one. Refuses a population that outgrows `slots` or dies out.
pub fn copy_sources(counts: &[u32], slots: u32) -> Result<Vec<u32>> {
    let size: u64 = counts.iter().map(|&n| u64::from(n)).sum();
    if size == 0 {
        return Err(Error::State(
            "population annealing: the population died out at a resampling step; use smaller \
             temperature steps or a larger population"
                .into(),
        ));
    }
    if size > u64::from(slots) {
        return Err(Error::State(format!(
            "population annealing: resampling grew the population to {size} replicas, beyond \
             its {slots} slots; use smaller temperature steps, or resampling: FloorCeil or \
             Multinomial"
        )));
    }
    let mut sources = Vec::with_capacity(size as usize);
    for (i, &n) in counts.iter().enumerate() {
        sources.extend(std::iter::repeat_n(i as u32, n as usize));
    }
    Ok(sources)
}

/// The next beta of an adaptive schedule: by bisection, the beta in `(beta, beta_max]` whose
/// histogram overlap with `beta` is `target`, or `beta_max` where even that overlaps more.
pub fn adaptive_beta(energies: &[f64], beta: f64, beta_max: f64, target: f64) -> f64 {
    // The lowest energy once, not at every one of the bisection's steps.
    let lowest = lowest(energies);
    let overlap = |next: f64| Reweighting::relative_to(energies, lowest, next - beta).overlap();
    if overlap(beta_max) >= target {
        return beta_max;
    }
    let (mut lo, mut hi) = (beta, beta_max);
    // 60 halvings reach the f64 resolution of any beta range.
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if overlap(mid) >= target {
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

    const KEY: ResampleKey = ResampleKey {
        seed: 9,
        step: 1,
        block: 0,
    };

    #[test]
    fn reweighting_of_equal_energies_is_uniform() {
        let r = Reweighting::new(&[-10.0; 8], 0.3);
        assert!((r.ln_q - 3.0).abs() < 1e-12);
        assert!((r.overlap() - 1.0).abs() < 1e-12);
        assert!((r.effective_size() - 8.0).abs() < 1e-12);
        for scheme in [
            Resampling::FloorCeil,
            Resampling::Nearest,
            Resampling::Multinomial,
        ] {
            let counts = copy_counts(scheme, &r, 8, KEY);
            assert_eq!(counts.iter().sum::<u32>(), 8, "{scheme:?}");
        }
        assert_eq!(copy_counts(Resampling::FloorCeil, &r, 8, KEY), vec![1; 8]);
    }

    #[test]
    fn floor_ceil_counts_are_floor_or_ceil_and_multinomial_keeps_the_size() {
        let energies: Vec<f64> = (0..64).map(|i| -f64::from(i % 7)).collect();
        let r = Reweighting::new(&energies, 0.4);
        let tau: Vec<f64> = r.expected_copies(64).collect();
        let counts = copy_counts(Resampling::FloorCeil, &r, 64, KEY);
        for (n, t) in counts.iter().zip(&tau) {
            assert!(
                f64::from(*n) == t.floor() || f64::from(*n) == t.ceil(),
                "{n} from {t}"
            );
        }
        assert_eq!(
            copy_counts(Resampling::Multinomial, &r, 64, KEY)
                .iter()
                .sum::<u32>(),
            64
        );
        assert!(r.overlap() < 1.0 && r.effective_size() < 64.0);
    }

    #[test]
    fn sources_repeat_each_replica_by_its_count_and_refuse_overflow() {
        assert_eq!(copy_sources(&[2, 0, 1], 4).unwrap(), vec![0, 0, 2]);
        assert!(
            copy_sources(&[3, 2], 4)
                .unwrap_err()
                .to_string()
                .contains("beyond")
        );
        assert!(
            copy_sources(&[0, 0], 4)
                .unwrap_err()
                .to_string()
                .contains("died out")
        );
    }

    #[test]
    fn adaptive_steps_hit_the_target_overlap() {
        let energies: Vec<f64> = (0..200).map(|i| -f64::from(i % 17) * 3.0).collect();
        let next = adaptive_beta(&energies, 0.1, 5.0, 0.8);
        assert!(next > 0.1 && next < 5.0);
        let overlap = Reweighting::new(&energies, next - 0.1).overlap();
        assert!((overlap - 0.8).abs() < 1e-9, "{overlap}");
        assert_eq!(adaptive_beta(&energies, 0.1, 0.1000001, 0.8), 0.1000001);
    }
}
