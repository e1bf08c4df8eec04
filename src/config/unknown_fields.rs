//! Every variant of every config enum, and every config struct, refuses a field it does not
//! know, naming it with its line and column: a typo inside a value is never silently dropped.
//! RON reaches a struct variant's fields through its enum's `deny_unknown_fields`, which these
//! tests hold it to, variant by variant.

use serde::de::DeserializeOwned;

use super::testing::{assert_edit_refused, assert_mentions, parse_error};
use super::*;

/// A small config, one field a line, with field `name` set to `value` (replaced where the
/// config has it, else added).
fn config_with(name: &str, value: &str) -> String {
    let mut fields = vec![
        ("model", "Ising(dims: 2, size: 32)"),
        ("temperatures", "Betas([0.4])"),
        ("replicas", "4"),
        ("seed", "1"),
    ];
    match fields.iter_mut().find(|(n, _)| *n == name) {
        Some(field) => field.1 = value,
        None => fields.push((name, value)),
    }
    let lines: Vec<String> = fields
        .iter()
        .map(|(n, v)| format!("    {n}: {v},\n"))
        .collect();
    format!("(\n{})", lines.concat())
}

/// The 1-based line and column of the first `needle` in `text`.
fn position(text: &str, needle: &str) -> (usize, usize) {
    let at = text.find(needle).expect("the needle is in the text");
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    (text[..at].matches('\n').count() + 1, at - line_start + 1)
}

/// The variants of the enum `T`, as serde lists them to a variant it does not know.
fn variants<T: DeserializeOwned + std::fmt::Debug>() -> Vec<&'static str> {
    match ron::from_str::<T>("NoSuchVariant").map_err(|e| e.code) {
        Err(ron::Error::NoSuchEnumVariant { expected, .. }) => expected.to_vec(),
        other => panic!("expected an unknown-variant error, got {other:?}"),
    }
}

/// (enum, variant, config field, its value with the unknown field `bogus`), for every variant
/// of every config enum with fields; the structs as (struct, "", field, value).
#[rustfmt::skip]
const WITH_FIELDS: &[(&str, &str, &str, &str)] = &[
    ("Config", "", "bogus", "1"),
    ("Model", "Ising", "model", "Ising(dims: 2, size: 32, bogus: 1)"),
    ("Model", "EdwardsAnderson", "model", "EdwardsAnderson(dims: 2, size: 32, bogus: 1)"),
    ("Model", "XY", "model", "XY(dims: 2, size: 32, bogus: 1)"),
    ("Model", "Clock", "model", "Clock(q: 6, dims: 2, size: 32, bogus: 1)"),
    ("Model", "Potts", "model", "Potts(q: 3, dims: 2, size: 32, bogus: 1)"),
    ("Model", "BlumeCapel", "model", "BlumeCapel(dims: 2, size: 32, crystal_field: 0.5, bogus: 1)"),
    ("Model", "Heisenberg", "model", "Heisenberg(dims: 2, size: 32, bogus: 1)"),
    ("Temperatures", "GeometricT", "temperatures", "GeometricT(min: 1.0, max: 2.0, count: 2, bogus: 1)"),
    ("Temperatures", "LinearBeta", "temperatures", "LinearBeta(min: 1.0, max: 2.0, count: 2, bogus: 1)"),
    ("EngineKind", "Multispin", "engine", "Multispin(layout: Smsc, bogus: 1)"),
    ("Layout", "Amsc", "engine", "Multispin(layout: Amsc(lanes: Replicas, bogus: 1))"),
    ("Sweeps", "", "sweeps", "(thermalize: 1, measure: 1, every: 1, bogus: 1)"),
    ("Algorithm", "Tempering", "algorithm", "Tempering(every: 1, bogus: 1)"),
    ("Algorithm", "Annealing", "algorithm", "Annealing(theta: 1, schedule: Betas([1.0]), bogus: 1)"),
    ("Algorithm", "Clusters", "algorithm", "Clusters(update: Wolff, bogus: 1)"),
    ("AnnealingSchedule", "Linear", "algorithm", "Annealing(theta: 1, schedule: Linear(beta_max: 1.0, count: 2, bogus: 1))"),
    ("AnnealingSchedule", "Adaptive", "algorithm", "Annealing(theta: 1, schedule: Adaptive(overlap: 0.5, beta_max: 1.0, bogus: 1))"),
    ("VectorUpdates", "", "updates", "(overrelaxation: 1, bogus: 1)"),
    ("Proposal", "Cone", "updates", "(proposal: Cone(acceptance: 0.5, bogus: 1))"),
    ("MetropolisOrder", "DoubleCheckerboard", "updates", "(metropolis: DoubleCheckerboard(tile: 8, hits: 1, bogus: 1))"),
];

/// The variants of [`WITHOUT_FIELDS`] that hold a value.
const NEWTYPE_VARIANTS: &[(&str, &str)] = &[
    ("Temperatures", "Betas"),
    ("Temperatures", "Temperatures"),
    ("Quenched", "File"),
    ("AnnealingSchedule", "Betas"),
];

/// (enum, variant, config field, the variant given the field `bogus`), for every variant
/// without named fields (unit and newtype variants).
#[rustfmt::skip]
const WITHOUT_FIELDS: &[(&str, &str, &str, &str)] = &[
    ("Temperatures", "Betas", "temperatures", "Betas(bogus: 1)"),
    ("Temperatures", "Temperatures", "temperatures", "Temperatures(bogus: 1)"),
    ("Disorder", "Ferromagnet", "model", "XY(dims: 2, size: 32, disorder: Ferromagnet(bogus: 1))"),
    ("Disorder", "Bimodal", "model", "XY(dims: 2, size: 32, disorder: Bimodal(bogus: 1))"),
    ("Disorder", "Gaussian", "model", "XY(dims: 2, size: 32, disorder: Gaussian(bogus: 1))"),
    ("Quenched", "Drawn", "couplings", "Drawn(bogus: 1)"),
    ("Quenched", "File", "couplings", "File(bogus: 1)"),
    ("EngineKind", "Auto", "engine", "Auto(bogus: 1)"),
    ("EngineKind", "Simple", "engine", "Simple(bogus: 1)"),
    ("Layout", "Smsc", "engine", "Multispin(layout: Smsc(bogus: 1))"),
    ("Lanes", "Replicas", "engine", "Multispin(layout: Amsc(lanes: Replicas(bogus: 1)))"),
    ("Lanes", "Samples", "engine", "Multispin(layout: Amsc(lanes: Samples(bogus: 1)))"),
    ("Lanes", "Temperatures", "engine", "Multispin(layout: Amsc(lanes: Temperatures(bogus: 1)))"),
    ("Randoms", "Exact", "engine", "Multispin(layout: Smsc, randoms: Exact(bogus: 1))"),
    ("Randoms", "Shared", "engine", "Multispin(layout: Smsc, randoms: Shared(bogus: 1))"),
    ("Randoms", "Packed", "engine", "Multispin(layout: Smsc, randoms: Packed(bogus: 1))"),
    ("Backend", "Auto", "backend", "Auto(bogus: 1)"),
    ("Backend", "Cpu", "backend", "Cpu(bogus: 1)"),
    ("Backend", "Wgpu", "backend", "Wgpu(bogus: 1)"),
    ("Backend", "Cuda", "backend", "Cuda(bogus: 1)"),
    ("PhiloxPath", "Auto", "philox", "Auto(bogus: 1)"),
    ("PhiloxPath", "Int64", "philox", "Int64(bogus: 1)"),
    ("PhiloxPath", "U32", "philox", "U32(bogus: 1)"),
    ("Algorithm", "Metropolis", "algorithm", "Metropolis(bogus: 1)"),
    ("ClusterUpdate", "SwendsenWang", "algorithm", "Clusters(update: SwendsenWang(bogus: 1))"),
    ("ClusterUpdate", "Wolff", "algorithm", "Clusters(update: Wolff(bogus: 1))"),
    ("AnnealingSchedule", "Betas", "algorithm", "Annealing(theta: 1, schedule: Betas(bogus: 1))"),
    ("Resampling", "FloorCeil", "algorithm", "Annealing(theta: 1, schedule: Betas([1.0]), resampling: FloorCeil(bogus: 1))"),
    ("Resampling", "Nearest", "algorithm", "Annealing(theta: 1, schedule: Betas([1.0]), resampling: Nearest(bogus: 1))"),
    ("Resampling", "Multinomial", "algorithm", "Annealing(theta: 1, schedule: Betas([1.0]), resampling: Multinomial(bogus: 1))"),
    ("Proposal", "Uniform", "updates", "(proposal: Uniform(bogus: 1))"),
    ("Proposal", "HeatBath", "updates", "(proposal: HeatBath(bogus: 1))"),
    ("MetropolisOrder", "Checkerboard", "updates", "(metropolis: Checkerboard(bogus: 1))"),
    ("StateStorage", "Words", "updates", "(storage: Words(bogus: 1))"),
    ("StateStorage", "BitPlanes", "updates", "(storage: BitPlanes(bogus: 1))"),
    ("FinalState", "Auto", "final_state", "Auto(bogus: 1)"),
    ("FinalState", "Int8", "final_state", "Int8(bogus: 1)"),
    ("FinalState", "Packed", "final_state", "Packed(bogus: 1)"),
];

#[test]
fn every_variant_with_fields_refuses_an_unknown_field_naming_it_and_its_position() {
    for (ty, variant, field, value) in WITH_FIELDS {
        let text = config_with(field, value);
        let (line, col, msg) = parse_error(&text);
        let at = position(&text, "bogus");
        assert_eq!((line, col), at, "{ty}::{variant}: {msg}");
        assert_mentions(&msg, &["unknown field `bogus`", "expected one of"]);
    }
}

/// A unit variant given fields is refused at its parenthesis, a newtype variant's at the field
/// where its value should be; either message names the config field that holds it.
#[test]
fn every_variant_without_fields_refuses_fields_at_their_position() {
    for (ty, variant, field, value) in WITHOUT_FIELDS {
        let text = config_with(field, value);
        let (line, col, msg) = parse_error(&text);
        let newtype = NEWTYPE_VARIANTS.contains(&(*ty, *variant));
        let at = position(&text, if newtype { "bogus" } else { "(bogus" });
        assert_eq!((line, col), at, "{ty}::{variant}: {msg}");
        assert_mentions(&msg, &["(in field `"]);
    }
}

#[test]
fn typos_inside_an_algorithm_are_refused() {
    let line = Some(7);
    let tempering = "seed: 12345,\n    algorithm: Tempering(every: 1, tuen: true),";
    let fields = ["unknown field `tuen` in `Tempering`", "`every`, `tune`"];
    assert_edit_refused("seed: 12345,", tempering, line, &fields);
    let clusters =
        "seed: 12345,\n    algorithm: Clusters(update: SwendsenWang, metropolis: 1, colour: 3),";
    let fields = [
        "unknown field `colour` in `Clusters`",
        "`clusters`, `metropolis`",
    ];
    assert_edit_refused("seed: 12345,", clusters, line, &fields);
}

#[test]
fn the_tables_hold_every_variant_of_every_config_enum() {
    let enums = [
        ("Model", variants::<Model>()),
        ("Temperatures", variants::<Temperatures>()),
        ("Disorder", variants::<Disorder>()),
        ("Quenched", variants::<Quenched>()),
        ("EngineKind", variants::<EngineKind>()),
        ("Layout", variants::<Layout>()),
        ("Lanes", variants::<Lanes>()),
        ("Randoms", variants::<Randoms>()),
        ("Backend", variants::<Backend>()),
        ("PhiloxPath", variants::<PhiloxPath>()),
        ("Algorithm", variants::<Algorithm>()),
        ("ClusterUpdate", variants::<ClusterUpdate>()),
        ("AnnealingSchedule", variants::<AnnealingSchedule>()),
        ("Resampling", variants::<Resampling>()),
        ("Proposal", variants::<Proposal>()),
        ("MetropolisOrder", variants::<MetropolisOrder>()),
        ("FinalState", variants::<FinalState>()),
    ];
    let rows = || WITH_FIELDS.iter().chain(WITHOUT_FIELDS);
    for (ty, names) in &enums {
        let mut covered: Vec<&str> = rows().filter(|r| r.0 == *ty).map(|r| r.1).collect();
        covered.sort_unstable();
        let mut names = names.clone();
        names.sort_unstable();
        assert_eq!(covered, names, "{ty}");
    }
}
