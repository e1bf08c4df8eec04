//! The binary checkpoint of a run: enough to continue it bit-identically after a crash.
//!
//! Layout (version 5), all numbers little-endian:
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
//! |        | 4    | CRC-32 (IEEE) of every byte before it          |
//!
//! The spins are the run's [`SpinBits`]: spin `i` of system `b` is bit `(b N + i) mod 64` of
//! word `(b N + i) / 64`, bits past the last spin zero; 32 times smaller than `i32` lattices.
//! They are streamed from the engine's download to the file in chunks ([`Checkpoint::save`]).
//! Version 3 (before packed spins) is the same with the spins one i8 each (+1 or -1); version 2
//! (before parallel tempering and the link overlap) also lacks Λ, T, P and H and their counts.
//! Both are still read (version 2 with an empty link overlap series).
//!
//! The word at offset 8 names the layout, one number per layout of either kind: 2, 3 and 5
//! are runs of Metropolis sweeps (with or without parallel tempering, [`Checkpoint`]), 4 and 6
//! population annealing ([`AnnealingCheckpoint`], 4 with spins one byte each and without the
//! pair overlaps and histograms, still read), written between temperature steps:
//!
//! | offset | size | field                                          |
//! |--------|------|------------------------------------------------|
//! | 0      | 8    | magic `SPINFLIP`                               |
//! | 8      | 4    | format 6 (u32)                                 |
//! | 12     | 8    | config fingerprint (u64)                       |
//! | 20     | 8    | sweeps done (u64)                              |
//! | 28     | 8    | number of spins S, every slot (u64)            |
//! | 36     | 8    | number of populations P (u64)                  |
//! | 44     | 8    | steps done T: betas after 0 so far (u64)      |
//! | 52     | 8    | family labels F, all populations (u64)         |
//! | 60     | 8    | energy histogram bins H, all populations (u64) |
//! | 68     | 8 ⌈S/64⌉ | spins, one bit each (u64 words, as above)  |
//! |        | 8 T  | the schedule so far (f64)                      |
//! |        | 8 P  | per population, ln Z so far (f64)              |
//! |        | 4 P  | per population, its size R_p (u32)            |
//! |        | 4 F  | per replica, its family (u32, population-major) |
//! |        | 160 P T | per population and step, the estimates (20 words: f64, the population and family counts u64) |
//! |        | 4 P  | per population, its histogram's bins (u32)     |
//! |        | 16 H | the bins: energy (i64) and count (u64), energies increasing per population |
//! |        | 4    | CRC-32 (IEEE) of every byte before it          |
//!
//! Format 4 (before the overlaps and the histograms) lacks H and its two sections, and its
//! estimate records end before the last four words (the pair overlaps); it is still read, with
//! the pair overlaps NaN and the histograms empty.
//!
//! A new layout of either kind takes the next free number. A checkpoint of one kind offered to
//! a run of the other is refused as such ([`CheckpointError::OtherAlgorithm`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use super::atomic::write_atomic_with;
use crate::annealing::{AnnealingEstimates, EnergyHistogram, PairOverlaps, Population};
use crate::engine::spins::{SpinBits, words_for};

const MAGIC: &[u8; 8] = b"SPINFLIP";
/// Metropolis and tempering runs with packed spins.
const VERSION: u32 = 5;
/// The version before packed spins (one byte per spin), still read.
const VERSION_3: u32 = 3;
/// The version before parallel tempering, still read.
const VERSION_2: u32 = 2;
/// Bytes before the spins (versions 5 and 3, and version 2).
const HEADER_LEN: usize = 100;
const HEADER_LEN_2: usize = 68;
/// Bytes per item of each count of the header after the spins: eight per series value and
/// ladder beta, four per tempering and history word.
const COUNT_WIDTHS: [u64; 8] = [8, 8, 8, 8, 8, 8, 4, 4];
const CRC_LEN: usize = 4;
/// The layout of population-annealing checkpoints with packed spins, and its bytes before the
/// spins.
const ANNEALING_FORMAT: u32 = 6;
const ANNEALING_HEADER_LEN: usize = 68;
/// Spin words converted to bytes at a time while a checkpoint is streamed (1 MiB).
const SPIN_CHUNK_WORDS: usize = 1 << 17;
/// Bytes buffered between the encoder and the file.
const WRITE_BUFFER: usize = 1 << 20;
/// Words of one [`AnnealingEstimates`] record.
const ESTIMATE_WORDS: usize = 20;
/// The annealing layout before the pair overlaps and the histograms, still read.
const ANNEALING_FORMAT_4: u32 = 4;
const ANNEALING_HEADER_LEN_4: usize = 60;
const ESTIMATE_WORDS_4: usize = 16;
/// What each kind of checkpoint continues, for [`CheckpointError::OtherAlgorithm`].
const SWEEP_RUN: &str = "a run of Metropolis sweeps (algorithm: Metropolis or Tempering)";
const ANNEALING_RUN: &str = "a population-annealing run (algorithm: Annealing)";

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
    #[error(
        "this checkpoint is of {found}, but the config asks for {expected}; resume it with the \
         config.ron beside it"
    )]
    OtherAlgorithm {
        found: &'static str,
        expected: &'static str,
    },
    #[error("corrupt checkpoint: {0}")]
    Inconsistent(String),
    #[error("corrupt checkpoint: spin #{index} is {value}, not +1 or -1")]
    BadSpin { index: usize, value: i8 },
    #[error("corrupt checkpoint: bits set past the last of its {spins} spins")]
    SpinPadding { spins: u64 },
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
}

impl Checkpoint {
    /// The file's bytes (see the module documentation for the layout).
    pub fn encode(&self) -> Vec<u8> {
        encode_with(|out| self.write_to(out))
    }

    /// Write the file's bytes into `out` (the CRC included), the spins in chunks.
    fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        let mut out = Crc::new(out);
        header(
            &mut out,
            VERSION,
            self.config_fingerprint,
            self.sweeps_done,
            &[
                self.spins.len() as usize,
                self.bond_sums.len(),
                self.magnetisations.len(),
                self.overlaps.len(),
                self.overlaps_kmin.len(),
                self.link_overlaps.len(),
                self.betas.len(),
                self.tempering.len(),
                self.temperature_history.len(),
            ],
        )?;
        put_spins(&mut out, &self.spins)?;
        let integers = self
            .bond_sums
            .iter()
            .chain(&self.magnetisations)
            .chain(&self.overlaps);
        put(&mut out, integers.map(|v| v.to_le_bytes()))?;
        put(&mut out, self.overlaps_kmin.iter().map(|v| v.to_le_bytes()))?;
        put(&mut out, self.link_overlaps.iter().map(|v| v.to_le_bytes()))?;
        put(&mut out, self.betas.iter().map(|v| v.to_le_bytes()))?;
        let words = self.tempering.iter().chain(&self.temperature_history);
        put(&mut out, words.map(|v| v.to_le_bytes()))?;
        out.seal()
    }

    /// Parse and verify a checkpoint's bytes; every inconsistency is an error.
    pub fn decode(bytes: &[u8]) -> Result<Checkpoint, CheckpointError> {
        let (mut reader, found) = open(bytes)?;
        let (header_len, count_words) = match found {
            VERSION | VERSION_3 => (HEADER_LEN, 9),
            VERSION_2 => (HEADER_LEN_2, 5),
            ANNEALING_FORMAT | ANNEALING_FORMAT_4 => {
                return Err(CheckpointError::OtherAlgorithm {
                    found: ANNEALING_RUN,
                    expected: SWEEP_RUN,
                });
            }
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
        let packed = found == VERSION;
        let items: Vec<(u64, u64)> = std::iter::once(spin_section(counts[0], packed))
            .chain(counts[1..].iter().copied().zip(COUNT_WIDTHS))
            .collect();
        verify_size_and_checksum(bytes, file_len(header_len, &items))?;
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
        let spins = read_spins(&mut reader, spins as u64, packed)?;
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

    /// Write to `path` atomically, streamed: a crash leaves the previous checkpoint intact.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        save_with(path, |out| self.write_to(out))
    }

    /// Read and verify the checkpoint at `path`, refusing one written for another config.
    pub fn load(path: &Path, expected_fingerprint: u64) -> Result<Checkpoint, CheckpointError> {
        load_file(path, expected_fingerprint, Checkpoint::decode, |c| {
            c.config_fingerprint
        })
    }
}

/// The state of a population-annealing run between temperature steps: with the config, all it
/// needs to continue bit-identically. The beta is the schedule's last (0 before the first
/// step), the step index its length; the resampling and Metropolis randoms are keyed by the
/// step and the sweep count, so no generator state is kept.
#[derive(Debug, Clone, PartialEq)]
pub struct AnnealingCheckpoint {
    /// [`fingerprint`] of the resolved config text.
    pub config_fingerprint: u64,
    /// Sweeps completed, `theta` per step.
    pub sweeps_done: u64,
    /// The betas after 0 so far (as configured, or as the adaptive schedule chose them).
    pub schedule: Vec<f64>,
    /// Every engine slot's lattice, idle ones included, one bit per spin; decoded as one run
    /// of `S` spins, as [`Checkpoint::spins`].
    pub spins: SpinBits,
    /// Per population (`sample runs + run`): its families, ln Z and estimates so far.
    pub populations: Vec<Population>,
}

impl AnnealingCheckpoint {
    /// The file's bytes (see the module documentation for the layout).
    pub fn encode(&self) -> Vec<u8> {
        encode_with(|out| self.write_to(out))
    }

    /// Write the file's bytes into `out` (the CRC included), the spins in chunks.
    fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        let mut out = Crc::new(out);
        let populations = &self.populations;
        let labels = populations.iter().map(|p| p.families.len()).sum();
        let bins = populations.iter().map(|p| p.histogram.counts.len()).sum();
        header(
            &mut out,
            ANNEALING_FORMAT,
            self.config_fingerprint,
            self.sweeps_done,
            &[
                self.spins.len() as usize,
                populations.len(),
                self.schedule.len(),
                labels,
                bins,
            ],
        )?;
        put_spins(&mut out, &self.spins)?;
        put(&mut out, self.schedule.iter().map(|b| b.to_le_bytes()))?;
        put(&mut out, populations.iter().map(|p| p.ln_z.to_le_bytes()))?;
        let sizes = populations.iter().map(|p| p.families.len() as u32);
        put(&mut out, sizes.map(u32::to_le_bytes))?;
        let families = populations.iter().flat_map(|p| &p.families);
        put(&mut out, families.map(|f| f.to_le_bytes()))?;
        let records = populations.iter().flat_map(|p| &p.estimates);
        put(
            &mut out,
            records.flat_map(estimate_words).map(u64::to_le_bytes),
        )?;
        let histograms = populations.iter().map(|p| &p.histogram.counts);
        put(
            &mut out,
            histograms.clone().map(|h| (h.len() as u32).to_le_bytes()),
        )?;
        for (&energy, &count) in histograms.flatten() {
            put(
                &mut out,
                [energy.to_le_bytes(), count.to_le_bytes()].into_iter(),
            )?;
        }
        out.seal()
    }

    /// Parse and verify a checkpoint's bytes; every inconsistency is an error.
    pub fn decode(bytes: &[u8]) -> Result<AnnealingCheckpoint, CheckpointError> {
        let (mut reader, found) = open(bytes)?;
        let (header_len, record_words, packed) = match found {
            ANNEALING_FORMAT => (ANNEALING_HEADER_LEN, ESTIMATE_WORDS, true),
            ANNEALING_FORMAT_4 => (ANNEALING_HEADER_LEN_4, ESTIMATE_WORDS_4, false),
            VERSION | VERSION_3 | VERSION_2 => {
                return Err(CheckpointError::OtherAlgorithm {
                    found: SWEEP_RUN,
                    expected: ANNEALING_RUN,
                });
            }
            _ => {
                return Err(CheckpointError::UnsupportedVersion {
                    found,
                    supported: ANNEALING_FORMAT,
                });
            }
        };
        let config_fingerprint = reader.u64()?;
        let sweeps_done = reader.u64()?;
        let [spins, populations, steps, labels] =
            [reader.u64()?, reader.u64()?, reader.u64()?, reader.u64()?];
        let (histograms, bins) = match found {
            ANNEALING_FORMAT => (populations, reader.u64()?),
            _ => (0, 0),
        };
        let words = populations
            .saturating_mul(steps)
            .saturating_mul(record_words as u64);
        let items = [
            spin_section(spins, packed),
            (steps, 8),
            (populations, 8),
            (populations, 4),
            (labels, 4),
            (words, 8),
            (histograms, 4),
            (bins, 16),
        ];
        verify_size_and_checksum(bytes, file_len(header_len, &items))?;
        let spins = read_spins(&mut reader, spins, packed)?;
        let [populations, steps, labels, words, histograms, bins] =
            [populations, steps, labels, words, histograms, bins].map(|c| c as usize);
        let schedule = reader.f64s(steps)?;
        let ln_z = reader.f64s(populations)?;
        let sizes = reader.u32s(populations)?;
        let labels = reader.u32s(labels)?;
        let records = reader.i64s(words)?;
        let histogram_sizes = reader.u32s(histograms)?;
        let bins = reader.i64s(2 * bins)?;
        let mut populations =
            split_populations(ln_z, &sizes, labels, &records, steps, record_words)?;
        if found == ANNEALING_FORMAT {
            let histograms = split_histograms(&histogram_sizes, &bins)?;
            for (population, histogram) in populations.iter_mut().zip(histograms) {
                population.histogram = histogram;
            }
        }
        Ok(AnnealingCheckpoint {
            config_fingerprint,
            sweeps_done,
            schedule,
            spins,
            populations,
        })
    }

    /// Write to `path` atomically, streamed: a crash leaves the previous checkpoint intact.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        save_with(path, |out| self.write_to(out))
    }

    /// Read and verify the checkpoint at `path`, refusing one written for another config.
    pub fn load(
        path: &Path,
        expected_fingerprint: u64,
    ) -> Result<AnnealingCheckpoint, CheckpointError> {
        load_file(
            path,
            expected_fingerprint,
            AnnealingCheckpoint::decode,
            |c| c.config_fingerprint,
        )
    }
}

/// Read the file at `path`, decode it and refuse it if it was written for another config;
/// every error names the file.
fn load_file<T>(
    path: &Path,
    expected_fingerprint: u64,
    decode: fn(&[u8]) -> Result<T, CheckpointError>,
    fingerprint_of: fn(&T) -> u64,
) -> Result<T, CheckpointError> {
    let bytes = std::fs::read(path).map_err(|source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let in_file = |e| CheckpointError::InFile {
        path: path.to_path_buf(),
        source: Box::new(e),
    };
    let checkpoint = decode(&bytes).map_err(in_file)?;
    let found = fingerprint_of(&checkpoint);
    if found != expected_fingerprint {
        return Err(in_file(CheckpointError::ConfigMismatch {
            expected: expected_fingerprint,
            found,
        }));
    }
    Ok(checkpoint)
}

/// The magic, `format`, the fingerprint, the sweeps done and the item counts.
fn header(
    out: &mut impl Write,
    format: u32,
    config_fingerprint: u64,
    sweeps_done: u64,
    counts: &[usize],
) -> std::io::Result<()> {
    out.write_all(MAGIC)?;
    out.write_all(&format.to_le_bytes())?;
    let words = [config_fingerprint, sweeps_done]
        .into_iter()
        .chain(counts.iter().map(|&c| c as u64));
    put(out, words.map(u64::to_le_bytes))
}

/// Write every value's little-endian bytes.
fn put<const N: usize>(
    out: &mut impl Write,
    values: impl Iterator<Item = [u8; N]>,
) -> std::io::Result<()> {
    for bytes in values {
        out.write_all(&bytes)?;
    }
    Ok(())
}

/// Write the spin words little-endian, converting [`SPIN_CHUNK_WORDS`] at a time.
fn put_spins(out: &mut impl Write, spins: &SpinBits) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(8 * SPIN_CHUNK_WORDS);
    for chunk in spins.words().chunks(SPIN_CHUNK_WORDS) {
        bytes.clear();
        bytes.extend(chunk.iter().flat_map(|w| w.to_le_bytes()));
        out.write_all(&bytes)?;
    }
    Ok(())
}

/// A writer that passes every byte on and keeps the CRC-32 of them, for the checksum at the
/// end of a checkpoint written in pieces.
struct Crc<W> {
    inner: W,
    crc: crc32fast::Hasher,
}

impl<W: Write> Crc<W> {
    fn new(inner: W) -> Self {
        Crc {
            inner,
            crc: crc32fast::Hasher::new(),
        }
    }

    /// Append the CRC of everything written so far.
    fn seal(self) -> std::io::Result<()> {
        let Crc { mut inner, crc } = self;
        inner.write_all(&crc.finalize().to_le_bytes())
    }
}

impl<W: Write> Write for Crc<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The bytes a checkpoint's `write_to` writes.
fn encode_with(write_to: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> Vec<u8> {
    let mut out = Vec::new();
    write_to(&mut out).expect("writing into a Vec cannot fail");
    out
}

/// Stream a checkpoint's `write_to` into `path` atomically, through a buffer.
fn save_with(
    path: &Path,
    write_to: impl FnOnce(&mut std::io::BufWriter<&mut std::fs::File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    write_atomic_with(path, |file| {
        let mut out = std::io::BufWriter::with_capacity(WRITE_BUFFER, file);
        write_to(&mut out)?;
        out.flush()
    })
}

/// The (count, width) of the spin section of `spins` spins: 64-bit words of bits, or one byte
/// each before packed spins.
fn spin_section(spins: u64, packed: bool) -> (u64, u64) {
    match packed {
        true => (spins.div_ceil(64), 8),
        false => (spins, 1),
    }
}

/// The spin section: `spins` spins as words of bits (`packed`) or one byte each.
fn read_spins(reader: &mut Reader, spins: u64, packed: bool) -> Result<SpinBits, CheckpointError> {
    if !packed {
        return decode_spin_bytes(reader.take(spins as usize)?);
    }
    let words = reader
        .take(8 * words_for(spins))?
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("chunks_exact yields 8 bytes")))
        .collect();
    SpinBits::from_words(1, spins, words).map_err(|_| CheckpointError::SpinPadding { spins })
}

/// A checkpoint's format word after its magic, and a reader standing after it.
fn open(bytes: &[u8]) -> Result<(Reader<'_>, u32), CheckpointError> {
    check_magic(bytes)?;
    let mut reader = Reader {
        bytes,
        pos: MAGIC.len(),
    };
    let format = reader.u32()?;
    Ok((reader, format))
}

/// An estimate record's words: the two counts as integers, every other field as its f64 bits,
/// so a resumed run reproduces them to the bit.
fn estimate_words(a: &AnnealingEstimates) -> [u64; ESTIMATE_WORDS] {
    [
        a.beta.to_bits(),
        u64::from(a.population),
        a.e.to_bits(),
        a.c.to_bits(),
        a.abs_m.to_bits(),
        a.m2.to_bits(),
        a.m4.to_bits(),
        a.u4.to_bits(),
        a.ln_z.to_bits(),
        a.f.to_bits(),
        a.s.to_bits(),
        a.overlap.to_bits(),
        a.effective_population.to_bits(),
        u64::from(a.families),
        a.rho_t.to_bits(),
        a.rho_s.to_bits(),
        a.pairs.q2.to_bits(),
        a.pairs.q4.to_bits(),
        a.pairs.q2_kmin.to_bits(),
        a.pairs.ql.to_bits(),
    ]
}

/// The inverse of [`estimate_words`] (`words` holds [`ESTIMATE_WORDS`], or
/// [`ESTIMATE_WORDS_4`] from format 4, without the pair overlaps).
fn estimate_of_words(words: &[i64]) -> Result<AnnealingEstimates, CheckpointError> {
    let real = |i: usize| f64::from_bits(words[i] as u64);
    let count = |i: usize| {
        u32::try_from(words[i]).map_err(|_| {
            CheckpointError::Inconsistent(format!("an estimate record counts {}", words[i]))
        })
    };
    Ok(AnnealingEstimates {
        beta: real(0),
        population: count(1)?,
        e: real(2),
        c: real(3),
        abs_m: real(4),
        m2: real(5),
        m4: real(6),
        u4: real(7),
        ln_z: real(8),
        f: real(9),
        s: real(10),
        overlap: real(11),
        effective_population: real(12),
        families: count(13)?,
        rho_t: real(14),
        rho_s: real(15),
        pairs: match words.len() {
            ESTIMATE_WORDS => PairOverlaps {
                q2: real(16),
                q4: real(17),
                q2_kmin: real(18),
                ql: real(19),
            },
            _ => PairOverlaps::MISSING,
        },
    })
}

/// The populations of a checkpoint: population `p` has `sizes[p]` of the family `labels` (in
/// population order) and `steps` estimate records of `record_words` words of `records`.
fn split_populations(
    ln_z: Vec<f64>,
    sizes: &[u32],
    labels: Vec<u32>,
    records: &[i64],
    steps: usize,
    record_words: usize,
) -> Result<Vec<Population>, CheckpointError> {
    let total: u64 = sizes.iter().map(|&n| u64::from(n)).sum();
    if total != labels.len() as u64 {
        return Err(CheckpointError::Inconsistent(format!(
            "the population sizes add up to {total}, but it holds {} family labels",
            labels.len()
        )));
    }
    let per_population = steps * record_words;
    let mut labels = labels.into_iter();
    sizes
        .iter()
        .zip(ln_z)
        .enumerate()
        .map(|(p, (&size, ln_z))| {
            let words = &records[p * per_population..][..per_population];
            Ok(Population {
                families: labels.by_ref().take(size as usize).collect(),
                ln_z,
                estimates: words
                    .chunks_exact(record_words)
                    .map(estimate_of_words)
                    .collect::<Result<_, _>>()?,
                histogram: EnergyHistogram::default(),
            })
        })
        .collect()
}

/// The energy histograms of a checkpoint: population `p` has `sizes[p]` of the (energy, count)
/// pairs `bins`, energies increasing.
fn split_histograms(sizes: &[u32], bins: &[i64]) -> Result<Vec<EnergyHistogram>, CheckpointError> {
    let total: u64 = sizes.iter().map(|&n| u64::from(n)).sum();
    if 2 * total != bins.len() as u64 {
        return Err(CheckpointError::Inconsistent(format!(
            "the histogram sizes add up to {total} bins, but it holds {}",
            bins.len() / 2
        )));
    }
    let mut pairs = bins.chunks_exact(2).map(|b| (b[0], b[1] as u64));
    sizes
        .iter()
        .map(|&size| {
            let bins: Vec<(i64, u64)> = pairs.by_ref().take(size as usize).collect();
            if bins.windows(2).any(|w| w[1].0 <= w[0].0) {
                return Err(CheckpointError::Inconsistent(
                    "a histogram's energies do not increase".into(),
                ));
            }
            Ok(EnergyHistogram {
                counts: bins.into_iter().collect(),
            })
        })
        .collect()
}

/// FNV-1a (64-bit) of `text`: a stable fingerprint of the resolved config.
pub fn fingerprint(text: &str) -> u64 {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    text.bytes().fold(OFFSET_BASIS, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    })
}

/// The spins of a checkpoint from before packed spins: one i8 each, +1 or -1.
fn decode_spin_bytes(bytes: &[u8]) -> Result<SpinBits, CheckpointError> {
    let mut spins = SpinBits::down(1, bytes.len() as u64);
    for (index, &b) in bytes.iter().enumerate() {
        match b as i8 {
            1 => spins.set(0, index as u64, true),
            -1 => {}
            value => return Err(CheckpointError::BadSpin { index, value }),
        }
    }
    Ok(spins)
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

/// Total file size of a header of `header_len` bytes, `count` items of `width` bytes each and
/// the CRC (saturating: absurd counts fail the size check).
fn file_len(header_len: usize, items: &[(u64, u64)]) -> u64 {
    items
        .iter()
        .fold((header_len + CRC_LEN) as u64, |len, &(count, width)| {
            len.saturating_add(count.saturating_mul(width))
        })
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
            spins: signs(32, 3),
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
                supported: 5
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

    fn estimates(beta: f64, population: u32) -> AnnealingEstimates {
        AnnealingEstimates {
            beta,
            population,
            e: -1.25,
            c: 0.1 + beta,
            abs_m: 0.5,
            m2: 1e-300,
            m4: -0.0,
            u4: f64::NAN,
            ln_z: 0.75,
            f: -1.0 / 3.0,
            s: 0.2,
            overlap: 0.875,
            effective_population: 3.5,
            families: 2,
            rho_t: 1.5,
            rho_s: 1.25,
            pairs: PairOverlaps {
                q2: 0.5,
                q4: 0.25 + beta,
                q2_kmin: 1e-3,
                ql: f64::NAN,
            },
        }
    }

    /// Two populations (sizes 3 and 2) after two steps, with histograms of 2 and 1 bins.
    fn annealing_sample() -> AnnealingCheckpoint {
        let population = |families: Vec<u32>, ln_z, energies: &[i64]| {
            let mut histogram = EnergyHistogram::default();
            histogram.add(energies.iter().copied());
            Population {
                estimates: vec![estimates(0.25, 4), estimates(0.5, families.len() as u32)],
                families,
                ln_z,
                histogram,
            }
        };
        AnnealingCheckpoint {
            config_fingerprint: fingerprint("(algorithm: Annealing)"),
            sweeps_done: 10,
            schedule: vec![0.25, 0.5],
            spins: signs(24, 5),
            populations: vec![
                population(vec![0, 0, 3], 2.5, &[-8, 4, -8]),
                population(vec![1, 2], -0.5, &[0]),
            ],
        }
    }

    /// Equality to the bit: NaN estimates compare equal through their encoding.
    fn same(a: &AnnealingCheckpoint, b: &AnnealingCheckpoint) -> bool {
        a.encode() == b.encode()
    }

    #[test]
    fn annealing_checkpoints_round_trip_to_the_bit() {
        let checkpoint = annealing_sample();
        let decoded = AnnealingCheckpoint::decode(&checkpoint.encode()).unwrap();
        assert!(same(&decoded, &checkpoint), "{decoded:?}");
        assert_eq!(decoded.populations[1].families, vec![1, 2]);
        assert!(decoded.populations[0].estimates[1].u4.is_nan());
        assert_eq!(decoded.populations[0].estimates[1].pairs.q4, 0.75);
        assert_eq!(decoded.populations[0].histogram.counts[&-8], 2);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checkpoint.bin");
        checkpoint.save(&path).unwrap();
        let loaded = AnnealingCheckpoint::load(&path, checkpoint.config_fingerprint).unwrap();
        assert!(same(&loaded, &checkpoint));
        let other = fingerprint("(algorithm: Metropolis)");
        assert!(matches!(
            AnnealingCheckpoint::load(&path, other),
            Err(CheckpointError::InFile { source, .. })
                if matches!(*source, CheckpointError::ConfigMismatch { .. })
        ));
    }

    #[test]
    fn annealing_layout_matches_the_documented_format() {
        let bytes = annealing_sample().encode();
        assert_eq!(&bytes[..8], b"SPINFLIP");
        assert_eq!(bytes[8..12], [6, 0, 0, 0]);
        assert_eq!(bytes[20..28], 10u64.to_le_bytes(), "sweeps");
        assert_eq!(bytes[28..36], 24u64.to_le_bytes(), "spins");
        assert_eq!(bytes[36..44], 2u64.to_le_bytes(), "populations");
        assert_eq!(bytes[44..52], 2u64.to_le_bytes(), "steps");
        assert_eq!(bytes[52..60], 5u64.to_le_bytes(), "family labels");
        assert_eq!(bytes[60..68], 3u64.to_le_bytes(), "histogram bins");
        let up = (0..24).step_by(5).fold(0u64, |w, i| w | 1 << i);
        assert_eq!(bytes[68..76], up.to_le_bytes(), "spins 0, 5, .. up");
        let schedule = 68 + 8;
        assert_eq!(bytes[schedule + 8..schedule + 16], 0.5f64.to_le_bytes());
        let ln_z = schedule + 16;
        assert_eq!(bytes[ln_z..ln_z + 8], 2.5f64.to_le_bytes());
        let sizes = ln_z + 16;
        assert_eq!(bytes[sizes..sizes + 8], [3, 0, 0, 0, 2, 0, 0, 0]);
        let labels = sizes + 8;
        assert_eq!(bytes[labels + 8..labels + 12], 3u32.to_le_bytes());
        let records = labels + 20;
        assert_eq!(bytes[records..records + 8], 0.25f64.to_le_bytes());
        assert_eq!(bytes[records + 8..records + 16], 4u64.to_le_bytes());
        assert_eq!(
            bytes[records + 128..records + 136],
            0.5f64.to_le_bytes(),
            "q2"
        );
        let histograms = records + 2 * 2 * 160;
        assert_eq!(bytes[histograms..histograms + 8], [2, 0, 0, 0, 1, 0, 0, 0]);
        let bins = histograms + 8;
        assert_eq!(bytes[bins..bins + 8], (-8i64).to_le_bytes());
        assert_eq!(bytes[bins + 8..bins + 16], 2u64.to_le_bytes());
        assert_eq!(bytes.len(), bins + 3 * 16 + 4);
    }

    /// `checkpoint` in format 4: spins one byte each, no histograms, estimate records without
    /// the pair overlaps.
    fn format_4(checkpoint: &AnnealingCheckpoint) -> Vec<u8> {
        encode_with(|out| {
            let mut out = Crc::new(out);
            let populations = &checkpoint.populations;
            let labels = populations.iter().map(|p| p.families.len()).sum();
            let spins = &checkpoint.spins;
            let counts = [
                spins.len() as usize,
                populations.len(),
                checkpoint.schedule.len(),
                labels,
            ];
            header(&mut out, 4, checkpoint.config_fingerprint, 10, &counts)?;
            put(
                &mut out,
                (0..spins.len()).map(|i| [spins.spin(0, i) as i8 as u8]),
            )?;
            put(
                &mut out,
                checkpoint.schedule.iter().map(|b| b.to_le_bytes()),
            )?;
            put(&mut out, populations.iter().map(|p| p.ln_z.to_le_bytes()))?;
            let sizes = populations.iter().map(|p| p.families.len() as u32);
            put(&mut out, sizes.map(u32::to_le_bytes))?;
            let families = populations.iter().flat_map(|p| &p.families);
            put(&mut out, families.map(|f| f.to_le_bytes()))?;
            let records = populations.iter().flat_map(|p| &p.estimates);
            let words = records.flat_map(|a| estimate_words(a).into_iter().take(ESTIMATE_WORDS_4));
            put(&mut out, words.map(u64::to_le_bytes))?;
            out.seal()
        })
    }

    #[test]
    fn format_4_annealing_checkpoints_are_still_read() {
        let checkpoint = annealing_sample();
        let old = AnnealingCheckpoint::decode(&format_4(&checkpoint)).unwrap();
        let mut expected = checkpoint;
        for population in &mut expected.populations {
            population.histogram = EnergyHistogram::default();
            for a in &mut population.estimates {
                a.pairs = PairOverlaps::MISSING;
            }
        }
        assert!(same(&old, &expected), "{old:?}");
    }

    #[test]
    fn every_flipped_or_missing_byte_of_an_annealing_checkpoint_is_refused() {
        let bytes = annealing_sample().encode();
        for i in 0..bytes.len() {
            let mut corrupt = bytes.clone();
            corrupt[i] ^= 0x10;
            assert!(
                AnnealingCheckpoint::decode(&corrupt).is_err(),
                "flipping byte {i} went unnoticed"
            );
        }
        for len in [0, 8, 30, 59, 67, 68, bytes.len() - 1] {
            match AnnealingCheckpoint::decode(&bytes[..len]) {
                Err(CheckpointError::Truncated { found, .. }) => assert_eq!(found, len as u64),
                other => panic!("{len} bytes: expected Truncated, got {other:?}"),
            }
        }
    }

    /// A header whose population sizes disagree with its family labels, under a valid CRC.
    #[test]
    fn annealing_populations_must_hold_their_labels() {
        let mut checkpoint = annealing_sample();
        checkpoint.populations[0].families.pop();
        let mut bytes = checkpoint.encode();
        let sizes = 68 + 8 + 16 + 16;
        bytes[sizes] = 3;
        let crc = crc32fast::hash(&bytes[..bytes.len() - 4]);
        let end = bytes.len() - 4;
        bytes[end..].copy_from_slice(&crc.to_le_bytes());
        let err = AnnealingCheckpoint::decode(&bytes).unwrap_err();
        assert!(err.to_string().contains("add up to 5"), "{err}");
    }

    #[test]
    fn a_checkpoint_of_the_other_algorithm_is_refused_as_such() {
        let err = Checkpoint::decode(&annealing_sample().encode()).unwrap_err();
        assert!(
            err.to_string().contains("of a population-annealing run")
                && err
                    .to_string()
                    .contains("asks for a run of Metropolis sweeps"),
            "{err}"
        );
        let err = AnnealingCheckpoint::decode(&sample().encode()).unwrap_err();
        assert!(
            err.to_string().contains("of a run of Metropolis sweeps")
                && err
                    .to_string()
                    .contains("asks for a population-annealing run"),
            "{err}"
        );
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
