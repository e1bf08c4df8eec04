//! Estimates against exact values: which runs have Kaufman's values, and the warnings a run
//! gives where an estimate lies far from one (a run out of equilibrium, or too short for its
//! errors, shows here first).

use super::{ExactIsing2d, kaufman, kaufman_twisted};
use crate::config::{Disorder, LatticeKind, Model, TemperatureScale};
use crate::stats::Estimate;

/// Estimates farther than this many errors from an exact value are warned about: 4 sigma is
/// rare (6e-5 for a Gaussian) even over many temperatures and observables.
pub const EXACT_TOLERANCE_SIGMAS: f64 = 4.0;

/// Kaufman's exact values of `model` at `beta`, where they exist: the Ising ferromagnet on the
/// square lattice at zero field, neither diluted nor open (on the torus, or twisted by its
/// antiperiodic axes where the twisted terms keep their digits, [`kaufman_twisted`]), its
/// antiferromagnet (the ferromagnet of the spins `(-1)^(x+y) s`, the sizes being even), and the
/// 2-state Potts model, the Ising model at half the coupling shifted by a bond energy a site
/// (`delta(s, s') = (1 + s s')/2`: `e = -1 + e_I/2`, `f = -1 + f_I/2`, `c = c_I` at `beta/2`).
pub fn kaufman_of(model: &Model, beta: f64) -> Option<ExactIsing2d> {
    let boundaries = model.boundaries();
    let plain = model.lattice() == LatticeKind::Square
        && model.field() == 0.0
        && model.disorder() == Disorder::Ferromagnet
        && (!model.is_antiferromagnet() || model.is_staggered())
        && model.dilution() == 0.0
        && !boundaries.any_open();
    if !plain {
        return None;
    }
    match model {
        Model::Ising { .. } => kaufman_twisted(model.size(), beta, boundaries.twisted_axes()),
        Model::Potts { q: 2, .. } => {
            let ising = kaufman(model.size(), beta / 2.0);
            Some(ExactIsing2d {
                e: -1.0 + ising.e / 2.0,
                c: ising.c,
                f: -1.0 + ising.f / 2.0,
            })
        }
        _ => None,
    }
}

/// The ferromagnet's deviations from its exact values, in words, each temperature in `scale`:
/// of each temperature's `(beta, e, c)` that has exact values beside it.
pub fn ferromagnet_deviations<'a>(
    runs: impl IntoIterator<Item = ((f64, Estimate, Estimate), &'a ExactIsing2d)>,
    scale: TemperatureScale,
) -> Vec<String> {
    runs.into_iter()
        .flat_map(|((beta, e, c), x)| {
            [("e", e, x.e), ("c", c, x.c)]
                .into_iter()
                .filter_map(move |(name, got, want)| deviation(scale.show(beta), name, got, want))
        })
        .collect()
}

/// The warning when `got` is more than [`EXACT_TOLERANCE_SIGMAS`] errors from `exact` (none
/// when the error is unknown), at `temperature` ("T 0.950000").
pub fn deviation(temperature: String, name: &str, got: Estimate, exact: f64) -> Option<String> {
    let sigmas = (got.mean - exact).abs() / got.err;
    (sigmas > EXACT_TOLERANCE_SIGMAS && !got.err.is_nan()).then(|| {
        format!(
            "{temperature}: {name} = {:.7} ± {:.7} is {sigmas:.1} errors from the exact {exact:.8}",
            got.mean, got.err
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::config::testing::sample_with;

    fn model(text: &str) -> Model {
        let ising = "Ising(dims: 2, size: 32, field: 0.0)";
        Config::from_ron_str(&sample_with(ising, text))
            .unwrap()
            .model
    }

    /// Kaufman's values for the square torus, twisted or not, its antiferromagnet, and the
    /// 2-state Potts model; none in a field, diluted, with an open edge, on another lattice, of
    /// the Potts antiferromagnet or past the twisted terms' digits.
    #[test]
    fn kaufman_values_are_those_of_the_models_that_have_them() {
        let at = |text: &str, beta: f64| kaufman_of(&model(text), beta);
        let plain = "Ising(dims: 2, size: 8, field: 0.0";
        assert_eq!(at(&format!("{plain})"), 0.4), Some(kaufman(8, 0.4)));
        let twisted = format!("{plain}, boundaries: (Periodic, Antiperiodic))");
        assert_eq!(at(&twisted, 0.4), kaufman_twisted(8, 0.4, 1));
        assert!(at(&twisted, 0.4) != Some(kaufman(8, 0.4)));
        let antiferromagnet =
            format!("{plain}, antiferromagnet: true, boundaries: (Periodic, Antiperiodic))");
        assert_eq!(at(&antiferromagnet, 0.4), kaufman_twisted(8, 0.4, 1));
        let potts = at("Potts(q: 2, dims: 2, size: 8)", 0.8).unwrap();
        assert_eq!(potts.c, kaufman(8, 0.4).c);
        assert_eq!(potts.e, -1.0 + kaufman(8, 0.4).e / 2.0);
        for other in [
            "Ising(dims: 2, size: 8, field: 0.1)",
            "Ising(dims: 2, size: 8, field: 0.0, dilution: 0.1)",
            "Ising(dims: 2, size: 8, field: 0.0, boundaries: (Open, Periodic))",
            "Ising(dims: 2, size: 9, field: 0.0, lattice: Triangular)",
            "Ising(dims: 2, size: 8, field: 0.1, antiferromagnet: true)",
            "Potts(q: 2, dims: 2, size: 8, antiferromagnet: true)",
            "Potts(q: 3, dims: 2, size: 8)",
        ] {
            assert_eq!(at(other, 0.4), None, "{other}");
        }
        let wide = "Ising(dims: 2, size: 512, field: 0.0, boundaries: (Periodic, Antiperiodic))";
        assert_eq!(at(wide, 0.6), None, "the twisted terms' digits run out");
    }

    /// A deviation beyond 4 errors is a warning naming the temperature, the estimate and the
    /// exact value; one within them, or of an unknown error, is none.
    #[test]
    fn deviations_beyond_four_errors_are_warned_about() {
        let exact = ExactIsing2d {
            e: -1.0,
            c: 0.5,
            f: -2.0,
        };
        let estimate = |mean: f64, err: f64| Estimate { mean, err };
        let runs = [
            ((0.4, estimate(-1.05, 0.01), estimate(0.5, 0.01)), &exact),
            (
                (0.5, estimate(-1.03, 0.01), estimate(0.7, f64::NAN)),
                &exact,
            ),
        ];
        let warnings = ferromagnet_deviations(runs, TemperatureScale::Beta);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with("beta 0.400000: e = -1.0500000")
                && warnings[0].contains("5.0 errors from the exact -1.00000000"),
            "{}",
            warnings[0]
        );
    }
}
