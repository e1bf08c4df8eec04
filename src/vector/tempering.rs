//! Parallel tempering of vector spins: the rounds' decisions from the walkers' measured
//! energies, the chain sets' bookkeeping (labels, round trips, acceptances: the Ising runs'
//! [`Chains`] state) and the lattices exchanged on the engine (`vector_exchange`).
//!
//! A round after sweep `n` (the `n`-th done, counting from 1) with parity `p` decides every pair
//! `(k, k + 1)` with `k = p mod 2` of every chain set `c = s R + r` from the total energies of its
//! walkers, measured after that sweep: accepted iff `x >= 0` or `U <= threshold(1, -x)` with
//! `x = (beta_k - beta_{k+1}) (E_k - E_{k+1})`, `U` word 0 of Philox block
//! `(word k, sweep n - 1, purpose Swap, batch c)` as the Ising rounds draw it. The energies are
//! the engines' exact sums, so every backend decides alike; the decision is the host's, and the
//! engine only moves the lattices of accepted pairs.

use std::path::Path;

use super::record::{energy, system_sums};
use crate::engine::cpu::swap_uniforms;
use crate::engine::tempering::{Chains, Section};
use crate::engine::vector::VectorObservation;
use crate::error::Result;
use crate::model::ising::threshold;
use crate::model::vector::VectorSystems;
use crate::tempering::{TemperingDiagnostics, finish_tempering, retuned_ladder};

/// The tempering of a vector-spin run, as the loop carries it (and its checkpoints hold).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct VectorTempering {
    /// Sweeps between rounds.
    pub(super) every: u64,
    /// The chain sets' state ([`Chains`]: labels, phases, round trips, accepted swaps).
    pub(super) state: Vec<u32>,
    /// At every measurement, the labels `[r][k]` of the chains of sample 0, for
    /// `temperature_history.csv`.
    pub(super) history: Vec<u32>,
}

impl VectorTempering {
    /// A fresh run's tempering of `systems`, a round every `every` sweeps.
    pub(super) fn new(systems: &VectorSystems, every: u64) -> Self {
        VectorTempering {
            every,
            state: Chains::of(systems).initial_state(),
            history: Vec::new(),
        }
    }

    /// Whether a round follows sweep `sweeps_done`.
    pub(super) fn round_after(&self, sweeps_done: u64) -> bool {
        sweeps_done > 0 && sweeps_done.is_multiple_of(self.every)
    }

    /// The round after `sweeps_done` sweeps, from every system's observation and state sums
    /// there (`observed`): the decisions recorded in the state; returns every system's partner
    /// for the exchange, `None` where no pair swapped.
    pub(super) fn round(
        &mut self,
        systems: &VectorSystems,
        (observations, sums): (&[VectorObservation], &[i64]),
        sweeps_done: u64,
    ) -> Option<Vec<u32>> {
        let chains = Chains::of(systems);
        let parity = ((sweeps_done / self.every - 1) % 2) as u32;
        let sweep = (sweeps_done - 1) as u32;
        let energy_of = |k: u32, c: u32| {
            let b = chains.system(k, c) as usize;
            energy(systems, &observations[b], system_sums(systems, sums, b))
        };
        let mut partners: Vec<u32> = (0..systems.systems()).collect();
        let mut swapped = false;
        let mut decisions = vec![false; chains.temperatures as usize];
        for c in 0..chains.sets {
            decisions.fill(false);
            let accepts = |k: u32| {
                let gap = systems.betas[k as usize] - systems.betas[k as usize + 1];
                let x = gap * (energy_of(k, c) - energy_of(k + 1, c));
                let [u, _] = swap_uniforms(systems.seed, sweep, k, c);
                u <= threshold(1.0, -x)
            };
            chains.track_round(&mut self.state, (c, parity), accepts, &mut decisions);
            for k in (0..chains.temperatures).filter(|&k| decisions[k as usize]) {
                let (lower, upper) = (chains.system(k, c), chains.system(k + 1, c));
                partners[lower as usize] = upper;
                partners[upper as usize] = lower;
                swapped = true;
            }
        }
        swapped.then_some(partners)
    }

    /// Record the walkers of sample 0's chains at a measurement.
    pub(super) fn record_history(&mut self, systems: &VectorSystems) {
        let chains = Chains::of(systems);
        let start = chains.index(Section::Labels, 0, 0);
        let words = (systems.replicas * chains.temperatures) as usize;
        self.history
            .extend_from_slice(&self.state[start..][..words]);
    }

    /// At the end of the ladder's tuning stage `(from, to)`: the ladder of `systems` moved
    /// towards equal swap acceptance over the stage (the engine must be reopened on it); the
    /// acceptances counted again from here.
    pub(super) fn retune_ladder(&mut self, systems: &VectorSystems, stage: (u64, u64)) -> Vec<f64> {
        let chains = Chains::of(systems);
        retuned_ladder(&chains, &mut self.state, &systems.betas, self.every, stage)
    }
}

/// The diagnostics of a finished run's tempering, acceptances counted over the sweeps
/// `counted`; with `temperature_history.csv` (a measurement every `measure_every` sweeps) and
/// `round_trips.csv` in `out`.
pub(super) fn finish_vector_tempering(
    out: &Path,
    systems: &VectorSystems,
    tempering: &VectorTempering,
    counted: (u64, u64),
    measure_every: u64,
) -> Result<TemperingDiagnostics> {
    finish_tempering(
        out,
        systems,
        (&tempering.state, &tempering.history),
        tempering.every,
        counted,
        |m| (m + 1) * measure_every,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cpu::CpuVectorEngine;
    use crate::engine::vector::{VectorSweeps, sweeps_plan};
    use crate::engine::{Engine, Exchanges};
    use crate::model::Lattice;
    use crate::stats::{Estimate, vector_estimates};
    use crate::vector::record::measurement;

    /// The energy per site of every temperature of `systems` after `thermalize` sweeps and
    /// `measure` more (uniform proposals), with a tempering round after every sweep or none.
    fn energies(
        systems: &VectorSystems,
        tempering: bool,
        (thermalize, measure): (u32, u32),
    ) -> (Vec<Estimate>, u64) {
        let updates = VectorSweeps::METROPOLIS;
        let mut engine = CpuVectorEngine::new(systems.clone(), updates).unwrap();
        engine.hot_start().unwrap();
        let mut rounds = VectorTempering::new(systems, 1);
        let per_temperature = systems.systems_per_temperature() as usize;
        let mut series = vec![Vec::new(); systems.systems() as usize];
        for sweep in 0..thermalize + measure {
            let measured = engine
                .execute(&sweeps_plan(sweep..sweep + 1, true))
                .unwrap();
            let observed = (
                &measured.vector_observations[..],
                &measured.vector_states[..],
            );
            if sweep >= thermalize {
                for (b, o) in observed.0.iter().enumerate() {
                    series[b].push(measurement(systems, o, system_sums(systems, observed.1, b)));
                }
            }
            if tempering {
                if let Some(partners) = rounds.round(systems, observed, u64::from(sweep) + 1) {
                    engine.exchange(&partners).unwrap();
                }
            }
        }
        let shape = (
            systems.components,
            systems.lattice.size,
            systems.lattice.spins(),
        );
        let estimates = (systems.betas.iter().zip(series.chunks(per_temperature)))
            .map(|(&beta, series)| {
                vector_estimates(beta, shape, series, crate::stats::VectorExtras::default()).e
            })
            .collect();
        let chains = Chains::of(systems);
        let accepted = (0..chains.sets)
            .flat_map(|c| (0..chains.temperatures).map(move |k| (c, k)))
            .map(|(c, k)| u64::from(rounds.state[chains.index(Section::Accepted, c, k)]))
            .sum();
        (estimates, accepted)
    }

    /// Swaps between temperatures leave each temperature's equilibrium as it is: the energies
    /// of a tempered Heisenberg ferromagnet equal those of fixed temperatures, within 4
    /// errors, while the walkers swap (more than 10% of the attempts).
    #[test]
    fn tempering_gives_the_energies_of_fixed_temperatures() {
        let betas = vec![0.5, 0.8, 1.1, 1.4];
        let systems = VectorSystems::uniform(Lattice::new(2, 6), 3, (1, 0.0), betas, 4, 13);
        let (fixed, none) = energies(&systems, false, (200, 4000));
        let (tempered, accepted) = energies(&systems, true, (200, 4000));
        assert_eq!(none, 0);
        // 2100 rounds of each parity: pairs 0 and 2 in one, 1 in the other, 4 chain sets.
        let attempts = 4 * 3 * 2100;
        assert!(
            10 * accepted > attempts,
            "swaps accepted: {accepted} of {attempts}"
        );
        for (a, b) in fixed.iter().zip(&tempered) {
            let err = (a.err.powi(2) + b.err.powi(2)).sqrt();
            assert!(err > 0.0 && err < 0.01, "error {err}");
            assert!((a.mean - b.mean).abs() < 4.0 * err, "{a:?} against {b:?}");
        }
        assert!(
            fixed.windows(2).all(|w| w[1].mean < w[0].mean - 0.05),
            "colder is lower: {fixed:?}"
        );
    }

    fn observation(bonds: i64) -> VectorObservation {
        VectorObservation {
            bonds: [bonds, 0, 0],
            ..VectorObservation::default()
        }
    }

    /// A colder walker with the higher energy always moves up; the reverse only with the
    /// Boltzmann ratio, which for a huge gap never passes.
    #[test]
    fn rounds_swap_downhill_and_refuse_a_hopeless_uphill() {
        let lattice = Lattice::new(2, 4);
        let systems = VectorSystems::uniform(lattice, 2, (1, 0.0), vec![0.5, 1.0], 1, 3);
        let mut tempering = VectorTempering::new(&systems, 1);
        // Bond sums in units of 2^-32: the hot system (beta 0.5) has the lower energy.
        let unit = 1i64 << 32;
        let downhill = [observation(10 * unit), observation(2 * unit)];
        let partners = tempering
            .round(&systems, (&downhill, &[]), 1)
            .expect("a swap");
        assert_eq!(partners, [1, 0]);
        let state = &tempering.state;
        let chains = Chains::of(&systems);
        assert_eq!(state[chains.index(Section::Labels, 0, 0)], 1);
        assert_eq!(state[chains.index(Section::Accepted, 0, 0)], 1);
        // Round 2 has parity 1: no pair among two temperatures.
        assert_eq!(tempering.round(&systems, (&downhill, &[]), 2), None);
        let uphill = [observation(2 * unit), observation(1000 * unit)];
        assert_eq!(tempering.round(&systems, (&uphill, &[]), 3), None);
        assert_eq!(tempering.state[chains.index(Section::Accepted, 0, 0)], 1);
    }

    /// Over many rounds between two fixed energies the acceptance is the Boltzmann ratio.
    #[test]
    fn uphill_swaps_are_accepted_with_the_boltzmann_ratio() {
        let lattice = Lattice::new(2, 4);
        let systems = VectorSystems::uniform(lattice, 3, (1, 0.0), vec![0.5, 1.0], 1, 5);
        let unit = 1i64 << 32;
        // E_0 = -1 at beta 0.5, E_1 = -3 at beta 1: x = (0.5 - 1) (-1 + 3) = -1.
        let uphill = [observation(unit), observation(3 * unit)];
        let rounds = 20_000u64;
        let mut accepted = 0u64;
        for n in 0..rounds {
            let mut tempering = VectorTempering::new(&systems, 1);
            // Odd rounds have parity 0, the one pair's.
            accepted += u64::from(
                tempering
                    .round(&systems, (&uphill, &[]), 2 * n + 1)
                    .is_some(),
            );
        }
        let p = (-1.0f64).exp();
        let sigma = (p * (1.0 - p) / rounds as f64).sqrt();
        let rate = accepted as f64 / rounds as f64;
        assert!(
            (rate - p).abs() < 5.0 * sigma,
            "{rate} against {p} +- {sigma}"
        );
    }
}
