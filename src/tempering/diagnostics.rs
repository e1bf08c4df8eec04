//! Parallel-tempering diagnostics from the engines' counters: swap acceptance per neighbour
//! pair and round trips of the walkers between the ends of the ladder.

use serde::{Deserialize, Serialize};

use crate::engine::tempering::{Chains, Section};

/// Pairs with a lower swap acceptance are reported as bottlenecks.
pub const LOW_ACCEPTANCE: f64 = 0.05;

/// What a user checks before trusting a tempering run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TemperingDiagnostics {
    /// Sweeps between swap rounds.
    pub every: u64,
    /// The ladder, bottom (`k = 0`) to top.
    pub betas: Vec<f64>,
    /// Swap rounds done (even pairs in rounds 0, 2, ...; odd pairs in 1, 3, ...).
    pub rounds: u64,
    /// The sweep from which the acceptances are counted: after the ladder was tuned, 0 without.
    pub counted_from_sweep: u64,
    /// Per pair `(k, k + 1)`: accepted swaps / attempts, over every chain set.
    pub acceptance: Vec<f64>,
    /// Round trips bottom -> top -> bottom completed by all walkers of all chain sets.
    pub round_trips: u64,
    /// Chain sets none of whose walkers completed a round trip.
    pub chain_sets_without_round_trip: u32,
    /// Walker sweeps per round trip, `sweeps x walkers / round_trips` (`None` without any).
    pub sweeps_per_round_trip: Option<f64>,
}

/// Round trips completed by the walkers of chain set `c`.
pub fn round_trips_of(chains: &Chains, state: &[u32], c: u32) -> u64 {
    (0..chains.temperatures)
        .map(|w| u64::from(state[chains.index(Section::Trips, c, w)]))
        .sum()
}

/// Attempts of pair `k` in the first `rounds` rounds: rounds of `k`'s parity.
pub fn attempts(rounds: u64, k: u32) -> u64 {
    (rounds + 1 - u64::from(k % 2)) / 2
}

/// The diagnostics of a state after `sweeps` sweeps whose acceptance counts started at sweep
/// `from` (they were reset there).
pub fn tempering_diagnostics(
    chains: &Chains,
    state: &[u32],
    betas: &[f64],
    every: u64,
    (from, sweeps): (u64, u64),
) -> TemperingDiagnostics {
    let (rounds, first_round) = (sweeps / every, from / every);
    let sum = |section: Section, k: u32| -> u64 {
        (0..chains.sets)
            .map(|c| u64::from(state[chains.index(section, c, k)]))
            .sum()
    };
    let acceptance = (0..chains.temperatures.saturating_sub(1))
        .map(|k| {
            let tries = (attempts(rounds, k) - attempts(first_round, k)) * u64::from(chains.sets);
            if tries == 0 {
                0.0
            } else {
                sum(Section::Accepted, k) as f64 / tries as f64
            }
        })
        .collect();
    let trips_of = |c: u32| round_trips_of(chains, state, c);
    let round_trips: u64 = (0..chains.sets).map(trips_of).sum();
    let walkers = u64::from(chains.sets) * u64::from(chains.temperatures);
    TemperingDiagnostics {
        every,
        betas: betas.to_vec(),
        rounds,
        counted_from_sweep: from,
        acceptance,
        round_trips,
        chain_sets_without_round_trip: (0..chains.sets).filter(|&c| trips_of(c) == 0).count()
            as u32,
        sweeps_per_round_trip: (round_trips > 0)
            .then(|| (sweeps * walkers) as f64 / round_trips as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_alternate_between_even_and_odd_pairs() {
        assert_eq!((attempts(0, 0), attempts(0, 1)), (0, 0));
        assert_eq!((attempts(1, 0), attempts(1, 1)), (1, 0));
        assert_eq!((attempts(4, 2), attempts(4, 3)), (2, 2));
        assert_eq!((attempts(5, 0), attempts(5, 1)), (3, 2));
    }

    #[test]
    fn diagnostics_sum_over_chain_sets() {
        let chains = Chains {
            sets: 2,
            temperatures: 3,
        };
        let mut state = chains.initial_state();
        state[chains.index(Section::Accepted, 0, 0)] = 2;
        state[chains.index(Section::Accepted, 1, 0)] = 1;
        state[chains.index(Section::Accepted, 1, 1)] = 1;
        state[chains.index(Section::Trips, 1, 2)] = 3;
        // 3 rounds: pair 0 tried twice, pair 1 once, per chain set.
        let d = tempering_diagnostics(&chains, &state, &[0.1, 0.2, 0.3], 10, (0, 30));
        assert_eq!(d.rounds, 3);
        assert_eq!(d.acceptance, vec![0.75, 0.5]);
        assert_eq!(d.round_trips, 3);
        assert_eq!(d.chain_sets_without_round_trip, 1);
        assert_eq!(d.sweeps_per_round_trip, Some(30.0 * 6.0 / 3.0));
        // Counted from sweep 10 (round 1): pair 0 tried once (round 2), pair 1 once (round 1).
        let d = tempering_diagnostics(&chains, &state, &[0.1, 0.2, 0.3], 10, (10, 30));
        assert_eq!(d.acceptance, vec![1.5, 0.5]);
    }
}
