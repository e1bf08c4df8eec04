//! The checks of parallel tempering: a ladder to swap on, a swap interval, room to tune, and
//! replica pairs of discrete states for the replica moves.

use super::TUNING_STAGES;
use crate::cluster::checks::validate_quads;
use crate::config::{Config, ConfigError, ReplicaMoves, Temperatures, invalid};

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
    validate_replica_moves(config)?;
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

/// Replica moves swap clusters of discrete states between the replica pairs of a glass (the
/// overlap's pairs: an even number of replicas), at least one move a sweep, at some
/// temperature of the run.
fn validate_replica_moves(config: &Config) -> Result<(), ConfigError> {
    let moves = config.algorithm.replica_moves();
    if moves.is_none() {
        return Ok(());
    }
    let model = &config.model;
    if config.discrete_states().is_none() || model.disorder().is_ferromagnet() {
        return invalid(format!(
            "algorithm: Tempering(moves: ..) swaps clusters of discrete states between the \
             replica pairs of a spin glass (EdwardsAnderson, Potts with disorder), not of {}",
            model.name()
        ));
    }
    validate_quads(model, "algorithm: Tempering(moves: ..)")?;
    if config.replicas < 2 || !config.replicas.is_multiple_of(2) {
        return invalid(format!(
            "algorithm: Tempering(moves: ..) pairs replica r with r + replicas/2: replicas must \
             be even and at least 2, got {}",
            config.replicas
        ));
    }
    if moves.per_sweep() == 0 {
        return invalid(
            "algorithm: Tempering(moves: ..) needs per_sweep >= 1 moves after each sweep, got 0 \
             (leave moves out for none)"
                .into(),
        );
    }
    if let ReplicaMoves::Isoenergetic { below, .. } = moves {
        let betas = config.temperatures.betas();
        if !(below.is_finite() && below > 0.0 && betas.iter().any(|&b| moves.acts_at(b))) {
            let lowest = betas.iter().fold(0.0f64, |m, &b| m.max(b));
            return invalid(format!(
                "algorithm: Tempering(moves: Isoenergetic(below: {below})) acts at temperatures \
                 T <= below, but the lowest is T = {}",
                1.0 / lowest
            ));
        }
    }
    Ok(())
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

    /// The moves take a glass of discrete states (an Ising glass runs as two), replica pairs,
    /// at least a move a sweep, and some temperature at or below an isoenergetic bound.
    #[test]
    fn replica_moves_need_a_glass_replica_pairs_and_temperatures_to_act_at() {
        let with = |model: &str, replicas: u32, moves: &str| {
            tempering("Betas([0.4, 0.5])", 1)
                .replace("Ising(dims: 2, size: 32, field: 0.0)", model)
                .replace("replicas: 4,", &format!("replicas: {replicas},"))
                .replace(
                    "Tempering(every: 1)",
                    &format!("Tempering(every: 1, moves: {moves})"),
                )
        };
        let ea = "EdwardsAnderson(dims: 2, size: 8)";
        let cases = [
            (
                with("Ising(dims: 2, size: 8)", 2, "Houdayer()"),
                vec!["spin glass", "Ising 2D"],
            ),
            (
                with("XY(dims: 2, size: 8, disorder: Bimodal)", 2, "Houdayer()"),
                vec!["discrete states", "XY +-J spin glass 2D"],
            ),
            (with(ea, 3, "Houdayer()"), vec!["even", "got 3"]),
            (
                with(ea, 2, "Houdayer(per_sweep: 0)"),
                vec!["per_sweep >= 1", "got 0"],
            ),
            (
                with(ea, 2, "Isoenergetic(below: 1.5)"),
                vec!["below: 1.5", "lowest is T = 2"],
            ),
        ];
        for (text, parts) in cases {
            assert_mentions(&invalid_message(&text), &parts);
        }
        for moves in ["Houdayer()", "Isoenergetic(per_sweep: 2, below: 2.0)"] {
            let text = with(ea, 2, moves);
            let config = crate::config::Config::from_ron_str(&text).unwrap();
            config.validate().unwrap();
            assert!(config.is_vector() && config.discrete_states() == Some(2));
        }
    }
}
