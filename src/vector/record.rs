//! What the loop records of a vector-spin run, which the summary and the files read: every
//! measurement as the estimators take it, the accepted moves, the drift of `|s|`.

use crate::engine::vector::{VectorObservation, VectorOverlap};
use crate::model::vector::VectorSystems;
use crate::model::vector::fixed::{MEASURE_FRACTION_BITS, ONE};
use crate::model::vector::states::{StateModel, States};
use crate::stats::{VectorExtras, VectorMeasurement};

/// What the loop carries: every measurement (slot-major: all systems of a measurement
/// together), the accepted moves counted since the last tuning stop and over the production,
/// and the largest drift of `|s|` seen.
#[derive(Debug, Clone, Default)]
pub(super) struct VectorRecord {
    pub(super) measurements: Vec<VectorMeasurement>,
    /// A spin glass's overlaps at every measurement (measurement-major, numbered within one as
    /// [`SystemIndex::overlaps`]).
    ///
    /// [`SystemIndex::overlaps`]: crate::model::systems::SystemIndex::overlaps
    pub(super) overlaps: Vec<OverlapMeasurement>,
    pub(super) accepted_since_stop: Vec<u64>,
    pub(super) accepted_in_production: Vec<u64>,
    /// In units of 1: `max | s . s - 1 |` over every site and measurement.
    pub(super) norm_deviation: f64,
}

/// The estimators the measurements of `systems` give beyond the common ones: `xi/L` but for
/// the Potts model, the helicity modulus of planar spins, Blume-Capel's density of `s = 0`.
pub(super) fn extras(systems: &VectorSystems) -> VectorExtras {
    let model = systems.states.as_ref().map(|s| s.model);
    VectorExtras {
        correlation_length: model != Some(StateModel::Potts),
        helicity: systems.components == 2,
        zeros: model == Some(StateModel::BlumeCapel),
    }
}

/// Per temperature, the accepted fraction of `proposals` Metropolis proposals per site (sweeps
/// times hits).
pub(super) fn acceptance_rates(
    systems: &VectorSystems,
    accepted: &[u64],
    proposals: u64,
) -> Vec<f64> {
    let per_temperature = systems.systems_per_temperature() as usize;
    let proposals = proposals as f64 * systems.lattice.sites() as f64 * per_temperature as f64;
    accepted
        .chunks(per_temperature)
        .map(|a| a.iter().sum::<u64>() as f64 / proposals)
        .collect()
}

/// Append one measurement of every system to the record.
pub(super) fn record_observations(
    systems: &VectorSystems,
    observations: &[VectorObservation],
    record: &mut VectorRecord,
) {
    for o in observations {
        record.measurements.push(measurement(systems, o));
        let deviation = o.norm_deviation as f64 / 2f64.powi(MEASURE_FRACTION_BITS as i32);
        record.norm_deviation = record.norm_deviation.max(deviation);
    }
}

/// What the estimators take from one replica pair's tensor overlap: `q2 = sum_{mu nu} q_{mu nu}^2`
/// and `q2_kmin = sum_{mu nu} |q_{mu nu}(k_min)|^2` averaged over the directions.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct OverlapMeasurement {
    pub(super) q2: f64,
    pub(super) q2_kmin: f64,
}

/// Append one measurement of every replica pair's overlap to the record.
pub(super) fn record_overlaps(
    systems: &VectorSystems,
    overlaps: &[VectorOverlap],
    record: &mut VectorRecord,
) {
    let measured = overlaps.iter().map(|o| overlap_measurement(systems, o));
    record.overlaps.extend(measured);
}

/// The overlap's squares from its exact sums (units `2^-32` per site).
pub(super) fn overlap_measurement(
    systems: &VectorSystems,
    o: &VectorOverlap,
) -> OverlapMeasurement {
    let n = systems.components as usize;
    let dims = systems.lattice.dims as usize;
    let scale = 2f64.powi(MEASURE_FRACTION_BITS as i32) * systems.lattice.sites() as f64;
    let squares = |entries: &mut dyn Iterator<Item = i64>| {
        entries.map(|q| (q as f64 / scale).powi(2)).sum::<f64>()
    };
    let q2 = squares(&mut o.q[..n].iter().flat_map(|row| row[..n].iter().copied()));
    let q2_kmin = squares(&mut o.fourier[..dims].iter().flat_map(|direction| {
        direction[..n]
            .iter()
            .flat_map(|row| row[..n].iter().flatten().copied())
    })) / dims as f64;
    OverlapMeasurement { q2, q2_kmin }
}

/// The total energy of an observed system.
pub(super) fn energy(systems: &VectorSystems, o: &VectorObservation) -> f64 {
    let dims = systems.lattice.dims as usize;
    let bonds = o.bonds[..dims].iter().sum();
    match &systems.states {
        Some(states) => states.energy(bonds, &o.states[..states.q as usize]),
        None => systems.energy(bonds, o.magnetisation[0]),
    }
}

/// What the estimators take from one observation.
pub(super) fn measurement(systems: &VectorSystems, o: &VectorObservation) -> VectorMeasurement {
    if let Some(states) = &systems.states {
        return state_measurement(systems, states, o);
    }
    let sites = systems.lattice.sites() as f64;
    let dims = systems.lattice.dims as usize;
    let (n, one) = (systems.components as usize, f64::from(ONE));
    let bond_unit = 2f64.powi(MEASURE_FRACTION_BITS as i32);
    let bonds: i64 = o.bonds[..dims].iter().sum();
    let mut m = [0.0; 3];
    for (m, total) in m.iter_mut().zip(&o.magnetisation).take(n) {
        *m = *total as f64 / one / sites;
    }
    let fourier = o.fourier[..dims]
        .iter()
        .map(|f| {
            f[..n]
                .iter()
                .map(|[re, im]| (*re as f64).powi(2) + (*im as f64).powi(2))
                .sum::<f64>()
        })
        .sum::<f64>()
        / dims as f64
        / (one * sites).powi(2);
    let per_direction = dims as f64 * sites;
    let cosines = bonds as f64 / bond_unit / per_direction;
    let sines_squared = o.twists[..dims]
        .iter()
        .map(|&t| (t as f64 / bond_unit).powi(2))
        .sum::<f64>()
        / per_direction;
    VectorMeasurement {
        energy: energy(systems, o),
        m,
        fourier,
        bond_cosines: cosines,
        bond_sines_squared: sines_squared,
        zeros: 0.0,
    }
}

/// What the estimators take from one observation of discrete states: the order parameter
/// ([`States::order`]) as the one component of `m`, the Fourier component of the values `s(a)`
/// (Blume-Capel's; zero for Potts, whose `xi/L` is not measured), and the density of state
/// `s = 0` (Blume-Capel's vacancies).
fn state_measurement(
    systems: &VectorSystems,
    states: &States,
    o: &VectorObservation,
) -> VectorMeasurement {
    let sites = systems.lattice.sites() as f64;
    let dims = systems.lattice.dims as usize;
    let counts = &o.states[..states.q as usize];
    let phase_unit = f64::from(ONE);
    let fourier = (o.fourier[..dims].iter())
        .map(|f| (f[0][0] as f64).powi(2) + (f[0][1] as f64).powi(2))
        .sum::<f64>()
        / dims as f64
        / (phase_unit * sites).powi(2);
    let zeros = match states.model {
        StateModel::BlumeCapel => counts[1] as f64 / sites,
        StateModel::Potts => 0.0,
    };
    VectorMeasurement {
        energy: energy(systems, o),
        m: [states.order(counts), 0.0, 0.0],
        fourier,
        bond_cosines: 0.0,
        bond_sines_squared: 0.0,
        zeros,
    }
}
