//! Result files a physicist loads directly: CSV time series, `summary.json`, and the final
//! lattices as a NumPy `.npy` array. Every file is written atomically.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::atomic::write_atomic;
use crate::error::{Error, Result};

/// Write `bytes` to `dir/name` atomically, naming the file in any error.
pub fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let path = dir.join(name);
    write_atomic(&path, bytes).map_err(|e| Error::io(path, e))
}

/// Pretty JSON of `value` to `dir/name`.
pub fn write_json(dir: &Path, name: &str, value: &impl Serialize) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::State(format!("serialising {name}: {e}")))?;
    text.push('\n');
    write_file(dir, name, text.as_bytes())
}

/// The part of a per-temperature file name after its kind: temperature `t` (its index, two
/// digits) at inverse temperature `beta`, e.g. `t01_beta_0.44.csv`.
pub fn temperature_suffix(t: usize, beta: f64, extension: &str) -> String {
    format!("t{t:02}_beta_{beta}.{extension}")
}

/// One row of a temperature's time series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeriesRow {
    pub measurement: u64,
    pub sweep: u64,
    /// The disorder sample (a column only for disordered models).
    pub sample: Option<u32>,
    pub replica: u32,
    pub energy: f64,
    pub magnetisation: i64,
}

/// CSV text of a time series with per-site columns for convenience.
pub fn series_csv(rows: &[SeriesRow], sites: u64) -> String {
    let with_samples = rows.first().is_some_and(|r| r.sample.is_some());
    let mut csv = String::from(if with_samples {
        "measurement,sweep,sample,replica,E,M,e,m\n"
    } else {
        "measurement,sweep,replica,E,M,e,m\n"
    });
    let n = sites as f64;
    for r in rows {
        let _ = write!(csv, "{},{},", r.measurement, r.sweep);
        if let Some(sample) = r.sample {
            let _ = write!(csv, "{sample},");
        }
        let _ = writeln!(
            csv,
            "{},{},{},{},{}",
            r.replica,
            r.energy,
            r.magnetisation,
            r.energy / n,
            r.magnetisation as f64 / n
        );
    }
    csv
}

/// One row of a temperature's overlap series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OverlapRow {
    pub measurement: u64,
    pub sweep: u64,
    pub sample: u32,
    /// Pair `p` joins replicas `p` and `p + replicas/2`.
    pub pair: u32,
    pub q: f64,
    pub q2_kmin: f64,
    /// The link overlap `q_l`.
    pub q_link: f64,
}

/// CSV text of an overlap series: `q`, `|q(k_min)|^2` and `q_l` per measurement, sample and pair.
pub fn overlaps_csv(rows: &[OverlapRow]) -> String {
    let mut csv = String::from("measurement,sweep,sample,pair,q,q2_kmin,q_link\n");
    for r in rows {
        let _ = writeln!(
            csv,
            "{},{},{},{},{},{},{}",
            r.measurement, r.sweep, r.sample, r.pair, r.q, r.q2_kmin, r.q_link
        );
    }
    csv
}

/// CSV text of per-sample thermal averages.
pub fn samples_csv(samples: &[crate::stats::SampleAverages]) -> String {
    let mut csv = String::from("sample,e,c,abs_m,q2,q4,q2_kmin,ql,measurements\n");
    for (s, a) in samples.iter().enumerate() {
        let _ = writeln!(
            csv,
            "{s},{},{},{},{},{},{},{},{}",
            a.e, a.c, a.abs_m, a.q2, a.q4, a.q2_kmin, a.ql, a.measurements
        );
    }
    csv
}

/// A NumPy version-1.0 `.npy` file of `int8` values with the given C-order shape.
pub fn npy_i8(shape: &[usize], values: impl Iterator<Item = i8>) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let shape_text = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let mut header = format!("{{'descr': '|i1', 'fortran_order': False, 'shape': {shape_text}, }}");
    // Magic (6) + version (2) + length (2) + header + '\n' is padded to a multiple of 64.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend(values.map(|v| v as u8));
    bytes
}

/// The shape of an `int8` `.npy` file as [`npy_i8`] writes it, and the offset of its data, from
/// the file's first bytes (at least the whole header); `None` for anything else.
pub fn npy_i8_header(bytes: &[u8]) -> Option<(Vec<usize>, usize)> {
    let magic = bytes.get(..8)?;
    if magic != b"\x93NUMPY\x01\x00" {
        return None;
    }
    let header_len = u16::from_le_bytes([*bytes.get(8)?, *bytes.get(9)?]) as usize;
    let header = std::str::from_utf8(bytes.get(10..10 + header_len)?).ok()?;
    if !header.contains("'descr': '|i1'") || !header.contains("'fortran_order': False") {
        return None;
    }
    let (_, after) = header.split_once("'shape': (")?;
    let (dims, _) = after.split_once(')')?;
    let shape = dims
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.parse().ok())
        .collect::<Option<Vec<usize>>>()?;
    Some((shape, 10 + header_len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_header_is_aligned_and_describes_the_data() {
        let bytes = npy_i8(&[2, 2, 2], [1i8, -1, 1, -1, 1, 1, -1, -1].into_iter());
        let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + header_len) % 64, 0);
        let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
        assert!(header.contains("'shape': (2, 2, 2)"));
        assert_eq!(bytes.len(), 10 + header_len + 8);
        assert_eq!(bytes[10 + header_len + 1], 0xff);
    }

    #[test]
    fn npy_header_reads_back_shape_and_offset() {
        for shape in [vec![3], vec![2, 1, 4, 4], vec![1, 32, 2, 6, 6, 6]] {
            let count = shape.iter().product();
            let bytes = npy_i8(&shape, std::iter::repeat_n(1i8, count));
            let (read, offset) = npy_i8_header(&bytes).unwrap();
            assert_eq!(read, shape);
            assert_eq!(bytes.len() - offset, count);
        }
        assert_eq!(npy_i8_header(b"\x93NUMPY\x01\x00"), None, "truncated");
        let mut float = npy_i8(&[2], [1i8, 1].into_iter());
        float[20..24].copy_from_slice(b"'<f8");
        assert_eq!(npy_i8_header(&float), None, "another dtype");
    }

    #[test]
    fn csv_has_per_site_columns() {
        let rows = [SeriesRow {
            measurement: 0,
            sweep: 10,
            sample: None,
            replica: 1,
            energy: -8.0,
            magnetisation: 4,
        }];
        let csv = series_csv(&rows, 4);
        assert_eq!(csv.lines().nth(1), Some("0,10,1,-8,4,-2,1"));
    }
}
