//! Reading a run directory back for `spinflip plot`: `summary.json`, the `thermalization_*.csv`
//! and `timeseries_*.csv`
//! files and, of `final_state.npy`, only the lattice of each temperature that is drawn.

use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

use super::{RunRecord, TemperatureSeries, betas, is_spin_glass, sites, tags};
use crate::engine::SpinBits;
use crate::error::{Error, Result};
use crate::io::output::{
    legacy_temperature_tag, npy_i8_header, npy_u8_header, temperature_file, unpack_rows,
};
use crate::io::run_dir::FINAL_STATE;
use crate::io::run_dir::SUMMARY;
use crate::metropolis::Summary;

/// Bytes read for the `.npy` header: [`crate::io::output::npy_i8`] pads it to 64, 128 for many
/// axes; NumPy's own headers stay below this too.
const NPY_HEADER_BYTES: usize = 4096;

/// `dir/summary.json`.
pub fn read_summary(dir: &Path) -> Result<Summary> {
    let path = dir.join(SUMMARY);
    let text = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
    serde_json::from_slice(&text)
        .map_err(|e| Error::Usage(format!("{}: not a spinflip summary: {e}", path.display())))
}

/// Everything the plots of the run in `dir` are drawn from.
pub fn read_run(dir: &Path) -> Result<RunRecord> {
    let summary = read_summary(dir)?;
    let legacy_tags = betas(&summary)
        .into_iter()
        .enumerate()
        .map(|(t, beta)| legacy_temperature_tag(t, beta));
    let series = tags(&summary)
        .into_iter()
        .zip(legacy_tags)
        .map(|(tag, legacy)| {
            let file = |kind: &str| series_file(dir, kind, &tag, &legacy);
            let production = read_series(&file("timeseries"), &summary)?;
            // Runs before thermalisation was measured have no such file.
            let thermalization = file("thermalization");
            match thermalization.exists() {
                true => Ok(read_series(&thermalization, &summary)?.followed_by(production)),
                false => Ok(production),
            }
        })
        .collect::<Result<Vec<_>>>()?;
    let lattices = read_lattices(&dir.join(FINAL_STATE), &summary)?;
    Ok(RunRecord {
        summary,
        series,
        lattices,
    })
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

/// A time-series CSV (`measurement, sweep, [sample,] replica, E, M, e, m`; rows by measurement,
/// then sample and replica) as what its figure shows.
fn read_series(path: &Path, summary: &Summary) -> Result<TemperatureSeries> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let bad = |line: usize, what: &str| Error::Usage(format!("{}:{line}: {what}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let column = |name: &str| header.iter().position(|&h| h == name);
    let (Some(measurement), Some(sweep), Some(replica), Some(energy), Some(magnetisation)) = (
        column("measurement"),
        column("sweep"),
        column("replica"),
        column("E"),
        column("M"),
    ) else {
        return Err(bad(1, "not a spinflip time series"));
    };
    let sample = column("sample");
    let replicas = summary.run.replicas as usize;
    let systems = summary.run.samples as usize * replicas;
    let n = sites(summary) as f64;
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        let fields: Vec<&str> = line.split(',').collect();
        let number = |c: usize| fields.get(c).and_then(|f| f.parse::<f64>().ok());
        let index = |c: usize| fields.get(c).and_then(|f| f.parse::<usize>().ok());
        let system = match sample {
            Some(s) => index(s).zip(index(replica)).map(|(s, r)| s * replicas + r),
            None => index(replica),
        };
        let row = (
            index(measurement),
            system.filter(|&s| s < systems),
            fields.get(sweep).and_then(|f| f.parse::<u64>().ok()),
            number(energy),
            number(magnetisation),
        );
        let (Some(m), Some(system), Some(at), Some(e), Some(magnetisation)) = row else {
            return Err(bad(i + 2, "a row that does not fit the summary"));
        };
        rows.push((i + 2, m, system, at, e / n, magnetisation.abs() / n));
    }
    let sweeps = rows
        .iter()
        .filter(|row| row.2 == 0)
        .map(|row| row.3)
        .collect();
    let mut series = TemperatureSeries::new(sweeps, systems);
    for (line, m, system, _, energy, abs_m) in rows {
        if m >= series.sweeps.len() {
            return Err(bad(line, "a measurement without the first system's row"));
        }
        series.add(system, m, energy, abs_m);
    }
    Ok(series)
}

/// Of `final_state.npy`, `(temperatures, [samples,] replicas, [L,] L, L)` as int8 or with the
/// last axis packed (`ceil(L/8)` bytes), the lattice of replica 0 of sample 0 of each
/// temperature, read without loading the rest.
fn read_lattices(path: &Path, summary: &Summary) -> Result<Vec<SpinBits>> {
    let io = |e| Error::io(path, e);
    let mut file = File::open(path).map_err(io)?;
    let mut head = Vec::with_capacity(NPY_HEADER_BYTES);
    (&mut file)
        .take(NPY_HEADER_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    let temperatures = betas(summary).len();
    let mut expected = vec![temperatures];
    if is_spin_glass(summary) {
        expected.push(summary.run.samples as usize);
    }
    expected.push(summary.run.replicas as usize);
    expected.extend(vec![summary.run.size as usize; summary.run.dims as usize]);
    let l = summary.run.size as usize;
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
    let lattice_bytes: usize = shape[shape.len() - summary.run.dims as usize..]
        .iter()
        .product();
    let per_temperature: usize = shape[1..].iter().product();
    (0..temperatures)
        .map(|t| {
            let at = (offset + t * per_temperature) as u64;
            let mut lattice = vec![0u8; lattice_bytes];
            file.seek(SeekFrom::Start(at))
                .and_then(|_| file.read_exact(&mut lattice))
                .map_err(io)?;
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
