//! The vector-spin device engines' plans, written once over their kernels
//! ([`VectorBackend`]: `engine::wgpu::vector::WgpuVectorEngine`,
//! `engine::cuda::vector::CudaVectorEngine`): every sweep's passes in order
//! ([`VectorSweeps::passes`]), the accepted moves added up on the device over a run of sweeps
//! and read back once at its end (before a measurement, whose kernels reuse the counts, or at
//! the plan's end), and the measurements into their slots ([`replay`]).

use crate::engine::vector::{
    VectorObservation, VectorOverlap, VectorPass, VectorSteps, VectorSweeps, replay,
};
use crate::engine::{Measurements, Plan};
use crate::error::Result;
use crate::model::vector::VectorSystems;

/// The kernels of a vector-spin device engine as its plans use them. Launches are enqueued;
/// the backend submits them in bounded batches and waits where it reads back.
pub trait VectorBackend {
    /// The systems whose lattices the engine holds.
    fn systems(&self) -> &VectorSystems;
    /// Zero the accepted-move counts, before the first pass of a run of sweeps.
    fn clear_counts(&mut self) -> Result<()>;
    /// Enqueue pass `pass` of sweep `sweep` (which keys its randoms) over every system.
    fn enqueue_pass(&mut self, sweep: u32, pass: VectorPass) -> Result<()>;
    /// Every system's accepted moves since [`VectorBackend::clear_counts`], once the enqueued
    /// passes have run.
    fn read_accepted(&mut self) -> Result<Vec<u64>>;
    /// Every system's observation (`vector_observables`, in the counts).
    fn observe(&mut self) -> Result<Vec<VectorObservation>>;
    /// The overlap of every replica pair of a spin glass (`vector_overlap`, in the counts); none
    /// for the ferromagnet.
    fn overlaps(&mut self) -> Result<Vec<VectorOverlap>>;
}

/// Execute `plan` on `backend`'s lattices, swept by `updates`.
pub fn execute(
    backend: &mut dyn VectorBackend,
    updates: VectorSweeps,
    plan: &Plan,
) -> Result<Measurements> {
    let passes = updates.passes();
    replay(plan, &mut Lowered { backend, passes })
}

/// A device engine's runs of sweeps as launches of its kernels.
struct Lowered<'a> {
    backend: &'a mut dyn VectorBackend,
    passes: Vec<VectorPass>,
}

impl VectorSteps for Lowered<'_> {
    fn systems(&self) -> &VectorSystems {
        self.backend.systems()
    }

    fn sweeps(&mut self, sweeps: &[u32]) -> Result<Vec<u64>> {
        self.backend.clear_counts()?;
        for &sweep in sweeps {
            for &pass in &self.passes {
                self.backend.enqueue_pass(sweep, pass)?;
            }
        }
        self.backend.read_accepted()
    }

    fn observe(&mut self) -> Result<Vec<VectorObservation>> {
        self.backend.observe()
    }

    fn overlaps(&mut self) -> Result<Vec<VectorOverlap>> {
        self.backend.overlaps()
    }
}
