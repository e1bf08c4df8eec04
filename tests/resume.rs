//! A run killed after a checkpoint and resumed ends in exactly the state of an uninterrupted
//! run, and the whole run loop gives the same bits on the CPU and the GPU: for the simple engine
//! and for the multispin engine with the spin glass's overlaps. Population annealing, killed
//! between temperature steps or stopped inside one (between two of its plans, inside a sweep
//! where the engine updates pieces of one), resumes to the same bits on both CPU engines and
//! through wgpu, with a fixed and an adaptive schedule; checkpoints of another config, of the
//! other algorithm, or damaged ones are refused. The binary stopped by SIGTERM or its wall time
//! writes a checkpoint, exits with 75 and resumes to the uninterrupted run's files (an anneal
//! inside its one long step); a second run into a busy directory is refused.
//! Vector-spin runs (an XY glass halted while its cone is tuned, a Heisenberg ferromagnet on the
//! double checkerboard, on the CPU and through wgpu, and one stopped by SIGTERM) resume to the
//! same bits, and refuse a checkpoint of another config or kind. A run given the couplings
//! another run wrote (of the Edwards-Anderson glass, the bimodal and the Gaussian vector glass)
//! writes that run's files.

mod common;
/// Checkpoints that move: to another backend, with other outputs, to a longer run.
#[path = "resume/moves.rs"]
mod moves;
/// Runs stopped inside their sweeps.
#[path = "resume/pieces.rs"]
mod pieces;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::runs::{
    TEMPERING, cpu_and_gpu_identical, file_names, options, resumed_equals_uninterrupted,
};
use spinflip::annealing::checkpoint::AnnealingCheckpoint;
use spinflip::annealing::{AnnealedSystems, AnnealingSummary, ising_annealed};
use spinflip::config::Config;
use spinflip::io::run_dir::RunOptions;
use spinflip::run::RunOutcome;
use spinflip::run::run;
use spinflip::stop::StopReason;
use spinflip::vector::{AnnealedStates, VectorSummary};

const CONFIG: &str = r#"(
    model: Ising(dims: 2, size: 12, field: 0.1),
    temperatures: Betas([0.35, 0.5]),
    replicas: 3,
    sweeps: (thermalize: 100, measure: 900, every: 3),
    seed: 99,
    backend: Wgpu,
    checkpoint_every: 150,
)"#;

/// The Edwards-Anderson model through the multispin engine: 32 samples in lanes, overlaps.
const SPIN_GLASS: &str = r#"(
    model: EdwardsAnderson(dims: 3, size: 4, field: 0.0),
    temperatures: Betas([0.5, 1.0]),
    replicas: 2,
    samples: 32,
    engine: Multispin(layout: Amsc(lanes: Samples)),
    sweeps: (thermalize: 100, measure: 900, every: 3),
    seed: 77,
    backend: Wgpu,
    checkpoint_every: 150,
)"#;

/// A tuned ladder: the run is halted in the middle of the tuning stages.
const TUNED_TEMPERING: &str = r#"(
    model: Ising(dims: 2, size: 8, field: 0.0),
    temperatures: LinearBeta(min: 0.3, max: 0.6, count: 5),
    replicas: 2,
    sweeps: (thermalize: 1000, measure: 900, every: 3),
    algorithm: Tempering(every: 2, tune: true),
    seed: 79,
    backend: Wgpu,
    checkpoint_every: 150,
)"#;

/// Swendsen-Wang with a Metropolis sweep per step: cluster updates keep their own counter.
const CLUSTERS: &str = r#"(
    model: Ising(dims: 2, size: 8, field: 0.0),
    temperatures: Betas([0.4, 0.45]),
    replicas: 2,
    sweeps: (thermalize: 100, measure: 900, every: 3),
    algorithm: Clusters(update: SwendsenWang, metropolis: 1),
    seed: 98,
    backend: Wgpu,
    checkpoint_every: 150,
)"#;

/// The honeycomb's ferromagnet, which engine: Auto puts on multispin words (32 replicas in
/// lanes), with parallel tempering.
const HONEYCOMB: &str = r#"(
    model: Ising(dims: 2, size: 8, field: 0.0, lattice: Honeycomb),
    temperatures: Betas([0.55, 0.62, 0.7]),
    replicas: 32,
    sweeps: (thermalize: 100, measure: 900, every: 3),
    algorithm: Tempering(every: 2),
    seed: 1951,
    backend: Wgpu,
    checkpoint_every: 150,
)"#;

#[test]
fn resumed_honeycomb_run_equals_uninterrupted_run() {
    resumed_equals_uninterrupted(HONEYCOMB);
}

#[test]
fn cpu_and_gpu_honeycomb_runs_write_identical_results() {
    cpu_and_gpu_identical(HONEYCOMB);
}

#[test]
fn resumed_run_equals_uninterrupted_run() {
    resumed_equals_uninterrupted(CONFIG);
}

#[test]
fn resumed_spin_glass_run_equals_uninterrupted_run() {
    resumed_equals_uninterrupted(SPIN_GLASS);
}

#[test]
fn resumed_tempering_run_equals_uninterrupted_run() {
    resumed_equals_uninterrupted(TEMPERING);
}

#[test]
fn resumed_tuned_tempering_run_equals_uninterrupted_run() {
    resumed_equals_uninterrupted(TUNED_TEMPERING);
}

#[test]
fn resumed_cluster_run_equals_uninterrupted_run() {
    resumed_equals_uninterrupted(CLUSTERS);
}

#[test]
fn cpu_and_gpu_cluster_runs_write_identical_results() {
    cpu_and_gpu_identical(CLUSTERS);
}

#[test]
fn cpu_and_gpu_runs_write_identical_results() {
    cpu_and_gpu_identical(CONFIG);
}

#[test]
fn cpu_and_gpu_spin_glass_runs_write_identical_results() {
    cpu_and_gpu_identical(SPIN_GLASS);
}

#[test]
fn cpu_and_gpu_tempering_runs_write_identical_results() {
    cpu_and_gpu_identical(TEMPERING);
}

#[test]
fn a_fresh_run_refuses_to_replace_an_earlier_run_unless_told() {
    let config = common::config(CONFIG);
    let dir = tempfile::tempdir().unwrap();
    run(&config, &options(dir.path(), false, Some(150))).unwrap();
    let before = std::fs::read(dir.path().join("checkpoint.bin")).unwrap();
    let error = run(&config, &options(dir.path(), false, None))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("--resume") && error.contains("--force"),
        "{error}"
    );
    assert_eq!(
        std::fs::read(dir.path().join("checkpoint.bin")).unwrap(),
        before
    );
    let forced = RunOptions {
        overwrite: true,
        ..options(dir.path(), false, None)
    };
    common::completed(run(&config, &forced).unwrap());
}

/// A forced run removes the files of the run it replaces that it does not write again (the
/// other temperatures' files and the tempering tables), and leaves files spinflip does not
/// write.
#[test]
fn a_forced_run_removes_the_replaced_runs_files() {
    let dir = tempfile::tempdir().unwrap();
    let tempered = CONFIG
        .replace("Betas([0.35, 0.5])", "Betas([0.35, 0.4, 0.5])")
        .replace(
            "replicas: 3,",
            "replicas: 3, algorithm: Tempering(every: 10),",
        )
        .replace("Wgpu", "Cpu");
    common::completed(
        run(
            &common::config(&tempered),
            &options(dir.path(), false, None),
        )
        .unwrap(),
    );
    let kept = dir.path().join("notes.txt");
    std::fs::write(&kept, "the physicist's own").unwrap();
    let names = || file_names(dir.path());
    assert!(
        names().iter().any(|n| n.contains("t02_beta0.5000")),
        "{:?}",
        names()
    );
    let plain = CONFIG
        .replace("Betas([0.35, 0.5])", "Betas([0.45])")
        .replace("Wgpu", "Cpu");
    let forced = RunOptions {
        overwrite: true,
        ..options(dir.path(), false, None)
    };
    common::completed(run(&common::config(&plain), &forced).unwrap());
    let after = names();
    for stale in [
        "t01_",
        "t02_",
        "round_trips",
        "temperature_history",
        "0.3500",
    ] {
        assert!(
            !after.iter().any(|n| n.contains(stale)),
            "{stale}: {after:?}"
        );
    }
    assert!(
        after.iter().any(|n| n == "timeseries_t00_beta0.4500.csv"),
        "{after:?}"
    );
    assert!(after.iter().any(|n| n == "summary.json"), "{after:?}");
    assert_eq!(
        std::fs::read_to_string(&kept).unwrap(),
        "the physicist's own"
    );
}

/// A config without an engine (Auto) runs the engine it resolves to and writes that into
/// `config.ron`; its checkpoint resumes from either text.
#[test]
fn an_auto_engine_run_resumes_from_its_config_or_the_written_one() {
    let auto = CONFIG
        .replace("replicas: 3", "replicas: 32")
        .replace("Wgpu", "Cpu");
    let config = common::config(&auto);
    let dir = tempfile::tempdir().unwrap();
    run(&config, &options(dir.path(), false, Some(150))).unwrap();
    let written = spinflip::config::Config::from_path(&dir.path().join("config.ron")).unwrap();
    assert!(written.engine.multispin().is_some(), "{written:?}");
    let halted = run(&written, &options(dir.path(), true, Some(300))).unwrap();
    assert_eq!(halted, RunOutcome::Halted { sweeps_done: 300 });
    let summary = common::completed(run(&config, &options(dir.path(), true, None)).unwrap());
    assert!(
        summary.run.engine_choice.contains("engine: Auto chose"),
        "{}",
        summary.run.engine_choice
    );
    assert!(
        summary.run.engine.contains("AMSC"),
        "{}",
        summary.run.engine
    );
}

#[test]
fn resume_refuses_a_checkpoint_of_another_config() {
    let config = common::config(CONFIG);
    let dir = tempfile::tempdir().unwrap();
    run(&config, &options(dir.path(), false, Some(150))).unwrap();
    let mut other = config.clone();
    other.seed += 1;
    let error = run(&other, &options(dir.path(), true, None))
        .unwrap_err()
        .to_string();
    assert!(error.contains("different config"), "{error}");
}

/// The instance round trip: a run given the couplings another run wrote (`couplings:
/// File(..)`) writes that run's files byte for byte; with another seed, the same couplings and
/// other lattices; and a checkpoint resumes only with the instance it was written with.
fn given_couplings_equal_the_drawn_ones(text: &str) {
    let drawn = spinflip::config::Config {
        backend: spinflip::config::Backend::Cpu,
        ..common::config(text)
    };
    let dirs: Vec<_> = (0..4).map(|_| tempfile::tempdir().unwrap()).collect();
    let [a, b, c, d] = [0, 1, 2, 3].map(|i| dirs[i].path());
    run(&drawn, &options(a, false, None)).unwrap();
    let couplings = d.join("couplings.npy");
    std::fs::copy(a.join("couplings.npy"), &couplings).unwrap();
    let given = spinflip::config::Config {
        couplings: spinflip::config::Quenched::File(couplings.display().to_string()),
        ..drawn.clone()
    };
    run(&given, &options(b, false, None)).unwrap();
    // The config and its fingerprint in the checkpoint name the instance.
    common::runs::assert_same_outputs(a, b, &["config.ron", "checkpoint.bin"]);
    let config = std::fs::read_to_string(b.join("config.ron")).unwrap();
    assert!(config.contains("// couplings read from"), "{config}");
    let source = |dir: &Path| {
        let summary = std::fs::read_to_string(dir.join("summary.json")).unwrap();
        let summary: serde_json::Value = serde_json::from_str(&summary).unwrap();
        summary["couplings"].as_str().unwrap().to_string()
    };
    assert_eq!(source(a), "drawn from the seed");
    assert!(source(b).starts_with(&couplings.display().to_string()));
    let reseeded = spinflip::config::Config {
        seed: drawn.seed + 1,
        ..given.clone()
    };
    run(&reseeded, &options(c, false, Some(150))).unwrap();
    // Another instance under the same path: the checkpoint refuses it.
    negate_last_coupling(&couplings);
    let error = run(&reseeded, &options(c, true, None))
        .unwrap_err()
        .to_string();
    assert!(error.contains("different config"), "{error}");
    negate_last_coupling(&couplings);
    run(&reseeded, &options(c, true, None)).unwrap();
    let read = |dir: &Path, name: &str| std::fs::read(dir.join(name)).unwrap();
    assert_eq!(read(a, "couplings.npy"), read(c, "couplings.npy"));
    assert_ne!(read(a, "final_state.npy"), read(c, "final_state.npy"));
}

/// The last coupling of the `couplings.npy` at `path` (`int8` or `float64`, little-endian),
/// negated: another instance, which negating again undoes.
fn negate_last_coupling(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let last = bytes.len() - 1;
    match spinflip::io::output::npy_i8_header(&bytes) {
        Some(_) => bytes[last] = bytes[last].wrapping_neg(),
        // The sign bit of the last float64.
        None => bytes[last] ^= 0x80,
    }
    std::fs::write(path, &bytes).unwrap();
}

#[test]
fn a_run_of_given_couplings_equals_the_run_that_drew_them() {
    given_couplings_equal_the_drawn_ones(SPIN_GLASS);
}

/// The +-J glass on the honeycomb's multispin words: its `couplings.npy` (0 at the brick
/// wall's gaps) gives its run back.
#[test]
fn a_honeycomb_glass_of_given_couplings_equals_the_run_that_drew_them() {
    let cubic = "EdwardsAnderson(dims: 3, size: 4, field: 0.0)";
    let honeycomb = "EdwardsAnderson(dims: 2, size: 6, field: 0.0, lattice: Honeycomb)";
    assert!(SPIN_GLASS.contains(cubic));
    given_couplings_equal_the_drawn_ones(&SPIN_GLASS.replace(cubic, honeycomb));
}

#[test]
fn a_vector_glass_of_given_couplings_equals_the_run_that_drew_them() {
    given_couplings_equal_the_drawn_ones(XY_GLASS);
    given_couplings_equal_the_drawn_ones(HEISENBERG_GAUSSIAN_GLASS);
}

/// The couplings a glass with an open and an antiperiodic edge writes (the drawn signs, 0
/// across the open edge) give back its run with the same `boundaries`: the Edwards-Anderson
/// glass (two states) and the Heisenberg Gaussian glass.
#[test]
fn a_glass_with_open_and_antiperiodic_edges_of_given_couplings_equals_its_run() {
    let edges = |text: &str, from: &str, to: &str| {
        assert!(text.contains(from));
        text.replace(from, to)
    };
    given_couplings_equal_the_drawn_ones(
        r#"(
            model: EdwardsAnderson(dims: 2, size: 8, boundaries: (Open, Antiperiodic)),
            temperatures: Betas([0.5, 1.0]),
            replicas: 2,
            samples: 4,
            sweeps: (thermalize: 100, measure: 300, every: 3),
            seed: 77,
            backend: Cpu,
            checkpoint_every: 150,
        )"#,
    );
    given_couplings_equal_the_drawn_ones(&edges(
        HEISENBERG_GAUSSIAN_GLASS,
        "dims: 3, size: 4,",
        "dims: 3, size: 4, boundaries: (Open, Periodic, Antiperiodic),",
    ));
}

/// Population annealing with a fixed schedule on the simple engine: 10 steps of 2 sweeps, a
/// checkpoint every 4 sweeps (after steps 2, 4, 6 and 8), reweighted.
const ANNEAL_FIXED: &str = r#"(
    model: Ising(dims: 2, size: 8, field: 0.0),
    replicas: 64,
    engine: Simple,
    algorithm: Annealing(theta: 2, schedule: Linear(beta_max: 0.5, count: 10), runs: 2,
        reweighting: Some(25)),
    seed: 5,
    backend: Cpu,
    checkpoint_every: 4,
)"#;

/// An adaptive schedule on the multispin engine, two disorder samples of the spin glass, with
/// the overlaps and the reweighting (whose histograms the checkpoints carry).
const ANNEAL_ADAPTIVE_MULTISPIN: &str = r#"(
    model: EdwardsAnderson(dims: 2, size: 4, field: 0.0),
    replicas: 64,
    samples: 2,
    engine: Multispin(layout: Amsc(lanes: Replicas), randoms: Exact),
    algorithm: Annealing(theta: 2, schedule: Adaptive(overlap: 0.8, beta_max: 1.5),
        resampling: Multinomial, runs: 2, overlaps: true, reweighting: Some(7)),
    seed: 6,
    backend: Cpu,
    checkpoint_every: 4,
    plots: false,
)"#;

/// A fixed list of betas on the multispin engine.
const ANNEAL_FIXED_MULTISPIN: &str = r#"(
    model: Ising(dims: 2, size: 8, field: 0.0),
    replicas: 64,
    engine: Multispin(layout: Amsc(lanes: Replicas), randoms: Exact),
    algorithm: Annealing(theta: 2,
        schedule: Betas([0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5])),
    seed: 7,
    backend: Cpu,
    checkpoint_every: 4,
    plots: false,
)"#;

/// An adaptive schedule on the simple engine.
const ANNEAL_ADAPTIVE: &str = r#"(
    model: Ising(dims: 2, size: 8, field: 0.0),
    replicas: 64,
    engine: Simple,
    algorithm: Annealing(theta: 2, schedule: Adaptive(overlap: 0.8, beta_max: 0.6), runs: 2),
    seed: 8,
    backend: Cpu,
    checkpoint_every: 4,
    plots: false,
)"#;

/// Discrete states on the vector engine: the diluted 3-state Potts antiferromagnet, whose
/// checkpoints hold the lattices as words and the estimates' staggered moments (formats 23 and
/// 24), reweighted (histograms of energies in units of `2^-24`).
const ANNEAL_STATES: &str = r#"(
    model: Potts(q: 3, dims: 2, size: 8, dilution: 0.1, antiferromagnet: true),
    replicas: 64,
    algorithm: Annealing(theta: 2, schedule: Linear(beta_max: 1.2, count: 10), runs: 2,
        reweighting: Some(15)),
    seed: 9,
    backend: Cpu,
    checkpoint_every: 4,
    plots: false,
)"#;

fn annealed(outcome: RunOutcome) -> AnnealingSummary {
    match outcome {
        RunOutcome::Annealed(summary) => *summary,
        other => panic!("not a finished anneal: {other:?}"),
    }
}

/// `annealing.json` without its timing and provenance.
fn annealing_json_without_timing(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("annealing.json")).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["ps_per_flip"] = serde_json::Value::from(0.0);
    let provenance = json.as_object_mut().unwrap().remove("provenance");
    assert!(
        provenance.is_some(),
        "a finished anneal records its provenance"
    );
    json
}

/// Every file of two anneals is byte-identical, `annealing.json` but for its timing, and the
/// final checkpoints (with every slot's final lattice) among them.
fn assert_same_anneal_outputs(a: &Path, b: &Path) {
    let mut names: Vec<_> = std::fs::read_dir(a)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "annealing.json")
        .collect();
    names.sort();
    for name in [
        "annealing.csv",
        "annealing_populations.csv",
        "checkpoint.bin",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} missing: {names:?}");
    }
    for name in names {
        let (x, y) = (
            std::fs::read(a.join(&name)).unwrap(),
            std::fs::read(b.join(&name)).unwrap(),
        );
        assert!(x == y, "{name} differs");
    }
    assert_eq!(
        annealing_json_without_timing(a),
        annealing_json_without_timing(b)
    );
}

/// Killed after the checkpoint at 12 sweeps (step 6), resumed and killed again at the next
/// checkpoint (16 sweeps: so it continued, where a fresh start would stop at 4), then resumed
/// to the end: the same outputs, schedule and final lattices as an uninterrupted anneal; the
/// resumed anneal's summary.
fn resumed_anneal_equals_uninterrupted(text: &str) -> AnnealingSummary {
    let config = common::config(text);
    let (whole, parts) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let uninterrupted = annealed(run(&config, &options(whole.path(), false, None)).unwrap());
    assert!(
        uninterrupted.schedule.len() > 8,
        "{:?}",
        uninterrupted.schedule
    );
    let halted = run(&config, &options(parts.path(), false, Some(9))).unwrap();
    assert_eq!(halted, RunOutcome::Halted { sweeps_done: 12 });
    assert!(
        !parts.path().join("annealing.json").exists(),
        "a halted anneal has no results"
    );
    let again = run(&config, &options(parts.path(), true, Some(0))).unwrap();
    assert_eq!(again, RunOutcome::Halted { sweeps_done: 16 });
    let resumed = annealed(run(&config, &options(parts.path(), true, None)).unwrap());
    assert_eq!(resumed.schedule, uninterrupted.schedule);
    assert_same_anneal_outputs(whole.path(), parts.path());
    resumed
}

#[test]
fn resumed_anneal_equals_uninterrupted_anneal() {
    resumed_anneal_equals_uninterrupted(ANNEAL_FIXED);
}

#[test]
fn resumed_adaptive_multispin_anneal_equals_uninterrupted_anneal() {
    resumed_anneal_equals_uninterrupted(ANNEAL_ADAPTIVE_MULTISPIN);
}

#[test]
fn resumed_multispin_anneal_equals_uninterrupted_anneal() {
    resumed_anneal_equals_uninterrupted(ANNEAL_FIXED_MULTISPIN);
}

#[test]
fn resumed_adaptive_anneal_equals_uninterrupted_anneal() {
    resumed_anneal_equals_uninterrupted(ANNEAL_ADAPTIVE);
}

#[test]
fn resumed_discrete_state_anneal_equals_uninterrupted_anneal() {
    let summary = resumed_anneal_equals_uninterrupted(ANNEAL_STATES);
    assert!(summary.steps.iter().all(|a| a.staggered.is_some()));
}

/// Options that stop the run at its first plan boundary where a stop may fall (a wall time
/// already past), resuming it (`resume`) or not.
fn stopping_at_once(out: &Path, resume: bool) -> RunOptions {
    RunOptions {
        deadline: Some(Instant::now()),
        ..options(out, resume, None)
    }
}

/// The units of a sweep the first plan of an invocation of the anneal `config` holds: one (a
/// pass over one plane) where its engine updates pieces of sweeps, else a whole sweep's (two
/// passes over every plane).
fn first_plan_units(config: &Config) -> u64 {
    let annealing = config.algorithm.annealing().unwrap();
    let view = annealing.engine_config(config).unwrap();
    let systems: Box<dyn AnnealedSystems> = match config.is_vector() {
        true => Box::new(AnnealedStates::new(&view, None, None)),
        false => Box::new(ising_annealed(&view, None)),
    };
    let engine = systems.open_engine(&view).unwrap();
    match engine.sweep_parts() {
        true => 1,
        false => 2 * u64::from(config.model.size()),
    }
}

/// The step under way of the checkpoint in `dir`, if it stopped inside one: its units done.
fn units_into_step(dir: &Path) -> Option<u64> {
    let bytes = std::fs::read(dir.join("checkpoint.bin")).unwrap();
    let checkpoint = AnnealingCheckpoint::decode(&bytes).unwrap();
    checkpoint.step_under_way.map(|step| step.units_done)
}

/// The anneal `text` stopped by its wall time at its first plan boundary, again and again (so
/// that each invocation runs one plan, of the units [`first_plan_units`] says), `stops` times
/// at most, then resumed to its end: the uninterrupted anneal's files. The stops fall inside
/// steps, inside sweeps where the engine updates pieces of them, and between steps.
fn stopped_anneal_equals_uninterrupted(text: &str, stops: usize) {
    let config = common::config(text);
    let (whole, parts) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    annealed(run(&config, &options(whole.path(), false, None)).unwrap());
    let mut inside = Vec::new();
    let mut finished = false;
    for invocation in 0..stops {
        match run(&config, &stopping_at_once(parts.path(), invocation > 0)).unwrap() {
            RunOutcome::Stopped {
                reason: StopReason::WallTime,
                ..
            } => inside.extend(units_into_step(parts.path())),
            RunOutcome::Annealed(_) => {
                finished = true;
                break;
            }
            other => panic!("neither stopped nor finished: {other:?}"),
        }
    }
    if !finished {
        annealed(run(&config, &options(parts.path(), true, None)).unwrap());
    }
    assert_same_anneal_outputs(whole.path(), parts.path());
    let plan = first_plan_units(&config);
    assert_eq!(inside.first(), Some(&plan), "{inside:?}");
    assert!(inside.iter().all(|units| units % plan == 0), "{inside:?}");
    let sweep = 2 * u64::from(config.model.size());
    assert_eq!(
        inside.iter().any(|units| units % sweep != 0),
        plan < sweep,
        "stops inside a sweep where the engine updates pieces of them: {inside:?}"
    );
}

#[test]
fn an_anneal_stopped_inside_its_steps_resumes_to_the_uninterrupted_files() {
    stopped_anneal_equals_uninterrupted(ANNEAL_FIXED, 40);
}

#[test]
fn a_multispin_anneal_stopped_inside_its_steps_resumes_to_the_uninterrupted_files() {
    stopped_anneal_equals_uninterrupted(ANNEAL_ADAPTIVE_MULTISPIN, 40);
}

#[test]
fn a_discrete_state_anneal_stopped_inside_its_steps_resumes_to_the_uninterrupted_files() {
    stopped_anneal_equals_uninterrupted(ANNEAL_STATES, 40);
}

/// Through wgpu (each invocation opens the device): stopped inside the first step, twice.
#[test]
fn a_wgpu_anneal_stopped_inside_its_steps_resumes_to_the_uninterrupted_files() {
    stopped_anneal_equals_uninterrupted(&ANNEAL_FIXED.replace("Cpu", "Wgpu"), 2);
    stopped_anneal_equals_uninterrupted(&ANNEAL_FIXED_MULTISPIN.replace("Cpu", "Wgpu"), 2);
}

/// The error of resuming `config` from `dir`.
fn resume_error(config: &spinflip::config::Config, dir: &Path) -> String {
    run(config, &options(dir, true, None))
        .unwrap_err()
        .to_string()
}

/// The refusals every resumable run shares: `--resume` without a checkpoint, a fresh run over
/// one, another config (`change` applied to `config`), a truncated checkpoint. Leaves the intact
/// checkpoint of `config` halted after `halt_after` steps in the returned directory, and its
/// bytes.
fn assert_shared_refusals(
    config: &spinflip::config::Config,
    halt_after: u64,
    change: impl Fn(&mut spinflip::config::Config),
) -> (tempfile::TempDir, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let error = resume_error(config, dir.path());
    assert!(error.contains("--resume: no checkpoint at"), "{error}");
    run(config, &options(dir.path(), false, Some(halt_after))).unwrap();
    let error = run(config, &options(dir.path(), false, None))
        .unwrap_err()
        .to_string();
    assert!(error.contains("already holds a run"), "{error}");
    let mut other = config.clone();
    change(&mut other);
    let error = resume_error(&other, dir.path());
    assert!(error.contains("different config"), "{error}");
    let path = dir.path().join("checkpoint.bin");
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 100]).unwrap();
    let error = resume_error(config, dir.path());
    assert!(
        error.contains("checkpoint.bin") && error.contains("truncated checkpoint"),
        "{error}"
    );
    std::fs::write(&path, &bytes).unwrap();
    (dir, bytes)
}

#[test]
fn resuming_an_anneal_refuses_another_config_and_damaged_checkpoints() {
    let config = common::config(ANNEAL_FIXED);
    let (dir, bytes) = assert_shared_refusals(&config, 4, |other| other.seed += 1);
    let path = dir.path().join("checkpoint.bin");
    let mut flipped = bytes.clone();
    flipped[200] ^= 0x02;
    std::fs::write(&path, &flipped).unwrap();
    let error = resume_error(&config, dir.path());
    assert!(error.contains("checksum mismatch"), "{error}");
    // The intact checkpoint still resumes.
    std::fs::write(&path, &bytes).unwrap();
    annealed(run(&config, &options(dir.path(), true, None)).unwrap());
}

/// An anneal's checkpoint offered to a run of Metropolis sweeps, and the reverse.
#[test]
fn a_checkpoint_of_the_other_algorithm_is_refused_as_such() {
    let anneal = common::config(ANNEAL_FIXED);
    let sweeps = common::config(&CONFIG.replace("Wgpu", "Cpu"));
    let (annealing_dir, sweeps_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    run(&anneal, &options(annealing_dir.path(), false, Some(4))).unwrap();
    run(&sweeps, &options(sweeps_dir.path(), false, Some(150))).unwrap();
    let error = resume_error(&sweeps, annealing_dir.path());
    assert!(
        error.contains("checkpoint is of a population-annealing run"),
        "{error}"
    );
    let error = resume_error(&anneal, sweeps_dir.path());
    assert!(
        error.contains("checkpoint is of a run of Metropolis sweeps"),
        "{error}"
    );
}

/// A step's families and estimates are made beside the next step's engine work, or at once
/// where a checkpoint follows the step: the same anneal with a checkpoint after every step (all
/// at once) and with none but the last (all beside the next step) writes the same results,
/// family statistics included.
#[test]
fn an_anneals_estimates_do_not_depend_on_when_they_are_made() {
    let dirs = [2, 0].map(|every| {
        let text = ANNEAL_FIXED_MULTISPIN
            .replace("checkpoint_every: 4", &format!("checkpoint_every: {every}"));
        let dir = tempfile::tempdir().unwrap();
        annealed(run(&common::config(&text), &options(dir.path(), false, None)).unwrap());
        dir
    });
    for file in ["annealing.csv", "annealing_populations.csv"] {
        let [a, b] = [&dirs[0], &dirs[1]].map(|d| std::fs::read(d.path().join(file)).unwrap());
        assert!(a == b, "{file} differs");
    }
}

const BIN: &str = env!("CARGO_BIN_EXE_spinflip");

/// A run of a few seconds on the CPU whose only checkpoint is the last (`checkpoint_every: 0`):
/// whatever a stop leaves, the stop wrote.
const STOPPABLE: &str = r#"(
    model: Ising(dims: 2, size: 32, field: 0.0),
    temperatures: Betas([0.4, 0.45]),
    replicas: 2,
    engine: Simple,
    sweeps: (thermalize: 500, measure: 5500, every: 10),
    seed: 21,
    backend: Cpu,
    checkpoint_every: 0,
    plots: false,
)"#;

/// `spinflip run config --out out extra...`, its standard error piped (progress lines).
fn spawn_run(config: &Path, out: &Path, extra: &[&str]) -> Child {
    Command::new(BIN)
        .arg("run")
        .arg(config)
        .arg("--out")
        .arg(out)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spinflip starts")
}

/// Read the run's standard error up to its first progress line: its loop runs, so its signal
/// handlers are in place.
fn wait_for_progress(child: &mut Child) -> BufReader<ChildStderr> {
    wait_for_line(child, " sweeps (")
}

/// Read the run's standard error up to the first line containing `marker`.
fn wait_for_line(child: &mut Child, marker: &str) -> BufReader<ChildStderr> {
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains(marker) {
        line.clear();
        let read = stderr.read_line(&mut line).unwrap();
        assert!(read > 0, "the run ended before reporting progress");
    }
    stderr
}

/// The exit status and the rest of the standard error of a child.
fn finish(mut child: Child, mut stderr: BufReader<ChildStderr>) -> (ExitStatus, String) {
    let mut report = String::new();
    stderr.read_to_string(&mut report).unwrap();
    (child.wait().unwrap(), report)
}

/// `summary.json` without what differs between two runs of one config: rates and provenance.
fn summary_without_provenance(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let map = json.as_object_mut().unwrap();
    assert!(
        map.remove("provenance").is_some(),
        "summary.json has no provenance"
    );
    // Ising runs report flips per ns and ps per flip, vector runs updates per ns.
    let rates = ["flips_per_ns", "ps_per_flip", "updates_per_ns"];
    let removed = rates.iter().filter(|key| map.remove(**key).is_some());
    assert!(removed.count() > 0, "summary.json has no rate");
    json
}

/// The run stopped in `stopped` (a checkpoint, no results) resumes to the files of `whole`.
fn assert_resumes_to(config: &Path, stopped: &Path, whole: &Path) {
    assert!(
        stopped.join("checkpoint.bin").exists(),
        "a stop writes a checkpoint"
    );
    assert!(
        !stopped.join("summary.json").exists(),
        "a stopped run has no results"
    );
    let resumed = Command::new(BIN)
        .arg("run")
        .arg(config)
        .arg("--out")
        .arg(stopped)
        .arg("--resume")
        .output()
        .unwrap();
    assert!(resumed.status.success(), "{resumed:?}");
    common::runs::assert_same_outputs(whole, stopped, &[]);
    assert_eq!(
        summary_without_provenance(whole),
        summary_without_provenance(stopped)
    );
}

/// SIGUSR2 (which mpirun forwards) and SIGHUP (a closed terminal) stop a run as SIGTERM does:
/// a checkpoint at the next plan boundary, status 75, the signal named, the lock released.
#[test]
fn sigusr2_and_sighup_stop_a_run_with_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("stoppable.ron");
    std::fs::write(&config, STOPPABLE).unwrap();
    for signal in ["USR2", "HUP"] {
        let stopped = dir.path().join(signal);
        let mut child = spawn_run(&config, &stopped, &[]);
        let stderr = wait_for_progress(&mut child);
        kill(signal, &child);
        let (status, report) = finish(child, stderr);
        assert_eq!(status.code(), Some(75), "{signal}: {report}");
        assert!(report.contains(&format!("(SIG{signal})")), "{report}");
        assert!(stopped.join("checkpoint.bin").exists(), "{signal}");
        assert!(!stopped.join("spinflip.lock").exists(), "{signal}");
    }
}

/// A run whose sweeps take a good part of a second on any CPU (2^24 spins): its chunk of
/// 1010 sweeps would take many minutes in one plan.
const LONG_SWEEPS: &str = r#"(
    model: Ising(dims: 3, size: 256, field: 0.0),
    temperatures: Betas([0.22]),
    replicas: 1,
    engine: Simple,
    sweeps: (thermalize: 1000, measure: 100000, every: 10),
    seed: 21,
    backend: Cpu,
    checkpoint_every: 0,
    plots: false,
)"#;

/// Read the run's standard error up to the line containing `marker`, returning it and how long
/// that took.
fn time_to_line(stderr: &mut BufReader<ChildStderr>, marker: &str) -> (String, Duration) {
    let started = Instant::now();
    let mut line = String::new();
    while !line.contains(marker) {
        line.clear();
        let read = stderr.read_line(&mut line).unwrap();
        assert!(read > 0, "the run ended before printing {marker:?}");
    }
    (line, started.elapsed())
}

/// [`LONG_SWEEPS`] run by the command into `dir/run`, read up to its first progress line: its
/// output directory, the process and the rest of its standard error.
fn start_long_sweeps(dir: &Path) -> (PathBuf, Child, BufReader<ChildStderr>) {
    let config = dir.join("long.ron");
    std::fs::write(&config, LONG_SWEEPS).unwrap();
    let out = dir.join("run");
    let mut child = spawn_run(&config, &out, &[]);
    let stderr = wait_for_progress(&mut child);
    (out, child, stderr)
}

/// SIGTERM to a run whose sweeps are long: the run says at once that a checkpoint is coming,
/// and writes it within seconds (plans are cut to about a second, inside sweeps where they are
/// longer; a batch system's SIGKILL follows its SIGTERM after 30 s on SLURM).
#[test]
fn a_stop_during_long_sweeps_is_acknowledged_at_once_and_honoured_within_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let (out, child, mut stderr) = start_long_sweeps(dir.path());
    let signalled = Instant::now();
    kill("TERM", &child);
    let (ack, waited) = time_to_line(&mut stderr, "SIGTERM: stopping after the plan under way");
    assert!(waited < Duration::from_secs(2), "{waited:?}: {ack}");
    let (status, report) = finish(child, stderr);
    let stopped_after = signalled.elapsed();
    assert_eq!(status.code(), Some(75), "{report}");
    assert!(stopped_after < Duration::from_secs(30), "{stopped_after:?}");
    assert!(out.join("checkpoint.bin").exists());
}

/// Ctrl-C twice: the first asks for a checkpoint, the second ends the run at once, with a line
/// that says so, status 130 and the directory's lock removed (the next run needs no takeover).
/// The second must come while the plan under way still runs: on a loaded machine the test may
/// be descheduled past its end, so an attempt whose run wrote its checkpoint first is repeated.
#[test]
fn a_second_ctrl_c_ends_the_run_at_once_with_a_line_and_no_lock() {
    const ATTEMPTS: usize = 3;
    let late = (0..ATTEMPTS)
        .take_while(|_| !second_ctrl_c_ends_the_run())
        .count();
    assert!(
        late < ATTEMPTS,
        "every run wrote its checkpoint before the second Ctrl-C ended it"
    );
}

/// One run of [`a_second_ctrl_c_ends_the_run_at_once_with_a_line_and_no_lock`]: whether the
/// second Ctrl-C came in time (the run wrote no checkpoint).
fn second_ctrl_c_ends_the_run() -> bool {
    let dir = tempfile::tempdir().unwrap();
    // Right after a progress line: a plan of about a second has just begun.
    let (out, child, mut stderr) = start_long_sweeps(dir.path());
    kill("INT", &child);
    time_to_line(&mut stderr, "Ctrl-C again ends it at once without one");
    kill("INT", &child);
    let (status, report) = finish(child, stderr);
    if out.join("checkpoint.bin").exists() {
        return false;
    }
    assert_eq!(status.code(), Some(130), "{report}");
    assert!(
        report.contains("SIGINT again: ending now without a checkpoint"),
        "{report}"
    );
    assert!(!out.join("spinflip.lock").exists(), "the lock is removed");
    true
}

/// A run whose standard error and output are closed as it goes (`2>&1 | head`, a `tee` that
/// died, a closed terminal) runs on to the end and writes the files of a run that kept them.
#[test]
fn a_run_whose_output_pipes_close_runs_to_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("stoppable.ron");
    std::fs::write(&config, STOPPABLE).unwrap();
    let whole = dir.path().join("whole");
    run_to_the_end(&config, &whole);
    let closed = dir.path().join("closed");
    let mut child = Command::new(BIN)
        .arg("run")
        .arg(&config)
        .arg("--out")
        .arg(&closed)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(wait_for_progress(&mut child));
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    common::runs::assert_same_outputs(&whole, &closed, &[]);
    assert_eq!(
        summary_without_provenance(&whole),
        summary_without_provenance(&closed)
    );
}

/// A disk that fills after the first checkpoint (a 64 KiB file system of its own, mounted in a
/// mount namespace) ends the run with 75 and a line saying the last checkpoint is intact; that
/// checkpoint, moved to a disk with space, resumes to the files of an uninterrupted run.
#[test]
fn a_full_disk_exits_75_and_its_last_checkpoint_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("stoppable.ron");
    std::fs::write(
        &config,
        STOPPABLE.replace("checkpoint_every: 0", "checkpoint_every: 500"),
    )
    .unwrap();
    let whole = dir.path().join("whole");
    let uninterrupted = Command::new(BIN)
        .args([
            "run".as_ref(),
            config.as_os_str(),
            "--out".as_ref(),
            whole.as_os_str(),
        ])
        .output()
        .unwrap();
    assert!(uninterrupted.status.success(), "{uninterrupted:?}");
    let small = dir.path().join("small");
    std::fs::create_dir(&small).unwrap();
    let kept = dir.path().join("kept");
    let script = r#"mount -t tmpfs -o size=64k tmpfs "$1" || exit 3
"$2" run "$3" --out "$1/run"
echo $? > "$4.status"
cp -a "$1/run" "$4""#;
    let full = Command::new("unshare")
        .args([
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            script,
            "sh",
        ])
        .args([
            small.as_os_str(),
            BIN.as_ref(),
            config.as_os_str(),
            kept.as_os_str(),
        ])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&full.stderr);
    assert!(full.status.success(), "{full:?}");
    let status = std::fs::read_to_string(kept.with_extension("status")).unwrap();
    assert_eq!(status.trim(), "75", "{report}");
    assert!(report.contains("No space left on device"), "{report}");
    assert!(
        report.contains("the disk is full, but the last checkpoint in"),
        "{report}"
    );
    assert_resumes_to(&config, &kept, &whole);
}

/// Run `config` into `out` by the command to its end, with status 0.
fn run_to_the_end(config: &Path, out: &Path) {
    let mut child = spawn_run(config, out, &[]);
    let stderr = wait_for_progress(&mut child);
    let (status, report) = finish(child, stderr);
    assert!(status.success(), "{report}");
}

/// `kill -SIGNAL` the child.
fn kill(signal: &str, child: &Child) {
    // A child not yet waited for is there to signal, ended or not.
    let killed = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
}

/// SIGTERM long before the run's only checkpoint: the run writes one at its next plan boundary
/// and exits with 75; resumed, it writes the uninterrupted run's files byte for byte. While it
/// runs, a second run into its directory is refused with its process. The wall time stops a run
/// the same way.
#[test]
fn a_run_stopped_by_sigterm_or_its_wall_time_resumes_to_the_uninterrupted_files() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("stoppable.ron");
    std::fs::write(&config, STOPPABLE).unwrap();
    let whole = dir.path().join("whole");
    run_to_the_end(&config, &whole);

    let stopped = dir.path().join("sigterm");
    let mut child = spawn_run(&config, &stopped, &[]);
    let stderr = wait_for_progress(&mut child);
    let second = Command::new(BIN)
        .arg("run")
        .arg(&config)
        .arg("--out")
        .arg(&stopped)
        .arg("--force")
        .output()
        .unwrap();
    let refusal = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{refusal}");
    assert!(
        refusal.contains(&format!("is in use by spinflip process {} on", child.id())),
        "{refusal}"
    );
    kill("TERM", &child);
    let (status, report) = finish(child, stderr);
    assert_eq!(status.code(), Some(75), "{report}");
    assert!(
        report.contains("spinflip: stopped after") && report.contains("(SIGTERM)"),
        "{report}"
    );
    assert!(
        !stopped.join("spinflip.lock").exists(),
        "the lock is released"
    );
    assert_resumes_to(&config, &stopped, &whole);

    let timed = dir.path().join("wall-time");
    let mut child = spawn_run(&config, &timed, &["--wall-time", "1"]);
    let stderr = wait_for_progress(&mut child);
    let (status, report) = finish(child, stderr);
    assert_eq!(status.code(), Some(75), "{report}");
    assert!(report.contains("(the wall time"), "{report}");
    assert_resumes_to(&config, &timed, &whole);
}

/// One temperature step of 12800 sweeps of 16^2 spins in 64 slots (409600 units, a unit a pass
/// over one plane): its plans start at one unit (or one sweep) and grow eightfold at most (1,
/// 8, 64, ...), so its last plan begins about 300000 units after the run's first line, however
/// fast the machine.
const LONG_STEP: &str = r#"(
    model: Ising(dims: 2, size: 16, field: 0.0),
    replicas: 4,
    engine: Multispin(layout: Amsc(lanes: Replicas), randoms: Exact),
    algorithm: Annealing(theta: 12800, schedule: Betas([0.4])),
    seed: 23,
    backend: Cpu,
    checkpoint_every: 0,
    plots: false,
)"#;

/// The line an anneal starts with, once its signal handlers are in place.
const ANNEAL_START: &str = "sweeps per temperature step";

/// SIGTERM as an anneal of one long step starts: it stops inside the step with a checkpoint,
/// status 75; resumed, it writes the uninterrupted anneal's files.
#[test]
fn an_anneal_stopped_by_sigterm_inside_its_step_resumes_to_the_uninterrupted_files() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("anneal.ron");
    std::fs::write(&config, LONG_STEP).unwrap();
    let whole = dir.path().join("whole");
    run_to_the_end(&config, &whole);
    let stopped = dir.path().join("stopped");
    let mut child = spawn_run(&config, &stopped, &[]);
    let stderr = wait_for_line(&mut child, ANNEAL_START);
    kill("TERM", &child);
    let (status, report) = finish(child, stderr);
    assert_eq!(status.code(), Some(75), "{report}");
    assert!(units_into_step(&stopped).is_some(), "{report}");
    let mut resumed = spawn_run(&config, &stopped, &["--resume"]);
    let stderr = wait_for_line(&mut resumed, ANNEAL_START);
    let (status, report) = finish(resumed, stderr);
    assert!(status.success(), "{report}");
    assert_same_anneal_outputs(&whole, &stopped);
}

/// An output directory whose lock a live process holds (here this one) is refused before
/// anything is written into it.
#[test]
fn a_run_into_a_locked_directory_is_refused_with_the_holder() {
    let dir = tempfile::tempdir().unwrap();
    let held = spinflip::io::lock::RunLock::acquire(dir.path()).unwrap();
    let config = common::config(&STOPPABLE.replace("measure: 5500", "measure: 10"));
    let error = run(&config, &options(dir.path(), false, None))
        .unwrap_err()
        .to_string();
    let holder = format!("in use by spinflip process {} on", std::process::id());
    assert!(error.contains(&holder), "{error}");
    assert!(!dir.path().join("config.ron").exists());
    drop(held);
    common::completed(run(&config, &options(dir.path(), false, None)).unwrap());
}

/// An XY spin glass whose cone is tuned at every 6 sweeps up to 120: a checkpoint every 32
/// sweeps falls between tuning stops, with acceptances counted since the last.
const XY_GLASS: &str = r#"(
    model: XY(dims: 2, size: 6, field: 0.0, disorder: Bimodal),
    temperatures: Temperatures([0.4, 1.2]),
    replicas: 2,
    samples: 2,
    updates: (proposal: Cone(acceptance: 0.5), overrelaxation: 1),
    sweeps: (thermalize: 240, measure: 300, every: 3),
    seed: 31,
    backend: Cpu,
    checkpoint_every: 32,
)"#;

/// A Heisenberg glass of Gaussian couplings (`float64` in its `couplings.npy`).
const HEISENBERG_GAUSSIAN_GLASS: &str = r#"(
    model: Heisenberg(dims: 3, size: 4, field: 0.0, disorder: Gaussian),
    temperatures: Temperatures([0.3, 1.0]),
    replicas: 2,
    samples: 2,
    sweeps: (thermalize: 120, measure: 120, every: 3),
    seed: 43,
    backend: Cpu,
    checkpoint_every: 32,
)"#;

/// The Heisenberg ferromagnet on the double checkerboard (tiles of 2^3, two hits).
const HEISENBERG_TILES: &str = r#"(
    model: Heisenberg(dims: 3, size: 4, field: 0.2),
    temperatures: Temperatures([0.8, 1.6]),
    replicas: 2,
    updates: (metropolis: DoubleCheckerboard(tile: 2, hits: 2), overrelaxation: 1),
    sweeps: (thermalize: 100, measure: 300, every: 2),
    seed: 41,
    backend: Cpu,
    checkpoint_every: 50,
)"#;

/// An XY glass with parallel tempering on a tuned ladder (stages every 12 sweeps to 120), a
/// round every 2 sweeps, its cone tuned too.
const XY_TEMPERING: &str = r#"(
    model: XY(dims: 2, size: 6, field: 0.0, disorder: Bimodal),
    temperatures: LinearBeta(min: 0.4, max: 1.2, count: 4),
    replicas: 2,
    samples: 2,
    algorithm: Tempering(every: 2, tune: true),
    updates: (proposal: Cone(acceptance: 0.5), overrelaxation: 1),
    sweeps: (thermalize: 240, measure: 300, every: 3),
    seed: 37,
    backend: Cpu,
    checkpoint_every: 32,
)"#;

/// The 3-state Potts glass (one replica: its overlaps are not measured) by the heat bath with
/// parallel tempering on a tuned ladder, a round every 2 sweeps.
const POTTS_GLASS_TEMPERING: &str = r#"(
    model: Potts(q: 3, dims: 2, size: 6, field: 0.25, disorder: Bimodal),
    temperatures: LinearBeta(min: 0.5, max: 1.5, count: 4),
    replicas: 1,
    samples: 2,
    algorithm: Tempering(every: 2, tune: true),
    updates: (proposal: HeatBath),
    sweeps: (thermalize: 240, measure: 300, every: 3),
    seed: 41,
    backend: Cpu,
    checkpoint_every: 32,
)"#;

/// The summary of a finished vector-spin run.
fn vector_summary(outcome: RunOutcome) -> VectorSummary {
    match outcome {
        RunOutcome::Vector(summary) => *summary,
        other => panic!("not a finished vector run: {other:?}"),
    }
}

/// The summary without its rate and provenance, as JSON (NaN estimates compare equal).
fn vector_without_timing(mut summary: VectorSummary) -> String {
    summary.updates_per_ns = 0.0;
    assert!(
        summary.origin.provenance.take().is_some(),
        "a finished run records its provenance"
    );
    serde_json::to_string(&summary).unwrap()
}

/// A vector run of `text` halted at its first checkpoint from `halt` sweeps on (after
/// `halts.0` sweeps), resumed and halted at its next checkpoint (`halts.1`: it continued, where
/// a fresh start would have halted earlier), then resumed to the end, writes the uninterrupted
/// run's summary and files, the final checkpoint included.
fn resumed_vector_equals_uninterrupted(text: &str, halt: u64, halts: (u64, u64)) {
    let config = common::config(text);
    let (whole, parts) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let uninterrupted = vector_summary(run(&config, &options(whole.path(), false, None)).unwrap());
    let halted = run(&config, &options(parts.path(), false, Some(halt))).unwrap();
    assert_eq!(
        halted,
        RunOutcome::Halted {
            sweeps_done: halts.0
        }
    );
    assert!(
        !parts.path().join("summary.json").exists(),
        "a halted run has no summary"
    );
    let again = run(&config, &options(parts.path(), true, Some(0))).unwrap();
    assert_eq!(
        again,
        RunOutcome::Halted {
            sweeps_done: halts.1
        }
    );
    let resumed = vector_summary(run(&config, &options(parts.path(), true, None)).unwrap());
    assert_eq!(
        vector_without_timing(uninterrupted),
        vector_without_timing(resumed)
    );
    common::runs::assert_same_outputs(whole.path(), parts.path(), &[]);
}

/// Halted at 64 and 96 sweeps, inside the cone's tuning (stops every 6 sweeps to 120).
#[test]
fn a_resumed_xy_glass_equals_the_uninterrupted_run() {
    resumed_vector_equals_uninterrupted(XY_GLASS, 50, (64, 96));
}

/// Halted at 64 and 96 sweeps, inside the ladder's and the cone's tuning.
#[test]
fn a_resumed_tempered_xy_glass_equals_the_uninterrupted_run() {
    resumed_vector_equals_uninterrupted(XY_TEMPERING, 50, (64, 96));
}

/// Discrete states: halted at 64 and 96 sweeps, inside the ladder's tuning; the Blume-Capel
/// model by Metropolis, the diluted Potts glass with replica pairs, the diluted Potts
/// ferromagnet's cluster steps, the Edwards-Anderson glass's Houdayer moves (their record in
/// the checkpoint) and the 5-state Potts ferromagnet in bit planes halted the same way.
#[test]
fn resumed_discrete_state_runs_equal_the_uninterrupted_ones() {
    resumed_vector_equals_uninterrupted(POTTS_GLASS_TEMPERING, 50, (64, 96));
    let blume_capel = POTTS_GLASS_TEMPERING
        .replace(
            "Potts(q: 3, dims: 2, size: 6, field: 0.25, disorder: Bimodal)",
            "BlumeCapel(dims: 2, size: 6, crystal_field: 0.5, field: 0.25)",
        )
        .replace("replicas: 1,\n    samples: 2,", "replicas: 2,")
        .replace("(proposal: HeatBath)", "()");
    resumed_vector_equals_uninterrupted(&blume_capel, 50, (64, 96));
    // Diluted, with replica pairs: the empty sites and the overlaps resume too.
    let diluted_glass = POTTS_GLASS_TEMPERING
        .replace("disorder: Bimodal)", "disorder: Bimodal, dilution: 0.25)")
        .replace("replicas: 1,", "replicas: 2,");
    resumed_vector_equals_uninterrupted(&diluted_glass, 50, (64, 96));
    // Cluster steps of the diluted Potts ferromagnet: two Wolff updates and a Metropolis sweep.
    let clusters = POTTS_GLASS_TEMPERING
        .replace(
            "field: 0.25, disorder: Bimodal)",
            "field: 0.0, dilution: 0.1)",
        )
        .replace(
            "algorithm: Tempering(every: 2, tune: true),",
            "algorithm: Clusters(update: Wolff, clusters: 2, metropolis: 1),",
        );
    resumed_vector_equals_uninterrupted(&clusters, 50, (64, 96));
    // Wolff's embedding of the 5-state clock: its reflections between the checkpoints.
    let clock = r#"(
        model: Clock(q: 5, dims: 2, size: 6),
        temperatures: LinearBeta(min: 0.5, max: 1.5, count: 4),
        replicas: 1,
        algorithm: Clusters(update: Wolff, clusters: 2, metropolis: 1),
        sweeps: (thermalize: 240, measure: 300, every: 3),
        seed: 41,
        backend: Cpu,
        checkpoint_every: 32,
    )"#;
    resumed_vector_equals_uninterrupted(clock, 50, (64, 96));
    let houdayer = POTTS_GLASS_TEMPERING
        .replace(
            "Potts(q: 3, dims: 2, size: 6, field: 0.25, disorder: Bimodal)",
            "EdwardsAnderson(dims: 2, size: 6, field: 0.25)",
        )
        .replace("replicas: 1,", "replicas: 2,")
        .replace(
            "Tempering(every: 2, tune: true)",
            "Tempering(every: 2, tune: true, moves: Houdayer(per_sweep: 2))",
        )
        .replace("(proposal: HeatBath)", "()");
    resumed_vector_equals_uninterrupted(&houdayer, 50, (64, 96));
    // The Potts ferromagnet and the Blume-Capel model in bit planes, tempered: the planes
    // packed again after a resume.
    let planes = POTTS_GLASS_TEMPERING
        .replace(
            "Potts(q: 3, dims: 2, size: 6, field: 0.25, disorder: Bimodal)",
            "Potts(q: 5, dims: 2, size: 64)",
        )
        .replace("samples: 2,", "samples: 1,")
        .replace("(proposal: HeatBath)", "(storage: BitPlanes)");
    resumed_vector_equals_uninterrupted(&planes, 50, (64, 96));
    let blume_capel = planes.replace(
        "Potts(q: 5, dims: 2, size: 64)",
        "BlumeCapel(dims: 2, size: 64, crystal_field: 0.5)",
    );
    resumed_vector_equals_uninterrupted(&blume_capel, 50, (64, 96));
}

/// The tempered XY glass on wgpu writes the CPU's estimates, diagnostics and files.
#[test]
fn cpu_and_wgpu_vector_tempering_runs_write_identical_results() {
    let mut config = common::config(&XY_TEMPERING.replace("Cpu", "Wgpu"));
    let (gpu, cpu) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let gpu_summary = vector_summary(run(&config, &options(gpu.path(), false, None)).unwrap());
    config.backend = spinflip::config::Backend::Cpu;
    let cpu_summary = vector_summary(run(&config, &options(cpu.path(), false, None)).unwrap());
    let estimates = |s: &VectorSummary| {
        serde_json::to_string(&(&s.runs, &s.spin_glass, &s.tempering, &s.proposals)).unwrap()
    };
    assert_eq!(estimates(&gpu_summary), estimates(&cpu_summary));
    let tempering = cpu_summary.tempering.expect("tempering diagnostics");
    assert!(tempering.round_trips > 0, "{tempering:?}");
    assert!(gpu.path().join("temperature_history.csv").exists());
    common::runs::assert_same_outputs(gpu.path(), cpu.path(), &["config.ron", "checkpoint.bin"]);
}

#[test]
fn a_resumed_heisenberg_double_checkerboard_run_equals_the_uninterrupted_run() {
    resumed_vector_equals_uninterrupted(HEISENBERG_TILES, 80, (100, 150));
}

#[test]
fn a_resumed_wgpu_heisenberg_double_checkerboard_run_equals_the_uninterrupted_run() {
    let text = HEISENBERG_TILES.replace("Cpu", "Wgpu");
    resumed_vector_equals_uninterrupted(&text, 80, (100, 150));
}

/// Resuming a vector run without a checkpoint, with another config, from a damaged
/// checkpoint or from an Ising run's is refused, as is a fresh run over its checkpoint; the
/// intact checkpoint still resumes.
#[test]
fn resuming_a_vector_run_refuses_what_does_not_continue_it() {
    let config = common::config(XY_GLASS);
    let (dir, _) = assert_shared_refusals(&config, 50, |other| other.seed += 1);
    let ising = common::config(&CONFIG.replace("Wgpu", "Cpu"));
    let error = resume_error(&ising, dir.path());
    assert!(
        error.contains("checkpoint is of a vector-spin run"),
        "{error}"
    );
    vector_summary(run(&config, &options(dir.path(), true, None)).unwrap());
}

/// A Heisenberg run long enough to be stopped while it sweeps.
const STOPPABLE_VECTOR: &str = r#"(
    model: Heisenberg(dims: 3, size: 12, field: 0.0),
    temperatures: Temperatures([1.0, 2.0]),
    replicas: 2,
    updates: (overrelaxation: 1),
    sweeps: (thermalize: 200, measure: 1800, every: 10),
    seed: 43,
    backend: Cpu,
    checkpoint_every: 0,
    plots: false,
)"#;

/// SIGTERM as a vector run starts: it writes a checkpoint at its next chunk's end, exits with
/// 75, and resumed writes the uninterrupted run's files byte for byte.
#[test]
fn a_vector_run_stopped_by_sigterm_resumes_to_the_uninterrupted_files() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("stoppable.ron");
    std::fs::write(&config, STOPPABLE_VECTOR).unwrap();
    let whole = dir.path().join("whole");
    let status = spawn_run(&config, &whole, &[]).wait().unwrap();
    assert!(status.success());
    let stopped = dir.path().join("sigterm");
    let mut child = spawn_run(&config, &stopped, &[]);
    let stderr = wait_for_line(&mut child, " sweeps, measuring every ");
    kill("TERM", &child);
    let (status, report) = finish(child, stderr);
    assert_eq!(status.code(), Some(75), "{report}");
    assert!(report.contains("(SIGTERM)"), "{report}");
    assert_resumes_to(&config, &stopped, &whole);
}
