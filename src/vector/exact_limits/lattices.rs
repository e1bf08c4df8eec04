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
/// counts over all of the cells' sites); and on sizes that no Metropolis colouring tiles, which
/// cluster updates alone take: the Ising model on the 4^2 triangular torus by both and on the
/// kagome lattice of 4^2 cells by Swendsen-Wang. The enumeration's couplings come from the
/// lattice alone.
#[test]
fn cluster_updates_on_other_lattices_give_the_exact_energy_and_moments() {
    use crate::config::ClusterUpdate::{SwendsenWang, Wolff};
    use crate::exact::enumerate_states;
    use crate::model::lattices::kagome_holes;
    use crate::model::vacancies::Vacancies;
    use crate::model::vector::states::States;
    let cases = [
        (
            (Shape::Triangular, 6),
            0.55,
            States::ising(0.0),
            0.3,
            &[SwendsenWang][..],
        ),
        (
            (Shape::Triangular, 6),
            0.8,
            States::potts(3, 0.0),
            0.8,
            &[Wolff],
        ),
        (
            (Shape::Honeycomb, 4),
            0.0,
            States::ising(0.0),
            0.6,
            &[Wolff],
        ),
        (
            (Shape::Kagome, 6),
            0.45,
            States::ising(0.0),
            0.5,
            &[SwendsenWang, Wolff],
        ),
        // Sizes the colours of Metropolis sweeps do not tile.
        (
            (Shape::Triangular, 4),
            0.0,
            States::ising(0.0),
            0.26,
            &[SwendsenWang, Wolff],
        ),
        (
            (Shape::Kagome, 4),
            0.0,
            States::ising(0.0),
            0.45,
            &[SwendsenWang],
        ),
    ];
    for ((shape, size), dilution, states, beta, updates) in cases {
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
/// the coordinates (`e`, `c`, `m2`, `m4`, and `m2` from the clusters' magnetisations).
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

/// The helicity modulus is per unit area on every lattice: for the 2-state clock (the Ising
/// model, whose bonds have no sine) it is `-E / (2 V)`, per spin `-e / 2` on the square
/// lattice, `-e / sqrt 3` on the triangular lattice (a site covers `sqrt 3 / 2`), `-sqrt 3 e / 4`
/// on the kagome lattice (three spins on four such sites) and `-2 e / (3 sqrt 3)` on the
/// honeycomb lattice (a hexagon of side 1 for two sites).
#[test]
fn the_helicity_modulus_is_per_unit_area_on_every_lattice() {
    let root_3 = 3f64.sqrt();
    for (shape, size, per_energy) in [
        (Shape::Hypercubic, 4, -0.5),
        (Shape::Triangular, 6, -1.0 / root_3),
        (Shape::Kagome, 6, -root_3 / 4.0),
        (Shape::Honeycomb, 4, -2.0 / (3.0 * root_3)),
    ] {
        let lattice = Lattice::shaped(shape, 2, size);
        let systems = VectorSystems::uniform(lattice, 2, (1, 0.0), vec![0.5], 2, 37)
            .with_clock(2)
            .with_missing(None);
        let estimates = simulate(&systems, VectorSweeps::METROPOLIS, UNIFORM, (10, 200));
        let helicity = estimates.helicity.expect("a helicity modulus");
        let expected = per_energy * estimates.e.mean;
        assert!(
            (helicity.mean - expected).abs() < 1e-9 * expected.abs(),
            "{shape:?}: {} against {expected}",
            helicity.mean
        );
    }
}

/// A bond of a tiny lattice for [`enumerated_helicity`]: its two sites, its unit vector in
/// space and its direction on the lattice the engines walk.
type PlanarBond = (u64, u64, [f64; 2], usize);

/// The helicity modulus per unit area of the `q`-state clock ferromagnet on `bonds` of `sites`
/// spins covering `area`, at `beta`, by exact enumeration (site 0 held in state 0: every term
/// is a function of the angles' differences): `Y = (<C> - beta <|S|^2>) / (2 V)` from every
/// configuration's bond cosines `C` and current `S = sum_b a_b sin(theta_i - theta_j)`; and the
/// square lattice's form, the directions taken as axes with a unit of area per site,
/// `(<C> - beta <sum_d S_d^2>) / (D N)` over the `D` directions.
fn enumerated_helicity(q: u32, beta: f64, sites: u32, bonds: &[PlanarBond], area: f64) -> [f64; 2] {
    let angle = |k: u32| 2.0 * std::f64::consts::PI * f64::from(k) / f64::from(q);
    let (cos, sin): (Vec<f64>, Vec<f64>) = (0..q).map(|k| (angle(k).cos(), angle(k).sin())).unzip();
    let directions = bonds.iter().map(|b| b.3 + 1).max().unwrap_or(0);
    let (mut z, mut cosines, mut currents, mut axes) = (0.0, 0.0, 0.0, 0.0);
    for configuration in 0..q.pow(sites - 1) {
        let state = |site: u64| match site {
            0 => 0,
            _ => configuration / q.pow(site as u32 - 1) % q,
        };
        let (mut cosine, mut current, mut per_axis) = (0.0, [0.0; 2], [0.0; 3]);
        for &(site, neighbour, unit, d) in bonds {
            let difference = ((state(site) + q - state(neighbour)) % q) as usize;
            cosine += cos[difference];
            current[0] += unit[0] * sin[difference];
            current[1] += unit[1] * sin[difference];
            per_axis[d] += sin[difference];
        }
        let weight = (beta * cosine).exp();
        z += weight;
        cosines += weight * cosine;
        currents += weight * (current[0] * current[0] + current[1] * current[1]);
        axes += weight * per_axis.iter().map(|s| s * s).sum::<f64>();
    }
    let per_axes = (directions as u32 * sites) as f64;
    [
        (cosines - beta * currents) / z / (2.0 * area),
        (cosines - beta * axes) / z / per_axes,
    ]
}

/// The clock model's helicity modulus on `lattice` (with `bonds`, covering `area`) at `beta`
/// against [`enumerated_helicity`], within 4 errors, and far (10 errors) from the square
/// lattice's form of the directions as axes.
fn assert_helicity_enumerated(
    lattice: Lattice,
    q: u32,
    beta: f64,
    bonds: &[PlanarBond],
    area: f64,
) {
    let [exact, as_axes] = enumerated_helicity(q, beta, lattice.sites() as u32, bonds, area);
    let systems = VectorSystems::uniform(lattice, 2, (1, 0.0), vec![beta], 4, 41)
        .with_clock(q)
        .with_missing(None);
    let estimates = simulate(&systems, VectorSweeps::METROPOLIS, UNIFORM, (200, 20000));
    let helicity = estimates.helicity.expect("a helicity modulus");
    assert_near("helicity modulus", helicity, exact, (4.0, 0.0), 0.01);
    assert!(
        (as_axes - exact).abs() > 10.0 * helicity.err,
        "{:?}, directions as axes: {as_axes} against {exact} (error {})",
        lattice.shape,
        helicity.err
    );
}

/// The helicity modulus on the triangular lattice against exact enumeration: the 4-state clock
/// on the 3^2 torus (nine spins, six distinct neighbours each) at beta = 0.8, its bonds' unit
/// vectors `(1, 0)`, `(-1/2, sqrt 3 / 2)`, `(1/2, sqrt 3 / 2)` along x, y and the diagonal,
/// `V = 9 sqrt 3 / 2`.
#[test]
fn the_triangular_helicity_modulus_matches_enumeration() {
    let lattice = Lattice::triangular(3);
    let root_3 = 3f64.sqrt();
    let unit = [[1.0, 0.0], [-0.5, root_3 / 2.0], [0.5, root_3 / 2.0]];
    let bonds: Vec<PlanarBond> = (0..9)
        .flat_map(|site| {
            (lattice.forward_neighbours(site).enumerate())
                .map(move |(d, neighbour)| (site, neighbour, unit[d], d))
        })
        .collect();
    assert_helicity_enumerated(lattice, 4, 0.8, &bonds, 9.0 * root_3 / 2.0);
}

/// The helicity modulus on the honeycomb lattice against exact enumeration: the 3-state clock
/// on the 4^2 brick wall (sixteen spins, three neighbours each) at beta = 0.9. Its hexagons of
/// side 1 put a site of even `x + y` below its `+y` neighbour and its x bonds at
/// `(+-sqrt 3 / 2, -1/2)`, a site of odd `x + y` above its `-y` neighbour and its x bonds at
/// `(+-sqrt 3 / 2, 1/2)`; the area is `3 sqrt 3 / 4` a site.
#[test]
fn the_honeycomb_helicity_modulus_matches_enumeration() {
    let lattice = Lattice::shaped(Shape::Honeycomb, 2, 4);
    let half_root_3 = 3f64.sqrt() / 2.0;
    let bonds: Vec<PlanarBond> = (0..16)
        .flat_map(|site| {
            let [x, y, _] = lattice.coords(site);
            let even = (x + y) % 2 == 0;
            let x_bond = [half_root_3, if even { -0.5 } else { 0.5 }];
            let (right, up) = (lattice.index([x + 1, y, 0]), lattice.index([x, y + 1, 0]));
            let vertical = even.then_some((site, up, [0.0, 1.0], 1));
            std::iter::once((site, right, x_bond, 0)).chain(vertical)
        })
        .collect();
    assert_eq!(bonds.len(), 24);
    assert_helicity_enumerated(lattice, 3, 0.9, &bonds, 16.0 * 3.0 * half_root_3 / 2.0);
}
