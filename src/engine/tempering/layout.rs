//! How an engine groups the chain sets of a round into masks and exchanges the spins of two
//! walkers ([`SwapLayout`], [`Exchange`]), and how it lays out its observation records and
//! spins for the tempering kernels ([`Records`], [`kernel_constants`]).

use super::Chains;
use crate::config::{Lanes, Layout};
use crate::engine::multispin::{LANES, MultispinLayout};
use crate::model::ising::IsingSystems;
use crate::model::systems::SliceIndex;

/// How the spins of two walkers are exchanged, and so how the decisions of a round are grouped
/// into masks: `masks[k][q]` for group `q` of [`SwapLayout::groups`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exchange {
    /// Whole systems (simple engine) or word systems (SMSC): one chain set per group, mask all
    /// ones or zero.
    Systems,
    /// 32 chain sets per group in the lanes of the word systems at `k` and `k + 1` (AMSC lanes
    /// holding samples or replicas); mask bit `j` for lane `j`.
    Lanes,
    /// Every temperature of one chain set in the lanes of one word system (AMSC lanes holding
    /// temperatures): one mask per group, `masks[0][q]`, bit `k` set where lanes `k` and `k + 1`
    /// exchange.
    WithinWords,
}

/// Threads deciding one unit of a swap round (`tempering_swap`): a warp, one per lane of a group.
pub const UNIT_THREADS: u32 = 32;

/// Which chain sets the engine groups together; the masks of a round are `[k][q]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwapLayout {
    pub chains: Chains,
    pub exchange: Exchange,
    /// Groups `Q`.
    pub groups: u32,
    /// With [`Exchange::Lanes`], whether lanes are samples (else replicas).
    pub sample_lanes: bool,
    pub replicas: u32,
    /// The run's index of each chain set, the batch of its swap randoms.
    pub slice: SliceIndex,
}

impl SwapLayout {
    /// The simple engine: one system per lattice.
    pub fn simple(systems: &IsingSystems) -> Self {
        let chains = Chains::of(systems);
        SwapLayout {
            chains,
            exchange: Exchange::Systems,
            groups: chains.sets,
            sample_lanes: false,
            replicas: systems.replicas,
            slice: systems.slice_index(),
        }
    }

    /// The multispin engine in `layout`.
    pub fn multispin(layout: &MultispinLayout) -> Self {
        let chains = Chains::of(&layout.systems);
        let (exchange, sample_lanes) = match layout.layout {
            Layout::Smsc => (Exchange::Systems, false),
            Layout::Amsc {
                lanes: Lanes::Temperatures,
            } => (Exchange::WithinWords, false),
            Layout::Amsc {
                lanes: Lanes::Samples,
            } => (Exchange::Lanes, true),
            Layout::Amsc {
                lanes: Lanes::Replicas,
            } => (Exchange::Lanes, false),
        };
        let groups = match exchange {
            Exchange::Lanes => chains.sets / LANES,
            _ => chains.sets,
        };
        SwapLayout {
            chains,
            exchange,
            groups,
            sample_lanes,
            replicas: layout.systems.replicas,
            slice: layout.systems.slice_index(),
        }
    }

    /// Chain sets per group: the lanes of a word with [`Exchange::Lanes`], else 1.
    pub fn group_lanes(&self) -> u32 {
        match self.exchange {
            Exchange::Lanes => LANES,
            Exchange::Systems | Exchange::WithinWords => 1,
        }
    }

    /// Units of a round per group, a warp or workgroup of [`UNIT_THREADS`] each: one per
    /// temperature (its word system), or one where the group's word holds the temperatures
    /// (`tempering_swap`).
    pub fn group_units(&self) -> u32 {
        match self.exchange {
            Exchange::WithinWords => 1,
            Exchange::Systems | Exchange::Lanes => self.chains.temperatures,
        }
    }

    /// Units of a round over every group.
    pub fn round_units(&self) -> u32 {
        self.group_units() * self.groups
    }

    /// Words of the mask array.
    pub fn mask_words(&self) -> usize {
        self.groups as usize * self.chains.temperatures as usize
    }

    /// The group and lane of chain set `c` (`s = c / R`, `r = c % R`).
    pub fn group_lane(&self, c: u32) -> (u32, u32) {
        match self.exchange {
            Exchange::Systems | Exchange::WithinWords => (c, 0),
            Exchange::Lanes => {
                let (s, r) = (c / self.replicas, c % self.replicas);
                if self.sample_lanes {
                    ((s / LANES) * self.replicas + r, s % LANES)
                } else {
                    (s * (self.replicas / LANES) + r / LANES, r % LANES)
                }
            }
        }
    }

    /// The masks `[k][q]` of one round's decisions `accepted[c][k]` (pairs of the round's
    /// parity only; others are false).
    pub fn masks(&self, accepted: &[bool]) -> Vec<u32> {
        let t = self.chains.temperatures as usize;
        let mut masks = vec![0u32; self.mask_words()];
        for c in 0..self.chains.sets {
            let (q, lane) = self.group_lane(c);
            for k in 0..t.saturating_sub(1) {
                if !accepted[c as usize * t + k] {
                    continue;
                }
                match self.exchange {
                    Exchange::Systems => masks[k * self.groups as usize + q as usize] = u32::MAX,
                    Exchange::Lanes => masks[k * self.groups as usize + q as usize] |= 1 << lane,
                    Exchange::WithinWords => masks[q as usize] |= 1 << k,
                }
            }
        }
        masks
    }
}

/// How an engine lays out its observations and spins, for the tempering kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Records {
    /// Observation records per (word) system: 32 lanes (multispin) or 1 (simple).
    pub lane_records: u32,
    /// Observation records per slot.
    pub slot_records: u32,
    /// SMSC: the 32 lane records of a word system are sites of one system, to be summed.
    pub sum_lanes: bool,
    /// Words (or `i32` spins) of one (word) system.
    pub system_words: u32,
}

impl Records {
    /// The simple engine: one record and `N` spins per system.
    pub fn simple(systems: &IsingSystems) -> Self {
        Records {
            lane_records: 1,
            slot_records: systems.systems(),
            sum_lanes: false,
            system_words: systems.lattice.sites() as u32,
        }
    }

    /// The multispin engine: 32 lane records per word system.
    pub fn multispin(layout: &MultispinLayout) -> Self {
        Records {
            lane_records: LANES,
            slot_records: layout.word_systems() * LANES,
            sum_lanes: layout.smsc(),
            system_words: layout.colour_words() * 2,
        }
    }

    /// The (word) systems of a slot, the layers of the tempering kernels' grids.
    pub fn systems(&self) -> u32 {
        self.slot_records / self.lane_records
    }
}

/// Names of the constants the tempering kernels are compiled with (WGSL overrides, CUDA
/// defines), in the order of [`kernel_constants`], followed by the chain sets' slice index
/// ([`SliceIndex::CONSTANTS`]).
pub const KERNEL_CONSTANTS: [&str; 10] = [
    "TEMPERATURES",
    "CHAIN_SETS",
    "GROUPS",
    "CHAIN_REPLICAS",
    "EXCHANGE",
    "SAMPLE_LANES",
    "LANE_RECORDS",
    "SLOT_RECORDS",
    "SUM_LANES",
    "SYSTEM_WORDS",
];

/// The tempering kernels' constants of `swaps` on an engine laid out as `records`.
pub fn kernel_constants(swaps: &SwapLayout, records: &Records) -> Vec<(&'static str, u32)> {
    let exchange = match swaps.exchange {
        Exchange::Systems => 0,
        Exchange::Lanes => 1,
        Exchange::WithinWords => 2,
    };
    let values = [
        swaps.chains.temperatures,
        swaps.chains.sets,
        swaps.groups,
        swaps.replicas,
        exchange,
        u32::from(swaps.sample_lanes),
        records.lane_records,
        records.slot_records,
        u32::from(records.sum_lanes),
        records.system_words,
    ];
    KERNEL_CONSTANTS
        .into_iter()
        .zip(values)
        .chain(swaps.slice.constants())
        .collect()
}

/// Names of the chain sets' slice constants in a kernel whose own slice constants
/// ([`SliceIndex::CONSTANTS`]) number other things (the CUDA paired update that decides a round:
/// its word systems), in the order of [`SliceIndex::constants`].
pub const CHAIN_SLICE_CONSTANTS: [&str; 3] =
    ["CHAIN_SLICE_BLOCK", "CHAIN_RUN_BLOCK", "CHAIN_SLICE_FIRST"];

/// The tempering constants of `swaps` on an engine laid out as `records` for a kernel with slice
/// constants of its own: [`kernel_constants`] with the chain sets' slice under
/// [`CHAIN_SLICE_CONSTANTS`].
pub fn chain_slice_kernel_constants(
    swaps: &SwapLayout,
    records: &Records,
) -> Vec<(&'static str, u32)> {
    let chains = CHAIN_SLICE_CONSTANTS
        .into_iter()
        .zip(swaps.slice.constants().map(|(_, value)| value));
    kernel_constants(swaps, records)
        .into_iter()
        .take(KERNEL_CONSTANTS.len())
        .chain(chains)
        .collect()
}

/// Swap the bits of `a` and `b` where `mask` is set.
pub fn exchange_masked(a: &mut u32, b: &mut u32, mask: u32) {
    let differ = (*a ^ *b) & mask;
    *a ^= differ;
    *b ^= differ;
}

/// Swap bit `k` with bit `k + 1` of `word` for every `k` set in `mask` (no two adjacent).
pub fn exchange_neighbour_lanes(word: u32, mask: u32) -> u32 {
    let differ = (word ^ (word >> 1)) & mask;
    word ^ differ ^ (differ << 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{MultispinOptions, Randoms};
    use crate::model::Lattice;

    #[test]
    fn masked_exchanges_swap_exactly_the_masked_bits() {
        let (mut a, mut b) = (0b1100u32, 0b1010u32);
        exchange_masked(&mut a, &mut b, 0b0110);
        assert_eq!((a, b), (0b1010, 0b1100));
        // Lanes 0<->1 and 2<->3 where bits 0 and 2 are masked.
        assert_eq!(exchange_neighbour_lanes(0b0110, 0b0101), 0b1001);
        assert_eq!(exchange_neighbour_lanes(0b0011, 0b0001), 0b0011);
    }

    /// A kernel with slice constants of its own takes the chain sets' under other names, with
    /// the tempering constants before them unchanged.
    #[test]
    fn chain_slice_constants_rename_the_chain_sets_slice() {
        let lattice = Lattice::new(2, 4);
        let systems = IsingSystems::spin_glass(lattice, 0.0, vec![0.5, 0.6], 64, 2, 1);
        let options = MultispinOptions {
            layout: Layout::Amsc {
                lanes: Lanes::Samples,
            },
            randoms: Randoms::Exact,
        };
        let layout = MultispinLayout::new(systems.sample_slice(32, 32), options);
        let (swaps, records) = (SwapLayout::multispin(&layout), Records::multispin(&layout));
        let plain = kernel_constants(&swaps, &records);
        let renamed = chain_slice_kernel_constants(&swaps, &records);
        let n = KERNEL_CONSTANTS.len();
        assert_eq!(renamed[..n], plain[..n]);
        let slice = swaps.slice.constants().map(|(_, value)| value);
        let names: Vec<&str> = renamed[n..].iter().map(|(name, _)| *name).collect();
        let values: Vec<u32> = renamed[n..].iter().map(|(_, value)| *value).collect();
        assert_eq!(names, CHAIN_SLICE_CONSTANTS);
        assert_eq!(values, slice);
        assert_eq!(
            slice,
            [64, 128, 64],
            "the second half of the samples, two replicas each"
        );
    }

    #[test]
    fn groups_and_lanes_cover_every_chain_set_once() {
        let lattice = Lattice::new(2, 4);
        for (lanes, samples, replicas) in [
            (Lanes::Samples, 64, 2),
            (Lanes::Replicas, 2, 64),
            (Lanes::Temperatures, 3, 2),
        ] {
            let systems =
                IsingSystems::spin_glass(lattice, 0.0, vec![0.5, 0.6], samples, replicas, 1);
            let options = MultispinOptions {
                layout: Layout::Amsc { lanes },
                randoms: Randoms::Exact,
            };
            let layout = MultispinLayout::new(systems, options);
            let swaps = SwapLayout::multispin(&layout);
            let mut seen = std::collections::HashSet::new();
            for c in 0..swaps.chains.sets {
                let (q, lane) = swaps.group_lane(c);
                assert!(q < swaps.groups);
                assert!(seen.insert((q, lane)), "{lanes:?} c = {c}");
                // Word system q holds chain set c at temperature 0 in `lane` (lane 0, the
                // first temperature, where lanes are temperatures).
                assert_eq!(layout.lane_system(q, lane), Some(c), "{lanes:?} c = {c}");
            }
        }
    }
}
