//! The checks of the model: the lattice, the temperatures (a list or a generated ladder) and
//! the system counts (replicas, samples, and their product with the temperatures).

use super::Shape;
use crate::config::{Config, ConfigError, LatticeKind, Model, Temperatures, invalid};

/// A lattice the parallel update takes: 2 or 3 dimensions (2 for the lattices other than the
/// square and cubic ones), a size its colours tile (any size for cluster updates alone,
/// `clusters_alone`, which colour no sites: their own check asks for an even one), a finite
/// field.
pub(crate) fn validate_model(model: &Model, clusters_alone: bool) -> Result<(), ConfigError> {
    let (dims, size, field) = (model.dims(), model.size(), model.field());
    if !(2..=3).contains(&dims) {
        return invalid(format!("dims must be 2 or 3, got {dims}"));
    }
    let lattice = model.lattice();
    if lattice.dims() != dims {
        return invalid(format!(
            "lattice: the {lattice:?} lattice has {} dimensions, but dims is {dims}",
            lattice.dims()
        ));
    }
    let shape = Shape::of(lattice);
    let multiple = match clusters_alone {
        true => 1,
        false => shape.size_step(),
    };
    let why = match lattice {
        LatticeKind::Triangular => {
            "for the triangular lattice's three colours (cluster updates alone take any even size)"
        }
        LatticeKind::Kagome => {
            "for the kagome lattice's three colours and its cells of 2 x 2 triangular sites \
             (cluster updates alone take any even size)"
        }
        _ => "for the checkerboard update",
    };
    // Distinct neighbours along each direction of the triangular lattice's.
    let least = match shape {
        Shape::Triangular | Shape::Kagome => multiple.max(3),
        _ => multiple.max(2),
    };
    if size < least {
        return invalid(format!("size must be at least {least}, got {size}"));
    }
    if size % multiple != 0 {
        let what = match multiple {
            2 => "even".to_string(),
            _ => format!("a multiple of {multiple}"),
        };
        return invalid(format!("size must be {what} {why}, got {size}"));
    }
    if !field.is_finite() {
        return invalid(format!("field must be finite, got {field}"));
    }
    if matches!(model, Model::EdwardsAnderson { .. }) && model.disorder().is_ferromagnet() {
        return invalid(
            "disorder: the Edwards-Anderson glass's couplings are Bimodal (the default) or \
             Gaussian; the ferromagnet is Ising"
                .into(),
        );
    }
    if model.is_antiferromagnet() && !model.disorder().is_ferromagnet() {
        return invalid(format!(
            "antiferromagnet: every J = -1, but {} draws its couplings (disorder: {:?}); leave \
             one out",
            model.name(),
            model.disorder()
        ));
    }
    validate_boundaries(model)
}

/// One boundary per axis (or none: every axis periodic); antiperiodic edges only where
/// reversing `J` is the twist by a symmetry of the spins.
fn validate_boundaries(model: &Model) -> Result<(), ConfigError> {
    let (boundaries, dims) = (model.boundaries(), model.dims());
    if boundaries.named() != 0 && boundaries.named() != dims {
        return invalid(format!(
            "boundaries: one per axis, {dims} for dims: {dims}, got {}",
            boundaries.named()
        ));
    }
    if !boundaries.any_antiperiodic() {
        return Ok(());
    }
    let lacking = match model {
        Model::Potts { .. } => "Potts spins lack: their twist permutes the states",
        Model::Clock { q, .. } if q % 2 == 1 => {
            "a clock of odd q lacks: no angle is opposite another"
        }
        _ => return Ok(()),
    };
    invalid(format!(
        "boundaries: Antiperiodic reverses the couplings across an edge, the twist by spin \
         reversal, which {lacking}; use Periodic or Open"
    ))
}

/// At least one temperature, each finite and positive, none repeated.
pub(crate) fn validate_temperatures(temperatures: &Temperatures) -> Result<(), ConfigError> {
    let (name, values) = match temperatures {
        Temperatures::Betas(v) => ("beta", v.clone()),
        Temperatures::Temperatures(v) => ("temperature", v.clone()),
        Temperatures::GeometricT { min, max, count } => {
            validate_ladder("GeometricT", *min, *max, *count)?;
            ("temperature", vec![*min, *max])
        }
        Temperatures::LinearBeta { min, max, count } => {
            validate_ladder("LinearBeta", *min, *max, *count)?;
            ("beta", vec![*min, *max])
        }
    };
    if values.is_empty() {
        return invalid("temperatures: at least one is needed".into());
    }
    if let Some(i) = values.iter().position(|v| !(v.is_finite() && *v > 0.0)) {
        return invalid(format!(
            "temperatures: {name} #{} must be finite and > 0, got {}",
            i + 1,
            values[i]
        ));
    }
    let repeat = (0..values.len())
        .flat_map(|j| (0..j).map(move |i| (i, j)))
        .find(|&(i, j)| values[i] == values[j]);
    match repeat {
        Some((i, j)) => invalid(format!(
            "temperatures: {name} #{} and #{} are both {}: a repeated temperature only \
             duplicates work (ask for more replicas instead), and in a tempering ladder a zero \
             gap in beta is meaningless",
            i + 1,
            j + 1,
            values[i]
        )),
        None => Ok(()),
    }
}

/// A generated ladder needs at least one rung and, with more than one, two distinct ends.
fn validate_ladder(kind: &str, min: f64, max: f64, count: u32) -> Result<(), ConfigError> {
    if count == 0 {
        return invalid(format!("temperatures: {kind} needs count >= 1, got 0"));
    }
    if count > 1 && min.partial_cmp(&max) != Some(std::cmp::Ordering::Less) {
        return invalid(format!(
            "temperatures: {kind} needs min < max, got min {min}, max {max}"
        ));
    }
    Ok(())
}

/// Replicas, samples, and the system count (temperatures x samples x replicas) that system
/// indices hold in a `u32`.
pub(crate) fn validate_systems(config: &Config) -> Result<(), ConfigError> {
    if config.replicas == 0 {
        return invalid("replicas must be at least 1, got 0".into());
    }
    if config.samples == 0 {
        return invalid("samples must be at least 1, got 0".into());
    }
    let disordered = !config.model.disorder().is_ferromagnet();
    if !config.model.is_quenched() && config.samples != 1 {
        return invalid(format!(
            "samples: the {}{} has no disorder (and no dilution), so samples must be 1, got {}",
            config.model.name(),
            match config.model.is_antiferromagnet() {
                true => "",
                false => " ferromagnet",
            },
            config.samples
        ));
    }
    if disordered && config.replicas > 1 && !config.replicas.is_multiple_of(2) {
        return invalid(format!(
            "replicas: the overlap pairs replica r with r + replicas/2, so an Edwards-Anderson \
             run needs 1 or an even number of replicas, got {}",
            config.replicas
        ));
    }
    validate_dilution(config)?;
    let temperatures = config.temperatures.betas().len() as u64;
    let systems = temperatures * u64::from(config.samples) * u64::from(config.replicas);
    if systems > u64::from(u32::MAX) {
        return invalid(format!(
            "{temperatures} temperatures x {} samples x {} replicas = {systems} systems, more than {}",
            config.samples,
            config.replicas,
            u32::MAX
        ));
    }
    Ok(())
}

/// A dilution is a probability below 1, and the empty sites of a file need a diluted model.
fn validate_dilution(config: &Config) -> Result<(), ConfigError> {
    let (model, p) = (&config.model, config.model.dilution());
    if !(0.0..1.0).contains(&p) {
        return invalid(format!(
            "dilution: the probability that a site is empty is at least 0 and below 1, got {p}"
        ));
    }
    if !config.vacancies.is_drawn() && p == 0.0 {
        return invalid(format!(
            "vacancies: File(..) gives a diluted model's empty sites, but the {} has no \
             dilution: give the model a dilution (the fraction the file was drawn with), or \
             leave vacancies out",
            model.name()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::testing::{
        assert_mentions, assert_refused, invalid_message, sample_with, tempering,
    };

    #[test]
    fn generated_ladders_run_from_min_to_max() {
        let geometric = Temperatures::GeometricT {
            min: 0.5,
            max: 2.0,
            count: 3,
        };
        let betas = geometric.betas();
        assert_eq!(betas.len(), 3);
        assert!((betas[0] - 2.0).abs() < 1e-12 && (betas[1] - 1.0).abs() < 1e-12);
        assert!((betas[2] - 0.5).abs() < 1e-12);
        let linear = Temperatures::LinearBeta {
            min: 0.2,
            max: 0.5,
            count: 4,
        };
        let betas = linear.betas();
        assert!((betas[1] - 0.3).abs() < 1e-12 && (betas[3] - 0.5).abs() < 1e-12);
        let config =
            Config::from_ron_str(&tempering("GeometricT(min: 0.5, max: 2.0, count: 8)", 1))
                .unwrap();
        config.validate().unwrap();
        assert_eq!(config.algorithm.swap_every(), Some(1));
    }

    /// A dilution outside `[0, 1)` and a vacancies file without a dilution are refused; a
    /// diluted ferromagnet takes samples; an Edwards-Anderson glass has no ferromagnetic
    /// couplings.
    #[test]
    fn dilutions_are_probabilities_and_vacancies_files_need_one() {
        let potts = |dilution: &str, rest: &str| {
            format!(
                "(model: Potts(q: 3, dims: 2, size: 8{dilution}), temperatures: Betas([0.5]), \
                 replicas: 1, seed: 1, sweeps: (thermalize: 10, measure: 10, every: 1){rest})"
            )
        };
        for p in ["1.0", "-0.1", "NaN"] {
            let msg = invalid_message(&potts(&format!(", dilution: {p}"), ""));
            assert_mentions(&msg, &["dilution", "below 1"]);
        }
        let msg = invalid_message(&potts("", ", vacancies: File(\"v.npy\")"));
        assert_mentions(
            &msg,
            &["vacancies: File(..)", "3-state Potts 2D has no dilution"],
        );
        let msg = invalid_message(&potts("", ", samples: 4"));
        assert_mentions(&msg, &["no disorder (and no dilution)", "got 4"]);
        let diluted = Config::from_ron_str(&potts(", dilution: 0.1", ", samples: 4")).unwrap();
        diluted.validate().unwrap();
        let ferromagnetic_glass = potts("", "").replace(
            "Potts(q: 3, dims: 2, size: 8)",
            "EdwardsAnderson(dims: 2, size: 8, disorder: Ferromagnet)",
        );
        let msg = invalid_message(&ferromagnetic_glass);
        assert_mentions(
            &msg,
            &[
                "Bimodal (the default) or Gaussian",
                "the ferromagnet is Ising",
            ],
        );
    }

    /// One boundary per axis; antiperiodic edges only for spins that reverse.
    #[test]
    fn boundaries_are_one_per_axis_and_antiperiodic_where_spins_reverse() {
        let edges = |model: &str, boundaries: &str| {
            sample_with(
                "Ising(dims: 2, size: 32,",
                &format!("{model}size: 32, boundaries: {boundaries},"),
            )
        };
        let three = invalid_message(&edges("Ising(dims: 2, ", "(Open, Open, Open)"));
        assert_mentions(&three, &["one per axis", "2 for dims: 2", "got 3"]);
        let potts = invalid_message(&edges("Potts(q: 3, dims: 2, ", "(Antiperiodic, Open)"));
        assert_mentions(&potts, &["Antiperiodic", "Potts spins", "Periodic or Open"]);
        let odd = invalid_message(&edges("Clock(q: 5, dims: 2, ", "(Periodic, Antiperiodic)"));
        assert_mentions(&odd, &["odd q", "Periodic or Open"]);
        for (model, boundaries) in [
            ("Potts(q: 3, dims: 2, ", "(Open, Periodic)"),
            ("Clock(q: 6, dims: 2, ", "(Antiperiodic, Antiperiodic)"),
            ("XY(dims: 3, ", "(Open, Periodic, Antiperiodic)"),
            (
                "BlumeCapel(crystal_field: 0.5, dims: 2, ",
                "[Antiperiodic, Open]",
            ),
        ] {
            let config = Config::from_ron_str(&edges(model, boundaries)).unwrap();
            config.validate().unwrap();
            assert!(config.model.is_vector(), "{model}");
        }
        // Ising spins run as two states unless the config names a multispin engine.
        for boundaries in ["(Open, Periodic)", "(Periodic, Antiperiodic)"] {
            let edged = edges("Ising(dims: 2, ", boundaries);
            let states = Config::from_ron_str(&edged).unwrap();
            assert!(states.is_vector() && states.discrete_states() == Some(2));
            let named = "seed: 12345, engine: Multispin(layout: Amsc(lanes: Temperatures)),";
            let multispin = Config::from_ron_str(&edged.replace("seed: 12345,", named)).unwrap();
            multispin.validate().unwrap();
            assert!(!multispin.is_vector() && multispin.discrete_states().is_none());
        }
        // So do those of the triangular lattice, whose diagonal crosses both edges.
        let triangular = sample_with(
            "Ising(dims: 2, size: 32,",
            "Ising(dims: 2, lattice: Triangular, size: 30, boundaries: (Open, Periodic),",
        );
        let states = Config::from_ron_str(&triangular).unwrap();
        assert!(
            states.is_vector() && states.discrete_states() == Some(2),
            "{triangular}"
        );
        let named = "seed: 12345, engine: Multispin(layout: Amsc(lanes: Temperatures)),";
        let multispin = Config::from_ron_str(&triangular.replace("seed: 12345,", named)).unwrap();
        multispin.validate().unwrap();
        assert!(!multispin.is_vector() && multispin.discrete_states().is_none());
    }

    #[test]
    fn odd_size_is_refused() {
        let msg = invalid_message(&sample_with("size: 32", "size: 33"));
        assert_eq!(msg, "size must be even for the checkerboard update, got 33");
    }

    #[test]
    fn lattice_shape_is_checked() {
        assert_mentions(
            &invalid_message(&sample_with("dims: 2", "dims: 4")),
            &["dims", "got 4"],
        );
        assert_mentions(
            &invalid_message(&sample_with("size: 32", "size: 0")),
            &["size", "got 0"],
        );
        // No engine given: Auto falls back to the simple engine, and the message says so and
        // names the engine that takes larger lattices.
        assert_mentions(
            &invalid_message(&sample_with("size: 32", "size: 46342")),
            &[
                "46342^2",
                "sites",
                "engine: Auto chose Simple",
                "the simple engine takes fewer than 2147483648 = 2^31",
                "Multispin(layout: Smsc) takes up to 2^34 sites, with a size that is a multiple of 64",
            ],
        );
        // 1290^3 < 2^31 < 1292^3: the bound is exactly 2^31 sites.
        let too_big = sample_with("dims: 2, size: 32", "dims: 3, size: 1292");
        assert_mentions(&invalid_message(&too_big), &["1292^3"]);
        let just_fits = sample_with("dims: 2, size: 32", "dims: 3, size: 1290");
        Config::from_ron_str(&just_fits)
            .unwrap()
            .validate()
            .unwrap();
        assert_mentions(
            &invalid_message(&sample_with("field: 0.0", "field: inf")),
            &["field", "inf"],
        );
    }

    #[test]
    fn repeated_temperatures_are_refused() {
        assert_refused(&[
            (
                "[0.40, 0.44]",
                "[0.40, 0.44, 0.40]",
                &["beta #1 and #3 are both 0.4", "duplicates work", "zero gap"],
            ),
            (
                "Betas([0.40, 0.44])",
                "Temperatures([2.0, 2.0])",
                &["temperature #1 and #2 are both 2"],
            ),
        ]);
    }

    /// Cluster updates alone colour no sites: they take the triangular lattice of any even
    /// size (the cluster kernels' four sites a thread) and the kagome lattice of any even size;
    /// Metropolis sweeps between them need the colours' multiples again, and an odd size is
    /// refused by the clusters' own check.
    #[test]
    fn cluster_updates_alone_take_sizes_the_colours_do_not() {
        const ISING: &str = "Ising(dims: 2, size: 32, field: 0.0)";
        let run = |model: &str, algorithm: &str| {
            sample_with(ISING, model).replace(
                "seed: 12345,",
                &format!("seed: 12345, algorithm: {algorithm},"),
            )
        };
        for model in [
            "Ising(dims: 2, size: 32, lattice: Triangular)",
            "Potts(q: 3, dims: 2, size: 4, lattice: Triangular)",
            "Ising(dims: 2, size: 8, lattice: Kagome)",
        ] {
            let alone = run(model, "Clusters(update: Wolff)");
            let config = Config::from_ron_str(&alone).unwrap();
            config.validate().unwrap_or_else(|e| panic!("{model}: {e}"));
            let mixed = run(model, "Clusters(update: Wolff, metropolis: 1)");
            assert_mentions(
                &invalid_message(&mixed),
                &["multiple of", "cluster updates alone"],
            );
        }
        let odd = run(
            "Ising(dims: 2, size: 31, lattice: Triangular)",
            "Clusters(update: SwendsenWang)",
        );
        assert_mentions(&invalid_message(&odd), &["four sites a thread", "got 31"]);
    }

    /// The lattices' dimensions and sizes, the kagome lattice for unit vectors, the
    /// antiferromagnet of a glass, and the updates that label the square lattice's bonds are
    /// refused by name; a lattice and the antiferromagnet name the model and route the Ising
    /// model to the vector engine.
    #[test]
    fn lattices_and_antiferromagnets_are_checked() {
        const ISING: &str = "Ising(dims: 2, size: 32, field: 0.0)";
        assert_refused(&[
            (
                ISING,
                "Ising(dims: 3, size: 30, lattice: Triangular)",
                &["Triangular", "2 dim"],
            ),
            (
                ISING,
                "Ising(dims: 2, size: 32, lattice: Cubic)",
                &["Cubic", "3 dim"],
            ),
            (
                ISING,
                "Ising(dims: 2, size: 32, lattice: Triangular)",
                &["multiple of 3"],
            ),
            (
                ISING,
                "Ising(dims: 2, size: 33, lattice: Kagome)",
                &["multiple of 6"],
            ),
            (
                ISING,
                "Ising(dims: 2, size: 31, lattice: Honeycomb)",
                &["even"],
            ),
            (
                ISING,
                "XY(dims: 2, size: 30, disorder: Bimodal, antiferromagnet: true)",
                &["antiferromagnet", "Bimodal"],
            ),
        ]);
        let tiled = sample_with(ISING, "XY(dims: 2, size: 30, lattice: Triangular)").replace(
            "seed: 12345,",
            "seed: 12345, updates: (metropolis: DoubleCheckerboard(tile: 2, hits: 1)),",
        );
        assert_mentions(&invalid_message(&tiled), &["tiles", "Triangular"]);
        let triangular = sample_with(
            ISING,
            "Ising(dims: 2, size: 30, lattice: Triangular, antiferromagnet: true)",
        );
        let config = Config::from_ron_str(&triangular).unwrap();
        config.validate().unwrap();
        assert_eq!(config.model.name(), "Ising antiferromagnet 2D triangular");
        assert!(config.is_vector() && config.discrete_states() == Some(2));
        let written = Config::from_ron_str(&config.to_ron_string()).unwrap();
        assert_eq!(written.model, config.model);
        // Unit vectors on the kagome lattice: its empty quarter holds zero vectors.
        for model in [
            "Heisenberg(dims: 2, size: 30, lattice: Kagome, antiferromagnet: true)",
            "Clock(q: 6, dims: 2, size: 30, lattice: Kagome)",
        ] {
            let config = Config::from_ron_str(&sample_with(ISING, model)).unwrap();
            config.validate().unwrap();
            assert!(config.is_vector() && config.discrete_states().is_none());
        }
        let square_af = sample_with(ISING, "Ising(dims: 2, size: 32, antiferromagnet: true)");
        assert!(Config::from_ron_str(&square_af).unwrap().is_vector());
    }

    #[test]
    fn bad_betas_are_named_with_their_position() {
        assert_refused(&[
            ("0.44", "0.0", &["beta #2", "got 0"]),
            ("0.40", "-0.4", &["beta #1", "got -0.4"]),
            ("0.44", "NaN", &["beta #2", "got NaN"]),
            ("0.44", "inf", &["beta #2", "got inf"]),
            ("[0.40, 0.44]", "[]", &["at least one"]),
            (
                "Betas([0.40, 0.44])",
                "Temperatures([2.0, -1.0])",
                &["temperature #2", "got -1"],
            ),
        ]);
    }
}
