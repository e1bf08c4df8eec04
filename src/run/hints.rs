//! Hints printed before a run starts, where `engine: Auto` had to settle for an engine that
//! wastes most of the machine and a small change of the config would not.

use crate::config::{Config, Disorder, EngineKind, Lanes, Layout};

/// Lanes of a multispin word.
const LANES: u32 = 32;

/// The hint for a config whose engine `engine: Auto` chose (`auto`), where its choice leaves
/// most lanes of the multispin words idle or falls back to the simple engine: the sample or
/// replica count that fills the lanes. Cluster updates run on the simple engine only, so no
/// count would change their engine.
pub(super) fn idle_lanes_hint(config: &Config, auto: bool) -> Option<String> {
    if !auto {
        return None;
    }
    let fill = |count: u32| count.div_ceil(LANES).max(1) * LANES;
    match (config.engine, config.model.disorder()) {
        (
            EngineKind::Multispin {
                layout:
                    Layout::Amsc {
                        lanes: Lanes::Temperatures,
                    },
                ..
            },
            Disorder::Bimodal,
        ) => {
            let busy = config.temperatures.betas().len() as u32;
            (2 * busy <= LANES).then(|| {
                format!(
                    "hint: engine: Auto put the {busy} temperatures in the lanes of the multispin \
                     words, so {busy} of {LANES} lanes work; samples: {} (a multiple of {LANES}) \
                     would put samples in the lanes and keep every lane busy",
                    fill(config.samples)
                )
            })
        }
        (EngineKind::Simple, Disorder::Ferromagnet) if config.algorithm.clusters().is_none() => {
            Some(format!(
                "hint: engine: Auto fell back to the simple engine (one spin per word); replicas: {} \
                 (a multiple of {LANES}) would run the multispin engine, 32 replicas per word",
                fill(config.replicas)
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::run_dir::auto_chose;

    /// The config of `text`, its engine resolved, and whether `engine: Auto` chose it.
    fn resolved(text: &str) -> (Config, bool) {
        let (config, choice) = Config::from_ron_str(text)
            .unwrap()
            .resolve_engine()
            .unwrap();
        (config, auto_chose(&choice).is_some())
    }

    /// The spin glass of the README with `samples`, its engine resolved.
    fn glass(samples: u32) -> (Config, bool) {
        resolved(&format!(
            "(model: EdwardsAnderson(dims: 3, size: 8, field: 0.0), \
             temperatures: Temperatures([0.9, 1.0, 1.1, 1.2]), replicas: 2, samples: {samples}, \
             sweeps: (thermalize: 10, measure: 10, every: 1), seed: 1, backend: Cpu)"
        ))
    }

    /// A 2D ferromagnet of 2 replicas under `algorithm`, its engine resolved.
    fn ferromagnet(algorithm: &str) -> (Config, bool) {
        resolved(&format!(
            "(model: Ising(dims: 2, size: 16, field: 0.0), temperatures: Betas([0.44]), \
             replicas: 2, algorithm: {algorithm}, sweeps: (thermalize: 10, measure: 10, every: 1), \
             seed: 1, backend: Cpu)"
        ))
    }

    #[test]
    fn fifty_samples_in_temperature_lanes_get_a_hint_naming_64() {
        let (config, auto) = glass(50);
        let hint = idle_lanes_hint(&config, auto).expect("a hint");
        assert!(
            hint.contains("4 of 32 lanes work") && hint.contains("samples: 64"),
            "{hint}"
        );
        let (config, auto) = glass(64);
        assert_eq!(idle_lanes_hint(&config, auto), None);
        let (config, _) = glass(50);
        assert_eq!(
            idle_lanes_hint(&config, false),
            None,
            "a named engine gets no hint"
        );
    }

    #[test]
    fn a_cluster_run_is_not_told_that_replicas_would_change_its_engine() {
        let (config, auto) = ferromagnet("Clusters(update: SwendsenWang, metropolis: 1)");
        assert_eq!(config.engine, EngineKind::Simple);
        assert_eq!(idle_lanes_hint(&config, auto), None);
        let (config, auto) = ferromagnet("Metropolis");
        assert_eq!(
            config.engine,
            EngineKind::Simple,
            "2 replicas fill no multispin word"
        );
        let hint = idle_lanes_hint(&config, auto).expect("a hint");
        assert!(hint.contains("replicas: 32"), "{hint}");
    }
}
