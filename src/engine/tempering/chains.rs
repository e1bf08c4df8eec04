//! The chain sets of a run and their state: the walker at each temperature, the walkers'
//! phases and round trips, and the swaps accepted per pair (see [`super`]).

use crate::model::systems::SystemIndex;

/// Phase of a walker last seen at the bottom of the ladder.
pub const AT_BOTTOM: u32 = 1;
/// Phase of a walker that reached the top after the bottom.
pub const AT_TOP: u32 = 2;

/// Sections of the tempering state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Labels = 0,
    Phases = 1,
    Trips = 2,
    Accepted = 3,
}

/// The chain sets of a run and the sections of their state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chains {
    /// Chain sets `C = samples x replicas`: chain set `c = s R + r` is replica `r` of sample
    /// `s` at every temperature.
    pub sets: u32,
    /// Temperatures (walkers per chain set).
    pub temperatures: u32,
}

impl Chains {
    /// The chain sets of `systems` (of any model): one per system of a temperature.
    pub fn of(systems: &SystemIndex) -> Self {
        Chains {
            sets: systems.systems_per_temperature(),
            temperatures: systems.betas.len() as u32,
        }
    }

    /// Pairs `(k, k + 1)` of a round of parity `parity` (`k = parity mod 2`).
    pub fn round_pairs(&self, parity: u32) -> u32 {
        self.temperatures.saturating_sub(parity) / 2
    }

    /// Words of the whole state.
    pub fn state_words(&self) -> usize {
        4 * self.section_words()
    }

    /// Words of one section.
    pub fn section_words(&self) -> usize {
        self.sets as usize * self.temperatures as usize
    }

    /// Index of `[c][k]` in `section`.
    pub fn index(&self, section: Section, c: u32, k: u32) -> usize {
        section as usize * self.section_words() + (c * self.temperatures + k) as usize
    }

    /// The state of a fresh run: walker `k` at temperature `k`, walker 0 at the bottom.
    pub fn initial_state(&self) -> Vec<u32> {
        let mut state = vec![0u32; self.state_words()];
        for c in 0..self.sets {
            for k in 0..self.temperatures {
                state[self.index(Section::Labels, c, k)] = k;
            }
            state[self.index(Section::Phases, c, 0)] = AT_BOTTOM;
        }
        state
    }

    /// The system at temperature `k` of chain set `c`.
    pub fn system(&self, k: u32, c: u32) -> u32 {
        k * self.sets + c
    }

    /// One round of chain set `c` on the pairs of `parity`, `accepts(k)` deciding pair
    /// `(k, k + 1)`: the accepted pairs swap their labels and count in `accepted`, marked in
    /// `decisions[k]`; then the walkers at the ends of the ladder update their phases and round
    /// trips. The reference of every swap kernel's bookkeeping.
    pub fn track_round(
        &self,
        state: &mut [u32],
        (c, parity): (u32, u32),
        mut accepts: impl FnMut(u32) -> bool,
        decisions: &mut [bool],
    ) {
        let t = self.temperatures;
        for k in (parity..t.saturating_sub(1)).step_by(2) {
            if !accepts(k) {
                continue;
            }
            decisions[k as usize] = true;
            state.swap(
                self.index(Section::Labels, c, k),
                self.index(Section::Labels, c, k + 1),
            );
            state[self.index(Section::Accepted, c, k)] += 1;
        }
        let bottom = state[self.index(Section::Labels, c, 0)];
        let phase = self.index(Section::Phases, c, bottom);
        if state[phase] == AT_TOP {
            state[self.index(Section::Trips, c, bottom)] += 1;
        }
        state[phase] = AT_BOTTOM;
        let top = state[self.index(Section::Labels, c, t - 1)];
        let phase = self.index(Section::Phases, c, top);
        if state[phase] == AT_BOTTOM {
            state[phase] = AT_TOP;
        }
    }
}
