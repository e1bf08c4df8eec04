//! The files of a finished run besides the summary's figures: per temperature the time series
//! (thermalisation and production) and, for the spin glass, the overlaps and the per-sample
//! estimates; the final lattices, the couplings, and `summary.json`.

use std::path::Path;

use super::Schedule;
use super::series::RunSeries;
use super::summary::Summary;
use crate::config::Disorder;
use crate::config::FinalState;
use crate::engine::SpinBits;
use crate::error::{Error, Result};
use crate::io::output::{
    OverlapRow, SeriesRow, overlaps_csv, samples_csv, series_csv, temperature_file,
    temperature_tags, write_couplings_npy, write_file, write_json, write_lattices_npy,
};
use crate::io::run_dir::{COUPLINGS, FINAL_STATE, SUMMARY};
use crate::model::ising::IsingSystems;
use crate::model::lattices::is_kagome_hole;
use crate::stats::SampleSeries;

/// The CSV rows of one temperature's series (every sample and replica, measurement-major) and
/// of its overlaps; measurement `m` followed sweep `sweep_of(m)`.
fn series_rows(
    samples: &[SampleSeries],
    disordered: bool,
    sweep_of: impl Fn(usize) -> u64,
) -> (Vec<SeriesRow>, Vec<OverlapRow>) {
    let mut rows = Vec::new();
    let mut overlap_rows = Vec::new();
    for m in 0..samples[0].energies[0].len() {
        for (s, sample) in samples.iter().enumerate() {
            for (r, (energies, magnetisations)) in sample
                .energies
                .iter()
                .zip(&sample.magnetisations)
                .enumerate()
            {
                rows.push(SeriesRow {
                    measurement: m as u64,
                    sweep: sweep_of(m),
                    sample: disordered.then_some(s as u32),
                    replica: r as u32,
                    energy: energies[m],
                    magnetisation: magnetisations[m],
                });
            }
            for (p, ((q, kmin), links)) in sample
                .overlaps
                .iter()
                .zip(&sample.overlaps_kmin)
                .zip(&sample.link_overlaps)
                .enumerate()
            {
                overlap_rows.push(OverlapRow {
                    measurement: m as u64,
                    sweep: sweep_of(m),
                    sample: s as u32,
                    pair: p as u32,
                    q: q[m],
                    q2_kmin: kmin[m],
                    q_link: links[m],
                });
            }
        }
    }
    (rows, overlap_rows)
}

/// Write the series of every temperature, the final lattices `spins` (as `final_state` asks),
/// the couplings of a spin glass and `summary.json` into `out`.
pub(super) fn write_outputs(
    out: &Path,
    systems: &IsingSystems,
    schedule: &Schedule,
    series: &RunSeries,
    spins: &SpinBits,
    summary: &Summary,
    final_state: FinalState,
) -> Result<()> {
    let disordered = systems.disorder == Disorder::Bimodal;
    let sweep_of = |m: usize| schedule.sweep_of_measurement(m as u64) + 1;
    let sites = systems.lattice.spins();
    let thermalizing = series.thermalizing();
    let tags = temperature_tags(&systems.betas, summary.run.temperature_scale);
    for (t, (tag, samples)) in tags.iter().zip(&series.production).enumerate() {
        let after = |m: usize| sweep_of(m + series.thermalization);
        let (rows, overlap_rows) = series_rows(samples, disordered, after);
        let (thermalization_rows, _) = series_rows(&thermalizing[t], disordered, sweep_of);
        let name = |kind: &str| temperature_file(kind, tag, "csv");
        write_file(
            out,
            &name("timeseries"),
            series_csv(&rows, sites, summary.staggered).as_bytes(),
        )?;
        write_file(
            out,
            &name("thermalization"),
            series_csv(&thermalization_rows, sites, summary.staggered).as_bytes(),
        )?;
        if disordered {
            write_file(
                out,
                &name("overlaps"),
                overlaps_csv(&overlap_rows).as_bytes(),
            )?;
            let per_sample = &summary.spin_glass[t].per_sample;
            write_file(out, &name("samples"), samples_csv(per_sample).as_bytes())?;
        }
    }
    let lattice = systems.lattice;
    let lattice_shape = vec![lattice.size as usize; lattice.dims as usize];
    let mut shape = vec![systems.betas.len()];
    if disordered {
        shape.push(systems.samples as usize);
    }
    shape.push(systems.replicas as usize);
    shape.extend(&lattice_shape);
    let path = out.join(FINAL_STATE);
    let sites = lattice.sites();
    let hole = |i: u64| is_kagome_hole(&lattice, i % sites);
    let form = (
        final_state.packed(spins.len()),
        &hole as &(dyn Fn(u64) -> bool + Sync),
    );
    write_lattices_npy(&path, &shape, spins, form).map_err(|e| Error::io(path, e))?;
    write_couplings_npy(&out.join(COUPLINGS), systems)?;
    write_json(out, SUMMARY, summary)
}
