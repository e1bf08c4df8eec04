//! How the observables and overlap kernels walk a word system: lines along y of one `(z, w, p)`,
//! several lines of one x-plane per thread (a strip).

use super::geometry::within_a_word_system;
use super::{MultispinLayout, WordSite};

/// Words a thread of the observables and overlap kernels walks at most where it walks several
/// lines (see [`MultispinLayout::line_run`]).
pub const MAX_STRIP_WORDS: u32 = 256;

/// Threads the observables and overlap kernels are given at least where shorter strips allow:
/// two waves of an H100 (132 SMs of 2048 threads) and more of smaller GPUs. With fewer, a
/// measurement waits on the memory latency of a few long strips (3D EA L = 16 with 2^16
/// replicas: 66 K threads of 8 lines, 103 us on the H100, docs/BENCHMARKS.md).
pub const MIN_STRIP_THREADS: u64 = 1 << 18;

/// The observables kernel's constant (CUDA define and WGSL override alike): whether it counts
/// up spins; off for a swap round at zero field, whose decisions need the satisfied bonds alone.
pub const COUNT_UP: &str = "COUNT_UP";

/// The observables kernel's constant: whether the up spins it counts are the staggered ones,
/// up on colour 0 and down on colour 1 ([`IsingSystems::staggered`]).
///
/// [`IsingSystems::staggered`]: crate::model::ising::IsingSystems::staggered
pub const STAGGERED: &str = "STAGGERED";

/// The overlap kernel's constant: whether a plane's two counts share a word
/// ([`MultispinLayout::packs_overlap_counts`]).
pub const PACKED_OVERLAPS: &str = "PACKED_OVERLAPS";

/// The overlap kernel's constants: the engine's `constants` and [`PACKED_OVERLAPS`] of `layout`.
pub fn overlap_constants(
    constants: &[(&'static str, u32)],
    layout: &MultispinLayout,
) -> Vec<(&'static str, u32)> {
    let packed = (PACKED_OVERLAPS, u32::from(layout.packs_overlap_counts()));
    constants.iter().copied().chain([packed]).collect()
}

impl MultispinLayout {
    /// The site visited at step `y` of line `line`: lines run along y with fixed
    /// `(z, w, p)`, `line = (z * row_words + w) * 2 + p`; returns the colour and the site.
    pub fn line_site(&self, line: u32, y: u32) -> (u32, WordSite) {
        let (z, w, p) = self.line_position(line);
        let colour = (p + y + z) & 1;
        (
            colour,
            self.word_site(colour, z * self.lattice().size + y, w),
        )
    }

    /// The sites a strip walks, in order: lines `strip + r * strips()` for `r` below
    /// [`line_run`](Self::line_run), each along y (see [`line_site`](Self::line_site)).
    pub fn strip_sites(&self, strip: u32) -> impl Iterator<Item = (u32, WordSite)> + '_ {
        let size = self.line_length();
        (0..self.line_run()).flat_map(move |r| {
            let line = strip + r * self.strips();
            (0..size).map(move |y| self.line_site(line, y))
        })
    }

    /// `(z, w, p)` of line `line`.
    pub fn line_position(&self, line: u32) -> (u32, u32, u32) {
        (
            (line >> 1) / self.row_words(),
            (line >> 1) % self.row_words(),
            line & 1,
        )
    }

    /// Lines per word system (see [`line_site`](Self::line_site)): of the own planes in a slab.
    pub fn lines(&self) -> u32 {
        let planes = u64::from(self.own_rows() / self.line_length());
        within_a_word_system(planes * u64::from(self.row_words()) * 2, "lines")
    }

    /// Sites of a line (steps along y): `L`, or in 2D a slab's planes (y is its slowest axis).
    pub fn line_length(&self) -> u32 {
        match self.lattice().dims {
            2 => self.own_planes(),
            _ => self.lattice().size,
        }
    }

    /// Lines each thread of the observables and overlap kernels walks: `line_run` lines of one
    /// `(w, p)` (so of one x-plane), `strips()` lines apart. Walking several lines amortises each
    /// thread's tail (extracting 32 lane counts and adding them up, for the overlaps with global
    /// atomics per x-plane and lane): up to 8 lines of at most [`MAX_STRIP_WORDS`] words, fewer
    /// where the longest runs would leave the kernels fewer than [`MIN_STRIP_THREADS`] threads,
    /// and 1 in 2D, where lines are whole x-planes.
    pub fn line_run(&self) -> u32 {
        let size = self.line_length();
        let planes = self.lines() / (2 * self.row_words());
        let lines = u64::from(self.lines()) * u64::from(self.word_systems());
        let runs: Vec<u32> = [8, 4, 2]
            .into_iter()
            .filter(|&run| planes.is_multiple_of(run) && run * size <= MAX_STRIP_WORDS)
            .collect();
        let enough_threads = |run: u32| lines / u64::from(run) >= MIN_STRIP_THREADS;
        (runs.iter().copied().find(|&run| enough_threads(run)))
            .or(runs.last().copied())
            .unwrap_or(1)
    }

    /// Strips per word system: groups of [`line_run`](Self::line_run) lines, one per thread.
    pub fn strips(&self) -> u32 {
        self.lines() / self.line_run()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Lanes, Layout};
    use crate::engine::multispin::fixtures;

    /// Observation threads walk up to 8 lines of one x-plane, at most MAX_STRIP_WORDS words,
    /// and the strips cover every line once.
    #[test]
    fn strips_walk_whole_lines_of_one_plane() {
        let samples = Layout::Amsc {
            lanes: Lanes::Samples,
        };
        // (dims, L, layout, samples, line run): enough samples for the longest runs' threads,
        // then too few, so that shorter runs give more threads.
        for (dims, size, layout, samples, run) in [
            (3, 32, samples, 32 * 2048, 8),
            (3, 32, samples, 32 * 512, 4),
            (3, 32, samples, 32, 2),
            (3, 16, samples, 32 * 8192, 8),
            (3, 16, samples, 32 * 1024, 2),
            (3, 64, samples, 32 * 1024, 4),
            (3, 6, samples, 32, 2),
            (3, 128, Layout::Smsc, 32, 2),
            (2, 64, samples, 32, 1),
            (2, 4096, Layout::Smsc, 32, 1),
        ] {
            let l = fixtures::layout(dims, size, layout, samples, 2, 1);
            assert_eq!(
                l.line_run(),
                run,
                "{dims}D L={size} {layout:?} {samples} samples"
            );
            assert_eq!(l.strips() * l.line_run(), l.lines());
            assert!(l.line_run() == 1 || l.line_run() * size <= MAX_STRIP_WORDS);
            assert_eq!(l.strips() % (2 * l.row_words()), 0);
        }
    }
}
