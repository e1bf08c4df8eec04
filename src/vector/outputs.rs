//! The files of a finished vector-spin run: per temperature the time series (thermalisation
//! and production), the final spins, the couplings of a spin glass, the empty sites of a diluted
//! model, a glass's overlap series and per-sample averages, and `summary.json`.

use std::fmt::Write as _;
use std::ops::Mul;
use std::path::Path;

use super::record::VectorRecord;
use super::summary::VectorSummary;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::io::output::{
    couplings_shape, temperature_file, temperature_tags, vacancies_shape, write_file, write_json,
    write_npy_f32, write_npy_f64, write_npy_i8, write_npy_u8,
};
use crate::io::run_dir::{COUPLINGS, FINAL_STATE, SUMMARY, VACANCIES};
use crate::model::boundaries::close_edges;
use crate::model::vector::fixed::to_f64;
use crate::model::vector::gaussian::coupling_value;
use crate::model::vector::states::{ENERGY_ONE, StateModel};
use crate::model::vector::{VectorCouplings, VectorSystems};
use crate::stats::{TensorGlassEstimates, VectorMeasurement};

/// Write every file of the run into `out`; `spins` are the final lattices, component-major.
pub(super) fn write_vector_outputs(
    out: &Path,
    systems: &VectorSystems,
    config: &Config,
    record: &VectorRecord,
    summary: &VectorSummary,
    spins: &[i32],
) -> Result<()> {
    let tags = temperature_tags(&systems.betas, summary.run.temperature_scale);
    let thermalization = summary.thermalization_measurements as usize;
    for (t, tag) in tags.iter().enumerate() {
        let (thermalizing, production) = series_csv(systems, config, record, t, thermalization);
        let name = |kind: &str| temperature_file(kind, tag, "csv");
        write_file(out, &name("timeseries"), production.as_bytes())?;
        write_file(out, &name("thermalization"), thermalizing.as_bytes())?;
        if systems.states.is_some() {
            let histogram = energy_histogram_csv(systems, record, t, thermalization);
            write_file(out, &name("energy_histogram"), histogram.as_bytes())?;
        }
        if let Some(glass) = summary.spin_glass.get(t) {
            let series = overlaps_csv(systems, config, record, t, thermalization);
            write_file(out, &name("overlaps"), series.as_bytes())?;
            write_file(out, &name("samples"), samples_csv(glass).as_bytes())?;
        }
    }
    write_final_spins(out, systems, spins)?;
    write_instance(out, systems)?;
    write_json(out, SUMMARY, summary)
}

/// The quenched disorder of `systems`: `couplings.npy` of a spin glass, `vacancies.npy` of a
/// diluted model.
pub(super) fn write_instance(out: &Path, systems: &VectorSystems) -> Result<()> {
    write_couplings(out, systems)?;
    write_vacancies(out, systems)
}

/// `vacancies.npy` of a diluted model, shape `(samples, [L,] L, L)`: `uint8` 1 on the empty
/// sites, 0 on the occupied ones; nothing where every site is occupied.
fn write_vacancies(out: &Path, systems: &VectorSystems) -> Result<()> {
    let Some(vacancies) = &systems.vacancies else {
        return Ok(());
    };
    let path = out.join(VACANCIES);
    let shape = vacancies_shape(&systems.lattice, systems.samples);
    let marks = vacancies.marks(&systems.lattice);
    write_npy_u8(&path, &shape, marks).map_err(|e| Error::io(path, e))
}

/// `couplings.npy` of a spin glass, shape `(samples, [L,] L, L, dims)`: `int8` +-1 of the
/// bimodal glass, `float64` of the Gaussian one (the fixed-point `J` the run used, exactly);
/// nothing for the ferromagnet. The bonds are the sample's before its edges were closed (the
/// signs across an antiperiodic edge as drawn, 0 across an open one), so that the file and the
/// config's `boundaries` give back the run's couplings.
fn write_couplings(out: &Path, systems: &VectorSystems) -> Result<()> {
    if systems.disorder.is_ferromagnet() {
        return Ok(());
    }
    let path = out.join(COUPLINGS);
    let shape = couplings_shape(&systems.lattice, systems.samples);
    match &systems.couplings {
        VectorCouplings::Uniform(_) => Ok(()),
        VectorCouplings::Bonds(bonds) => write_npy_i8(&path, &shape, reopened(systems, bonds)),
        VectorCouplings::Gaussian(words) => {
            let values = reopened(systems, words).map(coupling_value);
            write_npy_f64(&path, &shape, values)
        }
    }
    .map_err(|e| Error::io(path, e))
}

/// The couplings `samples` of `systems` as before their edges were closed, but 0 across an open
/// edge, a sample's after another: streamed, one sample reopened at a time (every sample's
/// couplings at once are gigabytes for a thousand samples of a large lattice).
fn reopened<'a, T>(
    systems: &'a VectorSystems,
    samples: &'a [Vec<T>],
) -> impl Iterator<Item = T> + 'a
where
    T: Copy + Mul<Output = T> + From<i8>,
{
    samples.iter().flat_map(|bonds| {
        let mut bonds = bonds.clone();
        close_edges(systems.boundaries, &systems.lattice, &mut bonds);
        bonds
    })
}

/// The thermalisation's and the production's CSV of temperature `t`: per measurement, sample
/// and replica the energy and the magnetisation's components; of an antiferromagnet on a
/// bipartite lattice also `|m_s|`, the staggered magnetisation's length per site.
fn series_csv(
    systems: &VectorSystems,
    config: &Config,
    record: &VectorRecord,
    t: usize,
    thermalization: usize,
) -> (String, String) {
    let disordered = systems.is_quenched();
    let n = systems.components as usize;
    let components = match systems.states {
        Some(_) => "m".to_string(),
        None => ["mx", "my", "mz"][..n].join(","),
    };
    let staggered = systems.is_bipartite_antiferromagnet();
    let staggered_column = if staggered { ",abs_ms" } else { "" };
    let sample_column = if disordered { "sample," } else { "" };
    let header =
        format!("measurement,sweep,{sample_column}replica,E,e,{components}{staggered_column}\n");
    let (mut thermalizing, mut production) = (header.clone(), header);
    let systems_count = systems.systems() as usize;
    let sites = systems.lattice.spins() as f64;
    for (m, slot) in record.measurements.chunks(systems_count).enumerate() {
        // Each file counts its own measurements from 0, as the Ising runs' do.
        let (csv, measurement) = match m < thermalization {
            true => (&mut thermalizing, m),
            false => (&mut production, m - thermalization),
        };
        let sweep = measurement_sweep(config.sweeps.every, m);
        for s in 0..systems.samples {
            for r in 0..systems.replicas {
                let x = &slot[systems.system(t as u32, s, r) as usize];
                let _ = write!(csv, "{measurement},{sweep},");
                if disordered {
                    let _ = write!(csv, "{s},");
                }
                let _ = write!(csv, "{r},{},{}", x.energy, x.energy / sites);
                for a in 0..n {
                    let _ = write!(csv, ",{}", x.m[a]);
                }
                if staggered {
                    let _ = write!(csv, ",{}", x.staggered_m2.sqrt());
                }
                csv.push('\n');
            }
        }
    }
    (thermalizing, production)
}

/// The exact histogram of the production's energies at temperature `t` of `measurements`
/// (measurement-major, the first `thermalization` measurements left out), every sample and
/// replica together: each energy measured (discrete states' energies are multiples of `2^-24`,
/// so equal energies are equal numbers), in increasing order, with its count; the double peak
/// of a first-order transition, and the input of reweighting.
pub(super) fn energy_histogram(
    systems: &VectorSystems,
    measurements: &[VectorMeasurement],
    t: usize,
    thermalization: usize,
) -> Vec<(f64, u64)> {
    let systems_count = systems.systems() as usize;
    let per_temperature = systems.systems_per_temperature() as usize;
    let mut counts = std::collections::BTreeMap::new();
    let production = measurements.chunks(systems_count).skip(thermalization);
    for slot in production {
        for x in &slot[t * per_temperature..(t + 1) * per_temperature] {
            *counts
                .entry((x.energy * ENERGY_ONE).round() as i64)
                .or_insert(0u64) += 1;
        }
    }
    (counts.into_iter())
        .map(|(units, count)| (units as f64 / ENERGY_ONE, count))
        .collect()
}

/// `energy_histogram_*.csv` of temperature `t`: [`energy_histogram`] with the energies per
/// site.
fn energy_histogram_csv(
    systems: &VectorSystems,
    record: &VectorRecord,
    t: usize,
    thermalization: usize,
) -> String {
    let sites = systems.lattice.spins() as f64;
    let mut csv = String::from("E,e,count\n");
    for (energy, count) in energy_histogram(systems, &record.measurements, t, thermalization) {
        let _ = writeln!(csv, "{energy},{},{count}", energy / sites);
    }
    csv
}

/// The production's overlaps of temperature `t`: per measurement, sample and replica pair
/// (pair `p` joins replicas `p` and `p + replicas/2`) `q2` and `q2_kmin` of the tensor overlap.
fn overlaps_csv(
    systems: &VectorSystems,
    config: &Config,
    record: &VectorRecord,
    t: usize,
    thermalization: usize,
) -> String {
    let mut csv = String::from("measurement,sweep,sample,pair,q2,q2_kmin\n");
    let (overlaps, pairs) = (systems.overlaps() as usize, systems.overlap_pairs());
    let production = record
        .overlaps
        .chunks(overlaps)
        .enumerate()
        .skip(thermalization);
    for (m, slot) in production {
        let sweep = measurement_sweep(config.sweeps.every, m);
        for s in 0..systems.samples {
            for p in 0..pairs {
                let k = systems.overlap(t as u32, s, p);
                let o = &slot[k as usize];
                let measurement = m - thermalization;
                let _ = writeln!(csv, "{measurement},{sweep},{s},{p},{},{}", o.q2, o.q2_kmin);
            }
        }
    }
    csv
}

/// Every sample's thermal averages of the overlaps at one temperature.
fn samples_csv(glass: &TensorGlassEstimates) -> String {
    let mut csv = String::from("sample,q2,q4,q2_kmin,measurements\n");
    for (s, a) in glass.per_sample.iter().enumerate() {
        let _ = writeln!(
            csv,
            "{s},{},{},{},{}",
            a.q2, a.q4, a.q2_kmin, a.measurements
        );
    }
    csv
}

/// `final_state.npy`: float32 of shape `(T, [S,] R, [L,] L, L, n)`, the components last
/// (discrete states: `n = 1`, each site's value: a Potts state, a Blume-Capel spin).
fn write_final_spins(out: &Path, systems: &VectorSystems, spins: &[i32]) -> Result<()> {
    let lattice = systems.lattice;
    let mut shape = vec![systems.betas.len()];
    if systems.is_quenched() {
        shape.push(systems.samples as usize);
    }
    shape.push(systems.replicas as usize);
    shape.extend(vec![lattice.size as usize; lattice.dims as usize]);
    shape.push(systems.components as usize);
    let n = systems.components;
    let values = (0..systems.systems()).flat_map(move |b| {
        (0..lattice.sites())
            .flat_map(move |i| (0..n).map(move |a| stored_component(systems, spins, b, a, i)))
    });
    let path = out.join(FINAL_STATE);
    write_npy_f32(&path, &shape, values).map_err(|e| Error::io(path, e))
}

/// Component `a` of site `i` of system `b` of the component-major `spins`, as
/// `final_state.npy` holds it: in units of 1, or a discrete state's value `s(a)` (the Potts
/// model's the state itself; NaN on an empty site).
pub(super) fn stored_component(
    systems: &VectorSystems,
    spins: &[i32],
    b: u32,
    a: u32,
    i: u64,
) -> f32 {
    let word = spins[systems.spin_index(b, a, i)];
    match &systems.states {
        Some(states) if word as u32 == states.vacancy() => f32::NAN,
        Some(states) if states.model != StateModel::Potts => states.value[word as usize] as f32,
        Some(_) => word as f32,
        None => to_f64(word) as f32,
    }
}

/// The sweep after which measurement `m` (counted from the run's first, thermalisation
/// included) was taken, measuring every `every` sweeps.
pub(super) fn measurement_sweep(every: u64, m: usize) -> u64 {
    (m as u64 + 1) * every
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Lattice;
    use crate::model::vector::states::States;
    use crate::stats::VectorMeasurement;

    /// The histogram counts the production's energies of one temperature's systems, each
    /// value once with its count, in increasing order; the thermalisation and the other
    /// temperature are left out.
    #[test]
    fn the_energy_histogram_counts_each_production_energy_of_its_temperature() {
        let systems = VectorSystems::uniform(Lattice::new(2, 2), 1, (1, 0.0), vec![0.5, 1.0], 2, 1)
            .with_states(States::potts(3, 0.0));
        let at = |energy: f64| VectorMeasurement {
            energy,
            ..VectorMeasurement::default()
        };
        // Slot-major: per measurement, temperature 0's two replicas, then temperature 1's.
        let energies = [
            [-1.0, -1.0, 9.0, 9.0],
            [-3.0, -1.0, 9.0, 9.0],
            [-1.0, -4.0, 7.0, 9.0],
        ];
        let record = VectorRecord {
            measurements: energies.iter().flatten().map(|&e| at(e)).collect(),
            ..VectorRecord::default()
        };
        let csv = energy_histogram_csv(&systems, &record, 0, 1);
        assert_eq!(csv, "E,e,count\n-4,-1,1\n-3,-0.75,1\n-1,-0.25,2\n");
    }
}
