//! The summary as the terminal shows it.

use super::summary::Summary;
use crate::cluster::estimators::improved_table;
use crate::stats::{estimate_cell, no_overlaps_line, table_heading, table_row, verdict_lines};

/// A table of the summary for the terminal: estimates with errors, and exact values where known.
pub fn summary_table(summary: &Summary) -> String {
    use std::fmt::Write as _;
    let mut table = format!(
        "{} L={} on {} ({}, {}), {:.3} flips/ns\n",
        summary.run.model,
        summary.run.size,
        summary.run.adapter,
        summary.run.backend,
        summary.run.engine,
        summary.flips_per_ns,
    );
    table.push_str(&verdict_lines(
        &summary.equilibration,
        &summary.warnings,
        summary.run.temperature_scale,
    ));
    if let Some(t) = &summary.tempering {
        let (low, high) = t
            .acceptance
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(l, h), &a| (l.min(a), h.max(a)));
        let _ = writeln!(
            table,
            "tempering: a swap round every {} sweeps, {} rounds; swap acceptance {:.3}..{:.3} \
             over {} pairs; {} round trips{}",
            t.every,
            t.rounds,
            low,
            high,
            t.acceptance.len(),
            t.round_trips,
            t.sweeps_per_round_trip
                .map_or(String::new(), |s| format!(" ({s:.0} sweeps each)"))
        );
    }
    let scale = summary.run.temperature_scale;
    if !summary.spin_glass.is_empty() {
        let _ = writeln!(
            table,
            "{} samples; errors from the spread over samples",
            summary.run.samples
        );
        // One replica has no overlaps: their columns would be NaN.
        let overlaps = summary.run.replicas >= 2;
        let columns: &[(&str, usize)] = match overlaps {
            true => &[("e", 24), ("c", 22), ("q2", 20), ("g", 20), ("xi_L/L", 20)],
            false => &[("e", 24), ("c", 22)],
        };
        table += &table_heading(scale, columns);
        for t in &summary.spin_glass {
            let all = [
                &t.e,
                &t.c,
                &t.overlaps.q2,
                &t.overlaps.g,
                &t.overlaps.xi_over_l,
            ];
            let cells = all
                .iter()
                .zip(columns)
                .map(|(e, &(_, width))| (estimate_cell(e), width));
            table += &table_row(scale, t.beta, cells);
        }
        if !overlaps {
            table += &no_overlaps_line("q2, g, xi_L/L");
        }
        return table;
    }
    let (m, u4) = match summary.staggered {
        true => ("|m_s|", "U4_s"),
        false => ("|m|", "U4"),
    };
    if summary.staggered {
        table += "m_s: the staggered magnetisation, sum_i (-1)^(x+y+z) s_i / N\n";
    }
    table += &table_heading(
        scale,
        &[
            ("e", 24),
            ("e exact", 13),
            ("c", 22),
            ("c exact", 13),
            (m, 20),
            (u4, 20),
            ("tau_e", 8),
        ],
    );
    for run in &summary.runs {
        let est = &run.estimates;
        let (e_exact, c_exact) = run.exact.map_or(("-".to_string(), "-".to_string()), |x| {
            (format!("{:.8}", x.e), format!("{:.8}", x.c))
        });
        let cells = [
            (estimate_cell(&est.e), 24),
            (e_exact, 13),
            (estimate_cell(&est.c), 22),
            (c_exact, 13),
            (estimate_cell(&est.abs_m), 20),
            (estimate_cell(&est.u4), 20),
            (format!("{:.2}", est.tau_e), 8),
        ];
        table += &table_row(scale, est.beta, cells);
    }
    let clustered = (summary.runs.iter())
        .filter_map(|r| Some((r.estimates.beta, &r.estimates.m2, r.clusters.as_ref()?)));
    table += &improved_table(scale, "", clustered);
    table
}
