//! The lattices beside the square and cubic ones against exact enumeration on tiny lattices:
//! the Ising model's discrete states on the triangular, honeycomb and kagome lattices by
//! Metropolis and the heat bath, their cluster updates, and Houdayer's replica moves of a glass
//! sample there.

use super::states::{assert_clusters_give, assert_moments_near, sample_couplings};
use super::*;
use crate::config::Boundaries;
use crate::model::Shape;

/// The couplings of a uniform `j` on the bonds of `lattice` (`site * directions + d`), 0 on a
/// honeycomb's gaps (its `+y` bond from a site of odd `x + y`): stated here apart from the
/// model's, which they check.
fn lattice_bonds(lattice: &Lattice, j: i32) -> Vec<f64> {
    let directions = u64::from(lattice.directions());
    (0..lattice.bonds())
        .map(|bond| {
            let [x, y, _] = lattice.coords(bond / directions);
            let gap =
                lattice.shape == Shape::Honeycomb && bond % directions == 1 && (x + y) % 2 == 1;
            if gap { 0.0 } else { f64::from(j) }
        })
        .collect()
}

/// The lattices beside the square and cubic ones, as [`VectorSystems::with_missing`] draws them,
/// against exact enumeration on their bonds (`e`, `c`, `m2`, `m4`): the Ising ferromagnet in a
/// field and the (frustrated) antiferromagnet on the 3^2 triangular torus (six neighbours,
/// three colours), the antiferromagnet in a field on the 4^2 honeycomb brick wall (its `y` bonds
/// where `x + y` is odd 0), and the ferromagnet on the kagome lattice of 6^2 triangular cells
/// (its 27 sites, some of them diluted), by Metropolis and the heat bath.
#[test]
fn triangular_honeycomb_and_kagome_lattices_give_their_exact_energy_and_moments() {
    use crate::engine::vector::HEAT_BATH;
    use crate::exact::enumerate_states;
    use crate::model::lattices::kagome_holes;
    use crate::model::vacancies::Vacancies;
    use crate::model::vector::states::States;
    let cases = [
        (Shape::Triangular, 3, (1, 0.3), 0.4, UNIFORM),
        (Shape::Triangular, 3, (-1, 0.0), 0.9, HEAT_BATH),
        (Shape::Honeycomb, 4, (-1, 0.5), 0.7, UNIFORM),
        (Shape::Kagome, 6, (1, 0.0), 0.5, UNIFORM),
    ];
    for (shape, size, (j, field), beta, width) in cases {
        let lattice = Lattice::shaped(shape, 2, size);
        let states = States::ising(field);
        let diluted = (shape == Shape::Kagome).then(|| Vacancies::draw(&lattice, 3, 1, 0.3));
        let systems = VectorSystems::uniform(lattice, 1, (j, 0.0), vec![beta], 4, 71)
            .with_states(states.clone())
            .with_missing(diluted);
        let bonds = lattice_bonds(&lattice, j);
        let empty = (systems.vacancies.as_ref()).map_or(Vec::new(), |v| v.sample(0).to_vec());
        if shape == Shape::Kagome {
            assert!(kagome_holes(&lattice).iter().all(|h| empty.contains(h)));
            assert!((12..27).contains(&empty.len()), "{} empty", empty.len());
        }
        let exact = enumerate_states(&states, lattice, (Some(&bonds), &empty), beta);
        let estimates = simulate(&systems, VectorSweeps::METROPOLIS, width, (200, 6000));
        let what = format!("{shape:?} J = {j}, h = {field}");
        let bipartite_antiferromagnet = shape == Shape::Honeycomb;
        assert_eq!(
            estimates.staggered.is_some(),
            bipartite_antiferromagnet,
            "{what}"
        );
        assert_moments_near(&what, &estimates, &exact);
    }
}

/// Cluster updates on the lattices beside the square and cubic ones, against exact enumeration
/// of their occupied sites on their bonds (`e`, `c`, `m2`, `m4` and the clusters' estimator of
/// `m2`): on the diluted 6^2 triangular torus (three bond directions, the diagonal's bonds across
/// both seams) the Ising model by Swendsen-Wang and the 3-state Potts model by Wolff, the Ising
/// model on the 4^2 honeycomb brick wall by Wolff (no bond across its gaps), and on the diluted
/// kagome lattice of 6^2 triangular cells by both (Wolff's seed may be a hole: the estimator
/// counts over all of the cells' sites). The enumeration's couplings come from the lattice
/// alone.
#[test]
fn cluster_updates_on_other_lattices_give_the_exact_energy_and_moments() {
    use crate::config::ClusterUpdate::{SwendsenWang, Wolff};
    use crate::exact::enumerate_states;
    use crate::model::lattices::kagome_holes;
    use crate::model::vacancies::Vacancies;
    use crate::model::vector::states::States;
    let cases = [
        (
            Shape::Triangular,
            0.55,
            States::ising(0.0),
            0.3,
            &[SwendsenWang][..],
        ),
        (Shape::Triangular, 0.8, States::potts(3, 0.0), 0.8, &[Wolff]),
        (Shape::Honeycomb, 0.0, States::ising(0.0), 0.6, &[Wolff]),
        (
            Shape::Kagome,
            0.45,
            States::ising(0.0),
            0.5,
            &[SwendsenWang, Wolff],
        ),
    ];
    for (shape, dilution, states, beta, updates) in cases {
        let size = if shape == Shape::Honeycomb { 4 } else { 6 };
        let lattice = Lattice::shaped(shape, 2, size);
        let bonds = lattice_bonds(&lattice, 1);
        let holes = match shape {
            Shape::Kagome => kagome_holes(&lattice),
            _ => Vec::new(),
        };
        let drawn = Vacancies::draw(&lattice, 5, 1, dilution).with_sites(&holes);
        let empty = drawn.sample(0).to_vec();
        let occupied = lattice.sites() - empty.len() as u64;
        let states_enumerated = f64::from(states.q).powf(occupied as f64);
        assert!(
            occupied >= 6 && states_enumerated <= 2f64.powi(20),
            "{shape:?}: {occupied} spins"
        );
        let exact = enumerate_states(&states, lattice, (Some(&bonds), &empty), beta);
        for &update in updates {
            let what = format!("{:?} {update:?} {shape:?}", states.model);
            let place = (lattice, &empty[..], Boundaries::PERIODIC);
            assert_clusters_give(&what, (&states, place), beta, update, &exact);
        }
    }
}

/// Cluster updates across the antiperiodic edges of the triangular lattice, whose bonds join
/// opposite spins: the diluted Ising model on the 6^2 torus twisted along both axes (the
/// diagonal from the corner `(5, 5)` crosses both edges and keeps its sign) by Swendsen-Wang
/// and Wolff, against exact enumeration of the occupied sites on couplings stated here from
/// the coordinates (`e`, `c`, `m2`, `m4`).
#[test]
fn cluster_updates_across_the_triangular_lattices_antiperiodic_edges_give_the_exact_moments() {
    use crate::config::Boundary::Antiperiodic;
    use crate::config::ClusterUpdate::{SwendsenWang, Wolff};
    use crate::exact::enumerate_states;
    use crate::model::vacancies::Vacancies;
    use crate::model::vector::states::States;
    let lattice = Lattice::triangular(6);
    let twisted = Boundaries::new(&[Antiperiodic, Antiperiodic]);
    let bonds: Vec<f64> = (0..lattice.bonds())
        .map(|bond| {
            let [x, y, _] = lattice.coords(bond / 3);
            // Direction 0 steps along x, 1 along y, the diagonal 2 along both.
            let d = bond % 3;
            let reversals = u32::from(x == 5 && d != 1) + u32::from(y == 5 && d != 0);
            if reversals % 2 == 1 { -1.0 } else { 1.0 }
        })
        .collect();
    let empty = Vacancies::draw(&lattice, 7, 1, 0.5).sample(0).to_vec();
    let occupied = lattice.sites() - empty.len() as u64;
    assert!((8..=20).contains(&occupied), "{occupied} spins");
    let states = States::ising(0.0);
    let beta = 0.5;
    let exact = enumerate_states(&states, lattice, (Some(&bonds), &empty), beta);
    for update in [SwendsenWang, Wolff] {
        let what = format!("twisted triangular {update:?}");
        let place = (lattice, &empty[..], twisted);
        assert_clusters_give(&what, (&states, place), beta, update, &exact);
    }
}

/// Houdayer's replica moves on the lattices beside the square one keep every replica's
/// Boltzmann distribution: a +-J Edwards-Anderson sample (two discrete states) on the 4^2
/// honeycomb brick wall and a diluted one on the 6^2 triangular lattice (three bond directions,
/// the diagonal across both seams), a Metropolis sweep and a move of each replica pair a sweep,
/// cold (beta = 1.5), against exact enumeration of `e` and of `q2` on the sample's couplings. A
/// move whose clusters missed a bond (the diagonal) would change the pair's energy.
#[test]
fn replica_moves_on_other_lattices_keep_the_exact_energy_and_overlap() {
    use crate::config::ReplicaMoves;
    use crate::exact::enumerate_states;
    use crate::model::vacancies::Vacancies;
    use crate::model::vector::states::States;
    let moves = VectorSweeps {
        moves: ReplicaMoves::Houdayer { per_sweep: 1 },
        ..VectorSweeps::METROPOLIS
    };
    let beta = 1.5;
    for (shape, size, dilution) in [(Shape::Honeycomb, 4, 0.0), (Shape::Triangular, 6, 0.55)] {
        let lattice = Lattice::shaped(shape, 2, size);
        let vacancies = (dilution > 0.0).then(|| Vacancies::draw(&lattice, 9, 1, dilution));
        let glass = VectorSystems::uniform(lattice, 1, (1, 0.0), vec![beta], 4, 61)
            .with_states(States::ising(0.0))
            .with_disorder(Disorder::Bimodal, 1)
            .with_missing(vacancies);
        let empty = (glass.vacancies.as_ref()).map_or(Vec::new(), |v| v.sample(0).to_vec());
        assert!(lattice.sites() - empty.len() as u64 <= 20, "{shape:?}");
        let bonds = sample_couplings(&glass);
        let exact = enumerate_states(&States::ising(0.0), lattice, (Some(&bonds), &empty), beta);
        let estimates = simulate(&glass, moves, UNIFORM, (200, 6000));
        let overlaps = glass_overlaps(&glass, moves, (200, 6000));
        for (name, seen, expected) in [("e", estimates.e, exact.e), ("q2", overlaps.q2, exact.q2)] {
            let what = format!("{shape:?} glass with Houdayer's moves: {name}");
            assert_near(&what, seen, expected, (4.0, 0.0), 0.05);
        }
    }
}
