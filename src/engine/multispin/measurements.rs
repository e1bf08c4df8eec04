//! The kernels' counts read back as [`Measurements`]: per-word observations reordered (or, in
//! SMSC, summed) into per-system ones, per-pair overlap counts into overlap planes and link
//! overlaps, batch by batch as a GPU engine reads them ([`SlotsRead`]).

use super::{LANES, MultispinLayout};
use crate::engine::{Measurements, Observation};
#[cfg(doc)]
use crate::model::ising::IsingSystems;
use crate::threads;

impl MultispinLayout {
    /// A plan's [`Measurements`] from what every backend's kernels count: per-word observations
    /// `[slot][g][lane]` (up, satisfied) and per-pair overlap counts `[slot][pair][pair count]`
    /// (see [`pair_counts`](Self::pair_counts); empty without overlap pairs).
    pub fn measurements(
        &self,
        per_word: &[[u64; 2]],
        per_pair: &[u32],
        slots: u32,
    ) -> Measurements {
        let mut measurements = self.measurements_for(slots);
        self.fill_slots(&mut measurements, 0, per_word, per_pair);
        measurements
    }

    /// [`Measurements`] of `slots` slots, zero, for [`fill_slots`](Self::fill_slots) to fill:
    /// a plan's read back batch by batch is allocated once, as zeroed memory whose pages each
    /// fill touches first (`vec!` of a struct would write them all at once, on one thread), in
    /// huge pages where the system gives them ([`advise_huge_pages`]).
    pub fn measurements_for(&self, slots: u32) -> Measurements {
        let slots = slots as usize;
        let overlaps = slots * self.systems.overlaps() as usize;
        let measurements = Measurements {
            observations: bytemuck::zeroed_vec(slots * self.systems.systems() as usize),
            overlap_planes: vec![0; overlaps * self.lattice().size as usize],
            link_overlaps: vec![0; overlaps],
            ..Measurements::default()
        };
        advise_huge_pages(&measurements.observations);
        advise_huge_pages(&measurements.overlap_planes);
        advise_huge_pages(&measurements.link_overlaps);
        measurements
    }

    /// Fill the slots from `first` on of `into` ([`measurements_for`](Self::measurements_for))
    /// with the counts of those slots, as [`measurements`](Self::measurements) reads them;
    /// returns how many slots the counts held.
    pub fn fill_slots(
        &self,
        into: &mut Measurements,
        first: u32,
        per_word: &[[u64; 2]],
        per_pair: &[u32],
    ) -> u32 {
        let systems = self.systems.systems() as usize;
        let slots = per_word.len() / (self.word_systems() as usize * LANES as usize);
        let observations = &mut into.observations[first as usize * systems..][..slots * systems];
        self.systems_of_words_into(per_word, observations);
        let overlaps = first as usize * self.systems.overlaps() as usize;
        let planes = &mut into.overlap_planes[overlaps * self.lattice().size as usize..];
        let links = &mut into.link_overlaps[overlaps..];
        self.overlaps_of_pairs(per_pair, slots, planes, links);
        slots as u32
    }

    /// Reorder per-word observations `[slot][g][lane]` (up, satisfied) into per-system ones
    /// `[slot][system]`; SMSC sums the 32 site lanes of its one system.
    pub fn systems_of_words(&self, per_word: &[[u64; 2]], slots: u32) -> Vec<Observation> {
        let mut observations =
            bytemuck::zeroed_vec(slots as usize * self.systems.systems() as usize);
        self.systems_of_words_into(per_word, &mut observations);
        observations
    }

    /// [`systems_of_words`](Self::systems_of_words) into `observations`, as many slots as it
    /// holds. Each system gathers its own lane, so systems fill in parallel within a slot too: a
    /// population anneal measures 2^20 systems in one slot per step.
    fn systems_of_words_into(&self, per_word: &[[u64; 2]], observations: &mut [Observation]) {
        let systems = self.systems.systems() as usize;
        let words = self.word_systems() as usize * LANES as usize;
        threads::for_chunks(observations, 1, |i, observation| {
            let (slot, b) = (i / systems, i % systems);
            let (g, lane) = self.system_lane(b as u32);
            let lanes = &per_word[slot * words + g as usize * LANES as usize..][..LANES as usize];
            let [up, satisfied] = match self.smsc() {
                true => lanes
                    .iter()
                    .fold([0, 0], |sum, c| [sum[0] + c[0], sum[1] + c[1]]),
                false => lanes[lane as usize],
            };
            observation[0] = Observation { up, satisfied };
        });
    }

    /// Reorder per-pair counts `[slot][pair][pair count]` ([`pair_counts`](Self::pair_counts):
    /// packed or `[sites, bonds][overlap slot]`) of `slots` slots into
    /// the differing sites `[slot][overlap][x]` (`planes`) and the differing bonds summed over
    /// the planes `[slot][overlap]` (`links`), overlaps numbered as [`SystemIndex::overlaps`].
    /// An overlap's `L` planes are contiguous in the counts (lane-major overlap slots), so each
    /// overlap copies one run of sites and sums one run of bonds, in parallel like
    /// [`systems_of_words`](Self::systems_of_words).
    ///
    /// [`SystemIndex::overlaps`]: crate::model::systems::SystemIndex::overlaps
    fn overlaps_of_pairs(
        &self,
        per_pair: &[u32],
        slots: usize,
        planes: &mut [u32],
        links: &mut [u64],
    ) {
        let l = self.lattice().size as usize;
        let overlaps = self.systems.overlaps() as usize;
        let per_word = self.pair_counts() as usize;
        let bonds = self.overlap_slots() as usize;
        let pair_counts = self.overlap_word_pairs().len() * per_word;
        if pair_counts == 0 {
            // Overlap pairs within one word (AMSC lanes with fewer than 64 replicas, which the
            // config refuses for the spin glass) have no word pairs: nothing was counted, the
            // planes and links stay zero.
            return;
        }
        // The sites of overlap `i mod overlaps` at slot `i / overlaps`: its lane's run of planes,
        // and the bonds `bonds` further.
        let sites_of = |i: usize| {
            let (slot, o) = (i / overlaps, i % overlaps);
            let (pw, lane) = self.overlap_source(o as u32);
            let first = slot * pair_counts + pw * per_word + self.overlap_slot(0, 0, lane) as usize;
            first..first + l
        };
        let packed = self.packs_overlap_counts();
        let unpack = MultispinLayout::unpack_overlap_count;
        threads::join(
            slots * overlaps * l,
            || {
                threads::for_chunks(&mut planes[..slots * overlaps * l], l, |i, planes| {
                    let counts = &per_pair[sites_of(i)];
                    match packed {
                        true => {
                            (planes.iter_mut().zip(counts)).for_each(|(p, &c)| *p = unpack(c)[0])
                        }
                        false => planes.copy_from_slice(counts),
                    }
                })
            },
            || {
                threads::for_chunks(&mut links[..slots * overlaps], 1, |i, link| {
                    let sites = sites_of(i);
                    link[0] = match packed {
                        true => per_pair[sites]
                            .iter()
                            .map(|&c| u64::from(unpack(c)[1]))
                            .sum(),
                        false => (per_pair[sites.start + bonds..sites.end + bonds].iter())
                            .map(|&b| u64::from(b))
                            .sum(),
                    };
                })
            },
        );
    }
}

/// Ask Linux to back the whole 2 MiB pages within `items` (memory not yet touched) with huge
/// pages, where transparent huge pages are enabled for such advice: a plan's measurements can be
/// gigabytes (3D spin glass at L = 16, 65536 systems, 819 slots: 2.5 GB), whose 4 KiB pages cost
/// a fault each as they fill and their unmapping when the caller drops them. With the advice
/// that plan's time outside its kernels fell from 96 ms to 12 ms of 1.4 s on an H100 machine.
/// It changes no contents; elsewhere it is a no-op.
fn advise_huge_pages<T>(items: &[T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = items.as_ptr() as usize;
        let first = start.next_multiple_of(HUGE);
        let end = (start + std::mem::size_of_val(items)) / HUGE * HUGE;
        if end > first {
            #[allow(unsafe_code, reason = "madvise is a libc call")]
            // SAFETY: [first, end) lies within `items`' allocation, which outlives the call;
            // MADV_HUGEPAGE only changes how the kernel backs the pages, never their contents,
            // and a refusal (no THP) leaves them as they were.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = items;
}

/// A plan's measurements as a GPU engine reads them back, batch by batch while the device runs
/// the next: filled up to slot `slots` of the plan's `total`, with the time spent on the host.
#[derive(Debug, Default)]
pub struct SlotsRead {
    pub slots: u32,
    total: u32,
    /// Sized for the plan at the first fill (a plan read as histograms allocates none).
    measurements: Measurements,
    downloading: std::time::Duration,
    reordering: std::time::Duration,
    /// Slots read while the device ran later batches.
    beside: u32,
}

impl SlotsRead {
    /// Nothing read yet of a plan of `total` slots.
    pub fn new(total: u32) -> Self {
        SlotsRead {
            total,
            ..SlotsRead::default()
        }
    }

    /// Fill the slots from `self.slots` on with their counts (see
    /// [`MultispinLayout::measurements`]), downloaded in `downloading`.
    pub fn fill(
        &mut self,
        layout: &MultispinLayout,
        per_word: &[[u64; 2]],
        per_pair: &[u32],
        downloading: std::time::Duration,
    ) {
        let started = std::time::Instant::now();
        if self.slots == 0 {
            self.measurements = layout.measurements_for(self.total);
        }
        let into = &mut self.measurements;
        self.slots += layout.fill_slots(into, self.slots, per_word, per_pair);
        self.downloading += downloading;
        self.reordering += started.elapsed();
    }

    /// The slots filled so far were read beside the device's work.
    pub fn mark_beside(&mut self) {
        self.beside = self.slots;
    }

    /// The measurements, once every slot is filled; `backend` names the engine in the log.
    pub fn finish(self, backend: &str) -> Measurements {
        log::debug!(
            "{backend} multispin: {} measurements downloaded in {:.1} ms, reordered in {:.1} ms \
             ({} of them beside the kernels)",
            self.slots,
            self.downloading.as_secs_f64() * 1e3,
            self.reordering.as_secs_f64() * 1e3,
            self.beside,
        );
        self.measurements
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Layout;
    use crate::engine::multispin::fixtures::ferromagnet_layout;

    /// Per-lane counts of one SMSC system sum past `u32` into its observation.
    #[test]
    fn smsc_lane_counts_sum_past_u32() {
        let layout = ferromagnet_layout(2, 65536, Layout::Smsc, 1);
        let per_word = vec![[1u64 << 27, 1u64 << 28]; 32];
        let measured = layout.measurements(&per_word, &[], 1);
        assert_eq!(
            measured.observations,
            vec![Observation {
                up: 1 << 32,
                satisfied: 1 << 33
            }]
        );
    }
}
