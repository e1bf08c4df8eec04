//! Population annealing's copy maps, shared by the device backends' copy kernels
//! (`copy_systems.wgsl`, `copy_systems.cu`; engines `engine::wgpu::copy_systems` and
//! `engine::cuda::copy_systems`): one `u32` per destination, naming where its spins come from
//! ([`CopyUnit`]), computed on the host ([`lane_map`]) or written on the device by the resampling
//! step from [`system_positions`].

use crate::engine::multispin::MultispinLayout;
use crate::error::{Error, Result};
use crate::threads;

/// How destinations take their spins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyUnit {
    /// Whole (word) systems: the map holds the source system of each (simple engine, SMSC).
    Systems,
    /// Lanes, bit by bit: the map holds `source word system * 32 + source lane` of every
    /// destination lane `[g][lane]` (AMSC).
    Lanes,
}

/// Entries of the map for `systems` (word) systems copied by `unit`.
pub fn map_words(unit: CopyUnit, systems: u32) -> u32 {
    match unit {
        CopyUnit::Systems => systems,
        CopyUnit::Lanes => systems * 32,
    }
}

/// `system_words`, the words of one (word) system, as the copy kernel indexes them (32 bits),
/// refused where larger.
pub fn kernel_system_words(system_words: u64) -> Result<u32> {
    u32::try_from(system_words).map_err(|_| {
        Error::Limits(format!(
            "population annealing copies systems of {system_words} words; the copy kernel \
             indexes at most {} words per system",
            u32::MAX
        ))
    })
}

/// How a multispin engine copies: SMSC whole word systems (one system each), AMSC lanes.
pub fn multispin_unit(layout: &MultispinLayout) -> CopyUnit {
    match layout.smsc() {
        true => CopyUnit::Systems,
        false => CopyUnit::Lanes,
    }
}

/// The copy kernel's map of the system map `sources` for a multispin engine (see
/// [`CopyUnit`]): per destination lane `[g][lane]` its source word system and lane (AMSC; idle
/// lanes keep their bits), or per word system its source (SMSC, one system per word system);
/// through the layout's own mapping (`lane_system`, `system_lane`), as the CPU engine copies.
pub fn lane_map(layout: &MultispinLayout, sources: &[u32]) -> Vec<u32> {
    let per_word = layout.systems_per_word();
    let mut map = vec![0; (layout.word_systems() * per_word) as usize];
    threads::for_chunks(&mut map, per_word as usize, |g, lanes| {
        let g = g as u32;
        for (lane, entry) in (0..per_word).zip(lanes) {
            let (source, source_lane) = match layout.lane_system(g, lane) {
                Some(b) => layout.system_lane(sources[b as usize]),
                None => (g, lane),
            };
            *entry = source * per_word + source_lane;
        }
    });
    map
}

/// The copy kernel's map under which every lane keeps its bits (lanes that hold no system
/// included: the resampling step writes only the entries of systems).
pub fn identity_map(layout: &MultispinLayout) -> Vec<u32> {
    let identity: Vec<u32> = (0..layout.systems.systems()).collect();
    lane_map(layout, &identity)
}

/// Per system of a multispin engine, the map entry (see [`CopyUnit`]) of its lane: `g * 32 +
/// lane` (AMSC) or its word system `g` (SMSC). Resampling on the device writes the map from
/// these.
pub fn system_positions(layout: &MultispinLayout) -> Vec<u32> {
    let per_word = layout.systems_per_word();
    threads::from_fn(layout.systems.systems() as usize, |b| {
        let (g, lane) = layout.system_lane(b as u32);
        g * per_word + lane
    })
}
