//! The vector-spin engine's CPU backend ([`VectorBackend`]; the engine itself is
//! `engine::backend::vector::VectorEngine`): the kernels' CPU twins over every system, systems
//! in parallel. Randoms are keyed by the run's index of each system
//! ([`VectorSystems::global_system`]), so an engine of a sample slice draws the words of those
//! samples in the whole run.

use std::cell::Cell;

use rayon::prelude::*;

use super::clock_bonds::{clock_bonds, clock_lattice, reflected_spin, reflection_bonds};
use super::clock_flip::{marked, reflect_sites};
use super::cluster_bonds::{bondable, pair_bonds};
use super::cluster_flip::{draw_states, houdayer_seed, move_seed_cluster, shift_cluster};
use super::copy_systems::copy_lattices;
use super::discrete_metropolis::{StateUpdate, discrete_colour};
use super::discrete_observables::observe_states;
use super::discrete_overlap::overlap_states;
use super::discrete_pack::pack_states;
use super::discrete_planes_metropolis::{PlaneKey, PlaneUpdate, plane_classes, planes_colour};
use super::discrete_unpack::unpack_states;
use super::vector_exchange::exchange_systems;
use super::vector_hot_start::{initial_lattice, initial_states};
use super::vector_metropolis::{SiteUpdate, SweepKey, metropolis_colour};
use super::vector_observables::observe_vector;
use super::vector_overlap::overlap_vector;
use super::vector_overrelaxation::overrelax_colour;
use super::vector_tiles::tiles_colour;
use super::{
    WolffGrowth, active_bonds, cpu_description, label_sites, mark_flips, point_at_roots,
    start_labelling,
};
use crate::config::{Boundaries, ClusterUpdate};
use crate::engine::backend::vector::{
    ExchangeBackend, PopulationBackend, ProposalBackend, SweepPass, VectorBackend, VectorEngine,
};
use crate::engine::clusters::{
    ClusterMove, PairMoves, bond_word, clock_mirror, houdayer_candidates, record_slots, wolff_shift,
};
use crate::engine::planes::PlaneLayout;
use crate::engine::vector::{
    UNIFORM, VectorObservation, VectorOverlap, VectorPass, VectorSweeps, cluster_step,
    pair_state_words, state_words,
};
use crate::error::Result;
use crate::model::Lattice;
use crate::model::lattices::bond_sign;
use crate::model::vector::fixed::{TABLE_LEN, Vector, is_empty};
use crate::model::vector::{PhaseTable, VectorCouplings, VectorSystems};

/// The vector-spin engine on the CPU.
pub type CpuVectorEngine = VectorEngine<CpuVector>;

impl CpuVectorEngine {
    /// The engine of `systems`, swept by `updates`, every spin along the first axis until a
    /// hot start; an error where `updates` asks for cluster updates or replica moves that
    /// `systems` cannot take ([`cluster_step`]).
    pub fn new(systems: VectorSystems, updates: VectorSweeps) -> Result<Self> {
        Ok(VectorEngine::on(CpuVector::new(systems, updates)?, updates))
    }
}

/// The vector-spin lattices and tables in the CPU's memory.
pub struct CpuVector {
    systems: VectorSystems,
    updates: VectorSweeps,
    tables: Vec<u32>,
    phases: PhaseTable,
    /// The proposal width of each temperature ([`ProposalBackend`]).
    widths: Vec<i32>,
    /// The bond activation threshold of each temperature, where cluster updates run; where
    /// replica moves run, whether they act there (not 0).
    clusters: Option<Vec<u32>>,
    /// The cluster passes' record since it was last taken
    /// ([`VectorBackend::take_cluster_record`]): Houdayer's `[pair][sites moved, moves with a
    /// seed]`, a cluster step's statistic `[system]`; empty without cluster passes.
    record: Vec<u64>,
    spins: Vec<i32>,
    /// The states' bit planes, where the sweeps hold them there ([`PlaneLayout`]).
    planes: Option<(PlaneLayout, Vec<u32>)>,
}

impl CpuVector {
    /// The lattices and tables of `systems`, every spin along the first axis (discrete states:
    /// state 0).
    fn new(systems: VectorSystems, updates: VectorSweeps) -> Result<Self> {
        let mut spins = vec![0; systems.spin_words()];
        let words = systems.system_words() as usize;
        if systems.states.is_none() {
            spins
                .chunks_mut(words)
                .for_each(|s| s[..words / systems.components as usize].fill(1 << 28));
        }
        let clusters = cluster_step(&systems, updates)?;
        let planes = match updates.planes {
            true => {
                let layout = PlaneLayout::of(&systems)?;
                Some((layout, vec![0; layout.words() as usize]))
            }
            false => None,
        };
        let record = match clusters {
            Some((update, ref lattices)) => {
                vec![0; (record_slots(update) * lattices.systems) as usize]
            }
            None => Vec::new(),
        };
        Ok(CpuVector {
            tables: systems.acceptance_tables(),
            phases: systems.phases(),
            widths: vec![UNIFORM; systems.betas.len()],
            clusters: clusters.map(|(_, lattices)| lattices.activation),
            record,
            systems,
            updates,
            spins,
            planes,
        })
    }

    /// Each system's passes of its bit planes (every pass a [`VectorPass::Planes`]) on a core
    /// of its own: each system's accepted moves.
    fn plane_passes(&mut self, passes: &[SweepPass]) -> Vec<u64> {
        let systems = &self.systems;
        let (layout, planes) = self.planes.as_mut().expect("sweeps of bit planes");
        let states = systems
            .states
            .as_ref()
            .expect("bit planes of discrete states");
        let VectorCouplings::Uniform(j) = systems.couplings else {
            unreachable!("bit planes of the ferromagnet (check_planes)")
        };
        let coordination = systems.lattice.coordination();
        let tables = &self.tables;
        let (layout, hits) = (*layout, self.updates.hits);
        (planes
            .par_chunks_mut(layout.system_words() as usize)
            .enumerate())
        .map(|(b, planes)| {
            let b = b as u32;
            let t = systems.temperature_of(b) as usize;
            let table = &tables[t * TABLE_LEN..(t + 1) * TABLE_LEN];
            let update = PlaneUpdate {
                layout,
                hits,
                classes: plane_classes(states, j, coordination, table),
            };
            let system = systems.global_system(b);
            (passes.iter())
                .map(|run| {
                    assert!(
                        matches!(run.pass, VectorPass::Planes { .. }),
                        "bit planes are swept by their own passes only"
                    );
                    let key = PlaneKey {
                        seed: systems.seed,
                        sweep: run.sweep,
                        colour: run.pass.colour(),
                        system,
                    };
                    planes_colour(&update, planes, key, run.threads.clone())
                })
                .sum()
        })
        .collect()
    }

    /// Words of one system's lattice.
    fn system_words(&self) -> usize {
        self.systems.system_words() as usize
    }

    /// Each system's passes `passes` (none a replica move) on a core of its own, one after
    /// another: each system's accepted moves. The recording cluster updates' statistics go into
    /// the record.
    fn system_passes(&mut self, passes: &[SweepPass]) -> Vec<u64> {
        let systems = &self.systems;
        let (tables, widths) = (&self.tables, &self.widths);
        let (hits, tiles) = (self.updates.hits, self.updates.tiles(systems));
        let words = self.system_words();
        let clusters = &self.clusters;
        let counted: Vec<(u64, u64)> = self
            .spins
            .par_chunks_mut(words)
            .enumerate()
            .map(|(b, spins)| {
                let b = b as u32;
                let (t, system) = (systems.temperature_of(b) as usize, systems.global_system(b));
                let table = &tables[t * TABLE_LEN..(t + 1) * TABLE_LEN];
                let proposal = (widths[t], hits);
                if systems.states.is_some() {
                    let update = StateUpdate::of(systems, systems.sample_of(b));
                    let mut statistic = 0;
                    let accepted = (passes.iter())
                        .map(|run| {
                            if let VectorPass::Cluster {
                                update: ClusterMove::Update(update),
                            } = run.pass
                            {
                                let threshold = clusters.as_ref().expect("checked")[t];
                                let key = (systems.seed, run.sweep, system);
                                let (kind, records) = ((update, threshold), run.records);
                                // Wolff's s_seed M_C is a wrapping word (negative across an
                                // antiperiodic edge), summed as the kernels sum it.
                                let recorded = cluster_update(systems, spins, kind, key, records);
                                statistic = u64::wrapping_add(statistic, recorded);
                                return 0;
                            }
                            assert!(
                                matches!(run.pass, VectorPass::Metropolis { .. }),
                                "discrete states are swept on the plain checkerboard only"
                            );
                            let key = SweepKey {
                                seed: systems.seed,
                                sweep: run.sweep,
                                colour: run.pass.colour(),
                                system,
                            };
                            let sites = (key, run.threads.clone());
                            discrete_colour(&update, spins, sites, proposal, table)
                        })
                        .sum();
                    return (accepted, statistic);
                }
                let update = SiteUpdate::of(systems, systems.sample_of(b));
                let mut accepted = 0;
                for run in passes {
                    let key = SweepKey {
                        seed: systems.seed,
                        sweep: run.sweep,
                        colour: run.pass.colour(),
                        system,
                    };
                    let threads = run.threads.clone();
                    accepted += match run.pass {
                        VectorPass::Metropolis { .. } => {
                            metropolis_colour(&update, spins, (key, threads), proposal, table)
                        }
                        VectorPass::Tiles { .. } => {
                            let tiles = tiles.expect("tiled passes have tiles");
                            tiles_colour(&update, spins, (tiles, key, threads), proposal, table)
                        }
                        VectorPass::Overrelaxation { colour } => {
                            overrelax_colour(&update, spins, colour, threads);
                            0
                        }
                        VectorPass::Cluster {
                            update: ClusterMove::Update(update),
                        } => {
                            let key = (systems.seed, run.sweep, system);
                            reflect_clock(systems, spins, (update, table), key);
                            0
                        }
                        VectorPass::Cluster { .. } => unreachable!("clock spins have no pairs"),
                        VectorPass::Planes { .. } => unreachable!("bit planes of states"),
                    };
                }
                (accepted, 0)
            })
            .collect();
        if passes.iter().any(|pass| pass.records) {
            let statistics = counted.iter().map(|&(_, statistic)| statistic);
            self.record
                .iter_mut()
                .zip(statistics)
                .for_each(|(r, s)| *r = r.wrapping_add(s));
        }
        counted.into_iter().map(|(accepted, _)| accepted).collect()
    }

    /// Replica move `number` of every replica pair at the temperatures where the moves act, a
    /// pair on a core of its own: the pairs `(r, r + R/2)` of a block of `R` replicas are its
    /// halves' lattices side by side.
    fn replica_move(&mut self, number: u32) {
        let systems = &self.systems;
        let words = self.system_words();
        let replicas = systems.replicas as usize;
        let acts = self.clusters.as_ref().expect("replica moves' temperatures");
        let moves = PairMoves::of(systems.states.as_ref().expect("replica pairs of states"));
        let records = self.record.par_chunks_mut(2 * (replicas / 2));
        let blocks = self.spins.par_chunks_mut(replicas * words).zip(records);
        blocks.enumerate().for_each(|(block, (spins, records))| {
            let (first, second) = spins.split_at_mut(replicas / 2 * words);
            let pairs = first.chunks_mut(words).zip(second.chunks_mut(words));
            for ((p, pair), record) in pairs.enumerate().zip(records.chunks_exact_mut(2)) {
                let a = (block * replicas + p) as u32;
                if acts[systems.temperature_of(a) as usize] != 0 {
                    let key = (systems.seed, number, systems.global_system(a));
                    let lattice = (&systems.lattice, systems.boundaries);
                    let moved = houdayer_move(lattice, pair, moves, key);
                    record[0] += moved;
                    record[1] += u64::from(moved > 0);
                }
            }
        });
    }
}

impl VectorBackend for CpuVector {
    const NAME: &'static str = "cpu";

    fn adapter_and_driver(&self) -> (String, String) {
        (cpu_description(), String::new())
    }

    fn systems(&self) -> &VectorSystems {
        &self.systems
    }

    fn hot_start(&mut self) -> Result<()> {
        let systems = &self.systems;
        let (seed, sites) = (systems.seed, systems.lattice.sites());
        let directions = systems.directions();
        let words = self.system_words();
        self.spins
            .par_chunks_mut(words)
            .enumerate()
            .for_each(|(b, s)| {
                let system = systems.global_system(b as u32);
                s.copy_from_slice(&match &systems.states {
                    Some(states) => initial_states(seed, system, sites, states.q),
                    None => initial_lattice(seed, system, sites, directions),
                });
            });
        Ok(())
    }

    fn write_spins(&mut self, spins: &[i32]) -> Result<()> {
        self.spins.copy_from_slice(spins);
        Ok(())
    }

    fn read_spins(&mut self) -> Result<Vec<i32>> {
        Ok(self.spins.clone())
    }

    /// Each run of passes of single systems on a core a system, one after another; each replica
    /// move on a core a replica pair.
    fn passes(&mut self, passes: &[SweepPass]) -> Result<Vec<u64>> {
        let mut accepted = vec![0; self.systems.systems() as usize];
        for run in passes.chunk_by(|a, b| is_replica_move(a) == is_replica_move(b)) {
            if is_replica_move(&run[0]) {
                run.iter().for_each(|pass| self.replica_move(pass.sweep));
                continue;
            }
            let counted = match self.planes {
                Some(_) => self.plane_passes(run),
                None => self.system_passes(run),
            };
            accepted.iter_mut().zip(counted).for_each(|(a, c)| *a += c);
        }
        Ok(accepted)
    }

    fn pack_planes(&mut self) -> Result<()> {
        let (layout, planes) = self.planes.as_mut().expect("bit planes to pack into");
        let states = self.spins.par_chunks(layout.lattice.sites() as usize);
        (planes
            .par_chunks_mut(layout.system_words() as usize)
            .zip(states))
        .for_each(|(planes, states)| pack_states(layout, states, planes));
        Ok(())
    }

    fn unpack_planes(&mut self) -> Result<()> {
        let (layout, planes) = self.planes.as_ref().expect("bit planes to unpack");
        let states = self.spins.par_chunks_mut(layout.lattice.sites() as usize);
        (planes
            .par_chunks(layout.system_words() as usize)
            .zip(states))
        .for_each(|(planes, states)| unpack_states(layout, planes, states));
        Ok(())
    }

    fn observe(&mut self) -> Result<(Vec<VectorObservation>, Vec<i64>)> {
        let systems = &self.systems;
        let phases = &self.phases;
        let lattices = self.spins.par_chunks(self.system_words()).enumerate();
        if systems.states.is_none() {
            let observations = lattices.map(|(b, spins)| {
                let update = SiteUpdate::of(systems, systems.sample_of(b as u32));
                observe_vector(&update, spins, phases)
            });
            return Ok((observations.collect(), Vec::new()));
        }
        let words = state_words(systems);
        let mut sums = vec![0; words * systems.systems() as usize];
        let observations = (lattices.zip(sums.par_chunks_mut(words)))
            .map(|((b, spins), sums)| {
                let update = StateUpdate::of(systems, systems.sample_of(b as u32));
                observe_states(&update, spins, phases, sums)
            })
            .collect();
        Ok((observations, sums))
    }

    fn take_cluster_record(&mut self) -> Result<Vec<u64>> {
        let zeros = vec![0; self.record.len()];
        Ok(std::mem::replace(&mut self.record, zeros))
    }

    fn overlaps(&mut self) -> Result<(Vec<VectorOverlap>, Vec<i64>)> {
        let systems = &self.systems;
        let (phases, words) = (&self.phases, self.system_words());
        let lattice = systems.lattice;
        let n = systems.components as usize;
        let lattice_of = |b: u32| &self.spins[b as usize * words..(b as usize + 1) * words];
        let pairs = systems.overlaps();
        let Some(states) = &systems.states else {
            let overlaps = (0..pairs).into_par_iter().map(|k| {
                let (a, b) = systems.overlap_systems(k);
                overlap_vector(lattice, n, (lattice_of(a), lattice_of(b)), phases)
            });
            return Ok((overlaps.collect(), Vec::new()));
        };
        let sum_words = pair_state_words(systems);
        let mut sums = vec![0; sum_words * pairs as usize];
        (sums.par_chunks_mut(sum_words).enumerate()).for_each(|(k, sums)| {
            let (a, b) = systems.overlap_systems(k as u32);
            overlap_states(
                lattice,
                states.q,
                (lattice_of(a), lattice_of(b)),
                phases,
                sums,
            );
        });
        Ok((vec![VectorOverlap::default(); pairs as usize], sums))
    }
}

/// Whether `pass` is a replica move, which runs on replica pairs.
fn is_replica_move(pass: &SweepPass) -> bool {
    pass.pass
        == VectorPass::Cluster {
            update: ClusterMove::Houdayer,
        }
}

/// Houdayer's move of the replica pair of lattices `(a, b)` of discrete states, of the clusters
/// that `moves` takes, keyed `(seed, move number, the run's index of a)`: the kernels' passes
/// in order over the whole lattice ([`crate::engine::clusters`]), no bond across an open edge of
/// `boundaries` or a honeycomb's gap. Returns the sites moved.
pub fn houdayer_move(
    (lattice, boundaries): (&Lattice, Boundaries),
    (a, b): (&mut [i32], &mut [i32]),
    moves: PairMoves,
    (seed, number, batch): (u64, u32, u32),
) -> u64 {
    let sites = lattice.sites();
    let candidates = houdayer_candidates(seed, sites, number, batch);
    let (relation, Some(site)) = houdayer_seed(&candidates, (a, b), moves) else {
        return 0;
    };
    let mut bonds = vec![0; (sites / 4) as usize];
    let groups = 0..bonds.len() as u32;
    pair_bonds(
        (lattice, boundaries),
        (a, b),
        (relation, moves.vacancy),
        groups,
        &mut bonds,
    );
    let labels = cluster_roots(lattice, &bonds);
    move_seed_cluster(&labels, (labels[site as usize], relation), (a, b))
}

/// Each site's cluster root, the smallest site of its cluster, of the active `bonds` of a
/// lattice: the labelling's passes in order over the whole lattice.
fn cluster_roots(lattice: &Lattice, bonds: &[u32]) -> Vec<u32> {
    let sites = lattice.sites();
    let mut labels = vec![0; sites as usize];
    start_labelling(&mut labels);
    label_sites(lattice, bonds, &mut labels, 0..sites);
    point_at_roots(&mut labels, 0..sites, None);
    labels
}

/// A site's part of its Swendsen-Wang cluster's count (the `cluster_roots` kernels'
/// `magnetisation_weight`): 1 where it is occupied; with an antiperiodic edge `twisted` (two
/// states), whose clusters hold both states across it, its spin's sign (`+1` for state 0, `-1`
/// for state 1), so that the count is the cluster's magnetisation; 0 for the vacancy `q`.
fn magnetisation_weight(state: i32, (q, twisted): (u32, bool)) -> i64 {
    match (state as u32 == q, twisted) {
        (true, _) => 0,
        (false, false) => 1,
        (false, true) => 1 - 2 * i64::from(state),
    }
}

/// `s_seed M_C` of Wolff's cluster `members` (its seed first) of `states`: each occupied member
/// adds 1 where its state is the seed's and -1 where not (the other of two states across an
/// antiperiodic edge), as a wrapping `u64`. Averaged over the seed, a site of the lattice, it is
/// `sum_C M_C^2 / N` over the Swendsen-Wang clusters; without an antiperiodic edge it is `|C|`.
fn seed_magnetisation(states: &[i32], members: &[u32], vacancy: i32) -> u64 {
    let seed = states[members[0] as usize];
    let occupied = members.iter().map(|&m| states[m as usize]);
    let signs = occupied.filter(|&s| s != vacancy).map(|s| match s == seed {
        true => 1i64,
        false => -1,
    });
    signs.sum::<i64>() as u64
}

/// One cluster update of kind `update` of a lattice of discrete `states` of `systems` at bond
/// activation threshold `threshold`, keyed `(seed, update number, the run's system)`: the
/// kernels' passes in order over the whole lattice for Swendsen-Wang, Wolff's cluster grown
/// from its seed ([`crate::engine::clusters`]). Returns its statistic over the occupied sites
/// where it `records` (Swendsen-Wang's `sum_C |C|^2`, with an antiperiodic edge `sum_C M_C^2`
/// of the clusters' magnetisations; Wolff's `|C|`, with an antiperiodic edge
/// [`seed_magnetisation`]), else 0.
fn cluster_update(
    systems: &VectorSystems,
    states: &mut [i32],
    (update, threshold): (ClusterUpdate, u32),
    key: (u64, u32, u32),
    records: bool,
) -> u64 {
    let lattice = &systems.lattice;
    let q = systems
        .states
        .as_ref()
        .expect("cluster updates of states")
        .q;
    let (seed, number, batch) = key;
    let vacancy = q as i32;
    if update == ClusterUpdate::Wolff {
        let directions = lattice.directions();
        let mut growth = WolffGrowth::start(lattice, key);
        let active = |(site, neighbour): (u64, u64), (bond_site, d): (u64, u32)| {
            let pair = (states[site as usize], states[neighbour as usize]);
            let bond = bond_site * u64::from(directions) + u64::from(d);
            let word = bond_word(seed, (bond_site as u32, d, directions), number, batch);
            bondable(pair, vacancy, bond_sign(systems.boundaries, lattice, bond))
                && word < threshold
        };
        growth.grow_over(lattice, lattice.size, active);
        let members = growth.members();
        let statistic = match records {
            true => seed_magnetisation(states, members, vacancy),
            false => 0,
        };
        let shift = wolff_shift(seed, q, number, batch);
        shift_cluster(states, members, (q, shift));
        return statistic;
    }
    let sites = lattice.sites();
    let mut bonds = vec![0; (sites / 4) as usize];
    let groups = 0..bonds.len() as u32;
    active_bonds(
        (lattice, systems.boundaries),
        (states, vacancy),
        threshold,
        key,
        groups,
        &mut bonds,
    );
    let labels = cluster_roots(lattice, &bonds);
    let twisted = systems.boundaries.any_antiperiodic();
    let statistic = match records {
        true => {
            let mut counts = vec![0i64; labels.len()];
            for (&root, &state) in labels.iter().zip(&*states) {
                counts[root as usize] += magnetisation_weight(state, (q, twisted));
            }
            counts.iter().map(|c| c.unsigned_abs().pow(2)).sum()
        }
        false => 0,
    };
    draw_states(states, &labels, (q, twisted), key);
    statistic
}

/// One cluster update of kind `update` of a lattice of clock spins of `systems` (Wolff's
/// embedding), its temperature's acceptance `table`, keyed `(seed, update number, the run's
/// system)`: the kernels' passes in order over the whole lattice for Swendsen-Wang, Wolff's
/// cluster grown from its seed ([`crate::engine::clusters`]).
fn reflect_clock(
    systems: &VectorSystems,
    spins: &mut [i32],
    (update, table): (ClusterUpdate, &[u32]),
    key: (u64, u32, u32),
) {
    let (lattice, q) = (&systems.lattice, systems.clock);
    let (seed, number, batch) = key;
    let mirror = clock_mirror(seed, q, number, batch);
    let (sites, boundaries) = (lattice.sites(), systems.boundaries);
    if update == ClusterUpdate::Wolff {
        let members = clock_wolff_cluster(systems, spins, (table, mirror), key);
        reflect_sites(spins, members.into_iter(), (q, mirror));
        return;
    }
    let mut bonds = vec![0; (sites / 4) as usize];
    let groups = 0..bonds.len() as u32;
    clock_bonds(
        (lattice, boundaries),
        spins,
        (q, mirror),
        (table, key),
        groups,
        &mut bonds,
    );
    let labels = cluster_roots(lattice, &bonds);
    let mut flips = vec![0; sites.div_ceil(64) as usize];
    mark_flips(&labels, 0..sites, key, &mut flips);
    reflect_sites(spins, marked(&flips, sites), (q, mirror));
}

/// The sites of Wolff's cluster of clock `spins` of `systems` at update `key`, grown from its
/// seed over the bonds that reflecting through `mirror` activates under `table`
/// ([`reflection_bonds`], as `clock_bonds` decides them).
fn clock_wolff_cluster(
    systems: &VectorSystems,
    spins: &[i32],
    (table, mirror): (&[u32], u32),
    key: (u64, u32, u32),
) -> Vec<u64> {
    let (lattice, q) = (&systems.lattice, systems.clock);
    let (seed, number, batch) = key;
    let directions = lattice.directions();
    let spin = clock_lattice(spins);
    // A bond's owner's spin and reflection (none for an empty site).
    let owner = |site: u64| {
        let s = spin(site);
        match is_empty(&s) {
            true => (s, s),
            false => (s, reflected_spin(&s, (q, mirror))),
        }
    };
    // The member being explored owns its D forward bonds, each neighbour the backward bond to
    // it: the member's reflection is kept for its forward bonds, so that each member costs
    // 1 + D bisections instead of 2 D.
    let member = Cell::new(None::<(u64, (Vector, Vector))>);
    let active = |(site, neighbour): (u64, u64), (bond_site, d): (u64, u32)| {
        let (s, reflected) = match (bond_site == site, member.get()) {
            (true, Some((kept, pair))) if kept == site => pair,
            (true, _) => {
                let pair = owner(site);
                member.set(Some((site, pair)));
                pair
            }
            (false, _) => owner(bond_site),
        };
        if is_empty(&s) {
            return false;
        }
        let other = if bond_site == site { neighbour } else { site };
        let bond = bond_site * u64::from(directions) + u64::from(d);
        let random = bond_word(seed, (bond_site as u32, d, directions), number, batch);
        let sign = bond_sign(systems.boundaries, lattice, bond);
        reflection_bonds((&s, &reflected), &spin(other), sign, (random, table))
    };
    let mut growth = WolffGrowth::start(lattice, key);
    growth.grow_over(lattice, lattice.size, active);
    growth.members().iter().map(|&m| u64::from(m)).collect()
}

impl ProposalBackend for CpuVector {
    fn write_widths(&mut self, widths: &[i32]) -> Result<()> {
        self.widths.copy_from_slice(widths);
        Ok(())
    }
}

impl PopulationBackend for CpuVector {
    fn write_betas(&mut self, betas: &[f64]) -> Result<()> {
        self.systems.betas = betas.to_vec();
        self.tables = self.systems.acceptance_tables();
        Ok(())
    }

    fn copy_systems(&mut self, sources: &[u32]) -> Result<()> {
        copy_lattices(sources, self.system_words(), &mut self.spins);
        Ok(())
    }
}

impl ExchangeBackend for CpuVector {
    fn exchange_systems(&mut self, partners: &[u32]) -> Result<()> {
        let words = self.system_words();
        exchange_systems(&mut self.spins, words, partners);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Disorder, ReplicaMoves};
    use crate::engine::vector::{HEAT_BATH, UNIFORM, sweeps_plan};
    use crate::engine::{Engine, Plan, Proposals};
    use crate::model::Lattice;
    use crate::model::systems::SliceIndex;
    use crate::model::vector::fixed::ONE;
    use crate::model::vector::states::States;

    /// Houdayer's move is its own inverse at every key and keeps the pair's energy, so its chance
    /// of taking one pair configuration to another is that of the way back (its keyed candidate
    /// sites do not depend on the spins): detailed balance, on every configuration of a replica
    /// pair of tiny lattices of two states (2^3 sites, one empty, couplings +-1 and +-2; with a
    /// field, and without, where clusters of agreement move too), of three (2^2 sites, the
    /// Potts energy), and of two on seven sites of the 6^2 triangular lattice (the others empty)
    /// joined by its three directions and across both seams.
    #[test]
    fn houdayer_moves_undo_themselves_and_keep_the_pairs_energy() {
        use crate::model::Shape;
        let cube = Lattice::new(3, 2);
        let triangular = Lattice::shaped(Shape::Triangular, 2, 6);
        let patch = [0, 1, 5, 6, 7, 30, 35];
        let others: Vec<usize> = (0..36).filter(|i| !patch.contains(i)).collect();
        let cases: [(Lattice, u32, &[usize], i32); 4] = [
            (cube, 2, &[5], 3),
            (cube, 2, &[5], 0),
            (Lattice::new(2, 2), 3, &[], 3),
            (triangular, 2, &others, 0),
        ];
        for (lattice, q, empty, field) in cases {
            let moves = PairMoves {
                vacancy: q as i32,
                agreement: q == 2 && field == 0,
            };
            let n = lattice.sites() as usize;
            let directions = lattice.directions() as usize;
            let couplings: Vec<i32> = (0..n * directions)
                .map(|i| [1, -1, 2, -2][i * 7 % 4])
                .collect();
            let energy = |spins: &[i32]| -> i32 {
                let pair = |a: i32, b: i32| match q {
                    2 => (2 * a - 1) * (2 * b - 1),
                    _ => i32::from(a == b),
                };
                let occupied = |i: usize| !empty.contains(&i);
                let bonds: i32 = (0..n)
                    .flat_map(|i| {
                        lattice
                            .forward_neighbours(i as u64)
                            .enumerate()
                            .map(move |(d, j)| (i, d, j as usize))
                    })
                    .filter(|&(i, _, j)| occupied(i) && occupied(j))
                    .map(|(i, d, j)| couplings[i * directions + d] * pair(spins[i], spins[j]))
                    .sum();
                let field: i32 = (0..n)
                    .filter(|&i| occupied(i))
                    .map(|i| field * pair(spins[i], 1))
                    .sum();
                -bonds - field
            };
            let free = n - empty.len();
            let (mut moved, mut agreeing, mut configurations) = (0, 0, 0);
            for code in 0..(q as usize).pow(2 * free as u32) {
                let mut digits = code;
                let mut lattices = vec![0i32; 2 * n];
                for (i, spin) in lattices.iter_mut().enumerate() {
                    match empty.contains(&(i % n)) {
                        true => *spin = q as i32,
                        false => {
                            *spin = (digits % q as usize) as i32;
                            digits /= q as usize;
                        }
                    }
                }
                let before = lattices.clone();
                for number in 0..4 {
                    let key = (11, number, 5);
                    let (a, b) = lattices.split_at_mut(n);
                    let sites = houdayer_move((&lattice, Boundaries::PERIODIC), (a, b), moves, key);
                    moved += u64::from(sites > 0);
                    let flipped_agreeing =
                        |i: usize| lattices[i] != before[i] && before[i] == before[n + i];
                    agreeing += u64::from((0..n).any(flipped_agreeing));
                    let after = lattices.clone();
                    let (a, b) = after.split_at(n);
                    let (a0, b0) = before.split_at(n);
                    assert_eq!(energy(a) + energy(b), energy(a0) + energy(b0), "{before:?}");
                    let (a, b) = lattices.split_at_mut(n);
                    assert_eq!(
                        houdayer_move((&lattice, Boundaries::PERIODIC), (a, b), moves, key),
                        sites
                    );
                    assert_eq!(lattices, before, "move {number} undone");
                }
                configurations += 4;
            }
            assert!(
                moved > configurations / 4,
                "{moved} of {configurations} moves moved sites"
            );
            match moves.agreement {
                true => assert!(agreeing > moved / 4, "{agreeing} of {moved} on agreement"),
                false => assert_eq!(agreeing, 0, "no cluster of agreement moves"),
            }
        }
    }

    /// What an engine gives after each round of sweeps: accepted moves, lattices, observations,
    /// overlaps.
    type Round = (
        Vec<u64>,
        Vec<i32>,
        Vec<VectorObservation>,
        Vec<VectorOverlap>,
    );

    /// `systems` from the hot start through two rounds of sweeps (a cone at the first
    /// temperature, uniform proposals at the second).
    fn rounds(systems: &VectorSystems, updates: VectorSweeps) -> Vec<Round> {
        let mut engine = CpuVectorEngine::new(systems.clone(), updates).unwrap();
        engine.hot_start().unwrap();
        engine.set_widths(&[ONE / 2, UNIFORM]).unwrap();
        [0..2, 2..5]
            .into_iter()
            .map(|sweeps| {
                let measured = engine.execute(&sweeps_plan(sweeps, true)).unwrap();
                let spins = engine.spins().unwrap().into_vector().unwrap();
                let (observations, overlaps) =
                    (measured.vector_observations, measured.vector_overlaps);
                (measured.accepted, spins, observations, overlaps)
            })
            .collect()
    }

    /// An observation ([`Step::Observe`](crate::engine::Step::Observe)) holds the systems'
    /// observations of a measurement at the same sweep and no overlaps; an Ising engine
    /// refuses it.
    #[test]
    fn an_observation_is_a_measurement_without_the_overlap_pairs() {
        let systems = VectorSystems::uniform(Lattice::new(2, 4), 3, (1, 0.0), vec![0.5, 1.0], 2, 9)
            .with_disorder(Disorder::Bimodal, 2);
        let updates = VectorSweeps::METROPOLIS;
        let after_three_sweeps = |observe: bool| {
            let mut engine = CpuVectorEngine::new(systems.clone(), updates).unwrap();
            engine.hot_start().unwrap();
            let mut plan = sweeps_plan(0..3, false);
            match observe {
                true => plan.observe(),
                false => plan.measure(),
            }
            engine.execute(&plan).unwrap()
        };
        let (observed, measured) = (after_three_sweeps(true), after_three_sweeps(false));
        assert_eq!(observed.vector_observations, measured.vector_observations);
        assert_eq!(observed.accepted, measured.accepted);
        let zero = VectorOverlap::default();
        assert!(measured.vector_overlaps.iter().any(|o| *o != zero));
        assert!(observed.vector_overlaps.iter().all(|o| *o == zero));

        let ising = crate::model::ising::IsingSystems::ferromagnet(
            Lattice::new(2, 4),
            0.0,
            vec![0.4],
            1,
            9,
        );
        let mut plan = sweeps_plan(0..1, false);
        plan.observe();
        let refused = crate::engine::cpu::CpuEngine::new(ising).execute(&plan);
        assert!(refused.is_err_and(|e| e.to_string().contains("Step::Observe")));
    }

    /// The GPU kernels of discrete states are built for one proposal, so an engine refuses
    /// widths of the other; unit vectors refuse the heat bath.
    #[test]
    fn widths_of_the_other_proposal_are_refused() {
        let potts = VectorSystems::uniform(Lattice::new(2, 4), 2, (1, 0.0), vec![0.5, 1.0], 1, 9)
            .with_states(States::potts(3, 0.0));
        let heisenberg =
            VectorSystems::uniform(Lattice::new(2, 4), 3, (1, 0.0), vec![0.5, 1.0], 1, 9);
        for (systems, heat_bath, widths, refused) in [
            (&potts, false, [UNIFORM; 2], None),
            (&potts, true, [HEAT_BATH; 2], None),
            (&potts, false, [UNIFORM, HEAT_BATH], Some("Metropolis")),
            (&potts, true, [HEAT_BATH, UNIFORM], Some("heat-bath")),
            (
                &heisenberg,
                false,
                [UNIFORM, HEAT_BATH],
                Some("every direction"),
            ),
        ] {
            let updates = VectorSweeps {
                heat_bath,
                ..VectorSweeps::METROPOLIS
            };
            let mut engine = CpuVectorEngine::new(systems.clone(), updates).unwrap();
            let set = engine.set_widths(&widths);
            match refused {
                None => set.unwrap(),
                Some(why) => assert!(set.is_err_and(|e| e.to_string().contains(why))),
            }
        }
    }

    /// The Metropolis kernels lay the systems flat along the grid where a system's threads (a
    /// colour's sites, two a thread for discrete states' Metropolis) fill less than a
    /// workgroup, and only while every thread of the grid has a 32-bit index.
    #[test]
    fn small_lattices_lay_their_systems_flat_along_the_grid() {
        let heisenberg = |size, replicas| {
            VectorSystems::uniform(Lattice::new(2, size), 3, (1, 0.0), vec![0.5], replicas, 9)
        };
        let potts = |size| heisenberg(size, 2).with_states(States::potts(3, 0.0));
        let metropolis = VectorSweeps::METROPOLIS;
        let heat_bath = VectorSweeps {
            heat_bath: true,
            ..metropolis
        };
        // Cluster updates alone take a triangular lattice of a size that its three colours do
        // not tile: 834 sites a colour at most.
        let triangular = VectorSystems {
            lattice: Lattice::shaped(crate::model::Shape::Triangular, 2, 50),
            ..potts(4)
        };
        for (systems, updates, sites, workgroup, flat) in [
            (triangular, metropolis, 2, 1024, true),
            // 8 sites a colour: 8 threads of unit vectors, 4 of two states a thread.
            (heisenberg(4, 2), metropolis, 1, 64, true),
            (heisenberg(16, 2), metropolis, 1, 64, false),
            (heisenberg(16, 2), metropolis, 1, 256, true),
            (potts(16), metropolis, 2, 128, true),
            (potts(16), metropolis, 2, 64, false),
            (potts(16), heat_bath, 1, 128, false),
            // 2^25 systems of 128 threads: the grid's 2^32 threads pass a 32-bit index, as
            // do those of the last workgroup of 2^25 - 1 systems.
            (heisenberg(16, 1 << 25), metropolis, 1, 256, false),
            (heisenberg(16, (1 << 25) - 1), metropolis, 1, 256, false),
            (heisenberg(16, (1 << 25) - 2), metropolis, 1, 256, true),
        ] {
            let launch = updates.metropolis_launch(&systems, 1, workgroup);
            assert_eq!(launch.sites_per_thread, sites, "{systems:?}");
            assert_eq!(
                launch.flat, flat,
                "L {} wg {workgroup}",
                systems.lattice.size
            );
        }
    }

    /// Item `i` of `part` (`width` values each) is item `index.global(i)` of `whole`.
    fn assert_mapped<T: PartialEq + std::fmt::Debug>(
        what: &str,
        (whole, part): (&[T], &[T]),
        width: usize,
        index: SliceIndex,
    ) {
        assert!(!part.is_empty(), "{what}: none");
        for (i, mine) in part.chunks_exact(width).enumerate() {
            let global = index.global(i as u32) as usize;
            let theirs = &whole[global * width..][..width];
            assert!(mine == theirs, "{what}: item {i} is not the run's {global}");
        }
    }

    /// Engines of sample slices end with their samples' bits of the whole run: lattices,
    /// accepted moves, observations and overlaps, for XY and Heisenberg spins, a bimodal and a
    /// Gaussian glass, the plain and the double checkerboard, and the 4-state Potts glass; a
    /// slice numbered from 0, as a run of its own, ends elsewhere.
    #[test]
    fn sample_slices_end_with_their_samples_bits_of_the_whole_run() {
        let glass = |n, dims, disorder| {
            let lattice = Lattice::new(dims, 4);
            VectorSystems::uniform(lattice, n, (1, 0.3), vec![0.4, 1.5], 4, 0x51ce)
                .with_disorder(disorder, 3)
        };
        let sweeps = |tile| VectorSweeps {
            hits: 2,
            tile,
            overrelaxation: 1,
            ..VectorSweeps::METROPOLIS
        };
        let cases = [
            (glass(2, 2, Disorder::Bimodal), sweeps(None)),
            (glass(3, 3, Disorder::Gaussian), sweeps(Some(2))),
            (glass(3, 2, Disorder::Bimodal), sweeps(Some(2))),
            (glass(2, 3, Disorder::Gaussian), sweeps(None)),
            (
                glass(2, 3, Disorder::Bimodal).with_states(States::potts(4, 0.3)),
                VectorSweeps {
                    overrelaxation: 0,
                    ..sweeps(None)
                },
            ),
        ];
        for (run, updates) in cases {
            let whole = rounds(&run, updates);
            let words = (run.components * run.lattice.sites() as u32) as usize;
            for (first, count) in [(0, 1), (1, 2), (2, 1)] {
                let slice = run.sample_slice(first, count);
                let name = format!(
                    "{}-vectors {:?} samples {first}+{count}",
                    run.components, run.disorder
                );
                let systems = slice.slice_index();
                let pairs = run.overlap_pairs();
                let overlaps = SliceIndex::of_samples((first, count), run.samples, pairs);
                for (e, g) in whole.iter().zip(rounds(&slice, updates)) {
                    assert_mapped(&format!("{name} accepted"), (&e.0, &g.0), 1, systems);
                    assert_mapped(&format!("{name} lattices"), (&e.1, &g.1), words, systems);
                    assert_mapped(&format!("{name} observations"), (&e.2, &g.2), 1, systems);
                    assert_mapped(&format!("{name} overlaps"), (&e.3, &g.3), 1, overlaps);
                }
            }
            let last = run.sample_slice(2, 1);
            let mut alone = last.clone();
            (alone.first_sample, alone.all_samples) = (0, 1);
            let renumbered = rounds(&alone, updates)[0].1 != rounds(&last, updates)[0].1;
            assert!(
                renumbered,
                "a slice numbered from 0 ends as the run's sample 2"
            );
        }
    }

    /// A plan of more passes than the engine hands its backend at once
    /// ([`PASSES_PER_CALL`](crate::engine::backend::vector::PASSES_PER_CALL)) counts the
    /// accepted moves of all of them, as plans of fewer do.
    #[test]
    fn a_long_plan_counts_every_passs_accepted_moves() {
        use crate::engine::backend::vector::PASSES_PER_CALL;
        let systems = VectorSystems::uniform(Lattice::new(2, 2), 2, (1, 0.0), vec![0.5], 1, 3);
        let updates = VectorSweeps::METROPOLIS;
        let sweeps = PASSES_PER_CALL as u32 / 2 + 5;
        // The accepted moves and lattices of plans of sweeps ending at sweeps `ends`.
        let accepted = |ends: &[u32]| {
            let mut engine = CpuVectorEngine::new(systems.clone(), updates).unwrap();
            let mut start = 0;
            let mut total = 0;
            for &end in ends {
                let plan = sweeps_plan(start..end, false);
                total += engine.execute(&plan).unwrap().accepted[0];
                start = end;
            }
            (total, engine.spins().unwrap())
        };
        assert_eq!(accepted(&[sweeps]), accepted(&[sweeps / 2, sweeps]));
    }

    /// A 5-state clock's spins are its five angles (the unit vectors of their turns) from the
    /// hot start on, through tiles of multi-hit sweeps, and every angle occurs.
    #[test]
    fn a_clock_models_spins_stay_on_its_angles() {
        use crate::model::vector::fixed::{clock_turn, cos_sin_turn, unit};
        let q = 5;
        let systems = VectorSystems::uniform(Lattice::new(2, 8), 2, (1, 0.2), vec![0.5, 2.0], 2, 4)
            .with_clock(q);
        let updates = VectorSweeps {
            hits: 2,
            tile: Some(4),
            ..VectorSweeps::METROPOLIS
        };
        let angles: Vec<[i32; 2]> = (0..q)
            .map(|k| {
                let (c, s) = cos_sin_turn(clock_turn(k, q));
                let [x, y, _] = unit(&[c, s, 0], 2).unwrap();
                [x, y]
            })
            .collect();
        let mut engine = CpuVectorEngine::new(systems, updates).unwrap();
        engine.hot_start().unwrap();
        for sweeps in [0..0, 0..7] {
            engine.execute(&sweeps_plan(sweeps, false)).unwrap();
            let spins = engine.spins().unwrap().into_vector().unwrap();
            let mut seen = vec![false; q as usize];
            for system in spins.chunks(2 * 64) {
                let (x, y) = system.split_at(64);
                for (&x, &y) in x.iter().zip(y) {
                    let k = angles.iter().position(|a| *a == [x, y]);
                    seen[k.unwrap_or_else(|| panic!("({x}, {y}) is no clock angle"))] = true;
                }
            }
            assert!(seen.iter().all(|&s| s), "{seen:?}");
        }
    }

    /// Pieces of passes a sweep does not have, or of planes the lattice does not have, are
    /// refused.
    #[test]
    fn pieces_outside_the_sweep_are_refused() {
        let systems = VectorSystems::uniform(Lattice::new(2, 4), 2, (1, 0.0), vec![0.5], 1, 3);
        let updates = VectorSweeps {
            overrelaxation: 1,
            ..VectorSweeps::METROPOLIS
        };
        let mut engine = CpuVectorEngine::new(systems, updates).unwrap();
        for (pass, planes) in [(4, 0..1), (1, 3..5)] {
            let mut plan = Plan::default();
            plan.part(0, pass, planes);
            assert!(engine.execute(&plan).is_err(), "pass {pass}");
        }
    }

    /// Replica moves of unit vectors, which have no clusters of disagreement, are refused as the
    /// device engines refuse them.
    #[test]
    fn replica_moves_of_unit_vectors_are_refused() {
        let systems = VectorSystems::uniform(Lattice::new(2, 4), 2, (1, 0.0), vec![0.5], 2, 3);
        let updates = VectorSweeps {
            moves: ReplicaMoves::Houdayer { per_sweep: 1 },
            ..VectorSweeps::METROPOLIS
        };
        let error = CpuVectorEngine::new(systems, updates)
            .err()
            .expect("refused");
        assert!(error.to_string().contains("replica moves take"), "{error}");
    }

    /// Wolff's embedding takes the clock ferromagnet at zero field only: continuous XY spins, a
    /// clock in a field and a clock glass are refused as the device engines refuse them.
    #[test]
    fn clock_clusters_take_the_ferromagnet_at_zero_field_only() {
        use crate::config::{ClusterOptions, ClusterUpdate};
        let clock = |field: f64| {
            VectorSystems::uniform(Lattice::new(2, 4), 2, (1, field), vec![0.5], 2, 3).with_clock(6)
        };
        let updates = VectorSweeps {
            clusters: Some(ClusterOptions {
                update: ClusterUpdate::Wolff,
                clusters: 1,
                metropolis: 0,
            }),
            ..VectorSweeps::METROPOLIS
        };
        CpuVectorEngine::new(clock(0.0), updates).unwrap();
        let xy = VectorSystems::uniform(Lattice::new(2, 4), 2, (1, 0.0), vec![0.5], 2, 3);
        let glass = clock(0.0).with_disorder(Disorder::Bimodal, 2);
        for refused in [clock(0.1), xy, glass] {
            let error = CpuVectorEngine::new(refused, updates)
                .err()
                .expect("refused");
            assert!(
                error.to_string().contains("cluster updates take"),
                "{error}"
            );
        }
    }

    /// What the engine holds stays within its footprint, whose lattices are its spins exactly.
    #[test]
    fn the_footprint_bounds_what_the_engine_holds() {
        use crate::engine::memory::Footprint;
        use crate::model::vector::VectorCouplings;
        let bytes = |words: usize, size: usize| (words * size) as u64;
        let systems = VectorSystems::uniform(Lattice::new(3, 4), 3, (1, 0.0), vec![0.5, 1.0], 2, 9)
            .with_disorder(Disorder::Bimodal, 2);
        let updates = VectorSweeps::METROPOLIS;
        let backend = CpuVector::new(systems.clone(), updates).unwrap();
        let footprint = Footprint::vector(&systems, updates, systems.lattice);
        assert_eq!(footprint.lattices, bytes(backend.spins.len(), 4));
        assert_eq!(footprint.capabilities, 0, "no cluster buffers");
        // Replica moves label every pair: a bond byte, a label and a count a site.
        let moves = VectorSweeps {
            moves: ReplicaMoves::Houdayer { per_sweep: 1 },
            ..updates
        };
        let pairs = u64::from(systems.overlaps());
        let labelled = Footprint::vector(&systems, moves, systems.lattice).capabilities;
        assert_eq!(labelled, pairs * (9 * systems.lattice.sites() + 16));
        let VectorCouplings::Bonds(bonds) = &backend.systems.couplings else {
            panic!("bimodal couplings are bonds");
        };
        let tables = bytes(bonds.iter().map(Vec::len).sum(), 1)
            + bytes(backend.tables.len(), 4)
            + bytes(backend.phases.cos.len() + backend.phases.sin.len(), 4)
            + bytes(backend.widths.len(), 4);
        assert!(tables <= footprint.tables, "{tables} > {footprint:?}");
        let slot = std::mem::size_of::<VectorObservation>()
            + std::mem::size_of::<VectorOverlap>() * systems.overlaps() as usize
                / systems.systems() as usize;
        let measured = bytes(2 * systems.systems() as usize, slot);
        assert!(measured <= footprint.slots, "{measured} > {footprint:?}");
        let mut backend = backend;
        let read = bytes(backend.read_spins().unwrap().len(), 4);
        assert!(read + measured <= footprint.travel, "{footprint:?}");
    }
}
