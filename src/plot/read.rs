//! Reading a run directory back for `spinflip plot`: `summary.json` (of an Ising or a
//! vector-spin run), the `thermalization_*.csv` and `timeseries_*.csv` files and, of
//! `final_state.npy`, only the lattice of each temperature that is drawn; or a population
//! anneal's `annealing.json`, all its figure is drawn from.

use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

use super::{EnergyCounts, Lattices, RunEstimates, RunRecord, TemperatureSeries, vector_abs_m};
use crate::annealing::{ANNEALING_JSON, AnnealingSummary};
use crate::engine::SpinBits;
use crate::error::{Error, Result};
use crate::io::output::{
    legacy_temperature_tag, npy_f32_header, npy_i8_header, npy_u8_header, temperature_file,
    unpack_rows,
};
use crate::io::run_dir::FINAL_STATE;
use crate::io::run_dir::SUMMARY;
use crate::metropolis::Summary;
use crate::vector::VectorSummary;

/// Bytes read for the `.npy` header: [`crate::io::output::npy_i8`] pads it to 64, 128 for many
/// axes; NumPy's own headers stay below this too.
const NPY_HEADER_BYTES: usize = 4096;
/// The field that only a vector-spin run's summary has.
const VECTOR_ONLY_FIELD: &str = "updates_per_ns";

/// `dir/annealing.json` if `dir` holds a finished population anneal (and no run of sweeps).
pub fn read_annealing(dir: &Path) -> Result<Option<AnnealingSummary>> {
    let path = dir.join(ANNEALING_JSON);
    if dir.join(SUMMARY).exists() || !path.exists() {
        return Ok(None);
    }
    let text = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
    let summary = serde_json::from_slice(&text).map_err(|e| {
        Error::Usage(format!(
            "{}: not a spinflip population anneal: {e}",
            path.display()
        ))
    })?;
    Ok(Some(summary))
}

/// `dir/summary.json`, as its figures show it.
pub fn read_estimates(dir: &Path) -> Result<RunEstimates> {
    read_summary(dir).map(|(estimates, _)| estimates)
}

/// `dir/summary.json` as its figures show it, and whether its run was of vector spins.
fn read_summary(dir: &Path) -> Result<(RunEstimates, bool)> {
    let path = dir.join(SUMMARY);
    if !path.exists() && dir.join(ANNEALING_JSON).exists() {
        return Err(Error::Usage(format!(
            "plot: {} holds a population anneal: `spinflip plot` redraws its figure alone, \
             overlays only runs of sweeps",
            dir.display()
        )));
    }
    let text = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
    let bad = |kind: &str, e: serde_json::Error| {
        Error::Usage(format!("{}: not a spinflip {kind}: {e}", path.display()))
    };
    let fields: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&text).map_err(|e| bad("summary", e))?;
    if fields.contains_key(VECTOR_ONLY_FIELD) {
        let summary: VectorSummary =
            serde_json::from_slice(&text).map_err(|e| bad("vector-spin summary", e))?;
        return Ok((RunEstimates::from(&summary), true));
    }
    let summary: Summary = serde_json::from_slice(&text).map_err(|e| bad("summary", e))?;
    Ok((RunEstimates::from(&summary), false))
}

/// Everything the plots of the run in `dir` are drawn from.
pub fn read_run(dir: &Path) -> Result<RunRecord> {
    let (estimates, vector_spins) = read_summary(dir)?;
    let legacy_tags = estimates
        .betas
        .iter()
        .enumerate()
        .map(|(t, &beta)| legacy_temperature_tag(t, beta));
    let series = estimates
        .tags()
        .into_iter()
        .zip(legacy_tags)
        .map(|(tag, legacy)| {
            let file = |kind: &str| series_file(dir, kind, &tag, &legacy);
            let production = read_series(&file("timeseries"), &estimates)?;
            // Runs before thermalisation was measured have no such file.
            let thermalization = file("thermalization");
            match thermalization.exists() {
                true => Ok(read_series(&thermalization, &estimates)?.followed_by(production)),
                false => Ok(production),
            }
        })
        .collect::<Result<Vec<_>>>()?;
    let path = dir.join(FINAL_STATE);
    let lattices = match vector_spins {
        true => read_vector_lattices(&path, &estimates)?,
        false => Lattices::Ising(read_lattices(&path, &estimates)?),
    };
    let histograms = (estimates.tags().iter())
        .map(|tag| dir.join(temperature_file("energy_histogram", tag, "csv")))
        .filter(|path| path.exists())
        .map(|path| read_histogram(&path))
        .collect::<Result<Vec<_>>>()?;
    Ok(RunRecord {
        estimates,
        series,
        lattices,
        histograms,
    })
}

/// An `energy_histogram_*.csv` (`E,e,count`) as its figure draws it: `(e, count)`.
fn read_histogram(path: &Path) -> Result<EnergyCounts> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let bad = |line: &str| {
        Error::Usage(format!(
            "{}: not an energy histogram (E,e,count): {line:?}",
            path.display()
        ))
    };
    let row = |line: &str| {
        let fields: Vec<&str> = line.split(',').collect();
        match fields[..] {
            [_, e, count] => Some((e.parse().ok()?, count.parse().ok()?)),
            _ => None,
        }
    };
    (text.lines().skip(1))
        .map(|line| row(line).ok_or_else(|| bad(line)))
        .collect()
}

/// The CSV of `kind` of one temperature in `dir`: named by its short `tag`, or, in a directory
/// written before the short tags, by its `legacy` one (the new name where neither exists, for
/// the error).
fn series_file(dir: &Path, kind: &str, tag: &str, legacy: &str) -> PathBuf {
    let short = dir.join(temperature_file(kind, tag, "csv"));
    let old = dir.join(temperature_file(kind, legacy, "csv"));
    match !short.exists() && old.exists() {
        true => old,
        false => short,
    }
}

/// Where a time series holds the magnetisation.
enum MagnetisationColumns {
    /// `M`, an Ising lattice's total.
    Total(usize),
    /// `mx, my[, mz]`, a vector magnetisation per site, or the `m` of discrete states.
    PerSite(Vec<usize>),
}

/// A time-series CSV (`measurement, sweep, [sample,] replica, E, M, e, m` of Ising spins,
/// `measurement, sweep, [sample,] replica, E, e, mx, my[, mz]` of vector spins, `..., E, e, m`
/// of discrete states; rows by
/// measurement, then sample and replica) as what its figure shows. A row belongs to the
/// measurement of its sweep: the `measurement` column is not read, as vector runs' thermalisation
/// files numbered every row 0 until they counted their measurements as the Ising ones do.
fn read_series(path: &Path, run: &RunEstimates) -> Result<TemperatureSeries> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let bad = |line: usize, what: &str| Error::Usage(format!("{}:{line}: {what}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let column = |name: &str| header.iter().position(|&h| h == name);
    let magnetisation = match column("M") {
        Some(total) => MagnetisationColumns::Total(total),
        None => MagnetisationColumns::PerSite(
            ["mx", "my", "mz", "m"]
                .iter()
                .filter_map(|c| column(c))
                .collect(),
        ),
    };
    let (Some(sweep), Some(replica), Some(energy)) =
        (column("sweep"), column("replica"), column("E"))
    else {
        return Err(bad(1, "not a spinflip time series"));
    };
    if matches!(&magnetisation, MagnetisationColumns::PerSite(c) if c.is_empty()) {
        return Err(bad(1, "not a spinflip time series"));
    }
    let sample = column("sample");
    let replicas = run.run.replicas as usize;
    let systems = run.run.samples as usize * replicas;
    let n = run.sites() as f64;
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        let fields: Vec<&str> = line.split(',').collect();
        let number = |c: usize| fields.get(c).and_then(|f| f.parse::<f64>().ok());
        let index = |c: usize| fields.get(c).and_then(|f| f.parse::<usize>().ok());
        let system = match sample {
            Some(s) => index(s).zip(index(replica)).map(|(s, r)| s * replicas + r),
            None => index(replica),
        };
        let abs_m = match &magnetisation {
            MagnetisationColumns::Total(c) => number(*c).map(|m| m.abs() / n),
            MagnetisationColumns::PerSite(columns) => {
                let m: Option<Vec<f64>> = columns.iter().map(|&c| number(c)).collect();
                m.map(|m| vector_abs_m(&m))
            }
        };
        let row = (
            system.filter(|&s| s < systems),
            fields.get(sweep).and_then(|f| f.parse::<u64>().ok()),
            number(energy),
            abs_m,
        );
        let (Some(system), Some(at), Some(e), Some(abs_m)) = row else {
            return Err(bad(i + 2, "a row that does not fit the summary"));
        };
        rows.push((i + 2, system, at, e / n, abs_m));
    }
    let sweeps = rows
        .iter()
        .filter(|row| row.1 == 0)
        .map(|row| row.2)
        .collect();
    let mut series = TemperatureSeries::new(sweeps, systems);
    for (line, system, at, energy, abs_m) in rows {
        let Ok(m) = series.sweeps.binary_search(&at) else {
            return Err(bad(line, "a measurement without the first system's row"));
        };
        series.add(system, m, energy, abs_m);
    }
    Ok(series)
}

/// Of `final_state.npy`, `(temperatures, [samples,] replicas, [L,] L, L)` as int8 or with the
/// last axis packed (`ceil(L/8)` bytes), the lattice of replica 0 of sample 0 of each
/// temperature, read without loading the rest.
fn read_lattices(path: &Path, run: &RunEstimates) -> Result<Vec<SpinBits>> {
    let (mut file, head) = open_npy(path)?;
    let expected = lattices_shape(run, run.spin_glass);
    let l = run.run.size as usize;
    let mut packed_shape = expected.clone();
    *packed_shape.last_mut().expect("lattices have an x axis") = l.div_ceil(8);
    let (offset, shape, packed) = match (npy_i8_header(&head), npy_u8_header(&head)) {
        (Some((shape, offset)), _) if shape == expected => (offset, shape, false),
        (_, Some((shape, offset))) if shape == packed_shape => (offset, shape, true),
        (int8, packed) => {
            return Err(Error::Usage(format!(
                "{}: expected int8 lattices of shape {expected:?} or packed ones of shape \
                 {packed_shape:?}, found {:?}",
                path.display(),
                int8.or(packed).map(|(shape, _)| shape)
            )));
        }
    };
    let lattice_bytes: usize = shape[shape.len() - run.run.dims as usize..]
        .iter()
        .product();
    let per_temperature: usize = shape[1..].iter().product();
    (0..run.betas.len())
        .map(|t| {
            let lattice = read_at(&mut file, path, offset + t * per_temperature, lattice_bytes)?;
            Ok(match packed {
                true => unpack_rows(&lattice, l),
                false => {
                    let signs: Vec<i32> = lattice.iter().map(|&b| i32::from(b as i8)).collect();
                    SpinBits::from_signs(1, signs.len() as u64, &signs)
                }
            })
        })
        .collect()
}

/// Of `final_state.npy` of vector spins, float32 of shape
/// `(temperatures, [samples,] replicas, [L,] L, L, n)`, the lattice of replica 0 of sample 0 of
/// each temperature, read without loading the rest.
fn read_vector_lattices(path: &Path, run: &RunEstimates) -> Result<Lattices> {
    let (mut file, head) = open_npy(path)?;
    let (shape, offset) = npy_f32_header(&head).ok_or_else(|| {
        Error::Usage(format!(
            "{}: not a float32 .npy of vector spins",
            path.display()
        ))
    })?;
    // A glass's lattices have a samples axis, a ferromagnet's not: the rank tells which.
    let mut expected = lattices_shape(run, shape.len() == run.run.dims as usize + 4);
    let components = shape.last().copied().unwrap_or_default();
    expected.push(components);
    if shape != expected || !(1..=3).contains(&components) {
        return Err(Error::Usage(format!(
            "{}: expected float32 vector spins of shape {expected:?} with 1 (discrete states) to \
             3 components, found {shape:?}",
            path.display()
        )));
    }
    let values = run.sites() * components;
    let per_temperature: usize = shape[1..].iter().product();
    let lattices = (0..run.betas.len())
        .map(|t| {
            let at = offset + 4 * t * per_temperature;
            let bytes = read_at(&mut file, path, at, 4 * values)?;
            let values = bytes.chunks_exact(4);
            Ok(values
                .map(|b| f32::from_le_bytes(b.try_into().expect("four bytes")))
                .collect())
        })
        .collect::<Result<Vec<Vec<f32>>>>()?;
    Ok(Lattices::Vector {
        components: components as u32,
        lattices,
    })
}

/// The `.npy` file at `path`, and its first bytes (the header and then some).
fn open_npy(path: &Path) -> Result<(File, Vec<u8>)> {
    let io = |e| Error::io(path, e);
    let mut file = File::open(path).map_err(io)?;
    let mut head = Vec::with_capacity(NPY_HEADER_BYTES);
    (&mut file)
        .take(NPY_HEADER_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    Ok((file, head))
}

/// `len` bytes of `file` (at `path`) from byte `at`.
fn read_at(file: &mut File, path: &Path, at: usize, len: usize) -> Result<Vec<u8>> {
    let mut bytes = vec![0u8; len];
    file.seek(SeekFrom::Start(at as u64))
        .and_then(|_| file.read_exact(&mut bytes))
        .map_err(|e| Error::io(path, e))?;
    Ok(bytes)
}

/// The axes of a run's final lattices, `(temperatures, [samples,] replicas, [L,] L, L)`.
fn lattices_shape(run: &RunEstimates, samples_axis: bool) -> Vec<usize> {
    let mut shape = vec![run.betas.len()];
    if samples_axis {
        shape.push(run.run.samples as usize);
    }
    shape.push(run.run.replicas as usize);
    shape.extend(vec![run.run.size as usize; run.run.dims as usize]);
    shape
}
