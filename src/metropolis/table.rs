//! The summary as the terminal shows it.

use super::summary::Summary;
use crate::stats::{Estimate, verdict_lines};

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
    let pm = |e: &Estimate| format!("{:.7} ± {:.7}", e.mean, e.err);
    if !summary.spin_glass.is_empty() {
        let _ = writeln!(
            table,
            "{} samples; errors from the spread over samples\n{:>9} {:>24} {:>22} {:>20} {:>20} {:>20}",
            summary.run.samples,
            scale.name(),
            "e",
            "c",
            "q2",
            "g",
            "xi_L/L"
        );
        for t in &summary.spin_glass {
            let _ = writeln!(
                table,
                "{:>9.6} {:>24} {:>22} {:>20} {:>20} {:>20}",
                scale.value(t.beta),
                pm(&t.e),
                pm(&t.c),
                pm(&t.overlaps.q2),
                pm(&t.overlaps.g),
                pm(&t.overlaps.xi_over_l)
            );
        }
        return table;
    }
    let _ = writeln!(
        table,
        "{:>9} {:>24} {:>13} {:>22} {:>13} {:>20} {:>20} {:>8}",
        scale.name(),
        "e",
        "e exact",
        "c",
        "c exact",
        "|m|",
        "U4",
        "tau_e"
    );
    for run in &summary.runs {
        let est = &run.estimates;
        let (e_exact, c_exact) = run.exact.map_or(("-".to_string(), "-".to_string()), |x| {
            (format!("{:.8}", x.e), format!("{:.8}", x.c))
        });
        let _ = writeln!(
            table,
            "{:>9.6} {:>24} {:>13} {:>22} {:>13} {:>20} {:>20} {:>8.2}",
            scale.value(est.beta),
            pm(&est.e),
            e_exact,
            pm(&est.c),
            c_exact,
            pm(&est.abs_m),
            pm(&est.u4),
            est.tau_e
        );
    }
    let clustered = summary
        .runs
        .iter()
        .filter_map(|r| Some((r, r.clusters.as_ref()?)));
    for (k, (run, clusters)) in clustered.enumerate() {
        if k == 0 {
            let _ = writeln!(
                table,
                "improved estimators ({:?} cluster sizes):\n{:>9} {:>24} {:>24} {:>24} {:>8}",
                clusters.update,
                scale.name(),
                "m2 (direct)",
                "m2 (clusters)",
                "chi = beta N m2",
                "tau_size"
            );
        }
        let _ = writeln!(
            table,
            "{:>9.6} {:>24} {:>24} {:>24} {:>8.2}",
            scale.value(run.estimates.beta),
            pm(&run.estimates.m2),
            pm(&clusters.m2),
            pm(&clusters.chi),
            clusters.tau_size
        );
    }
    table
}
