//! The lattices beside the square and cubic ones against exact enumeration on tiny lattices:
//! the Ising model's discrete states on the triangular, honeycomb and kagome lattices by
//! Metropolis and the heat bath, their cluster updates, Houdayer's replica moves of a glass
//! sample there, and the planar spins' helicity modulus per unit area.

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

/// The helicity modulus is per unit area on every lattice whose bonds of a direction point one
/// way: for the 2-state clock (the Ising model, whose bonds have no sine) it is `-E / (2 V)`,
/// per spin `-e / 2` on the square lattice, `-e / sqrt 3` on the triangular lattice (a site
/// covers `sqrt 3 / 2`) and `-sqrt 3 e / 4` on the kagome lattice (three spins on four such
/// sites). The honeycomb lattice's brick wall reports none.
#[test]
fn the_helicity_modulus_is_per_unit_area_on_every_lattice() {
    let root_3 = 3f64.sqrt();
    for (shape, size, per_energy) in [
        (Shape::Hypercubic, 4, -0.5),
        (Shape::Triangular, 6, -1.0 / root_3),
        (Shape::Kagome, 6, -root_3 / 4.0),
        (Shape::Honeycomb, 4, f64::NAN),
    ] {
        let lattice = Lattice::shaped(shape, 2, size);
        let systems = VectorSystems::uniform(lattice, 2, (1, 0.0), vec![0.5], 2, 37)
            .with_clock(2)
            .with_missing(None);
        let estimates = simulate(&systems, VectorSweeps::METROPOLIS, UNIFORM, (10, 200));
        let Some(helicity) = estimates.helicity else {
            assert_eq!(shape, Shape::Honeycomb, "no helicity modulus");
            continue;
        };
        let expected = per_energy * estimates.e.mean;
        assert!(
            (helicity.mean - expected).abs() < 1e-9 * expected.abs(),
            "{shape:?}: {} against {expected}",
            helicity.mean
        );
    }
}

/// The helicity modulus on the triangular lattice against exact enumeration: the 4-state clock
/// on the 3^2 torus (nine spins, six distinct neighbours each) at beta = 0.8, from every
/// configuration's bond cosines and the current `sum_b a_b sin(theta_i - theta_j)` of its
/// bonds' unit vectors `a_b` (`(1, 0)`, `(-1/2, sqrt 3 / 2)`, `(1/2, sqrt 3 / 2)` along x, y
/// and the diagonal), per unit area: `Y = (<C> - beta <|S|^2>) / (2 V)`, `V = 9 sqrt 3 / 2`.
/// The square lattice's form, the directions taken as three axes per site, lies far off.
#[test]
fn the_triangular_helicity_modulus_matches_enumeration() {
    let (q, beta, lattice) = (4u32, 0.8, Lattice::triangular(3));
    let root_3 = 3f64.sqrt();
    let unit = [[1.0, 0.0], [-0.5, root_3 / 2.0], [0.5, root_3 / 2.0]];
    let angle = |k: u32| 2.0 * std::f64::consts::PI * f64::from(k) / f64::from(q);
    let (mut z, mut cosines, mut currents, mut axes) = (0.0, 0.0, 0.0, 0.0);
    for configuration in 0..q.pow(9) {
        let state = |site: u64| configuration / q.pow(site as u32) % q;
        let (mut cosine, mut current, mut per_axis) = (0.0, [0.0; 2], [0.0; 3]);
        for site in 0..9 {
            for (d, neighbour) in lattice.forward_neighbours(site).enumerate() {
                let difference = angle(state(site)) - angle(state(neighbour));
                cosine += difference.cos();
                current[0] += unit[d][0] * difference.sin();
                current[1] += unit[d][1] * difference.sin();
                per_axis[d] += difference.sin();
            }
        }
        let weight = (beta * cosine).exp();
        z += weight;
        cosines += weight * cosine;
        currents += weight * (current[0] * current[0] + current[1] * current[1]);
        axes += weight * per_axis.iter().map(|s| s * s).sum::<f64>();
    }
    let area = 9.0 * root_3 / 2.0;
    let exact = (cosines - beta * currents) / z / (2.0 * area);
    let as_axes = (cosines - beta * axes) / z / (3.0 * 9.0);
    let systems = VectorSystems::uniform(lattice, 2, (1, 0.0), vec![beta], 4, 41).with_clock(q);
    let estimates = simulate(&systems, VectorSweeps::METROPOLIS, UNIFORM, (200, 20000));
    let helicity = estimates
        .helicity
        .expect("the triangular lattice's helicity modulus");
    assert_near("helicity modulus", helicity, exact, (4.0, 0.0), 0.01);
    assert!(
        (as_axes - exact).abs() > 10.0 * helicity.err,
        "three axes per site: {as_axes} against {exact} (error {})",
        helicity.err
    );
}
