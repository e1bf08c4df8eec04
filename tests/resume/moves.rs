//! A checkpoint moves: a run stopped on the CPU resumes on wgpu to the uninterrupted run's
//! files (its checkpoint among them), with another checkpoint interval, plots or final-state
//! form, and from a checkpoint of an earlier version (which fingerprinted the whole config
//! text); a larger `sweeps.measure` continues a finished or unfinished run (Ising spins with and
//! without parallel tempering, and vector spins) to the files of a run started with it, and a
//! smaller one than the sweeps done is refused. A resume that changes the trajectory (the seed,
//! a temperature, an anneal's schedule) is refused naming the field, with both values.

use std::path::Path;

use super::XY_GLASS;
use crate::common;
use crate::common::runs::{TEMPERING, assert_same_outputs, options, without_timing};
use spinflip::config::{Backend, Config, FinalState};
use spinflip::metropolis::Summary;
use spinflip::run::{RunOutcome, run};
use spinflip::vector::VectorSummary;

/// The Ising ferromagnet of the resume tests on the simple engine and the CPU, a checkpoint
/// every 150 of its 1000 sweeps.
fn ising() -> String {
    on_cpu(super::CONFIG).replace("replicas: 3,", "replicas: 3, engine: Simple,")
}

/// The Edwards-Anderson model of the resume tests on the CPU: the multispin engine, 32 samples
/// in lanes.
fn spin_glass() -> String {
    on_cpu(super::SPIN_GLASS)
}

/// A config of the resume tests, which run on wgpu, on the CPU: the runs move from there.
fn on_cpu(text: &str) -> String {
    text.replace("backend: Wgpu", "backend: Cpu")
}

/// Population annealing on the simple engine: 10 steps of 2 sweeps, a checkpoint every 4.
const ANNEAL: &str = r#"(
    model: Ising(dims: 2, size: 8, field: 0.0),
    replicas: 64,
    engine: Simple,
    algorithm: Annealing(theta: 2, schedule: Linear(beta_max: 0.5, count: 10), runs: 2),
    seed: 5,
    backend: Cpu,
    checkpoint_every: 4,
    plots: false,
)"#;

fn completed(outcome: RunOutcome) -> Summary {
    common::completed(outcome)
}

/// What a run computed, without where it ran (the summary's `run` names the backend).
fn estimates(summary: &Summary) -> String {
    serde_json::to_string(&(&summary.runs, &summary.spin_glass, &summary.tempering)).unwrap()
}

/// The config `text` on the CPU, run whole, and halted after its checkpoint at 450 sweeps and
/// resumed on wgpu: the same estimates and files, the checkpoint among them (it carries the
/// fingerprint of the trajectory, not of the backend); `config.ron` names the backend.
fn resumed_on_wgpu_equals_uninterrupted(text: &str) {
    let config = common::config(text);
    let (whole, parts) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let uninterrupted = completed(run(&config, &options(whole.path(), false, None)).unwrap());
    let halted = run(&config, &options(parts.path(), false, Some(400))).unwrap();
    assert_eq!(halted, RunOutcome::Halted { sweeps_done: 450 });
    let on_wgpu = Config {
        backend: Backend::Wgpu,
        ..config
    };
    let resumed = completed(run(&on_wgpu, &options(parts.path(), true, None)).unwrap());
    assert_eq!(resumed.run.backend, "wgpu");
    assert_eq!(estimates(&uninterrupted), estimates(&resumed));
    assert_same_outputs(whole.path(), parts.path(), &["config.ron"]);
}

#[test]
fn a_cpu_run_resumed_on_wgpu_ends_as_the_uninterrupted_run() {
    resumed_on_wgpu_equals_uninterrupted(&ising());
}

#[test]
fn a_cpu_spin_glass_run_resumed_on_wgpu_ends_as_the_uninterrupted_run() {
    resumed_on_wgpu_equals_uninterrupted(&spin_glass());
}

/// Halted at 450 sweeps, resumed with another checkpoint interval and halted again at its first
/// checkpoint from 500 on (560), then resumed without plots, without checkpoints but the last,
/// and with the final state's form named: the uninterrupted run's summary and files.
#[test]
fn the_checkpoint_interval_plots_and_final_state_may_change_on_resume() {
    let config = common::config(&ising());
    let (whole, parts) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let uninterrupted = completed(run(&config, &options(whole.path(), false, None)).unwrap());
    assert!(
        has_plots(whole.path()),
        "the uninterrupted run draws its plots"
    );
    run(&config, &options(parts.path(), false, Some(400))).unwrap();
    let every_70 = Config {
        checkpoint_every: 70,
        ..config.clone()
    };
    let halted = run(&every_70, &options(parts.path(), true, Some(500))).unwrap();
    assert_eq!(halted, RunOutcome::Halted { sweeps_done: 560 });
    let quiet = Config {
        checkpoint_every: 0,
        plots: false,
        final_state: FinalState::Int8,
        ..config
    };
    let resumed = completed(run(&quiet, &options(parts.path(), true, None)).unwrap());
    assert!(!has_plots(parts.path()), "plots: false draws none");
    assert_eq!(without_timing(uninterrupted), without_timing(resumed));
    assert_same_outputs(parts.path(), whole.path(), &["config.ron"]);
}

/// Whether `dir` holds any figure.
fn has_plots(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().any(|entry| {
        let name = entry.unwrap().file_name().into_string().unwrap();
        name.ends_with(".svg") || name.ends_with(".png")
    })
}

/// `text` with its 900 measuring sweeps made `measure`.
fn measuring(text: &str, measure: u64) -> Config {
    assert!(text.contains("measure: 900,"), "{text}");
    common::config(&text.replace("measure: 900,", &format!("measure: {measure},")))
}

/// A run of `text` finished after 900 measuring sweeps, then resumed with 1500: halted at its
/// first checkpoint from 1100 sweeps on (the plan that crosses 1200), and resumed to the end, it
/// writes the files of a run started with 1500; resumed with 800 it is refused, as that ends
/// before the sweeps done.
fn larger_measure_continues(text: &str) {
    let (whole, parts) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let longer = measuring(text, 1500);
    let uninterrupted = completed(run(&longer, &options(whole.path(), false, None)).unwrap());
    completed(run(&measuring(text, 900), &options(parts.path(), false, None)).unwrap());
    let shorter = run(&measuring(text, 800), &options(parts.path(), true, None));
    let error = shorter.unwrap_err().to_string();
    assert!(
        error.contains("has done 1000 sweeps") && error.contains("measure may grow"),
        "{error}"
    );
    let halted = run(&longer, &options(parts.path(), true, Some(1100))).unwrap();
    assert!(
        matches!(halted, RunOutcome::Halted { sweeps_done } if (1200..1300).contains(&sweeps_done)),
        "{halted:?}"
    );
    let resumed = completed(run(&longer, &options(parts.path(), true, None)).unwrap());
    assert_eq!(without_timing(uninterrupted), without_timing(resumed));
    assert_same_outputs(whole.path(), parts.path(), &[]);
}

#[test]
fn a_larger_measure_continues_a_finished_run() {
    larger_measure_continues(&ising());
}

#[test]
fn a_larger_measure_continues_a_finished_tempering_run() {
    larger_measure_continues(&TEMPERING.replace("backend: Wgpu", "backend: Cpu"));
}

/// The summary of a finished vector-spin run, without its rate and provenance, as JSON.
fn vector_without_timing(outcome: RunOutcome) -> String {
    let RunOutcome::Vector(mut summary) = outcome else {
        panic!("not a finished vector run: {outcome:?}");
    };
    summary.updates_per_ns = 0.0;
    assert!(summary.origin.provenance.take().is_some(), "a finished run");
    serde_json::to_string::<VectorSummary>(&summary).unwrap()
}

/// The XY glass finished after 300 measuring sweeps and resumed with 600 writes the files of
/// a run started with 600.
#[test]
fn a_larger_measure_continues_a_finished_vector_run() {
    let (whole, parts) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let longer = common::config(&XY_GLASS.replace("measure: 300", "measure: 600"));
    let uninterrupted = run(&longer, &options(whole.path(), false, None)).unwrap();
    let config = common::config(XY_GLASS);
    vector_without_timing(run(&config, &options(parts.path(), false, None)).unwrap());
    let resumed = run(&longer, &options(parts.path(), true, None)).unwrap();
    assert_eq!(
        vector_without_timing(uninterrupted),
        vector_without_timing(resumed)
    );
    assert_same_outputs(whole.path(), parts.path(), &[]);
}

/// The error of resuming `config` from `dir`.
fn resume_error(config: &Config, dir: &Path) -> String {
    run(config, &options(dir, true, None))
        .unwrap_err()
        .to_string()
}

/// Another seed or temperature is refused naming the field and both values; where the
/// directory lost its `config.ron`, the fingerprints still refuse it. The intact run resumes.
#[test]
fn a_refused_resume_names_the_field_that_differs() {
    let config = common::config(&ising());
    let dir = tempfile::tempdir().unwrap();
    run(&config, &options(dir.path(), false, Some(150))).unwrap();
    let reseeded = Config {
        seed: 100,
        ..config.clone()
    };
    let error = resume_error(&reseeded, dir.path());
    assert!(
        error.contains("different config")
            && error.contains("the checkpoint's run has `seed: 99`, this config has `seed: 100`"),
        "{error}"
    );
    let hotter = common::config(&ising().replace("0.35", "0.3"));
    let error = resume_error(&hotter, dir.path());
    assert!(
        error.contains("`temperatures: Betas([0.35, 0.5])`")
            && error.contains("`temperatures: Betas([0.3, 0.5])`")
            && !error.contains("seed"),
        "{error}"
    );
    let config_ron = std::fs::read(dir.path().join("config.ron")).unwrap();
    std::fs::remove_file(dir.path().join("config.ron")).unwrap();
    let error = resume_error(&reseeded, dir.path());
    assert!(
        error.contains("different config") && error.contains("fingerprint"),
        "{error}"
    );
    std::fs::write(dir.path().join("config.ron"), config_ron).unwrap();
    completed(run(&config, &options(dir.path(), true, None)).unwrap());
}

/// A checkpoint as earlier versions wrote it, with the fingerprint of the whole config text
/// beside it (`config.ron`), resumes, also on another backend; the run's later checkpoints carry
/// the trajectory's fingerprint, so its files are those of an uninterrupted run.
#[test]
fn a_checkpoint_of_an_earlier_version_resumes_on_another_backend() {
    let config = common::config(&ising());
    let (whole, parts) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let uninterrupted = completed(run(&config, &options(whole.path(), false, None)).unwrap());
    run(&config, &options(parts.path(), false, Some(400))).unwrap();
    let text = std::fs::read_to_string(parts.path().join("config.ron")).unwrap();
    let path = parts.path().join("checkpoint.bin");
    let mut bytes = std::fs::read(&path).unwrap();
    let body = bytes.len() - 4;
    bytes[12..20].copy_from_slice(&spinflip::io::fingerprint(&text).to_le_bytes());
    let crc = crc32fast::hash(&bytes[..body]);
    bytes[body..].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let on_wgpu = Config {
        backend: Backend::Wgpu,
        ..config
    };
    let resumed = completed(run(&on_wgpu, &options(parts.path(), true, None)).unwrap());
    assert_eq!(estimates(&uninterrupted), estimates(&resumed));
    assert_same_outputs(whole.path(), parts.path(), &["config.ron"]);
}

/// An anneal halted after 4 sweeps resumes with another checkpoint interval to the end; one
/// with another schedule is refused naming `algorithm`.
#[test]
fn an_anneal_resumes_with_another_checkpoint_interval_but_not_another_schedule() {
    let config = common::config(ANNEAL);
    let dir = tempfile::tempdir().unwrap();
    run(&config, &options(dir.path(), false, Some(4))).unwrap();
    let longer = common::config(&ANNEAL.replace("count: 10", "count: 12"));
    let error = resume_error(&longer, dir.path());
    assert!(
        error.contains("the checkpoint's run has `algorithm: Annealing(")
            && error.contains("count: 12"),
        "{error}"
    );
    let every_2 = Config {
        checkpoint_every: 2,
        ..config
    };
    let outcome = run(&every_2, &options(dir.path(), true, None)).unwrap();
    assert!(matches!(outcome, RunOutcome::Annealed(_)), "{outcome:?}");
}
