//! The checkpoint file as a container: what every algorithm's checkpoint shares. Each
//! algorithm's home keeps its own layout (the counts in the header and the sections after the
//! spins; the sweeps of Metropolis and parallel tempering in `metropolis/checkpoint.rs`,
//! population annealing in `annealing/checkpoint.rs`, the vector spins in
//! `vector/checkpoint.rs`); the container writes and checks the frame around it. All numbers
//! little-endian:
//!
//! | offset   | size     | field                                                  |
//! |----------|----------|--------------------------------------------------------|
//! | 0        | 8        | magic `SPINFLIP`                                       |
//! | 8        | 4        | format (u32): which layout follows ([`RunKind::of`])    |
//! | 12       | 8        | config fingerprint (u64, [`fingerprint`])              |
//! | 20       | 8        | sweeps done (u64)                                      |
//! | 28       | 8 C      | the layout's C counts (u64), the first the spins S     |
//! | 28 + 8 C | 8 ⌈S/64⌉ | spins, one bit each (u64 words, [`SpinBits`])          |
//! |          |          | the layout's sections                                  |
//! |          | 4        | CRC-32 (IEEE) of every byte before it                  |
//!
//! The spins are the run's [`SpinBits`]: spin `i` of system `b` is bit `(b N + i) mod 64` of
//! word `(b N + i) / 64`, bits past the last spin zero; 32 times smaller than `i32` lattices.
//! They are streamed from the engine's download to the file in chunks ([`Writer::spins`]).
//! Layouts from before packed spins have them one i8 each (+1 or -1); they are still read.
//! The vector spins are not bits: their layout has `S = 0` and keeps its lattices in a section.
//!
//! The word at offset 8 names the layout, one number per layout of any kind: 2, 3, 5, 7 and 10
//! are runs of Metropolis sweeps (with or without parallel tempering; 7 with cluster updates,
//! 10 stopped inside a sweep), 4, 6, 12, 19, 20, 23 and 24 population annealing, 8, 9, 11, 13
//! to 18, 21, 22 and 25 to 28 the vector spins ([`RunKind::of`]; the vector spins' even ones from
//! 14 stopped inside a sweep, 11 too). A new layout of
//! any kind takes the next free number ([`RunKind::of`]). A checkpoint of one kind offered to a
//! run of another is refused as such ([`CheckpointError::OtherAlgorithm`]); one decoder
//! ([`open`]) reads the frame of every layout and leaves the sections to the layout's home.

use std::io::Write;
use std::path::Path;

use crate::atomic::write_atomic_with;
use crate::engine::spins::{SpinBits, words_for};
use crate::error::CheckpointError;

const MAGIC: &[u8; 8] = b"SPINFLIP";
/// Bytes of the CRC at the end of every checkpoint.
pub const CRC_LEN: usize = 4;
/// Bytes of the header before its counts: magic, format, fingerprint, sweeps done.
const FRAME_LEN: usize = 28;
/// The size a file cut inside its magic is told it lacks: the longest header (the sweeps
/// layout's 100 bytes; it was before format 7, which the message keeps) and the CRC.
const CUT_IN_MAGIC_EXPECTED: u64 = 100 + CRC_LEN as u64;
/// Spin words converted to bytes at a time while a checkpoint is streamed (1 MiB).
pub const SPIN_CHUNK_WORDS: usize = 1 << 17;
/// Bytes buffered between the encoder and the file.
const WRITE_BUFFER: usize = 1 << 20;

/// The kind of run a checkpoint continues; every format number belongs to one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunKind {
    /// Metropolis sweeps, with or without parallel tempering.
    Sweeps,
    /// Population annealing.
    Annealing,
    /// The vector engines' sweeps (`XY`, `Clock`, `Heisenberg`, `Potts`, `BlumeCapel`).
    Vector,
}

impl RunKind {
    /// The kind of run whose layout is numbered `format`: every number ever written, so that a
    /// checkpoint of the other kind is refused as such. A new layout takes the next free number.
    pub fn of(format: u32) -> Option<RunKind> {
        match format {
            2 | 3 | 5 | 7 | 10 => Some(RunKind::Sweeps),
            4 | 6 | 12 | 19 | 20 | 23 | 24 => Some(RunKind::Annealing),
            8 | 9 | 11 | 13..=18 | 21 | 22 | 25..=28 => Some(RunKind::Vector),
            _ => None,
        }
    }

    /// What it continues, for [`CheckpointError::OtherAlgorithm`].
    fn describe(self) -> &'static str {
        match self {
            RunKind::Sweeps => "a run of Metropolis sweeps (algorithm: Metropolis or Tempering)",
            RunKind::Annealing => "a population-annealing run (algorithm: Annealing)",
            RunKind::Vector => {
                "a vector-spin run (model: XY, Clock, Heisenberg, Potts or BlumeCapel)"
            }
        }
    }
}

/// The frame of one layout, as the container reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    /// The word at offset 8.
    pub number: u32,
    /// Counts in the header, the number of spins first.
    pub counts: usize,
    /// Spins one bit each (or one i8 each, before packed spins).
    pub packed: bool,
}

impl Format {
    /// Bytes before the spins.
    pub const fn header_len(&self) -> usize {
        FRAME_LEN + 8 * self.counts
    }
}

/// A checkpoint file being written: [`Writer::start`] (the header), [`Writer::spins`], the
/// layout's sections ([`Writer::put`]), then [`Writer::seal`] (the CRC).
pub struct Writer<W> {
    out: Crc<W>,
}

impl<W: Write> Writer<W> {
    /// The magic, `format`, the fingerprint, the sweeps done and the layout's `counts` (the
    /// number of spins first).
    pub fn start(
        out: W,
        format: u32,
        config_fingerprint: u64,
        sweeps_done: u64,
        counts: &[usize],
    ) -> std::io::Result<Self> {
        let mut out = Crc::new(out);
        out.write_all(MAGIC)?;
        out.write_all(&format.to_le_bytes())?;
        let words = [config_fingerprint, sweeps_done]
            .into_iter()
            .chain(counts.iter().map(|&c| c as u64));
        put(&mut out, words.map(u64::to_le_bytes))?;
        Ok(Writer { out })
    }

    /// Write the spin words little-endian, converting [`SPIN_CHUNK_WORDS`] at a time.
    pub fn spins(&mut self, spins: &SpinBits) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(8 * SPIN_CHUNK_WORDS);
        for chunk in spins.words().chunks(SPIN_CHUNK_WORDS) {
            bytes.clear();
            bytes.extend(chunk.iter().flat_map(|w| w.to_le_bytes()));
            self.out.write_all(&bytes)?;
        }
        Ok(())
    }

    /// Write every value's little-endian bytes.
    pub fn put<const N: usize>(
        &mut self,
        values: impl Iterator<Item = [u8; N]>,
    ) -> std::io::Result<()> {
        put(&mut self.out, values)
    }

    /// Append the CRC of everything written so far.
    pub fn seal(self) -> std::io::Result<()> {
        self.out.seal()
    }
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
pub fn encode_with(write_to: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> Vec<u8> {
    let mut out = Vec::new();
    write_to(&mut out).expect("writing into a Vec cannot fail");
    out
}

/// Stream a checkpoint's `write_to` into `path` atomically, through a buffer: a crash leaves
/// the previous checkpoint intact.
pub fn save_with(
    path: &Path,
    write_to: impl FnOnce(&mut std::io::BufWriter<&mut std::fs::File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    write_atomic_with(path, |file| {
        let mut out = std::io::BufWriter::with_capacity(WRITE_BUFFER, file);
        write_to(&mut out)?;
        out.flush()
    })
}

/// Read the file at `path`, decode it and refuse it unless its fingerprint is one of
/// `accepted` (the first the one this version writes); every error names the file.
pub fn load_file<T>(
    path: &Path,
    accepted: &[u64],
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
    if !accepted.contains(&found) {
        return Err(in_file(CheckpointError::ConfigMismatch {
            expected: accepted[0],
            found,
        }));
    }
    Ok(checkpoint)
}

/// The layout number of the checkpoint at `path`, from its header; `None` where no file or no
/// checkpoint is there.
pub fn format_at(path: &Path) -> Option<u32> {
    let mut head = [0u8; MAGIC.len() + 4];
    let mut file = std::fs::File::open(path).ok()?;
    std::io::Read::read_exact(&mut file, &mut head).ok()?;
    let (magic, format) = head.split_at(MAGIC.len());
    (magic == MAGIC).then(|| u32::from_le_bytes(format.try_into().expect("four bytes")))
}

/// A checkpoint whose frame [`open`] has read and verified: the layout's own decoder reads its
/// sections from `reader`.
pub struct Opened<'a> {
    /// The layout's number.
    pub format: u32,
    pub config_fingerprint: u64,
    pub sweeps_done: u64,
    /// The header's counts after the number of spins (as many as the layout has).
    pub counts: Vec<u64>,
    /// All spins of the file as one run of `S` (the file does not say how they divide into
    /// systems: [`SpinBits::reshape`] gives them the run's).
    pub spins: SpinBits,
    /// Standing after the spins, at the layout's first section; the file's size is verified,
    /// so it reads every section its counts describe.
    pub reader: Reader<'a>,
}

/// The one decoder of every layout's frame: the magic, the format (one of `formats` of `kind`,
/// the first the one written; one of the other kind is refused as such), the header, the file's
/// size (the spins and the `(count, width)` items that `sections` finds for the format and
/// the counts after the spins) and checksum, then the spins. Every inconsistency is an error.
pub fn open<'a>(
    bytes: &'a [u8],
    kind: RunKind,
    formats: &[Format],
    sections: impl FnOnce(u32, &[u64]) -> Vec<(u64, u64)>,
) -> Result<Opened<'a>, CheckpointError> {
    check_magic(bytes)?;
    let mut reader = Reader {
        bytes,
        pos: MAGIC.len(),
    };
    let found = reader.u32()?;
    let Some(&format) = formats.iter().find(|f| f.number == found) else {
        return Err(match RunKind::of(found) {
            Some(other) if other != kind => CheckpointError::OtherAlgorithm {
                found: other.describe(),
                expected: kind.describe(),
            },
            _ => CheckpointError::UnsupportedVersion {
                found,
                supported: formats[0].number,
            },
        });
    };
    let config_fingerprint = reader.u64()?;
    let sweeps_done = reader.u64()?;
    let spins = reader.u64()?;
    let counts = (1..format.counts)
        .map(|_| reader.u64())
        .collect::<Result<Vec<_>, _>>()?;
    let items: Vec<(u64, u64)> = std::iter::once(spin_section(spins, format.packed))
        .chain(sections(found, &counts))
        .collect();
    verify_size_and_checksum(bytes, file_len(format.header_len(), &items))?;
    let spins = read_spins(&mut reader, spins, format.packed)?;
    Ok(Opened {
        format: found,
        config_fingerprint,
        sweeps_done,
        counts,
        spins,
        reader,
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

/// FNV-1a (64-bit) of `text`: a stable fingerprint of the resolved config.
pub fn fingerprint(text: &str) -> u64 {
    fnv1a(text.as_bytes())
}

/// FNV-1a 64 of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(OFFSET_BASIS, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    })
}

fn check_magic(bytes: &[u8]) -> Result<(), CheckpointError> {
    let head = &bytes[..bytes.len().min(MAGIC.len())];
    if !MAGIC.starts_with(head) {
        return Err(CheckpointError::NotCheckpoint);
    }
    if head.len() < MAGIC.len() {
        return Err(truncated(CUT_IN_MAGIC_EXPECTED, bytes.len()));
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
pub struct Reader<'a> {
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

    pub fn f64s(&mut self, count: usize) -> Result<Vec<f64>, CheckpointError> {
        Ok(self
            .i64s(count)?
            .into_iter()
            .map(|bits| f64::from_bits(bits as u64))
            .collect())
    }

    pub fn u32s(&mut self, count: usize) -> Result<Vec<u32>, CheckpointError> {
        let bytes = self.take(count.saturating_mul(4))?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("chunks_exact yields 4 bytes")))
            .collect())
    }

    pub fn i32s(&mut self, count: usize) -> Result<Vec<i32>, CheckpointError> {
        Ok(self.u32s(count)?.into_iter().map(|v| v as i32).collect())
    }

    pub fn u64s(&mut self, count: usize) -> Result<Vec<u64>, CheckpointError> {
        Ok(self.i64s(count)?.into_iter().map(|v| v as u64).collect())
    }

    pub fn i64s(&mut self, count: usize) -> Result<Vec<i64>, CheckpointError> {
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

    #[test]
    fn fingerprint_is_fnv1a_64() {
        // Published FNV-1a 64 test vectors.
        assert_eq!(fingerprint(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fingerprint("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fingerprint("foobar"), 0x8594_4171_f739_67e8);
    }
}
