//! What of a config decides a run's trajectory (every bit of its lattices and measurements),
//! and so must stay as it was when the run's checkpoint is resumed; the rest (where the run
//! goes, how often it checkpoints, what it draws and how it stores the final state) may change
//! from one invocation of a run to the next, and `sweeps.measure` may grow.

use std::fmt;

use super::{
    Backend, Config, ConfigError, FinalState, PhiloxPath, Sweeps, default_checkpoint_every,
    default_plots, default_workgroup_size, invalid,
};

impl Config {
    /// This config with the fields that leave the bits alone at their defaults: the backend,
    /// the adapter and what the GPU kernels are compiled with (every backend, adapter, Philox
    /// path and workgroup size gives the same bits), the checkpoint interval (where the plans
    /// end does not change the bits), the plots and the final state's form; and
    /// `sweeps.measure` at 0, since the measurement grid depends on `thermalize` and `every`
    /// alone: a run continued to a larger `measure` follows the trajectory of a run started
    /// with it.
    pub fn trajectory(&self) -> Config {
        // Every field named, so that a new one must be sorted into one kind or the other.
        let Config {
            model,
            temperatures,
            replicas,
            samples,
            couplings,
            vacancies,
            engine,
            sweeps,
            algorithm,
            updates,
            seed,
            backend: _,
            adapter: _,
            philox: _,
            bounds_checks: _,
            pipeline_statistics: _,
            checkpoint_every: _,
            workgroup_size: _,
            plots: _,
            final_state: _,
        } = self.clone();
        Config {
            model,
            temperatures,
            replicas,
            samples,
            couplings,
            vacancies,
            engine,
            sweeps: Sweeps {
                measure: 0,
                ..sweeps
            },
            algorithm,
            updates,
            seed,
            backend: Backend::default(),
            adapter: None,
            philox: PhiloxPath::default(),
            bounds_checks: false,
            pipeline_statistics: None,
            checkpoint_every: default_checkpoint_every(),
            workgroup_size: default_workgroup_size(),
            plots: default_plots(),
            final_state: FinalState::default(),
        }
    }

    /// The fields of the trajectory in which this config differs from `started` (the config a
    /// run was started with), each with its value in both as the resolved config writes it.
    pub fn trajectory_changes(&self, started: &Config) -> Vec<FieldChange> {
        let (now, then) = (self.trajectory(), started.trajectory());
        let (now, then) = (fields(&now.to_ron_string()), fields(&then.to_ron_string()));
        let (shown_now, shown_then) = (
            fields(&self.to_ron_string()),
            fields(&started.to_ron_string()),
        );
        let mut names: Vec<&str> = then.iter().map(|(name, _)| name.as_str()).collect();
        for (name, _) in &now {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        names
            .into_iter()
            .filter(|name| value(&now, name) != value(&then, name))
            .map(|name| FieldChange {
                field: name.to_string(),
                started: value(&shown_then, name),
                now: value(&shown_now, name),
            })
            .collect()
    }
}

impl Sweeps {
    /// Whether a run of these sweeps continues a checkpoint that has done `done` sweeps:
    /// `measure` may grow when a run is resumed, but the run cannot end before what it has done.
    pub fn check_continues(&self, done: u64) -> Result<(), ConfigError> {
        let end = self.thermalize + self.measure;
        if done <= end {
            return Ok(());
        }
        invalid(format!(
            "sweeps: measure: {} ends the run after sweep {end}, but the checkpoint it resumes has \
             done {done} sweeps: measure may grow when a run is resumed, not shrink below the {} \
             measuring sweeps done",
            self.measure,
            done - self.thermalize
        ))
    }
}

/// A top-level field of the trajectory that differs between the config a run was started with
/// and the config that resumes it: its values as the resolved configs write them (`None` where
/// one leaves the field out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldChange {
    pub field: String,
    pub started: Option<String>,
    pub now: Option<String>,
}

impl fmt::Display for FieldChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |value: &Option<String>| match value {
            Some(value) => format!("has `{}: {value}`", self.field),
            None => format!("leaves `{}` out", self.field),
        };
        write!(
            f,
            "the checkpoint's run {}, this config {}",
            side(&self.started),
            side(&self.now)
        )
    }
}

/// The top-level fields of a config as [`Config::to_ron_string`] writes them (one a line,
/// indented once), each as `(name, value)`.
fn fields(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let line = line.strip_prefix("    ")?;
            let (name, value) = line.split_once(": ")?;
            Some((name.to_string(), value.trim_end_matches(',').to_string()))
        })
        .collect()
}

/// The value of the field `name` in `fields`.
fn value(fields: &[(String, String)], name: &str) -> Option<String> {
    let found = fields.iter().find(|(field, _)| field == name);
    found.map(|(_, value)| value.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::testing::{SAMPLE, sample_with};

    fn sample(from: &str, to: &str) -> Config {
        Config::from_ron_str(&sample_with(from, to)).unwrap()
    }

    #[test]
    fn fields_are_the_written_lines() {
        let text = Config::from_ron_str(SAMPLE).unwrap().to_ron_string();
        let fields = fields(&text);
        assert_eq!(fields[0].0, "model", "{text}");
        assert!(
            fields.contains(&("seed".to_string(), "12345".to_string())),
            "{fields:?}"
        );
    }

    /// Where the run goes, how it checkpoints and what it writes leave the trajectory alone;
    /// `measure` too.
    #[test]
    fn output_fields_and_measure_are_not_the_trajectory() {
        let config = Config::from_ron_str(SAMPLE).unwrap();
        let moved = sample(
            "backend: Auto,",
            "backend: Wgpu, adapter: Some(\"llvmpipe\"), philox: U32, bounds_checks: true, \
             checkpoint_every: 7, workgroup_size: 256, plots: false, final_state: Packed, \
             pipeline_statistics: Some(\"stats\"),",
        );
        assert_ne!(moved, config);
        assert_eq!(moved.trajectory(), config.trajectory());
        assert_eq!(moved.trajectory_changes(&config), Vec::new());
        let longer = sample("measure: 20000", "measure: 40000");
        assert_eq!(longer.trajectory(), config.trajectory());
    }

    /// A change of the trajectory is named with both values; the sweeps show their `measure`.
    #[test]
    fn changes_name_the_field_and_both_values() {
        let config = Config::from_ron_str(SAMPLE).unwrap();
        let reseeded = sample("seed: 12345", "seed: 12346");
        let changes = reseeded.trajectory_changes(&config);
        assert_eq!(
            changes.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["the checkpoint's run has `seed: 12345`, this config has `seed: 12346`"]
        );
        let hotter = sample("0.44", "0.45").trajectory_changes(&config);
        assert_eq!(hotter.len(), 1);
        assert_eq!(hotter[0].field, "temperatures");
        assert_eq!(hotter[0].now.as_deref(), Some("Betas([0.4, 0.45])"));
        let sweeps = sample("thermalize: 2000", "thermalize: 1000").trajectory_changes(&config);
        assert_eq!(
            sweeps[0].to_string(),
            "the checkpoint's run has `sweeps: (thermalize: 2000, measure: 20000, every: 10)`, \
             this config has `sweeps: (thermalize: 1000, measure: 20000, every: 10)`"
        );
        let tempering = sample(
            "seed: 12345,",
            "seed: 12345, algorithm: Tempering(every: 2),",
        );
        let changes = tempering.trajectory_changes(&config);
        assert_eq!(changes.len(), 1);
        assert!(
            changes[0]
                .to_string()
                .starts_with("the checkpoint's run leaves `algorithm` out, this config has"),
            "{}",
            changes[0]
        );
    }

    #[test]
    fn measure_may_grow_but_not_end_before_the_sweeps_done() {
        let sweeps = Config::from_ron_str(SAMPLE).unwrap().sweeps;
        sweeps.check_continues(0).unwrap();
        sweeps.check_continues(22_000).unwrap();
        let msg = sweeps.check_continues(22_001).unwrap_err().to_string();
        assert!(
            msg.contains("measure: 20000 ends the run after sweep 22000")
                && msg.contains("has done 22001 sweeps")
                && msg.contains("not shrink below the 20001 measuring sweeps done"),
            "{msg}"
        );
    }
}
