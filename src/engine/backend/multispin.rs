//! The multispin engines' plan and population calls, written once over [`MultispinBackend`]:
//! what the wgpu and CUDA multispin engines (`engine::wgpu::multispin`,
//! `engine::cuda::multispin`) each provide.

use std::time::Instant;

use crate::engine::annealing::{PopulationHistograms, ResamplingTable};
use crate::engine::copy_maps::lane_map;
use crate::engine::multispin::MultispinLayout;
use crate::engine::slabs::whole_lattices_only;
use crate::engine::{
    Halo, Measurements, Plan, Populations, check_betas, check_copy_map,
    check_thresholds_not_compiled,
};
use crate::error::Result;

/// What a backend's multispin engine provides for a plan: its layout, its kernels' launches and
/// the reads of what they measured (in the backend's `multispin/mod.rs`).
pub trait MultispinBackend {
    /// The engine's name in messages and logs ("multispin wgpu", "multispin CUDA").
    const NAME: &'static str;

    /// The word layout of the systems on the device.
    fn layout(&self) -> &MultispinLayout;

    /// The layout, for population annealing's new temperatures.
    fn layout_mut(&mut self) -> &mut MultispinLayout;

    /// The neighbours of a slab; `None` for whole lattices.
    fn halo(&self) -> &Option<Box<dyn Halo>>;

    /// Zeroed room for the plan's measurements, tempering's history and its swap rounds'
    /// scratch slots; the plan's last measurement is the one the next resampling step reads.
    fn prepare_slots(&mut self, plan: &Plan) -> Result<()>;

    /// Launch the plan's sweeps, measurements and swap rounds, reading measured slots back
    /// behind them where the backend can.
    fn launch_plan(&mut self, plan: &Plan) -> Result<()>;

    /// The measurements of the plan's `slots` slots not read back yet, and those read.
    fn read_measurements(&mut self, slots: u32) -> Result<Measurements>;
}

/// What a backend's multispin engine provides for population annealing: new threshold tables,
/// copies of systems and the resampling step on the device (in the backend's
/// `multispin/annealing.rs`).
pub trait MultispinAnnealing {
    /// A resampling step enqueued ahead of a plan's sweeps, read back behind them.
    type PendingStep;

    /// Enqueue resampling step `step` from the last plan's last measurement.
    fn enqueue_resample(&mut self, step: u32) -> Result<Self::PendingStep>;

    /// Once the plan's kernels are enqueued, with one wait for them: the copies of the pending
    /// resampling step and, where the engine counts populations and the plan measured, the
    /// histograms of its last measurement.
    fn read_back(
        &mut self,
        step: Option<Self::PendingStep>,
        slots: u32,
    ) -> Result<(Vec<u32>, Option<PopulationHistograms>)>;

    /// Whether the update was compiled with its thresholds (fixed betas).
    fn thresholds_compiled(&self) -> bool;

    /// Write the layout's threshold tables to the device.
    fn write_thresholds(&mut self) -> Result<()>;

    /// Copy systems on the device: lane `i` of the words takes lane `map[i]` ([`lane_map`]).
    fn copy_lanes(&mut self, map: &[u32]) -> Result<()>;

    /// The resampling kernels for `table`'s blocks, and `table` for the next step.
    fn set_resampling_table(&mut self, table: &ResamplingTable) -> Result<()>;

    /// The populations' sizes; from now on measurements come back as their histograms.
    fn count_populations_of(&mut self, slots: u32, sizes: &[u32]) -> Result<()>;
}

/// `Engine::execute`: a resampling step's kernels ahead of the plan's with no wait between,
/// then one read of the step's copies (and histograms) and of the plan's measurements.
pub fn execute<B>(engine: &mut B, plan: &Plan) -> Result<Measurements>
where
    B: MultispinBackend + MultispinAnnealing,
{
    let resampled = match plan.split_resample()?.0 {
        Some(step) => Some(engine.enqueue_resample(step)?),
        None => None,
    };
    engine.prepare_slots(plan)?;
    let started = Instant::now();
    engine.launch_plan(plan)?;
    let (copies, histograms) = engine.read_back(resampled, plan.slots)?;
    if plan.slots == 0 {
        return Ok(Measurements {
            copies,
            ..Measurements::default()
        });
    }
    let ran = started.elapsed();
    let mut measurements = match histograms {
        Some(histograms) => Measurements {
            histograms: Some(Box::new(histograms)),
            ..Measurements::default()
        },
        None => engine.read_measurements(plan.slots)?,
    };
    measurements.copies = copies;
    log::debug!(
        "{}: {} sweeps, {} measurements: kernels {:.1} ms, reads and measurements on the host \
         {:.1} ms",
        B::NAME,
        plan.sweeps(),
        plan.slots,
        ran.as_secs_f64() * 1e3,
        (started.elapsed() - ran).as_secs_f64() * 1e3
    );
    Ok(measurements)
}

/// Population annealing on a multispin engine of either backend: the checks of each call, then
/// the backend's copies and resampling kernels. Slabs refuse it.
impl<B: MultispinBackend + MultispinAnnealing> Populations for B {
    /// New temperatures, refused where they are compiled into the update.
    fn set_betas(&mut self, betas: &[f64]) -> Result<()> {
        whole_lattices_only(self.halo(), "population annealing (set_betas)")?;
        check_betas(&self.layout().systems, betas)?;
        check_thresholds_not_compiled(self.thresholds_compiled(), B::NAME)?;
        self.layout_mut().systems.betas = betas.to_vec();
        self.write_thresholds()
    }

    fn copy_systems(&mut self, sources: &[u32]) -> Result<()> {
        whole_lattices_only(self.halo(), "population annealing (copy_systems)")?;
        check_copy_map(&self.layout().systems, sources)?;
        let map = lane_map(self.layout(), sources);
        self.copy_lanes(&map)
    }

    fn set_resampling(&mut self, table: &ResamplingTable) -> Result<()> {
        whole_lattices_only(self.halo(), "population annealing (resampling)")?;
        self.set_resampling_table(table)
    }

    /// Histograms on the device instead of observations.
    fn count_populations(&mut self, slots: u32, sizes: &[u32]) -> Result<bool> {
        whole_lattices_only(self.halo(), "population annealing (histograms)")?;
        self.count_populations_of(slots, sizes)?;
        Ok(true)
    }
}
