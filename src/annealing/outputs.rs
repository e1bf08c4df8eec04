//! The files of a finished anneal (`annealing.json` and its CSV tables) and its table for the
//! terminal.

use std::path::Path;

use super::summary::AnnealingSummary;
use super::{AnnealingAverage, Population};
use crate::config::Config;
use crate::error::Result;
use crate::exact::ExactIsing2d;
use crate::io::output::{write_file, write_json};
use crate::stats::Estimate;

/// File names in the output directory: `annealing.json` is an anneal's summary, where a run of
/// sweeps writes `summary.json`.
pub const ANNEALING_JSON: &str = "annealing.json";
const ANNEALING_CSV: &str = "annealing.csv";
const POPULATIONS_CSV: &str = "annealing_populations.csv";
const REWEIGHTED_CSV: &str = "annealing_reweighted.csv";

/// The files an anneal writes.
pub const ANNEALING_FILES: [&str; 4] = [
    ANNEALING_JSON,
    ANNEALING_CSV,
    POPULATIONS_CSV,
    REWEIGHTED_CSV,
];

/// `annealing.json`, `annealing.csv` (per beta, mean and error over populations, exact values
/// where known), `annealing_populations.csv` (per population and beta of `populations`, whose
/// samples are `config`'s) and `annealing_reweighted.csv` (with `reweighting`).
pub(super) fn write_outputs(
    out: &Path,
    config: &Config,
    populations: &[Population],
    summary: &AnnealingSummary,
) -> Result<()> {
    write_json(out, ANNEALING_JSON, summary)?;
    write_file(out, ANNEALING_CSV, averages_csv(summary).as_bytes())?;
    let measured = Measured {
        overlaps: !summary.overlaps.is_empty(),
        staggered: has_staggered(summary),
    };
    write_file(
        out,
        POPULATIONS_CSV,
        populations_csv(populations, config.samples, measured).as_bytes(),
    )?;
    if !summary.reweighted.is_empty() {
        write_file(out, REWEIGHTED_CSV, reweighted_csv(summary).as_bytes())?;
    }
    Ok(())
}

/// The terminal's table: per beta (at most `TABLE_ROWS`, evenly spread over the schedule,
/// the last included) e, c and f with their errors, and the exact values where known.
pub fn annealing_table(summary: &AnnealingSummary) -> String {
    let steps = summary.steps.len();
    let stride = steps.div_ceil(TABLE_ROWS).max(1);
    let mut table = format!(
        "{:>10} {:>22} {:>22} {:>22} {:>11} {:>11} {:>11}\n",
        "beta", "e", "c", "f", "exact e", "exact c", "exact f"
    );
    let shown = (0..steps).filter(|k| k % stride == 0 || k + 1 == steps);
    for k in shown {
        let a = &summary.steps[k];
        let estimate = |x: Estimate| format!("{:.6} +- {:.6}", x.mean, x.err);
        let exact = summary
            .exact
            .get(k)
            .map_or([String::new(), String::new(), String::new()], |x| {
                [x.e, x.c, x.f].map(|v| format!("{v:.6}"))
            });
        table.push_str(&format!(
            "{:>10.6} {:>22} {:>22} {:>22} {:>11} {:>11} {:>11}\n",
            a.beta,
            estimate(a.e),
            estimate(a.c),
            estimate(a.f),
            exact[0],
            exact[1],
            exact[2]
        ));
    }
    table
}

/// Most rows of [`annealing_table`].
const TABLE_ROWS: usize = 20;

/// What an anneal measured besides the estimates every anneal has.
#[derive(Debug, Clone, Copy)]
struct Measured {
    /// The pair overlaps of a spin glass (`overlaps: true`).
    overlaps: bool,
    /// The staggered magnetisation of an antiferromagnet on a bipartite lattice.
    staggered: bool,
}

/// Whether the anneal of `summary` measured the staggered magnetisation.
fn has_staggered(summary: &AnnealingSummary) -> bool {
    summary.steps.first().is_some_and(|a| a.staggered.is_some())
}

/// The staggered magnetisation's columns: `|m_s|`, `m_s^2`, `m_s^4`, `U4_s`.
const STAGGERED_COLUMNS: [&str; 4] = ["abs_ms", "ms2", "ms4", "u4_s"];

/// The columns of [`averages_csv`] for the nine estimates of an [`AnnealingAverage`] and, with
/// `staggered`, its staggered ones, each with its error, after `prefix`.
fn average_columns(prefix: &str, staggered: bool) -> String {
    let staggered = STAGGERED_COLUMNS.iter().filter(|_| staggered);
    ["e", "c", "abs_m", "m2", "m4", "u4", "ln_z", "f", "s"]
        .iter()
        .chain(staggered)
        .map(|q| format!("{prefix}{q},{prefix}{q}_err"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Each estimate's mean, then its error.
fn estimate_values<const N: usize>(estimates: [Estimate; N]) -> impl Iterator<Item = String> {
    estimates
        .into_iter()
        .flat_map(|x| [x.mean.to_string(), x.err.to_string()])
}

/// An [`AnnealingAverage`]'s nine estimates and its staggered ones where it has them, with
/// their errors, in [`average_columns`]' order.
fn average_values(a: &AnnealingAverage) -> impl Iterator<Item = String> {
    let staggered = a.staggered.map(|s| [s.abs_m, s.m2, s.m4, s.u4]);
    estimate_values([a.e, a.c, a.abs_m, a.m2, a.m4, a.u4, a.ln_z, a.f, a.s])
        .chain(staggered.into_iter().flat_map(estimate_values))
}

/// The overlap columns of [`averages_csv`].
const OVERLAP_COLUMNS: [&str; 7] = ["q2", "q4", "g", "chi_sg", "q2_kmin", "xi_over_l", "ql"];

/// Per beta: each estimate's mean and error over the populations (the staggered
/// magnetisation's where measured), the weighted average over runs (`w_` columns), the overlaps
/// where measured, then the exact e, c, f.
fn averages_csv(summary: &AnnealingSummary) -> String {
    let staggered = has_staggered(summary);
    let mut header = vec![
        "beta,populations".to_string(),
        average_columns("", staggered),
        average_columns("w_", staggered),
    ];
    if !summary.overlaps.is_empty() {
        header.extend(OVERLAP_COLUMNS.map(|q| format!("{q},{q}_err")));
    }
    header.push("exact_e,exact_c,exact_f".to_string());
    let mut csv = header.join(",") + "\n";
    for (k, a) in summary.steps.iter().enumerate() {
        let exact = summary.exact.get(k);
        let mut row = vec![a.beta.to_string(), a.runs.to_string()];
        row.extend(average_values(a));
        row.extend(summary.weighted.get(k).into_iter().flat_map(average_values));
        if let Some(o) = summary.overlaps.get(k).map(|o| o.overlaps) {
            row.extend(estimate_values([
                o.q2,
                o.q4,
                o.g,
                o.chi_sg,
                o.q2_kmin,
                o.xi_over_l,
                o.ql,
            ]));
        }
        row.extend(exact_columns(exact));
        csv.push_str(&row.join(","));
        csv.push('\n');
    }
    csv
}

/// Kaufman's e, c, f, or empty columns.
fn exact_columns(exact: Option<&ExactIsing2d>) -> [String; 3] {
    [exact.map(|x| x.e), exact.map(|x| x.c), exact.map(|x| x.f)]
        .map(|x| x.map_or(String::new(), |x| x.to_string()))
}

/// Per reweighting beta: the multi-histogram e, c, ln Z/N, f (mean and error over the
/// populations), then the exact e, c, f.
fn reweighted_csv(summary: &AnnealingSummary) -> String {
    let mut csv = String::from(
        "beta,populations,e,e_err,c,c_err,ln_z,ln_z_err,f,f_err,exact_e,exact_c,exact_f\n",
    );
    for (k, a) in summary.reweighted.iter().enumerate() {
        let mut row = vec![a.beta.to_string(), a.runs.to_string()];
        row.extend(estimate_values([a.e, a.c, a.ln_z, a.f]));
        row.extend(exact_columns(summary.reweighted_exact.get(k)));
        csv.push_str(&row.join(","));
        csv.push('\n');
    }
    csv
}

/// Per population (sample, run) and beta, every estimate of [`super::AnnealingEstimates`]
/// (the pair overlaps and the staggered moments where `measured`).
fn populations_csv(populations: &[Population], samples: u32, measured: Measured) -> String {
    let runs = populations.len() as u32 / samples;
    let mut csv = String::from(
        "sample,run,beta,population,e,c,abs_m,m2,m4,u4,ln_z,f,s,overlap,effective_population,\
         families,rho_t,rho_s",
    );
    if measured.overlaps {
        csv.push_str(",q2,q4,q2_kmin,ql");
    }
    if measured.staggered {
        csv.push_str(&format!(",{}", STAGGERED_COLUMNS.join(",")));
    }
    csv.push('\n');
    for (block, population) in populations.iter().enumerate() {
        let (sample, run) = (block as u32 / runs, block as u32 % runs);
        for a in &population.estimates {
            let values = [
                a.beta,
                a.e,
                a.c,
                a.abs_m,
                a.m2,
                a.m4,
                a.u4,
                a.ln_z,
                a.f,
                a.s,
                a.overlap,
                a.effective_population,
            ];
            let mut row = vec![sample.to_string(), run.to_string()];
            row.extend(values[..1].iter().map(f64::to_string));
            row.push(a.population.to_string());
            row.extend(values[1..].iter().map(f64::to_string));
            row.extend([
                a.families.to_string(),
                a.rho_t.to_string(),
                a.rho_s.to_string(),
            ]);
            if measured.overlaps {
                let pairs = a.pairs;
                row.extend([pairs.q2, pairs.q4, pairs.q2_kmin, pairs.ql].map(|x| x.to_string()));
            }
            if measured.staggered {
                let s = a.staggered;
                row.extend([s.abs_m, s.m2, s.m4, s.u4].map(|x| x.to_string()));
            }
            csv.push_str(&row.join(","));
            csv.push('\n');
        }
    }
    csv
}
