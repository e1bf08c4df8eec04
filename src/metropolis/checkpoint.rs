//! The checkpoint of a run of Metropolis sweeps, with or without parallel tempering: enough to
//! continue it bit-identically after a crash. Its frame (magic, format, fingerprint, spins,
//! CRC) is the container's ([`crate::io::checkpoint`]); this is its layout.
//!
//! Layout (format 5; format 7, of runs with cluster updates, adds the count C after H and the
//! cluster sizes after the history; format 10, of a run stopped inside a sweep or a step of
//! cluster updates, adds C and the count U (1) after H, and the units done after the cluster
//! sizes; inside a measured step that has updated, C holds one measurement more, the step's
//! statistic so far), all numbers little-endian:
//!
//! | offset | size | field                                          |
//! |--------|------|------------------------------------------------|
//! | 0      | 8    | magic `SPINFLIP`                               |
//! | 8      | 4    | format version (u32)                           |
//! | 12     | 8    | config fingerprint (u64)                       |
//! | 20     | 8    | sweeps done (u64)                              |
//! | 28     | 8    | number of spins S, every system (u64)          |
//! | 36     | 8    | number of bond sums B (u64)                    |
//! | 44     | 8    | number of magnetisations M (u64)               |
//! | 52     | 8    | number of overlaps Q (u64)                     |
//! | 60     | 8    | number of overlap Fourier moduli K (u64)       |
//! | 68     | 8    | number of link overlap differences Λ (u64)     |
//! | 76     | 8    | number of ladder betas T (u64)                 |
//! | 84     | 8    | words of tempering state P (u64)               |
//! | 92     | 8    | words of temperature history H (u64)           |
//! | 100    | 8 ⌈S/64⌉ | spins, one bit each (u64 words, [`SpinBits`]) |
//! |        | 8 B  | bond sums (i64)                                |
//! |        | 8 M  | magnetisations (i64)                           |
//! |        | 8 Q  | overlap differences (i64)                      |
//! |        | 8 K  | overlap Fourier moduli (f64)                   |
//! |        | 8 Λ  | link overlap differences (i64)                 |
//! |        | 8 T  | the tempering ladder, tuned or not (f64)       |
//! |        | 4 P  | tempering state (u32, [`crate::engine::tempering`]) |
//! |        | 4 H  | temperature history (u32, `[measurement][r][k]`) |
//! |        | 8 C  | formats 7, 10: cluster sizes (u64, `[measurement][system]`) |
//! |        | 8 U  | format 10: units of the next sweep (step) done ([`Checkpoint::sweep_units`]) |
//! |        | 4    | CRC-32 (IEEE) of every byte before it          |
//!
//! Version 3 (before packed spins) is the same with the spins one i8 each (+1 or -1); version 2
//! (before parallel tempering and the link overlap) also lacks Λ, T, P and H and their counts.
//! Both are still read (version 2 with an empty link overlap series).

use std::io::Write;
use std::path::Path;

use crate::engine::spins::SpinBits;
use crate::error::CheckpointError;
use crate::io::checkpoint::{Format, RunKind, Writer, encode_with, load_file, open, save_with};

/// The layouts of this kind: version 10 (with the units of a sweep cut) is written by runs
/// stopped inside a sweep, version 7 (with cluster sizes) by runs with cluster updates once they
/// have measured, version 5 (packed spins) by the others; version 3 (spins one byte each) and
/// version 2 (before parallel tempering, five counts) are still read.
const FORMATS: [Format; 5] = [
    Format {
        number: 10,
        counts: 11,
        packed: true,
    },
    Format {
        number: 7,
        counts: 10,
        packed: true,
    },
    Format {
        number: 5,
        counts: 9,
        packed: true,
    },
    Format {
        number: 3,
        counts: 9,
        packed: false,
    },
    Format {
        number: 2,
        counts: 5,
        packed: false,
    },
];
/// Bytes per item of each count of the header after the spins: eight per series value and
/// ladder beta, four per tempering and history word, eight per cluster size and units word.
const COUNT_WIDTHS: [u64; 10] = [8, 8, 8, 8, 8, 8, 4, 4, 8, 8];
/// The layouts of a checkpoint inside a sweep, with cluster sizes, and of the others.
const INSIDE_A_SWEEP: Format = FORMATS[0];
const WITH_CLUSTERS: Format = FORMATS[1];
const WITHOUT_CLUSTERS: Format = FORMATS[2];

/// The state of a run after `sweeps_done` sweeps.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    /// [`crate::io::checkpoint::fingerprint`] of the resolved config text, so a checkpoint of
    /// another config is refused.
    pub config_fingerprint: u64,
    /// Sweeps completed (thermalisation + measurement), the same for all systems.
    pub sweeps_done: u64,
    /// All systems' lattices, one bit per spin; decoded as one run of `S` spins (the file does
    /// not say how they divide into systems: [`SpinBits::reshape`] gives them the run's).
    pub spins: SpinBits,
    /// Measurement series so far: per measurement, per system, the bond sum `sum_<ij> s_i s_j`.
    pub bond_sums: Vec<i64>,
    /// Per measurement, per system, the magnetisation `M = sum_i s_i`.
    pub magnetisations: Vec<i64>,
    /// Per measurement, per overlap pair, the number of sites where its two replicas differ.
    pub overlaps: Vec<i64>,
    /// Per measurement, per overlap pair, `|q(k_min)|^2`.
    pub overlaps_kmin: Vec<f64>,
    /// Per measurement, per overlap pair, the number of bonds with `q_i q_j = -1`.
    pub link_overlaps: Vec<i64>,
    /// The ladder's inverse temperatures with parallel tempering (tuned or not; empty without).
    pub betas: Vec<f64>,
    /// The engine's parallel-tempering state (empty without tempering).
    pub tempering: Vec<u32>,
    /// Per measurement, the walker at each temperature of each chain of sample 0.
    pub temperature_history: Vec<u32>,
    /// Per measurement, per system, the cluster sizes' statistic (empty without cluster
    /// updates).
    pub cluster_sizes: Vec<u64>,
    /// The units of sweep (step) `sweeps_done` done where the run stopped inside it (a plan of
    /// its pieces: [`crate::engine::Plan::sweep_units`], [`crate::cluster::StepUnits`]); 0 at a
    /// sweep's end.
    pub sweep_units: u64,
}

impl Checkpoint {
    /// The file's bytes (see the module documentation for the layout).
    pub fn encode(&self) -> Vec<u8> {
        encode_with(|out| self.write_to(out))
    }

    /// Write the file's bytes into `out` (the CRC included), the spins in chunks.
    fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        let counts = [
            self.spins.len() as usize,
            self.bond_sums.len(),
            self.magnetisations.len(),
            self.overlaps.len(),
            self.overlaps_kmin.len(),
            self.link_overlaps.len(),
            self.betas.len(),
            self.tempering.len(),
            self.temperature_history.len(),
            self.cluster_sizes.len(),
            usize::from(self.sweep_units > 0),
        ];
        let format = match (self.sweep_units > 0, self.cluster_sizes.is_empty()) {
            (true, _) => INSIDE_A_SWEEP,
            (false, true) => WITHOUT_CLUSTERS,
            (false, false) => WITH_CLUSTERS,
        };
        let mut out = Writer::start(
            out,
            format.number,
            self.config_fingerprint,
            self.sweeps_done,
            &counts[..format.counts],
        )?;
        out.spins(&self.spins)?;
        let integers = self
            .bond_sums
            .iter()
            .chain(&self.magnetisations)
            .chain(&self.overlaps);
        out.put(integers.map(|v| v.to_le_bytes()))?;
        out.put(self.overlaps_kmin.iter().map(|v| v.to_le_bytes()))?;
        out.put(self.link_overlaps.iter().map(|v| v.to_le_bytes()))?;
        out.put(self.betas.iter().map(|v| v.to_le_bytes()))?;
        let words = self.tempering.iter().chain(&self.temperature_history);
        out.put(words.map(|v| v.to_le_bytes()))?;
        out.put(self.cluster_sizes.iter().map(|v| v.to_le_bytes()))?;
        if self.sweep_units > 0 {
            out.put([self.sweep_units.to_le_bytes()].into_iter())?;
        }
        out.seal()
    }

    /// Parse and verify a checkpoint's bytes; every inconsistency is an error.
    pub fn decode(bytes: &[u8]) -> Result<Checkpoint, CheckpointError> {
        let mut file = open(bytes, RunKind::Sweeps, &FORMATS, |_, counts| {
            counts.iter().copied().zip(COUNT_WIDTHS).collect()
        })?;
        // Version 2 has the first four counts after the spins only, versions 3 and 5 all but
        // the cluster sizes, version 7 all but the units.
        let mut counts = [0u64; 10];
        counts[..file.counts.len()].copy_from_slice(&file.counts);
        let [
            bond_sums,
            magnetisations,
            overlaps,
            overlaps_kmin,
            link_overlaps,
            betas,
            tempering,
            temperature_history,
            cluster_sizes,
            units,
        ] = counts.map(|c| c as usize);
        let reader = &mut file.reader;
        Ok(Checkpoint {
            config_fingerprint: file.config_fingerprint,
            sweeps_done: file.sweeps_done,
            bond_sums: reader.i64s(bond_sums)?,
            magnetisations: reader.i64s(magnetisations)?,
            overlaps: reader.i64s(overlaps)?,
            overlaps_kmin: reader.f64s(overlaps_kmin)?,
            link_overlaps: reader.i64s(link_overlaps)?,
            betas: reader.f64s(betas)?,
            tempering: reader.u32s(tempering)?,
            temperature_history: reader.u32s(temperature_history)?,
            cluster_sizes: reader.u64s(cluster_sizes)?,
            sweep_units: reader.u64s(units)?.first().copied().unwrap_or(0),
            spins: file.spins,
        })
    }

    /// Write to `path` atomically, streamed: a crash leaves the previous checkpoint intact.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        save_with(path, |out| self.write_to(out))
    }

    /// Read and verify the checkpoint at `path`, refusing one whose fingerprint is not among
    /// `accepted` (another config's).
    pub fn load(path: &Path, accepted: &[u64]) -> Result<Checkpoint, CheckpointError> {
        load_file(path, accepted, Checkpoint::decode, |c| c.config_fingerprint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::spins::words_for;
    use crate::io::checkpoint::{CRC_LEN, SPIN_CHUNK_WORDS, fingerprint};

    /// Bytes before the spins in versions 5 and 3, and in version 2.
    const HEADER_LEN: usize = WITHOUT_CLUSTERS.header_len();
    const HEADER_LEN_2: usize = FORMATS[4].header_len();

    fn sample() -> Checkpoint {
        Checkpoint {
            config_fingerprint: fingerprint("(model: Ising(dims: 2, size: 4))"),
            sweeps_done: 123_456_789_012,
            spins: signs(32, 3),
            bond_sums: vec![-32, 16, i64::MIN, i64::MAX],
            magnetisations: vec![-16, 0, 16, 2],
            overlaps: vec![3, 0, 7],
            overlaps_kmin: vec![0.25, 1e-300, -0.0],
            link_overlaps: vec![5, 0, 11],
            betas: vec![0.5, 0.25],
            tempering: vec![1, 0, 2, 0, 1, 0, 7, 9],
            temperature_history: vec![0, 1, 1, 0],
            cluster_sizes: vec![],
            sweep_units: 0,
        }
    }

    /// `count` spins in one run, every `period`-th up.
    fn signs(count: u64, period: u64) -> SpinBits {
        let signs: Vec<i32> = (0..count)
            .map(|i| if i % period == 0 { 1 } else { -1 })
            .collect();
        SpinBits::from_signs(1, count, &signs)
    }

    /// The same file from before packed spins (`format`, spins one byte each after a header of
    /// `header_len` bytes).
    fn with_spin_bytes(packed: &[u8], format: u32, header_len: usize, spins: &SpinBits) -> Vec<u8> {
        let mut old = packed[..header_len].to_vec();
        old[8..12].copy_from_slice(&format.to_le_bytes());
        old.extend((0..spins.len()).map(|i| spins.spin(0, i) as i8 as u8));
        let section = 8 * words_for(spins.len());
        old.extend_from_slice(&packed[header_len + section..packed.len() - CRC_LEN]);
        let crc = crc32fast::hash(&old);
        old.extend_from_slice(&crc.to_le_bytes());
        old
    }

    /// The error of `load`, without the file name it is wrapped in.
    fn load_error(path: &Path, expected_fingerprint: u64) -> CheckpointError {
        match Checkpoint::load(path, &[expected_fingerprint]) {
            Err(CheckpointError::InFile { path: p, source }) => {
                assert_eq!(p, path);
                *source
            }
            other => panic!("expected an error in the file, got {other:?}"),
        }
    }

    #[test]
    fn layout_matches_the_documented_format() {
        let checkpoint = sample();
        let bytes = checkpoint.encode();
        assert_eq!(&bytes[..8], b"SPINFLIP");
        assert_eq!(bytes[8..12], [5, 0, 0, 0]);
        assert_eq!(bytes[20..28], 123_456_789_012u64.to_le_bytes());
        assert_eq!(bytes[28..36], 32u64.to_le_bytes());
        assert_eq!(bytes[52..60], 3u64.to_le_bytes(), "overlap count");
        assert_eq!(bytes[68..76], 3u64.to_le_bytes(), "link overlap count");
        assert_eq!(bytes[76..84], 2u64.to_le_bytes(), "ladder betas");
        assert_eq!(bytes[84..92], 8u64.to_le_bytes(), "tempering words");
        assert_eq!(bytes[92..100], 4u64.to_le_bytes(), "history words");
        // Spins 0, 3, 6, ..., 30 up: bits 0, 3, ..., 30 of one little-endian u64.
        let up = (0..32).step_by(3).fold(0u64, |w, i| w | 1 << i);
        assert_eq!(bytes[100..108], up.to_le_bytes(), "spins as one word");
        assert_eq!(
            bytes.len(),
            100 + 8 + 8 * (8 + 3 + 3 + 3 + 2) + 4 * (8 + 4) + 4
        );
        let first_kmin = 100 + 8 + 8 * (8 + 3);
        assert_eq!(bytes[first_kmin..first_kmin + 8], 0.25f64.to_le_bytes());
        let first_link = first_kmin + 8 * 3;
        assert_eq!(bytes[first_link..first_link + 8], 5i64.to_le_bytes());
        let first_beta = first_link + 8 * 3;
        assert_eq!(bytes[first_beta..first_beta + 8], 0.5f64.to_le_bytes());
        let first_tempering = first_beta + 8 * 2;
        assert_eq!(
            bytes[first_tempering + 8..first_tempering + 12],
            2u32.to_le_bytes()
        );
        let crc = crc32fast::hash(&bytes[..bytes.len() - 4]);
        assert_eq!(bytes[bytes.len() - 4..], crc.to_le_bytes());
    }

    #[test]
    fn round_trips_through_bytes_and_file() {
        let checkpoint = sample();
        assert_eq!(
            Checkpoint::decode(&checkpoint.encode()).unwrap(),
            checkpoint
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checkpoint.bin");
        checkpoint.save(&path).unwrap();
        assert_eq!(
            Checkpoint::load(&path, &[checkpoint.config_fingerprint]).unwrap(),
            checkpoint
        );
    }

    /// A run with cluster updates writes version 7: the cluster sizes after the history.
    #[test]
    fn cluster_sizes_make_version_7() {
        let checkpoint = Checkpoint {
            cluster_sizes: vec![7, u64::MAX, 0, 1 << 40],
            ..sample()
        };
        let bytes = checkpoint.encode();
        assert_eq!(bytes[8..12], [7, 0, 0, 0]);
        assert_eq!(bytes[100..108], 4u64.to_le_bytes(), "cluster sizes");
        let without = sample().encode();
        assert_eq!(bytes.len(), without.len() + 8 + 8 * 4);
        let last = bytes.len() - CRC_LEN - 8;
        assert_eq!(bytes[last..last + 8], (1u64 << 40).to_le_bytes());
        assert_eq!(Checkpoint::decode(&bytes).unwrap(), checkpoint);
    }

    /// A run stopped inside a sweep writes version 10: the count of the units word after the
    /// cluster sizes' (0), the word after the history.
    #[test]
    fn units_of_a_cut_sweep_make_version_10() {
        let checkpoint = Checkpoint {
            sweep_units: 37,
            ..sample()
        };
        let bytes = checkpoint.encode();
        assert_eq!(bytes[8..12], [10, 0, 0, 0]);
        assert_eq!(bytes[100..108], 0u64.to_le_bytes(), "cluster sizes");
        assert_eq!(bytes[108..116], 1u64.to_le_bytes(), "units words");
        assert_eq!(bytes.len(), sample().encode().len() + 2 * 8 + 8);
        let last = bytes.len() - CRC_LEN - 8;
        assert_eq!(bytes[last..last + 8], 37u64.to_le_bytes());
        assert_eq!(Checkpoint::decode(&bytes).unwrap(), checkpoint);
    }

    /// A checkpoint written before parallel tempering and the link overlap (version 2: no counts
    /// or words of either).
    #[test]
    fn version_2_checkpoints_are_still_read() {
        let checkpoint = Checkpoint {
            link_overlaps: vec![],
            betas: vec![],
            tempering: vec![],
            temperature_history: vec![],
            ..sample()
        };
        let v3 = with_spin_bytes(&checkpoint.encode(), 3, HEADER_LEN, &checkpoint.spins);
        let mut v2 = v3[..HEADER_LEN_2].to_vec();
        v2[8..12].copy_from_slice(&2u32.to_le_bytes());
        v2.extend_from_slice(&v3[HEADER_LEN..v3.len() - CRC_LEN]);
        let crc = crc32fast::hash(&v2);
        v2.extend_from_slice(&crc.to_le_bytes());
        assert_eq!(Checkpoint::decode(&v2).unwrap(), checkpoint);
    }

    /// A checkpoint from before packed spins (version 3: one byte per spin) reads as the same
    /// checkpoint, 32 bytes of spins where version 5 has one word.
    #[test]
    fn version_3_checkpoints_are_still_read() {
        let checkpoint = sample();
        let v5 = checkpoint.encode();
        let v3 = with_spin_bytes(&v5, 3, HEADER_LEN, &checkpoint.spins);
        assert_eq!(v3.len(), v5.len() + 32 - 8);
        assert_eq!(v3[100..103], [1, 0xff, 0xff], "spins +1, -1, -1 as bytes");
        assert_eq!(Checkpoint::decode(&v3).unwrap(), checkpoint);
    }

    #[test]
    fn empty_series_round_trip() {
        let checkpoint = Checkpoint {
            bond_sums: vec![],
            magnetisations: vec![],
            sweeps_done: 0,
            ..sample()
        };
        assert_eq!(
            Checkpoint::decode(&checkpoint.encode()).unwrap(),
            checkpoint
        );
    }

    #[test]
    fn every_flipped_byte_is_refused() {
        let bytes = sample().encode();
        for i in 0..bytes.len() {
            let mut corrupt = bytes.clone();
            corrupt[i] ^= 0x10;
            let result = Checkpoint::decode(&corrupt);
            assert!(result.is_err(), "flipping byte {i} went unnoticed");
        }
        let mut corrupt = bytes.clone();
        corrupt[60] ^= 0x01;
        assert!(matches!(
            Checkpoint::decode(&corrupt),
            Err(CheckpointError::ChecksumMismatch { .. })
        ));
    }

    #[test]
    fn truncation_is_refused_as_truncated() {
        let bytes = sample().encode();
        for len in [0, 5, 8, 11, 30, 51, 52, 100, bytes.len() - 1] {
            match Checkpoint::decode(&bytes[..len]) {
                Err(CheckpointError::Truncated { found, .. }) => assert_eq!(found, len as u64),
                other => panic!("{len} bytes: expected Truncated, got {other:?}"),
            }
        }
    }

    #[test]
    fn trailing_bytes_are_refused() {
        let mut bytes = sample().encode();
        bytes.extend_from_slice(b"junk");
        assert!(Checkpoint::decode(&bytes).is_err());
    }

    #[test]
    fn wrong_magic_and_version_are_refused() {
        let mut bytes = sample().encode();
        bytes[..8].copy_from_slice(b"NOTSPINS");
        assert!(matches!(
            Checkpoint::decode(&bytes),
            Err(CheckpointError::NotCheckpoint)
        ));
        assert!(matches!(
            Checkpoint::decode(b"{\"json\": 1}"),
            Err(CheckpointError::NotCheckpoint)
        ));
        let mut bytes = sample().encode();
        bytes[8] = 1;
        let err = Checkpoint::decode(&bytes).unwrap_err();
        assert!(matches!(
            err,
            CheckpointError::UnsupportedVersion {
                found: 1,
                supported: 10
            }
        ));
        assert!(err.to_string().contains("version 1"), "{err}");
    }

    /// Version 3's spin bytes other than +-1, and version 5's bits past the last spin.
    #[test]
    fn invalid_spins_are_refused_even_with_a_valid_checksum() {
        let checkpoint = sample();
        let v3 = with_spin_bytes(&checkpoint.encode(), 3, HEADER_LEN, &checkpoint.spins);
        for (value, shown) in [(0u8, 0i8), (2, 2)] {
            let mut bad = v3.clone();
            bad[HEADER_LEN + 5] = value;
            let end = bad.len() - CRC_LEN;
            let crc = crc32fast::hash(&bad[..end]);
            bad[end..].copy_from_slice(&crc.to_le_bytes());
            match Checkpoint::decode(&bad) {
                Err(CheckpointError::BadSpin { index: 5, value }) => assert_eq!(value, shown),
                other => panic!("expected BadSpin at 5, got {other:?}"),
            }
        }
        let mut bad = checkpoint.encode();
        bad[HEADER_LEN + 4] |= 1; // bit 32 of 32 spins
        let end = bad.len() - CRC_LEN;
        let crc = crc32fast::hash(&bad[..end]);
        bad[end..].copy_from_slice(&crc.to_le_bytes());
        let err = Checkpoint::decode(&bad).unwrap_err();
        assert!(
            matches!(err, CheckpointError::SpinPadding { spins: 32 }),
            "{err}"
        );
    }

    /// A checkpoint is written through the CRC in pieces: the streamed file is the encoding.
    #[test]
    fn a_large_checkpoint_streams_to_the_same_bytes() {
        let checkpoint = Checkpoint {
            spins: signs(64 * SPIN_CHUNK_WORDS as u64 * 2 + 100, 7),
            ..sample()
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checkpoint.bin");
        checkpoint.save(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes, checkpoint.encode());
        assert_eq!(Checkpoint::decode(&bytes).unwrap(), checkpoint);
    }

    #[test]
    fn load_refuses_another_config_and_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checkpoint.bin");
        let checkpoint = sample();
        checkpoint.save(&path).unwrap();
        let other = fingerprint("(model: Ising(dims: 2, size: 8))");
        let err = Checkpoint::load(&path, &[other]).unwrap_err();
        let shown = err.to_string();
        assert!(
            shown.contains("checkpoint.bin") && shown.contains("different config"),
            "{shown}"
        );
        match load_error(&path, other) {
            CheckpointError::ConfigMismatch { expected, found } => {
                assert_eq!((expected, found), (other, checkpoint.config_fingerprint));
            }
            e => panic!("expected ConfigMismatch, got {e:?}"),
        }
    }

    #[test]
    fn load_reports_corruption_and_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checkpoint.bin");
        let checkpoint = sample();
        let mut bytes = checkpoint.encode();
        bytes.truncate(bytes.len() / 2);
        std::fs::write(&path, &bytes).unwrap();
        assert!(matches!(
            load_error(&path, checkpoint.config_fingerprint),
            CheckpointError::Truncated { .. }
        ));
        let missing = dir.path().join("absent.bin");
        let err = Checkpoint::load(&missing, &[0]).unwrap_err();
        assert!(matches!(err, CheckpointError::Io { .. }));
        assert!(err.to_string().contains("absent.bin"), "{err}");
    }

    #[test]
    fn every_layout_is_numbered_as_a_run_of_sweeps() {
        for format in FORMATS {
            assert_eq!(RunKind::of(format.number), Some(RunKind::Sweeps));
        }
        assert_eq!((HEADER_LEN, HEADER_LEN_2), (100, 68));
    }

    /// Every layout number of population annealing (formats 4 and 6) is refused as such.
    #[test]
    fn a_checkpoint_of_the_other_algorithm_is_refused_as_such() {
        for format in [4u32, 6] {
            let mut bytes = sample().encode();
            bytes[8..12].copy_from_slice(&format.to_le_bytes());
            let err = Checkpoint::decode(&bytes).unwrap_err();
            assert!(
                err.to_string().contains("of a population-annealing run")
                    && err
                        .to_string()
                        .contains("asks for a run of Metropolis sweeps"),
                "{err}"
            );
        }
    }
}
