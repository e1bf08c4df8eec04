//! `spinflip bench --model xy|heisenberg|potts|blume-capel`: the vector-spin engine's Metropolis
//! sweeps (uniform proposals, no over-relaxation; the plain checkerboard with one hit, or with
//! `--tile` and `--hits` the double checkerboard; discrete states by Metropolis over the other
//! states or `--heat-bath`, or in bit planes with `--planes`; with `--clusters`, the Potts
//! model's Swendsen-Wang or Wolff updates)
//! per backend and size, in picoseconds per attempted update and per site and sweep, beside the
//! memory floor (bytes a sweep must move at the least), the arithmetic floor (32-bit multiplies
//! an attempted update must issue) and the random words of an update (a Philox block of four;
//! a cluster update's `D` bond words a site).

use std::time::Instant;

use serde::Serialize;

use super::EQUILIBRATING_UPDATES;
use super::options::{BenchEngine, BenchOptions, bench_config};
use crate::config::{Backend, ClusterOptions, ClusterUpdate, Config};
use crate::console::{note, say};
use crate::engine::Lattices;
use crate::engine::clusters::{BYTES_PER_SITE, CLOCK_BYTES_PER_SITE, HOUDAYER_BYTES_PER_PAIR_SITE};
use crate::engine::cpu::vector_metropolis::HitWords;
use crate::engine::open::open_local_vector_engine;
use crate::engine::planes::{PLANE_BITS, planes_of};
use crate::engine::proposals_of;
use crate::engine::vector::{VectorSweeps, sweeps_plan};
use crate::error::{Error, Result};
use crate::model::vector::tiles::Tiles;
use crate::model::vector::{VectorCouplings, VectorSystems, vector_systems};
use crate::vector::ConeTuning;

/// One row of the vector benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct VectorBenchResult {
    pub backend: String,
    pub adapter: String,
    pub model: String,
    pub size: u32,
    pub systems: u32,
    pub sweeps: u32,
    pub seconds: f64,
    /// The double checkerboard's tile side; `None` for the plain checkerboard.
    pub tile: Option<u32>,
    /// Metropolis hits per site and sweep (0 for cluster updates alone).
    pub hits: u32,
    /// Picoseconds per attempted Metropolis update (site and hit), or per site and cluster
    /// update.
    pub ps_per_update: f64,
    /// Picoseconds per site and sweep: `hits` attempted updates, or a cluster update.
    pub ps_per_sweep: f64,
    /// The least memory traffic of a site's sweep, [`bytes_per_sweep`].
    pub bytes_per_sweep: f64,
    /// The same per attempted update: [`Self::bytes_per_sweep`] over the hits.
    pub bytes_per_update: f64,
    /// 32-bit multiplies of an attempted update, [`multiplies_per_update`] (discrete states:
    /// [`discrete_multiplies_per_update`]).
    pub multiplies_per_update: f64,
    /// Random words an attempted update draws: one Philox block; in bit planes a plane word's
    /// blocks shared by its 32 sites ([`plane_blocks_per_word`]).
    pub random_words_per_update: f64,
}

/// 32-bit multiplies of one Philox4x32-10 block: 10 rounds of two products of two words.
const PHILOX_MULTIPLIES: f64 = 40.0;

/// 32-bit multiplies of `fixed::inverse_sqrt`: the seed's two high words, then two Newton steps
/// of two products of two words and one high word.
const INVERSE_SQRT_MULTIPLIES: f64 = 12.0;

/// 32-bit multiplies of `fixed::cos_sin_turn`: the fraction's square (a 32 x 32 -> 64-bit
/// product, two), seven Horner steps of each polynomial, the sine's last high word.
const TURN_MULTIPLIES: f64 = 17.0;

/// 32-bit multiplies of `fixed::cos_sin_tabulated`: the angle below the table's entry, its
/// square, its cube and the cube's sixth, then the four products with the entry's cosine and
/// sine, each one high word.
const TABULATED_TURN_MULTIPLIES: f64 = 8.0;

/// The 32-bit multiplies an attempted update of an `n`-component spin by a uniform proposal
/// issues at the least, a 32 x 32 -> 64-bit product counted as two (its low and high words; a
/// GPU issues them as one wide multiply at half the rate of one word's), as written in
/// `fixed.rs` and `vector_metropolis.rs`: a Philox block; the point of the circle
/// (`cos_sin_tabulated`) or sphere (that, `z^2`, `sqrt_square`: `inverse_sqrt` and a wide
/// product, and the two scaled components), which is the proposed spin (no `unit`); and the energy
/// change (`n` products). Left out as not certain: the threshold's three high words (only
/// uphill) and the addressing. Multiplies run on one pipe of a GPU (64 a clock per H100 SM)
/// and no compiler fuses them, so over a device's multiply rate this is a floor of the
/// update's time as the bytes are of the sweep's; the other integer operations (adds, shifts,
/// logic) come to about as many again.
pub fn multiplies_per_update(n: u32) -> f64 {
    let point = match n {
        2 => TABULATED_TURN_MULTIPLIES,
        _ => TABULATED_TURN_MULTIPLIES + 2.0 + INVERSE_SQRT_MULTIPLIES + 2.0 + 2.0 * 2.0,
    };
    let energy = 2.0 * f64::from(n);
    PHILOX_MULTIPLIES + point + energy
}

/// The 32-bit multiplies a cluster update of clock spins with `q` states issues per site at the
/// least, as written in `clock_bonds.rs`, beyond the bond words' Philox blocks: the site's state
/// by bisection (`ceil(log2(q + 1))` steps of a turn's point and a 64-bit cross product, two
/// products of two words), the reflected state's spin (a turn's point, then `unit`: the square,
/// `inverse_sqrt`, the two components' high words) and the `D` bonds' energy gains (two
/// products of two words each). The reflections' second bisection (half the sites for
/// Swendsen-Wang, a cluster for Wolff) is left out.
pub fn clock_cluster_multiplies(q: u32, directions: u32) -> f64 {
    let bisection = f64::from(u32::BITS - q.leading_zeros()) * (TURN_MULTIPLIES + 4.0);
    let reflected = TURN_MULTIPLIES + 4.0 + INVERSE_SQRT_MULTIPLIES + 2.0;
    bisection + reflected + 4.0 * f64::from(directions)
}

/// The 32-bit multiplies an attempted update of discrete states issues at the least, as
/// written in `discrete_metropolis.rs`: a Philox block; for Metropolis the proposal's high word
/// and the two energies' `z` products `J P(a, s_j)` each; for the heat bath (`heat_bath`) every
/// one of the `q` states' energies once (the kernel computes them again for the weights' sums)
/// and the pick's two high words (the thresholds' three high words a state left out, as in
/// [`multiplies_per_update`]).
pub fn discrete_multiplies_per_update(q: u32, directions: u32, heat_bath: bool) -> f64 {
    let z = f64::from(2 * directions);
    match heat_bath {
        false => PHILOX_MULTIPLIES + 1.0 + 2.0 * z,
        true => PHILOX_MULTIPLIES + f64::from(q) * z + 2.0,
    }
}

/// Philox blocks a plane word of `q` discrete states draws a hit at the least
/// (`discrete_planes_metropolis`): the proposal's (none for `q = 2`, two past 4 planes) and
/// the decision's bit-sliced block, which a word of 32 lanes almost always needs (a tail block
/// follows in words where some lane's 4 bits tie with its threshold's).
pub fn plane_blocks_per_word(q: u32) -> f64 {
    let proposal = match planes_of(q) {
        1 => 0.0,
        2..=4 => 1.0,
        _ => 2.0,
    };
    proposal + 1.0
}

/// Bytes a sweep of `q` discrete states in bit planes moves per site at the least: the site's
/// `P = ceil(log2 q)` bits read and written, and the other colour's read once per colour pass,
/// `3 P / 8`.
pub fn plane_bytes_per_sweep(q: u32) -> f64 {
    3.0 * f64::from(planes_of(q)) / 8.0
}

/// Bytes a sweep of `n`-component spins moves per site at the least. The plain checkerboard:
/// the spin read and written, and the neighbours' (the other colour's spins, each read once per
/// colour pass by some update), `4 n` bytes each: `12 n`. The double checkerboard: each tile
/// and its halo read once, the tile written once, `4 n ((B + 2)^d / B^d + 1)`, whatever the
/// hits; divided into a device's memory bandwidth this is the floor of a sweep that reads its
/// lattices from memory, and over the hits the floor per attempted update.
pub fn bytes_per_sweep(n: u32, tiles: Option<Tiles>) -> f64 {
    let spin = f64::from(4 * n);
    match tiles {
        None => 3.0 * spin,
        Some(tiles) => spin * (tiles.padded_sites() as f64 / tiles.sites() as f64 + 1.0),
    }
}

/// Bytes of a glass's couplings a sweep reads per site at the least: each of its sample's `D`
/// bonds (4 bytes a direction) once for all the sample's systems; none for the ferromagnet's
/// one `J` (a honeycomb's missing bonds make its couplings a sample's).
fn coupling_bytes(systems: &VectorSystems) -> f64 {
    match systems.couplings {
        VectorCouplings::Uniform(_) => 0.0,
        _ => {
            let directions = systems.lattice.directions();
            f64::from(4 * directions) / f64::from(systems.systems() / systems.samples)
        }
    }
}

/// Measure every backend of `backends` at every size of `options` and print the rows (JSON
/// lines with `--json`); sizes the device cannot hold are skipped, naming why.
pub(super) fn bench_vectors(options: &BenchOptions, backends: &[Backend]) -> Result<()> {
    if !options.json {
        say!(
            "{:<6} {:<40} {:<16} {:>6} {:>7} {:>5} {:>5} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
            "backend",
            "adapter",
            "model",
            "L",
            "systems",
            "tile",
            "hits",
            "sweeps",
            "ps/update",
            "ps/sweep",
            "B/update",
            "B/sweep",
            "mul/update",
            "rnd/update"
        );
    }
    for &backend in backends {
        for &size in &options.sizes {
            let config = bench_config(options, backend, BenchEngine::Simple, size);
            let result = match config.validate() {
                Err(reason) => Err(Error::Limits(reason.to_string())),
                Ok(()) => bench_vector(&config, options.seconds),
            };
            match result {
                Err(Error::Limits(reason)) if options.json => {
                    note!("skipped L={size}: {reason}")
                }
                Err(Error::Limits(reason)) => say!("skipped L={size}: {reason}"),
                result => print_row(options.json, &result?),
            }
        }
    }
    Ok(())
}

/// The lattices a cluster row is timed on: the hot start of `systems` after
/// [`EQUILIBRATING_UPDATES`] steps of `updates` whose cluster updates (`step`) are
/// Swendsen-Wang's, on an engine of their own (see [`EQUILIBRATING_UPDATES`] for why).
fn equilibrated_spins(
    config: &Config,
    systems: &VectorSystems,
    updates: VectorSweeps,
    step: ClusterOptions,
) -> Result<Lattices> {
    let swendsen_wang = VectorSweeps {
        clusters: Some(ClusterOptions {
            update: ClusterUpdate::SwendsenWang,
            ..step
        }),
        ..updates
    };
    let mut engine = open_local_vector_engine(config, systems.clone(), swendsen_wang)?;
    engine.hot_start()?;
    engine.execute(&sweeps_plan(0..EQUILIBRATING_UPDATES as u32, false))?;
    engine.spins()
}

fn print_row(json: bool, row: &VectorBenchResult) {
    match json {
        true => say!(
            "{}",
            serde_json::to_string(row).expect("plain data serialises")
        ),
        false => say!(
            "{:<6} {:<40} {:<16} {:>6} {:>7} {:>5} {:>5} {:>7} {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>10.1} {:>10.1}",
            row.backend,
            row.adapter,
            row.model,
            row.size,
            row.systems,
            row.tile.map_or("-".to_string(), |t| t.to_string()),
            row.hits,
            row.sweeps,
            row.ps_per_update,
            row.ps_per_sweep,
            row.bytes_per_update,
            row.bytes_per_sweep,
            row.multiplies_per_update,
            row.random_words_per_update
        ),
    }
}

/// The row of `config` (a validated vector-spin config): sweeps of doubling count until one run
/// takes `min_seconds` (after one sweep that compiles the kernels), then that count once more.
pub(super) fn bench_vector(config: &Config, min_seconds: f64) -> Result<VectorBenchResult> {
    // Drawn couplings: a given instance would not change the speed.
    let systems = vector_systems(config, None, None);
    let updates = VectorSweeps {
        overrelaxation: 0,
        ..VectorSweeps::of(&config.updates, &config.algorithm)
    };
    let equilibrated = match updates.clusters {
        Some(step) => Some(equilibrated_spins(config, &systems, updates, step)?),
        None => None,
    };
    let mut engine = open_local_vector_engine(config, systems.clone(), updates)?;
    engine.hot_start()?;
    if let Some(spins) = &equilibrated {
        engine.set_spins(spins)?;
    }
    let widths = ConeTuning::new(config.updates.proposal, systems.betas.len()).widths;
    proposals_of(engine.as_mut())?.set_widths(&widths)?;
    let mut run = |from: u32, sweeps: u32| -> Result<f64> {
        let plan = sweeps_plan(from..from + sweeps, false);
        let started = Instant::now();
        engine.execute(&plan)?;
        Ok(started.elapsed().as_secs_f64())
    };
    run(0, 1)?;
    let (mut from, mut sweeps) = (1, 1);
    let seconds = loop {
        if run(from, sweeps)? >= min_seconds || sweeps >= 1 << 20 {
            break run(from + sweeps, sweeps)?;
        }
        from += sweeps;
        sweeps *= 2;
    };
    let info = engine.info();
    let site_sweeps =
        f64::from(sweeps) * (systems.lattice.spins() * u64::from(systems.systems())) as f64;
    let (clusters, metropolis) = (
        f64::from(updates.cluster_updates()),
        f64::from(updates.metropolis_sweeps()),
    );
    let (proposals, updates_per_sweep) = (
        f64::from(updates.proposals()),
        f64::from(updates.site_updates()),
    );
    let metropolis_bytes =
        bytes_per_sweep(systems.components, updates.tiles(&systems)) + coupling_bytes(&systems);
    // A replica move covers every pair of lattices: half a pair's bytes per lattice's site.
    let moves = f64::from(updates.moves.per_sweep());
    let cluster_bytes = match systems.clock {
        0 => BYTES_PER_SITE,
        _ => CLOCK_BYTES_PER_SITE,
    };
    let metropolis_bytes = match (&systems.states, updates.planes) {
        (Some(states), true) => plane_bytes_per_sweep(states.q),
        _ => metropolis_bytes,
    };
    let bytes_per_sweep = metropolis * metropolis_bytes
        + clusters * cluster_bytes as f64
        + moves * HOUDAYER_BYTES_PER_PAIR_SITE as f64 / 2.0;
    // A plane word's Philox blocks serve its 32 sites.
    let (proposal_words, proposal_multiplies) = match &systems.states {
        Some(states) if updates.planes => {
            let blocks = plane_blocks_per_word(states.q) / PLANE_BITS as f64;
            (4.0 * blocks, PHILOX_MULTIPLIES * blocks)
        }
        Some(states) => {
            let multiplies = discrete_multiplies_per_update(
                states.q,
                systems.lattice.directions(),
                updates.heat_bath,
            );
            (4.0, multiplies)
        }
        None => {
            // XY's hits share their Philox blocks in pairs (`HitWords`).
            let hits = updates.hits;
            let n = systems.components as usize;
            let blocks = f64::from(HitWords::draws(hits, n, updates.heat_bath)) / f64::from(hits);
            let multiplies = multiplies_per_update(systems.components) - PHILOX_MULTIPLIES;
            (4.0 * blocks, PHILOX_MULTIPLIES * blocks + multiplies)
        }
    };
    // A cluster update draws a bond word per site and bond direction: a Philox block per four.
    let bond_words = f64::from(systems.lattice.directions());
    let cluster_multiplies = PHILOX_MULTIPLIES * bond_words / 4.0
        + match systems.clock {
            0 => 0.0,
            q => clock_cluster_multiplies(q, systems.lattice.directions()),
        };
    let per_update = |proposal: f64, cluster: f64| {
        (proposals * proposal + clusters * cluster) / updates_per_sweep
    };
    let model = match (updates.clusters, updates.moves.is_none()) {
        (Some(step), _) => format!("{} {:?}", config.model.name(), step.update),
        (None, false) => format!("{} Houdayer", config.model.name()),
        (None, true) if updates.planes => format!("{} planes", config.model.name()),
        (None, true) => config.model.name(),
    };
    Ok(VectorBenchResult {
        backend: info.backend,
        adapter: info.adapter,
        model,
        size: systems.lattice.size,
        systems: systems.systems(),
        sweeps,
        seconds,
        tile: updates.tile,
        hits: updates.proposals(),
        ps_per_update: seconds * 1e12 / (site_sweeps * updates_per_sweep),
        random_words_per_update: per_update(proposal_words, bond_words),
        ps_per_sweep: seconds * 1e12 / site_sweeps,
        bytes_per_sweep,
        bytes_per_update: bytes_per_sweep / updates_per_sweep,
        multiplies_per_update: per_update(proposal_multiplies, cluster_multiplies),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn a_heisenberg_row_times_the_cpu_engine_and_states_its_floor() {
        let options = BenchOptions::parse_from([
            "bench",
            "--model",
            "heisenberg",
            "--dims",
            "3",
            "--sizes",
            "4",
            "--seconds",
            "0.01",
        ]);
        let config = bench_config(&options, Backend::Cpu, BenchEngine::Amsc, 4);
        config.validate().unwrap();
        let row = bench_vector(&config, options.seconds).unwrap();
        assert_eq!(
            (row.backend.as_str(), row.size, row.bytes_per_update),
            ("cpu", 4, 36.0)
        );
        assert!(row.ps_per_update > 0.0 && row.sweeps >= 1, "{row:?}");
        assert_eq!(row.model, "Heisenberg 3D");
        // Philox 40, the sphere's point 28, the energy 6.
        assert_eq!(row.multiplies_per_update, 74.0);
    }

    #[test]
    fn a_tiled_row_states_its_hits_and_the_floor_of_its_tiles() {
        let options = BenchOptions::parse_from([
            "bench",
            "--model",
            "xy",
            "--sizes",
            "8",
            "--tile",
            "4",
            "--hits",
            "3",
            "--seconds",
            "0.01",
        ]);
        let config = bench_config(&options, Backend::Cpu, BenchEngine::Simple, 8);
        config.validate().unwrap();
        let row = bench_vector(&config, options.seconds).unwrap();
        assert_eq!((row.tile, row.hits), (Some(4), 3));
        // Hits 0 and 1 share a block, hit 2 draws the next.
        assert_eq!(row.random_words_per_update, 4.0 * 2.0 / 3.0);
        // 6^2 padded sites over 4^2 read, 4^2 written, 8 bytes each.
        assert_eq!(row.bytes_per_sweep, 8.0 * (36.0 / 16.0 + 1.0));
        assert_eq!(row.bytes_per_update, row.bytes_per_sweep / 3.0);
        let ratio = row.ps_per_sweep / row.ps_per_update;
        assert!((ratio - 3.0).abs() < 1e-9, "{row:?}");
    }

    /// A Potts Wolff row is timed on lattices that Swendsen-Wang brought to equilibrium: at
    /// beta = 3, deep in the 3-state Potts model's ordered phase, one state holds almost every
    /// site of the equilibrated lattice, where the hot start's hold a third each.
    #[test]
    fn cluster_rows_start_from_lattices_in_equilibrium() {
        let options = BenchOptions::parse_from([
            "bench",
            "--model",
            "potts",
            "--states",
            "3",
            "--sizes",
            "16",
            "--beta",
            "3",
            "--clusters",
            "wolff",
        ]);
        let config = bench_config(&options, Backend::Cpu, BenchEngine::Simple, 16);
        config.validate().unwrap();
        let systems = vector_systems(&config, None, None);
        let updates = VectorSweeps::of(&config.updates, &config.algorithm);
        let step = updates.clusters.unwrap();
        assert_eq!(step.update, ClusterUpdate::Wolff);
        let Lattices::Vector(states) =
            equilibrated_spins(&config, &systems, updates, step).unwrap()
        else {
            panic!("discrete states come as words")
        };
        let most = (0..3)
            .map(|q| states.iter().filter(|&&s| s == q).count())
            .max();
        let share = most.unwrap() as f64 / states.len() as f64;
        assert!(share > 0.9, "the commonest state's share {share}");
    }

    /// A Potts row on the CPU: one word a state (12 bytes a site's sweep), Philox and the
    /// proposal's high word and two energies of four products in 2D; the heat bath's energies
    /// of every state.
    #[test]
    fn a_potts_row_states_the_floor_of_a_state_a_word() {
        for (heat_bath, multiplies) in [(false, 49.0), (true, 40.0 + 8.0 * 4.0 + 2.0)] {
            let mut args = vec!["bench", "--model", "potts", "--states", "8", "--sizes", "8"];
            args.extend(["--beta", "1.2", "--seconds", "0.01"]);
            if heat_bath {
                args.push("--heat-bath");
            }
            let options = BenchOptions::parse_from(args);
            let config = bench_config(&options, Backend::Cpu, BenchEngine::Simple, 8);
            config.validate().unwrap();
            let row = bench_vector(&config, options.seconds).unwrap();
            assert_eq!(row.model, "8-state Potts 2D");
            assert_eq!(
                (row.bytes_per_sweep, row.multiplies_per_update),
                (12.0, multiplies)
            );
        }
    }
}
