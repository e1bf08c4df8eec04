//! Vector-spin runs over MPI ranks: their [`Division`] of the [`RankedEngine`] and its opening
//! ([`open_ranked_vector`]), and the opening of a serving rank's engine
//! ([`open_vector_share`]), which then serves the Ising engines' calls (`world::follow`): one
//! wire vocabulary for every model.
//!
//! The run splits by disorder sample ([`super::vector_split`]): rank `k` holds samples
//! `shares[k]` at every temperature and replica, an engine of
//! [`VectorSystems::sample_slice`] with those samples' couplings (sent by rank 0, which drew
//! or read them, so every rank uses the very couplings of `couplings.npy`), whose randoms are
//! keyed by the run's systems. Every per-system array of the engine (lattices, accepted moves,
//! observations, overlaps) is `[t][sample][...]`, so the ranks' arrays, concatenated sample
//! block by sample block ([`super::merge_samples`]), are the whole run's bit for bit.

use super::ranked::{Division, RankedEngine, everywhere};
use super::wire::Command;
use super::{RunShape, Share, merge_samples, slice_samples, vector_split};
use crate::config::Config;
use crate::engine::memory::check_gathered;
use crate::engine::open::open_local_vector_engine;
use crate::engine::placement::placement;
use crate::engine::vector::{
    VectorSweeps, check_partners, check_spin_words, check_widths, pair_state_words, state_words,
};
use crate::engine::{Engine, Lattices, Measurements, check_copy_map};
use crate::error::{Error, Result};
use crate::model::vector::VectorSystems;

/// Open the engine of `systems` (the whole run's) under `config`, swept by `updates`, on every
/// rank; refuses more ranks than samples.
pub(super) fn open_ranked_vector(
    config: &Config,
    systems: VectorSystems,
    updates: VectorSweeps,
) -> Result<Box<dyn Engine>> {
    let placement = placement().expect("a ranked engine runs on rank 0 of several");
    let shares = vector_split(&config.model.name(), &systems, placement.size)?;
    let (lattice, count) = (systems.lattice, u64::from(systems.systems()));
    let what = format!("the {count} systems");
    check_gathered(&what, lattice, |size| {
        4 * u64::from(systems.components) * count * lattice.resized(size).sites()
    })?;
    let slice = |k: usize| systems.sample_slice(shares[k].first, shares[k].count);
    let text = config.to_ron_string();
    let open = |k| Command::OpenVector {
        config: text.clone(),
        systems: slice(k),
        updates,
    };
    let local = || open_local_vector_engine(config, slice(0), updates);
    let division = VectorDivision {
        systems: systems.clone(),
        shares: shares.clone(),
        heat_bath: updates.heat_bath,
    };
    RankedEngine::open(placement, division, open, local)
}

/// The vector spins' division: the whole run's systems and each rank's samples.
struct VectorDivision {
    systems: VectorSystems,
    shares: Vec<Share>,
    /// Whether discrete states take the heat bath ([`VectorSweeps::heat_bath`]).
    heat_bath: bool,
}

impl VectorDivision {
    fn temperatures(&self) -> usize {
        self.systems.betas.len()
    }

    /// Rank `share`'s part of a tempering exchange: its systems' `partners`, renumbered into its
    /// slice (a pair never leaves its sample, so never its rank).
    fn local_partners(&self, partners: &[u32], share: Share) -> Result<Vec<u32>> {
        let (samples, replicas) = (self.systems.samples, self.systems.replicas);
        let local = |b: u32| {
            let (t, s, r) = (
                b / (samples * replicas),
                b / replicas % samples,
                b % replicas,
            );
            let inside = (share.first..share.first + share.count).contains(&s);
            inside.then(|| (t * share.count + s - share.first) * replicas + r)
        };
        let temperatures = self.temperatures();
        let part = slice_samples(partners, share, samples, temperatures, replicas as usize);
        (part.into_iter())
            .map(|p| {
                local(p).ok_or_else(|| {
                    Error::State(format!(
                        "a tempering pair joins system {p} to samples {}..{} of another rank",
                        share.first,
                        share.first + share.count
                    ))
                })
            })
            .collect()
    }

    /// The run's shape, whose slices of population annealing's copy maps and resampling
    /// tables are the Ising runs'.
    fn shape(&self) -> RunShape {
        RunShape::of_index(&self.systems, self.systems.lattice)
    }

    /// Words of one temperature and sample of the lattices: every replica's components.
    fn sample_words(&self) -> usize {
        let s = &self.systems;
        (s.replicas * s.components) as usize * s.lattice.sites() as usize
    }
}

impl Division for VectorDivision {
    fn shares(&self) -> &[Share] {
        &self.shares
    }

    fn unit(&self) -> &'static str {
        "samples"
    }

    fn slice_spins(&self, spins: &Lattices) -> Result<Vec<Lattices>> {
        let spins = spins.vector()?;
        check_spin_words(&self.systems, spins.len())?;
        let (samples, temperatures) = (self.systems.samples, self.temperatures());
        Ok((self.shares.iter())
            .map(|&share| {
                slice_samples(spins, share, samples, temperatures, self.sample_words()).into()
            })
            .collect())
    }

    fn merge_spins(&self, parts: Vec<Lattices>) -> Result<Lattices> {
        let parts: Vec<Vec<i32>> = (parts.into_iter())
            .map(Lattices::into_vector)
            .collect::<Result<_>>()?;
        let words = self.sample_words();
        let whole = merge_samples(&parts, &self.shares, self.temperatures(), words)?;
        Ok(Lattices::Vector(whole))
    }

    /// Each field's arrays are `[slot][t][local sample][inner]` (the accepted moves and the
    /// replica moves' record `[t][local sample][replica]`); a field empty on every rank (no
    /// overlaps measured, no replica moves, unit vectors' state sums, no cluster step) stays
    /// empty.
    fn merge_measurements(
        &self,
        mut parts: Vec<Measurements>,
        slots: usize,
    ) -> Result<Measurements> {
        let (temperatures, replicas) = (self.temperatures(), self.systems.replicas as usize);
        let pairs = self.systems.overlap_pairs() as usize;
        let (sums, pair_sums) = (state_words(&self.systems), pair_state_words(&self.systems));
        let outer = slots * temperatures;
        Ok(Measurements {
            vector_observations: merge_all(
                &mut parts,
                |p| &mut p.vector_observations,
                &self.shares,
                (outer, replicas),
            )?,
            vector_overlaps: merge_all(
                &mut parts,
                |p| &mut p.vector_overlaps,
                &self.shares,
                (outer, pairs),
            )?,
            vector_states: merge_all(
                &mut parts,
                |p| &mut p.vector_states,
                &self.shares,
                (outer, replicas * sums),
            )?,
            vector_pair_states: merge_all(
                &mut parts,
                |p| &mut p.vector_pair_states,
                &self.shares,
                (outer, pairs * pair_sums),
            )?,
            accepted: merge_all(
                &mut parts,
                |p| &mut p.accepted,
                &self.shares,
                (temperatures, replicas),
            )?,
            replica_moves: merge_all(
                &mut parts,
                |p| &mut p.replica_moves,
                &self.shares,
                (temperatures, replicas),
            )?,
            cluster_sizes: merge_all(
                &mut parts,
                |p| &mut p.cluster_sizes,
                &self.shares,
                (outer, replicas),
            )?,
            copies: merge_all(
                &mut parts,
                |p| &mut p.copies,
                &self.shares,
                (temperatures, replicas),
            )?,
            ..Measurements::default()
        })
    }

    fn divide(&self, command: Command) -> Result<Vec<Command>> {
        Ok(match command {
            Command::SetWidths(widths) => {
                check_widths(&self.systems, self.heat_bath, &widths)?;
                everywhere(self, Command::SetWidths(widths))
            }
            Command::Exchange(partners) => {
                check_partners(&self.systems, &partners)?;
                (self.shares.iter())
                    .map(|&share| self.local_partners(&partners, share).map(Command::Exchange))
                    .collect::<Result<_>>()?
            }
            Command::CopySystems(sources) => {
                check_copy_map(&self.systems, &sources)?;
                (self.shares.iter())
                    .map(|&share| self.shape().slice_copy_map(&sources, share))
                    .map(|part| part.map(Command::CopySystems))
                    .collect::<Result<_>>()?
            }
            Command::SetResampling(table) => {
                table.check(self.systems.systems())?;
                (self.shares.iter())
                    .map(|&share| {
                        Command::SetResampling(self.shape().slice_resampling(&table, share))
                    })
                    .collect()
            }
            command => everywhere(self, command),
        })
    }
}

/// A serving rank's engine of `systems`, its sample slice, under `config` (RON).
pub(super) fn open_vector_share(
    config: &str,
    systems: VectorSystems,
    updates: VectorSweeps,
) -> Result<Box<dyn Engine>> {
    let config = Config::from_ron_str(config)?;
    open_local_vector_engine(&config, systems, updates)
}

/// `field` of every rank's `parts`, taken out of them, merged by sample ([`merge_samples`] with
/// `(outer, inner)`); empty where every rank's is.
fn merge_all<T: Copy>(
    parts: &mut [Measurements],
    field: impl Fn(&mut Measurements) -> &mut Vec<T>,
    shares: &[Share],
    (outer, inner): (usize, usize),
) -> Result<Vec<T>> {
    let fields: Vec<Vec<T>> = parts.iter_mut().map(|p| std::mem::take(field(p))).collect();
    match fields.iter().all(Vec::is_empty) {
        true => Ok(Vec::new()),
        false => merge_samples(&fields, shares, outer, inner),
    }
}
