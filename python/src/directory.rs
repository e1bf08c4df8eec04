//! A finished run directory as one dict of Python objects and NumPy arrays:
//!
//! - `"summary"`: `summary.json` (a run of sweeps) or `annealing.json` (an anneal), parsed;
//! - `"config"`: the resolved `config.ron`, as text;
//! - `"betas"` (runs of sweeps): the inverse temperatures, index `t` of the per-temperature lists;
//! - per-temperature CSV files (`<kind>_tNN_beta_B.csv`): `"<kind>"`, a list over `t` of tables;
//! - every other CSV file `<name>.csv`: `"<name>"`, a table;
//! - `"final_state"`: the final lattices as `int8` +-1, also where the file packs them (vector
//!   spins: their `float32` components);
//! - `"couplings"` (spin glass): `int8` +-1 of shape `(samples, [L,] L, L, dims)`; `float64`
//!   for the Gaussian vector glass.
//!
//! A table is a dict from column name to array ([`crate::tables`]). The keys follow the file
//! names, so each file the run wrote appears once, under its own name.

use std::collections::BTreeMap;
use std::path::Path;

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use spinflip::annealing::ANNEALING_JSON;
use spinflip::config::{Config, Disorder};
use spinflip::io::output::{legacy_temperature_tag, read_lattices_npy, read_npy, temperature_file};
use spinflip::io::run_dir::{CONFIG, COUPLINGS, FINAL_STATE, SUMMARY};
use spinflip::plot::{RunEstimates, read_estimates};

use crate::errors::{SpinflipError, to_py};
use crate::tables::read_table;

/// The run in `dir` (see the module's docs); its lattices only where `lattices` asks.
pub fn load(py: Python<'_>, dir: &Path, lattices: bool) -> PyResult<Py<PyDict>> {
    let result = PyDict::new(py);
    let summary_file = [SUMMARY, ANNEALING_JSON]
        .into_iter()
        .find(|name| dir.join(name).is_file())
        .ok_or_else(|| {
            SpinflipError::new_err(format!(
                "{}: no finished run here (neither {SUMMARY} nor {ANNEALING_JSON}; a stopped \
                 run writes them when it is resumed to its end)",
                dir.display()
            ))
        })?;
    result.set_item("summary", read_json(py, &dir.join(summary_file))?)?;
    let config_path = dir.join(CONFIG);
    let config = Config::from_path(&config_path).map_err(|e| to_py(e.into()))?;
    let config_text = std::fs::read_to_string(&config_path).map_err(io_error(&config_path))?;
    result.set_item("config", config_text)?;
    let suffixes = match summary_file == SUMMARY {
        true => {
            let run = read_estimates(dir).map_err(to_py)?;
            result.set_item("betas", PyArray1::from_slice(py, &run.betas))?;
            temperature_suffixes(dir, &run)
        }
        false => Vec::new(),
    };
    add_tables(py, dir, &suffixes, &result)?;
    if lattices && dir.join(FINAL_STATE).is_file() {
        result.set_item("final_state", final_state(py, dir, &config)?)?;
    }
    if dir.join(COUPLINGS).is_file() {
        result.set_item("couplings", couplings(py, dir, &config)?)?;
    }
    Ok(result.unbind())
}

/// The endings of the per-temperature CSV names of the run in `dir`: `_<tag>.csv` with each
/// temperature's short tag, or its tag before the short tags where the directory was written
/// by an earlier version.
fn temperature_suffixes(dir: &Path, run: &RunEstimates) -> Vec<String> {
    let legacy = run
        .betas
        .iter()
        .enumerate()
        .map(|(t, &beta)| legacy_temperature_tag(t, beta));
    run.tags()
        .into_iter()
        .zip(legacy)
        .map(|(short, legacy)| {
            let exists = |tag: &str| {
                dir.join(temperature_file("timeseries", tag, "csv"))
                    .exists()
            };
            let tag = match !exists(&short) && exists(&legacy) {
                true => legacy,
                false => short,
            };
            format!("_{tag}.csv")
        })
        .collect()
}

/// Every CSV file of `dir` into `result`: those whose names end in one of the per-temperature
/// `suffixes` (index `t`) as lists over `t` under the name before the suffix, the others under
/// their names.
fn add_tables(
    py: Python<'_>,
    dir: &Path,
    suffixes: &[String],
    result: &Bound<'_, PyDict>,
) -> PyResult<()> {
    let mut per_temperature: BTreeMap<String, Vec<Option<Bound<'_, PyDict>>>> = BTreeMap::new();
    for name in csv_files(dir)? {
        let table = read_table(py, &dir.join(&name))?;
        let of_temperature = suffixes
            .iter()
            .enumerate()
            .find_map(|(t, suffix)| name.strip_suffix(suffix.as_str()).map(|kind| (kind, t)));
        match of_temperature {
            Some((kind, t)) => {
                let tables = per_temperature
                    .entry(kind.to_string())
                    .or_insert_with(|| vec![None; suffixes.len()]);
                tables[t] = Some(table);
            }
            None => result.set_item(name.trim_end_matches(".csv"), table)?,
        }
    }
    for (kind, tables) in per_temperature {
        let tables = tables
            .into_iter()
            .enumerate()
            .map(|(t, table)| {
                table.ok_or_else(|| {
                    SpinflipError::new_err(format!(
                        "{}: no {kind}{} beside the other temperatures' files",
                        dir.display(),
                        suffixes[t]
                    ))
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        result.set_item(kind, PyList::new(py, tables)?)?;
    }
    Ok(())
}

/// The names of the CSV files in `dir`, sorted.
fn csv_files(dir: &Path) -> PyResult<Vec<String>> {
    let entries = std::fs::read_dir(dir).map_err(io_error(dir))?;
    let mut names = Vec::new();
    for entry in entries {
        let name = entry.map_err(io_error(dir))?.file_name();
        if let Some(name) = name.to_str().filter(|n| n.ends_with(".csv")) {
            names.push(name.to_string());
        }
    }
    names.sort();
    Ok(names)
}

/// The JSON file `path` as Python objects (Python's own parser: every float exactly as written).
fn read_json<'py>(py: Python<'py>, path: &Path) -> PyResult<Bound<'py, PyAny>> {
    let text = std::fs::read_to_string(path).map_err(io_error(path))?;
    py.import("json")?.call_method1("loads", (text,))
}

/// `values` as an `int8` array of `shape`.
/// `final_state.npy`: Ising spins as `int8` +-1 (also where the file packs them), vector spins
/// as their `float32` components.
fn final_state<'py>(py: Python<'py>, dir: &Path, config: &Config) -> PyResult<Bound<'py, PyAny>> {
    let path = dir.join(FINAL_STATE);
    if config.model.is_vector() {
        let (shape, components) = read_npy::<f32>(&path).map_err(to_py)?;
        return Ok(PyArray1::from_vec(py, components)
            .reshape(shape)?
            .into_any());
    }
    let size = config.model.size() as usize;
    let (shape, spins) = read_lattices_npy(&path, size).map_err(to_py)?;
    int8_array(py, spins, &shape)
}

/// `couplings.npy`: `int8` +-1, or `float64` for a Gaussian vector glass.
fn couplings<'py>(py: Python<'py>, dir: &Path, config: &Config) -> PyResult<Bound<'py, PyAny>> {
    let path = dir.join(COUPLINGS);
    match config.model.disorder() {
        Disorder::Gaussian => {
            let (shape, couplings) = read_npy::<f64>(&path).map_err(to_py)?;
            Ok(PyArray1::from_vec(py, couplings).reshape(shape)?.into_any())
        }
        Disorder::Bimodal | Disorder::Ferromagnet => {
            let (shape, couplings) = read_npy::<i8>(&path).map_err(to_py)?;
            int8_array(py, couplings, &shape)
        }
    }
}

fn int8_array<'py>(
    py: Python<'py>,
    values: Vec<i8>,
    shape: &[usize],
) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyArray1::from_vec(py, values).reshape(shape)?.into_any())
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> PyErr + '_ {
    move |e| SpinflipError::new_err(format!("{}: {e}", path.display()))
}
