//! `summary.json` of a vector-spin run, and its terminal table.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::equilibration::equilibration_checks;
use super::record::{OverlapMeasurement, VectorRecord, acceptance_rates, extras};
use super::tuning::ConeTuning;
use crate::cluster::ClusterEstimates;
use crate::cluster::estimators::{estimates_of_sizes, improved_table};
use crate::config::{
    ClusterUpdate, Config, Disorder, MetropolisOrder, ReplicaMoves, StateStorage, TemperatureScale,
};
use crate::engine::EngineInfo;
use crate::engine::vector::{UNIFORM, VectorSweeps};
use crate::exact::{ExactIsing2d, ferromagnet_deviations, kaufman_of};
use crate::io::origin::RunOrigin;
use crate::io::run_dir::RunDescription;
use crate::model::Lattice;
use crate::model::couplings::Instance;
use crate::model::vector::VectorSystems;
use crate::model::vector::fixed::to_f64;
use crate::stats::{
    EquilibrationCheck, Estimate, TensorGlassEstimates, TensorOverlapSeries, UnitSize,
    VectorEstimates, VectorMeasurement, estimate_cell, no_overlaps_line, table_heading, table_row,
    tensor_glass_estimates, vector_estimates, verdict_lines,
};
use crate::tempering::TemperingDiagnostics;

/// The Metropolis proposals of one temperature over the production.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProposalSummary {
    pub beta: f64,
    /// The cone's width as tuned while thermalising, then frozen; `None` for uniform proposals.
    pub width: Option<f64>,
    /// The accepted fraction of the production's proposals.
    pub acceptance: f64,
}

/// The replica moves of one temperature over the production (`Tempering(moves: ..)`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplicaMoveSummary {
    pub beta: f64,
    /// The fraction of the moves that found a seed among their candidate sites and moved a
    /// cluster (the others leave the pair as it is).
    pub acceptance: f64,
    /// The mean moved cluster's sites, as a fraction of the lattice's.
    pub cluster_fraction: f64,
}

/// `summary.json` of a vector-spin run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorSummary {
    #[serde(flatten)]
    pub run: RunDescription,
    /// The updates, in words.
    pub updates: String,
    pub sweeps: u64,
    /// Measurements entering the estimates, per system.
    pub measurements: u64,
    /// Measurements taken while thermalising (in `thermalization_*.csv`, not the estimates).
    pub thermalization_measurements: u64,
    /// Attempted Metropolis updates (sites times hits) per nanosecond of engine time
    /// (over-relaxation included in the time, not in the count).
    pub updates_per_ns: f64,
    /// Per temperature, every sample's and replica's series together.
    pub runs: Vec<VectorEstimates>,
    /// A spin glass's overlap estimators per temperature (none for the ferromagnet).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub spin_glass: Vec<TensorGlassEstimates>,
    pub proposals: Vec<ProposalSummary>,
    /// Replica moves, per temperature where they act.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub replica_moves: Vec<ReplicaMoveSummary>,
    /// A cluster step's improved estimators, per temperature, from the sizes of the clusters
    /// of each measured step ([`crate::vector::cluster_m2`]); `m2` and `chi` those of the
    /// Potts spins' simplex vectors. None without cluster updates, of the clock, or where a
    /// checkpoint written before them left measurements without sizes.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub clusters: Vec<ClusterEstimates>,
    /// Kaufman's exact values per temperature (as `runs`) where the model has them
    /// ([`kaufman_of`]: the Ising model on the square torus, twisted or not, and the 2-state
    /// Potts model, as ferromagnets at zero field; `null` at a beta where a twisted torus's
    /// terms cancel past a double's digits); none for other models.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub exact: Vec<Option<ExactIsing2d>>,
    /// `max | s . s - 1 |` over every site and measurement: the drift of the spins' norm.
    pub norm_deviation: f64,
    /// Per temperature, the logarithmic-binning equilibration check over the whole run.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub equilibration: Vec<EquilibrationCheck>,
    /// Parallel tempering: swap acceptance per pair and round trips.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tempering: Option<TemperingDiagnostics>,
    /// What makes the results doubtful, in words: tempering chains that never crossed the
    /// ladder, pairs that hardly swap.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub warnings: Vec<String>,
    /// The couplings' source and the provenance.
    #[serde(flatten)]
    pub origin: RunOrigin,
}

/// The summary of a finished run of `systems`, on the couplings of `instance` where the config
/// gives them.
pub(super) fn summarize(
    config: &Config,
    engine_choice: &str,
    (systems, instance): (&VectorSystems, Option<&Instance>),
    (record, tuning): (&VectorRecord, &ConeTuning),
    info: &EngineInfo,
    updates_per_ns: f64,
) -> VectorSummary {
    let sweeps = &config.sweeps;
    let thermalization = sweeps.thermalize / sweeps.every;
    let per_temperature = systems.systems_per_temperature() as usize;
    let systems_count = systems.systems() as usize;
    let lattice = systems.lattice;
    let shape = (systems.components, lattice.size, lattice.spins());
    // A clock's reflections give no estimator.
    let clusters_of = (config.algorithm.clusters()).filter(|_| systems.clusters_record_sizes());
    let extras = extras(systems);
    let (runs, clusters): (Vec<VectorEstimates>, Vec<Option<ClusterEstimates>>) =
        (0..systems.betas.len())
            .map(|t| {
                let series: Vec<Vec<VectorMeasurement>> = (0..per_temperature)
                    .map(|k| {
                        let b = t * per_temperature + k;
                        let all = record.measurements.iter().skip(b).step_by(systems_count);
                        all.skip(thermalization as usize).copied().collect()
                    })
                    .collect();
                let beta = systems.betas[t];
                let improved = clusters_of
                    .and_then(|options| improved_estimates(options.update, beta, lattice, &series));
                let estimates = vector_estimates(beta, shape, &series, extras);
                (estimates, improved)
            })
            .unzip();
    // Every temperature's, or none (measurements read from a checkpoint without sizes).
    let clusters = clusters
        .into_iter()
        .collect::<Option<_>>()
        .unwrap_or_default();
    let spin_glass = glass_estimates(systems, record, thermalization as usize);
    let per_sweep = VectorSweeps::of(&config.updates, &config.algorithm).proposals();
    let production = sweeps.measure * u64::from(per_sweep);
    let rates = acceptance_rates(systems, &record.accepted_in_production, production);
    // Cluster updates alone propose no Metropolis move.
    let proposals = match production {
        0 => Vec::new(),
        _ => (tuning.widths.iter().zip(rates).zip(&systems.betas))
            .map(|((&width, acceptance), &beta)| ProposalSummary {
                beta,
                width: (width != UNIFORM).then(|| to_f64(width)),
                acceptance,
            })
            .collect(),
    };
    let measurements = record.measurements.len() as u64 / systems_count as u64;
    let exact: Vec<Option<ExactIsing2d>> = (runs.iter())
        .map(|r| kaufman_of(&config.model, r.beta))
        .collect();
    let exact = match exact.iter().all(Option::is_none) {
        true => Vec::new(),
        false => exact,
    };
    let warnings = ferromagnet_deviations(
        (runs.iter().zip(&exact)).filter_map(|(r, x)| Some(((r.beta, r.e, r.c), x.as_ref()?))),
        config.temperatures.scale(),
    );
    VectorSummary {
        run: RunDescription::new(config, info.clone(), engine_choice),
        updates: describe_updates(config),
        sweeps: sweeps.thermalize + sweeps.measure,
        measurements: measurements - thermalization,
        thermalization_measurements: thermalization,
        updates_per_ns,
        equilibration: equilibration_checks(systems, record, sweeps, &runs),
        runs,
        spin_glass,
        proposals,
        replica_moves: replica_move_summaries(config, systems, record),
        clusters,
        exact,
        norm_deviation: record.norm_deviation,
        tempering: None,
        warnings,
        origin: RunOrigin::new(systems.disorder, instance).with_vacancies_of(config),
    }
}

/// The improved estimators at `beta` of a cluster step's `update` on `lattice` from each
/// replica's `series` ([`VectorMeasurement::cluster_m2`], each `<|m|^2>` per occupied site);
/// `None` where a measurement holds none (NaN: read from a checkpoint written before them).
pub(super) fn improved_estimates(
    update: ClusterUpdate,
    beta: f64,
    lattice: Lattice,
    series: &[Vec<VectorMeasurement>],
) -> Option<ClusterEstimates> {
    let sites = lattice.spins();
    let sizes: Vec<Vec<f64>> = (series.iter())
        .map(|s| s.iter().map(|m| m.cluster_m2 * sites as f64).collect())
        .collect();
    let measured = sizes.iter().flatten().all(|s| s.is_finite());
    measured.then(|| estimates_of_sizes(update, beta, sites, sizes, UnitSize::SYSTEM))
}

/// The replica moves' acceptance and mean cluster of every temperature where they act, from
/// the production's record; none without replica moves.
fn replica_move_summaries(
    config: &Config,
    systems: &VectorSystems,
    record: &VectorRecord,
) -> Vec<ReplicaMoveSummary> {
    let moves = config.algorithm.replica_moves();
    let pairs = systems.samples * systems.overlap_pairs();
    let tries = config.sweeps.measure * u64::from(moves.per_sweep()) * u64::from(pairs);
    let per_temperature = |t: u32| {
        (0..pairs).fold((0, 0), |(sites, seeded), k| {
            let (a, b) = systems.overlap_systems(t * pairs + k);
            let moved = &record.moves_in_production;
            (sites + moved[a as usize], seeded + moved[b as usize])
        })
    };
    (0..systems.betas.len() as u32)
        .filter(|&t| moves.acts_at(systems.betas[t as usize]) && tries > 0)
        .map(|t| {
            let (sites, seeded) = per_temperature(t);
            let lattice_sites = systems.lattice.spins() as f64;
            ReplicaMoveSummary {
                beta: systems.betas[t as usize],
                acceptance: seeded as f64 / tries as f64,
                cluster_fraction: match seeded {
                    0 => 0.0,
                    _ => sites as f64 / seeded as f64 / lattice_sites,
                },
            }
        })
        .collect()
}

/// The overlap estimators of every temperature of a spin glass, from the production's overlaps;
/// none without replica pairs.
fn glass_estimates(
    systems: &VectorSystems,
    record: &VectorRecord,
    thermalization: usize,
) -> Vec<TensorGlassEstimates> {
    let overlaps = systems.overlaps() as usize;
    if overlaps == 0 {
        return Vec::new();
    }
    let pairs = systems.overlap_pairs() as usize;
    let lattice = systems.lattice;
    let shape = (lattice.spins(), lattice.size, systems.spin_components());
    let series = |k: usize, f: fn(&OverlapMeasurement) -> f64| {
        let all = record.overlaps.iter().skip(k).step_by(overlaps);
        all.skip(thermalization).map(f).collect::<Vec<f64>>()
    };
    (0..systems.betas.len())
        .map(|t| {
            let samples: Vec<TensorOverlapSeries> = (0..systems.samples as usize)
                .map(|s| {
                    let first = systems.overlap(t as u32, s as u32, 0) as usize;
                    let over_pairs = |f| (first..first + pairs).map(|k| series(k, f)).collect();
                    TensorOverlapSeries {
                        q2: over_pairs(|o| o.q2),
                        q2_kmin: over_pairs(|o| o.q2_kmin),
                    }
                })
                .collect();
            tensor_glass_estimates(systems.betas[t], shape, &samples, UnitSize::SYSTEM)
        })
        .collect()
}

/// "Metropolis with a cone tuned to acceptance 0.5, 2 over-relaxation sweeps per Metropolis
/// sweep", with "on a double checkerboard of 16^2 tiles, 4 hits per site" where it has tiles;
/// a clock model's "Metropolis with uniform proposals of its 6 angles" or "heat bath of its 6
/// states" (which takes no over-relaxation); a discrete model's "Metropolis with uniform
/// proposals of its 2 other states" or "heat bath of its 3 states" ("Metropolis flips" of two);
/// cluster steps' "1 Swendsen-Wang cluster update per step (Fortuin-Kasteleyn bonds)" (a
/// clock's "(Wolff's embedding: reflections)"), then their Metropolis sweeps.
fn describe_updates(config: &Config) -> String {
    let metropolis = describe_metropolis(config);
    let plural = |n: u32| if n == 1 { "" } else { "s" };
    let moves = config.algorithm.replica_moves();
    let per_sweep = moves.per_sweep();
    let metropolis = match moves {
        ReplicaMoves::None => metropolis,
        ReplicaMoves::Houdayer { .. } => format!(
            "{metropolis}, then {per_sweep} Houdayer move{} of each replica pair per sweep",
            plural(per_sweep)
        ),
        ReplicaMoves::Isoenergetic { below, .. } => format!(
            "{metropolis}, then {per_sweep} isoenergetic cluster move{} of each replica pair \
             per sweep at T <= {below}",
            plural(per_sweep)
        ),
    };
    match config.algorithm.clusters() {
        None => metropolis,
        Some(step) => {
            let update = match step.update {
                ClusterUpdate::SwendsenWang => "Swendsen-Wang",
                ClusterUpdate::Wolff => "Wolff",
            };
            let sweeps = match step.metropolis {
                0 => String::new(),
                m => format!(", then {m} sweep{} of {metropolis}", plural(m)),
            };
            let bonds = match config.model.clock_states() {
                Some(_) => "Wolff's embedding: reflections",
                None => "Fortuin-Kasteleyn bonds",
            };
            let c = step.clusters;
            format!(
                "{c} {update} cluster update{} per step ({bonds}){sweeps}",
                plural(c)
            )
        }
    }
}

/// The Metropolis sweeps of `q` discrete states in bit planes, as [`describe_updates`] describes
/// them.
fn describe_planes(q: u32) -> String {
    let planes = crate::engine::planes::planes_of(q);
    let proposal = match q {
        2 | 3 => format!("uniform proposals of its {} other states", q - 1),
        _ => format!("proposals s XOR r of {planes} random bits"),
    };
    format!("Metropolis with {proposal}, in {planes} bit planes")
}

/// The Metropolis sweeps of [`describe_updates`], as it describes them.
fn describe_metropolis(config: &Config) -> String {
    use crate::config::Proposal;
    let order = match config.updates.metropolis {
        MetropolisOrder::Checkerboard => String::new(),
        MetropolisOrder::DoubleCheckerboard { tile, hits } => format!(
            " on a double checkerboard of {tile}^{} tiles, {hits} hits per site",
            config.model.dims()
        ),
    };
    let q = config.model.clock_states().unwrap_or(0);
    if let Some(states) = config.discrete_states() {
        if config.updates.storage == StateStorage::BitPlanes {
            return describe_planes(states);
        }
        return match config.updates.proposal {
            Proposal::HeatBath => format!("heat bath of its {states} states"),
            _ if states == 2 => "Metropolis flips".to_string(),
            _ => format!(
                "Metropolis with uniform proposals of its {} other states",
                states - 1
            ),
        };
    }
    let proposal = match config.updates.proposal {
        Proposal::HeatBath => return format!("heat bath of its {q} states{order}"),
        Proposal::Uniform if q > 0 => format!("uniform proposals of its {q} angles"),
        Proposal::Uniform => "uniform proposals".to_string(),
        Proposal::Cone { acceptance } => {
            format!("a proposal cone tuned to acceptance {acceptance}")
        }
    };
    format!(
        "Metropolis with {proposal}{order}, {} over-relaxation sweeps per Metropolis sweep",
        config.updates.overrelaxation
    )
}

/// The estimates as a table for the terminal, in the format of the Ising runs' table; a spin
/// glass (`disorder`) run with one replica has no overlaps, and says so.
pub fn vector_table(summary: &VectorSummary, disorder: Disorder) -> String {
    let scale = summary.run.temperature_scale;
    let mut table = format!(
        "{} L={}: {}\n",
        summary.run.model, summary.run.size, summary.updates
    );
    table += &order_table(scale, &summary.runs);
    table += &exact_table(scale, &summary.runs, &summary.exact);
    if let [first, ..] = summary.spin_glass.as_slice() {
        let errors = match first.samples {
            1 => "errors from time blocks",
            _ => "errors from the spread over samples",
        };
        let _ = writeln!(table, "{} samples; {errors}", first.samples);
        let columns = [("chi_SG", 20), ("g", 20), ("xi_L/L", 20)];
        table += &table_heading(scale, &columns);
        for t in &summary.spin_glass {
            table += &table_row(
                scale,
                t.beta,
                cells(&[&t.chi_sg, &t.g, &t.xi_over_l], &columns),
            );
        }
    } else if disorder != Disorder::Ferromagnet {
        table += &no_overlaps_line("chi_SG, g, xi_L/L");
    }
    let clustered = (summary.runs.iter().zip(&summary.clusters))
        .map(|(t, clusters)| (t.beta, t.simplex_m2.as_ref().unwrap_or(&t.m2), clusters));
    table += &improved_table(scale, "; Potts: of the simplex vectors", clustered);
    if !summary.replica_moves.is_empty() {
        let _ = writeln!(
            table,
            "replica moves: the fraction that moved a cluster, its mean size |C|/N"
        );
        let _ = writeln!(table, "{:>9} {:>10} {:>10}", scale.name(), "moved", "|C|/N");
        for m in &summary.replica_moves {
            let _ = writeln!(
                table,
                "{:>9.6} {:>10.4} {:>10.4}",
                scale.value(m.beta),
                m.acceptance,
                m.cluster_fraction
            );
        }
    }
    table.push_str(&verdict_lines(
        &summary.equilibration,
        &summary.warnings,
        summary.run.temperature_scale,
    ));
    table
}

/// The energy and the order parameter per temperature: `|m|`, `U4` and `xi/L`; of an
/// antiferromagnet on a bipartite lattice `|m|`, `|m_s|` and `U4_s`.
fn order_table(scale: TemperatureScale, runs: &[VectorEstimates]) -> String {
    let staggered = runs.iter().all(|r| r.staggered.is_some());
    let columns = match staggered {
        true => [("e", 24), ("|m|", 20), ("|m_s|", 20), ("U4_s", 20)],
        false => [("e", 24), ("|m|", 20), ("U4", 20), ("xi/L", 20)],
    };
    let mut table = table_heading(scale, &columns);
    for r in runs {
        let estimates = match &r.staggered {
            Some(s) if staggered => [&r.e, &r.abs_m, &s.abs_m, &s.u4],
            _ => [&r.e, &r.abs_m, &r.u4, &r.xi_over_l],
        };
        table += &table_row(scale, r.beta, cells(&estimates, &columns));
    }
    table
}

/// The energy and heat beside Kaufman's values, at the temperatures that have them (none
/// without any).
fn exact_table(
    scale: TemperatureScale,
    runs: &[VectorEstimates],
    exact: &[Option<ExactIsing2d>],
) -> String {
    let known: Vec<(&VectorEstimates, &ExactIsing2d)> = (runs.iter().zip(exact))
        .filter_map(|(r, x)| Some((r, x.as_ref()?)))
        .collect();
    if known.is_empty() {
        return String::new();
    }
    let columns = [("e", 24), ("e exact", 13), ("c", 24), ("c exact", 13)];
    let mut table = table_heading(scale, &columns);
    for (r, x) in known {
        let cells = [
            estimate_cell(&r.e),
            format!("{:.8}", x.e),
            estimate_cell(&r.c),
            format!("{:.8}", x.c),
        ];
        table += &table_row(scale, r.beta, cells.into_iter().zip(columns.map(|c| c.1)));
    }
    table
}

/// The cells of `estimates`, in the widths of their `columns`.
fn cells<'a>(
    estimates: &'a [&Estimate],
    columns: &'a [(&str, usize)],
) -> impl Iterator<Item = (String, usize)> + 'a {
    (estimates.iter().zip(columns)).map(|(e, &(_, width))| (estimate_cell(e), width))
}
