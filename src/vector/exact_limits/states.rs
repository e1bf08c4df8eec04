//! The discrete states against exact limits on tiny lattices: the Potts and Blume-Capel models
//! against the row transfer matrix and exact enumeration (diluted lattices, fields, glasses of
//! +-J and Gaussian couplings, open and antiperiodic edges, the Ising limit of Blume-Capel),
//! their glasses' overlaps, and their cluster updates. The lattices beside the square and cubic
//! ones are in [`super::lattices`].

use super::*;
use crate::config::{Boundaries, Boundary};
use crate::exact::StateAverages;
use crate::vector::summary::improved_estimates;

/// Potts and Blume-Capel models, by Metropolis and by the heat bath: on 4^2 lattices against the
/// row transfer matrix's energy and specific heat, on 2^2 and 2^3 lattices against exact
/// enumeration's order parameter moments and density of `s = 0`; the 3-state Potts model near
/// its transition (`beta_c = 1.005`) in a field, Blume-Capel in both fields.
#[test]
fn discrete_states_give_the_exact_energies_and_moments() {
    use crate::engine::vector::HEAT_BATH;
    use crate::exact::{DiscreteSpins, energy_and_heat, enumerate_states};
    use crate::model::vector::states::States;
    let cases = [
        (States::potts(3, 0.2), 1.0, UNIFORM),
        (States::potts(3, 0.2), 1.0, HEAT_BATH),
        (States::blume_capel(0.5, 0.3), 0.8, UNIFORM),
        (States::blume_capel(1.5, -0.2), 1.2, HEAT_BATH),
    ];
    for (states, beta, width) in cases {
        let what = format!("{:?} q = {}, width {width}", states.model, states.q);
        let spins = DiscreteSpins::of_states(&states);
        let (e, c) = energy_and_heat(&spins, (4, 4), beta);
        let systems = VectorSystems::uniform(Lattice::new(2, 4), 1, (1, 0.0), vec![beta], 4, 5)
            .with_states(states.clone());
        let estimates = simulate(&systems, VectorSweeps::METROPOLIS, width, (200, 6000));
        assert_near(&format!("{what}: e"), estimates.e, e, (4.0, 0.0), 0.02);
        assert_near(&format!("{what}: c"), estimates.c, c, (4.0, 0.0), 0.1);
        for dims in [2, 3] {
            let lattice = Lattice::new(dims, 2);
            let exact = enumerate_states(&states, lattice, (None, &[]), beta);
            let systems = VectorSystems::uniform(lattice, 1, (1, 0.0), vec![beta], 4, 6)
                .with_states(states.clone());
            let estimates = simulate(&systems, VectorSweeps::METROPOLIS, width, (200, 6000));
            let what = format!("{what}, {dims}D");
            assert_near(
                &format!("{what}: e"),
                estimates.e,
                exact.e,
                (4.0, 0.0),
                0.03,
            );
            assert_near(
                &format!("{what}: m2"),
                estimates.m2,
                exact.m2,
                (4.0, 0.0),
                0.03,
            );
            assert_near(
                &format!("{what}: m4"),
                estimates.m4,
                exact.m4,
                (4.0, 0.0),
                0.03,
            );
            if let Some(zeros) = estimates.zeros {
                assert_near(
                    &format!("{what}: zeros"),
                    zeros,
                    exact.zeros,
                    (4.0, 0.0),
                    0.03,
                );
            }
        }
    }
}

/// Diluted lattices: the 3-state Potts model in a field on a 4^2 lattice with four empty sites
/// and the Blume-Capel model on a 2^3 lattice with two, by Metropolis and by the heat bath,
/// against exact enumeration of their occupied sites (energy per lattice site; order parameter
/// and density of zeros per occupied site).
#[test]
fn diluted_lattices_give_their_exact_energy_and_moments() {
    use crate::engine::vector::HEAT_BATH;
    use crate::exact::enumerate_states;
    use crate::model::vacancies::Vacancies;
    use crate::model::vector::states::States;
    let cases = [
        (States::potts(3, 0.3), (2, 4), vec![1, 6, 11, 12], UNIFORM),
        (States::potts(3, 0.3), (2, 4), vec![1, 6, 11, 12], HEAT_BATH),
        (States::blume_capel(0.4, 0.2), (3, 2), vec![0, 5], UNIFORM),
        (States::blume_capel(0.4, 0.2), (3, 2), vec![0, 5], HEAT_BATH),
    ];
    for (states, (dims, size), empty, width) in cases {
        let lattice = Lattice::new(dims, size);
        let beta = 0.9;
        let exact = enumerate_states(&states, lattice, (None, &empty), beta);
        let systems = VectorSystems::uniform(lattice, 1, (1, 0.0), vec![beta], 4, 31)
            .with_states(states.clone())
            .with_vacancies(Vacancies::of_samples(vec![empty]));
        let estimates = simulate(&systems, VectorSweeps::METROPOLIS, width, (200, 6000));
        let what = format!("diluted {:?} {dims}D, width {width}", states.model);
        let zeros = estimates.zeros.map(|zeros| ("zeros", zeros, exact.zeros));
        let moments = [
            ("e", estimates.e, exact.e),
            ("c", estimates.c, exact.c),
            ("m2", estimates.m2, exact.m2),
            ("m4", estimates.m4, exact.m4),
        ];
        for (name, seen, expected) in moments.into_iter().chain(zeros) {
            assert_near(&format!("{what}: {name}"), seen, expected, (4.0, 0.0), 0.1);
        }
    }
}

/// Blume-Capel at `D -> -infinity` is the Ising model (`e` shifted by `D`): at `D = -30` and
/// `beta = 0.6`, where a spin at 0 costs `e^-18`, the row transfer matrix's `e` and `c` on 4^2
/// equal Kaufman's, and Metropolis's `e`, `m2` and density of zeros the Ising model's.
#[test]
fn blume_capel_far_below_the_tricritical_point_is_the_ising_model() {
    use crate::exact::{DiscreteSpins, energy_and_heat, enumerate, kaufman};
    use crate::model::vector::states::States;
    let (d, beta) = (-30.0, 0.6);
    let states = States::blume_capel(d, 0.0);
    let (e, c) = energy_and_heat(&DiscreteSpins::of_states(&states), (4, 4), beta);
    let exact = kaufman(4, beta);
    assert!(
        (e - d - exact.e).abs() < 1e-6,
        "e: {} against {}",
        e - d,
        exact.e
    );
    assert!((c - exact.c).abs() < 1e-5, "c: {c} against {}", exact.c);
    let lattice = Lattice::new(2, 4);
    let ising = enumerate(lattice, &[1; 32], 0.0, beta);
    let systems =
        VectorSystems::uniform(lattice, 1, (1, 0.0), vec![beta], 4, 47).with_states(states);
    let estimates = simulate(&systems, VectorSweeps::METROPOLIS, UNIFORM, (200, 6000));
    let shifted = Estimate {
        mean: estimates.e.mean - d,
        ..estimates.e
    };
    assert_near("e - D", shifted, exact.e, (4.0, 0.0), 0.02);
    assert_near("m2", estimates.m2, ising.m2, (4.0, 0.0), 0.03);
    assert_eq!(estimates.zeros.map(|z| z.mean), Some(0.0));
}

/// The couplings `J` of sample 0 of the glass `systems`, in units of 1.
pub(super) fn sample_couplings(systems: &VectorSystems) -> Vec<f64> {
    use crate::model::vector::SampleBonds;
    use crate::model::vector::gaussian::coupling_value;
    match systems.bonds(0) {
        SampleBonds::PerBond(bonds) => bonds.iter().map(|&j| f64::from(j)).collect(),
        SampleBonds::Words(words) => words.iter().map(|&j| coupling_value(j)).collect(),
        SampleBonds::Uniform(_) => panic!("a glass has bonds per sample"),
    }
}

/// Glasses of discrete states with Gaussian couplings: the Edwards-Anderson glass (two states)
/// in a field and the 3-state Potts glass, one sample each on 2^3 sites, against exact
/// enumeration on its couplings (`e`, `c`, and `q2` of two replicas), by Metropolis and the
/// heat bath.
#[test]
fn gaussian_glasses_of_discrete_states_give_their_exact_energy_and_overlap() {
    use crate::engine::vector::HEAT_BATH;
    use crate::exact::enumerate_states;
    use crate::model::vector::states::States;
    for (states, width) in [
        (States::ising(0.3), UNIFORM),
        (States::potts(3, 0.0), HEAT_BATH),
    ] {
        let lattice = Lattice::new(3, 2);
        let beta = 0.8;
        let systems = VectorSystems::uniform(lattice, 1, (1, 0.0), vec![beta], 4, 43)
            .with_states(states.clone())
            .with_disorder(Disorder::Gaussian, 1);
        let bonds = sample_couplings(&systems);
        assert!(bonds.iter().any(|j| j.fract() != 0.0), "{bonds:?}");
        let exact = enumerate_states(&states, lattice, (Some(&bonds), &[]), beta);
        let estimates = simulate(&systems, VectorSweeps::METROPOLIS, width, (200, 6000));
        let what = format!("Gaussian {:?}", states.model);
        assert_near(
            &format!("{what}: e"),
            estimates.e,
            exact.e,
            (4.0, 0.0),
            0.05,
        );
        assert_near(&format!("{what}: c"), estimates.c, exact.c, (4.0, 0.0), 0.1);
        let overlaps = glass_overlaps(&systems, VectorSweeps::METROPOLIS, (200, 6000));
        assert_near(
            &format!("{what}: q2"),
            overlaps.q2,
            exact.q2,
            (4.0, 0.0),
            0.05,
        );
    }
}

/// The diluted Ising model and Edwards-Anderson glass, as two discrete states: the Ising
/// states' energy on a full 4^2 lattice against Kaufman; a 4^2 Ising lattice with three empty
/// sites in a field, and a 2^3 +-J sample with two, against exact enumeration (the glass's `q2`
/// of two replicas too).
#[test]
fn diluted_ising_models_give_their_exact_energy_moments_and_overlap() {
    use crate::exact::{enumerate_states, kaufman};
    use crate::model::vacancies::Vacancies;
    use crate::model::vector::states::States;
    let full = enumerate_states(&States::ising(0.0), Lattice::new(2, 4), (None, &[]), 0.4);
    let exact = kaufman(4, 0.4);
    assert!((full.e - exact.e).abs() < 1e-12 && (full.c - exact.c).abs() < 1e-11);

    let lattice = Lattice::new(2, 4);
    let empty = vec![2, 7, 13];
    let ising = enumerate_states(&States::ising(0.2), lattice, (None, &empty), 0.5);
    let systems = VectorSystems::uniform(lattice, 1, (1, 0.0), vec![0.5], 4, 37)
        .with_states(States::ising(0.2))
        .with_vacancies(Vacancies::of_samples(vec![empty]));
    let estimates = simulate(&systems, VectorSweeps::METROPOLIS, UNIFORM, (200, 6000));
    for (name, seen, expected) in [
        ("e", estimates.e, ising.e),
        ("c", estimates.c, ising.c),
        ("m2", estimates.m2, ising.m2),
        ("m4", estimates.m4, ising.m4),
    ] {
        assert_near(
            &format!("diluted Ising: {name}"),
            seen,
            expected,
            (4.0, 0.0),
            0.1,
        );
    }

    let lattice = Lattice::new(3, 2);
    let empty = vec![1, 6];
    let glass = VectorSystems::uniform(lattice, 1, (1, 0.0), vec![1.2], 4, 41)
        .with_states(States::ising(0.0))
        .with_disorder(Disorder::Bimodal, 1)
        .with_vacancies(Vacancies::of_samples(vec![empty.clone()]));
    let bonds = sample_couplings(&glass);
    let exact = enumerate_states(&States::ising(0.0), lattice, (Some(&bonds), &empty), 1.2);
    let estimates = simulate(&glass, VectorSweeps::METROPOLIS, UNIFORM, (200, 6000));
    assert_near("diluted glass: e", estimates.e, exact.e, (4.0, 0.0), 0.05);
    let overlaps = glass_overlaps(&glass, VectorSweeps::METROPOLIS, (200, 6000));
    assert_near("diluted glass: q2", overlaps.q2, exact.q2, (4.0, 0.0), 0.05);
}

/// Open and antiperiodic edges: the couplings `J` of a ferromagnet's bonds, 0 across each open
/// edge and -1 across each antiperiodic one, from the sites' coordinates.
pub(super) fn edge_couplings(lattice: Lattice, boundaries: Boundaries) -> Vec<f64> {
    (0..lattice.bonds())
        .map(|bond| {
            let (site, axis) = (
                bond / u64::from(lattice.dims),
                bond % u64::from(lattice.dims),
            );
            let on_edge = lattice.coords(site)[axis as usize] == lattice.size - 1;
            match (on_edge, boundaries.axis(axis as u32)) {
                (false, _) | (true, Boundary::Periodic) => 1.0,
                (true, Boundary::Open) => 0.0,
                (true, Boundary::Antiperiodic) => -1.0,
            }
        })
        .collect()
}

/// `e`, `c`, `m2` and `m4` of `estimates` within 4 errors of the enumeration's `exact`, and
/// where `estimates` has them the staggered `|m_s|`, `m_s2` and `m_s4`.
pub(super) fn assert_moments_near(what: &str, estimates: &VectorEstimates, exact: &StateAverages) {
    let staggered = estimates.staggered.iter().flat_map(|s| {
        [
            ("|m_s|", s.abs_m, exact.staggered[0]),
            ("m_s2", s.m2, exact.staggered[1]),
            ("m_s4", s.m4, exact.staggered[2]),
        ]
    });
    for (name, seen, expected) in [
        ("e", estimates.e, exact.e),
        ("c", estimates.c, exact.c),
        ("m2", estimates.m2, exact.m2),
        ("m4", estimates.m4, exact.m4),
    ]
    .into_iter()
    .chain(staggered)
    {
        assert_near(&format!("{what}: {name}"), seen, expected, (4.0, 0.0), 0.1);
    }
}

/// [`assert_moments_near`], and the clusters' estimator of `m2` within 4 errors of the
/// enumeration's `vector_m2`.
fn assert_cluster_moments_near(
    what: &str,
    (estimates, improved): (&VectorEstimates, &crate::cluster::ClusterEstimates),
    exact: &StateAverages,
) {
    assert_moments_near(what, estimates, exact);
    let m2 = improved.m2;
    let name = format!("{what}: m2 of the clusters");
    assert_near(&name, m2, exact.vector_m2, (4.0, 0.0), 0.1);
}

/// Antiferromagnets on bipartite lattices order in the staggered magnetisation: the Ising
/// antiferromagnet in a field on the 4^2 square lattice, the 3-state Potts antiferromagnet on
/// the 2^3 cube by the heat bath, and the diluted Blume-Capel antiferromagnet on 4^2, against
/// exact enumeration of `|m_s|`, `m_s2` and `m_s4` (with `e`, `c`, `m2`, `m4`). The enumeration
/// itself: at `h = 0` the Ising antiferromagnet is the ferromagnet with one sublattice reversed,
/// so its staggered moments are the ferromagnet's `m2` and `m4`.
#[test]
fn bipartite_antiferromagnets_give_their_exact_staggered_magnetisation() {
    use crate::engine::vector::HEAT_BATH;
    use crate::exact::enumerate_states;
    use crate::model::vacancies::Vacancies;
    use crate::model::vector::states::States;
    let square = Lattice::new(2, 4);
    let antiferromagnetic = vec![-1.0; square.bonds() as usize];
    let gauged = enumerate_states(
        &States::ising(0.0),
        square,
        (Some(&antiferromagnetic), &[]),
        0.6,
    );
    let ferromagnet = enumerate_states(&States::ising(0.0), square, (None, &[]), 0.6);
    assert!((gauged.staggered[1] - ferromagnet.m2).abs() < 1e-12);
    assert!((gauged.staggered[2] - ferromagnet.m4).abs() < 1e-12);
    assert!(
        gauged.m2 < 0.5 * ferromagnet.m2,
        "the antiferromagnet's m2 is small"
    );
    let cases = [
        (States::ising(0.5), (2, 4), 0.6, UNIFORM, None),
        (States::potts(3, 0.0), (3, 2), 1.5, HEAT_BATH, None),
        (
            States::blume_capel(0.2, 0.3),
            (2, 4),
            0.8,
            UNIFORM,
            Some(0.2),
        ),
    ];
    for (states, (dims, size), beta, width, dilution) in cases {
        let lattice = Lattice::new(dims, size);
        let mut systems = VectorSystems::uniform(lattice, 1, (-1, 0.0), vec![beta], 4, 83)
            .with_states(states.clone());
        if let Some(p) = dilution {
            systems = systems.with_vacancies(Vacancies::draw(&lattice, 9, 1, p));
        }
        assert!(systems.is_bipartite_antiferromagnet());
        let bonds = vec![-1.0; lattice.bonds() as usize];
        let empty = (systems.vacancies.as_ref()).map_or(Vec::new(), |v| v.sample(0).to_vec());
        let exact = enumerate_states(&states, lattice, (Some(&bonds), &empty), beta);
        let estimates = simulate(&systems, VectorSweeps::METROPOLIS, width, (200, 6000));
        let what = format!(
            "{:?} antiferromagnet {dims}D, {} empty",
            states.model,
            empty.len()
        );
        assert!(estimates.staggered.is_some(), "{what}: staggered estimates");
        assert!(
            exact.staggered[1] > 2.0 * exact.m2,
            "{what}: m_s2 {:?}",
            exact.staggered
        );
        assert_moments_near(&what, &estimates, &exact);
    }
}

/// Lattices with open and antiperiodic edges: the Ising states on 4^2 in a field, the 3-state
/// Potts model and Blume-Capel on 2^3, against exact enumeration on the edges' couplings (`e`,
/// `c`, `m2`, `m4`), by Metropolis and the heat bath; the twisted 4^2 Ising torus's `e` and `c`
/// against Kaufman's twisted terms too.
#[test]
fn open_and_antiperiodic_edges_give_the_exact_energy_and_moments() {
    use crate::config::Boundary::{Antiperiodic, Open, Periodic};
    use crate::engine::vector::HEAT_BATH;
    use crate::exact::{enumerate_states, kaufman_twisted};
    use crate::model::vector::states::States;
    let cases = [
        (
            States::ising(0.2),
            (2, 4),
            [Open, Antiperiodic, Periodic],
            0.5,
            UNIFORM,
        ),
        (
            States::ising(0.0),
            (2, 4),
            [Antiperiodic, Periodic, Periodic],
            0.44,
            UNIFORM,
        ),
        (
            States::potts(3, 0.1),
            (3, 2),
            [Open, Periodic, Open],
            1.1,
            HEAT_BATH,
        ),
        (
            States::blume_capel(0.3, 0.0),
            (3, 2),
            [Antiperiodic, Open, Periodic],
            0.9,
            UNIFORM,
        ),
    ];
    for (states, (dims, size), axes, beta, width) in cases {
        let lattice = Lattice::new(dims, size);
        let boundaries = Boundaries::new(&axes[..dims as usize]);
        let systems = VectorSystems::uniform(lattice, 1, (1, 0.0), vec![beta], 4, 53)
            .with_states(states.clone())
            .with_boundaries(boundaries);
        let bonds = edge_couplings(lattice, boundaries);
        assert_eq!(sample_couplings(&systems), bonds);
        let exact = enumerate_states(&states, lattice, (Some(&bonds), &[]), beta);
        let estimates = simulate(&systems, VectorSweeps::METROPOLIS, width, (200, 6000));
        let what = format!("{:?} {dims}D{}", states.model, boundaries.describe());
        assert_moments_near(&what, &estimates, &exact);
        if states.q == 2 && axes[1] == Periodic && axes[0] == Antiperiodic {
            let twisted = kaufman_twisted(size, beta, 1).unwrap();
            assert!((exact.e - twisted.e).abs() < 1e-12, "{what}: e");
            assert!((exact.c - twisted.c).abs() < 1e-11, "{what}: c");
        }
    }
}

/// The 3-state Potts glass: one sample's +-J bonds on 2^2 and 2^3 lattices against exact
/// enumeration on the same bonds, by Metropolis and by the heat bath; and the 10-state glass on
/// 2^2 by the heat bath (the overlaps' 100 pairs of states).
#[test]
fn a_potts_glass_sample_gives_its_exact_energy_and_moments() {
    use crate::engine::vector::HEAT_BATH;
    use crate::exact::enumerate_states;
    use crate::model::vector::states::States;
    for (q, dims, width) in [(3, 2, UNIFORM), (3, 3, HEAT_BATH), (10, 2, HEAT_BATH)] {
        let lattice = Lattice::new(dims, 2);
        let beta = 1.3;
        let systems = VectorSystems::uniform(lattice, 1, (1, 0.0), vec![beta], 4, 23)
            .with_states(States::potts(q, 0.0))
            .with_disorder(Disorder::Bimodal, 1);
        let bonds = sample_couplings(&systems);
        assert!(bonds.contains(&-1.0) && bonds.contains(&1.0), "{bonds:?}");
        let exact = enumerate_states(&States::potts(q, 0.0), lattice, (Some(&bonds), &[]), beta);
        let estimates = simulate(&systems, VectorSweeps::METROPOLIS, width, (200, 8000));
        let what = format!("q = {q}, {dims}D, width {width}");
        assert_near(
            &format!("{what}: e"),
            estimates.e,
            exact.e,
            (4.0, 0.0),
            0.03,
        );
        assert_near(&format!("{what}: c"), estimates.c, exact.c, (4.0, 0.0), 0.1);
        assert_near(
            &format!("{what}: m2"),
            estimates.m2,
            exact.m2,
            (4.0, 0.0),
            0.03,
        );
        let overlaps = glass_overlaps(&systems, VectorSweeps::METROPOLIS, (200, 8000));
        assert_near(
            &format!("{what}: q2"),
            overlaps.q2,
            exact.q2,
            (4.0, 0.0),
            0.03,
        );
    }
}

/// Independent replicas of discrete states (beta = 0, every state uniform): the Potts spins'
/// simplex tensor overlap has chi_SG = 1 and a Binder ratio of 0, as vectors' does; diluted
/// lattices too, per occupied site.
#[test]
fn independent_replicas_of_discrete_states_have_chi_sg_of_one() {
    use crate::model::vacancies::Vacancies;
    use crate::model::vector::states::States;
    for (q, dilution) in [(3, 0.0), (4, 0.3)] {
        let lattice = Lattice::new(3, 4);
        let systems = VectorSystems::uniform(lattice, 1, (1, 0.0), vec![0.0], 4, 29)
            .with_states(States::potts(q, 0.0))
            .with_disorder(Disorder::Bimodal, 8);
        let systems = match dilution > 0.0 {
            true => systems.with_vacancies(Vacancies::draw(&lattice, 29, 8, dilution)),
            false => systems,
        };
        let estimates = glass_overlaps(&systems, VectorSweeps::METROPOLIS, (2, 400));
        let what = format!("q = {q}, dilution {dilution}");
        assert_near(&format!("{what}: g"), estimates.g, 0.0, (4.0, 0.01), 0.05);
        let occupied = (0..8)
            .map(|s| systems.occupied_sites(s) as f64)
            .sum::<f64>()
            / 8.0;
        // chi_SG counts the lattice's sites, the overlap the occupied ones.
        let chi = lattice.sites() as f64 / occupied;
        assert_near(
            &format!("{what}: chi_SG"),
            estimates.chi_sg,
            chi,
            (4.0, 0.0),
            0.08,
        );
    }
}

/// Swendsen-Wang and Wolff updates of discrete states alone (no Metropolis sweep), at
/// `beta` on `lattice` with `empty` sites (besides the kagome lattice's holes): their estimates
/// and improved estimators, one measurement per update.
fn clusters_alone(
    states: &crate::model::vector::states::States,
    (lattice, empty, boundaries): (Lattice, &[u32], Boundaries),
    beta: f64,
    update: crate::config::ClusterUpdate,
    measure: u32,
) -> (VectorEstimates, crate::cluster::ClusterEstimates) {
    use crate::model::vacancies::Vacancies;
    let diluted = (!empty.is_empty()).then(|| Vacancies::of_samples(vec![empty.to_vec()]));
    let systems = VectorSystems::uniform(lattice, 1, (1, 0.0), vec![beta], 4, 53)
        .with_states(states.clone())
        .with_boundaries(boundaries)
        .with_missing(diluted);
    let series = simulated_series(&systems, clusters_only(update), UNIFORM, (100, measure));
    let shape = (1, lattice.size, lattice.spins());
    let improved = improved_estimates(update, beta, lattice, &series).expect("every size");
    let estimates = vector_estimates(beta, shape, &series, extras(&systems));
    (estimates, improved)
}

/// [`clusters_alone`] of `states` on `place` at `beta`, 6000 updates, against the enumeration's
/// `exact` ([`assert_cluster_moments_near`]).
pub(super) fn assert_clusters_give(
    what: &str,
    (states, place): (
        &crate::model::vector::states::States,
        (Lattice, &[u32], Boundaries),
    ),
    beta: f64,
    update: crate::config::ClusterUpdate,
    exact: &StateAverages,
) {
    let (estimates, improved) = clusters_alone(states, place, beta, update, 6000);
    assert_cluster_moments_near(what, (&estimates, &improved), exact);
}

/// The cluster updates of discrete states sample the Boltzmann distribution: the 2-state Potts
/// model by Swendsen-Wang at its critical point on 16^2 against Kaufman (`H = -sum delta` is
/// the Ising model at `beta / 2` shifted: `e = (e_Ising - 2) / 2`, `c = c_Ising`); the 3-state
/// Potts model by both updates on 4^2 against the row transfer matrix near its transition, on
/// 2^3 (two bonds join each pair of neighbours) against exact enumeration; a diluted 3-state
/// Potts model by Wolff (whose seed may be an empty site) and a diluted Ising model by
/// Swendsen-Wang against exact enumeration of their occupied sites. The improved estimators
/// from the cluster sizes give the exact `<|m|^2>` of the simplex vectors (the Ising spins')
/// on 2^3 and the diluted lattices.
#[test]
fn cluster_updates_give_the_exact_energies_and_moments() {
    use crate::config::ClusterUpdate::{SwendsenWang, Wolff};
    use crate::exact::{DiscreteSpins, energy_and_heat, enumerate_states, kaufman};
    use crate::model::vector::states::States;
    let beta_c = (1.0 + 2f64.sqrt()).ln();
    let ising = kaufman(16, beta_c / 2.0);
    let (potts2, _) = clusters_alone(
        &States::potts(2, 0.0),
        (Lattice::new(2, 16), &[], Boundaries::PERIODIC),
        beta_c,
        SwendsenWang,
        4000,
    );
    let e = (ising.e - 2.0) / 2.0;
    assert_near("q = 2 SW: e", potts2.e, e, (4.0, 0.0), 0.01);
    assert_near("q = 2 SW: c", potts2.c, ising.c, (4.0, 0.0), 0.1);
    let potts3 = States::potts(3, 0.0);
    let beta = 1.0;
    let (e, c) = energy_and_heat(&DiscreteSpins::of_states(&potts3), (4, 4), beta);
    for update in [SwendsenWang, Wolff] {
        let what = format!("q = 3 {update:?} 4^2");
        let (estimates, _) = clusters_alone(
            &potts3,
            (Lattice::new(2, 4), &[], Boundaries::PERIODIC),
            beta,
            update,
            6000,
        );
        assert_near(&format!("{what}: e"), estimates.e, e, (4.0, 0.0), 0.03);
        assert_near(&format!("{what}: c"), estimates.c, c, (4.0, 0.0), 0.15);
        let cube = Lattice::new(3, 2);
        let exact = enumerate_states(&potts3, cube, (None, &[]), beta);
        let (estimates, improved) = clusters_alone(
            &potts3,
            (cube, &[], Boundaries::PERIODIC),
            beta,
            update,
            6000,
        );
        for (name, seen, expected) in [
            ("e", estimates.e, exact.e),
            ("m2", estimates.m2, exact.m2),
            ("m2 of the cluster sizes", improved.m2, exact.vector_m2),
            (
                "m2 of the simplex vectors",
                estimates.simplex_m2.unwrap(),
                exact.vector_m2,
            ),
        ] {
            let what = format!("q = 3 {update:?} 2^3: {name}");
            assert_near(&what, seen, expected, (4.0, 0.0), 0.03);
        }
    }
    let empty = [1, 6, 11, 12];
    let square = Lattice::new(2, 4);
    for (states, update) in [(potts3, Wolff), (States::ising(0.0), SwendsenWang)] {
        let exact = enumerate_states(&states, square, (None, &empty), beta);
        let what = format!("diluted {:?} {update:?}", states.model);
        let place = (square, &empty[..], Boundaries::PERIODIC);
        assert_clusters_give(&what, (&states, place), beta, update, &exact);
    }
}

/// Cluster updates with open edges, across which no bond joins, and antiperiodic ones, across
/// which a bond joins opposite spins: the Ising model on 4^2 with an open x axis (Swendsen-Wang
/// and Wolff), the 3-state Potts model on 2^3 with open x and z axes (Wolff), the Ising model on
/// 4^2 open along x and antiperiodic along y (Swendsen-Wang) and on 2^3 antiperiodic along x
/// and z (Wolff; two bonds join each pair of neighbours, one of them reversed), against exact
/// enumeration on the edges' couplings (`e`, `c`, `m2`, `m4`, and the clusters' estimator of
/// `m2`: across an antiperiodic edge of the clusters' magnetisations, `sum_C M_C^2` by
/// Swendsen-Wang and `s_seed M_C` of the seed's cluster by Wolff).
#[test]
fn cluster_updates_with_open_and_antiperiodic_edges_give_the_exact_energy_and_moments() {
    use crate::config::Boundary::{Antiperiodic, Open, Periodic};
    use crate::config::ClusterUpdate::{SwendsenWang, Wolff};
    use crate::exact::enumerate_states;
    use crate::model::vector::states::States;
    let cases = [
        (
            States::ising(0.0),
            (2, 4),
            [Open, Periodic, Periodic],
            SwendsenWang,
            0.5,
        ),
        (
            States::ising(0.0),
            (2, 4),
            [Open, Periodic, Periodic],
            Wolff,
            0.5,
        ),
        (
            States::potts(3, 0.0),
            (3, 2),
            [Open, Periodic, Open],
            Wolff,
            1.2,
        ),
        (
            States::ising(0.0),
            (2, 4),
            [Open, Antiperiodic, Periodic],
            SwendsenWang,
            0.5,
        ),
        (
            States::ising(0.0),
            (3, 2),
            [Antiperiodic, Periodic, Antiperiodic],
            Wolff,
            0.4,
        ),
    ];
    for (states, (dims, size), axes, update, beta) in cases {
        let lattice = Lattice::new(dims, size);
        let boundaries = Boundaries::new(&axes[..dims as usize]);
        let bonds = edge_couplings(lattice, boundaries);
        let exact = enumerate_states(&states, lattice, (Some(&bonds), &[]), beta);
        let what = format!(
            "{:?} {update:?} {dims}D{}",
            states.model,
            boundaries.describe()
        );
        assert_clusters_give(
            &what,
            (&states, (lattice, &[], boundaries)),
            beta,
            update,
            &exact,
        );
    }
}
