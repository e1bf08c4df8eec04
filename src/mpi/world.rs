//! The MPI side of [`crate::mpi`]: starting MPI and checking that every rank runs the same
//! command ([`Session`]), rank 0's [`RankedEngine`] (and, in `mpi/vector.rs`, its vector-spin
//! twin; both call the other ranks through `mpi/followers.rs`), and the other ranks' [`follow`]
//! loop.
//!
//! Only the main thread calls MPI (`Threading::Funneled`). Rank 0 talks to each other rank
//! point to point: it sends a command to every rank, runs its own share, then collects every
//! answer in rank order, so all ranks work at once and the messages of one call never overtake
//! each other. A rank whose engine fails answers with the error, which rank 0 reports naming the
//! rank; a rank that dies takes the job down through `mpirun`, and rank 0's checkpoints, written
//! atomically, keep the last good state.

use ::mpi::Tag;
use ::mpi::collective::SystemOperation;
use ::mpi::point_to_point::send_receive_into_with_tags;
use ::mpi::topology::{Communicator, SimpleCommunicator};
use ::mpi::traits::*;

use super::followers::{Followers, answers, ranked_info, receive_bytes, send_bytes};
use super::vector::open_vector_share;
use super::wire::{Command, Reply, encode_reply};
use super::{RunShape, Split, split};
use crate::config::Config;
use crate::engine::annealing::ResamplingTable;
use crate::engine::open::open_local_engine;
use crate::engine::open::open_slab_engine;
use crate::engine::placement::{Placement, placement, settle};
use crate::engine::{
    Betas, Engine, EngineInfo, Halo, Lattices, Measurements, Plan, Populations, ProcessRing,
    SpinBits, Tempering, exchanges_of, populations_of, proposals_of, tempering::Chains,
    tempering_of, tempering_state_of,
};
use crate::error::{Error, Result};
use crate::io::checkpoint::fingerprint;
use crate::model::ising::IsingSystems;

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
    let world = SimpleCommunicator::world();
    let root = world.process_at_rank(0);
    let mut engine: Option<Box<dyn Engine>> = None;
    loop {
        let command = match Command::decode(&receive_bytes(&root)) {
            Ok(command) => command,
            Err(error) => {
                eprintln!("spinflip: rank {}: error: {error}", placement.rank);
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
                .and_then(|config| open_share(&config, &systems, betas, &split, placement))
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
                Some(engine) => serve(engine.as_mut(), command),
                None => Err(Error::State(
                    "an engine call before an engine was opened".into(),
                )),
            },
        };
        send_bytes(&root, &encode_reply(&reply));
    }
}

/// This rank's engine of the whole run's `systems` under `config`: its samples, or its slab
/// with halos traded over MPI.
fn open_share(
    config: &Config,
    systems: &IsingSystems,
    betas: Betas,
    split: &Split,
    placement: Placement,
) -> Result<Box<dyn Engine>> {
    let share = split.shares()[placement.rank as usize];
    match split {
        Split::Samples(_) => open_local_engine(
            config,
            systems.sample_slice(share.first, share.count),
            betas,
        ),
        Split::Slabs(_) => open_slab_engine(
            config,
            systems.plane_slab(share.first, share.count),
            betas,
            Box::new(MpiHalo { placement }),
        ),
    }
}

/// A slab's halos over MPI: the slab below is rank `k - 1`, the one above rank `k + 1`,
/// periodic over the ranks (as the planes are over the lattice).
struct MpiHalo {
    placement: Placement,
}

/// The tags of a slab's planes on their way down (its first plane) and up (its last).
const DOWN: Tag = 1;
const UP: Tag = 2;

impl Halo for MpiHalo {
    fn exchange(
        &mut self,
        _colour: u32,
        lower: Vec<u32>,
        upper: Vec<u32>,
    ) -> Result<[Vec<u32>; 2]> {
        let world = SimpleCommunicator::world();
        let Placement { rank, size, .. } = self.placement;
        let below = world.process_at_rank(((rank + size - 1) % size) as i32);
        let above = world.process_at_rank(((rank + 1) % size) as i32);
        // Each slab's planes are as long as its neighbours' (the same systems and plane).
        let mut from_above = vec![0u32; lower.len()];
        let mut from_below = vec![0u32; upper.len()];
        send_receive_into_with_tags(&lower[..], &below, DOWN, &mut from_above[..], &above, DOWN);
        send_receive_into_with_tags(&upper[..], &above, UP, &mut from_below[..], &below, UP);
        Ok([from_below, from_above])
    }

    fn ring(&mut self) -> Option<&mut dyn ProcessRing> {
        Some(self)
    }
}

/// The ranks of the job are the ring of slabs, in rank order.
impl ProcessRing for MpiHalo {
    fn position(&self) -> (u32, u32) {
        (self.placement.rank, self.placement.size)
    }

    fn all(&mut self, ok: bool) -> Result<bool> {
        let mut everywhere = 0u8;
        SimpleCommunicator::world().all_reduce_into(
            &u8::from(ok),
            &mut everywhere,
            SystemOperation::min(),
        );
        Ok(everywhere == 1)
    }

    fn broadcast(&mut self, token: &mut [u8]) -> Result<()> {
        SimpleCommunicator::world()
            .process_at_rank(0)
            .broadcast_into(token);
        Ok(())
    }
}

/// One engine call on this rank's engine.
fn serve(engine: &mut dyn Engine, command: Command) -> Result<Reply> {
    Ok(match command {
        Command::HotStart => {
            engine.hot_start()?;
            Reply::Done
        }
        Command::SetSpins(spins) => {
            engine.set_spins(&spins)?;
            Reply::Done
        }
        Command::Spins => Reply::Spins(engine.spins()?),
        Command::Execute(plan) => Reply::Measurements(Box::new(engine.execute(&plan)?)),
        Command::SetTempering(state) => {
            tempering_of(engine)?.set_tempering(&state)?;
            Reply::Done
        }
        Command::Tempering => Reply::Tempering(tempering_state_of(engine)?),
        Command::SetBetas(betas) => {
            populations_of(engine)?.set_betas(&betas)?;
            Reply::Done
        }
        Command::CopySystems(sources) => {
            populations_of(engine)?.copy_systems(&sources)?;
            Reply::Done
        }
        Command::SetResampling(table) => {
            populations_of(engine)?.set_resampling(&table)?;
            Reply::Done
        }
        Command::SetWidths(widths) => {
            proposals_of(engine)?.set_widths(&widths)?;
            Reply::Done
        }
        Command::Exchange(partners) => {
            exchanges_of(engine)?.exchange(&partners)?;
            Reply::Done
        }
        Command::CountPopulations { slots, sizes } => {
            Reply::Counting(populations_of(engine)?.count_populations(slots, &sizes)?)
        }
        Command::Open { .. } | Command::OpenVector { .. } | Command::Close | Command::Finish(_) => {
            unreachable!("handled by follow")
        }
    })
}

/// Rank 0's engine over every rank: its own engine holds the first share of the run (samples
/// or a slab), the other ranks' the rest; every call goes to all of them and their answers are
/// merged into the whole run's.
pub struct RankedEngine {
    local: Box<dyn Engine>,
    systems: IsingSystems,
    shape: RunShape,
    split: Split,
    followers: Followers,
}

impl RankedEngine {
    /// Open the engine of `systems` (the whole run's) under `config` on every rank.
    pub fn open(config: &Config, systems: IsingSystems, betas: Betas) -> Result<Box<dyn Engine>> {
        let placement = placement().expect("a ranked engine runs on rank 0 of several");
        let (config, _) = config.resolve_engine()?;
        let split = split(&config, &systems, betas, placement.size)?;
        let followers = Followers::of(placement);
        let local = followers.open(
            |_| Command::Open {
                config: config.to_ron_string(),
                systems: systems.clone(),
                betas,
                split: split.clone(),
            },
            || open_share(&config, &systems, betas, &split, placement),
        )?;
        Ok(Box::new(RankedEngine {
            local,
            shape: RunShape::of(&systems),
            systems,
            split,
            followers,
        }))
    }

    /// Send `command(k)` to every other rank `k`, run `local` on this rank's engine, then
    /// collect every answer: `local`'s result and the others' replies in rank order.
    fn call<R>(
        &mut self,
        command: impl Fn(usize) -> Command,
        local: impl FnOnce(&mut dyn Engine) -> Result<R>,
    ) -> Result<(R, Vec<Reply>)> {
        let engine = self.local.as_mut();
        self.followers.call(command, || local(engine))
    }

    /// [`RankedEngine::call`] of a command with nothing to return.
    fn call_all(
        &mut self,
        command: impl Fn(usize) -> Command,
        local: impl FnOnce(&mut dyn Engine) -> Result<()>,
    ) -> Result<()> {
        self.call(command, local).map(|_| ())
    }

    /// Per-system data (`[outer][sample][inner]`) of each rank's samples; `None` for slabs,
    /// which hold every system.
    fn per_rank<T: Copy>(&self, whole: &[T], outer: usize, inner: usize) -> Option<Vec<Vec<T>>> {
        match &self.split {
            Split::Samples(shares) => Some(
                shares
                    .iter()
                    .map(|&share| {
                        super::slice_samples(whole, share, self.systems.samples, outer, inner)
                    })
                    .collect(),
            ),
            Split::Slabs(_) => None,
        }
    }

    /// Words of one sample in each section of a tempering state: a walker per replica and
    /// temperature.
    fn walkers(&self) -> usize {
        self.systems.replicas as usize * Chains::of(&self.systems).temperatures as usize
    }
}

impl Engine for RankedEngine {
    fn info(&self) -> EngineInfo {
        let split = match self.split {
            Split::Samples(_) => "samples",
            Split::Slabs(_) => "slabs",
        };
        ranked_info(self.local.info(), self.split.shares().len(), split)
    }

    /// The local engine's: every rank runs the same plans on its share, each as large as this
    /// rank's (an engine of a larger share refuses a plan beyond its limit, saying so).
    fn max_plan_slots(&self) -> u64 {
        self.local.max_plan_slots()
    }

    fn set_spins(&mut self, spins: &Lattices) -> Result<()> {
        let spins = spins.bits()?;
        spins.check_fits(&self.systems)?;
        let parts: Vec<Lattices> = match &self.split {
            Split::Samples(shares) => shares
                .iter()
                .map(|&share| self.shape.slice_spins(spins, share).into())
                .collect(),
            Split::Slabs(shares) => shares
                .iter()
                .map(|&share| self.shape.slab_of(spins, share).into())
                .collect(),
        };
        self.call_all(
            |k| Command::SetSpins(parts[k].clone()),
            |engine| engine.set_spins(&parts[0]),
        )
    }

    fn spins(&mut self) -> Result<Lattices> {
        let (mine, replies) = self.call(|_| Command::Spins, |engine| engine.spins())?;
        let parts = answers(mine, replies, |reply| match reply {
            Reply::Spins(spins) => Ok(spins),
            other => Err(other),
        })?;
        let parts: Vec<SpinBits> = (parts.into_iter())
            .map(Lattices::into_bits)
            .collect::<Result<_>>()?;
        Ok(match &self.split {
            Split::Samples(shares) => self.shape.merge_spins(&parts, shares)?,
            Split::Slabs(shares) => self.shape.merge_slabs(&parts, shares)?,
        }
        .into())
    }

    fn hot_start(&mut self) -> Result<()> {
        self.call_all(|_| Command::HotStart, |engine| engine.hot_start())
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
        match &self.split {
            Split::Samples(shares) => {
                self.shape
                    .merge_measurements(parts, shares, plan.slots as usize)
            }
            Split::Slabs(_) => RunShape::sum_measurements(parts),
        }
    }

    /// Itself where the local engine has parallel tempering: it sends the calls to every rank.
    fn tempering(&mut self) -> Option<&mut dyn Tempering> {
        match self.local.tempering() {
            Some(_) => Some(self),
            None => None,
        }
    }

    /// Itself where the local engine has population annealing: it sends the calls to every
    /// rank.
    fn populations(&mut self) -> Option<&mut dyn Populations> {
        match self.local.populations() {
            Some(_) => Some(self),
            None => None,
        }
    }
}

impl Tempering for RankedEngine {
    fn set_tempering(&mut self, state: &[u32]) -> Result<()> {
        crate::engine::check_tempering_state(&self.systems, state)?;
        let Some(parts) = self.per_rank(state, 4, self.walkers()) else {
            return Err(slabs_refuse("parallel tempering"));
        };
        self.call_all(
            |k| Command::SetTempering(parts[k].clone()),
            |engine| tempering_of(engine)?.set_tempering(&parts[0]),
        )
    }

    fn tempering_state(&mut self) -> Result<Vec<u32>> {
        let (mine, replies) = self.call(|_| Command::Tempering, tempering_state_of)?;
        if mine.is_empty() {
            return Ok(mine);
        }
        let parts = answers(mine, replies, |reply| match reply {
            Reply::Tempering(state) => Ok(state),
            other => Err(other),
        })?;
        super::merge_samples(&parts, self.split.shares(), 4, self.walkers())
    }
}

impl Populations for RankedEngine {
    fn set_betas(&mut self, betas: &[f64]) -> Result<()> {
        self.call_all(
            |_| Command::SetBetas(betas.to_vec()),
            |engine| populations_of(engine)?.set_betas(betas),
        )
    }

    fn copy_systems(&mut self, sources: &[u32]) -> Result<()> {
        crate::engine::check_copy_map(&self.systems, sources)?;
        let Split::Samples(shares) = &self.split else {
            return Err(slabs_refuse("population annealing"));
        };
        let parts = shares
            .iter()
            .map(|&share| self.shape.slice_copy_map(sources, share))
            .collect::<Result<Vec<_>>>()?;
        self.call_all(
            |k| Command::CopySystems(parts[k].clone()),
            |engine| populations_of(engine)?.copy_systems(&parts[0]),
        )
    }

    fn set_resampling(&mut self, table: &ResamplingTable) -> Result<()> {
        table.check(self.systems.systems())?;
        let Split::Samples(shares) = &self.split else {
            return Err(slabs_refuse("population annealing"));
        };
        let parts: Vec<ResamplingTable> = shares
            .iter()
            .map(|&share| self.shape.slice_resampling(table, share))
            .collect();
        self.call_all(
            |k| Command::SetResampling(parts[k].clone()),
            |engine| populations_of(engine)?.set_resampling(&parts[0]),
        )
    }

    /// Histograms where every rank's engine counts them (the ranks' blocks, merged like
    /// systems in [`RunShape::merge_measurements`]); a job whose engines differ is refused.
    fn count_populations(&mut self, slots: u32, sizes: &[u32]) -> Result<bool> {
        let outer = self.shape.temperatures;
        // A sample's populations (its runs) are consecutive blocks.
        let runs = sizes.len() / (outer * self.systems.samples as usize).max(1);
        let parts = self
            .per_rank(sizes, outer, runs)
            .ok_or_else(|| slabs_refuse("population annealing"))?;
        let (mine, replies) = self.call(
            |k| Command::CountPopulations {
                slots,
                sizes: parts[k].clone(),
            },
            |engine| populations_of(engine)?.count_populations(slots, &parts[0]),
        )?;
        let counting = answers(mine, replies, |reply| match reply {
            Reply::Counting(counting) => Ok(counting),
            other => Err(other),
        })?;
        match counting.iter().all(|&c| c == counting[0]) {
            true => Ok(counting[0]),
            false => Err(Error::State(
                "the ranks' engines differ in counting populations as histograms".into(),
            )),
        }
    }
}

/// Why a run split into slabs does not take `what` (its split refuses such runs up front).
fn slabs_refuse(what: &str) -> Error {
    Error::State(format!(
        "{what} splits over ranks by sample, not into slabs of one lattice"
    ))
}

impl Drop for RankedEngine {
    fn drop(&mut self) {
        self.followers.send(|_| Command::Close);
    }
}
