//! Population annealing's resampling step ([`Step::Resample`](super::Step::Resample)) as every
//! engine replays it: the host sends a [`ResamplingTable`] (its decisions, from the populations'
//! energy histograms), the engine decides each replica's number of copies from it, lays the new
//! population out in replica order and copies the lattices, the spins never leaving it.
//!
//! Populations: the engine's systems in blocks of `slots` (block `b`: systems `b slots ..
//! (b + 1) slots`); population `b` fills the first `sizes[b]` of its block, the rest are idle
//! (swept, never measured or copied from) and keep their lattices.
//!
//! Decision of replica `j` of block `b` with the last measurement's satisfied-bond count `s`:
//! its table entry `[copies, threshold]` is entry `s - lo` of the block's table where entries
//! are keyed by the bond level (zero field: the energy is a function of `s` alone), entry `j`
//! where they are keyed by the replica (in a field, or multinomial counts drawn on the host);
//! its copies are `copies + (u < threshold)`, `u` word `j mod 4` of the Philox block
//! `(word j / 4, sweep step, purpose Resample, draw 0, colour 0, batch)`, `batch` the block's
//! index in the whole run (a rank's slice of samples draws as the whole run does). The new
//! population repeats each replica by its copies, in replica order: destination `d` of block
//! `b` takes the lattice of the replica whose copies' prefix sum first exceeds `d`.

use bytemuck::{Pod, Zeroable};

use super::Measurements;
use crate::error::{Error, Result};
use crate::rng::{Counter, Purpose, random_block};

/// What a table's entries are keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Keyed {
    /// `satisfied - lo`: one entry per bond level between the population's lowest and highest.
    BondLevel = 0,
    /// The replica `j`: one entry per replica of the population.
    Replica = 1,
}

/// One block's part of a [`ResamplingTable`], as the kernels read it (five `u32`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Pod, Zeroable)]
#[repr(C)]
pub struct TableHead {
    /// The lowest bond level (satisfied count) of the entries keyed by bond level.
    pub lo: u32,
    /// Entries of this block.
    pub len: u32,
    /// The block's first entry in [`ResamplingTable::entries`].
    pub offset: u32,
    /// The population's size before the step (replicas `0 .. size` of the block).
    pub size: u32,
    /// The block's index in the whole run, the Philox batch of its decisions.
    pub batch: u32,
}

/// Everything a resampling step needs besides the engine's last measurement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResamplingTable {
    pub keyed: Keyed,
    /// Systems per block.
    pub slots: u32,
    /// One per block, in the engine's block order.
    pub heads: Vec<TableHead>,
    /// `[copies, threshold]` per entry, blocks one after another.
    pub entries: Vec<[u32; 2]>,
}

impl ResamplingTable {
    /// The table under which every system of `blocks` full blocks of `slots` makes one copy
    /// of itself: a step that leaves every lattice where it is (a warm-up that builds the
    /// engine's kernels and buffers of the step).
    pub fn identity(slots: u32, blocks: u32) -> Self {
        ResamplingTable {
            keyed: Keyed::Replica,
            slots,
            heads: (0..blocks)
                .map(|b| TableHead {
                    lo: 0,
                    len: slots,
                    offset: 0,
                    size: slots,
                    batch: b,
                })
                .collect(),
            entries: vec![[1, 0]; slots as usize],
        }
    }

    /// The table without its entries: what an engine keeps once it has uploaded them.
    pub fn shape(&self) -> ResamplingTable {
        ResamplingTable {
            keyed: self.keyed,
            slots: self.slots,
            heads: self.heads.clone(),
            entries: Vec::new(),
        }
    }

    /// Refuse a table that does not cover `systems` in whole blocks of `slots` (the blocks an
    /// engine built its kernels for), or whose heads point outside its entries.
    pub fn check_blocks(&self, systems: u32, slots: u32) -> Result<()> {
        if self.slots != slots {
            return Err(Error::State(format!(
                "a resampling table of blocks of {} slots for kernels built for {slots}",
                self.slots
            )));
        }
        self.check(systems)
    }

    /// Refuse a table that does not cover `systems` in whole blocks or whose heads point
    /// outside its entries.
    pub fn check(&self, systems: u32) -> Result<()> {
        let blocks = self.heads.len() as u64;
        if self.slots == 0 || blocks * u64::from(self.slots) != u64::from(systems) {
            return Err(Error::State(format!(
                "a resampling table of {blocks} blocks of {} slots does not cover the engine's \
                 {systems} systems",
                self.slots
            )));
        }
        for (b, head) in self.heads.iter().enumerate() {
            let end = u64::from(head.offset) + u64::from(head.len);
            let keyed_len = match self.keyed {
                Keyed::BondLevel => head.len,
                Keyed::Replica => head.size,
            };
            if end > self.entries.len() as u64 || head.size > self.slots || keyed_len != head.len {
                return Err(Error::State(format!(
                    "resampling table: block {b} ({head:?}) does not fit its {} entries and {} \
                     slots",
                    self.entries.len(),
                    self.slots
                )));
            }
        }
        Ok(())
    }

    /// Copies of replica `j` of block `b` whose last measurement counted `satisfied` bonds.
    pub fn copies(&self, seed: u64, step: u32, b: usize, j: u32, satisfied: u64) -> u32 {
        let head = &self.heads[b];
        if j >= head.size {
            return 0;
        }
        let key = match self.keyed {
            Keyed::BondLevel => satisfied.wrapping_sub(u64::from(head.lo)),
            Keyed::Replica => u64::from(j),
        };
        // A level outside the table cannot come from the measurement the table was built
        // from; the kernels read it as no copies too.
        if key >= u64::from(head.len) {
            return 0;
        }
        let [copies, threshold] = self.entries[(head.offset as u64 + key) as usize];
        let counter = Counter {
            word: j / 4,
            sweep: step,
            purpose: Purpose::Resample,
            colour: 0,
            draw: 0,
            batch: head.batch,
        };
        let u = random_block(seed, counter)[(j % 4) as usize];
        copies + u32::from(u < threshold)
    }
}

/// The table entry of a replica expected to have `tau` copies, drawn floor or ceil: `tau`'s
/// floor, plus one where the uniform `u / 2^32` falls below `tau`'s fraction (`u <
/// ceil(fraction 2^32)`, exact: `fraction 2^32` is exact in f64).
pub fn floor_ceil_entry(tau: f64) -> [u32; 2] {
    let floor = tau.floor();
    let threshold = ((tau - floor) * 4_294_967_296.0).ceil();
    match threshold >= 4_294_967_296.0 {
        // Every u is below 2^32: always the ceiling.
        true => [floor as u32 + 1, 0],
        false => [floor as u32, threshold as u32],
    }
}

/// A measurement of the populations as histograms, from engines that count them on the
/// device ([`Populations::count_populations`](super::Populations::count_populations)): per block, how
/// many replicas of its population have each satisfied-bond count (`bond_bins` bins, 0 to the
/// lattice's bonds) and each up-spin count (`site_bins` bins, 0 to its sites).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PopulationHistograms {
    pub bond_bins: u32,
    pub site_bins: u32,
    /// `[block][satisfied]`.
    pub satisfied: Vec<u32>,
    /// `[block][up]`.
    pub up: Vec<u32>,
}

impl PopulationHistograms {
    /// Block `b`'s histograms of satisfied bonds and of up spins.
    pub fn of_block(&self, b: usize) -> (&[u32], &[u32]) {
        let (bonds, sites) = (self.bond_bins as usize, self.site_bins as usize);
        (
            &self.satisfied[b * bonds..][..bonds],
            &self.up[b * sites..][..sites],
        )
    }
}

/// A resampling step's outcome: the copies of every system (zero for idle slots) and the
/// copy map (the source of every system, idle slots their own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resampled {
    pub copies: Vec<u32>,
    pub sources: Vec<u32>,
}

/// The CPU reference of a resampling step over systems whose last measurement counted
/// `satisfied[system]` bonds: every replica's copies, then the new populations in replica
/// order. Refuses a population that dies out or outgrows its block, before anything moves.
pub fn resample(
    table: &ResamplingTable,
    seed: u64,
    step: u32,
    satisfied: &[u64],
) -> Result<Resampled> {
    let slots = table.slots as usize;
    let copies = crate::threads::from_fn(satisfied.len(), |s| {
        let (b, j) = (s / slots, (s % slots) as u32);
        table.copies(seed, step, b, j, satisfied[s])
    });
    for (b, block) in copies.chunks(slots).enumerate() {
        check_size(block.iter().map(|&n| u64::from(n)).sum(), table.slots, b)?;
    }
    let mut sources: Vec<u32> = (0..satisfied.len() as u32).collect();
    for (b, block) in copies.chunks(slots).enumerate() {
        let base = (b * slots) as u32;
        let mut d = b * slots;
        for (j, &n) in block.iter().enumerate() {
            sources[d..d + n as usize].fill(base + j as u32);
            d += n as usize;
        }
    }
    Ok(Resampled { copies, sources })
}

/// Refuse a new population of `size` replicas in block `b` of `slots` systems: empty or
/// beyond the block.
pub fn check_size(size: u64, slots: u32, b: usize) -> Result<()> {
    if size == 0 {
        return Err(Error::State(format!(
            "population annealing: population {b} died out at a resampling step; use smaller \
             temperature steps or a larger population"
        )));
    }
    if size > u64::from(slots) {
        return Err(Error::State(format!(
            "population annealing: resampling grew population {b} to {size} replicas, beyond \
             its {slots} slots; use smaller temperature steps, or resampling: FloorCeil or \
             Multinomial"
        )));
    }
    Ok(())
}

/// The host side of the resampling step for the simple engine, which replays it on the host on
/// every backend: the table and the satisfied counts of every system at the last measurement.
/// (The CPU multispin engine resamples from its last measurement's counts directly.)
#[derive(Debug, Default)]
pub struct HostResampling {
    table: Option<ResamplingTable>,
    satisfied: Vec<u64>,
}

impl HostResampling {
    /// Take `table` for the next resampling step of an engine of `systems` systems.
    pub fn set_table(&mut self, table: &ResamplingTable, systems: u32) -> Result<()> {
        table.check(systems)?;
        self.table = Some(table.clone());
        Ok(())
    }

    /// Remember the satisfied counts of every system at the last slot of `measurements`
    /// (a plan's of `slots` slots), the measurement the next step's table is built from; a
    /// plan that measured nothing leaves none, as on the devices.
    pub fn record(&mut self, measurements: &Measurements, slots: u32) {
        self.satisfied.clear();
        if slots == 0 {
            return;
        }
        let systems = measurements.observations.len() / slots as usize;
        let last = &measurements.observations[(slots as usize - 1) * systems..];
        self.satisfied.extend(last.iter().map(|o| o.satisfied));
    }

    /// Remember whether the last plan measured every one of `systems` systems whose tables are
    /// keyed by replica ([`Keyed::Replica`]: no level of their own), as [`Self::record`] does.
    pub fn record_replicas(&mut self, systems: usize, measured: bool) {
        self.satisfied.clear();
        if measured {
            self.satisfied.resize(systems, 0);
        }
    }

    /// A plan's resampling step `step` (if it has one), from the table taken and the last
    /// measurement (each used once): the copies and the copy map the engine then copies by.
    pub fn replay(&mut self, seed: u64, step: Option<u32>) -> Result<Option<Resampled>> {
        let Some(step) = step else {
            return Ok(None);
        };
        let table = self.table.take().ok_or_else(no_table)?;
        let satisfied = std::mem::take(&mut self.satisfied);
        if satisfied.len() != table.heads.len() * table.slots as usize {
            return Err(no_measurement());
        }
        resample(&table, seed, step, &satisfied).map(Some)
    }
}

/// The error of a resampling step with no measurement of every system since the last plan
/// (its table's measurement) or the last step (which moved the lattices).
pub fn no_measurement() -> Error {
    Error::State("a resampling step needs a measurement of every system before it".into())
}

/// Refuse population sizes that are not one per block of `slots` systems, each within it.
pub fn check_sizes(sizes: &[u32], blocks: u32, slots: u32) -> Result<()> {
    if sizes.len() != blocks as usize || sizes.iter().any(|&n| n > slots) {
        return Err(Error::State(format!(
            "population sizes {sizes:?} do not fit {blocks} blocks of {slots} slots"
        )));
    }
    Ok(())
}

/// The error of a resampling step without a table.
pub fn no_table() -> Error {
    Error::State("a resampling step without a resampling table (set_resampling)".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two blocks of 8 slots keyed by bond level, sizes 3 and 2.
    fn table() -> ResamplingTable {
        ResamplingTable {
            keyed: Keyed::BondLevel,
            slots: 8,
            heads: vec![
                TableHead {
                    lo: 10,
                    len: 3,
                    offset: 0,
                    size: 3,
                    batch: 4,
                },
                TableHead {
                    lo: 5,
                    len: 1,
                    offset: 3,
                    size: 2,
                    batch: 5,
                },
            ],
            entries: vec![[0, 0], [2, 0], [1, u32::MAX], [3, 0]],
        }
    }

    #[test]
    fn populations_repeat_each_replica_by_its_copies_in_order() {
        let satisfied = [11, 10, 12, 0, 0, 0, 0, 0, 5, 5, 9, 9, 9, 9, 9, 9];
        let r = resample(&table(), 1, 1, &satisfied).unwrap();
        // Level 12's threshold is u32::MAX: its replica gets 2 unless u is u32::MAX.
        assert_eq!(&r.copies[..8], &[2, 0, 2, 0, 0, 0, 0, 0]);
        assert_eq!(&r.copies[8..], &[3, 3, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&r.sources[..8], &[0, 0, 2, 2, 4, 5, 6, 7]);
        assert_eq!(&r.sources[8..], &[8, 8, 8, 9, 9, 9, 14, 15]);
    }

    #[test]
    fn populations_that_die_out_or_overflow_are_refused() {
        let mut t = table();
        t.entries[3] = [5, 0];
        let satisfied = [11; 16];
        let err = resample(&t, 1, 1, &[[11, 10, 12].as_slice(), &[5; 13]].concat()).unwrap_err();
        assert!(err.to_string().contains("beyond its 8 slots"), "{err}");
        t.entries = vec![[0, 0]; 4];
        let err = resample(&t, 1, 1, &satisfied).unwrap_err();
        assert!(err.to_string().contains("died out"), "{err}");
    }

    #[test]
    fn floor_ceil_entries_draw_the_ceiling_with_the_fraction() {
        assert_eq!(floor_ceil_entry(2.0), [2, 0]);
        assert_eq!(floor_ceil_entry(2.5), [2, 1 << 31]);
        assert_eq!(floor_ceil_entry(0.25), [0, 1 << 30]);
        // u / 2^32 < f exactly when u < ceil(f 2^32).
        let f = 0.3;
        let [_, t] = floor_ceil_entry(f);
        assert!(f64::from(t - 1) / 4_294_967_296.0 < f && f64::from(t) / 4_294_967_296.0 >= f);
        assert_eq!(floor_ceil_entry(1.0 - 1e-12), [1, 0]);
    }

    #[test]
    fn tables_that_do_not_cover_the_systems_are_refused() {
        assert!(table().check(16).is_ok());
        let identity = ResamplingTable::identity(64, 3);
        let satisfied = vec![7; 192];
        let r = resample(&identity, 1, 1, &satisfied).unwrap();
        assert_eq!(r.sources, (0..192).collect::<Vec<u32>>());
        assert!(table().check(24).is_err());
        let mut t = table();
        t.heads[1].len = 2;
        assert!(t.check(16).is_err());
    }
}
