//! Bit planes of discrete states (`updates: (storage: BitPlanes)`): the states of the Potts
//! ferromagnet and of the Blume-Capel model held as `P = ceil(log2 q)` bits a site, 32 sites of one
//! colour a word, so that the update reads and writes `P / 8` bytes a site instead of a 32-bit word
//! and decides 32 sites with bitwise logic and shared random words (the kernel
//! `discrete_planes_metropolis`). The vector engine keeps its state words as well: it packs them
//! into planes before a run of sweeps (`discrete_pack`) and unpacks them after it
//! (`discrete_unpack`), so measurements, checkpoints, exchanges and copies read and write the
//! states as ever.
//!
//! Word `w` of colour `c` holds the colour sites `32 w .. 32 w + 32` in the order of
//! [`Lattice::colour_site`] (bit `b` is colour site `32 w + b`): a row of `L / 2` sites of one
//! colour fills `L / 64` words. Plane `p` of colour `c` of system `b` is the run of
//! [`PlaneLayout::words_per_colour`] words from [`PlaneLayout::word`]`(b, p, c, 0)`; on the GPUs
//! the planes follow the state words in the spins buffer ([`PlaneLayout::offset`]).

use crate::error::{Error, Result};
use crate::model::vector::states::StateModel;
use crate::model::vector::{VectorCouplings, VectorSystems};
use crate::model::{Lattice, Shape};

/// Bits a plane word holds: sites of one colour.
pub const PLANE_BITS: u64 = 32;

/// Plane words a thread of `discrete_planes_metropolis` updates, one after another, so that
/// its temperature's classes and thresholds are worked out once for them: thread `t` of a pass
/// of `n` words takes the words `t + r ceil(n / 4)`, `r < 4` (each `r` a coalesced run).
pub const WORDS_PER_THREAD: u32 = 4;

/// Most planes, so that the proposal's random words fit two Philox blocks: `q <= 256`.
pub const MAX_PLANES: u32 = 8;

/// Philox draws a hit of a plane word takes (`draw = hit * DRAWS_PER_HIT + d`): two for the
/// proposal, one for the bit-sliced bits of its decisions, eight for their tail (a word for
/// each of the 32 lanes at most).
pub const DRAWS_PER_HIT: u32 = 11;

/// The draw of a hit's bit-sliced decision bits.
pub const DECISION_DRAW: u32 = 2;

/// The first draw of a hit's decision tail.
pub const TAIL_DRAW: u32 = 3;

/// The most significant bits of a lane's uniform that the decision draws bit-sliced: one bit
/// a word of its block.
pub const SLICED_BITS: u32 = 4;

/// The random words the proposal of `q` states in `planes` planes takes from its blocks: none
/// for `q = 2` (the other state), one for `q = 3` (its bit in word 0), else one a plane. The
/// words of its last block past them are the decision tail's first.
pub fn proposal_words(q: u32, planes: u32) -> u32 {
    match q {
        2 => 0,
        3 => 1,
        _ => planes,
    }
}

/// The shape of the bit planes of `systems` systems of `q` states on `lattice`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlaneLayout {
    pub lattice: Lattice,
    pub q: u32,
    pub systems: u32,
}

impl PlaneLayout {
    /// The planes of `systems`, checked: [`check_planes`].
    pub fn of(systems: &VectorSystems) -> Result<Self> {
        check_planes(systems)?;
        let q = (systems.states.as_ref()).map_or(0, |states| states.q);
        Ok(PlaneLayout {
            lattice: systems.lattice,
            q,
            systems: systems.systems(),
        })
    }

    /// Planes a site: `ceil(log2 q)`, at least one.
    pub fn planes(&self) -> u32 {
        planes_of(self.q)
    }

    /// Words of one plane of one colour: `N / 64`.
    pub fn words_per_colour(&self) -> u64 {
        self.lattice.sites_per_colour() / PLANE_BITS
    }

    /// Words of one system's planes, both colours.
    pub fn system_words(&self) -> u64 {
        2 * u64::from(self.planes()) * self.words_per_colour()
    }

    /// Words of every system's planes.
    pub fn words(&self) -> u64 {
        u64::from(self.systems) * self.system_words()
    }

    /// Word `cw` of plane `p` of colour `c` of system `b`, counted from the first plane word.
    pub fn word(&self, b: u32, p: u32, c: u32, cw: u64) -> u64 {
        let plane = (u64::from(b) * u64::from(self.planes()) + u64::from(p)) * 2 + u64::from(c);
        plane * self.words_per_colour() + cw
    }

    /// Where the planes start in a GPU's spins buffer, in words: after the state words of
    /// every system.
    pub fn offset(&self) -> u64 {
        u64::from(self.systems) * self.lattice.sites()
    }
}

/// Planes a site of `q` states: `ceil(log2 q)`, at least one.
pub fn planes_of(q: u32) -> u32 {
    q.max(2).next_power_of_two().trailing_zeros()
}

/// Refuse bit planes where the update of `discrete_planes_metropolis` would not be the model's:
/// it takes the Potts ferromagnet (`q <= 256`) or the Blume-Capel model (any crystal field),
/// with one uniform `J > 0`, at zero field, without empty sites, on the periodic square or
/// cubic lattice of a side that is a multiple of 64 (a row of one colour fills whole words).
pub fn check_planes(systems: &VectorSystems) -> Result<()> {
    let refuse = |why: &str| {
        Err(Error::Usage(format!(
            "bit planes of discrete states: {why}"
        )))
    };
    let Some(states) = &systems.states else {
        return refuse("the model has no discrete states (Potts or Blume-Capel)");
    };
    if !matches!(states.model, StateModel::Potts | StateModel::BlumeCapel) {
        return refuse("only the Potts and Blume-Capel models are built on bit planes");
    }
    if planes_of(states.q) > MAX_PLANES {
        return refuse(&format!(
            "q = {} is over the 256 states of 8 planes",
            states.q
        ));
    }
    if !matches!(systems.couplings, VectorCouplings::Uniform(j) if j > 0) {
        return refuse("the couplings must be the ferromagnet's one J > 0");
    }
    // Zero field: every Potts state's site energy 0, Blume-Capel's V(-1) = V(+1) = D.
    let zero_field = match states.model {
        StateModel::BlumeCapel => states.site[0] == states.site[2],
        _ => states.site.iter().all(|&v| v == 0),
    };
    if !zero_field {
        return refuse("the field must be zero");
    }
    if systems.vacancies.is_some() {
        return refuse("no dilution (empty sites)");
    }
    if systems.lattice.shape != Shape::Hypercubic {
        return refuse("the lattice must be square or cubic");
    }
    if !systems.boundaries.is_periodic() {
        return refuse("every axis must be periodic");
    }
    if !systems.lattice.size.is_multiple_of(64) {
        return refuse(&format!(
            "the size {} is no multiple of 64 (a row of one colour fills whole words)",
            systems.lattice.size
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planes_hold_every_state() {
        let planes: Vec<u32> = [2, 3, 4, 5, 8, 9, 32, 256].map(planes_of).into();
        assert_eq!(planes, vec![1, 2, 2, 3, 3, 4, 5, 8]);
        assert_eq!(planes_of(257), 9);
    }
}
