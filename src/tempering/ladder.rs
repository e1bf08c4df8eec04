//! Tuning a parallel-tempering ladder towards equal swap acceptance.
//!
//! During the first half of the thermalisation the run stops [`TUNING_STAGES`] times; at each
//! stop the acceptance `A_k` of every pair over the stage gives it a "distance"
//! `w_k = -ln A_k`, the ladder's cumulative distance is taken as linear in beta within each pair,
//! and the inner temperatures move halfway towards equal distances between neighbours (the ends
//! stay). Equal `-ln A` is equal acceptance. The acceptances are exact integer counts, so the
//! tuned ladder is a function of (config, seed) like everything else; it is frozen after the
//! last stage, written to the checkpoint and reused on `--resume`.

/// Stops of the tuning, evenly spaced in the first half of the thermalisation.
pub const TUNING_STAGES: u32 = 10;
/// Acceptances below this count as this (a pair that never swapped still has a finite
/// distance, a large one).
const MIN_ACCEPTANCE: f64 = 1e-4;
/// The move towards the equalised ladder at each stop.
const DAMPING: f64 = 0.5;

/// The sweeps after which the ladder is retuned (the last one freezes it), for a run of
/// `thermalize` thermalisation sweeps.
pub fn tuning_stops(thermalize: u64) -> Vec<u64> {
    let stage = thermalize / 2 / u64::from(TUNING_STAGES);
    (1..=u64::from(TUNING_STAGES)).map(|i| i * stage).collect()
}

/// The ladder `betas` moved towards equal swap acceptance, given each pair's `acceptance`.
pub fn retune(betas: &[f64], acceptance: &[f64]) -> Vec<f64> {
    let distances: Vec<f64> = acceptance
        .iter()
        .map(|&a| -a.clamp(MIN_ACCEPTANCE, 1.0).ln() + f64::EPSILON)
        .collect();
    let total: f64 = distances.iter().sum();
    let last = betas.len() - 1;
    let mut out = betas.to_vec();
    let (mut k, mut below) = (0, 0.0);
    for (i, beta) in out.iter_mut().enumerate().take(last).skip(1) {
        let target = total * i as f64 / last as f64;
        while below + distances[k] < target && k + 1 < distances.len() {
            below += distances[k];
            k += 1;
        }
        let fraction = ((target - below) / distances[k]).clamp(0.0, 1.0);
        let equalised = betas[k] + fraction * (betas[k + 1] - betas[k]);
        *beta += DAMPING * (equalised - *beta);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_acceptance_keeps_the_ladder() {
        let betas = [0.2, 0.3, 0.4, 0.5];
        let tuned = retune(&betas, &[0.4, 0.4, 0.4]);
        for (a, b) in tuned.iter().zip(betas) {
            assert!((a - b).abs() < 1e-12, "{tuned:?}");
        }
    }

    #[test]
    fn rungs_move_towards_the_bottleneck_and_ends_stay() {
        // The last pair hardly swaps: the inner rungs move up to shorten it.
        let betas = [0.2, 0.3, 0.4, 0.5];
        let tuned = retune(&betas, &[0.9, 0.9, 0.01]);
        assert_eq!((tuned[0], tuned[3]), (0.2, 0.5));
        assert!(tuned[1] > 0.3 && tuned[2] > 0.4, "{tuned:?}");
        assert!(
            tuned.windows(2).all(|w| w[1] > w[0]),
            "monotonic: {tuned:?}"
        );
        // Repeated stops with acceptance that follows the gaps converge: equal gaps in
        // -ln A when -ln A is proportional to the gap.
        let mut ladder: Vec<f64> = vec![1.0, 1.1, 1.2, 2.0];
        for _ in 0..40 {
            let acceptance: Vec<f64> = ladder.windows(2).map(|w| (-(w[1] - w[0])).exp()).collect();
            ladder = retune(&ladder, &acceptance);
        }
        for w in ladder.windows(2) {
            assert!(((w[1] - w[0]) - 1.0 / 3.0).abs() < 1e-3, "{ladder:?}");
        }
    }

    #[test]
    fn stops_fill_the_first_half_of_the_thermalisation() {
        let stops = tuning_stops(4000);
        assert_eq!(stops.len(), TUNING_STAGES as usize);
        assert_eq!((stops[0], stops[9]), (200, 2000));
    }
}
