//! The MPI side of [`crate::mpi`]: starting MPI and checking that every rank runs the same
//! command ([`Session`]), and the other ranks' [`follow`] loop, which serves the calls of rank
//! 0's `RankedEngine` (`mpi/ranked.rs`, calling the other ranks through `mpi/followers.rs`).
//!
//! Only the main thread calls MPI (`Threading::Funneled`). Rank 0 talks to each other rank
//! point to point: it sends a command to every rank, runs its own share, then collects every
//! answer in rank order, so all ranks work at once and the messages of one call never overtake
//! each other. A rank whose engine fails answers with the error, which rank 0 reports naming the
//! rank; a rank that dies takes the job down through `mpirun`, and rank 0's checkpoints, written
//! atomically, keep the last good state.

use ::mpi::topology::{Communicator, SimpleCommunicator};
use ::mpi::traits::*;

use super::followers::{receive_bytes, send_bytes};
use super::ising::open_ising_share;
use super::serve::serve;
use super::vector::open_vector_share;
use super::wire::{Command, Reply, encode_reply};
use crate::config::Config;
use crate::console::note;
use crate::engine::Engine;
use crate::engine::placement::{Placement, settle};
use crate::error::{Error, Result};
use crate::io::checkpoint::fingerprint;

/// MPI for the life of the process.
pub struct Session {
    _universe: ::mpi::environment::Universe,
    pub placement: Placement,
}

impl Session {
    /// Start MPI. `None` where the process runs alone (no `mpirun`, or `-np 1`): it then runs
    /// exactly as a build without the feature. With several ranks, checks that all run the same
    /// command line and config files (`identity`) before anything else.
    pub fn start() -> Result<Option<Session>> {
        let Some((universe, _)) = ::mpi::initialize_with_threading(::mpi::Threading::Funneled)
        else {
            return Err(Error::Usage("MPI was initialised twice".into()));
        };
        let world = universe.world();
        let size = world.size() as u32;
        if size == 1 {
            return Ok(None);
        }
        let placement = Placement {
            rank: world.rank() as u32,
            size,
            local_rank: world.split_shared(world.rank()).rank() as u32,
        };
        settle(placement);
        let session = Session {
            _universe: universe,
            placement,
        };
        session.check_same_command(&identity())?;
        Ok(Some(session))
    }

    /// Every rank must run rank 0's command on the same config: rank 0 compares the others'
    /// `identity` with its own and tells each whether to go on.
    fn check_same_command(&self, identity: &str) -> Result<()> {
        let world = SimpleCommunicator::world();
        let root = world.process_at_rank(0);
        if self.placement.rank != 0 {
            send_bytes(&root, identity.as_bytes());
            let (verdict, _) = root.receive::<u8>();
            return match verdict {
                1 => Ok(()),
                _ => Err(Error::Rank {
                    rank: 0,
                    message: "the ranks do not run the same command or config (see rank 0)".into(),
                }),
            };
        }
        let mut differing = Vec::new();
        for k in 1..self.placement.size {
            let theirs = receive_bytes(&world.process_at_rank(k as i32));
            if theirs != identity.as_bytes() {
                differing.push(format!(
                    "rank {k}: {}",
                    String::from_utf8_lossy(&theirs).replace('\0', " ")
                ));
            }
        }
        for k in 1..self.placement.size {
            world
                .process_at_rank(k as i32)
                .send(&u8::from(differing.is_empty()));
        }
        match differing.is_empty() {
            true => Ok(()),
            false => Err(Error::Rank {
                rank: 0,
                message: format!(
                    "every rank must run the same command on the same config files; rank 0 \
                     runs: {}; but {}",
                    identity.replace('\0', " "),
                    differing.join("; ")
                ),
            }),
        }
    }

    /// Rank 0's end of the run: tell the other ranks to exit with `status`.
    pub fn finish(&self, status: u8) {
        let world = SimpleCommunicator::world();
        for k in 1..self.placement.size {
            send_bytes(
                &world.process_at_rank(k as i32),
                &Command::Finish(status).encode(),
            );
        }
    }
}

/// The command line with, for each argument naming a readable file, the fingerprint of its
/// contents (a config file that differs between nodes shows up here).
fn identity() -> String {
    std::env::args()
        .skip(1)
        .map(|arg| match std::fs::read_to_string(&arg) {
            Ok(text) => format!("{arg} (contents {:016x})", fingerprint(&text)),
            Err(_) => arg,
        })
        .collect::<Vec<_>>()
        .join("\0")
}

/// A rank other than 0: replay rank 0's engine calls on engines of this rank's share until
/// rank 0 finishes; the exit status it sends.
pub fn follow(placement: Placement) -> u8 {
    crate::stop::leave_acknowledgements_to_rank_0();
    let world = SimpleCommunicator::world();
    let root = world.process_at_rank(0);
    let mut engine: Option<Box<dyn Engine>> = None;
    loop {
        let command = match Command::decode(&receive_bytes(&root)) {
            Ok(command) => command,
            Err(error) => {
                note!("spinflip: rank {}: error: {error}", placement.rank);
                world.abort(2);
            }
        };
        let reply = match command {
            Command::Finish(status) => return status,
            Command::Close => {
                engine = None;
                continue;
            }
            Command::Open {
                config,
                systems,
                betas,
                split,
            } => Config::from_ron_str(&config)
                .map_err(Error::from)
                .and_then(|config| open_ising_share(&config, &systems, betas, &split, placement))
                .map(|e| {
                    engine = Some(e);
                    Reply::Done
                }),
            Command::OpenVector {
                config,
                systems,
                updates,
            } => open_vector_share(&config, systems, updates).map(|e| {
                engine = Some(e);
                Reply::Done
            }),
            command => match &mut engine {
                Some(engine) => serve(engine.as_mut(), &command),
                None => Err(Error::State(
                    "an engine call before an engine was opened".into(),
                )),
            },
        };
        send_bytes(&root, &encode_reply(&reply));
    }
}
