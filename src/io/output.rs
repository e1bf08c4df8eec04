//! Result files a physicist loads directly: CSV time series, `summary.json`, and the final
//! lattices as a NumPy `.npy` array. Every file is written atomically.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use std::io::Write as _;

use rayon::prelude::*;

use crate::atomic::{write_atomic, write_atomic_with};
use crate::config::{Disorder, TemperatureScale};
use crate::engine::SpinBits;
use crate::error::{Error, Result};
use crate::model::Lattice;
use crate::model::boundaries::clear_open_seams;
use crate::model::couplings::coupling_signs_of;
use crate::model::ising::IsingSystems;

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

/// Decimals of a temperature's tag in each scale before more are added to tell two apart.
const TAG_DECIMALS_T: usize = 3;
const TAG_DECIMALS_BETA: usize = 4;
/// Beyond this many decimals the tags stop growing (only values that are not distinct, which
/// validation refuses, get there).
const TAG_MAX_DECIMALS: usize = 40;

/// Per temperature of a run with inverse temperatures `betas`, the tag in the names of its
/// files: the index (two digits) and the value in the scale the config gave, rounded to
/// [`TAG_DECIMALS_T`] or [`TAG_DECIMALS_BETA`] decimals, or more where two would share a tag
/// (all with as many): `t01_T0.950`, `t02_beta0.4407`. The exact values are in the files and
/// the summary.
pub fn temperature_tags(betas: &[f64], scale: TemperatureScale) -> Vec<String> {
    let values: Vec<f64> = betas.iter().map(|&beta| scale.value(beta)).collect();
    let first = match scale {
        TemperatureScale::T => TAG_DECIMALS_T,
        TemperatureScale::Beta => TAG_DECIMALS_BETA,
    };
    let rounded = |decimals: usize| -> Vec<String> {
        values.iter().map(|v| format!("{v:.decimals$}")).collect()
    };
    let distinct = |texts: &[String]| {
        let mut sorted = texts.to_vec();
        sorted.sort();
        sorted.windows(2).all(|pair| pair[0] != pair[1])
    };
    let decimals = (first..TAG_MAX_DECIMALS)
        .find(|&d| distinct(&rounded(d)))
        .unwrap_or(TAG_MAX_DECIMALS);
    rounded(decimals)
        .into_iter()
        .enumerate()
        .map(|(t, value)| format!("t{t:02}_{}{value}", scale.name()))
        .collect()
}

/// The tag of temperature `t` in the file names of spinflip 0.1 before the short tags: the
/// index and the full inverse temperature, `t01_beta_1.053509181272703`. Only readers of old
/// run directories use it.
pub fn legacy_temperature_tag(t: usize, beta: f64) -> String {
    format!("t{t:02}_beta_{beta}")
}

/// The name of a per-temperature file: its kind, the temperature's tag, the extension
/// (`timeseries_t01_T0.950.csv`).
pub fn temperature_file(kind: &str, tag: &str, extension: &str) -> String {
    format!("{kind}_{tag}.{extension}")
}

/// Whether `name` is a per-temperature file ([`temperature_file`], or a legacy tag's):
/// `{kind}_tNN_T{value}` or `{kind}_tNN_beta{value}`.
pub fn is_temperature_file(name: &str) -> bool {
    name.match_indices("_t").any(|(i, _)| {
        let rest = &name[i + 2..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        digits >= 2 && (rest[digits..].starts_with("_T") || rest[digits..].starts_with("_beta"))
    })
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

/// CSV text of a time series with per-site columns for convenience; where `staggered`, the
/// magnetisation is the staggered one (columns `M_s`, `m_s`).
pub fn series_csv(rows: &[SeriesRow], sites: u64, staggered: bool) -> String {
    let with_samples = rows.first().is_some_and(|r| r.sample.is_some());
    let mut csv = String::from(if with_samples {
        "measurement,sweep,sample,replica,E,M,e,m\n"
    } else {
        "measurement,sweep,replica,E,M,e,m\n"
    });
    if staggered {
        csv = csv.replace(",M,e,m", ",M_s,e,m_s");
    }
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

/// Write a NumPy version-1.0 `.npy` file of `int8` `values` with the C-order `shape` to
/// `path` atomically, streamed through a buffer: a large array (the couplings of many samples)
/// is never held in memory.
pub fn write_npy_i8(
    path: &Path,
    shape: &[usize],
    values: impl Iterator<Item = i8>,
) -> std::io::Result<()> {
    write_npy_bytes(path, (INT8, shape), values.map(i8::to_le_bytes))
}

/// Write a NumPy `.npy` file of little-endian `float32` `values` with the C-order `shape` to
/// `path` atomically, streamed through a buffer (the final vector spins).
pub fn write_npy_f32(
    path: &Path,
    shape: &[usize],
    values: impl Iterator<Item = f32>,
) -> std::io::Result<()> {
    write_npy_bytes(path, (FLOAT32, shape), values.map(f32::to_le_bytes))
}

/// Write a NumPy `.npy` file of little-endian `float64` `values` with the C-order `shape` to
/// `path` atomically, streamed through a buffer (a Gaussian glass's couplings).
pub fn write_npy_f64(
    path: &Path,
    shape: &[usize],
    values: impl Iterator<Item = f64>,
) -> std::io::Result<()> {
    write_npy_bytes(path, (FLOAT64, shape), values.map(f64::to_le_bytes))
}

/// Write a `.npy` file of the `.npy` type `dtype` and C-order `shape` whose values have the
/// little-endian bytes `values`.
fn write_npy_bytes<const N: usize>(
    path: &Path,
    (dtype, shape): (&str, &[usize]),
    values: impl Iterator<Item = [u8; N]>,
) -> std::io::Result<()> {
    write_atomic_with(path, |file| {
        let mut out = std::io::BufWriter::new(file);
        out.write_all(&npy_header(dtype, shape))?;
        for value in values {
            out.write_all(&value)?;
        }
        out.flush()
    })
}

/// The `.npy` types of little-endian `float32` and `float64` values.
const FLOAT32: &str = "<f4";
const FLOAT64: &str = "<f8";

/// The `.npy` type of `int8` and of `uint8` values.
const INT8: &str = "|i1";
const UINT8: &str = "|u1";

/// A type of the values of the `.npy` files spinflip reads, one reader for them all.
pub trait NpyValue: Sized {
    /// Its `descr` in an `.npy` header.
    const DESCR: &'static str;
    /// Its NumPy dtype, as messages name it.
    const DTYPE: &'static str;
    /// The value of its little-endian bytes (`size_of::<Self>()` of them).
    fn from_le_slice(bytes: &[u8]) -> Self;
}

/// [`NpyValue`] for number types, with their `descr` and dtype.
macro_rules! npy_value {
    ($($type:ty: $descr:expr, $dtype:literal;)*) => {$(
        impl NpyValue for $type {
            const DESCR: &'static str = $descr;
            const DTYPE: &'static str = $dtype;
            fn from_le_slice(bytes: &[u8]) -> Self {
                <$type>::from_le_bytes(bytes.try_into().expect("one value's bytes"))
            }
        }
    )*};
}

npy_value! {
    i8: INT8, "int8";
    u8: UINT8, "uint8";
    f32: FLOAT32, "float32";
    f64: FLOAT64, "float64";
}

/// Bytes of `final_state.npy` prepared at a time while it is streamed to disk (4 MiB).
const NPY_CHUNK_BYTES: usize = 1 << 22;

/// `couplings.npy` of a spin glass at `path` (a run's `COUPLINGS`): `int8` +-1 of shape
/// `(samples, [L,] L, L, dims)`, the bond from each site to its `+d` neighbour (0 at the
/// honeycomb's gaps, as the vector engine writes them); nothing for the ferromagnet. Every
/// algorithm writes it, so that an instance can be shared and reused.
pub fn write_couplings_npy(path: &Path, systems: &IsingSystems) -> Result<()> {
    if systems.disorder == Disorder::Ferromagnet {
        return Ok(());
    }
    let (lattice, boundaries) = (systems.lattice, systems.boundaries);
    let shape = couplings_shape(&lattice, systems.samples);
    // 0 across an open edge, as the vector engines' couplings.npy has it.
    let couplings = (0..systems.samples).flat_map(|s| {
        let bits = systems.sample_bonds(systems.global_sample(s));
        let mut signs = coupling_signs_of(&lattice, &bits);
        clear_open_seams(boundaries, &lattice, &mut signs);
        signs
    });
    // Streamed: all samples' bonds as int8 are 6 GiB for 1024 samples of a 128^3 lattice.
    write_npy_i8(path, &shape, couplings).map_err(|e| Error::io(path, e))
}

/// The shape of `couplings.npy` for `samples` samples of `lattice`:
/// `(samples, [L,] L, L, directions)` (the triangular lattice's third direction its diagonal).
pub fn couplings_shape(lattice: &Lattice, samples: u32) -> Vec<usize> {
    let mut shape = vacancies_shape(lattice, samples);
    shape.push(lattice.directions() as usize);
    shape
}

/// The shape of `vacancies.npy` for `samples` samples of `lattice`: `(samples, [L,] L, L)`.
pub fn vacancies_shape(lattice: &Lattice, samples: u32) -> Vec<usize> {
    let mut shape = vec![samples as usize];
    shape.extend(vec![lattice.size as usize; lattice.dims as usize]);
    shape
}

/// Write a NumPy `.npy` file of `uint8` `values` with the C-order `shape` to `path`
/// atomically (a diluted model's empty sites).
pub fn write_npy_u8(
    path: &Path,
    shape: &[usize],
    values: impl Iterator<Item = u8>,
) -> std::io::Result<()> {
    write_npy_bytes(path, (UINT8, shape), values.map(u8::to_le_bytes))
}

/// Write the lattices `spins` (whose last axis, x, has `shape[-1]` sites) to `path` atomically
/// as a `.npy` array, streamed in chunks of rows (never a whole expanded copy in memory):
/// - `packed` false: `int8` +1/-1 of shape `shape`, 0 at the spins `empty` names (their index
///   in `spins`: the kagome lattice's holes);
/// - `packed` true: `uint8` of shape `shape` with the last axis `ceil(L/8)` bytes: each x-row
///   of `L` spins as bits, the first spin in the most significant bit of its byte (1 = up), the
///   row's last byte padded with zero bits: the layout `numpy.unpackbits(a, axis=-1, count=L)`
///   reverses.
pub fn write_lattices_npy(
    path: &Path,
    shape: &[usize],
    spins: &SpinBits,
    (packed, empty): (bool, &(dyn Fn(u64) -> bool + Sync)),
) -> std::io::Result<()> {
    let l = *shape.last().expect("lattices have an x axis");
    let rows = (spins.len() / l as u64) as usize;
    let row_bytes = if packed { l.div_ceil(8) } else { l };
    let mut file_shape = shape.to_vec();
    *file_shape.last_mut().expect("checked above") = row_bytes;
    let header = npy_header(if packed { UINT8 } else { INT8 }, &file_shape);
    let rows_per_chunk = (NPY_CHUNK_BYTES / row_bytes).max(1);
    write_atomic_with(path, |file| {
        let mut out = std::io::BufWriter::new(file);
        out.write_all(&header)?;
        let mut chunk = Vec::new();
        for first in (0..rows).step_by(rows_per_chunk) {
            let count = rows_per_chunk.min(rows - first);
            chunk.resize(count * row_bytes, 0);
            chunk
                .par_chunks_mut(row_bytes)
                .enumerate()
                .for_each(|(r, bytes)| {
                    let start = (first + r) as u64 * l as u64;
                    match packed {
                        true => packed_row(spins, start, l, bytes),
                        false => int8_row(spins, start, bytes, empty),
                    }
                });
            out.write_all(&chunk)?;
        }
        out.flush()
    })
}

/// The `L` spins from run bit `start` as `ceil(L/8)` bytes, most significant bit first.
fn packed_row(spins: &SpinBits, start: u64, l: usize, bytes: &mut [u8]) {
    for (c, out) in bytes.chunks_mut(8).enumerate() {
        let count = (l - 64 * c).min(64) as u32;
        let bits = spins.bits_at(start + 64 * c as u64, count).to_le_bytes();
        for (byte, bits) in out.iter_mut().zip(bits) {
            *byte = bits.reverse_bits();
        }
    }
}

/// The spins from run bit `start` as +1/-1 bytes.
fn int8_row(spins: &SpinBits, start: u64, bytes: &mut [u8], empty: &dyn Fn(u64) -> bool) {
    for (c, out) in bytes.chunks_mut(64).enumerate() {
        let first = start + 64 * c as u64;
        let bits = spins.bits_at(first, out.len() as u32);
        for (j, byte) in out.iter_mut().enumerate() {
            *byte = match (empty(first + j as u64), bits >> j & 1) {
                (true, _) => 0,
                (false, 1) => 1,
                (false, _) => (-1i8) as u8,
            };
        }
    }
}

/// The packed rows of a `uint8` lattice file (as [`write_lattices_npy`] writes them, each row
/// of `l` spins in `ceil(l/8)` bytes) as one lattice of bits.
pub fn unpack_rows(bytes: &[u8], l: usize) -> SpinBits {
    let row_bytes = l.div_ceil(8);
    let rows = bytes.len() / row_bytes;
    let mut spins = SpinBits::down(1, (rows * l) as u64);
    for (r, row) in bytes.chunks_exact(row_bytes).enumerate() {
        for x in 0..l {
            if row[x / 8] >> (7 - x % 8) & 1 == 1 {
                spins.set(0, (r * l + x) as u64, true);
            }
        }
    }
    spins
}

/// A `.npy` file of `T` values as spinflip writes it (`couplings.npy`, an `Int8`
/// `final_state.npy`), read whole: its C-order shape and values.
pub fn read_npy<T: NpyValue>(path: &Path) -> Result<(Vec<usize>, Vec<T>)> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let Some((shape, offset)) = npy_shape::<T>(&bytes) else {
        return Err(not_spinflip_npy(path, T::DTYPE));
    };
    let values = npy_data::<T>(path, &bytes[offset..], &shape)?;
    Ok((shape, values.collect()))
}

/// Lattices as [`write_lattices_npy`] writes them (`final_state.npy`), either form, read whole
/// as `int8` +1/-1: their C-order shape, whose last axis is the `l` sites along x also where the
/// file packs them into `ceil(l/8)` bytes, and their spins.
pub fn read_lattices_npy(path: &Path, l: usize) -> Result<(Vec<usize>, Vec<i8>)> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    if let Some((shape, offset)) = npy_shape::<i8>(&bytes) {
        let values = npy_data::<i8>(path, &bytes[offset..], &shape)?;
        return Ok((shape, values.collect()));
    }
    let Some((mut shape, offset)) = npy_shape::<u8>(&bytes) else {
        return Err(not_spinflip_npy(path, "int8 or packed uint8"));
    };
    if shape.last() != Some(&l.div_ceil(8)) {
        return Err(Error::Usage(format!(
            "{}: packed rows of {l} sites take {} bytes, found shape {shape:?}",
            path.display(),
            l.div_ceil(8)
        )));
    }
    let packed: Vec<u8> = npy_data::<u8>(path, &bytes[offset..], &shape)?.collect();
    *shape.last_mut().expect("checked above") = l;
    let spins = packed
        .chunks_exact(l.div_ceil(8))
        .flat_map(|row| {
            (0..l).map(move |x| {
                if row[x / 8] >> (7 - x % 8) & 1 == 1 {
                    1
                } else {
                    -1
                }
            })
        })
        .collect();
    Ok((shape, spins))
}

/// The values of the data `data` of an `.npy` file of `T` of `shape`, refused where its length
/// differs.
fn npy_data<'a, T: NpyValue>(
    path: &Path,
    data: &'a [u8],
    shape: &[usize],
) -> Result<impl ExactSizeIterator<Item = T> + use<'a, T>> {
    npy_values::<T>(data, shape).ok_or_else(|| {
        Error::Usage(format!(
            "{}: shape {shape:?} needs {} bytes of data, found {}",
            path.display(),
            npy_data_bytes::<T>(shape),
            data.len()
        ))
    })
}

/// The values of the data `data` (what follows the header) of an `.npy` file of `T` of the
/// C-order `shape`, one after another; `None` where `data` holds another number of bytes.
pub fn npy_values<'a, T: NpyValue>(
    data: &'a [u8],
    shape: &[usize],
) -> Option<impl ExactSizeIterator<Item = T> + use<'a, T>> {
    let values = data.chunks_exact(size_of::<T>()).map(T::from_le_slice);
    (data.len() == npy_data_bytes::<T>(shape)).then_some(values)
}

/// Bytes of the data of an `.npy` file of `T` of `shape`.
fn npy_data_bytes<T: NpyValue>(shape: &[usize]) -> usize {
    shape.iter().product::<usize>() * size_of::<T>()
}

fn not_spinflip_npy(path: &Path, what: &str) -> Error {
    Error::Usage(format!(
        "{}: not an {what} .npy file as spinflip writes it",
        path.display()
    ))
}

/// The `.npy` version-1.0 header of `descr` values with the C-order `shape`.
fn npy_header(descr: &str, shape: &[usize]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let shape_text = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}");
    // Magic (6) + version (2) + length (2) + header + '\n' is padded to a multiple of 64.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes
}

/// The shape of an `int8` `.npy` file as [`write_npy_i8`] writes it, and the offset of its data, from
/// the file's first bytes (at least the whole header); `None` for anything else.
pub fn npy_i8_header(bytes: &[u8]) -> Option<(Vec<usize>, usize)> {
    npy_shape::<i8>(bytes)
}

/// As [`npy_i8_header`], for the `uint8` file of packed lattices.
pub fn npy_u8_header(bytes: &[u8]) -> Option<(Vec<usize>, usize)> {
    npy_shape::<u8>(bytes)
}

/// As [`npy_i8_header`], for the `float32` file of vector spins.
pub fn npy_f32_header(bytes: &[u8]) -> Option<(Vec<usize>, usize)> {
    npy_shape::<f32>(bytes)
}

/// The shape of a NumPy version-1.0 `.npy` file of `T` values in C order, and the offset of
/// its data, from the file's first bytes (at least the whole header); `None` for anything else.
pub fn npy_shape<T: NpyValue>(bytes: &[u8]) -> Option<(Vec<usize>, usize)> {
    npy_header_of(bytes, T::DESCR)
}

/// The shape and data offset of an `.npy` file of `descr` values in C order.
fn npy_header_of(bytes: &[u8], descr: &str) -> Option<(Vec<usize>, usize)> {
    let magic = bytes.get(..8)?;
    if magic != b"\x93NUMPY\x01\x00" {
        return None;
    }
    let header_len = u16::from_le_bytes([*bytes.get(8)?, *bytes.get(9)?]) as usize;
    let header = std::str::from_utf8(bytes.get(10..10 + header_len)?).ok()?;
    if !header.contains(&format!("'descr': '{descr}'"))
        || !header.contains("'fortran_order': False")
    {
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
    fn temperature_files_are_told_by_their_tags() {
        let tags = temperature_tags(&[0.4, 1.0 / 0.95], TemperatureScale::T);
        for tag in tags
            .iter()
            .map(String::as_str)
            .chain([&*legacy_temperature_tag(3, 0.4)])
        {
            assert!(
                is_temperature_file(&temperature_file("timeseries", tag, "csv")),
                "{tag}"
            );
        }
        assert!(is_temperature_file("snapshot_t12_beta0.4407.png"));
        for other in [
            "summary.json",
            "plot_abs_m.svg",
            "my_t1_T0.5.csv",
            "data_t01.csv",
        ] {
            assert!(!is_temperature_file(other), "{other}");
        }
    }

    #[test]
    fn temperature_tags_are_short_in_the_scale_the_config_gave() {
        let betas = [0.4, 0.4406868, 0.48];
        assert_eq!(
            temperature_tags(&betas, TemperatureScale::Beta),
            ["t00_beta0.4000", "t01_beta0.4407", "t02_beta0.4800"]
        );
        let from_t = [0.9, 0.95, 1.2].map(|t: f64| 1.0 / t);
        assert_eq!(
            temperature_tags(&from_t, TemperatureScale::T),
            ["t00_T0.900", "t01_T0.950", "t02_T1.200"]
        );
        assert_eq!(
            temperature_file("timeseries", "t01_T0.950", "csv"),
            "timeseries_t01_T0.950.csv"
        );
    }

    #[test]
    fn temperature_tags_add_decimals_where_two_would_share_one() {
        let close = [1.0 / 0.95, 1.0 / 0.9501, 1.0 / 1.2];
        assert_eq!(
            temperature_tags(&close, TemperatureScale::T),
            ["t00_T0.9500", "t01_T0.9501", "t02_T1.2000"]
        );
        let betas = [0.44068, 0.440687, 0.5];
        assert_eq!(
            temperature_tags(&betas, TemperatureScale::Beta),
            ["t00_beta0.44068", "t01_beta0.44069", "t02_beta0.50000"]
        );
        assert_eq!(
            legacy_temperature_tag(1, 1.053509181272703),
            "t01_beta_1.053509181272703"
        );
    }

    /// The bytes [`write_npy_i8`] writes, built in memory.
    fn npy_i8(shape: &[usize], values: impl Iterator<Item = i8>) -> Vec<u8> {
        let mut bytes = npy_header(INT8, shape);
        bytes.extend(values.map(|v| v as u8));
        bytes
    }

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

    /// Every row of `L` spins in `ceil(L/8)` bytes, first spin in the top bit: numpy's
    /// `unpackbits` order, checked against bytes worked out by hand.
    #[test]
    fn packed_lattices_use_the_unpackbits_layout() {
        // Two rows of L = 10: up at x = 0, 2, 9 (row 0) and x = 1, 8 (row 1).
        let mut spins = SpinBits::down(1, 20);
        for site in [0, 2, 9, 11, 18] {
            spins.set(0, site, true);
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("final_state.npy");
        write_lattices_npy(&path, &[1, 2, 10], &spins, (true, &|_| false)).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let (shape, offset) = npy_u8_header(&bytes).unwrap();
        assert_eq!(shape, [1, 2, 2], "10 spins a row take 2 bytes");
        // Row 0: 1010_0000 0100_0000; row 1: 0100_0000 1000_0000.
        assert_eq!(
            bytes[offset..],
            [0b1010_0000, 0b0100_0000, 0b0100_0000, 0b1000_0000]
        );
        assert_eq!(unpack_rows(&bytes[offset..], 10), spins);
        write_npy_i8(&path, &[2], [1i8, -1].into_iter()).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(
            bytes,
            npy_i8(&[2], [1i8, -1].into_iter()),
            "streamed as built"
        );
        write_lattices_npy(&path, &[2, 10], &spins, (false, &|_| false)).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let (shape, offset) = npy_i8_header(&bytes).unwrap();
        assert_eq!(shape, [2, 10]);
        let expected: Vec<u8> = (0..20)
            .map(|i| if spins.up(0, i) { 1 } else { 0xff })
            .collect();
        assert_eq!(bytes[offset..], expected);
    }

    /// Rows of several 64-bit words, streamed in more than one chunk, read back the same.
    #[test]
    fn packed_lattices_of_long_rows_round_trip() {
        let l: usize = 200;
        let rows = NPY_CHUNK_BYTES / l.div_ceil(8) + 7;
        let signs: Vec<i32> = (0..rows * l)
            .map(|i| if (i * 7919) % 13 < 6 { 1 } else { -1 })
            .collect();
        let spins = SpinBits::from_signs(1, signs.len() as u64, &signs);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("final_state.npy");
        write_lattices_npy(&path, &[rows, l], &spins, (true, &|_| false)).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let (shape, offset) = npy_u8_header(&bytes).unwrap();
        assert_eq!(shape, [rows, 25]);
        assert_eq!(unpack_rows(&bytes[offset..], l), spins);
    }

    /// Both forms of the lattices, and the couplings' int8 file, read back as +1/-1 in the
    /// written shape; a truncated file is refused.
    #[test]
    fn npy_files_read_back_whole() {
        let l = 10;
        let signs: Vec<i32> = (0..3 * l)
            .map(|i| if i % 3 == 0 { 1 } else { -1 })
            .collect();
        let spins = SpinBits::from_signs(1, signs.len() as u64, &signs);
        let expected: Vec<i8> = signs.iter().map(|&s| s as i8).collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("final_state.npy");
        for packed in [false, true] {
            write_lattices_npy(&path, &[3, l], &spins, (packed, &|_| false)).unwrap();
            let read = read_lattices_npy(&path, l).unwrap();
            assert_eq!(read, (vec![3, l], expected.clone()), "packed: {packed}");
        }
        let error = read_lattices_npy(&path, 20).unwrap_err().to_string();
        assert!(
            error.contains("packed rows of 20 sites take 3 bytes"),
            "{error}"
        );
        write_npy_i8(&path, &[2, 3], [1i8, -1, 1, 1, -1, -1].into_iter()).unwrap();
        assert_eq!(
            read_npy::<i8>(&path).unwrap(),
            (vec![2, 3], vec![1, -1, 1, 1, -1, -1])
        );
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        let error = read_npy::<i8>(&path).unwrap_err().to_string();
        assert!(error.contains("needs 6 bytes of data, found 5"), "{error}");
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
        let csv = series_csv(&rows, 4, false);
        assert_eq!(csv.lines().nth(1), Some("0,10,1,-8,4,-2,1"));
        let staggered = series_csv(&rows, 4, true);
        let head = "measurement,sweep,replica,E,M_s,e,m_s";
        assert_eq!(staggered.lines().next(), Some(head));
    }
}
