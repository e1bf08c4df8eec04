//! The checks of `algorithm: Clusters`: the model and engine the updates take, and the
//! numbers that key them.

use crate::config::{ClusterUpdate, Config, ConfigError, Disorder, EngineKind, Model, invalid};
use crate::model::Lattice;

/// Cluster updates take the Ising ferromagnet at zero field on the simple engine (diluted, with
/// an open or antiperiodic axis or on the triangular, honeycomb and kagome lattices, on the
/// vector engine), the Potts ferromagnet at zero field (whose edges are not antiperiodic) and
/// the clock ferromagnet at zero field (Wolff's embedding, the vector engine), on any lattice,
/// at least one update per step, and no more updates or sweeps than the 32-bit counter
/// numbers.
pub(crate) fn validate_clusters(config: &Config) -> Result<(), ConfigError> {
    let Some(options) = config.algorithm.clusters() else {
        return Ok(());
    };
    let model = &config.model;
    if model.disorder() != Disorder::Ferromagnet {
        return invalid(format!(
            "algorithm: Clusters updates the Ising ferromagnet or the Potts ferromagnet, not {}: \
             the clusters of a frustrated model (EdwardsAnderson, a glass) percolate and do not \
             decorrelate it",
            model.name()
        ));
    }
    if !matches!(
        model,
        Model::Ising { .. } | Model::Potts { .. } | Model::Clock { .. }
    ) {
        return invalid(format!(
            "algorithm: Clusters updates the Ising and Potts ferromagnets, whose equal \
             neighbours bond alike (Fortuin-Kasteleyn), and the clock ferromagnet (Wolff's \
             embedding); {} has no such bonds (Wolff's embedding of continuous spins is not \
             built); use algorithm: Metropolis",
            model.name()
        ));
    }
    if model.is_antiferromagnet() {
        return invalid(format!(
            "algorithm: Clusters bonds equal neighbours of a ferromagnet; {} is updated by \
             algorithm: Metropolis",
            model.name()
        ));
    }
    validate_quads(model, "algorithm: Clusters")?;
    if config.model.field() != 0.0 {
        return invalid(format!(
            "algorithm: Clusters needs zero field (the field's ghost spin is not implemented), \
             got field: {}; use algorithm: Metropolis in a field",
            config.model.field()
        ));
    }
    if let EngineKind::Multispin { .. } = config.engine {
        return invalid(
            "algorithm: Clusters runs on the simple engine (one spin per word): the multispin \
             engines have no cluster updates; write engine: Simple or leave engine out"
                .into(),
        );
    }
    if options.clusters == 0 {
        return invalid(
            "algorithm: Clusters needs clusters >= 1 (cluster updates per step), got 0".into(),
        );
    }
    let steps = config
        .sweeps
        .thermalize
        .saturating_add(config.sweeps.measure);
    for (per, what) in [
        (options.clusters, "clusters (cluster updates)"),
        (options.metropolis, "metropolis (Metropolis sweeps)"),
    ] {
        let total = u128::from(steps) * u128::from(per);
        if total > u128::from(u32::MAX) + 1 {
            return invalid(format!(
                "algorithm: Clusters: {steps} steps of {per} {what} make {total}, beyond the \
                 2^32 the random-number counter numbers; split the run into several seeds"
            ));
        }
    }
    // Swendsen-Wang records sum_C |C|^2 <= N^2 per update, summed over a step's updates in 64
    // bits.
    let sites = u128::from(config.model.size()).pow(config.model.dims());
    if options.update == ClusterUpdate::SwendsenWang
        && u128::from(options.clusters) * sites * sites > u128::from(u64::MAX)
    {
        return invalid(format!(
            "algorithm: Clusters: {} Swendsen-Wang updates per step of {sites} sites each could \
             sum squared cluster sizes past 2^64; take fewer clusters per step",
            options.clusters
        ));
    }
    Ok(())
}

/// The cluster kernels take four sites a thread ([`crate::engine::clusters`]): a lattice of a
/// multiple of 4 sites, which only the triangular lattice's odd sizes are not.
pub(crate) fn validate_quads(model: &Model, algorithm: &str) -> Result<(), ConfigError> {
    if !Lattice::of(model).sites().is_multiple_of(4) {
        return invalid(format!(
            "{algorithm} labels clusters four sites a thread, so the lattice needs a multiple of \
             4 sites: size must be even, got {}",
            model.size()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::config::testing::{assert_mentions, invalid_message, sample_with};
    use crate::config::{Config, EngineKind};

    fn clusters(algorithm: &str) -> String {
        sample_with(
            "seed: 12345,",
            &format!("seed: 12345, algorithm: {algorithm},"),
        )
    }

    #[test]
    fn cluster_runs_are_refused_where_they_cannot_run() {
        let sw = "Clusters(update: SwendsenWang)";
        let glass = clusters(sw).replace("Ising(", "EdwardsAnderson(");
        assert_mentions(
            &invalid_message(&glass),
            &["Ising ferromagnet", "EdwardsAnderson"],
        );
        let potts_glass = clusters(sw).replace("Ising(", "Potts(q: 3, disorder: Bimodal, ");
        assert_mentions(
            &invalid_message(&potts_glass),
            &["Potts ferromagnet", "3-state Potts +-J"],
        );
        for (model, name) in [
            ("BlumeCapel(crystal_field: 0.5, ", "Blume-Capel 2D"),
            ("XY(", "XY 2D"),
        ] {
            let other = clusters(sw).replace("Ising(", model);
            assert_mentions(
                &invalid_message(&other),
                &["Fortuin-Kasteleyn", name, "embedding of continuous spins"],
            );
        }
        let odd = clusters(sw).replace("size: 32,", "size: 33, lattice: Triangular,");
        assert_mentions(
            &invalid_message(&odd),
            &[
                "algorithm: Clusters",
                "four sites a thread",
                "even",
                "got 33",
            ],
        );
        let triangular = clusters(sw).replace("size: 32,", "size: 36, lattice: Triangular,");
        Config::from_ron_str(&triangular)
            .unwrap()
            .validate()
            .unwrap();
        let clock = clusters(sw).replace("Ising(", "Clock(q: 6, ");
        Config::from_ron_str(&clock).unwrap().validate().unwrap();
        let clock_field = clock.replace("field: 0.0", "field: 0.1");
        assert_mentions(&invalid_message(&clock_field), &["zero field", "0.1"]);
        let twisted = "size: 32, boundaries: (Open, Antiperiodic),";
        let twisted = clusters(sw).replace("size: 32,", twisted);
        Config::from_ron_str(&twisted).unwrap().validate().unwrap();
        // A size a multiple of 64, where engine: Auto would put the twisted torus's sweeps on
        // the multispin engine: its cluster updates run on the vector engine's states.
        let twisted_64 = "size: 64, boundaries: (Periodic, Antiperiodic),";
        let twisted_64 = clusters(sw).replace("size: 32,", twisted_64);
        let config = Config::from_ron_str(&twisted_64).unwrap();
        assert!(config.engine == EngineKind::Auto && config.states_on_multispin().is_none());
        config.validate().unwrap();
        let sweeps = twisted_64.replace("algorithm: Clusters(update: SwendsenWang),", "");
        let sweeps = Config::from_ron_str(&sweeps).unwrap();
        assert!(sweeps.states_on_multispin().is_some(), "{sweeps:?}");
        let potts_field = clusters(sw).replace("Ising(", "Potts(q: 3, ");
        let potts_field = potts_field.replace("field: 0.0", "field: 0.1");
        assert_mentions(&invalid_message(&potts_field), &["zero field", "0.1"]);
        let field = clusters(sw).replace("field: 0.0", "field: 0.1");
        assert_mentions(
            &invalid_message(&field),
            &["zero field", "ghost spin", "0.1"],
        );
        let multispin = clusters(sw).replace(
            "replicas: 4,",
            "replicas: 32, engine: Multispin(layout: Amsc(lanes: Replicas)),",
        );
        assert_mentions(
            &invalid_message(&multispin),
            &["simple engine", "multispin engines have no cluster updates"],
        );
        let none = clusters("Clusters(update: Wolff, clusters: 0)");
        assert_mentions(&invalid_message(&none), &["clusters >= 1", "got 0"]);
        let long = clusters("Clusters(update: Wolff, clusters: 1000)")
            .replace("measure: 20000", "measure: 5000000");
        assert_mentions(
            &invalid_message(&long),
            &["2^32", "clusters (cluster updates)"],
        );
        let sweeps = clusters("Clusters(update: SwendsenWang, metropolis: 1000)")
            .replace("measure: 20000", "measure: 5000000");
        assert_mentions(
            &invalid_message(&sweeps),
            &["metropolis (Metropolis sweeps)"],
        );
    }

    #[test]
    fn the_example_config_is_valid() {
        let text = include_str!("../../assets/examples/swendsen_wang.ron");
        let config = Config::from_ron_str(text).unwrap();
        config.validate().unwrap();
        assert_eq!(
            config.resolve_engine().unwrap().0.engine,
            EngineKind::Simple
        );
    }

    #[test]
    fn auto_chooses_the_simple_engine_for_clusters() {
        let text = clusters("Clusters(update: SwendsenWang, metropolis: 1)")
            .replace("replicas: 4,", "replicas: 64,");
        let config = Config::from_ron_str(&text).unwrap();
        config.validate().unwrap();
        let (resolved, choice) = config.resolve_engine().unwrap();
        assert_eq!(resolved.engine, EngineKind::Simple);
        assert!(choice.contains("cluster"), "{choice}");
        let text = resolved.to_ron_string();
        assert!(
            text.contains("Clusters(update: SwendsenWang, metropolis: 1)"),
            "{text}"
        );
        assert_eq!(Config::from_ron_str(&text).unwrap(), resolved);
    }
}
