//! `summary.json`: the estimates of every temperature (the ferromagnet's per replica series
//! together, the spin glass's over disorder samples), with the run's description, its rate and
//! the logarithmic-binning equilibration checks.

use serde::{Deserialize, Serialize};

use super::Schedule;
use super::series::RunSeries;
use crate::config::Disorder;
use crate::config::{Config, Randoms};
use crate::engine::EngineInfo;
use crate::exact::{ExactIsing2d, kaufman};
use crate::io::instance::couplings_source;
use crate::io::provenance::Provenance;
use crate::io::run_dir::RunDescription;
use crate::model::ising::IsingSystems;
use crate::stats::{
    EquilibrationCheck, IsingEstimates, SampleSeries, SpinGlassEstimates, UnitSeries,
    independent_unit, ising_estimates, log_binning, spin_glass_estimates,
};
use crate::tempering::TemperingDiagnostics;

/// The results of one temperature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TemperatureSummary {
    #[serde(flatten)]
    pub estimates: IsingEstimates,
    /// Kaufman's exact finite-size values (2D, zero field only).
    pub exact: Option<ExactIsing2d>,
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
    /// Where a spin glass's couplings came from: drawn from the seed, or the file the config
    /// names with its FNV-1a 64; left out for the ferromagnet.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub couplings: Option<String>,
    /// Build, host, device, command line and times of the invocation that finished the run.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub provenance: Option<Provenance>,
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
                .map(|(&beta, samples)| {
                    let exact = (lattice.dims == 2 && systems.field == 0.0)
                        .then(|| kaufman(lattice.size, beta));
                    let only = &samples[0];
                    let estimates = ising_estimates(
                        beta,
                        lattice.sites(),
                        &only.energies,
                        &only.magnetisations,
                        unit,
                    );
                    TemperatureSummary { estimates, exact }
                })
                .collect();
            (runs, Vec::new())
        }
        Disorder::Bimodal => {
            let spin_glass = temperatures
                .map(|(&beta, samples)| {
                    spin_glass_estimates(beta, lattice.sites(), lattice.size, samples, unit)
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
    Summary {
        run: RunDescription::new(config, info.clone(), engine_choice),
        randoms,
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
        equilibration: equilibration_checks(systems, schedule, series),
        couplings: couplings_source(systems.disorder, systems.instance.as_deref()),
        provenance: None,
    }
}

/// The logarithmic-binning check of every temperature over all measurements: the energy, and
/// the spin glass's `q^2` per sample or the ferromagnet's `|m|` per replica. Drift is logged.
fn equilibration_checks(
    systems: &IsingSystems,
    schedule: &Schedule,
    series: &RunSeries,
) -> Vec<EquilibrationCheck> {
    let second_name = match systems.disorder {
        Disorder::Bimodal => "q2",
        Disorder::Ferromagnet => "abs_m",
    };
    let checks: Vec<EquilibrationCheck> = systems
        .betas
        .iter()
        .zip(&series.all)
        .map(|(&beta, samples)| {
            let measurements = samples[0].energies[0].len() as u64;
            let sweeps: Vec<u64> = (0..measurements)
                .map(|m| schedule.sweep_of_measurement(m) + 1)
                .collect();
            let (energies, second) = unit_series(systems, samples);
            let mut observables = vec![UnitSeries {
                name: "e",
                units: &energies,
            }];
            if systems.overlap_pairs() > 0 || systems.disorder == Disorder::Ferromagnet {
                observables.push(UnitSeries {
                    name: second_name,
                    units: &second,
                });
            }
            // Errors need at least two independent units.
            (energies.len() > 1).then(|| log_binning(beta, &sweeps, &observables))
        })
        .collect::<Option<Vec<_>>>()
        .unwrap_or_default();
    for check in checks.iter().filter(|c| !c.stable) {
        log::warn!(
            "equilibration: at beta {} the averages over the last logarithmic bins of sweeps \
             differ ({}); do not trust these results before a longer run agrees",
            check.beta,
            check.drift
        );
    }
    checks
}

/// Per independent unit of one temperature, at every measurement: `e` and the second observable
/// of the check. The spin glass's units are samples (replicas and overlap pairs averaged), the
/// ferromagnet's replicas (`|m|`).
fn unit_series(systems: &IsingSystems, samples: &[SampleSeries]) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let n = systems.lattice.sites() as f64;
    let mean = |values: Vec<f64>| values.iter().sum::<f64>() / values.len().max(1) as f64;
    match systems.disorder {
        Disorder::Bimodal => samples
            .iter()
            .map(|s| {
                (0..s.energies[0].len())
                    .map(|m| {
                        let e = mean(s.energies.iter().map(|r| r[m] / n).collect());
                        let q2 = mean(s.overlaps.iter().map(|p| p[m] * p[m]).collect());
                        (e, q2)
                    })
                    .unzip()
            })
            .unzip(),
        Disorder::Ferromagnet => samples[0]
            .energies
            .iter()
            .zip(&samples[0].magnetisations)
            .map(|(e, m)| {
                let e = e.iter().map(|x| x / n).collect();
                let m = m.iter().map(|&x| (x as f64 / n).abs()).collect();
                (e, m)
            })
            .unzip(),
    }
}
