//! The binary checkpoint of a run: enough to continue it bit-identically after a crash.
//!
//! Layout (version 3), all numbers little-endian:
//!
//! | offset | size | field                                          |
//! |--------|------|------------------------------------------------|
//! | 0      | 8    | magic `SPINFLIP`                               |
//! | 8      | 4    | format version (u32)                           |
//! | 12     | 8    | config fingerprint (u64)                       |
//! | 20     | 8    | sweeps done (u64)                              |
//! | 28     | 8    | number of spins S (u64)                        |
//! | 36     | 8    | number of bond sums B (u64)                    |
//! | 44     | 8    | number of magnetisations M (u64)               |
//! | 52     | 8    | number of overlaps Q (u64)                     |
//! | 60     | 8    | number of overlap Fourier moduli K (u64)       |
//! | 68     | 8    | number of link overlap differences Λ (u64)     |
//! | 76     | 8    | number of ladder betas T (u64)                 |
//! | 84     | 8    | words of tempering state P (u64)               |
//! | 92     | 8    | words of temperature history H (u64)           |
//! | 100    | S    | spins, one i8 each (+1 or -1)                  |
//! |        | 8 B  | bond sums (i64)                                |
//! |        | 8 M  | magnetisations (i64)                           |
//! |        | 8 Q  | overlap differences (i64)                      |
//! |        | 8 K  | overlap Fourier moduli (f64)                   |
//! |        | 8 Λ  | link overlap differences (i64)                 |
//! |        | 8 T  | the tempering ladder, tuned or not (f64)       |
//! |        | 4 P  | tempering state (u32, [`crate::engine::tempering`]) |
//! |        | 4 H  | temperature history (u32, `[measurement][r][k]`) |
//! |        | 4    | CRC-32 (IEEE) of every byte before it          |
//!
//! Version 2 (before parallel tempering and the link overlap) lacks Λ, T, P and H and their
//! counts; it is still read, with an empty link overlap series.

use std::path::{Path, PathBuf};

use super::atomic::write_atomic;

const MAGIC: &[u8; 8] = b"SPINFLIP";
const VERSION: u32 = 3;
/// The version before parallel tempering, still read.
const VERSION_2: u32 = 2;
/// Bytes before the spins (version 3, and version 2).
const HEADER_LEN: usize = 100;
const HEADER_LEN_2: usize = 68;
const CRC_LEN: usize = 4;

/// Why a checkpoint cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("not a spinflip checkpoint (no SPINFLIP magic)")]
    NotCheckpoint,
    #[error("unsupported checkpoint format version {found} (this build reads version {supported})")]
    UnsupportedVersion { found: u32, supported: u32 },
    #[error("truncated checkpoint: {found} bytes, expected {expected}")]
    Truncated { expected: u64, found: u64 },
    #[error("corrupt checkpoint: {found} bytes, but its header describes {expected}")]
    TrailingBytes { expected: u64, found: u64 },
    #[error(
        "corrupt checkpoint: checksum mismatch (stored {stored:#010x}, computed {computed:#010x})"
    )]
    ChecksumMismatch { stored: u32, computed: u32 },
    #[error("corrupt checkpoint: spin #{index} is {value}, not +1 or -1")]
    BadSpin { index: usize, value: i8 },
    #[error(
        "checkpoint was written by a different config (fingerprint {found:#018x}, this config has \
         {expected:#018x}); the config.ron the run wrote beside it is the one it ran (a config \
         without `engine` from before engine: Auto ran the simple engine)"
    )]
    ConfigMismatch { expected: u64, found: u64 },
    #[error("checkpoint {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Any of the above, found in the file at `path`.
    #[error("checkpoint {}: {source}", path.display())]
    InFile {
        path: PathBuf,
        source: Box<CheckpointError>,
    },
}

/// The state of a run after `sweeps_done` sweeps.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    /// [`fingerprint`] of the resolved config text, so a checkpoint of another config is refused.
    pub config_fingerprint: u64,
    /// Sweeps completed (thermalisation + measurement), the same for all systems.
    pub sweeps_done: u64,
    /// All systems' lattices, +1/-1, system-major.
    pub spins: Vec<i32>,
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
}

impl Checkpoint {
    /// The file's bytes (see the module documentation for the layout).
    pub fn encode(&self) -> Vec<u8> {
        let len = HEADER_LEN
            + self.spins.len()
            + 8 * (self.bond_sums.len()
                + self.magnetisations.len()
                + self.overlaps.len()
                + self.overlaps_kmin.len()
                + self.link_overlaps.len()
                + self.betas.len())
            + 4 * (self.tempering.len() + self.temperature_history.len())
            + CRC_LEN;
        let mut out = Vec::with_capacity(len);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        for word in [
            self.config_fingerprint,
            self.sweeps_done,
            self.spins.len() as u64,
            self.bond_sums.len() as u64,
            self.magnetisations.len() as u64,
            self.overlaps.len() as u64,
            self.overlaps_kmin.len() as u64,
            self.link_overlaps.len() as u64,
            self.betas.len() as u64,
            self.tempering.len() as u64,
            self.temperature_history.len() as u64,
        ] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend(self.spins.iter().map(|&s| spin_byte(s)));
        for value in self
            .bond_sums
            .iter()
            .chain(&self.magnetisations)
            .chain(&self.overlaps)
        {
            out.extend_from_slice(&value.to_le_bytes());
        }
        for value in &self.overlaps_kmin {
            out.extend_from_slice(&value.to_le_bytes());
        }
        for value in &self.link_overlaps {
            out.extend_from_slice(&value.to_le_bytes());
        }
        for value in &self.betas {
            out.extend_from_slice(&value.to_le_bytes());
        }
        for value in self.tempering.iter().chain(&self.temperature_history) {
            out.extend_from_slice(&value.to_le_bytes());
        }
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// Parse and verify a checkpoint's bytes; every inconsistency is an error.
    pub fn decode(bytes: &[u8]) -> Result<Checkpoint, CheckpointError> {
        check_magic(bytes)?;
        let mut reader = Reader {
            bytes,
            pos: MAGIC.len(),
        };
        let found = reader.u32()?;
        let (header_len, count_words) = match found {
            VERSION => (HEADER_LEN, 9),
            VERSION_2 => (HEADER_LEN_2, 5),
            _ => {
                return Err(CheckpointError::UnsupportedVersion {
                    found,
                    supported: VERSION,
                });
            }
        };
        let config_fingerprint = reader.u64()?;
        let sweeps_done = reader.u64()?;
        let mut counts = [0u64; 9];
        // Version 2 has the first five counts only.
        for count in &mut counts[..count_words] {
            *count = reader.u64()?;
        }
        verify_size_and_checksum(bytes, file_len(header_len, counts))?;
        let [
            spins,
            bond_sums,
            magnetisations,
            overlaps,
            overlaps_kmin,
            link_overlaps,
            betas,
            tempering,
            temperature_history,
        ] = counts.map(|c| c as usize);
        let spins = decode_spins(reader.take(spins)?)?;
        Ok(Checkpoint {
            config_fingerprint,
            sweeps_done,
            spins,
            bond_sums: reader.i64s(bond_sums)?,
            magnetisations: reader.i64s(magnetisations)?,
            overlaps: reader.i64s(overlaps)?,
            overlaps_kmin: reader.f64s(overlaps_kmin)?,
            link_overlaps: reader.i64s(link_overlaps)?,
            betas: reader.f64s(betas)?,
            tempering: reader.u32s(tempering)?,
            temperature_history: reader.u32s(temperature_history)?,
        })
    }

    /// Write to `path` atomically: a crash leaves the previous checkpoint intact.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        write_atomic(path, &self.encode())
    }

    /// Read and verify the checkpoint at `path`, refusing one written for another config.
    pub fn load(path: &Path, expected_fingerprint: u64) -> Result<Checkpoint, CheckpointError> {
        let bytes = std::fs::read(path).map_err(|source| CheckpointError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let in_file = |e| CheckpointError::InFile {
            path: path.to_path_buf(),
            source: Box::new(e),
        };
        let checkpoint = Checkpoint::decode(&bytes).map_err(in_file)?;
        if checkpoint.config_fingerprint != expected_fingerprint {
            return Err(in_file(CheckpointError::ConfigMismatch {
                expected: expected_fingerprint,
                found: checkpoint.config_fingerprint,
            }));
        }
        Ok(checkpoint)
    }
}

/// FNV-1a (64-bit) of `text`: a stable fingerprint of the resolved config.
pub fn fingerprint(text: &str) -> u64 {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    text.bytes().fold(OFFSET_BASIS, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    })
}

/// A spin's byte. Anything but +-1 becomes 0, which `decode` refuses, rather than being silently
/// truncated into a valid-looking spin.
fn spin_byte(spin: i32) -> u8 {
    match spin {
        1 => 1,
        -1 => (-1i8) as u8,
        _ => 0,
    }
}

fn decode_spins(bytes: &[u8]) -> Result<Vec<i32>, CheckpointError> {
    bytes
        .iter()
        .enumerate()
        .map(|(index, &b)| match b as i8 {
            value @ (1 | -1) => Ok(i32::from(value)),
            value => Err(CheckpointError::BadSpin { index, value }),
        })
        .collect()
}

fn check_magic(bytes: &[u8]) -> Result<(), CheckpointError> {
    let head = &bytes[..bytes.len().min(MAGIC.len())];
    if !MAGIC.starts_with(head) {
        return Err(CheckpointError::NotCheckpoint);
    }
    if head.len() < MAGIC.len() {
        return Err(truncated(HEADER_LEN as u64 + CRC_LEN as u64, bytes.len()));
    }
    Ok(())
}

/// Total file size the header's counts describe (saturating: absurd counts fail the size check):
/// one byte per spin, eight per series value, four per tempering word.
fn file_len(header_len: usize, [spins, series @ .., tempering, history]: [u64; 9]) -> u64 {
    let sum = |counts: &[u64]| counts.iter().fold(0u64, |sum, &c| sum.saturating_add(c));
    ((header_len + CRC_LEN) as u64)
        .saturating_add(spins)
        .saturating_add(sum(&series).saturating_mul(8))
        .saturating_add(sum(&[tempering, history]).saturating_mul(4))
}

/// A torn write shows as a short file with a bad checksum; a bit flip as a bad checksum.
fn verify_size_and_checksum(bytes: &[u8], expected: u64) -> Result<(), CheckpointError> {
    let found = bytes.len() as u64;
    if found < expected {
        return Err(truncated(expected, bytes.len()));
    }
    let (body, stored) = bytes.split_at(bytes.len() - CRC_LEN);
    let stored = u32::from_le_bytes(stored.try_into().expect("split_at leaves CRC_LEN bytes"));
    let computed = crc32fast::hash(body);
    if stored != computed {
        return Err(CheckpointError::ChecksumMismatch { stored, computed });
    }
    if found > expected {
        return Err(CheckpointError::TrailingBytes { expected, found });
    }
    Ok(())
}

fn truncated(expected: u64, found: usize) -> CheckpointError {
    CheckpointError::Truncated {
        expected,
        found: found as u64,
    }
}

/// Little-endian reads from the front of a checkpoint; running off the end is `Truncated`.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], CheckpointError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len());
        let end = end.ok_or_else(|| truncated(self.pos as u64 + n as u64, self.bytes.len()))?;
        let slice = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], CheckpointError> {
        Ok(self
            .take(N)?
            .try_into()
            .expect("take returns exactly N bytes"))
    }

    fn u32(&mut self) -> Result<u32, CheckpointError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, CheckpointError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn f64s(&mut self, count: usize) -> Result<Vec<f64>, CheckpointError> {
        Ok(self
            .i64s(count)?
            .into_iter()
            .map(|bits| f64::from_bits(bits as u64))
            .collect())
    }

    fn u32s(&mut self, count: usize) -> Result<Vec<u32>, CheckpointError> {
        let bytes = self.take(count.saturating_mul(4))?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("chunks_exact yields 4 bytes")))
            .collect())
    }

    fn i64s(&mut self, count: usize) -> Result<Vec<i64>, CheckpointError> {
        let bytes = self.take(count.saturating_mul(8))?;
        Ok(bytes
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().expect("chunks_exact yields 8 bytes")))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Checkpoint {
        Checkpoint {
            config_fingerprint: fingerprint("(model: Ising(dims: 2, size: 4))"),
            sweeps_done: 123_456_789_012,
            spins: (0..32).map(|i| if i % 3 == 0 { 1 } else { -1 }).collect(),
            bond_sums: vec![-32, 16, i64::MIN, i64::MAX],
            magnetisations: vec![-16, 0, 16, 2],
            overlaps: vec![3, 0, 7],
            overlaps_kmin: vec![0.25, 1e-300, -0.0],
            link_overlaps: vec![5, 0, 11],
            betas: vec![0.5, 0.25],
            tempering: vec![1, 0, 2, 0, 1, 0, 7, 9],
            temperature_history: vec![0, 1, 1, 0],
        }
    }

    /// The error of `load`, without the file name it is wrapped in.
    fn load_error(path: &Path, expected_fingerprint: u64) -> CheckpointError {
        match Checkpoint::load(path, expected_fingerprint) {
            Err(CheckpointError::InFile { path: p, source }) => {
                assert_eq!(p, path);
                *source
            }
            other => panic!("expected an error in the file, got {other:?}"),
        }
    }

    #[test]
    fn fingerprint_is_fnv1a_64() {
        // Published FNV-1a 64 test vectors.
        assert_eq!(fingerprint(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fingerprint("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fingerprint("foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn layout_matches_the_documented_format() {
        let checkpoint = sample();
        let bytes = checkpoint.encode();
        assert_eq!(&bytes[..8], b"SPINFLIP");
        assert_eq!(bytes[8..12], [3, 0, 0, 0]);
        assert_eq!(bytes[20..28], 123_456_789_012u64.to_le_bytes());
        assert_eq!(bytes[28..36], 32u64.to_le_bytes());
        assert_eq!(bytes[52..60], 3u64.to_le_bytes(), "overlap count");
        assert_eq!(bytes[68..76], 3u64.to_le_bytes(), "link overlap count");
        assert_eq!(bytes[76..84], 2u64.to_le_bytes(), "ladder betas");
        assert_eq!(bytes[84..92], 8u64.to_le_bytes(), "tempering words");
        assert_eq!(bytes[92..100], 4u64.to_le_bytes(), "history words");
        assert_eq!(
            bytes[100..103],
            [1, 0xff, 0xff],
            "spins +1, -1, -1 as bytes"
        );
        assert_eq!(
            bytes.len(),
            100 + 32 + 8 * (8 + 3 + 3 + 3 + 2) + 4 * (8 + 4) + 4
        );
        let first_kmin = 100 + 32 + 8 * (8 + 3);
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
            Checkpoint::load(&path, checkpoint.config_fingerprint).unwrap(),
            checkpoint
        );
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
        let v3 = checkpoint.encode();
        let mut v2 = v3[..HEADER_LEN_2].to_vec();
        v2[8..12].copy_from_slice(&2u32.to_le_bytes());
        v2.extend_from_slice(&v3[HEADER_LEN..v3.len() - CRC_LEN]);
        let crc = crc32fast::hash(&v2);
        v2.extend_from_slice(&crc.to_le_bytes());
        assert_eq!(Checkpoint::decode(&v2).unwrap(), checkpoint);
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
                supported: 3
            }
        ));
        assert!(err.to_string().contains("version 1"), "{err}");
    }

    #[test]
    fn invalid_spins_are_refused_even_with_a_valid_checksum() {
        let mut checkpoint = sample();
        checkpoint.spins[5] = 0;
        match Checkpoint::decode(&checkpoint.encode()) {
            Err(CheckpointError::BadSpin { index: 5, value: 0 }) => {}
            other => panic!("expected BadSpin at 5, got {other:?}"),
        }
        checkpoint.spins[5] = 255; // would truncate to the byte of -1
        assert!(matches!(
            Checkpoint::decode(&checkpoint.encode()),
            Err(CheckpointError::BadSpin { index: 5, .. })
        ));
    }

    #[test]
    fn load_refuses_another_config_and_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checkpoint.bin");
        let checkpoint = sample();
        checkpoint.save(&path).unwrap();
        let other = fingerprint("(model: Ising(dims: 2, size: 8))");
        let err = Checkpoint::load(&path, other).unwrap_err();
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
        let err = Checkpoint::load(&missing, 0).unwrap_err();
        assert!(matches!(err, CheckpointError::Io { .. }));
        assert!(err.to_string().contains("absent.bin"), "{err}");
    }
}
