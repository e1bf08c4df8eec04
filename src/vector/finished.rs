//! What a finished vector-spin run hands back: its summary, and what its figures are drawn
//! from (the loop draws none; the run's entry, [`crate::run`], does where the config asks for
//! plots).

use super::outputs::{energy_histogram, measurement_sweep, stored_component};
use super::record::VectorRecord;
use super::summary::VectorSummary;
use crate::model::vector::VectorSystems;
use crate::stats::VectorMeasurement;

/// A finished vector-spin run.
pub struct VectorFinished {
    pub summary: VectorSummary,
    systems: VectorSystems,
    /// Every measurement of every system, measurement-major, the thermalisation's first.
    measurements: Vec<VectorMeasurement>,
    /// Sweeps between measurements.
    every: u64,
    /// The final lattices, component-major as the engine holds them.
    spins: Vec<i32>,
}

impl VectorFinished {
    pub(super) fn new(
        summary: VectorSummary,
        systems: VectorSystems,
        record: VectorRecord,
        every: u64,
        spins: Vec<i32>,
    ) -> Box<Self> {
        Box::new(VectorFinished {
            summary,
            systems,
            measurements: record.measurements,
            every,
            spins,
        })
    }

    /// Spin components: 2 (XY) or 3 (Heisenberg).
    pub fn components(&self) -> u32 {
        self.systems.components
    }

    /// Systems of one temperature: samples times replicas, numbered sample-major.
    pub fn systems_per_temperature(&self) -> usize {
        (self.systems.samples * self.systems.replicas) as usize
    }

    /// The production's energy histogram at temperature `t` (discrete states'), with the
    /// energies per site as `energy_histogram_*.csv` holds them.
    pub fn energy_histogram(&self, t: usize) -> Vec<(f64, u64)> {
        let thermalization = self.summary.thermalization_measurements as usize;
        let sites = self.systems.lattice.spins() as f64;
        (energy_histogram(&self.systems, &self.measurements, t, thermalization).into_iter())
            .map(|(energy, count)| (energy / sites, count))
            .collect()
    }

    /// Measurements of each system, the thermalisation's included.
    pub fn measurements(&self) -> usize {
        self.measurements.len() / self.systems.systems() as usize
    }

    /// The sweep after which measurement `m` was taken, as in the time-series files.
    pub fn sweep_of(&self, m: usize) -> u64 {
        measurement_sweep(self.every, m)
    }

    /// Measurement `m` of system `k` (of [`Self::systems_per_temperature`]) of temperature `t`.
    pub fn measurement(&self, m: usize, t: usize, k: usize) -> &VectorMeasurement {
        let b = t * self.systems_per_temperature() + k;
        &self.measurements[m * self.systems.systems() as usize + b]
    }

    /// Site `i` of the final lattice of the first system (replica 0 of sample 0) of temperature
    /// `t`, its components as `final_state.npy` holds them (a third 0 for XY spins).
    pub fn first_system_spin(&self, t: usize, i: u64) -> [f32; 3] {
        let b = self.systems.system(t as u32, 0, 0);
        let mut spin = [0.0; 3];
        for (a, component) in (0..self.systems.components).zip(&mut spin) {
            *component = stored_component(&self.systems, &self.spins, b, a, i);
        }
        spin
    }
}
