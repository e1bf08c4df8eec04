//! The checks of parallel tempering: a ladder to swap on, a swap interval, and room to tune.

use super::TUNING_STAGES;
use crate::config::{Config, ConfigError, Temperatures, invalid};

/// Parallel tempering needs a ladder (at least two temperatures, strictly monotonic in beta, so
/// that every pair has a gap) and a swap interval.
pub(crate) fn validate_algorithm(config: &Config) -> Result<(), ConfigError> {
    let Some(every) = config.algorithm.swap_every() else {
        return Ok(());
    };
    if every == 0 {
        return invalid(
            "algorithm: Tempering needs every >= 1 (sweeps between swap rounds), got 0".into(),
        );
    }
    let betas = config.temperatures.betas();
    if betas.len() < 2 {
        return invalid(format!(
            "algorithm: Tempering swaps between neighbour temperatures: at least 2 are needed, \
             got {}",
            betas.len()
        ));
    }
    if config.algorithm.tunes() {
        validate_tuning(config, every)?;
    }
    // Every neighbour pair in the order of the first (NaN-free: validated before).
    let order = betas[1].partial_cmp(&betas[0]);
    match betas
        .windows(2)
        .position(|w| order == Some(std::cmp::Ordering::Equal) || w[1].partial_cmp(&w[0]) != order)
    {
        Some(i) => invalid(format!(
            "algorithm: Tempering needs a strictly monotonic ladder (each neighbour pair swaps): \
             beta #{} = {} and #{} = {} break the order of the first two",
            i + 1,
            betas[i],
            i + 2,
            betas[i + 1]
        )),
        None => Ok(()),
    }
}

/// Tuning moves the inner temperatures of a generated ladder, in stages of at least two swap
/// rounds each during the first half of the thermalisation.
fn validate_tuning(config: &Config, every: u64) -> Result<(), ConfigError> {
    if matches!(
        config.temperatures,
        Temperatures::Betas(_) | Temperatures::Temperatures(_)
    ) {
        return invalid(
            "algorithm: Tempering(tune: true) moves the inner temperatures, but a Betas or \
             Temperatures list is fixed: give the ladder as GeometricT or LinearBeta (its ends \
             stay where they are), or drop tune"
                .into(),
        );
    }
    let needed = 2 * every * u64::from(TUNING_STAGES) * 2;
    if config.sweeps.thermalize < needed {
        return invalid(format!(
            "algorithm: Tempering(tune: true) tunes in {} stages of at least two swap rounds \
             during the first half of the thermalisation: thermalize must be at least {needed} \
             sweeps, got {}",
            TUNING_STAGES, config.sweeps.thermalize
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::config::testing::{assert_mentions, invalid_message, tempering};

    #[test]
    fn bad_tempering_input_is_refused_before_anything_runs() {
        let cases = [
            (tempering("Betas([0.4])", 1), vec!["at least 2", "got 1"]),
            (
                tempering("Betas([0.4, 0.5])", 0),
                vec!["every >= 1", "got 0"],
            ),
            (
                tempering("Betas([0.4, 0.5, 0.45])", 1),
                vec!["strictly monotonic", "#2 = 0.5", "#3 = 0.45"],
            ),
            (
                tempering("Temperatures([1.0, 1.2, 1.2])", 1),
                vec!["#2 and #3 are both 1.2", "zero gap"],
            ),
            (
                tempering("GeometricT(min: 2.0, max: 0.5, count: 4)", 1),
                vec!["GeometricT", "min < max"],
            ),
            (
                tempering("LinearBeta(min: 0.1, max: 0.5, count: 0)", 1),
                vec!["LinearBeta", "count >= 1"],
            ),
            (
                tempering("LinearBeta(min: -0.1, max: 0.5, count: 3)", 1),
                vec!["beta", "> 0", "-0.1"],
            ),
        ];
        for (text, parts) in cases {
            assert_mentions(&invalid_message(&text), &parts);
        }
        // A layout that cannot hold the chains: each replica is a chain, 32 per word.
        let two_chains_in_replica_lanes = tempering("LinearBeta(min: 0.3, max: 0.5, count: 4)", 1)
            .replace(
                "replicas: 4,",
                "replicas: 2, engine: Multispin(layout: Amsc(lanes: Replicas)),",
            );
        assert_mentions(
            &invalid_message(&two_chains_in_replica_lanes),
            &["lanes: Replicas", "multiple of 32", "got 2"],
        );
    }
}
