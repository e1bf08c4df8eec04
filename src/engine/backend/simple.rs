//! The simple engine, written once over its backend ([`SimpleDevice`]): the engine holds the
//! systems and the host's replay of population annealing's resampling steps, checks each call
//! and orders a plan's copies, launches and reads; a backend (`engine::cpu::simple`,
//! `engine::wgpu::simple`, `engine::cuda::simple`) holds the lattices and kernels and does what
//! the engine asks. The backend's traits are sized by capability: sweeps and measurements
//! ([`SimpleBackend`]), tempering, annealing and cluster updates.

use std::ops::Range;

use crate::config::ClusterUpdate;
use crate::engine::annealing::{HostResampling, ResamplingTable};
use crate::engine::clusters::{labelling_passes, no_clusters};
use crate::engine::{
    Clusters, Engine, EngineInfo, ISING_PASSES, Lattices, Measurements, Observation, Plan,
    Populations, SpinBits, Step, Tempering, check_betas, check_copy_map,
};
use crate::error::Result;
use crate::model::Lattice;
use crate::model::ising::IsingSystems;

/// Colour sites a thread of the simple engine's Metropolis kernel updates.
pub const SITES_PER_GROUP: u64 = 4;

/// The simple engine's update threads (groups of [`SITES_PER_GROUP`] colour sites) that hold a
/// pass's sites on `planes` ([`crate::engine::Step::Part`]).
pub fn part_groups(lattice: &Lattice, planes: Range<u32>) -> Range<u32> {
    let groups = lattice.plane_units(planes, SITES_PER_GROUP);
    groups.start as u32..groups.end as u32
}

/// The simple engine's update threads of a whole pass: every group of a colour's sites.
pub fn all_groups(lattice: &Lattice) -> Range<u32> {
    part_groups(lattice, 0..lattice.size)
}

/// What a backend provides the simple engine for sweeps and measurements: one `i32` per spin,
/// its kernels' launches and the reads of what a plan measured. `systems` is always the
/// engine's (its betas the current ones). Each capability beyond them is a trait of its own
/// ([`TemperingBackend`], [`AnnealingBackend`], [`ClusterBackend`]).
pub trait SimpleBackend {
    /// The backend's name in [`EngineInfo`] ("cpu", "wgpu", "cuda").
    const NAME: &'static str;

    /// The adapter or device, and its driver ([`EngineInfo::adapter`], [`EngineInfo::driver`]).
    fn adapter_and_driver(&self) -> (String, String);

    /// Most measurement slots one plan may fill ([`Engine::max_plan_slots`]).
    fn max_plan_slots(&self, _systems: &IsingSystems) -> u64 {
        u64::MAX
    }

    /// Write the lattices, one `+-1` per site, system after system.
    fn write_lattices(&mut self, signs: &[i32]) -> Result<()>;

    /// The lattices as [`SimpleBackend::write_lattices`] takes them.
    fn read_lattices(&mut self) -> Result<Vec<i32>>;

    /// Random lattices (the kernel `hot_start`).
    fn hot_start(&mut self, systems: &IsingSystems) -> Result<()>;

    /// Room for the plan's observations and tempering's history, zeroed by the plan's first
    /// launch at the latest; swap rounds measure into a scratch slot past the plan's. Refuses
    /// swap rounds without tempering, before anything runs.
    fn prepare_slots(&mut self, systems: &IsingSystems, plan: &Plan) -> Result<()>;

    /// Launch the plan's sweeps, measurements, swap rounds and cluster updates (its resampling
    /// step was replayed by the engine); the reads below wait for them.
    fn launch_plan(&mut self, systems: &IsingSystems, plan: &Plan) -> Result<()>;

    /// The observations of the first `slots` slots, slot-major.
    fn read_observations(&mut self, systems: &IsingSystems, slots: u32)
    -> Result<Vec<Observation>>;
}

/// Parallel tempering's state, swap rounds and history on a simple engine's backend.
pub trait TemperingBackend {
    /// Parallel tempering from `state` ([`Tempering::set_tempering`]).
    fn set_tempering(&mut self, systems: &IsingSystems, state: &[u32]) -> Result<()>;

    /// The tempering state; empty without tempering.
    fn tempering_state(&mut self) -> Result<Vec<u32>>;

    /// Tempering's labels of the first `slots` slots; empty without tempering.
    fn read_labels(&mut self, slots: u32) -> Result<Vec<u32>>;
}

/// Population annealing's new temperatures and copies on a simple engine's backend.
pub trait AnnealingBackend {
    /// Write threshold tables `thresholds` ([`IsingSystems::thresholds`]).
    fn write_thresholds(&mut self, thresholds: &[u32]) -> Result<()>;

    /// Copy whole lattices: system `b` takes the lattice of `sources[b]`.
    fn copy_lattices(&mut self, systems: &IsingSystems, sources: &[u32]) -> Result<()>;
}

/// Cluster updates on a simple engine's backend.
pub trait ClusterBackend {
    /// Cluster updates of kind `update` at the betas of `systems` ([`Clusters::set_clusters`]):
    /// their state, which the plans' cluster steps then use.
    fn set_clusters(&mut self, systems: &IsingSystems, update: ClusterUpdate) -> Result<()>;

    /// The cluster sizes recorded into the first `slots` slots, `[slot][system]`.
    fn read_cluster_sizes(&mut self, systems: &IsingSystems, slots: u32) -> Result<Vec<u64>>;

    /// The labelling passes over the lattices of one update of kind `update` that records
    /// (`records`) or not ([`Clusters::labelling_iterations`]): the device kernels' by default.
    fn labelling_passes(&self, update: ClusterUpdate, records: bool) -> u64 {
        labelling_passes(update, records)
    }

    /// Whether it makes pieces of updates ([`Clusters::update_parts`]).
    fn update_parts(&self) -> bool {
        false
    }
}

/// Every capability a simple engine's backend provides.
pub trait SimpleDevice:
    SimpleBackend + TemperingBackend + AnnealingBackend + ClusterBackend
{
}

impl<B: SimpleBackend + TemperingBackend + AnnealingBackend + ClusterBackend> SimpleDevice for B {}

/// The simple engine (one spin per `i32`) on backend `B`.
pub struct SimpleEngine<B> {
    backend: B,
    systems: IsingSystems,
    resampling: HostResampling,
    /// The kind of the plans' cluster updates, once set; and the labelling passes they took.
    clusters: Option<ClusterUpdate>,
    labelling_passes: u64,
}

impl<B: SimpleDevice> SimpleEngine<B> {
    /// What the plan measured into its slots, with the resampling step's `copies`.
    fn read_measurements(&mut self, plan: &Plan, copies: Vec<u32>) -> Result<Measurements> {
        let cluster_sizes = match plan.records_cluster_sizes() {
            true => self
                .backend
                .read_cluster_sizes(&self.systems, plan.size_slots())?,
            false => Vec::new(),
        };
        // A plan may record cluster sizes for a later plan's measurement, and measure nothing.
        let (observations, labels) = match plan.slots {
            0 => (Vec::new(), Vec::new()),
            slots => (
                self.backend.read_observations(&self.systems, slots)?,
                self.backend.read_labels(slots)?,
            ),
        };
        Ok(Measurements {
            observations,
            labels,
            copies,
            cluster_sizes,
            ..Measurements::default()
        })
    }
}

impl<B> SimpleEngine<B> {
    /// The engine of `systems` on `backend`, which holds their lattices.
    pub fn on(backend: B, systems: IsingSystems) -> Self {
        SimpleEngine {
            backend,
            systems,
            resampling: HostResampling::default(),
            clusters: None,
            labelling_passes: 0,
        }
    }
}

impl<B: SimpleDevice> Engine for SimpleEngine<B> {
    fn info(&self) -> EngineInfo {
        let (adapter, driver) = self.backend.adapter_and_driver();
        EngineInfo {
            backend: B::NAME.into(),
            engine: "simple".into(),
            adapter,
            driver,
        }
    }

    fn max_plan_slots(&self) -> u64 {
        self.backend.max_plan_slots(&self.systems)
    }

    fn set_spins(&mut self, spins: &Lattices) -> Result<()> {
        let spins = spins.bits()?;
        spins.check_fits(&self.systems)?;
        // The lattices are `i32` on the device too: one copy of them on the host while they
        // travel.
        let mut signs = vec![0i32; spins.len() as usize];
        spins.signs_into(0, &mut signs);
        self.backend.write_lattices(&signs)
    }

    fn spins(&mut self) -> Result<Lattices> {
        let signs = self.backend.read_lattices()?;
        let mut bits = SpinBits::for_systems(&self.systems);
        bits.set_signs(0, &signs);
        Ok(bits.into())
    }

    fn hot_start(&mut self) -> Result<()> {
        self.backend.hot_start(&self.systems)
    }

    /// The resampling step replayed on the host and its copies made on the device, then the
    /// plan's kernels, then the reads of what they measured.
    fn execute(&mut self, plan: &Plan) -> Result<Measurements> {
        plan.refuse_observe()?;
        plan.check_parts(true, (ISING_PASSES, self.systems.lattice.size))?;
        let planes = self.systems.lattice.size;
        plan.check_cluster_parts(self.backend.update_parts(), planes)?;
        let (resample, _) = plan.split_resample()?;
        let copies = match self.resampling.replay(self.systems.seed, resample)? {
            Some(resampled) => {
                self.copy_systems(&resampled.sources)?;
                resampled.copies
            }
            None => Vec::new(),
        };
        let passes = match self.clusters {
            Some(update) => plan_labelling_passes(&self.backend, plan, update),
            None if plan.cluster_updates() > 0 => return Err(no_clusters()),
            None => 0,
        };
        self.backend.prepare_slots(&self.systems, plan)?;
        self.backend.launch_plan(&self.systems, plan)?;
        self.labelling_passes += passes;
        let measurements = match plan.size_slots() {
            0 => Measurements {
                copies,
                ..Measurements::default()
            },
            _ => self.read_measurements(plan, copies)?,
        };
        self.resampling.record(&measurements, plan.slots);
        Ok(measurements)
    }

    fn sweep_parts(&self) -> bool {
        true
    }

    fn tempering(&mut self) -> Option<&mut dyn Tempering> {
        Some(self)
    }

    fn populations(&mut self) -> Option<&mut dyn Populations> {
        Some(self)
    }

    fn clusters(&mut self) -> Option<&mut dyn Clusters> {
        Some(self)
    }
}

impl<B: ClusterBackend> Clusters for SimpleEngine<B> {
    fn set_clusters(&mut self, update: ClusterUpdate) -> Result<()> {
        self.backend.set_clusters(&self.systems, update)?;
        self.clusters = Some(update);
        Ok(())
    }

    /// The backend's labelling passes over the lattices ([`ClusterBackend::labelling_passes`]).
    fn labelling_iterations(&mut self) -> u64 {
        self.labelling_passes
    }

    fn update_parts(&self) -> bool {
        self.backend.update_parts()
    }
}

/// The labelling passes of the cluster updates of `plan` on `backend`.
fn plan_labelling_passes(backend: &impl ClusterBackend, plan: &Plan, update: ClusterUpdate) -> u64 {
    plan.steps
        .iter()
        .map(|step| match step {
            Step::Cluster { sizes, .. } => backend.labelling_passes(update, sizes.is_some()),
            // Only the CPU, whose labelling makes no passes, cuts its updates.
            Step::ClusterPart { .. } => 0,
            _ => 0,
        })
        .sum()
}

impl<B: TemperingBackend> Tempering for SimpleEngine<B> {
    fn set_tempering(&mut self, state: &[u32]) -> Result<()> {
        self.backend.set_tempering(&self.systems, state)
    }

    fn tempering_state(&mut self) -> Result<Vec<u32>> {
        self.backend.tempering_state()
    }
}

impl<B: AnnealingBackend + ClusterBackend> Populations for SimpleEngine<B> {
    fn set_betas(&mut self, betas: &[f64]) -> Result<()> {
        check_betas(&self.systems, betas)?;
        self.systems.betas = betas.to_vec();
        if let Some(update) = self.clusters {
            self.backend.set_clusters(&self.systems, update)?;
        }
        self.backend.write_thresholds(&self.systems.thresholds())
    }

    fn copy_systems(&mut self, sources: &[u32]) -> Result<()> {
        check_copy_map(&self.systems, sources)?;
        self.backend.copy_lattices(&self.systems, sources)
    }

    fn set_resampling(&mut self, table: &ResamplingTable) -> Result<()> {
        self.resampling.set_table(table, self.systems.systems())
    }
}
