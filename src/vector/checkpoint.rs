//! The checkpoint of a vector-spin run, written between chunks of sweeps: enough to continue it
//! bit-identically. Its frame (magic, format, fingerprint, CRC) is the container's
//! ([`crate::io::checkpoint`]), whose spin bits it leaves empty: the lattices are fixed-point
//! words, in the first section. Layout (format 27), all numbers little-endian:
//!
//! | offset | size | field                                                   |
//! |--------|------|---------------------------------------------------------|
//! | 0      | 8    | magic `SPINFLIP`                                        |
//! | 8      | 4    | format 27 (u32)                                         |
//! | 12     | 8    | config fingerprint (u64)                                |
//! | 20     | 8    | sweeps done (u64)                                       |
//! | 28     | 8    | spin bits: 0 (u64)                                      |
//! | 36     | 8    | spin words W, every system (u64)                        |
//! | 44     | 8    | temperatures T (u64)                                    |
//! | 52     | 8    | systems B (u64)                                         |
//! | 60     | 8    | measurements M, every system's (u64)                    |
//! | 68     | 8    | overlap measurements Q, every replica pair's (u64)      |
//! | 76     | 8    | tempering state words S (u64; 0 without tempering)      |
//! | 84     | 8    | tempering history words H (u64)                         |
//! | 92     | 8    | replica moves' record words P (u64; B)                  |
//! | 100    | 4 W  | the lattices (i32, component-major as the engines')     |
//! |        | 4 T  | the proposal widths, tuned so far (i32, spin units)     |
//! |        | 8 B  | accepted moves since the last tuning stop (u64)         |
//! |        | 8 B  | accepted moves in the production (u64)                  |
//! |        | 8    | the largest drift of `\|s\|` (f64)                       |
//! |        | 88 M | the measurements: energy, m (3), Fourier, bond cosines, bond sines squared, density of `s = 0`, `\|m\|^2` of the Fourier component's field, its improved estimator from the clusters, the staggered magnetisation's square (f64) |
//! |        | 16 Q | the overlaps: q2, q2 at k_min (f64)                     |
//! |        | 8 T  | the betas, as tuned so far (f64)                        |
//! |        | 4 S  | the tempering chains' state (u32, `engine::tempering::Chains`) |
//! |        | 4 H  | the walkers of sample 0's chains at each measurement (u32) |
//! |        | 8 P  | the replica moves' record in the production (u64)       |
//! |        | 4    | CRC-32 (IEEE) of every byte before it                   |
//!
//! Format 28, of a run stopped inside a sweep, adds the count U (1) after P and the units of the
//! sweep done (u64, [`VectorCheckpoint::sweep_units`]) after the record. Formats 25 and 26 are
//! 27 and 28 whose Wolff runs across an antiperiodic edge recorded the clusters' estimator from
//! their sizes, formats 21 and 22 the same whose Swendsen-Wang runs did too (resumed without
//! it, [`VectorCheckpoint::twisted_estimators`]).
//! Formats 17 and 18 are 21 and 22 with measurements of ten words (written before the staggered magnetisation, read
//! as NaN); formats 15 and 16 the same with nine (written before the clusters' estimator, read as
//! NaN); formats 13 and 14, 15 and 16 without P and the record (written before replica moves).
//! Formats 9 and 11, the
//! same with measurements of seven words (written before discrete states: no density of
//! `s = 0`, and `|m|^2` of the Fourier component's field is `m . m`), and format 8, format 9
//! without S, H and their sections and without the betas (the config's), are still read.
//!
//! The measurements are kept as the estimators take them (the f64s computed from the engine's
//! integers), so a resumed run's estimates are the uninterrupted run's to the bit.

use std::io::Write;
use std::path::Path;

use super::record::{OverlapMeasurement, VectorRecord};
use super::tempering::VectorTempering;
use crate::config::ClusterUpdate;
use crate::error::CheckpointError;
use crate::io::checkpoint::{Format, RunKind, Writer, load_file, open, save_with};
use crate::stats::VectorMeasurement;

/// The layouts written (inside a sweep, and at a sweep's end), the same with Wolff's twisted
/// clusters' estimator from their sizes, the same with Swendsen-Wang's too, the same with
/// ten-word and nine-word measurements, without the replica moves' record, with seven-word
/// measurements, and the one before them without tempering (still read).
const INSIDE_A_SWEEP: Format = Format {
    number: 28,
    counts: 10,
    packed: true,
};
const FORMAT: Format = Format {
    number: 27,
    counts: 9,
    packed: true,
};
const INSIDE_A_SWEEP_26: Format = Format {
    number: 26,
    counts: 10,
    packed: true,
};
const FORMAT_25: Format = Format {
    number: 25,
    counts: 9,
    packed: true,
};
const INSIDE_A_SWEEP_22: Format = Format {
    number: 22,
    counts: 10,
    packed: true,
};
const FORMAT_21: Format = Format {
    number: 21,
    counts: 9,
    packed: true,
};
const INSIDE_A_SWEEP_18: Format = Format {
    number: 18,
    counts: 10,
    packed: true,
};
const FORMAT_17: Format = Format {
    number: 17,
    counts: 9,
    packed: true,
};
const INSIDE_A_SWEEP_16: Format = Format {
    number: 16,
    counts: 10,
    packed: true,
};
const FORMAT_15: Format = Format {
    number: 15,
    counts: 9,
    packed: true,
};
const INSIDE_A_SWEEP_14: Format = Format {
    number: 14,
    counts: 9,
    packed: true,
};
const FORMAT_13: Format = Format {
    number: 13,
    counts: 8,
    packed: true,
};
const INSIDE_A_SWEEP_11: Format = Format {
    number: 11,
    counts: 9,
    packed: true,
};
const FORMAT_9: Format = Format {
    number: 9,
    counts: 8,
    packed: true,
};
const FORMAT_8: Format = Format {
    number: 8,
    counts: 6,
    packed: true,
};
/// Words (f64) of one [`VectorMeasurement`] (ten before format 21, nine before format 17, seven
/// before format 13) and of one [`OverlapMeasurement`].
const MEASUREMENT_WORDS: u64 = 11;
const OVERLAP_WORDS: u64 = 2;

/// The state of a vector-spin run after `sweeps_done` sweeps; with the config, all it needs to
/// continue (the randoms are keyed by the sweep, so no generator state is kept).
#[derive(Debug, Clone)]
pub(super) struct VectorCheckpoint {
    /// [`crate::io::checkpoint::fingerprint`] of the config text, so a checkpoint of another
    /// config is refused.
    pub(super) config_fingerprint: u64,
    pub(super) sweeps_done: u64,
    /// Every system's lattice, as [`crate::engine::Engine::spins`] gives them
    /// (`Lattices::Vector`).
    pub(super) spins: Vec<i32>,
    /// Per temperature, the proposal width ([`super::ConeTuning::widths`]).
    pub(super) widths: Vec<i32>,
    pub(super) record: VectorRecord,
    /// The ladder as tuned so far (the config's without tuning); empty from format 8: the
    /// config's.
    pub(super) betas: Vec<f64>,
    /// The tempering's state and history; empty without tempering.
    pub(super) tempering: TemperingWords,
    /// The units of sweep `sweeps_done` done where the run stopped inside it (a plan of its
    /// pieces, [`crate::engine::Plan::sweep_units`]); 0 at a sweep's end.
    pub(super) sweep_units: u64,
    /// Which cluster updates across an antiperiodic edge recorded the clusters' estimator from
    /// their magnetisations; the others' came from their sizes, which estimate nothing there,
    /// so that the resume drops them.
    pub(super) twisted_estimators: TwistedEstimators,
}

/// The cluster updates whose estimators across an antiperiodic edge a checkpoint holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TwistedEstimators {
    /// Before format 25: none (every update recorded its clusters' sizes).
    None,
    /// Formats 25 and 26: Swendsen-Wang's `sum_C M_C^2`; Wolff still recorded `|C|`.
    SwendsenWang,
    /// From format 27: Wolff's `s_seed M_C` too.
    Every,
}

impl TwistedEstimators {
    /// Those of a checkpoint of format `format`.
    fn of_format(format: u32) -> Self {
        match format {
            f if f >= FORMAT.number => TwistedEstimators::Every,
            f if f >= FORMAT_25.number => TwistedEstimators::SwendsenWang,
            _ => TwistedEstimators::None,
        }
    }

    /// Whether the estimators of `update` are among them.
    pub(super) fn hold(self, update: ClusterUpdate) -> bool {
        match self {
            TwistedEstimators::None => false,
            TwistedEstimators::SwendsenWang => update == ClusterUpdate::SwendsenWang,
            TwistedEstimators::Every => true,
        }
    }
}

/// What a checkpoint keeps of [`VectorTempering`]: the chains' state and the history (the
/// interval is the config's).
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct TemperingWords {
    pub(super) state: Vec<u32>,
    pub(super) history: Vec<u32>,
}

impl TemperingWords {
    /// What a checkpoint keeps of `tempering`; empty words without it.
    pub(super) fn of(tempering: Option<&VectorTempering>) -> Self {
        tempering.map_or_else(TemperingWords::default, |t| TemperingWords {
            state: t.state.clone(),
            history: t.history.clone(),
        })
    }
}

impl VectorCheckpoint {
    /// The file's bytes (see the module documentation for the layout).
    #[cfg(test)]
    fn encode(&self) -> Vec<u8> {
        crate::io::checkpoint::encode_with(|out| self.write_to(out))
    }

    /// Write the file's bytes into `out` (the CRC included).
    fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        let record = &self.record;
        let counts = [
            0,
            self.spins.len(),
            self.widths.len(),
            record.accepted_since_stop.len(),
            record.measurements.len(),
            record.overlaps.len(),
            self.tempering.state.len(),
            self.tempering.history.len(),
            record.moves_in_production.len(),
            usize::from(self.sweep_units > 0),
        ];
        let format = match self.sweep_units > 0 {
            true => INSIDE_A_SWEEP,
            false => FORMAT,
        };
        let mut out = Writer::start(
            out,
            format.number,
            self.config_fingerprint,
            self.sweeps_done,
            &counts[..format.counts],
        )?;
        let words = self.spins.iter().chain(&self.widths);
        out.put(words.map(|v| v.to_le_bytes()))?;
        let accepted = record
            .accepted_since_stop
            .iter()
            .chain(&record.accepted_in_production);
        out.put(accepted.map(|v| v.to_le_bytes()))?;
        let measurements = record.measurements.iter().flat_map(measurement_words);
        let overlaps = record.overlaps.iter().flat_map(|o| [o.q2, o.q2_kmin]);
        let floats = std::iter::once(record.norm_deviation)
            .chain(measurements)
            .chain(overlaps)
            .chain(self.betas.iter().copied());
        out.put(floats.map(f64::to_le_bytes))?;
        let tempering = self.tempering.state.iter().chain(&self.tempering.history);
        out.put(tempering.map(|w| w.to_le_bytes()))?;
        out.put(record.moves_in_production.iter().map(|w| w.to_le_bytes()))?;
        if self.sweep_units > 0 {
            out.put([self.sweep_units.to_le_bytes()].into_iter())?;
        }
        out.seal()
    }

    /// Parse and verify a checkpoint's bytes; every inconsistency is an error.
    pub(super) fn decode(bytes: &[u8]) -> Result<VectorCheckpoint, CheckpointError> {
        let formats = [
            INSIDE_A_SWEEP,
            FORMAT,
            INSIDE_A_SWEEP_26,
            FORMAT_25,
            INSIDE_A_SWEEP_22,
            FORMAT_21,
            INSIDE_A_SWEEP_18,
            FORMAT_17,
            INSIDE_A_SWEEP_16,
            FORMAT_15,
            INSIDE_A_SWEEP_14,
            FORMAT_13,
            INSIDE_A_SWEEP_11,
            FORMAT_9,
            FORMAT_8,
        ];
        let mut file = open(bytes, RunKind::Vector, &formats, sections)?;
        if !file.spins.is_empty() {
            return Err(CheckpointError::Inconsistent(format!(
                "a vector-spin checkpoint holds {} spin bits, not none",
                file.spins.len()
            )));
        }
        let tempering_counts = match file.format {
            8 => [0, 0],
            _ => [file.counts[5], file.counts[6]],
        };
        let [words, temperatures, systems, measurements, overlaps] = file.counts[..5]
            .try_into()
            .expect("both layouts have these counts");
        let reader = &mut file.reader;
        let spins = reader.i32s(words as usize)?;
        let widths = reader.i32s(temperatures as usize)?;
        let accepted_since_stop = reader.u64s(systems as usize)?;
        let accepted_in_production = reader.u64s(systems as usize)?;
        let norm_deviation = reader.f64s(1)?[0];
        let width = measurement_width(file.format);
        let measurement_words = reader.f64s((measurements * width) as usize)?;
        let overlap_words = reader.f64s((overlaps * OVERLAP_WORDS) as usize)?;
        let betas = match file.format {
            8 => Vec::new(),
            _ => reader.f64s(temperatures as usize)?,
        };
        let tempering = TemperingWords {
            state: reader.u32s(tempering_counts[0] as usize)?,
            history: reader.u32s(tempering_counts[1] as usize)?,
        };
        let moves_words = match file.format >= FORMAT_15.number {
            true => file.counts[7],
            false => 0,
        };
        let moves_in_production = match reader.u64s(moves_words as usize)? {
            moves if file.format >= FORMAT_15.number => moves,
            _ => vec![0; systems as usize],
        };
        let units_words = match file.format >= FORMAT_15.number {
            true => file.counts.get(8),
            false => file.counts.get(7),
        };
        let units_words = units_words.copied().unwrap_or(0);
        let sweep_units = reader
            .u64s(units_words as usize)?
            .first()
            .copied()
            .unwrap_or(0);
        let record = VectorRecord {
            measurements: measurement_words
                .chunks_exact(width as usize)
                .map(measurement_of)
                .collect(),
            overlaps: overlap_words
                .chunks_exact(OVERLAP_WORDS as usize)
                .map(|w| OverlapMeasurement {
                    q2: w[0],
                    q2_kmin: w[1],
                })
                .collect(),
            accepted_since_stop,
            accepted_in_production,
            moves_in_production,
            norm_deviation,
        };
        Ok(VectorCheckpoint {
            config_fingerprint: file.config_fingerprint,
            sweeps_done: file.sweeps_done,
            spins,
            widths,
            record,
            betas,
            tempering,
            sweep_units,
            twisted_estimators: TwistedEstimators::of_format(file.format),
        })
    }

    /// Write to `path` atomically: a crash leaves the previous checkpoint intact.
    pub(super) fn save(&self, path: &Path) -> std::io::Result<()> {
        save_with(path, |out| self.write_to(out))
    }

    /// Read and verify the checkpoint at `path`, refusing one whose fingerprint is not among
    /// `accepted` (another config's).
    pub(super) fn load(path: &Path, accepted: &[u64]) -> Result<VectorCheckpoint, CheckpointError> {
        load_file(path, accepted, VectorCheckpoint::decode, |c| {
            c.config_fingerprint
        })
    }
}

/// The (count, width) of the sections after the (empty) spin bits of `format`, for the header's
/// counts after them (spin words, temperatures, systems, measurements, overlaps; tempering state
/// and history words), in file order: the spin words, the widths, both acceptance counters, the
/// norm drift, the measurements and the overlaps; then the betas, the tempering state and
/// history (saturating: absurd counts fail the size check).
fn sections(format: u32, counts: &[u64]) -> Vec<(u64, u64)> {
    let (words, temperatures, systems) = (counts[0], counts[1], counts[2]);
    let (measurements, overlaps) = (counts[3], counts[4]);
    let mut sections = vec![
        (words, 4),
        (temperatures, 4),
        (systems, 16),
        (1, 8),
        (measurements, 8 * measurement_width(format)),
        (overlaps, 8 * OVERLAP_WORDS),
    ];
    if format != FORMAT_8.number {
        sections.extend([(temperatures, 8), (counts[5], 4), (counts[6], 4)]);
    }
    let moves = format >= FORMAT_15.number;
    if moves {
        sections.push((counts[7], 8));
    }
    if [
        INSIDE_A_SWEEP,
        INSIDE_A_SWEEP_26,
        INSIDE_A_SWEEP_22,
        INSIDE_A_SWEEP_18,
        INSIDE_A_SWEEP_16,
        INSIDE_A_SWEEP_14,
        INSIDE_A_SWEEP_11,
    ]
    .map(|f| f.number)
    .contains(&format)
    {
        sections.push((counts[7 + usize::from(moves)], 8));
    }
    sections
}

/// Words of a measurement in `format`.
fn measurement_width(format: u32) -> u64 {
    match format {
        f if f >= FORMAT_21.number => MEASUREMENT_WORDS,
        f if f >= FORMAT_17.number => MEASUREMENT_WORDS - 1,
        f if f >= FORMAT_13.number => MEASUREMENT_WORDS - 2,
        _ => MEASUREMENT_WORDS - 4,
    }
}

/// A measurement's words, in the layout's order.
fn measurement_words(m: &VectorMeasurement) -> [f64; MEASUREMENT_WORDS as usize] {
    let [mx, my, mz] = m.m;
    [
        m.energy,
        mx,
        my,
        mz,
        m.fourier,
        m.bond_cosines,
        m.bond_sines_squared,
        m.zeros,
        m.vector_m2,
        m.cluster_m2,
        m.staggered_m2,
    ]
}

/// The measurement of [`measurement_words`]; before format 21 without the staggered
/// magnetisation (NaN); before format 17 also without the clusters' estimator (NaN); before
/// format 13, of vector spins only, also without the density of `s = 0` (0) and `vector_m2`
/// (`m . m`).
fn measurement_of(w: &[f64]) -> VectorMeasurement {
    let m = [w[1], w[2], w[3]];
    VectorMeasurement {
        energy: w[0],
        m,
        fourier: w[4],
        bond_cosines: w[5],
        bond_sines_squared: w[6],
        zeros: w.get(7).copied().unwrap_or(0.0),
        vector_m2: w.get(8).copied().unwrap_or(m.iter().map(|a| a * a).sum()),
        cluster_m2: w.get(9).copied().unwrap_or(f64::NAN),
        staggered_m2: w.get(10).copied().unwrap_or(f64::NAN),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::checkpoint::{CRC_LEN, fingerprint};

    fn sample() -> VectorCheckpoint {
        let measurement = |e: f64| VectorMeasurement {
            energy: e,
            m: [0.5, -0.25, 1e-300],
            fourier: 0.125,
            bond_cosines: -0.0,
            bond_sines_squared: f64::NAN,
            zeros: 0.375,
            vector_m2: 0.3125,
            cluster_m2: 0.0625,
            staggered_m2: 0.03125,
        };
        VectorCheckpoint {
            config_fingerprint: fingerprint("(model: XY(dims: 2, size: 4))"),
            sweeps_done: 123_456_789_012,
            spins: vec![1 << 28, -(1 << 28), 0, i32::MIN, i32::MAX, 7],
            widths: vec![1 << 27, 3],
            record: VectorRecord {
                measurements: vec![measurement(-1.5), measurement(2.0)],
                overlaps: vec![OverlapMeasurement {
                    q2: 0.75,
                    q2_kmin: 0.5,
                }],
                accepted_since_stop: vec![1, u64::MAX],
                accepted_in_production: vec![0, 1 << 40],
                moves_in_production: vec![3, 1 << 50],
                norm_deviation: 2f64.powi(-30),
            },
            betas: vec![0.5, 0.625],
            tempering: TemperingWords {
                state: vec![1, 0, 1, 0, 0, 3, 7, 0],
                history: vec![0, 1, 1, 0],
            },
            sweep_units: 0,
            twisted_estimators: TwistedEstimators::Every,
        }
    }

    /// Equal as bits (a measurement's NaN included).
    fn same(a: &VectorCheckpoint, b: &VectorCheckpoint) -> bool {
        a.encode() == b.encode() && format!("{a:?}") == format!("{b:?}")
    }

    #[test]
    fn layout_matches_the_documented_format() {
        let bytes = sample().encode();
        assert_eq!(&bytes[..8], b"SPINFLIP");
        assert_eq!(bytes[8..12], 27u32.to_le_bytes());
        assert_eq!(bytes[20..28], 123_456_789_012u64.to_le_bytes());
        let counts: Vec<u64> = bytes[28..100]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(counts, [0, 6, 2, 2, 2, 1, 8, 4, 2]);
        assert_eq!(
            bytes[100..104],
            (1i32 << 28).to_le_bytes(),
            "the first spin"
        );
        assert_eq!(
            bytes[124..128],
            (1i32 << 27).to_le_bytes(),
            "the first width"
        );
        let norm = 132 + 32;
        assert_eq!(bytes[norm..norm + 8], 2f64.powi(-30).to_le_bytes());
        assert_eq!(bytes[norm + 8..norm + 16], (-1.5f64).to_le_bytes());
        assert_eq!(bytes[norm + 64..norm + 72], 0.375f64.to_le_bytes(), "zeros");
        assert_eq!(
            bytes[norm + 72..norm + 80],
            0.3125f64.to_le_bytes(),
            "vector m2"
        );
        assert_eq!(
            bytes[norm + 80..norm + 88],
            0.0625f64.to_le_bytes(),
            "the clusters' m2"
        );
        assert_eq!(
            bytes[norm + 88..norm + 96],
            0.03125f64.to_le_bytes(),
            "the staggered m2"
        );
        let betas = norm + 8 + 88 * 2 + 16;
        assert_eq!(bytes[betas..betas + 8], 0.5f64.to_le_bytes());
        let state = betas + 16;
        assert_eq!(bytes[state + 20..state + 24], 3u32.to_le_bytes());
        let moves = state + 4 * 12;
        assert_eq!(bytes[moves + 8..moves + 16], (1u64 << 50).to_le_bytes());
        assert_eq!(bytes.len(), moves + 16 + CRC_LEN);
        let crc = crc32fast::hash(&bytes[..bytes.len() - CRC_LEN]);
        assert_eq!(bytes[bytes.len() - CRC_LEN..], crc.to_le_bytes());
    }

    #[test]
    fn round_trips_through_bytes_and_file() {
        let checkpoint = sample();
        assert!(same(
            &VectorCheckpoint::decode(&checkpoint.encode()).unwrap(),
            &checkpoint
        ));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checkpoint.bin");
        checkpoint.save(&path).unwrap();
        let loaded = VectorCheckpoint::load(&path, &[checkpoint.config_fingerprint]).unwrap();
        assert!(same(&loaded, &checkpoint));
        let err = VectorCheckpoint::load(&path, &[1]).unwrap_err().to_string();
        assert!(err.contains("different config"), "{err}");
    }

    #[test]
    fn every_flipped_byte_and_truncation_is_refused() {
        let bytes = sample().encode();
        for i in 0..bytes.len() {
            let mut corrupt = bytes.clone();
            corrupt[i] ^= 0x10;
            assert!(VectorCheckpoint::decode(&corrupt).is_err(), "byte {i}");
        }
        for len in [0, 11, 60, 100, bytes.len() - 1] {
            assert!(
                matches!(
                    VectorCheckpoint::decode(&bytes[..len]),
                    Err(CheckpointError::Truncated { .. })
                ),
                "{len} bytes"
            );
        }
    }

    /// The sample as read from a checkpoint written before the staggered magnetisation (and
    /// before the twisted clusters' estimator from their magnetisations).
    fn sample_without_staggered() -> VectorCheckpoint {
        let mut checkpoint = sample();
        let measurements = checkpoint.record.measurements.iter_mut();
        measurements.for_each(|m| m.staggered_m2 = f64::NAN);
        checkpoint.twisted_estimators = TwistedEstimators::None;
        checkpoint
    }

    /// The sample as read from a checkpoint written before the clusters' estimator.
    fn sample_without_clusters() -> VectorCheckpoint {
        let mut checkpoint = sample_without_staggered();
        let measurements = checkpoint.record.measurements.iter_mut();
        measurements.for_each(|m| m.cluster_m2 = f64::NAN);
        checkpoint
    }

    /// A format 9 checkpoint (measurements of seven words) still resumes, its measurements'
    /// density of `s = 0` zero and `vector_m2` their `m . m`: the sample's bytes without each
    /// measurement's last three words.
    #[test]
    fn a_format_9_checkpoint_reads_its_seven_word_measurements() {
        let mut checkpoint = sample_without_clusters();
        checkpoint.record.moves_in_production = vec![0, 0];
        checkpoint
            .record
            .measurements
            .iter_mut()
            .for_each(|m| (m.zeros, m.vector_m2) = (0.0, m.m_squared()));
        let old = format_9(&checkpoint);
        assert!(same(&VectorCheckpoint::decode(&old).unwrap(), &checkpoint));
    }

    /// The checkpoint's bytes as format 17 wrote them: measurements of ten words, without the
    /// staggered magnetisation (read as NaN).
    fn format_17(checkpoint: &VectorCheckpoint) -> Vec<u8> {
        sealed_as(
            shorter_measurements(&checkpoint.encode(), 132 + 32 + 8, (88, 80)),
            17,
        )
    }

    /// A format 17 checkpoint (before the staggered magnetisation) still resumes, its square
    /// NaN.
    #[test]
    fn a_format_17_checkpoint_reads_its_ten_word_measurements() {
        let checkpoint = sample_without_staggered();
        let old = format_17(&checkpoint);
        assert!(same(&VectorCheckpoint::decode(&old).unwrap(), &checkpoint));
    }

    /// The checkpoint's bytes as format 15 wrote them: measurements of nine words, without the
    /// clusters' estimator (read as NaN).
    fn format_15(checkpoint: &VectorCheckpoint) -> Vec<u8> {
        sealed_as(
            shorter_measurements(&format_17(checkpoint), 132 + 32 + 8, (80, 72)),
            15,
        )
    }

    /// `bytes` (sealed) without their CRC and with the sample's two measurements, from byte
    /// `first`, cut from `widths.0` bytes each to their first `widths.1`.
    fn shorter_measurements(bytes: &[u8], first: usize, (from, to): (usize, usize)) -> Vec<u8> {
        let mut old = bytes[..first].to_vec();
        for m in 0..2 {
            old.extend_from_slice(&bytes[first + from * m..first + from * m + to]);
        }
        old.extend_from_slice(&bytes[first + 2 * from..bytes.len() - CRC_LEN]);
        old
    }

    /// A format 15 checkpoint (before the clusters' estimator) still resumes, the estimator
    /// NaN.
    #[test]
    fn a_format_15_checkpoint_reads_its_nine_word_measurements() {
        let checkpoint = sample_without_clusters();
        let old = format_15(&checkpoint);
        assert!(same(&VectorCheckpoint::decode(&old).unwrap(), &checkpoint));
    }

    /// The checkpoint's bytes as format 13 wrote them: format 15's without the replica moves'
    /// record and its count (read as zeros).
    fn format_13(checkpoint: &VectorCheckpoint) -> Vec<u8> {
        let bytes = format_15(checkpoint);
        let mut old = bytes[..bytes.len() - CRC_LEN - 16].to_vec();
        old.drain(92..100);
        sealed_as(old, 13)
    }

    /// `bytes` (without a CRC) as format `format`, their CRC appended.
    fn sealed_as(mut bytes: Vec<u8>, format: u32) -> Vec<u8> {
        bytes[8..12].copy_from_slice(&format.to_le_bytes());
        let crc = crc32fast::hash(&bytes);
        bytes.extend_from_slice(&crc.to_le_bytes());
        bytes
    }

    /// Checkpoints of formats 25 and 21 (the layout of 27) are read as ones whose twisted
    /// clusters' estimators came from their sizes, Wolff's alone and every update's.
    #[test]
    fn formats_25_and_21_read_as_before_the_twisted_estimators() {
        for (format, held) in [
            (25, TwistedEstimators::SwendsenWang),
            (21, TwistedEstimators::None),
        ] {
            let mut checkpoint = sample();
            let bytes = checkpoint.encode();
            let old = sealed_as(bytes[..bytes.len() - CRC_LEN].to_vec(), format);
            checkpoint.twisted_estimators = held;
            assert!(same(&VectorCheckpoint::decode(&old).unwrap(), &checkpoint));
        }
    }

    /// A format 13 checkpoint (before replica moves) still resumes, with a record of zeros.
    #[test]
    fn a_format_13_checkpoint_reads_a_record_of_no_moves() {
        let mut checkpoint = sample_without_clusters();
        checkpoint.record.moves_in_production = vec![0, 0];
        let old = format_13(&checkpoint);
        assert!(same(&VectorCheckpoint::decode(&old).unwrap(), &checkpoint));
    }

    /// The checkpoint's bytes as format 9 wrote them: format 13's, each measurement without its
    /// last two words.
    fn format_9(checkpoint: &VectorCheckpoint) -> Vec<u8> {
        sealed_as(
            shorter_measurements(&format_13(checkpoint), 124 + 32 + 8, (72, 56)),
            9,
        )
    }

    /// A run stopped inside a sweep writes format 28: the units word's count after the
    /// record's, the word after the record.
    #[test]
    fn units_of_a_cut_sweep_make_format_28() {
        let checkpoint = VectorCheckpoint {
            sweep_units: 5,
            ..sample()
        };
        let bytes = checkpoint.encode();
        assert_eq!(bytes[8..12], [28, 0, 0, 0]);
        assert_eq!(bytes[100..108], 1u64.to_le_bytes(), "units words");
        assert_eq!(bytes.len(), sample().encode().len() + 8 + 8);
        let last = bytes.len() - CRC_LEN - 8;
        assert_eq!(bytes[last..last + 8], 5u64.to_le_bytes());
        assert!(same(
            &VectorCheckpoint::decode(&bytes).unwrap(),
            &checkpoint
        ));
    }

    #[test]
    fn format_8_is_read_without_betas_and_tempering() {
        let bytes = format_9(&sample());
        let tempering_start = 124 + 32 + 8 + 56 * 2 + 16;
        let mut old = bytes[..tempering_start].to_vec();
        old[8..12].copy_from_slice(&8u32.to_le_bytes());
        old.drain(76..92);
        let crc = crc32fast::hash(&old);
        old.extend(crc.to_le_bytes());
        let decoded = VectorCheckpoint::decode(&old).unwrap();
        assert!(decoded.betas.is_empty());
        assert_eq!(decoded.tempering, TemperingWords::default());
        assert_eq!(decoded.spins, sample().spins);
        assert_eq!(decoded.record.overlaps, sample().record.overlaps);
    }

    /// Spin bits in the container's section, with a valid checksum, are refused.
    #[test]
    fn spin_bits_are_refused() {
        let mut bytes = sample().encode();
        bytes[28] = 64;
        bytes.splice(100..100, [0u8; 8]);
        let end = bytes.len() - CRC_LEN;
        let crc = crc32fast::hash(&bytes[..end]);
        bytes[end..].copy_from_slice(&crc.to_le_bytes());
        let err = VectorCheckpoint::decode(&bytes).unwrap_err().to_string();
        assert!(err.contains("64 spin bits"), "{err}");
    }

    /// A vector checkpoint offered to a run of Ising sweeps, and the reverse, are refused as
    /// such.
    #[test]
    fn a_checkpoint_of_another_kind_is_refused_as_such() {
        let vector = sample().encode();
        let err = crate::metropolis::checkpoint::Checkpoint::decode(&vector).unwrap_err();
        assert!(err.to_string().contains("of a vector-spin run"), "{err}");
        let mut sweeps = vector.clone();
        sweeps[8..12].copy_from_slice(&5u32.to_le_bytes());
        let err = VectorCheckpoint::decode(&sweeps).unwrap_err().to_string();
        assert!(
            err.contains("of a run of Metropolis sweeps")
                && err.contains("asks for a vector-spin run"),
            "{err}"
        );
    }
}
