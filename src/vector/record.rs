//! What the loop records of a vector-spin run, which the summary and the files read: every
//! measurement as the estimators take it, the accepted moves, the drift of `|s|`.

use crate::config::{ClusterOptions, ClusterUpdate};
use crate::engine::vector::{
    StateSums, VectorObservation, VectorOverlap, pair_state_words, state_words,
};
use crate::model::Lattice;
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
    /// The replica moves' record in the production, per system
    /// ([`crate::engine::Measurements::replica_moves`]); zeros without replica moves.
    pub(super) moves_in_production: Vec<u64>,
    /// In units of 1: `max | s . s - 1 |` over every site and measurement.
    pub(super) norm_deviation: f64,
}

/// The estimators the measurements of `systems` give beyond the common ones: the helicity
/// modulus of planar spins ([`helicity_terms`]), Blume-Capel's density of `s = 0`, the Potts
/// spins' simplex `|m|^2`, an antiferromagnet's staggered magnetisation on a bipartite lattice.
pub(super) fn extras(systems: &VectorSystems) -> VectorExtras {
    let model = systems.states.as_ref().map(|s| s.model);
    VectorExtras {
        helicity: systems.components == 2,
        zeros: model == Some(StateModel::BlumeCapel),
        simplex: model == Some(StateModel::Potts),
        staggered: (systems.is_bipartite_antiferromagnet()).then(|| systems.spin_components()),
    }
}

/// Per temperature, the accepted fraction of `proposals` Metropolis proposals per occupied
/// site (sweeps times hits).
pub(super) fn acceptance_rates(
    systems: &VectorSystems,
    accepted: &[u64],
    proposals: u64,
) -> Vec<f64> {
    let per_temperature = systems.systems_per_temperature() as usize;
    let occupied: u64 = (0..systems.samples)
        .map(|s| systems.occupied_sites(s))
        .sum();
    let proposals = (proposals * occupied * u64::from(systems.replicas)) as f64;
    accepted
        .chunks(per_temperature)
        .map(|a| a.iter().sum::<u64>() as f64 / proposals)
        .collect()
}

/// Append one measurement of every system to the record: `observations` and their state sums
/// `sums` (runs of [`state_words`], none for unit vectors); of a cluster step `clusters`, its
/// options and the statistic each system's updates recorded in the measured step
/// ([`crate::engine::Measurements::cluster_sizes`]).
pub(super) fn record_observations(
    systems: &VectorSystems,
    (observations, sums): (&[VectorObservation], &[i64]),
    clusters: Option<(ClusterOptions, &[u64])>,
    record: &mut VectorRecord,
) {
    for (k, o) in observations.iter().enumerate() {
        let mut measured = measurement(systems, o, system_sums(systems, sums, k));
        if let Some((options, statistics)) = clusters {
            let sites = cluster_sites(systems, k);
            measured.cluster_m2 = cluster_m2(options, statistics[k], sites);
        }
        record.measurements.push(measured);
        let deviation = o.norm_deviation as f64 / 2f64.powi(MEASURE_FRACTION_BITS as i32);
        record.norm_deviation = record.norm_deviation.max(deviation);
    }
}

/// The sites of the lattice of system `k` of `systems` and how many of them are occupied, as
/// [`cluster_m2`] takes them: every site of the lattice, the kagome lattice's holes included,
/// can be Wolff's seed.
pub(super) fn cluster_sites(systems: &VectorSystems, k: usize) -> (u64, u64) {
    let occupied = systems.occupied_sites(systems.sample_of(k as u32));
    (systems.lattice.sites(), occupied)
}

/// The improved estimator of `<|m|^2>` (per occupied site, of the Potts spins' simplex
/// vectors; [`VectorMeasurement::vector_m2`]) from `statistic`, what the `options.clusters`
/// updates of a measured step recorded on a lattice of `sites.0` sites (the kagome lattice's
/// holes among them), `sites.1` of them occupied ([`crate::engine::clusters`]): Swendsen-Wang's
/// `sum_C |C|^2` (across an antiperiodic edge `sum_C M_C^2`) estimates `|M|^2`, Wolff's `|C|`
/// (across an antiperiodic edge `s_seed M_C`, a wrapping sum that may be negative; its seed any
/// of the lattice's sites) `|M|^2` over the lattice's sites.
pub fn cluster_m2(options: ClusterOptions, statistic: u64, (sites, occupied): (u64, u64)) -> f64 {
    let per_update = statistic as i64 as f64 / f64::from(options.clusters);
    let squared = match options.update {
        ClusterUpdate::SwendsenWang => per_update,
        ClusterUpdate::Wolff => per_update * sites as f64,
    };
    squared / (occupied as f64).powi(2)
}

/// What the estimators take from one replica pair's tensor overlap: `q2 = sum_{mu nu} q_{mu nu}^2`
/// and `q2_kmin = sum_{mu nu} |q_{mu nu}(k_min)|^2` averaged over the directions.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct OverlapMeasurement {
    pub(super) q2: f64,
    pub(super) q2_kmin: f64,
}

/// Append one measurement of every replica pair's overlap to the record: `overlaps` and their
/// state sums `sums` (runs of [`pair_state_words`], none for unit vectors).
pub(super) fn record_overlaps(
    systems: &VectorSystems,
    overlaps: &[VectorOverlap],
    sums: &[i64],
    record: &mut VectorRecord,
) {
    let measured = (overlaps.iter().enumerate())
        .map(|(k, o)| overlap_measurement(systems, o, pair_sums(systems, sums, k)));
    record.overlaps.extend(measured);
}

/// System `k`'s run of the state sums `sums` of `systems`' systems (empty for unit vectors).
pub(super) fn system_sums<'a>(systems: &VectorSystems, sums: &'a [i64], k: usize) -> &'a [i64] {
    let words = state_words(systems);
    &sums[k * words..(k + 1) * words]
}

/// Replica pair `k`'s run of the state sums `sums` of `systems`' pairs (empty for unit
/// vectors).
pub(super) fn pair_sums<'a>(systems: &VectorSystems, sums: &'a [i64], k: usize) -> &'a [i64] {
    let words = pair_state_words(systems);
    &sums[k * words..(k + 1) * words]
}

/// The overlap's squares from its exact sums (units `2^-32` per site); of discrete states from
/// the pair's state sums `sums`.
pub(super) fn overlap_measurement(
    systems: &VectorSystems,
    o: &VectorOverlap,
    sums: &[i64],
) -> OverlapMeasurement {
    if let Some(states) = &systems.states {
        let q = states.q as usize;
        let sums = StateSums {
            sums,
            states: q * q,
        };
        return state_overlap_measurement(systems, states, sums);
    }
    let n = systems.components as usize;
    let dims = systems.lattice.dims as usize;
    let scale = 2f64.powi(MEASURE_FRACTION_BITS as i32) * systems.lattice.spins() as f64;
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

/// The overlap of two replicas of discrete states from the sites `C_ab` of each pair of states
/// (and their Fourier components), per occupied site: the tensor overlap of their spins (the
/// Potts spins' simplex vectors, the values) has `sum_{mu nu} q_{mu nu}^2 = N^-2 sum C_ab C_cd
/// f(a, c) f(b, d)` with `f` the spins' product ([`States::spin_product`]); its Fourier component
/// the same form of the real and the imaginary parts, averaged over the directions.
fn state_overlap_measurement(
    systems: &VectorSystems,
    states: &States,
    o: StateSums,
) -> OverlapMeasurement {
    let q = states.q as usize;
    let product: Vec<f64> = (0..q * q)
        .map(|ac| states.spin_product((ac / q) as u32, (ac % q) as u32))
        .collect();
    // sum_{a b c d} x_ab x_cd f(a, c) f(b, d) = sum_ab x_ab (F X F)_ab (F symmetric), the pairs
    // (a, b) at a q + b: O(q^3) rather than the O(q^4) of the sum as written (32 states: 32 768
    // products against a million, for each of a pair's seven sums).
    let squares = |x: &dyn Fn(usize) -> f64| {
        let x: Vec<f64> = (0..q * q).map(x).collect();
        let mut fx = vec![0.0; q * q];
        for (a, row) in fx.chunks_exact_mut(q).enumerate() {
            for c in 0..q {
                let f = product[a * q + c];
                row.iter_mut()
                    .zip(&x[c * q..][..q])
                    .for_each(|(r, x)| *r += f * x);
            }
        }
        let mut sum = 0.0;
        for (ab, x) in x.iter().enumerate() {
            let (a, b) = (ab / q, ab % q);
            let fxf: f64 = (0..q).map(|d| fx[a * q + d] * product[d * q + b]).sum();
            sum += x * fxf;
        }
        sum
    };
    let counts = o.counts();
    let sites = counts.iter().sum::<i64>() as f64;
    let dims = systems.lattice.dims as usize;
    let per_direction = |d: usize| {
        let part = |p: usize| squares(&|ab| o.fourier(ab, d)[p] as f64);
        part(0) + part(1)
    };
    let phase_unit = f64::from(ONE);
    OverlapMeasurement {
        q2: squares(&|ab| counts[ab] as f64) / (sites * sites),
        q2_kmin: (0..dims).map(per_direction).sum::<f64>()
            / dims as f64
            / (phase_unit * sites).powi(2),
    }
}

/// The total energy of an observed system, its state sums `sums` (of discrete states; empty for
/// unit vectors).
pub(super) fn energy(systems: &VectorSystems, o: &VectorObservation, sums: &[i64]) -> f64 {
    let directions = systems.lattice.directions() as usize;
    let bonds = o.bonds[..directions].iter().sum();
    match &systems.states {
        Some(states) => states.energy(bonds, &sums[..states.q as usize]),
        None => systems.energy(bonds, o.magnetisation[0]),
    }
}

/// What the estimators take from one observation and its state sums `sums` (of discrete
/// states; empty for unit vectors).
pub(super) fn measurement(
    systems: &VectorSystems,
    o: &VectorObservation,
    sums: &[i64],
) -> VectorMeasurement {
    if let Some(states) = &systems.states {
        let sums = StateSums {
            sums,
            states: states.q as usize,
        };
        return state_measurement(systems, states, o, sums);
    }
    // Per occupied site: the kagome lattice's empty quarter holds zero vectors.
    let sites = systems.lattice.spins() as f64;
    let dims = systems.lattice.dims as usize;
    let directions = systems.lattice.directions() as usize;
    let classes = systems.lattice.bond_classes() as usize;
    let (n, one) = (systems.components as usize, f64::from(ONE));
    let bond_unit = 2f64.powi(MEASURE_FRACTION_BITS as i32);
    let bonds: i64 = o.bonds[..directions].iter().sum();
    let per_site = |totals: &[i64; 3]| totals.map(|total| total as f64 / one / sites);
    // The sums of components past n are 0.
    let m = per_site(&o.magnetisation);
    let staggered_m2 = per_site(&o.staggered).iter().map(|a| a * a).sum();
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
    let twists = o.twists[..classes].iter().map(|&t| t as f64 / bond_unit);
    let (cosines, sines_squared) =
        helicity_terms(&systems.lattice, bonds as f64 / bond_unit, twists);
    VectorMeasurement {
        energy: energy(systems, o, &[]),
        m,
        fourier,
        bond_cosines: cosines,
        bond_sines_squared: sines_squared,
        zeros: 0.0,
        vector_m2: m.iter().map(|a| a * a).sum(),
        cluster_m2: 0.0,
        staggered_m2,
    }
}

/// The helicity modulus's terms of one observation of planar spins whose bond cosines add up to
/// `cosines` and whose bond sines of each class `c` add up to `sines[c]` (`S_c`):
/// `sum_c C_c / (D V)` and `|sum_c a_c S_c|^2 / (D V)`, `a_c` the class's unit vector
/// ([`Lattice::bond_class`], [`Lattice::bond_vector`]), `D` the lattice's dimension and `V` its
/// volume ([`Lattice::volume`]): the free energy's second derivative in a uniform twist of the
/// angles per unit length, averaged over the twist's directions, per unit volume, so that at
/// the BKT point it is `2 T / pi` on every lattice. On the square and cubic lattices
/// `sum_d S_d^2 / (D N)`.
fn helicity_terms(lattice: &Lattice, cosines: f64, sines: impl Iterator<Item = f64>) -> (f64, f64) {
    let mut current = [0.0; 3];
    for (c, sine) in (0..).zip(sines) {
        for (total, along) in current.iter_mut().zip(lattice.bond_vector(c)) {
            *total += along * sine;
        }
    }
    let per_volume = f64::from(lattice.dims) * lattice.volume();
    let squared: f64 = current.iter().map(|j| j * j).sum();
    (cosines / per_volume, squared / per_volume)
}

/// What the estimators take from one observation of discrete states: the order parameter
/// ([`States::order`]) as the one component of `m`, the density of state `s = 0`
/// (Blume-Capel's vacancies), and for `xi/L` the Fourier component of the spins and its `|m|^2`:
/// Blume-Capel's values `s(a)`; the Potts spins' simplex vectors `e_a` (`e_a . e_b =
/// (q delta_ab - 1)/(q - 1)`), whose `|sum_i e_{s_i}|^2 = (q sum_a n_a^2 - N^2)/(q - 1)` and,
/// at a nonzero wave vector, `|sum_i e_{s_i} e^{i k x_i}|^2 = q/(q - 1) sum_a |F_a|^2`; the
/// staggered magnetisation's square `|sum_i eps_i e_{s_i}|^2 = sum_ab D_a D_b e_a . e_b` from the
/// staggered counts `D_a` (the values' products for the other models). All of them per occupied
/// site, as the order parameter is (the energy stays the lattice's total).
fn state_measurement(
    systems: &VectorSystems,
    states: &States,
    o: &VectorObservation,
    sums: StateSums,
) -> VectorMeasurement {
    let dims = systems.lattice.dims as usize;
    let counts = sums.counts();
    let sites = counts.iter().sum::<i64>() as f64;
    let square = |[re, im]: [i64; 2]| (re as f64).powi(2) + (im as f64).powi(2);
    let per_direction = |d: usize| match states.model {
        StateModel::BlumeCapel | StateModel::Ising => square(o.fourier[d][0]),
        StateModel::Potts => {
            let q = f64::from(states.q);
            let sum: f64 = (0..states.q as usize)
                .map(|a| square(sums.fourier(a, d)))
                .sum();
            q / (q - 1.0) * sum
        }
    };
    let phase_unit = f64::from(ONE);
    let fourier =
        (0..dims).map(per_direction).sum::<f64>() / dims as f64 / (phase_unit * sites).powi(2);
    let order = states.order(counts);
    let (zeros, vector_m2) = match states.model {
        StateModel::BlumeCapel => (counts[1] as f64 / sites, order * order),
        StateModel::Ising => (0.0, order * order),
        StateModel::Potts => {
            let q = f64::from(states.q);
            let squares: f64 = counts.iter().map(|&n| (n as f64 / sites).powi(2)).sum();
            (0.0, (q * squares - 1.0) / (q - 1.0))
        }
    };
    VectorMeasurement {
        energy: energy(systems, o, sums.sums),
        m: [order, 0.0, 0.0],
        fourier,
        bond_cosines: 0.0,
        bond_sines_squared: 0.0,
        zeros,
        vector_m2,
        cluster_m2: 0.0,
        staggered_m2: states.staggered_square(sums.staggered()) / (sites * sites),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cpu::CpuVectorEngine;
    use crate::engine::vector::{VectorSweeps, sweeps_plan};
    use crate::engine::{Engine, Lattices};
    use crate::model::vector::fixed::from_f64;
    use crate::model::{Lattice, Shape};

    /// A uniform twist of XY spins on the honeycomb lattice, `theta = k . r` at the sites'
    /// places in the plane (hexagons of side 1: site `(x, y)` at `(sqrt 3 / 2 x, 3/2 y)`, half a
    /// unit lower where `x + y` is odd), gives the current `S = sum_b a_b sin(k . a_b)` of its
    /// bonds: along x (`k` one turn over the torus's width `sqrt 3 L / 2`) the x bonds' sines
    /// are equal and their y parts cancel, `S = (sqrt 3 / 2 N sin(k sqrt 3 / 2), 0)`; along y
    /// (one turn over its height `3 L / 2`) the x bonds from sites of even and odd `x + y` have
    /// opposite sines and y parts, which add, `S = (0, N/2 (sin(k / 2) + sin k))`. Both need the
    /// two kinds of x bond told apart.
    #[test]
    fn a_twist_of_the_honeycomb_gives_the_current_of_its_bonds() {
        let size = 8;
        let lattice = Lattice::shaped(Shape::Honeycomb, 2, size);
        let systems =
            VectorSystems::uniform(lattice, 2, (1, 0.0), vec![0.5], 1, 5).with_missing(None);
        let n = lattice.sites() as f64;
        let root_3 = 3f64.sqrt();
        let turn = 2.0 * std::f64::consts::PI;
        let place = |site: u64| {
            let [x, y, _] = lattice.coords(site);
            let lower = if (x + y) % 2 == 1 { 0.5 } else { 0.0 };
            [root_3 / 2.0 * f64::from(x), 1.5 * f64::from(y) - lower]
        };
        let along_x = turn / (root_3 * f64::from(size) / 2.0);
        let along_y = turn / (1.5 * f64::from(size));
        for (k, current) in [
            (
                [along_x, 0.0],
                [root_3 / 2.0 * n * (along_x * root_3 / 2.0).sin(), 0.0],
            ),
            (
                [0.0, along_y],
                [0.0, n / 2.0 * ((along_y / 2.0).sin() + along_y.sin())],
            ),
        ] {
            let angles: Vec<f64> = (0..lattice.sites())
                .map(|i| k[0] * place(i)[0] + k[1] * place(i)[1])
                .collect();
            let spins: Vec<i32> = (angles.iter().map(|a| from_f64(a.cos())))
                .chain(angles.iter().map(|a| from_f64(a.sin())))
                .collect();
            let mut engine =
                CpuVectorEngine::new(systems.clone(), VectorSweeps::METROPOLIS).unwrap();
            engine.set_spins(&Lattices::Vector(spins)).unwrap();
            let observed = engine.execute(&sweeps_plan(0..0, true)).unwrap();
            let x = measurement(&systems, &observed.vector_observations[0], &[]);
            let expected = (current[0].powi(2) + current[1].powi(2)) / (2.0 * lattice.volume());
            assert!(
                (x.bond_sines_squared - expected).abs() < 1e-6 * expected,
                "k = {k:?}: {} against {expected}",
                x.bond_sines_squared
            );
        }
    }

    /// The 3-state Potts spins' simplex vectors are the 3-state clock's unit vectors: a hot
    /// lattice's `|M|^2 / N^2` and Fourier term from the state counts and the states' Fourier
    /// components equal those of the clock vectors summed directly (within the phase table's
    /// rounding).
    #[test]
    fn potts_fourier_terms_are_those_of_the_simplex_vectors() {
        let lattice = Lattice::new(2, 6);
        let systems = VectorSystems::uniform(lattice, 1, (1, 0.0), vec![0.5], 1, 3)
            .with_states(States::potts(3, 0.0));
        let updates = VectorSweeps::METROPOLIS;
        let mut engine = CpuVectorEngine::new(systems.clone(), updates).unwrap();
        engine.hot_start().unwrap();
        let observed = engine.execute(&sweeps_plan(0..1, true)).unwrap();
        let x = measurement(
            &systems,
            &observed.vector_observations[0],
            &observed.vector_states,
        );
        let Lattices::Vector(spins) = engine.spins().unwrap() else {
            panic!("vector lattices");
        };
        let turn = |a: i32| 2.0 * std::f64::consts::PI * f64::from(a) / 3.0;
        let sites = lattice.sites() as f64;
        let (mut m, mut fourier) = ([0.0; 2], 0.0);
        for d in 0..2 {
            let mut f = [[0.0; 2]; 2];
            for i in 0..lattice.sites() {
                let e = [turn(spins[i as usize]).cos(), turn(spins[i as usize]).sin()];
                let phase = 2.0 * std::f64::consts::PI * f64::from(lattice.coords(i)[d]) / 6.0;
                for c in 0..2 {
                    f[c][0] += e[c] * phase.cos();
                    f[c][1] += e[c] * phase.sin();
                    if d == 0 {
                        m[c] += e[c];
                    }
                }
            }
            fourier += f.iter().flatten().map(|v| v * v).sum::<f64>() / 2.0 / (sites * sites);
        }
        let m2 = (m[0] * m[0] + m[1] * m[1]) / (sites * sites);
        assert!((x.vector_m2 - m2).abs() < 1e-12, "{} {m2}", x.vector_m2);
        assert!(
            (x.fourier - fourier).abs() < 1e-7,
            "{} {fourier}",
            x.fourier
        );
        assert!(fourier > 1e-4, "a hot lattice has a Fourier term");
    }
}
