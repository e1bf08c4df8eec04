//! Vector-spin runs over MPI ranks: rank 0's [`RankedVectorEngine`] and the opening of a serving
//! rank's engine ([`open_vector_share`]), which then serves the Ising engines' calls
//! (`world::follow`): one wire vocabulary for every model.
//!
//! The run splits by disorder sample ([`super::vector_split`]): rank `k` holds samples
//! `shares[k]` at every temperature and replica, an engine of
//! [`VectorSystems::sample_slice`] with those samples' couplings (sent by rank 0, which drew
//! them, so every rank uses the very couplings of `couplings.npy`), whose randoms are keyed by
//! the run's systems. Every per-system array of the engine (lattices, accepted moves,
//! observations, overlaps) is `[t][sample][...]`, so the ranks' arrays, concatenated sample
//! block by sample block ([`super::merge_samples`]), are the whole run's bit for bit.

use super::followers::{Followers, answers, ranked_info};
use super::wire::{Command, Reply};
use super::{Share, merge_samples, slice_samples, vector_split};
use crate::config::Config;
use crate::engine::open::open_local_vector_engine;
use crate::engine::placement::placement;
use crate::engine::vector::{VectorSweeps, check_partners, check_spin_words, check_widths};
use crate::engine::{
    Engine, EngineInfo, Exchanges, Lattices, Measurements, Plan, Proposals, exchanges_of,
    proposals_of,
};
use crate::error::{Error, Result};
use crate::model::vector::VectorSystems;

/// Rank 0's vector-spin engine over every rank: its own engine holds the first samples of the
/// run, the other ranks' the rest; every call goes to all of them and their answers are merged
/// into the whole run's.
pub struct RankedVectorEngine {
    local: Box<dyn Engine>,
    /// The whole run's systems.
    systems: VectorSystems,
    shares: Vec<Share>,
    followers: Followers,
}

impl RankedVectorEngine {
    /// Open the engine of `systems` (the whole run's) under `config`, swept by `updates`, on
    /// every rank; refuses more ranks than samples.
    pub fn open(
        config: &Config,
        systems: VectorSystems,
        updates: VectorSweeps,
    ) -> Result<Box<dyn Engine>> {
        let placement = placement().expect("a ranked engine runs on rank 0 of several");
        let shares = vector_split(&config.model.name(), &systems, placement.size)?;
        let slice = |k: usize| systems.sample_slice(shares[k].first, shares[k].count);
        let text = config.to_ron_string();
        let followers = Followers::of(placement);
        let local = followers.open(
            |k| Command::OpenVector {
                config: text.clone(),
                systems: slice(k),
                updates,
            },
            || open_local_vector_engine(config, slice(0), updates),
        )?;
        Ok(Box::new(RankedVectorEngine {
            local,
            systems,
            shares,
            followers,
        }))
    }

    /// `command(k)` on every other rank `k` and `local` on this rank's engine; `local`'s
    /// result and the others' replies in rank order.
    fn call<R>(
        &mut self,
        command: impl Fn(usize) -> Command,
        local: impl FnOnce(&mut dyn Engine) -> Result<R>,
    ) -> Result<(R, Vec<Reply>)> {
        let engine = self.local.as_mut();
        self.followers.call(command, || local(engine))
    }

    /// The whole run's measurements of a plan filling `slots` slots from the ranks' `parts`,
    /// each field's arrays `[slot][t][local sample][inner]` (the accepted moves
    /// `[t][local sample][replica]`).
    fn merge_measurements(&self, parts: Vec<Measurements>, slots: usize) -> Result<Measurements> {
        let (temperatures, replicas) = (self.temperatures(), self.systems.replicas as usize);
        let pairs = self.systems.overlap_pairs() as usize;
        let (mut observations, mut overlaps, mut accepted) = (Vec::new(), Vec::new(), Vec::new());
        for part in parts {
            observations.push(part.vector_observations);
            overlaps.push(part.vector_overlaps);
            accepted.push(part.accepted);
        }
        let outer = slots * temperatures;
        Ok(Measurements {
            vector_observations: merge_samples(&observations, &self.shares, outer, replicas)?,
            vector_overlaps: merge_samples(&overlaps, &self.shares, outer, pairs)?,
            accepted: merge_samples(&accepted, &self.shares, temperatures, replicas)?,
            ..Measurements::default()
        })
    }

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

    /// Words of one temperature and sample of the lattices: every replica's components.
    fn sample_words(&self) -> usize {
        let s = &self.systems;
        (s.replicas * s.components) as usize * s.lattice.sites() as usize
    }
}

impl Engine for RankedVectorEngine {
    fn info(&self) -> EngineInfo {
        ranked_info(self.local.info(), self.shares.len(), "samples")
    }

    fn hot_start(&mut self) -> Result<()> {
        self.call(|_| Command::HotStart, |engine| engine.hot_start())
            .map(drop)
    }

    fn set_spins(&mut self, spins: &Lattices) -> Result<()> {
        let spins = spins.vector()?;
        check_spin_words(&self.systems, spins.len())?;
        let (samples, temperatures) = (self.systems.samples, self.temperatures());
        let parts: Vec<Lattices> = (self.shares.iter())
            .map(|&share| {
                slice_samples(spins, share, samples, temperatures, self.sample_words()).into()
            })
            .collect();
        self.call(
            |k| Command::SetSpins(parts[k].clone()),
            |engine| engine.set_spins(&parts[0]),
        )
        .map(drop)
    }

    fn spins(&mut self) -> Result<Lattices> {
        let (mine, replies) = self.call(|_| Command::Spins, |engine| engine.spins())?;
        let parts = answers(mine, replies, |reply| match reply {
            Reply::Spins(spins) => Ok(spins),
            other => Err(other),
        })?;
        let parts: Vec<Vec<i32>> = (parts.into_iter())
            .map(Lattices::into_vector)
            .collect::<Result<_>>()?;
        let words = self.sample_words();
        let whole = merge_samples(&parts, &self.shares, self.temperatures(), words)?;
        Ok(Lattices::Vector(whole))
    }

    fn execute(&mut self, plan: &Plan) -> Result<Measurements> {
        let (mine, replies) = self.call(
            |_| Command::Execute(plan.clone()),
            |engine| engine.execute(plan),
        )?;
        let parts = answers(mine, replies, |reply| match reply {
            Reply::Measurements(measurements) => Ok(*measurements),
            other => Err(other),
        })?;
        self.merge_measurements(parts, plan.slots as usize)
    }

    fn proposals(&mut self) -> Option<&mut dyn Proposals> {
        Some(self)
    }

    fn exchanges(&mut self) -> Option<&mut dyn Exchanges> {
        Some(self)
    }
}

impl Proposals for RankedVectorEngine {
    fn set_widths(&mut self, widths: &[i32]) -> Result<()> {
        check_widths(&self.systems, widths)?;
        self.call(
            |_| Command::SetWidths(widths.to_vec()),
            |engine| proposals_of(engine)?.set_widths(widths),
        )
        .map(drop)
    }
}

impl Exchanges for RankedVectorEngine {
    fn exchange(&mut self, partners: &[u32]) -> Result<()> {
        check_partners(&self.systems, partners)?;
        let parts: Vec<Vec<u32>> = (self.shares.iter())
            .map(|&share| self.local_partners(partners, share))
            .collect::<Result<_>>()?;
        self.call(
            |k| Command::Exchange(parts[k].clone()),
            |engine| exchanges_of(engine)?.exchange(&parts[0]),
        )
        .map(drop)
    }
}

impl Drop for RankedVectorEngine {
    fn drop(&mut self) {
        self.followers.send(|_| Command::Close);
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
