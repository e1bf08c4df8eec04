//! Ising runs over MPI ranks: their [`Division`] of the [`RankedEngine`], by disorder sample or
//! into slabs of planes ([`Split`]), and its opening on rank 0 ([`open_ranked_ising`]) and on
//! the serving ranks ([`open_ising_share`]).

use super::halo::MpiHalo;
use super::ranked::{Division, RankedEngine, everywhere};
use super::wire::Command;
use super::{RunShape, Share, Split, split};
use crate::config::Config;
use crate::engine::memory::check_gathered;
use crate::engine::open::{open_local_engine, open_slab_engine};
use crate::engine::placement::{Placement, placement};
use crate::engine::tempering::Chains;
use crate::engine::{
    Betas, Engine, Lattices, Measurements, SpinBits, check_copy_map, check_tempering_state,
};
use crate::error::{Error, Result};
use crate::model::Lattice;
use crate::model::ising::IsingSystems;

/// Open the engine of `systems` (the whole run's) under `config` on every rank.
pub(super) fn open_ranked_ising(
    config: &Config,
    systems: IsingSystems,
    betas: Betas,
) -> Result<Box<dyn Engine>> {
    let placement = placement().expect("a ranked engine runs on rank 0 of several");
    let (config, _) = config.resolve_engine()?;
    let (lattice, count) = (systems.lattice, u64::from(systems.systems()));
    let what = format!("the {count} systems");
    check_gathered(&what, lattice, |size| {
        count * Lattice::new(lattice.dims, size).sites().div_ceil(8)
    })?;
    let split = split(&config, &systems, betas, placement.size)?;
    let text = config.to_ron_string();
    let open = |_| Command::Open {
        config: text.clone(),
        systems: systems.clone(),
        betas,
        split: split.clone(),
    };
    let local = || open_ising_share(&config, &systems, betas, &split, placement);
    let division = IsingDivision {
        shape: RunShape::of(&systems),
        systems: systems.clone(),
        split: split.clone(),
    };
    RankedEngine::open(placement, division, open, local)
}

/// A rank's engine of the whole run's `systems` under `config`: its samples, or its slab
/// with halos traded over MPI.
pub(super) fn open_ising_share(
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

/// The Ising spins' division: the whole run's systems and their split.
struct IsingDivision {
    systems: IsingSystems,
    shape: RunShape,
    split: Split,
}

impl IsingDivision {
    /// Per-system data (`[outer][sample][inner]`) of each rank's samples; `what` (parallel
    /// tempering, population annealing) refused for slabs, which hold every system (their split
    /// refuses such runs up front).
    fn per_rank<T: Copy>(
        &self,
        whole: &[T],
        outer: usize,
        inner: usize,
        what: &str,
    ) -> Result<Vec<Vec<T>>> {
        let shares = self.sample_shares(what)?;
        Ok(shares
            .iter()
            .map(|&share| super::slice_samples(whole, share, self.systems.samples, outer, inner))
            .collect())
    }

    /// The samples of each rank; `what` refused where the run is split into slabs.
    fn sample_shares(&self, what: &str) -> Result<&[Share]> {
        match &self.split {
            Split::Samples(shares) => Ok(shares),
            Split::Slabs(_) => Err(Error::State(format!(
                "{what} splits over ranks by sample, not into slabs of one lattice"
            ))),
        }
    }

    /// Words of one sample in each section of a tempering state: a walker per replica and
    /// temperature.
    fn walkers(&self) -> usize {
        self.systems.replicas as usize * Chains::of(&self.systems).temperatures as usize
    }
}

impl Division for IsingDivision {
    fn shares(&self) -> &[Share] {
        self.split.shares()
    }

    fn unit(&self) -> &'static str {
        match self.split {
            Split::Samples(_) => "samples",
            Split::Slabs(_) => "slabs",
        }
    }

    fn slice_spins(&self, spins: &Lattices) -> Result<Vec<Lattices>> {
        let spins = spins.bits()?;
        spins.check_fits(&self.systems)?;
        Ok(match &self.split {
            Split::Samples(shares) => shares
                .iter()
                .map(|&share| self.shape.slice_spins(spins, share).into())
                .collect(),
            Split::Slabs(shares) => shares
                .iter()
                .map(|&share| self.shape.slab_of(spins, share).into())
                .collect(),
        })
    }

    fn merge_spins(&self, parts: Vec<Lattices>) -> Result<Lattices> {
        let parts: Vec<SpinBits> = (parts.into_iter())
            .map(Lattices::into_bits)
            .collect::<Result<_>>()?;
        Ok(match &self.split {
            Split::Samples(shares) => self.shape.merge_spins(&parts, shares)?,
            Split::Slabs(shares) => self.shape.merge_slabs(&parts, shares)?,
        }
        .into())
    }

    fn merge_measurements(&self, parts: Vec<Measurements>, slots: usize) -> Result<Measurements> {
        match &self.split {
            Split::Samples(shares) => self.shape.merge_measurements(parts, shares, slots),
            Split::Slabs(_) => RunShape::sum_measurements(parts),
        }
    }

    fn divide(&self, command: Command) -> Result<Vec<Command>> {
        Ok(match command {
            Command::SetTempering(state) => {
                check_tempering_state(&self.systems, &state)?;
                let parts = self.per_rank(&state, 4, self.walkers(), "parallel tempering")?;
                parts.into_iter().map(Command::SetTempering).collect()
            }
            Command::CopySystems(sources) => {
                check_copy_map(&self.systems, &sources)?;
                (self.sample_shares("population annealing")?.iter())
                    .map(|&share| self.shape.slice_copy_map(&sources, share))
                    .map(|part| part.map(Command::CopySystems))
                    .collect::<Result<_>>()?
            }
            Command::SetResampling(table) => {
                table.check(self.systems.systems())?;
                (self.sample_shares("population annealing")?.iter())
                    .map(|&share| {
                        Command::SetResampling(self.shape.slice_resampling(&table, share))
                    })
                    .collect()
            }
            Command::CountPopulations { slots, sizes } => {
                let outer = self.shape.temperatures;
                // A sample's populations (its runs) are consecutive blocks.
                let runs = sizes.len() / (outer * self.systems.samples as usize).max(1);
                let parts = self.per_rank(&sizes, outer, runs, "population annealing")?;
                (parts.into_iter())
                    .map(|sizes| Command::CountPopulations { slots, sizes })
                    .collect()
            }
            command => everywhere(self, command),
        })
    }
}
