//! What an engine holds in memory, as a function of its systems, and the check that it fits
//! before anything is allocated: on the host (`MemAvailable`) and, where the driver says how
//! much is free (CUDA), on the device. wgpu has no free-memory query: its engines check each
//! buffer against the adapter's limits when they allocate, and here only what they leave on the
//! host is checked.
//!
//! Each engine kind counts its buffers in one [`Footprint`], an upper bound of what it allocates
//! on any backend: the lattices, the tables and couplings it keeps, what the capabilities a run
//! uses add (tempering's state, cluster labels, population annealing's second spin buffer
//! for its copies), a plan's measurement slots, and what travels to the host (the lattices as the
//! engine reads or writes them, the packed lattices a checkpoint holds, a plan's measurements).
//! The engines open through `engine/open.rs`, which checks before each opening; the CPU
//! engines' tests compare the footprint with what they hold.

use crate::config::{Config, ConfigError, Disorder, EngineKind, Layout, invalid};
use crate::engine::Betas;
use crate::engine::multispin::{LANES, MultispinLayout};
use crate::engine::planes::planes_of;
use crate::engine::tempering::swap_tables;
use crate::engine::vector::{
    VectorObservation, VectorOverlap, VectorSweeps, labelled_lattices, pair_state_words,
    state_words,
};
use crate::engine::vector_gpu::{counters, overlap_counters};
use crate::error::Result;
use crate::model::ising::IsingSystems;
use crate::model::vector::{VectorCouplings, VectorSystems};
use crate::model::{Lattice, Shape};

/// Most measurement slots one plan fills.
pub const MAX_SLOTS_PER_PLAN: u64 = 4096;
/// Bytes of one plan's measurements, on the device and the host. Each plan ends with the
/// device waiting while the host reads its last measurements and starts the next: 3D EA at
/// L = 16 with 65536 systems and 32768 overlaps (5 MiB a slot) in plans of 64 MiB (120 sweeps)
/// ran parallel tempering at 0.726 ps/flip on an H200 against 0.620 in one plan, in plans of
/// 1 GiB (2040 sweeps) at 0.622.
pub const PLAN_MEASUREMENT_BYTES: u64 = 1 << 30;

/// Measurement slots of a plan whose slots take `slot_bytes` each as the loop receives them:
/// within [`PLAN_MEASUREMENT_BYTES`] and [`MAX_SLOTS_PER_PLAN`], at least one.
pub fn plan_slots(slot_bytes: u64) -> u64 {
    (PLAN_MEASUREMENT_BYTES / slot_bytes.max(1)).clamp(1, MAX_SLOTS_PER_PLAN)
}

/// Bytes of one measurement slot of Ising `systems` as the loop receives it: two `u64` counts
/// per system (and a `u64` of cluster sizes where `clusters`), and per overlap two `u32` counts
/// per x-plane.
pub fn slot_bytes(systems: &IsingSystems, clusters: bool) -> u64 {
    let sizes = if clusters { 8 } else { 0 };
    (16 + sizes) * u64::from(systems.systems())
        + 8 * u64::from(systems.overlaps()) * u64::from(systems.lattice.size)
}

/// `MemAvailable` of `/proc/meminfo`, in bytes; `None` where it cannot be read.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib << 10)
}

/// The largest `n` in `lo ..= hi` for which `fits(n)`, where `fits` holds up to some `n` and
/// not beyond; `None` where not even `lo` fits.
pub fn largest_fitting(lo: u64, hi: u64, fits: impl Fn(u64) -> bool) -> Option<u64> {
    if lo > hi || !fits(lo) {
        return None;
    }
    let (mut yes, mut no) = (lo, hi + 1);
    while no - yes > 1 {
        let mid = yes + (no - yes) / 2;
        if fits(mid) { yes = mid } else { no = mid }
    }
    Some(yes)
}

/// The capabilities a run sets on its engine that add buffers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Uses {
    pub tempering: bool,
    pub clusters: bool,
    /// Population annealing: copies of systems and new thresholds at each step.
    pub copies: bool,
}

impl Uses {
    /// What a run of `config` sets on an engine whose betas are `betas`.
    pub fn of(config: &Config, betas: Betas) -> Self {
        Uses {
            tempering: config.algorithm.swap_every().is_some(),
            clusters: config.algorithm.clusters().is_some(),
            copies: betas == Betas::Changing,
        }
    }
}

/// An engine's bytes by what they hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Footprint {
    /// The lattices in the engine's format.
    pub lattices: u64,
    /// Couplings, threshold and acceptance tables, per-system state and counters, tempering's
    /// chains and swap tables.
    pub tables: u64,
    /// What cluster updates and population annealing add: bonds, labels and counts of the
    /// clusters; the snapshot the copies read, the copy map and the histograms. On the CPU only
    /// while a plan runs, and between the pieces of a cluster update.
    pub capabilities: u64,
    /// A plan's measurement slots as the engine fills them.
    pub slots: u64,
    /// On the host between plans: the lattices read or written in the engine's format, the
    /// packed lattices of a checkpoint (the engine's and the loop's), a plan's measurements as
    /// the loop receives them.
    pub travel: u64,
}

/// Where an engine runs, for what its [`Footprint`] asks of the host and the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Everything on the host; a plan's scratch and the lattices' travel never overlap.
    Cpu,
    /// A wgpu device: the reads (lattices or a plan's measurements) go through one staging
    /// buffer the host can map.
    Wgpu,
    /// A CUDA device: the lattices copy straight into the host's vectors, a plan's measurements
    /// through page-locked staging.
    Cuda,
}

/// Bytes on the host and on the device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Need {
    pub host: u64,
    pub device: u64,
}

impl Footprint {
    /// What the engine asks of the host and the device at `place`.
    pub fn need(&self, place: Place) -> Need {
        let held = self.lattices + self.tables + self.slots;
        match place {
            Place::Cpu => Need {
                host: held + self.capabilities.max(self.travel),
                device: 0,
            },
            Place::Wgpu => Need {
                host: self.travel + self.lattices.max(self.slots),
                device: held + self.capabilities,
            },
            Place::Cuda => Need {
                host: self.travel + self.slots,
                device: held + self.capabilities,
            },
        }
    }

    /// The Ising engine `engine` of `systems`: multispin, or else the simple engine.
    pub fn ising(engine: EngineKind, systems: IsingSystems, uses: Uses) -> Self {
        match engine.multispin() {
            None => Footprint::simple(&systems, uses),
            Some(options) => Footprint::multispin(&MultispinLayout::new(systems, options), uses),
        }
    }

    /// The simple engine (one `i32` per spin) of `systems`.
    pub fn simple(systems: &IsingSystems, uses: Uses) -> Self {
        let spins = systems.spin_count() as u64;
        let count = u64::from(systems.systems());
        let slots = plan_slots(slot_bytes(systems, uses.clusters)) + 1;
        // Per system and slot: the observation's two counts, tempering's label, cluster sizes.
        let per_slot = count * (16 + 4 * u64::from(uses.tempering) + 8 * u64::from(uses.clusters));
        // Bonds (a byte a site), labels and counts (a u32 each) and the CPU's flips (a bit) of
        // every system's sites.
        let clusters = if uses.clusters {
            9 * spins + spins.div_ceil(8)
        } else {
            0
        };
        let histograms = histograms(systems, uses);
        Footprint {
            lattices: 4 * spins,
            tables: 4 * systems.thresholds().len() as u64 + system_state(systems, uses),
            capabilities: clusters + copies(systems, uses, 4 * spins) + histograms,
            slots: slots * per_slot,
            travel: 4 * spins
                + 2 * spins.div_ceil(8)
                + slots * slot_bytes(systems, uses.clusters)
                + histograms,
        }
    }

    /// A multispin engine (one bit per spin) of `layout`.
    pub fn multispin(layout: &MultispinLayout, uses: Uses) -> Self {
        let systems = &layout.systems;
        let (words, count) = (layout.words(), u64::from(systems.systems()));
        let dims = u64::from(layout.lattice().dims);
        let couplings = match systems.reads_couplings() {
            false => 0,
            true => layout.system_words() * u64::from(layout.coupling_groups()) * dims,
        };
        // Each sample's bonds, a bit each, while the coupling words are built.
        let bonds = u64::from(systems.samples) * (systems.held_sites() * dims).div_ceil(8);
        let pairs = layout.overlap_word_pairs().len() as u64;
        let slots = plan_slots(slot_bytes(systems, false)) + 1;
        let per_slot = 16 * u64::from(layout.word_systems()) * u64::from(LANES)
            + 4 * pairs * u64::from(layout.pair_counts())
            + 4 * count * u64::from(uses.tempering);
        let spins = systems.spin_count() as u64;
        let histograms = histograms(systems, uses);
        Footprint {
            lattices: 4 * words,
            tables: 4 * (layout.threshold_tables().len() as u64 + couplings)
                + bonds
                + system_state(systems, uses),
            capabilities: copies(systems, uses, 4 * words) + histograms,
            slots: slots * per_slot,
            travel: 4 * words
                + 2 * spins.div_ceil(8)
                + slots * slot_bytes(systems, false)
                + histograms,
        }
    }

    /// The vector-spin engine (`i32` components) of `systems` swept by `updates` on lattices
    /// `lattice` (theirs, or another size of them: counted without copying their couplings).
    pub fn vector(systems: &VectorSystems, updates: VectorSweeps, lattice: Lattice) -> Self {
        let count = u64::from(systems.systems());
        let words = u64::from(systems.components) * count * lattice.sites();
        let bond_bytes = match systems.couplings {
            VectorCouplings::Uniform(_) => 0,
            VectorCouplings::Bonds(_) => 1,
            VectorCouplings::Gaussian(_) => 4,
        };
        let bonds = u64::from(systems.samples) * lattice.bonds();
        // The engine's copy of the couplings and the words the devices upload (4 bytes a bond).
        let couplings = bonds * (bond_bytes + 4 * u64::from(bond_bytes > 0));
        // A plan measures at most twice (a measurement and a tempering round's observation):
        // each system's counters, and the observations, overlaps and state sums as the loop
        // receives them.
        let observation = 8 * (counters(systems) + state_words(systems));
        let observations = count * (observation + size_of::<VectorObservation>()) as u64;
        let overlap = 8 * (overlap_counters(systems) + pair_state_words(systems));
        let overlaps =
            u64::from(systems.overlaps()) * (overlap + size_of::<VectorOverlap>()) as u64;
        let per_slot = observations + overlaps;
        Footprint {
            lattices: 4 * words,
            // The acceptance tables, the phase table (a cosine and a sine per x), per-system
            // proposal widths and tempering partners.
            tables: couplings
                + 4 * (systems.acceptance_tables().len() as u64)
                + 8 * u64::from(lattice.size)
                + 16 * count,
            // The cluster buffers of the lattices labelled (a byte of bonds, a label and a
            // count a site) and their records; the bit planes of states swept in them.
            capabilities: u64::from(labelled_lattices(systems, updates))
                * (9 * lattice.sites() + 16)
                + plane_bytes(systems, updates, lattice),
            slots: 2 * per_slot,
            travel: 4 * words + 2 * per_slot,
        }
    }
}

/// The bit planes of the states of `systems` on `lattice` where `updates` sweeps them there:
/// `ceil(log2 q)` bits a site.
fn plane_bytes(systems: &VectorSystems, updates: VectorSweeps, lattice: Lattice) -> u64 {
    match (&systems.states, updates.planes) {
        (Some(states), true) => {
            let bits =
                u64::from(systems.systems()) * lattice.sites() * u64::from(planes_of(states.q));
            bits / 8
        }
        _ => 0,
    }
}

/// Population annealing's copies of `systems`, whose lattices take `lattices` bytes: the
/// snapshot the copies read and the copy map.
fn copies(systems: &IsingSystems, uses: Uses, lattices: u64) -> u64 {
    match uses.copies {
        true => lattices + 8 * u64::from(systems.systems()),
        false => 0,
    }
}

/// Population annealing's histograms of satisfied bonds and up spins on a device, a `u32` per
/// possible count, on the device and as read back, for one population per sample: an engine
/// learns its populations only after it opens, so the further populations of a run of several
/// per sample are not counted here.
fn histograms(systems: &IsingSystems, uses: Uses) -> u64 {
    let lattice = systems.lattice;
    let bins = lattice.sites() * (u64::from(lattice.dims) + 1) + 2;
    match uses.copies {
        true => 4 * bins * u64::from(systems.samples),
        false => 0,
    }
}

/// Per-system state beside the lattices of Ising `systems`: betas, tempering's chains, masks
/// and swap tables, population annealing's copy counts and resampling tables.
fn system_state(systems: &IsingSystems, uses: Uses) -> u64 {
    let count = u64::from(systems.systems());
    let swap_tables = match uses.tempering {
        true => swap_tables(systems).map_or(0, |tables| 4 * tables.len() as u64),
        false => 0,
    };
    count * (16 + 32 * u64::from(uses.tempering) + 32 * u64::from(uses.copies)) + swap_tables
}

/// The memory an engine may fill: the host's available memory and the device's free memory,
/// each `None` where unknown (and so unchecked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Room {
    pub place: Place,
    pub host: Option<u64>,
    pub device: Option<u64>,
    /// The device, in the refusal's words.
    pub device_name: String,
}

impl Room {
    /// The host's room for an engine at `place`, on a device without a free-memory query.
    pub fn host(place: Place) -> Self {
        Room {
            place,
            host: available_memory(),
            device: None,
            device_name: String::new(),
        }
    }

    /// The room of an engine at `place` on a device (`name`) with `free` bytes free.
    pub fn device(place: Place, free: u64, name: &str) -> Self {
        Room {
            device: Some(free),
            device_name: name.to_string(),
            ..Room::host(place)
        }
    }

    /// Whether `need` fits.
    pub fn fits(&self, need: Need) -> bool {
        let within = |need: u64, room: Option<u64>| room.is_none_or(|room| need <= room);
        within(need.host, self.host) && within(need.device, self.device)
    }

    /// What of `need` does not fit, in words.
    fn shortfall(&self, need: Need) -> String {
        let mib = |bytes: u64| bytes >> 20;
        let mut parts = Vec::new();
        if let Some(room) = self.host.filter(|&room| need.host > room) {
            parts.push(format!(
                "about {} MiB of host memory, more than the {} MiB available",
                mib(need.host),
                mib(room)
            ));
        }
        if let Some(room) = self.device.filter(|&room| need.device > room) {
            parts.push(format!(
                "about {} MiB on {}, more than its {} MiB free",
                mib(need.device),
                self.device_name,
                mib(room)
            ));
        }
        parts.join(" and ")
    }
}

/// Refuse the Ising engine `config` resolves to (simple or multispin) for `systems`, its betas
/// `betas`, where it does not fit `room`: before the engine allocates anything.
pub fn check_ising_engine(
    config: &Config,
    systems: &IsingSystems,
    betas: Betas,
    room: &Room,
) -> Result<()> {
    let uses = Uses::of(config, betas);
    let multispin = config.engine.multispin();
    let need_at = |size: u32| {
        let systems = IsingSystems {
            lattice: Lattice::new(systems.lattice.dims, size),
            ..systems.clone()
        };
        Footprint::ising(config.engine, systems, uses).need(room.place)
    };
    let (engine, step) = match multispin.map(|options| options.layout) {
        None => ("simple", 2),
        Some(Layout::Smsc) => ("multispin", 64),
        Some(Layout::Amsc { .. }) => ("multispin", 2),
    };
    let what = format!("the {engine} engine's {} systems", systems.systems());
    let sizes = systems.slab.is_none().then_some(step);
    Ok(check_memory(&what, systems.lattice, sizes, room, need_at)?)
}

/// Refuse the vector-spin engine of `systems` swept by `updates` where it does not fit `room`.
pub fn check_vector_engine(
    systems: &VectorSystems,
    updates: VectorSweeps,
    room: &Room,
) -> Result<()> {
    let lattice = systems.lattice;
    let need_at =
        |size: u32| Footprint::vector(systems, updates, lattice.resized(size)).need(room.place);
    let what = format!("the vector-spin engine's {} systems", systems.systems());
    Ok(check_memory(
        &what,
        lattice,
        Some(lattice.size_step()),
        room,
        need_at,
    )?)
}

/// Refuse lattices of `lattice` whose engine (`what`) needs more than `room`, before anything
/// is allocated, naming the need, the room, and the largest size whose `need_at(size)` fits;
/// `sizes` is the step between sizes the engine takes, `None` where the size is not what to
/// change (a slab: more ranks are).
pub fn check_memory(
    what: &str,
    lattice: Lattice,
    sizes: Option<u32>,
    room: &Room,
    need_at: impl Fn(u32) -> Need,
) -> Result<(), ConfigError> {
    let need = need_at(lattice.size);
    if room.fits(need) {
        return Ok(());
    }
    let largest = match sizes {
        None => "split the lattices over more ranks".to_string(),
        Some(step) => {
            let most = u64::from(lattice.size / step);
            let fits = |k: u64| room.fits(need_at(k as u32 * step));
            match largest_fitting(1, most, fits) {
                Some(k) => format!("the largest size that fits is size: {}", k as u32 * step),
                None => "no size fits: run fewer systems".to_string(),
            }
        }
    };
    invalid(format!(
        "size: {what} of L = {} in {}D need {}; {largest}",
        lattice.size,
        lattice.dims,
        room.shortfall(need)
    ))
}

/// Refuse, on rank 0 of an MPI job, lattices whose whole run does not fit its host as it
/// gathers them for a checkpoint: the ranks' parts as they arrive and as decoded, and the whole
/// merged, each `packed_at(size)` bytes at lattice size `size` (each rank's engine checks its
/// own share when it opens).
pub fn check_gathered(what: &str, lattice: Lattice, packed_at: impl Fn(u32) -> u64) -> Result<()> {
    let need_at = |size: u32| Need {
        host: 3 * packed_at(size),
        device: 0,
    };
    let what = format!("{what}, gathered on rank 0,");
    Ok(check_memory(
        &what,
        lattice,
        Some(lattice.size_step()),
        &Room::host(Place::Cpu),
        need_at,
    )?)
}

/// The couplings of a vector spin glass, or of a ferromagnet with open or antiperiodic edges,
/// are made on the host before its engine opens ([`crate::model::vector::vector_systems`]):
/// refuse those beyond the host's memory, naming the largest size that fits (the engine's own
/// check counts them again with its lattices).
pub(crate) fn validate_vector_couplings(config: &Config) -> Result<(), ConfigError> {
    let lattice = Lattice::of(&config.model);
    let uniform = config.model.boundaries().is_periodic() && lattice.shape != Shape::Honeycomb;
    let bond_bytes = match config.model.disorder() {
        Disorder::Ferromagnet if uniform => return Ok(()),
        Disorder::Ferromagnet | Disorder::Bimodal => 1,
        Disorder::Gaussian => 4,
    };
    let samples = config.samples;
    let need_at = |size: u32| Need {
        host: bond_bytes * u64::from(samples) * lattice.resized(size).bonds(),
        device: 0,
    };
    let what = format!("the couplings of {samples} samples");
    let step = Some(lattice.size_step());
    check_memory(&what, lattice, step, &Room::host(Place::Cpu), need_at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_fitting_is_found_by_bisection() {
        let limit = 812;
        assert_eq!(largest_fitting(1, 1024, |n| n <= limit), Some(812));
        assert_eq!(largest_fitting(1, 1024, |n| n <= 5000), Some(1024));
        assert_eq!(largest_fitting(1, 1024, |n| n <= 1), Some(1));
        assert_eq!(largest_fitting(1, 1024, |_| false), None);
        assert_eq!(largest_fitting(3, 2, |_| true), None);
    }

    /// With an injected room, the refusal names the need, the room and the largest size.
    #[test]
    fn a_refusal_names_the_largest_size_that_fits() {
        let room = Room {
            place: Place::Cuda,
            host: Some(1 << 40),
            device: Some(100 << 20),
            device_name: "a test device".into(),
        };
        // A MiB a site on the device: 100 MiB hold 10^2 sites, not 12^2.
        let need_at = |size: u32| Need {
            host: 0,
            device: u64::from(size).pow(2) << 20,
        };
        let lattice = Lattice::new(2, 1024);
        let msg = check_memory("1 system", lattice, Some(2), &room, need_at)
            .unwrap_err()
            .to_string();
        for part in [
            "1 system of L = 1024 in 2D need about 1048576 MiB on a test device",
            "more than its 100 MiB free",
            "the largest size that fits is size: 10",
        ] {
            assert!(msg.contains(part), "{msg}");
        }
        check_memory("1 system", Lattice::new(2, 10), Some(2), &room, need_at).unwrap();
        let slab = check_memory("a slab", lattice, None, &room, need_at).unwrap_err();
        assert!(slab.to_string().contains("more ranks"), "{slab}");
    }

    /// A petabyte of lattices gathered on rank 0 is refused on any machine.
    #[test]
    fn lattices_gathered_beyond_the_host_are_refused() {
        let packed_at = |size: u32| u64::from(size).pow(3) << 20;
        let msg = check_gathered("the 1 systems", Lattice::new(3, 1024), packed_at)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("the 1 systems, gathered on rank 0, of L = 1024"),
            "{msg}"
        );
        assert!(msg.contains("MiB of host memory"), "{msg}");
    }

    #[test]
    fn on_the_cpu_the_device_share_is_the_hosts() {
        let footprint = Footprint {
            lattices: 100,
            tables: 10,
            capabilities: 50,
            slots: 1,
            travel: 70,
        };
        assert_eq!(
            footprint.need(Place::Cpu),
            Need {
                host: 181,
                device: 0
            }
        );
        assert_eq!(
            footprint.need(Place::Wgpu),
            Need {
                host: 170,
                device: 161
            }
        );
        assert_eq!(
            footprint.need(Place::Cuda),
            Need {
                host: 71,
                device: 161
            }
        );
    }
}
