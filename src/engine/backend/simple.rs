//! The simple engines' plan and population calls, written once over [`SimpleBackend`]: what the
//! wgpu and CUDA simple engines (`engine::wgpu::simple`, `engine::cuda::simple`) each provide.

use crate::engine::annealing::{HostResampling, ResamplingTable};
use crate::engine::{Measurements, Observation, Plan, check_betas, check_copy_map};
use crate::error::Result;
use crate::model::ising::IsingSystems;

/// What a backend's simple engine provides: its systems, its kernels' launches, the copy of
/// whole lattices, and the reads of what a plan measured.
pub trait SimpleBackend {
    /// The systems on the device.
    fn systems(&self) -> &IsingSystems;

    /// The systems, for population annealing's new temperatures.
    fn systems_mut(&mut self) -> &mut IsingSystems;

    /// The host's replay of population annealing's resampling steps.
    fn host_resampling(&mut self) -> &mut HostResampling;

    /// Room for the plan's observations and tempering's history, zeroed by the plan's first
    /// launch at the latest; swap rounds measure into a scratch slot past the plan's.
    fn prepare_slots(&mut self, plan: &Plan) -> Result<()>;

    /// Launch the plan's sweeps, measurements and swap rounds; the reads below wait for them.
    fn launch_plan(&mut self, plan: &Plan) -> Result<()>;

    /// The observations of the first `slots` slots, slot-major.
    fn read_observations(&mut self, slots: u32) -> Result<Vec<Observation>>;

    /// Tempering's labels of the first `slots` slots; empty without tempering.
    fn read_labels(&mut self, slots: u32) -> Result<Vec<u32>>;

    /// Write the systems' threshold tables to the device.
    fn write_thresholds(&mut self) -> Result<()>;

    /// Copy whole lattices on the device: system `b` takes the lattice of `sources[b]`.
    fn copy_lattices(&mut self, sources: &[u32]) -> Result<()>;
}

/// `Engine::execute`: the resampling step replayed on the host and its copies made on the
/// device, then the plan's kernels, then the reads of what they measured.
pub fn execute(engine: &mut impl SimpleBackend, plan: &Plan) -> Result<Measurements> {
    let (resample, _) = plan.split_resample()?;
    let seed = engine.systems().seed;
    let copies = match engine.host_resampling().replay(seed, resample)? {
        Some(resampled) => {
            copy_systems(engine, &resampled.sources)?;
            resampled.copies
        }
        None => Vec::new(),
    };
    engine.prepare_slots(plan)?;
    engine.launch_plan(plan)?;
    if plan.slots == 0 {
        return Ok(Measurements {
            copies,
            ..Measurements::default()
        });
    }
    let measurements = Measurements {
        observations: engine.read_observations(plan.slots)?,
        labels: engine.read_labels(plan.slots)?,
        copies,
        ..Measurements::default()
    };
    engine.host_resampling().record(&measurements, plan.slots);
    Ok(measurements)
}

/// `Populations::set_betas`: new temperatures, one per slice of systems.
pub fn set_betas(engine: &mut impl SimpleBackend, betas: &[f64]) -> Result<()> {
    check_betas(engine.systems(), betas)?;
    engine.systems_mut().betas = betas.to_vec();
    engine.write_thresholds()
}

/// `Populations::copy_systems`: system `b` takes the lattice of `sources[b]`.
pub fn copy_systems(engine: &mut impl SimpleBackend, sources: &[u32]) -> Result<()> {
    check_copy_map(engine.systems(), sources)?;
    engine.copy_lattices(sources)
}

/// `Populations::set_resampling`: the table of the next resampling step, replayed on the host.
pub fn set_resampling(engine: &mut impl SimpleBackend, table: &ResamplingTable) -> Result<()> {
    let systems = engine.systems().systems();
    engine.host_resampling().set_table(table, systems)
}
