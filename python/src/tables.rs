//! The CSV files of a run directory as columns: a dict from each column's name to a NumPy array,
//! `int64` where every value of the column is an integer, else `float64` (NaN and inf as Rust
//! writes them), in the file's order (what `pandas.DataFrame(table)` takes).

use std::path::Path;

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::SpinflipError;

/// One column of a table, typed.
pub enum Column {
    Integers(Vec<i64>),
    Floats(Vec<f64>),
}

/// The columns of the CSV text `text` of the file `path` (named in errors), by header name.
pub fn parse_csv(path: &Path, text: &str) -> PyResult<Vec<(String, Column)>> {
    let bad = |line: usize, what: String| {
        SpinflipError::new_err(format!("{}:{line}: {what}", path.display()))
    };
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let mut fields: Vec<Vec<&str>> = vec![Vec::new(); header.len()];
    for (i, line) in lines.enumerate() {
        let row: Vec<&str> = line.split(',').collect();
        if row.len() != header.len() {
            let found = row.len();
            return Err(bad(
                i + 2,
                format!("{found} fields, the header has {}", header.len()),
            ));
        }
        for (column, field) in fields.iter_mut().zip(row) {
            column.push(field);
        }
    }
    header
        .iter()
        .zip(fields)
        .map(|(name, values)| {
            let column = typed(&values).map_err(|(row, value)| {
                bad(row + 2, format!("{name}: {value:?} is not a number"))
            })?;
            Ok((name.to_string(), column))
        })
        .collect()
}

/// The values of a column as integers where every one is, else as floats; the row of the first
/// value that is neither.
fn typed(values: &[&str]) -> Result<Column, (usize, String)> {
    if let Ok(integers) = values.iter().map(|v| v.parse::<i64>()).collect() {
        return Ok(Column::Integers(integers));
    }
    values
        .iter()
        .enumerate()
        .map(|(row, v)| v.parse::<f64>().map_err(|_| (row, v.to_string())))
        .collect::<Result<_, _>>()
        .map(Column::Floats)
}

/// The CSV file `path` as a dict of NumPy columns.
pub fn read_table<'py>(py: Python<'py>, path: &Path) -> PyResult<Bound<'py, PyDict>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| SpinflipError::new_err(format!("{}: {e}", path.display())))?;
    let table = PyDict::new(py);
    for (name, column) in parse_csv(path, &text)? {
        match column {
            Column::Integers(values) => table.set_item(name, PyArray1::from_vec(py, values))?,
            Column::Floats(values) => table.set_item(name, PyArray1::from_vec(py, values))?,
        }
    }
    Ok(table)
}
