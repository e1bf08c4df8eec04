//! Rank 0's [`RankedEngine`], one for every model: its own engine holds the first share of the
//! run, the other ranks' engines the rest; every call goes to all of them (through
//! `Followers`) and their answers are merged into the whole run's. What is the model's (how
//! its run splits, how a call's per-system arguments and the answers' arrays are sliced and
//! merged) is its `Division`: `mpi/ising.rs` for Ising spins, `mpi/vector.rs` for vector spins.

use super::Share;
use super::followers::{Followers, answers, ranked_info};
use super::serve::serve;
use super::wire::{Command, Reply};
use crate::engine::annealing::ResamplingTable;
use crate::engine::placement::Placement;
use crate::engine::{
    Engine, EngineInfo, Exchanges, Lattices, Measurements, Plan, Populations, Proposals, Tempering,
};
use crate::error::{Error, Result};

/// A model's part of a [`RankedEngine`]: its run's split over the ranks, and the slicing and
/// merging of the whole run's per-system arrays.
pub(super) trait Division {
    /// Each rank's share of the run, rank 0's first.
    fn shares(&self) -> &[Share];

    /// What the run is split by (`samples`, `slabs`), as [`EngineInfo`] tells it.
    fn unit(&self) -> &'static str;

    /// Each rank's lattices of the whole run's `spins`, checked against the run first.
    fn slice_spins(&self, spins: &Lattices) -> Result<Vec<Lattices>>;

    /// The whole run's lattices from each rank's.
    fn merge_spins(&self, parts: Vec<Lattices>) -> Result<Lattices>;

    /// The whole run's measurements of a plan filling `slots` slots from each rank's.
    fn merge_measurements(&self, parts: Vec<Measurements>, slots: usize) -> Result<Measurements>;

    /// Each rank's command for a capability's call `command` on the whole run's systems: its
    /// part of the arguments that are per system, checked against the run first; the same
    /// command for every rank where they are not.
    fn divide(&self, command: Command) -> Result<Vec<Command>>;
}

/// `command` for every one of the ranks of `division`.
pub(super) fn everywhere(division: &dyn Division, command: Command) -> Vec<Command> {
    vec![command; division.shares().len()]
}

/// Rank 0's engine over every rank (see the module's description).
pub struct RankedEngine {
    local: Box<dyn Engine>,
    division: Box<dyn Division>,
    followers: Followers,
}

impl RankedEngine {
    /// Open the engines of `division`'s shares on the ranks of the job `placement` tells:
    /// `open(k)` on every other rank `k`, `local` (the first share's) on this one.
    pub(super) fn open(
        placement: Placement,
        division: impl Division + 'static,
        open: impl Fn(usize) -> Command,
        local: impl FnOnce() -> Result<Box<dyn Engine>>,
    ) -> Result<Box<dyn Engine>> {
        let followers = Followers::of(placement);
        let local = followers.open(open, local)?;
        Ok(Box::new(RankedEngine {
            local,
            division: Box::new(division),
            followers,
        }))
    }

    /// `command(k)` on every other rank `k` and `mine` on this rank's engine; every rank's
    /// answer, this rank's first.
    fn forward(
        &mut self,
        command: impl Fn(usize) -> Command,
        mine: &Command,
    ) -> Result<Vec<Reply>> {
        let engine = self.local.as_mut();
        let (answer, mut replies) = self.followers.call(command, || serve(engine, mine))?;
        replies.insert(0, answer);
        Ok(replies)
    }

    /// `commands[k]` on every rank `k`.
    fn call(&mut self, commands: &[Command]) -> Result<Vec<Reply>> {
        self.forward(|k| commands[k].clone(), &commands[0])
    }

    /// The same `command` on every rank.
    fn call_all(&mut self, command: Command) -> Result<Vec<Reply>> {
        self.forward(|_| command.clone(), &command)
    }

    /// A capability's call `command` on the whole run's systems, on every rank.
    fn call_divided(&mut self, command: Command) -> Result<Vec<Reply>> {
        let commands = self.division.divide(command)?;
        self.call(&commands)
    }
}

impl Engine for RankedEngine {
    fn info(&self) -> EngineInfo {
        let division = self.division.as_ref();
        ranked_info(self.local.info(), division.shares().len(), division.unit())
    }

    /// The local engine's: every rank runs the same plans on its share, each as large as this
    /// rank's (an engine of a larger share refuses a plan beyond its limit, saying so).
    fn max_plan_slots(&self) -> u64 {
        self.local.max_plan_slots()
    }

    fn set_spins(&mut self, spins: &Lattices) -> Result<()> {
        let parts = self.division.slice_spins(spins)?;
        let commands: Vec<Command> = parts.into_iter().map(Command::SetSpins).collect();
        self.call(&commands).map(drop)
    }

    fn spins(&mut self) -> Result<Lattices> {
        let replies = self.call_all(Command::Spins)?;
        let parts = answers(replies, |reply| match reply {
            Reply::Spins(spins) => Ok(spins),
            other => Err(other),
        })?;
        self.division.merge_spins(parts)
    }

    fn hot_start(&mut self) -> Result<()> {
        self.call_all(Command::HotStart).map(drop)
    }

    /// Every rank's engine checks the plan (its pieces of sweeps among them) before it runs.
    fn execute(&mut self, plan: &Plan) -> Result<Measurements> {
        // Cluster runs are not split over ranks ([`crate::metropolis`] refuses them).
        plan.check_cluster_parts(false, 0)?;
        let replies = self.call_all(Command::Execute(plan.clone()))?;
        let parts = answers(replies, |reply| match reply {
            Reply::Measurements(measurements) => Ok(*measurements),
            other => Err(other),
        })?;
        self.division.merge_measurements(parts, plan.slots as usize)
    }

    /// The local engine's: every rank's engine is of its kind, and each runs the pieces of a
    /// sweep on its share (a slab updates the planes of the piece that it holds).
    fn sweep_parts(&self) -> bool {
        self.local.sweep_parts()
    }

    /// Itself where the local engine has parallel tempering: it sends the calls to every rank.
    fn tempering(&mut self) -> Option<&mut dyn Tempering> {
        self.local.tempering()?;
        Some(self)
    }

    /// Itself where the local engine has population annealing: it sends the calls to every
    /// rank.
    fn populations(&mut self) -> Option<&mut dyn Populations> {
        self.local.populations()?;
        Some(self)
    }

    /// Itself where the local engine takes proposal widths: it sends them to every rank.
    fn proposals(&mut self) -> Option<&mut dyn Proposals> {
        self.local.proposals()?;
        Some(self)
    }

    /// Itself where the local engine exchanges lattices: it sends each rank its pairs.
    fn exchanges(&mut self) -> Option<&mut dyn Exchanges> {
        self.local.exchanges()?;
        Some(self)
    }
}

impl Tempering for RankedEngine {
    fn set_tempering(&mut self, state: &[u32]) -> Result<()> {
        self.call_divided(Command::SetTempering(state.to_vec()))
            .map(drop)
    }

    /// Each rank's state is `[section][its samples][walkers]` (four sections, as many walkers
    /// for every sample: rank 0's tells how many); an engine without one answers nothing.
    fn tempering_state(&mut self) -> Result<Vec<u32>> {
        let replies = self.call_all(Command::Tempering)?;
        let parts = answers(replies, |reply| match reply {
            Reply::Tempering(state) => Ok(state),
            other => Err(other),
        })?;
        if parts[0].is_empty() {
            return Ok(Vec::new());
        }
        let shares = self.division.shares();
        let walkers = parts[0].len() / (4 * shares[0].count as usize);
        super::merge_samples(&parts, shares, 4, walkers)
    }
}

impl Populations for RankedEngine {
    fn set_betas(&mut self, betas: &[f64]) -> Result<()> {
        self.call_all(Command::SetBetas(betas.to_vec())).map(drop)
    }

    fn copy_systems(&mut self, sources: &[u32]) -> Result<()> {
        self.call_divided(Command::CopySystems(sources.to_vec()))
            .map(drop)
    }

    fn set_resampling(&mut self, table: &ResamplingTable) -> Result<()> {
        self.call_divided(Command::SetResampling(table.clone()))
            .map(drop)
    }

    /// Histograms where every rank's engine counts them; a job whose engines differ is refused.
    fn count_populations(&mut self, slots: u32, sizes: &[u32]) -> Result<bool> {
        let replies = self.call_divided(Command::CountPopulations {
            slots,
            sizes: sizes.to_vec(),
        })?;
        let counting = answers(replies, |reply| match reply {
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

impl Proposals for RankedEngine {
    fn set_widths(&mut self, widths: &[i32]) -> Result<()> {
        self.call_divided(Command::SetWidths(widths.to_vec()))
            .map(drop)
    }
}

impl Exchanges for RankedEngine {
    fn exchange(&mut self, partners: &[u32]) -> Result<()> {
        self.call_divided(Command::Exchange(partners.to_vec()))
            .map(drop)
    }
}

impl Drop for RankedEngine {
    fn drop(&mut self) {
        self.followers.send(|_| Command::Close);
    }
}
