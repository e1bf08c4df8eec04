//! Site dilution: the empty sites of each disorder sample of a diluted model (`dilution: p`),
//! drawn from the seed as the couplings are, or read from a `vacancies.npy` a run wrote
//! (`vacancies: File(..)`).
//!
//! Site `i` of sample `s` is empty where word `i mod 4` of the couplings' block
//! `(word = i / 4, sweep 0, Couplings, draw 2, colour 0, batch s)` is below `round(p 2^32)`: each
//! site is empty with probability `p` (to `2^-32`), independently, the same for every engine,
//! backend and slice of the samples.

use super::Lattice;
use super::couplings::couplings_block;
use crate::error::{Error, Result};

/// The `draw` of the couplings' Philox blocks that decides the empty sites (the +-J bits take 0,
/// the Gaussian couplings 1).
const VACANCY_DRAW: u32 = 2;

/// The empty sites of every sample, in increasing order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vacancies {
    samples: Vec<Vec<u32>>,
}

impl Vacancies {
    /// The empty sites of `samples` samples of `lattice` drawn from `seed`, each site empty with
    /// probability `dilution`.
    pub fn draw(lattice: &Lattice, seed: u64, samples: u32, dilution: f64) -> Self {
        let below = (dilution * 2f64.powi(32)).round() as u64;
        let draw_sample = |sample: u32| {
            let blocks = lattice.sites().div_ceil(4);
            let blocks = u32::try_from(blocks).expect("fewer than 2^34 sites per sample");
            (0..blocks)
                .flat_map(|block| couplings_block(seed, block, VACANCY_DRAW, sample))
                .take(lattice.sites() as usize)
                .enumerate()
                .filter(|&(_, word)| u64::from(word) < below)
                .map(|(i, _)| i as u32)
                .collect()
        };
        Vacancies {
            samples: (0..samples).map(draw_sample).collect(),
        }
    }

    /// The vacancies marked in `empty` (nonzero: empty), site after site, sample after sample,
    /// for `samples` samples of `lattice` (as `vacancies.npy` holds them); refused, naming the
    /// first, unless every value is 0 or 1.
    pub fn from_marks(
        empty: impl ExactSizeIterator<Item = u8>,
        lattice: &Lattice,
        samples: u32,
        source: &str,
    ) -> Result<Self> {
        let sites = lattice.sites() as usize;
        assert_eq!(empty.len(), samples as usize * sites);
        let mut vacancies = vec![Vec::new(); samples as usize];
        for (i, mark) in empty.enumerate() {
            match mark {
                0 => {}
                1 => vacancies[i / sites].push((i % sites) as u32),
                _ => {
                    return Err(Error::Usage(format!(
                        "{source}: a site is empty (1) or occupied (0), but sample {}, site {} \
                         holds {mark}",
                        i / sites,
                        i % sites
                    )));
                }
            }
        }
        Ok(Vacancies { samples: vacancies })
    }

    /// The vacancies whose empty sites, in increasing order, are `samples`' (as
    /// [`Vacancies::samples`] gives them).
    pub fn of_samples(samples: Vec<Vec<u32>>) -> Self {
        Vacancies { samples }
    }

    /// No empty site in any of `samples` samples.
    pub fn none(samples: u32) -> Self {
        Vacancies {
            samples: vec![Vec::new(); samples as usize],
        }
    }

    /// These vacancies with the sites `sites` (in increasing order) empty in every sample too.
    pub fn with_sites(self, sites: &[u32]) -> Self {
        let merge = |mut empty: Vec<u32>| {
            empty.extend_from_slice(sites);
            empty.sort_unstable();
            empty.dedup();
            empty
        };
        Vacancies {
            samples: self.samples.into_iter().map(merge).collect(),
        }
    }

    /// The samples `first .. first + count` of these.
    pub fn sample_slice(&self, first: u32, count: u32) -> Self {
        let samples = first as usize..(first + count) as usize;
        Vacancies {
            samples: self.samples[samples].to_vec(),
        }
    }

    /// The empty sites of every sample, in increasing order.
    pub fn samples(&self) -> &[Vec<u32>] {
        &self.samples
    }

    /// The empty sites of sample `s`, in increasing order.
    pub fn sample(&self, s: u32) -> &[u32] {
        &self.samples[s as usize]
    }

    /// Every sample's sites as `vacancies.npy` holds them, sample after sample: 1 where empty, 0
    /// where occupied (streamed: a sample's marks are as many bytes as it has sites).
    pub fn marks<'a>(&'a self, lattice: &Lattice) -> impl Iterator<Item = u8> + 'a {
        let sites = lattice.sites();
        self.samples.iter().flat_map(move |empty| {
            let mut next = empty.iter().copied().peekable();
            (0..sites).map(move |i| u8::from(next.next_if_eq(&(i as u32)).is_some()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The drawn fraction of empty sites is `p` within 5 sigma, samples differ, the marks give
    /// the vacancies back, and a mark other than 0 or 1 is refused by name.
    #[test]
    fn drawn_vacancies_have_the_dilution_and_read_back_from_their_marks() {
        let lattice = Lattice::new(2, 64);
        let p = 0.3;
        let vacancies = Vacancies::draw(&lattice, 7, 3, p);
        let n = lattice.sites() as f64;
        for empty in vacancies.samples() {
            let sigma = (p * (1.0 - p) / n).sqrt();
            let seen = empty.len() as f64 / n;
            assert!((seen - p).abs() < 5.0 * sigma, "{seen} against {p}");
            assert!(empty.windows(2).all(|w| w[0] < w[1]));
        }
        assert_ne!(vacancies.sample(0), vacancies.sample(1));
        assert_eq!(vacancies.sample_slice(1, 2).sample(0), vacancies.sample(1));

        let marks: Vec<u8> = vacancies.marks(&lattice).collect();
        let first = vacancies.sample(2)[0] as usize;
        assert_eq!(marks[2 * 4096 + first], 1);
        let read = Vacancies::from_marks(marks.iter().copied(), &lattice, 3, "v.npy").unwrap();
        assert_eq!(read, vacancies);
        let mut bad = marks;
        bad[4096 + 5] = 2;
        let refused = Vacancies::from_marks(bad.into_iter(), &lattice, 3, "v.npy").unwrap_err();
        assert!(
            refused.to_string().contains("sample 1, site 5 holds 2"),
            "{refused}"
        );
        assert!(Vacancies::draw(&lattice, 7, 1, 0.0).sample(0).is_empty());
    }
}
