//! `summary.json`: the estimates of every temperature (the ferromagnet's per replica series
//! together, the spin glass's over disorder samples), with the run's description, its rate and
//! the logarithmic-binning equilibration checks.

use serde::{Deserialize, Serialize};

use super::Schedule;
use super::equilibration::equilibration_checks;
use super::exact_checks::{exact_ferromagnet, spin_glass_deviations};
use super::series::RunSeries;
use crate::cluster::{ClusterEstimates, cluster_estimates};
use crate::config::Disorder;
use crate::config::{Config, Randoms};
use crate::engine::EngineInfo;
use crate::exact::{ExactIsing2d, ferromagnet_deviations};
use crate::io::origin::RunOrigin;
use crate::io::run_dir::RunDescription;
use crate::model::ising::IsingSystems;
use crate::stats::{
    EquilibrationCheck, IsingEstimates, SpinGlassEstimates, independent_unit, ising_estimates,
    largest_tau, spin_glass_estimates,
};
use crate::tempering::TemperingDiagnostics;

/// The results of one temperature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TemperatureSummary {
    #[serde(flatten)]
    pub estimates: IsingEstimates,
    /// Exact finite-size values: Kaufman's (2D, zero field), or by enumeration of a tiny
    /// lattice.
    pub exact: Option<ExactIsing2d>,
    /// With cluster updates: the improved estimators from the cluster sizes.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub clusters: Option<ClusterEstimates>,
}

/// `summary.json`. Fields recorded since a later version (`#[serde(default)]`) default when
/// read back, so older summaries still load (`spinflip plot` reads them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    #[serde(flatten)]
    pub run: RunDescription,
    /// How the multispin engine drew its random numbers, and what that means for the lanes.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub randoms: Option<String>,
    /// Whether the magnetisation of every estimate and series is the staggered one,
    /// `M_s = sum_i (-1)^(x+y+z) s_i`: the antiferromagnet's on a bipartite lattice.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub staggered: bool,
    /// What one independent unit of the errors is; every temperature's `units` counts them.
    #[serde(default)]
    pub independent_unit: String,
    pub sweeps: u64,
    pub measurements: u64,
    /// Spin-flip attempts per nanosecond of engine time (this invocation's part of the run;
    /// 0 when it ran no sweeps, as when resuming a finished run).
    pub flips_per_ns: f64,
    pub ps_per_flip: f64,
    /// The ferromagnet: per temperature, every replica's series together.
    pub runs: Vec<TemperatureSummary>,
    /// The Edwards-Anderson model: per temperature, averages over disorder samples.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub spin_glass: Vec<SpinGlassEstimates>,
    /// Parallel tempering: swap acceptance per pair and round trips.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tempering: Option<TemperingDiagnostics>,
    /// Measurements taken while thermalising (not in the estimates; in `thermalization_*.csv`).
    #[serde(default)]
    pub thermalization_measurements: u64,
    /// Per temperature, the logarithmic-binning equilibration check over the whole run.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub equilibration: Vec<EquilibrationCheck>,
    /// What makes the results doubtful beyond the equilibration checks, in words: estimates
    /// more than 4 errors from exact values, tempering chains that never crossed the ladder.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub warnings: Vec<String>,
    /// The couplings' source and the provenance.
    #[serde(flatten)]
    pub origin: RunOrigin,
}

/// The summary of a finished run (its tempering diagnostics left to the caller) whose engine
/// did `flips_per_ns` spin-flip attempts per nanosecond in this invocation.
pub(super) fn summarize(
    config: &Config,
    engine_choice: &str,
    systems: &IsingSystems,
    schedule: &Schedule,
    series: &RunSeries,
    info: &EngineInfo,
    flips_per_ns: f64,
) -> Summary {
    let lattice = systems.lattice;
    let (unit, unit_description) = independent_unit(&config.engine);
    let temperatures = systems.betas.iter().zip(&series.production);
    let (runs, spin_glass) = match systems.disorder {
        Disorder::Ferromagnet => {
            let runs = temperatures
                .enumerate()
                .map(|(t, (&beta, samples))| {
                    let exact = exact_ferromagnet(&config.model, systems, beta);
                    let only = &samples[0];
                    let estimates = ising_estimates(
                        beta,
                        lattice.spins(),
                        &only.energies,
                        &only.magnetisations,
                        unit,
                    );
                    let clusters = schedule.clusters.map(|options| {
                        let sizes = &series.cluster_sizes[t];
                        let (sites, per) = (lattice.sites(), options.clusters);
                        cluster_estimates(options.update, beta, sites, sizes, per, unit)
                    });
                    TemperatureSummary {
                        estimates,
                        exact,
                        clusters,
                    }
                })
                .collect();
            (runs, Vec::new())
        }
        Disorder::Bimodal | Disorder::Gaussian => {
            let spin_glass = temperatures
                .map(|(&beta, samples)| {
                    spin_glass_estimates(beta, lattice.spins(), lattice.size, samples, unit)
                })
                .collect();
            (Vec::new(), spin_glass)
        }
    };
    let ps_per_flip = if flips_per_ns > 0.0 {
        1000.0 / flips_per_ns
    } else {
        0.0
    };
    let randoms = match config.engine.multispin() {
        Some(options) if options.randoms == Randoms::Shared => Some(
            "shared: one uniform per word for all its lanes (papers 000/002); decisions of the \
             lanes of a word are correlated"
                .to_string(),
        ),
        Some(_) => Some("exact: an independent uniform per lane and decision".to_string()),
        None => None,
    };
    let magnetisation = match systems.staggered() {
        true => "|m_s|",
        false => "|m|",
    };
    let taus: Vec<(&str, f64)> = match systems.disorder {
        Disorder::Ferromagnet => (runs.iter())
            .map(|r| {
                largest_tau(&[
                    ("e", r.estimates.tau_e),
                    (magnetisation, r.estimates.tau_abs_m),
                ])
            })
            .collect(),
        Disorder::Bimodal | Disorder::Gaussian => (spin_glass.iter())
            .map(|t| largest_tau(&[("e", t.tau_e), ("q2", t.tau_q2)]))
            .collect(),
    };
    let warnings = match systems.disorder {
        Disorder::Ferromagnet => ferromagnet_deviations(
            runs.iter().filter_map(|run| {
                let estimates = &run.estimates;
                Some((
                    (estimates.beta, estimates.e, estimates.c),
                    run.exact.as_ref()?,
                ))
            }),
            config.temperatures.scale(),
        ),
        Disorder::Bimodal | Disorder::Gaussian => {
            spin_glass_deviations(systems, &spin_glass, unit, config.temperatures.scale())
        }
    };
    Summary {
        run: RunDescription::new(config, info.clone(), engine_choice),
        randoms,
        staggered: systems.staggered(),
        independent_unit: unit_description,
        sweeps: schedule.total(),
        measurements: schedule.measurements_before(schedule.total())
            - schedule.thermalization_measurements(),
        flips_per_ns,
        ps_per_flip,
        runs,
        spin_glass,
        tempering: None,
        thermalization_measurements: schedule.thermalization_measurements(),
        equilibration: equilibration_checks(systems, schedule, series, unit, &taus),
        warnings,
        origin: RunOrigin::new(systems.disorder, systems.instance.as_deref()),
    }
}
