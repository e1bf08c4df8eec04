//! The checkpoint of a population-annealing run, written between temperature steps or inside
//! one (a stop between two of a step's plans). Its frame (magic, format, fingerprint, spins,
//! CRC) is the container's ([`crate::io::checkpoint`]); this is its layout for Ising spins
//! (format 12 inside a step, format 6 between steps, which lacks U and the last section), all
//! numbers little-endian:
//!
//! | offset | size | field                                          |
//! |--------|------|------------------------------------------------|
//! | 0      | 8    | magic `SPINFLIP`                               |
//! | 8      | 4    | format 12 or 6 (u32)                           |
//! | 12     | 8    | config fingerprint (u64)                       |
//! | 20     | 8    | whole sweeps done (u64)                        |
//! | 28     | 8    | number of spins S, every slot (u64)            |
//! | 36     | 8    | number of populations P (u64)                  |
//! | 44     | 8    | steps begun T: betas after 0 so far (u64)      |
//! | 52     | 8    | family labels F, all populations (u64)         |
//! | 60     | 8    | energy histogram bins H, all populations (u64) |
//! | 68     | 8    | format 12: units done U of the step under way (u64) |
//! | 76     | 8 ⌈S/64⌉ | spins, one bit each (u64 words, [`SpinBits`]) |
//! |        | 8 T  | the schedule so far (f64)                      |
//! |        | 8 P  | per population, ln Z so far (f64)              |
//! |        | 4 P  | per population, its size R_p (u32)            |
//! |        | 4 F  | per replica, its family (u32, population-major) |
//! |        | 160 P E | per population and measured step, the estimates (20 words: f64, the population and family counts u64); E = T, or T - 1 inside a step |
//! |        | 4 P  | per population, its histogram's bins (u32)     |
//! |        | 16 H | the bins: energy (i64) and count (u64), energies increasing per population |
//! |        | 16 P | format 12: per population, the overlap and the effective size of its reweighting to the step's beta (f64) |
//! |        | 4    | CRC-32 (IEEE) of every byte before it          |
//!
//! The vector engine's lattices (discrete states, clock angles) are words: formats 23 (inside a
//! step) and 24 (between steps) are 12 and 6 with no spin bits (S = 0) and one more count, W,
//! after the others, whose section of the lattices (4 W, i32, component-major as the
//! engines') comes first after the header; their estimate records hold four more words, the
//! staggered magnetisation's moments (f64, NaN where not measured). Formats 19 and 20, before
//! those four words, are still read, with them NaN.
//!
//! Inside a step ([`StepUnderWay`]) the schedule ends with the step's beta and ln Z includes
//! its reweighting, the families follow its copies, and the estimates and histograms end with
//! the step before. Format 6, written between steps, lacks U and the last section; format 4
//! (before packed spins, the overlaps and the histograms) also has the spins one byte each,
//! lacks H and its two sections, and its estimate records end before the last four words (the
//! pair overlaps). Both are still read, format 4 with the pair overlaps NaN and the histograms
//! empty.

use std::io::Write;
use std::path::Path;

use super::multihistogram::EnergyHistogram;
use super::resampling::ReweightingQuality;
use super::stats::{AnnealingEstimates, PairOverlaps, Population, StaggeredMoments};
use crate::engine::Lattices;
use crate::error::CheckpointError;
use crate::io::checkpoint::{Format, RunKind, Writer, encode_with, load_file, open, save_with};

/// The layouts written inside a step (with the step under way) and between steps (format 6),
/// the same of lattices of words (23, 24), and those still read: of words before the staggered
/// moments (19, 20), and format 4, before packed spins, pair overlaps and histograms.
const FORMATS: [Format; 7] = [
    INSIDE_A_STEP,
    BETWEEN_STEPS,
    WORDS_INSIDE_A_STEP,
    WORDS_BETWEEN_STEPS,
    WORDS_BEFORE_STAGGERED_INSIDE_A_STEP,
    WORDS_BEFORE_STAGGERED_BETWEEN_STEPS,
    BEFORE_PACKED_SPINS,
];
const INSIDE_A_STEP: Format = Format {
    number: 12,
    counts: 6,
    packed: true,
};
const BETWEEN_STEPS: Format = Format {
    number: 6,
    counts: 5,
    packed: true,
};
const WORDS_INSIDE_A_STEP: Format = Format {
    number: 23,
    counts: 7,
    packed: true,
};
const WORDS_BETWEEN_STEPS: Format = Format {
    number: 24,
    counts: 6,
    packed: true,
};
const WORDS_BEFORE_STAGGERED_INSIDE_A_STEP: Format = Format {
    number: 19,
    counts: 7,
    packed: true,
};
const WORDS_BEFORE_STAGGERED_BETWEEN_STEPS: Format = Format {
    number: 20,
    counts: 6,
    packed: true,
};
const BEFORE_PACKED_SPINS: Format = Format {
    number: 4,
    counts: 4,
    packed: false,
};
/// Words of one [`AnnealingEstimates`] record of the lattices of words.
const ESTIMATE_WORDS: usize = 24;
/// Words of a record of Ising spins (which have no staggered moments), and of lattices of
/// words in formats 19 and 20.
const ESTIMATE_WORDS_WITHOUT_STAGGERED: usize = 20;
/// Words of a record in format 4, before the pair overlaps.
const ESTIMATE_WORDS_4: usize = 16;

/// The state of a population-annealing run between temperature steps or inside one: with the
/// config, all it needs to continue bit-identically. The beta is the schedule's last (0 before
/// the first step), the steps begun its length; the resampling and Metropolis randoms are
/// keyed by the step and the sweep count, so no generator state is kept.
#[derive(Debug, Clone, PartialEq)]
pub struct AnnealingCheckpoint {
    /// [`crate::io::checkpoint::fingerprint`] of the resolved config text.
    pub config_fingerprint: u64,
    /// Whole sweeps completed, `theta` per step.
    pub sweeps_done: u64,
    /// The betas after 0 so far (as configured, or as the adaptive schedule chose them).
    pub schedule: Vec<f64>,
    /// Every engine slot's lattice, idle ones included: Ising spins one bit each, decoded as
    /// one run of `S` spins (the file does not say how they divide into slots), or the vector
    /// engine's words.
    pub spins: Lattices,
    /// Per population (`sample runs + run`): its families, ln Z and estimates so far.
    pub populations: Vec<Population>,
    /// Where the run stopped inside a step (the schedule's last), how far the step has come.
    pub step_under_way: Option<StepUnderWay>,
}

/// A temperature step the run stopped inside, between two of its plans: what the rest of the
/// step needs besides the lattices and the populations.
#[derive(Debug, Clone, PartialEq)]
pub struct StepUnderWay {
    /// Units of the step's sweeps done, more than none and fewer than all: a sweep is two
    /// passes over the planes of the lattice's slowest axis, a unit one pass over one plane
    /// ([`crate::engine::Plan::sweep_units`]).
    pub units_done: u64,
    /// Per population, its reweighting to the step's beta, for the step's estimates.
    pub reweightings: Vec<ReweightingQuality>,
}

impl AnnealingCheckpoint {
    /// The file's bytes (see the module documentation for the layout).
    pub fn encode(&self) -> Vec<u8> {
        encode_with(|out| self.write_to(out))
    }

    /// Write the file's bytes into `out` (the CRC included), the spins in chunks.
    fn write_to(&self, out: &mut impl Write) -> std::io::Result<()> {
        let populations = &self.populations;
        let labels = populations.iter().map(|p| p.families.len()).sum();
        let bins = populations.iter().map(|p| p.histogram.counts.len()).sum();
        let (units_done, reweightings) = match &self.step_under_way {
            Some(step) => (step.units_done, step.reweightings.as_slice()),
            None => (0, [].as_slice()),
        };
        let (bits, words) = match &self.spins {
            Lattices::Bits(bits) => (bits.len(), [].as_slice()),
            Lattices::Vector(words) => (0, words.as_slice()),
        };
        let format = match (&self.spins, self.step_under_way.is_some()) {
            (Lattices::Bits(_), true) => INSIDE_A_STEP,
            (Lattices::Bits(_), false) => BETWEEN_STEPS,
            (Lattices::Vector(_), true) => WORDS_INSIDE_A_STEP,
            (Lattices::Vector(_), false) => WORDS_BETWEEN_STEPS,
        };
        let mut counts = vec![
            bits as usize,
            populations.len(),
            self.schedule.len(),
            labels,
            bins,
        ];
        if self.step_under_way.is_some() {
            counts.push(units_done as usize);
        }
        if let Lattices::Vector(_) = self.spins {
            counts.push(words.len());
        }
        let mut out = Writer::start(
            out,
            format.number,
            self.config_fingerprint,
            self.sweeps_done,
            &counts,
        )?;
        if let Lattices::Bits(bits) = &self.spins {
            out.spins(bits)?;
        }
        out.put(words.iter().map(|w| w.to_le_bytes()))?;
        out.put(self.schedule.iter().map(|b| b.to_le_bytes()))?;
        out.put(populations.iter().map(|p| p.ln_z.to_le_bytes()))?;
        let sizes = populations.iter().map(|p| p.families.len() as u32);
        out.put(sizes.map(u32::to_le_bytes))?;
        let families = populations.iter().flat_map(|p| &p.families);
        out.put(families.map(|f| f.to_le_bytes()))?;
        let records = populations.iter().flat_map(|p| &p.estimates);
        let record_words = record_words(format.number);
        let records = records.flat_map(|a| estimate_words(a).into_iter().take(record_words));
        out.put(records.map(u64::to_le_bytes))?;
        let histograms = populations.iter().map(|p| &p.histogram.counts);
        out.put(histograms.clone().map(|h| (h.len() as u32).to_le_bytes()))?;
        for (&energy, &count) in histograms.flatten() {
            out.put([energy.to_le_bytes(), count.to_le_bytes()].into_iter())?;
        }
        let qualities = reweightings
            .iter()
            .flat_map(|r| [r.overlap, r.effective_size]);
        out.put(qualities.map(f64::to_le_bytes))?;
        out.seal()
    }

    /// Parse and verify a checkpoint's bytes; every inconsistency is an error.
    pub fn decode(bytes: &[u8]) -> Result<AnnealingCheckpoint, CheckpointError> {
        let mut file = open(bytes, RunKind::Annealing, &FORMATS, |format, counts| {
            sections(format, counts).to_vec()
        })?;
        let record_words = record_words(file.format);
        let units_done = units_done(file.format, &file.counts);
        let [
            lattice_words,
            steps,
            populations,
            _,
            labels,
            words,
            histograms,
            bins,
            reweightings,
        ] = sections(file.format, &file.counts).map(|(count, _)| count as usize);
        let of_words = has_words(file.format);
        if of_words && !file.spins.is_empty() {
            return Err(CheckpointError::Inconsistent(format!(
                "a checkpoint of lattices of words holds {} spin bits",
                file.spins.len()
            )));
        }
        if units_done > 0 && steps == 0 {
            return Err(CheckpointError::Inconsistent(format!(
                "it is {units_done} units into a step, but no step has begun"
            )));
        }
        let reader = &mut file.reader;
        let lattices = reader.i32s(lattice_words)?;
        let schedule = reader.f64s(steps)?;
        let ln_z = reader.f64s(populations)?;
        let sizes = reader.u32s(populations)?;
        let labels = reader.u32s(labels)?;
        let records = reader.i64s(words)?;
        let histogram_sizes = reader.u32s(histograms)?;
        let bins = reader.i64s(2 * bins)?;
        let qualities = reader.f64s(2 * reweightings)?;
        let measured = steps - usize::from(units_done > 0);
        let mut populations =
            split_populations(ln_z, &sizes, labels, &records, measured, record_words)?;
        if file.format != BEFORE_PACKED_SPINS.number {
            let histograms = split_histograms(&histogram_sizes, &bins)?;
            for (population, histogram) in populations.iter_mut().zip(histograms) {
                population.histogram = histogram;
            }
        }
        let step_under_way = (units_done > 0).then(|| StepUnderWay {
            units_done,
            reweightings: (qualities.chunks_exact(2))
                .map(|q| ReweightingQuality {
                    overlap: q[0],
                    effective_size: q[1],
                })
                .collect(),
        });
        Ok(AnnealingCheckpoint {
            config_fingerprint: file.config_fingerprint,
            sweeps_done: file.sweeps_done,
            schedule,
            spins: match of_words {
                true => Lattices::Vector(lattices),
                false => Lattices::Bits(file.spins),
            },
            populations,
            step_under_way,
        })
    }

    /// Write to `path` atomically, streamed: a crash leaves the previous checkpoint intact.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        save_with(path, |out| self.write_to(out))
    }

    /// Read and verify the checkpoint at `path`, refusing one whose fingerprint is not among
    /// `accepted` (another config's).
    pub fn load(path: &Path, accepted: &[u64]) -> Result<AnnealingCheckpoint, CheckpointError> {
        load_file(path, accepted, AnnealingCheckpoint::decode, |c| {
            c.config_fingerprint
        })
    }
}

/// Whether an anneal's checkpoint of layout `format` holds lattices of words: the vector
/// engine's (discrete states, clock angles), not Ising spins' bits.
pub fn holds_words(format: u32) -> bool {
    [
        WORDS_INSIDE_A_STEP,
        WORDS_BETWEEN_STEPS,
        WORDS_BEFORE_STAGGERED_INSIDE_A_STEP,
        WORDS_BEFORE_STAGGERED_BETWEEN_STEPS,
    ]
    .iter()
    .any(|f| f.number == format)
}

/// Words of an estimate record in `format`: before format 6, without the pair overlaps; but
/// in formats 23 and 24, without the staggered moments.
fn record_words(format: u32) -> usize {
    match format {
        _ if format == BEFORE_PACKED_SPINS.number => ESTIMATE_WORDS_4,
        _ if format == WORDS_INSIDE_A_STEP.number || format == WORDS_BETWEEN_STEPS.number => {
            ESTIMATE_WORDS
        }
        _ => ESTIMATE_WORDS_WITHOUT_STAGGERED,
    }
}

/// The units done of the step under way of a file in `format` whose header counts after the
/// spins are `counts`: 0 between steps, and in the formats before steps could be cut.
fn units_done(format: u32, counts: &[u64]) -> u64 {
    let inside = [
        INSIDE_A_STEP,
        WORDS_INSIDE_A_STEP,
        WORDS_BEFORE_STAGGERED_INSIDE_A_STEP,
    ];
    match inside.iter().any(|f| f.number == format) {
        true => counts[4],
        false => 0,
    }
}

/// Whether a file in `format` holds lattices of words (formats 19, 20, 23 and 24), counted
/// last.
fn has_words(format: u32) -> bool {
    let words = [
        WORDS_INSIDE_A_STEP,
        WORDS_BETWEEN_STEPS,
        WORDS_BEFORE_STAGGERED_INSIDE_A_STEP,
        WORDS_BEFORE_STAGGERED_BETWEEN_STEPS,
    ];
    words.iter().any(|f| f.number == format)
}

/// The (count, width) of the sections after the spins of a file in `format` whose header
/// counts after the spins are `counts` (populations, steps, family labels and, from format 6,
/// histogram bins, from format 12 the units done of the step under way, in formats 19 and 20
/// the lattices' words), in the order of the file: the lattices' words, the schedule, ln Z, the
/// population sizes, the family labels, the estimate records' words, the histogram sizes, the
/// bins and the reweightings of the step under way.
fn sections(format: u32, counts: &[u64]) -> [(u64, u64); 9] {
    let (populations, steps, labels) = (counts[0], counts[1], counts[2]);
    let lattice_words = match has_words(format) {
        true => counts[counts.len() - 1],
        false => 0,
    };
    let (histograms, bins) = match format == BEFORE_PACKED_SPINS.number {
        true => (0, 0),
        false => (populations, counts[3]),
    };
    let inside_step = units_done(format, counts) > 0;
    let measured = steps.saturating_sub(u64::from(inside_step));
    let words = populations
        .saturating_mul(measured)
        .saturating_mul(record_words(format) as u64);
    let reweightings = match inside_step {
        true => populations,
        false => 0,
    };
    [
        (lattice_words, 4),
        (steps, 8),
        (populations, 8),
        (populations, 4),
        (labels, 4),
        (words, 8),
        (histograms, 4),
        (bins, 16),
        (reweightings, 16),
    ]
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
        a.staggered.abs_m.to_bits(),
        a.staggered.m2.to_bits(),
        a.staggered.m4.to_bits(),
        a.staggered.u4.to_bits(),
    ]
}

/// The inverse of [`estimate_words`] (`words` holds [`ESTIMATE_WORDS`], or fewer, as
/// [`record_words`] says: without the staggered moments, or the pair overlaps).
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
        pairs: match words.len() > ESTIMATE_WORDS_4 {
            true => PairOverlaps {
                q2: real(16),
                q4: real(17),
                q2_kmin: real(18),
                ql: real(19),
            },
            false => PairOverlaps::MISSING,
        },
        staggered: match words.len() == ESTIMATE_WORDS {
            true => StaggeredMoments {
                abs_m: real(20),
                m2: real(21),
                m4: real(22),
                u4: real(23),
            },
            false => StaggeredMoments::MISSING,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SpinBits;
    use crate::io::checkpoint::fingerprint;

    /// `count` spins in one run, every `period`-th up.
    fn signs(count: u64, period: u64) -> SpinBits {
        let signs: Vec<i32> = (0..count)
            .map(|i| if i % period == 0 { 1 } else { -1 })
            .collect();
        SpinBits::from_signs(1, count, &signs)
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
            staggered: StaggeredMoments::MISSING,
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
            spins: signs(24, 5).into(),
            populations: vec![
                population(vec![0, 0, 3], 2.5, &[-8, 4, -8]),
                population(vec![1, 2], -0.5, &[0]),
            ],
            step_under_way: None,
        }
    }

    /// [`annealing_sample`] stopped 5 units into its third step: the estimates still end with
    /// the second.
    fn inside_a_step() -> AnnealingCheckpoint {
        let mut checkpoint = annealing_sample();
        checkpoint.schedule.push(0.75);
        checkpoint.sweeps_done = 12;
        let quality = |overlap, effective_size| ReweightingQuality {
            overlap,
            effective_size,
        };
        checkpoint.step_under_way = Some(StepUnderWay {
            units_done: 5,
            reweightings: vec![quality(0.5, 2.25), quality(f64::NAN, 1.0)],
        });
        checkpoint
    }

    /// Equality to the bit: NaN estimates compare equal through their encoding.
    fn same(a: &AnnealingCheckpoint, b: &AnnealingCheckpoint) -> bool {
        a.encode() == b.encode()
    }

    #[test]
    fn annealing_checkpoints_round_trip_to_the_bit() {
        let inside = inside_a_step();
        let decoded = AnnealingCheckpoint::decode(&inside.encode()).unwrap();
        assert!(same(&decoded, &inside), "{decoded:?}");
        assert_eq!(decoded.populations[1].estimates.len(), 2);
        let step = decoded.step_under_way.unwrap();
        assert_eq!(
            (step.units_done, step.reweightings[0].effective_size),
            (5, 2.25)
        );
        let checkpoint = annealing_sample();
        let decoded = AnnealingCheckpoint::decode(&checkpoint.encode()).unwrap();
        assert!(same(&decoded, &checkpoint), "{decoded:?}");
        assert_eq!(decoded.step_under_way, None);
        assert_eq!(decoded.populations[1].families, vec![1, 2]);
        assert!(decoded.populations[0].estimates[1].u4.is_nan());
        assert_eq!(decoded.populations[0].estimates[1].pairs.q4, 0.75);
        assert_eq!(decoded.populations[0].histogram.counts[&-8], 2);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checkpoint.bin");
        checkpoint.save(&path).unwrap();
        let loaded = AnnealingCheckpoint::load(&path, &[checkpoint.config_fingerprint]).unwrap();
        assert!(same(&loaded, &checkpoint));
        let other = fingerprint("(algorithm: Metropolis)");
        assert!(matches!(
            AnnealingCheckpoint::load(&path, &[other]),
            Err(CheckpointError::InFile { source, .. })
                if matches!(*source, CheckpointError::ConfigMismatch { .. })
        ));
    }

    #[test]
    fn annealing_layout_matches_the_documented_format() {
        let bytes = annealing_sample().encode();
        assert_eq!(&bytes[..8], b"SPINFLIP");
        assert_eq!(bytes[8..12], [6, 0, 0, 0], "between steps");
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
        // Inside the third step: format 12, the units in the header, its beta, the same
        // estimate records, the reweightings last.
        let inside = inside_a_step().encode();
        assert_eq!(inside[8..12], [12, 0, 0, 0]);
        assert_eq!(inside[68..76], 5u64.to_le_bytes(), "units into the step");
        assert_eq!(inside[44..52], 3u64.to_le_bytes(), "steps begun");
        let reweightings = bins + 8 + 8 + 3 * 16;
        assert_eq!(inside[reweightings..][..8], 0.5f64.to_le_bytes());
        assert_eq!(inside[reweightings + 8..][..8], 2.25f64.to_le_bytes());
        assert_eq!(inside.len(), reweightings + 2 * 16 + 4);
    }

    /// `checkpoint` in format 4: spins one byte each, no histograms, estimate records without
    /// the pair overlaps.
    fn format_4(checkpoint: &AnnealingCheckpoint) -> Vec<u8> {
        encode_with(|out| {
            let populations = &checkpoint.populations;
            let labels = populations.iter().map(|p| p.families.len()).sum();
            let spins = checkpoint.spins.bits().unwrap();
            let counts = [
                spins.len() as usize,
                populations.len(),
                checkpoint.schedule.len(),
                labels,
            ];
            let mut out = Writer::start(out, 4, checkpoint.config_fingerprint, 10, &counts)?;
            out.put((0..spins.len()).map(|i| [spins.spin(0, i) as i8 as u8]))?;
            out.put(checkpoint.schedule.iter().map(|b| b.to_le_bytes()))?;
            out.put(populations.iter().map(|p| p.ln_z.to_le_bytes()))?;
            let sizes = populations.iter().map(|p| p.families.len() as u32);
            out.put(sizes.map(u32::to_le_bytes))?;
            let families = populations.iter().flat_map(|p| &p.families);
            out.put(families.map(|f| f.to_le_bytes()))?;
            let records = populations.iter().flat_map(|p| &p.estimates);
            let words = records.flat_map(|a| estimate_words(a).into_iter().take(ESTIMATE_WORDS_4));
            out.put(words.map(u64::to_le_bytes))?;
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
        for bytes in [annealing_sample().encode(), inside_a_step().encode()] {
            for i in 0..bytes.len() {
                let mut corrupt = bytes.clone();
                corrupt[i] ^= 0x10;
                assert!(
                    AnnealingCheckpoint::decode(&corrupt).is_err(),
                    "flipping byte {i} went unnoticed"
                );
            }
            for len in [0, 8, 30, 59, 67, 68, 75, 76, bytes.len() - 1] {
                match AnnealingCheckpoint::decode(&bytes[..len]) {
                    Err(CheckpointError::Truncated { found, .. }) => assert_eq!(found, len as u64),
                    other => panic!("{len} bytes: expected Truncated, got {other:?}"),
                }
            }
        }
    }

    /// A header inside a step before any step began, under a valid CRC.
    #[test]
    fn a_step_under_way_needs_a_step_begun() {
        let mut checkpoint = inside_a_step();
        checkpoint.schedule.clear();
        for population in &mut checkpoint.populations {
            population.estimates.clear();
        }
        let err = AnnealingCheckpoint::decode(&checkpoint.encode()).unwrap_err();
        assert!(err.to_string().contains("no step has begun"), "{err}");
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
    fn every_layout_is_numbered_as_population_annealing() {
        for format in FORMATS {
            assert_eq!(RunKind::of(format.number), Some(RunKind::Annealing));
        }
        let headers = FORMATS.map(|f| f.header_len());
        assert_eq!(headers, [76, 68, 84, 76, 84, 76, 60]);
    }

    /// [`annealing_sample`] or [`inside_a_step`] with lattices of words and the staggered
    /// moments of an antiferromagnet on a bipartite lattice.
    fn of_words(checkpoint: AnnealingCheckpoint, words: &[i32]) -> AnnealingCheckpoint {
        let mut checkpoint = AnnealingCheckpoint {
            spins: Lattices::Vector(words.to_vec()),
            ..checkpoint
        };
        for population in &mut checkpoint.populations {
            for (k, a) in population.estimates.iter_mut().enumerate() {
                a.staggered = StaggeredMoments {
                    abs_m: 0.5 + k as f64,
                    m2: 0.375,
                    m4: f64::NAN,
                    u4: -0.0,
                };
            }
        }
        checkpoint
    }

    /// Lattices of words (the vector engine's) come back as words, inside a step and between
    /// steps, in formats 23 and 24: no spin bits, the words counted last and first after the
    /// header, the staggered moments after the pair overlaps.
    #[test]
    fn lattices_of_words_round_trip_in_their_own_formats() {
        let words = vec![3, -1, 0, i32::MIN, i32::MAX];
        for (checkpoint, format) in [(annealing_sample(), 24u32), (inside_a_step(), 23)] {
            let checkpoint = of_words(checkpoint, &words);
            let bytes = checkpoint.encode();
            assert_eq!(bytes[8..12], format.to_le_bytes());
            assert_eq!(bytes[28..36], 0u64.to_le_bytes(), "no spin bits");
            let header = FORMATS.iter().find(|f| f.number == format).unwrap();
            let end = header.header_len();
            assert_eq!(
                bytes[end - 8..end],
                5u64.to_le_bytes(),
                "words, counted last"
            );
            assert_eq!(bytes[end..end + 4], 3i32.to_le_bytes());
            let decoded = AnnealingCheckpoint::decode(&bytes).unwrap();
            assert!(same(&decoded, &checkpoint), "{decoded:?}");
            assert_eq!(decoded.spins, Lattices::Vector(words.clone()));
            let second = decoded.populations[1].estimates[1].staggered;
            assert_eq!((second.abs_m, second.m2), (1.5, 0.375));
        }
    }

    /// Lattices of words in formats 19 and 20, whose estimate records end with the pair
    /// overlaps, read with the staggered moments NaN.
    #[test]
    fn lattices_of_words_before_the_staggered_moments_are_still_read() {
        let words = [7, -7];
        for (checkpoint, format) in [(annealing_sample(), 20u32), (inside_a_step(), 19)] {
            let checkpoint = of_words(checkpoint, &words);
            let bytes = encode_with(|out| {
                let mut written = Vec::new();
                checkpoint.write_to(&mut written)?;
                let records = without_staggered_moments(&checkpoint, &written[..written.len() - 4]);
                let mut old = records;
                old[8..12].copy_from_slice(&format.to_le_bytes());
                out.write_all(&old)?;
                out.write_all(&crc32fast::hash(&old).to_le_bytes())
            });
            let decoded = AnnealingCheckpoint::decode(&bytes).unwrap();
            assert_eq!(decoded.spins, Lattices::Vector(words.to_vec()));
            let mut expected = checkpoint;
            for population in &mut expected.populations {
                for a in &mut population.estimates {
                    a.staggered = StaggeredMoments::MISSING;
                }
            }
            assert!(same(&decoded, &expected), "{decoded:?}");
        }
    }

    /// The bytes `written` of `checkpoint` (of lattices of words, its CRC cut off) with every
    /// estimate record's last four words removed.
    fn without_staggered_moments(checkpoint: &AnnealingCheckpoint, written: &[u8]) -> Vec<u8> {
        let records: usize = checkpoint
            .populations
            .iter()
            .map(|p| p.estimates.len())
            .sum();
        let record_bytes = 8 * ESTIMATE_WORDS;
        let tail = written.len()
            - checkpoint
                .populations
                .iter()
                .map(|p| 4 + 16 * p.histogram.counts.len())
                .sum::<usize>()
            - 16 * checkpoint
                .step_under_way
                .as_ref()
                .map_or(0, |s| s.reweightings.len());
        let start = tail - records * record_bytes;
        let mut old = written[..start].to_vec();
        for record in written[start..tail].chunks_exact(record_bytes) {
            old.extend_from_slice(&record[..8 * ESTIMATE_WORDS_WITHOUT_STAGGERED]);
        }
        old.extend_from_slice(&written[tail..]);
        old
    }

    /// Every layout number of a run of sweeps (formats 2, 3 and 5) is refused as such.
    #[test]
    fn a_checkpoint_of_the_other_algorithm_is_refused_as_such() {
        for format in [2u32, 3, 5] {
            let mut bytes = annealing_sample().encode();
            bytes[8..12].copy_from_slice(&format.to_le_bytes());
            let err = AnnealingCheckpoint::decode(&bytes).unwrap_err();
            assert!(
                err.to_string().contains("of a run of Metropolis sweeps")
                    && err
                        .to_string()
                        .contains("asks for a population-annealing run"),
                "{err}"
            );
        }
    }
}
