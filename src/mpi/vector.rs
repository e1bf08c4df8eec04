//! Vector-spin runs over MPI ranks: rank 0's [`RankedVectorEngine`] and a serving rank's side of
//! it ([`open_vector_share`], [`serve_vector`]).
//!
//! The run splits by disorder sample ([`super::vector_split`]): rank `k` holds samples
//! `shares[k]` at every temperature and replica, an engine of
//! [`VectorSystems::sample_slice`] with those samples' couplings (sent by rank 0, which drew
//! them, so every rank uses the very couplings of `couplings.npy`), whose randoms are keyed by
//! the run's systems. Every per-system array of the engine (lattices, accepted moves,
//! observations, overlaps) is `[t][sample][...]`, so the ranks' arrays, concatenated sample
//! block by sample block ([`super::merge_samples`]), are the whole run's bit for bit.

use std::ops::Range;

use super::followers::{Followers, answers, ranked_info};
use super::wire::{Command, Reply, VectorCall};
use super::{Share, merge_samples, slice_samples, vector_split};
use crate::config::Config;
use crate::engine::EngineInfo;
use crate::engine::open::open_local_vector_engine;
use crate::engine::placement::placement;
use crate::engine::vector::{
    VectorEngine, VectorObservation, VectorOverlap, VectorSweeps, check_partners, check_spin_words,
};
use crate::error::{Error, Result};
use crate::model::vector::VectorSystems;

/// Rank 0's vector-spin engine over every rank: its own engine holds the first samples of the
/// run, the other ranks' the rest; every call goes to all of them and their answers are merged
/// into the whole run's.
pub struct RankedVectorEngine {
    local: Box<dyn VectorEngine>,
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
    ) -> Result<Box<dyn VectorEngine>> {
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

    /// `call(k)` on every other rank `k` and `local` on this rank's engine; `local`'s result
    /// and the others' replies in rank order.
    fn call<R>(
        &mut self,
        call: impl Fn(usize) -> VectorCall,
        local: impl FnOnce(&mut dyn VectorEngine) -> Result<R>,
    ) -> Result<(R, Vec<Reply>)> {
        let engine = self.local.as_mut();
        self.followers
            .call(|k| Command::Vector(call(k)), || local(engine))
    }

    /// `call` on every rank, whose answers (`local`'s here, the replies `of` takes elsewhere)
    /// are arrays `[t][local sample][inner]`: the whole run's `[t][sample][inner]`.
    fn gather<T: Copy>(
        &mut self,
        call: VectorCall,
        local: impl FnOnce(&mut dyn VectorEngine) -> Result<Vec<T>>,
        of: impl Fn(Reply) -> std::result::Result<Vec<T>, Reply>,
        inner: usize,
    ) -> Result<Vec<T>> {
        let (mine, replies) = self.call(|_| call.clone(), local)?;
        let parts = answers(mine, replies, of)?;
        merge_samples(&parts, &self.shares, self.temperatures(), inner)
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

impl VectorEngine for RankedVectorEngine {
    fn info(&self) -> EngineInfo {
        ranked_info(self.local.info(), self.shares.len(), "samples")
    }

    fn hot_start(&mut self) -> Result<()> {
        self.call(|_| VectorCall::HotStart, |engine| engine.hot_start())
            .map(drop)
    }

    fn set_spins(&mut self, spins: &[i32]) -> Result<()> {
        check_spin_words(&self.systems, spins.len())?;
        let (samples, temperatures) = (self.systems.samples, self.temperatures());
        let parts: Vec<Vec<i32>> = self
            .shares
            .iter()
            .map(|&share| slice_samples(spins, share, samples, temperatures, self.sample_words()))
            .collect();
        self.call(
            |k| VectorCall::SetSpins(parts[k].clone()),
            |engine| engine.set_spins(&parts[0]),
        )
        .map(drop)
    }

    fn spins(&mut self) -> Result<Vec<i32>> {
        let of = |reply| match reply {
            Reply::VectorSpins(spins) => Ok(spins),
            other => Err(other),
        };
        let words = self.sample_words();
        self.gather(VectorCall::Spins, |engine| engine.spins(), of, words)
    }

    fn sweeps(&mut self, sweeps: Range<u32>, widths: &[i32]) -> Result<Vec<u64>> {
        let call = VectorCall::Sweeps {
            sweeps: sweeps.clone(),
            widths: widths.to_vec(),
        };
        let of = |reply| match reply {
            Reply::Accepted(accepted) => Ok(accepted),
            other => Err(other),
        };
        let replicas = self.systems.replicas as usize;
        self.gather(call, |engine| engine.sweeps(sweeps, widths), of, replicas)
    }

    fn observe(&mut self) -> Result<Vec<VectorObservation>> {
        let of = |reply| match reply {
            Reply::Observations(observations) => Ok(observations),
            other => Err(other),
        };
        let replicas = self.systems.replicas as usize;
        self.gather(VectorCall::Observe, |engine| engine.observe(), of, replicas)
    }

    fn overlaps(&mut self) -> Result<Vec<VectorOverlap>> {
        let of = |reply| match reply {
            Reply::Overlaps(overlaps) => Ok(overlaps),
            other => Err(other),
        };
        let pairs = self.systems.overlap_pairs() as usize;
        self.gather(VectorCall::Overlaps, |engine| engine.overlaps(), of, pairs)
    }

    fn exchange(&mut self, partners: &[u32]) -> Result<()> {
        check_partners(&self.systems, partners)?;
        let parts: Vec<Vec<u32>> = (self.shares.iter())
            .map(|&share| self.local_partners(partners, share))
            .collect::<Result<_>>()?;
        self.call(
            |k| VectorCall::Exchange(parts[k].clone()),
            |engine| engine.exchange(&parts[0]),
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
) -> Result<Box<dyn VectorEngine>> {
    let config = Config::from_ron_str(config)?;
    open_local_vector_engine(&config, systems, updates)
}

/// One vector-spin engine call on a serving rank's engine.
pub(super) fn serve_vector(engine: &mut dyn VectorEngine, call: VectorCall) -> Result<Reply> {
    Ok(match call {
        VectorCall::HotStart => {
            engine.hot_start()?;
            Reply::Done
        }
        VectorCall::SetSpins(spins) => {
            engine.set_spins(&spins)?;
            Reply::Done
        }
        VectorCall::Spins => Reply::VectorSpins(engine.spins()?),
        VectorCall::Sweeps { sweeps, widths } => Reply::Accepted(engine.sweeps(sweeps, &widths)?),
        VectorCall::Observe => Reply::Observations(engine.observe()?),
        VectorCall::Overlaps => Reply::Overlaps(engine.overlaps()?),
        VectorCall::Exchange(partners) => {
            engine.exchange(&partners)?;
            Reply::Done
        }
    })
}
