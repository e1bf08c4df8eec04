//! Plots and snapshots of a run, drawn from its data: SVG figures of the summary's estimates
//! versus temperature (the ferromagnet's e, c, |m|, chi, U4 versus beta with Kaufman's exact e and
//! c in 2D zero field; the spin glass's e, q^2, g, chi_SG, xi_L/L versus T; vector spins' e, |m|,
//! U4, xi/L and the XY helicity modulus versus beta, a vector glass's e, q^2, g, xi_L/L versus
//! T), the E and |M| time series of every temperature, PNG snapshots of the final lattices, and
//! overlays of runs of one model at several sizes for finite-size crossings; population
//! annealing's e, c and ln Z per site versus beta with Kaufman's exact values where they exist.
//!
//! A run hands its data to [`write_run_plots`] or [`write_vector_plots`]; `spinflip plot`
//! reads a run directory back ([`read_run`]) and draws the same files with [`write_plots`], or
//! overlays several ([`write_overlays`]). Every file is written atomically.

mod figures;
mod glyphs;
mod read;
mod snapshot;
mod svg;

use std::path::{Path, PathBuf};

pub use figures::{
    Curve, EnergyCounts, Figure, Measured, Panel, Point, RunEstimates, Style, annealing_figure,
    energy_histogram_figure, is_run_figure, observable_figures, overlay_figures, timeseries_figure,
};
pub use read::{read_annealing, read_estimates, read_run};
pub use snapshot::{KEY_HEIGHT, snapshot_png, states_snapshot_png, vector_snapshot_png};

use crate::annealing::AnnealingSummary;
use crate::atomic::ensure_writable_dir;
use crate::engine::SpinBits;
use crate::error::{Error, Result};
use crate::io::output::{temperature_file, write_file};
use crate::metropolis::Summary;
use crate::stats::SampleSeries;
use crate::vector::VectorFinished;

/// What the time-series figure of one temperature shows, per measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct TemperatureSeries {
    /// The sweep of each measurement, as in the time-series files.
    pub sweeps: Vec<u64>,
    /// Systems of the temperature: samples times replicas.
    pub systems: usize,
    /// The first system: replica 0 of sample 0.
    pub first: Trace,
    /// The mean over all systems.
    pub mean: Trace,
}

/// `E/N` and `|M|/N` per measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    pub energy: Vec<f64>,
    pub abs_m: Vec<f64>,
}

impl TemperatureSeries {
    /// Zeros for measurements taken after `sweeps`, to [`add`](Self::add) `systems` systems to.
    pub fn new(sweeps: Vec<u64>, systems: usize) -> Self {
        let zeros = Trace {
            energy: vec![0.0; sweeps.len()],
            abs_m: vec![0.0; sweeps.len()],
        };
        TemperatureSeries {
            sweeps,
            systems,
            first: zeros.clone(),
            mean: zeros,
        }
    }

    /// Measurement `m` of system `system` (sample-major, then replica): `E/N` and `|M|/N`.
    /// Systems are added in order, so the mean's sums are the same from a run and from its files.
    pub fn add(&mut self, system: usize, m: usize, energy: f64, abs_m: f64) {
        if system == 0 {
            self.first.energy[m] = energy;
            self.first.abs_m[m] = abs_m;
        }
        let systems = self.systems as f64;
        self.mean.energy[m] += energy / systems;
        self.mean.abs_m[m] += abs_m / systems;
    }

    /// This series followed by `later` (the thermalisation, then the production run).
    pub fn followed_by(mut self, later: TemperatureSeries) -> Self {
        self.sweeps.extend(later.sweeps);
        for (trace, more) in [(&mut self.first, later.first), (&mut self.mean, later.mean)] {
            trace.energy.extend(more.energy);
            trace.abs_m.extend(more.abs_m);
        }
        self
    }
}

/// Everything the plots of one run are drawn from, as [`read_run`] reads it from its files.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    pub estimates: RunEstimates,
    /// Per temperature, in run order.
    pub series: Vec<TemperatureSeries>,
    pub lattices: Lattices,
    /// Per temperature, a discrete model's energy histogram (`energy_histogram_*.csv`); empty
    /// for other runs.
    pub histograms: Vec<EnergyCounts>,
}

/// Per temperature, the final lattice of replica 0 (of sample 0): one system of `size^dims`
/// sites.
#[derive(Debug, Clone, PartialEq)]
pub enum Lattices {
    Ising(Vec<SpinBits>),
    /// Each site's `components` values in a row, as in `final_state.npy` (one: a discrete
    /// state's value).
    Vector {
        components: u32,
        lattices: Vec<Vec<f32>>,
    },
}

impl RunRecord {
    /// The PNG snapshot of temperature `t`.
    fn snapshot(&self, t: usize) -> Result<Vec<u8>> {
        let lattice = self.estimates.run.lattice();
        match &self.lattices {
            Lattices::Ising(lattices) => snapshot_png(|site| lattices[t].up(0, site), lattice),
            Lattices::Vector {
                components,
                lattices,
            } => {
                let n = *components as usize;
                if n == 1 {
                    return states_snapshot_png(|site| lattices[t][site as usize], lattice);
                }
                let spin = |site: u64| {
                    let values = &lattices[t][site as usize * n..][..n];
                    let mut spin = [0.0; 3];
                    spin[..n].copy_from_slice(values);
                    spin
                };
                vector_snapshot_png(spin, *components, lattice)
            }
        }
    }
}

/// The plots and snapshots of a run that has just finished: `series[t][s]` are the measurement
/// series of temperature `t` and sample `s`, measurement `m` was taken after sweep `sweep_of(m)`,
/// `spins` are the final lattices (system-major, temperature-major: `final_state.npy`'s order).
pub fn write_run_plots(
    out: &Path,
    summary: &Summary,
    series: &[Vec<SampleSeries>],
    sweep_of: impl Fn(usize) -> u64,
    spins: &SpinBits,
) -> Result<()> {
    let run = RunEstimates::from(summary);
    let sites = run.sites();
    let series: Vec<TemperatureSeries> = series
        .iter()
        .map(|samples| temperature_series(samples, sites, &sweep_of))
        .collect();
    let per_temperature = spins.systems() / series.len().max(1) as u32;
    let lattice = run.run.lattice();
    write_plots(out, &run, &series, |t| {
        let system = t as u32 * per_temperature;
        snapshot_png(|site| spins.up(system, site), lattice)
    })
}

/// The plots and snapshots of a vector-spin run that has just finished.
pub fn write_vector_plots(out: &Path, finished: &VectorFinished) -> Result<()> {
    let run = RunEstimates::from(&finished.summary);
    let sites = run.sites() as f64;
    let (components, systems) = (finished.components(), finished.systems_per_temperature());
    let sweeps: Vec<u64> = (0..finished.measurements())
        .map(|m| finished.sweep_of(m))
        .collect();
    let series: Vec<TemperatureSeries> = (0..run.betas.len())
        .map(|t| {
            let mut series = TemperatureSeries::new(sweeps.clone(), systems);
            for m in 0..sweeps.len() {
                for k in 0..systems {
                    let x = finished.measurement(m, t, k);
                    let abs_m = vector_abs_m(&x.m[..components as usize]);
                    series.add(k, m, x.energy / sites, abs_m);
                }
            }
            series
        })
        .collect();
    let lattice = run.run.lattice();
    write_plots(out, &run, &series, |t| {
        let spin = |site| finished.first_system_spin(t, site);
        match components {
            1 => states_snapshot_png(|site| spin(site)[0], lattice),
            _ => vector_snapshot_png(spin, components, lattice),
        }
    })?;
    if components > 1 {
        return Ok(());
    }
    let histograms: Vec<EnergyCounts> = (0..run.betas.len())
        .map(|t| finished.energy_histogram(t))
        .collect();
    write_figure(out, &energy_histogram_figure(&run, &histograms))
}

/// `|m|` of a vector magnetisation per site, from its components.
fn vector_abs_m(m: &[f64]) -> f64 {
    m.iter().map(|a| a * a).sum::<f64>().sqrt()
}

fn temperature_series(
    samples: &[SampleSeries],
    sites: usize,
    sweep_of: impl Fn(usize) -> u64,
) -> TemperatureSeries {
    let n = sites as f64;
    let measurements = samples
        .first()
        .and_then(|s| s.energies.first())
        .map_or(0, Vec::len);
    let systems = samples.iter().map(|s| s.energies.len()).sum();
    let mut series = TemperatureSeries::new((0..measurements).map(sweep_of).collect(), systems);
    let every_system = samples
        .iter()
        .flat_map(|s| s.energies.iter().zip(&s.magnetisations));
    for (system, (energies, magnetisations)) in every_system.enumerate() {
        for (m, (energy, magnetisation)) in energies.iter().zip(magnetisations).enumerate() {
            series.add(system, m, energy / n, magnetisation.abs() as f64 / n);
        }
    }
    series
}

/// Write every figure of `run`, and the snapshot of each temperature `t` (the PNG
/// `snapshot(t)`), into `out`.
pub fn write_plots(
    out: &Path,
    run: &RunEstimates,
    series: &[TemperatureSeries],
    snapshot: impl Fn(usize) -> Result<Vec<u8>>,
) -> Result<()> {
    let timeseries = series
        .iter()
        .enumerate()
        .map(|(t, series)| timeseries_figure(run, t, series));
    for figure in observable_figures(run).into_iter().chain(timeseries) {
        write_figure(out, &figure)?;
    }
    for (t, tag) in run.tags().iter().enumerate() {
        write_file(
            out,
            &temperature_file("snapshot", tag, "png"),
            &snapshot(t)?,
        )?;
    }
    Ok(())
}

/// Write the overlays of runs of one model at several sizes into `out`; `names` name the runs
/// (their directories) where two share L.
pub fn write_overlays(out: &Path, runs: &[RunEstimates], names: &[String]) -> Result<()> {
    for figure in overlay_figures(runs, names) {
        write_figure(out, &figure)?;
    }
    Ok(())
}

/// Write population annealing's figure (e, c, ln Z / N versus beta) into `out`.
pub fn write_annealing_plot(out: &Path, summary: &AnnealingSummary) -> Result<()> {
    write_figure(out, &figures::annealing_figure(summary))
}

fn write_figure(out: &Path, figure: &Figure) -> Result<()> {
    write_file(out, &figure.file, svg::render(figure)?.as_bytes())
}

/// `spinflip plot`: one directory's plots redrawn from its files (a population anneal's
/// `annealing.svg` from its `annealing.json`), or the overlays of several runs of one model;
/// into `out`, by default the first directory. Returns where they went.
pub fn redraw(dirs: &[PathBuf], out: Option<&Path>) -> Result<PathBuf> {
    let first = dirs
        .first()
        .ok_or_else(|| Error::Usage("plot: name at least one run directory".to_string()))?;
    for dir in dirs {
        if !dir.is_dir() {
            return Err(Error::Usage(format!(
                "plot: {} is not a directory",
                dir.display()
            )));
        }
    }
    let out = out.unwrap_or(first).to_path_buf();
    if let [only] = dirs {
        if let Some(anneal) = read_annealing(only)? {
            ensure_writable_dir(&out).map_err(|e| Error::Usage(e.to_string()))?;
            write_annealing_plot(&out, &anneal)?;
            return Ok(out);
        }
        let record = read_run(only)?;
        ensure_writable_dir(&out).map_err(|e| Error::Usage(e.to_string()))?;
        let snapshot = |t| record.snapshot(t);
        write_plots(&out, &record.estimates, &record.series, snapshot)?;
        if !record.histograms.is_empty() {
            write_figure(
                &out,
                &energy_histogram_figure(&record.estimates, &record.histograms),
            )?;
        }
        return Ok(out);
    }
    let summaries = dirs
        .iter()
        .map(|dir| read_estimates(dir))
        .collect::<Result<Vec<_>>>()?;
    for (dir, summary) in dirs.iter().zip(&summaries).skip(1) {
        if summary.run.model != summaries[0].run.model {
            return Err(Error::Usage(format!(
                "plot: cannot overlay runs of different models: {} in {}, {} in {}",
                summaries[0].run.model,
                first.display(),
                summary.run.model,
                dir.display()
            )));
        }
    }
    ensure_writable_dir(&out).map_err(|e| Error::Usage(e.to_string()))?;
    let names: Vec<String> = dirs
        .iter()
        .map(|dir| dir.components().as_path().display().to_string())
        .collect();
    write_overlays(&out, &summaries, &names)?;
    Ok(out)
}
