//! Rank 0's side of the calls over MPI: the other ranks as [`Followers`] (a command to each,
//! every answer collected in rank order), the bytes of one message on the wire, and what the
//! ranked engine (`ranked::RankedEngine`) makes of the answers.

use ::mpi::Tag;
use ::mpi::topology::{Communicator, Process, SimpleCommunicator};
use ::mpi::traits::*;

use super::wire::{Command, Reply, decode_reply};
use crate::engine::EngineInfo;
use crate::engine::placement::Placement;
use crate::error::{Error, Result};

/// Bytes per MPI message: counts are C ints, so large arrays go in pieces.
const PIECE: usize = 1 << 30;

/// The tag of engine calls and their answers; the halos of slabs travel under their own
/// (`world::MpiHalo`), so that neither is ever taken for the other.
pub(super) const CALLS: Tag = 0;

pub(super) fn send_bytes(to: &Process<'_>, bytes: &[u8]) {
    to.send_with_tag(&(bytes.len() as u64), CALLS);
    for piece in bytes.chunks(PIECE) {
        to.send_with_tag(piece, CALLS);
    }
}

pub(super) fn receive_bytes(from: &Process<'_>) -> Vec<u8> {
    let (len, _) = from.receive_with_tag::<u64>(CALLS);
    let mut bytes = Vec::with_capacity(len as usize);
    while (bytes.len() as u64) < len {
        let (piece, _) = from.receive_vec_with_tag::<u8>(CALLS);
        bytes.extend_from_slice(&piece);
    }
    bytes
}

/// The other ranks, seen from rank 0.
pub(super) struct Followers {
    world: SimpleCommunicator,
    ranks: usize,
}

impl Followers {
    /// The ranks other than this one (rank 0) of the job `placement` tells.
    pub(super) fn of(placement: Placement) -> Self {
        Followers {
            world: SimpleCommunicator::world(),
            ranks: placement.size as usize,
        }
    }

    fn each(&self) -> impl Iterator<Item = (usize, Process<'_>)> {
        (1..self.ranks).map(|k| (k, self.world.process_at_rank(k as i32)))
    }

    /// Send `command(k)` to every rank `k`.
    pub(super) fn send(&self, command: impl Fn(usize) -> Command) {
        for (k, rank) in self.each() {
            send_bytes(&rank, &command(k).encode());
        }
    }

    /// Send `command(k)` to every rank `k`, run `local` on this rank meanwhile, then collect
    /// every answer: `local`'s result and the others' replies in rank order.
    pub(super) fn call<R>(
        &self,
        command: impl Fn(usize) -> Command,
        local: impl FnOnce() -> Result<R>,
    ) -> Result<(R, Vec<Reply>)> {
        self.send(command);
        let mine = local();
        let replies = self.collect();
        Ok((mine?, replies?))
    }

    /// Open an engine on every rank: `command(k)` to rank `k`, `local` on this one. Where any
    /// fails, the ranks that did open drop their engines, and the first error returns.
    pub(super) fn open<E>(
        &self,
        command: impl Fn(usize) -> Command,
        local: impl FnOnce() -> Result<E>,
    ) -> Result<E> {
        self.call(command, local)
            .map(|(engine, _)| engine)
            .inspect_err(|_| self.send(|_| Command::Close))
    }

    /// Every rank's answer, in rank order (all of them, so that the next call starts in step),
    /// or the first error, naming its rank.
    fn collect(&self) -> Result<Vec<Reply>> {
        let mut replies = Vec::with_capacity(self.ranks - 1);
        let mut failure = None;
        for (k, rank) in self.each() {
            match decode_reply(&receive_bytes(&rank))? {
                Ok(reply) => replies.push(reply),
                Err(message) => {
                    failure.get_or_insert(Error::Rank {
                        rank: k as u32,
                        message,
                    });
                }
            }
        }
        match failure {
            Some(error) => Err(error),
            None => Ok(replies),
        }
    }
}

/// The answers of every rank, in rank order, as `T`s; `of` hands back a reply of another kind,
/// which is described only then (a measurement's `Debug` form is as large as the run).
pub(super) fn answers<T>(
    replies: Vec<Reply>,
    of: impl Fn(Reply) -> std::result::Result<T, Reply>,
) -> Result<Vec<T>> {
    (replies.into_iter())
        .map(|reply| {
            of(reply).map_err(|other| {
                Error::State(format!(
                    "an MPI rank answered with {other:?}: do all ranks run the same spinflip?"
                ))
            })
        })
        .collect()
}

/// What the engine of rank 0 runs on, `local` its own, in a job of `ranks` ranks split by
/// `split`.
pub(super) fn ranked_info(local: EngineInfo, ranks: usize, split: &str) -> EngineInfo {
    EngineInfo {
        adapter: format!("{} (rank 0 of {ranks}, split by {split})", local.adapter),
        ..local
    }
}
