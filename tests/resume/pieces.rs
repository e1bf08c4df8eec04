//! Runs stopped at every plan boundary, inside sweeps too, resume to the uninterrupted run's
//! files: the first plan of each invocation is one unit (a pass over one plane), so each
//! invocation stops after one and writes a checkpoint inside the sweep (or at its end, with the
//! measurement, swap round or tuning there). Steps of cluster updates are cut too: between
//! their updates, inside their sweeps, and on the CPU inside an update (a plane of its
//! labelling), whose checkpoint resumes at the update's start.

use std::path::Path;
use std::time::Instant;

use super::{
    CONFIG, HEISENBERG_TILES, SPIN_GLASS, TUNED_TEMPERING, XY_TEMPERING, summary_without_provenance,
};
use crate::common;
use crate::common::runs::{assert_same_outputs, options};
use spinflip::config::Backend;
use spinflip::io::run_dir::RunOptions;
use spinflip::run::{RunOutcome, run};

/// The format of the checkpoint in `dir` (10 and 28: written inside a sweep).
fn checkpoint_format(dir: &Path) -> u32 {
    let bytes = std::fs::read(dir.join("checkpoint.bin")).unwrap();
    u32::from_le_bytes(bytes[8..12].try_into().unwrap())
}

/// `text` run whole on the first of `backends`, and run again stopped at the first plan
/// boundary of each of `stops` invocations (their deadline passed), each on the next of
/// `backends` in turn, then resumed to the end on the first: the same files and summary. Returns the stops
/// whose checkpoint fell inside a sweep.
fn stopped_at_every_boundary(text: &str, backends: &[Backend], stops: usize) -> usize {
    let mut config = common::config(text);
    config.backend = backends[0];
    let (whole, stepped) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    run(&config, &options(whole.path(), false, None)).unwrap();
    let mut inside = 0;
    for stop in 0..stops {
        config.backend = backends[stop % backends.len()];
        let stopping = RunOptions {
            deadline: Some(Instant::now()),
            ..options(stepped.path(), stop > 0, None)
        };
        let outcome = run(&config, &stopping).unwrap();
        assert!(matches!(outcome, RunOutcome::Stopped { .. }), "{outcome:?}");
        let format = checkpoint_format(stepped.path());
        inside += usize::from(format == 10 || format == 28);
    }
    // The last invocation runs where the whole run ran, so that `config.ron` names its backend.
    config.backend = backends[0];
    run(&config, &options(stepped.path(), true, None)).unwrap();
    assert_same_outputs(whole.path(), stepped.path(), &[]);
    assert_eq!(
        summary_without_provenance(whole.path()),
        summary_without_provenance(stepped.path())
    );
    inside
}

/// Sweeps of 24 units (2 colours of 12 planes): 60 stops reach into the third sweep.
#[test]
fn an_ising_run_stopped_inside_its_sweeps_resumes_to_the_same_files() {
    let inside = stopped_at_every_boundary(CONFIG, &[Backend::Cpu], 60);
    assert!(inside > 50, "{inside} stops inside a sweep");
}

/// The multispin engine (AMSC, 32 samples a word, overlaps), measured every 3 sweeps of 8
/// units: on the CPU, and moving between the CPU and wgpu at every stop.
#[test]
fn a_multispin_glass_stopped_inside_its_sweeps_resumes_to_the_same_files() {
    assert!(stopped_at_every_boundary(SPIN_GLASS, &[Backend::Cpu], 40) > 30);
    let moving = [Backend::Cpu, Backend::Wgpu];
    assert!(stopped_at_every_boundary(SPIN_GLASS, &moving, 20) > 10);
}

/// Parallel tempering on a tuned ladder, a round every 2 sweeps of 16 units.
#[test]
fn a_tempering_run_stopped_inside_its_sweeps_resumes_to_the_same_files() {
    assert!(stopped_at_every_boundary(TUNED_TEMPERING, &[Backend::Cpu], 60) > 50);
}

/// Vector spins: an XY glass with tempering and overrelaxation (4 passes of 6 planes a sweep,
/// a round every 2 sweeps, a measurement every 3), and the Heisenberg ferromagnet's tiles,
/// moving between the CPU and wgpu at every stop.
#[test]
fn vector_runs_stopped_inside_their_sweeps_resume_to_the_same_files() {
    assert!(stopped_at_every_boundary(XY_TEMPERING, &[Backend::Cpu], 80) > 70);
    let moving = [Backend::Cpu, Backend::Wgpu];
    assert!(stopped_at_every_boundary(HEISENBERG_TILES, &moving, 40) > 30);
}

/// Swendsen-Wang, two updates (12 units each, a pass of the labelling or the roots over a
/// plane; 6 sites a plane, a thread's four straddling planes) and a sweep (12 units) a step,
/// measured every 2 steps.
const SWENDSEN_WANG_STEPS: &str = r#"(
    model: Ising(dims: 2, size: 6, field: 0.0),
    temperatures: Betas([0.4, 0.45]),
    replicas: 2,
    sweeps: (thermalize: 3, measure: 6, every: 2),
    algorithm: Clusters(update: SwendsenWang, clusters: 2, metropolis: 1),
    seed: 97,
    backend: Cpu,
    checkpoint_every: 4,
)"#;

/// Wolff in 3D, two updates (8 units each) and a sweep (8 units) a step, measured every step.
const WOLFF_STEPS: &str = r#"(
    model: Ising(dims: 3, size: 4, field: 0.0),
    temperatures: Betas([0.2, 0.25]),
    replicas: 1,
    sweeps: (thermalize: 2, measure: 6, every: 1),
    algorithm: Clusters(update: Wolff, clusters: 2, metropolis: 1),
    seed: 96,
    backend: Cpu,
    checkpoint_every: 4,
)"#;

/// Cluster steps stopped at every plan boundary, moving between the CPU and wgpu at every stop:
/// a CPU invocation from an update's start labels one plane of it and resumes at its start
/// again (on the CPU alone, a run stopped after every first plan would not get past an
/// update); wgpu, whose updates are whole, makes it, and the CPU the next plane of a sweep or
/// the next update's first plane. The measured steps' cluster sizes travel in the checkpoints
/// between their updates and their measurement.
#[test]
fn cluster_steps_stopped_inside_resume_to_the_same_files() {
    let moving = [Backend::Cpu, Backend::Wgpu];
    assert!(stopped_at_every_boundary(SWENDSEN_WANG_STEPS, &moving, 40) > 25);
    assert!(stopped_at_every_boundary(WOLFF_STEPS, &moving, 30) > 20);
}
