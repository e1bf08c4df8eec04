//! The whole check of a config, before anything runs: each piece lives with what it checks
//! (the model, the engine choice, the sweeps, tempering, annealing); this runs them in order and
//! reports the first problem.

use crate::annealing::checks::{validate_annealing, validate_population_memory};
use crate::cluster::checks::validate_clusters;
use crate::config::{AnnealingOptions, Config, ConfigError};
use crate::engine::choice::{validate_engine_choice, validate_workgroup_size};
use crate::engine::memory::validate_vector_couplings;
use crate::metropolis::checks::validate_sweeps;
use crate::model::checks::{validate_model, validate_systems, validate_temperatures};
use crate::model::vector::checks::{validate_no_vector_updates, validate_vector};
use crate::tempering::checks::validate_algorithm;

impl Config {
    /// Check everything that parsing cannot: the first problem found is reported. `engine:
    /// Auto` is checked as the engine it chooses.
    pub fn validate(&self) -> Result<(), ConfigError> {
        // An Ising model that `engine: Auto` takes to a multispin layout is checked as it will
        // run (the vector engine's limits do not apply to it).
        if let Some((on_multispin, _)) = self.states_on_multispin() {
            return on_multispin.validate();
        }
        if let Some(options) = self.algorithm.annealing() {
            return validate_annealing_run(self, &options);
        }
        if self.is_vector() {
            return validate_vector_run(self);
        }
        validate_no_vector_updates(self)?;
        validate_model(&self.model, self.algorithm.clusters_alone())?;
        validate_temperatures(&self.temperatures)?;
        validate_systems(self)?;
        // Before the engine's checks: a cluster run of the wrong model or engine says so.
        validate_clusters(self)?;
        validate_engine_choice(self)?;
        validate_sweeps(&self.sweeps)?;
        validate_algorithm(self)?;
        validate_workgroup_size(self.workgroup_size)
    }
}

/// A vector-spin run: the model's lattice, temperatures and counts as for Ising spins, then
/// what the vector loop takes and whether its couplings fit the host, and the sweeps.
fn validate_vector_run(config: &Config) -> Result<(), ConfigError> {
    validate_model(&config.model, config.algorithm.clusters_alone())?;
    validate_temperatures(&config.temperatures)?;
    validate_systems(config)?;
    validate_vector(config)?;
    validate_clusters(config)?;
    validate_vector_couplings(config)?;
    validate_sweeps(&config.sweeps)?;
    validate_algorithm(config)?;
    validate_workgroup_size(config.workgroup_size)
}

/// Population annealing: its own options, then the engine's systems as
/// [`AnnealingOptions::engine_config`] describes them (a Metropolis config, checked as any
/// other), then the memory the population needs.
fn validate_annealing_run(config: &Config, options: &AnnealingOptions) -> Result<(), ConfigError> {
    validate_annealing(config, options)?;
    let view = options.engine_config(config)?;
    view.validate()?;
    validate_population_memory(config, options)
}

#[cfg(test)]
mod tests {
    use crate::config::testing::assert_refused;
    use crate::config::{Backend, Config, EngineKind, Lanes, Layout, Model, Randoms, Sweeps};

    #[test]
    fn bad_sweeps_and_counts_are_refused() {
        assert_refused(&[
            ("measure: 20000", "measure: 0", &["measure", "got 0"]),
            (
                "measure: 20000",
                "measure: 4294967295",
                &["exceeds 4294967295 sweeps"],
            ),
            ("every: 10", "every: 0", &["every", "got 0"]),
            (
                "every: 10",
                "every: 20001",
                &["every (20001)", "measure (20000)"],
            ),
            ("replicas: 4", "replicas: 0", &["replicas", "got 0"]),
            (
                "backend: Auto,",
                "backend: Auto, workgroup_size: 48,",
                &["workgroup_size", "got 48"],
            ),
            (
                "backend: Auto,",
                "backend: Auto, workgroup_size: 2048,",
                &["workgroup_size", "got 2048"],
            ),
        ]);
    }

    #[test]
    fn default_config_is_valid_and_as_documented() {
        let config = Config::default_config().unwrap();
        config.validate().unwrap();
        assert_eq!(
            config.model,
            Model::Ising {
                dims: 2,
                size: 64,
                antiferromagnet: false,
                lattice: None,
                boundaries: crate::config::Boundaries::PERIODIC,
                field: 0.0,
                dilution: 0.0,
            }
        );
        assert_eq!(config.temperatures.betas(), vec![0.40, 0.4406868, 0.48]);
        assert_eq!(
            (config.replicas, config.samples, config.seed, config.backend),
            (32, 1, 12345, Backend::Auto)
        );
        assert_eq!(config.engine, EngineKind::Auto);
        assert_eq!(
            config.resolve_engine().unwrap().0.engine,
            EngineKind::Multispin {
                layout: Layout::Amsc {
                    lanes: Lanes::Replicas
                },
                randoms: Randoms::Exact
            }
        );
        assert_eq!(
            config.sweeps,
            Sweeps {
                thermalize: 2000,
                measure: 20000,
                every: 10
            }
        );
        assert!(
            Config::default_source().contains("//"),
            "the default config is commented"
        );
    }
}
