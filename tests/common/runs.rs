//! Whole runs through the run loop, compared: resumed against uninterrupted, a device backend
//! against the CPU.

use std::path::Path;

use spinflip::io::run_dir::RunOptions;
use spinflip::metropolis::Summary;
use spinflip::run::RunOutcome;
use spinflip::run::run;

/// Parallel tempering of the spin glass: the ladder's labels, round trips and acceptances, and
/// the temperature history, survive an interruption.
pub const TEMPERING: &str = r#"(
    model: EdwardsAnderson(dims: 3, size: 4, field: 0.0),
    temperatures: LinearBeta(min: 0.4, max: 0.7, count: 4),
    replicas: 2,
    samples: 32,
    engine: Multispin(layout: Amsc(lanes: Samples)),
    sweeps: (thermalize: 100, measure: 900, every: 3),
    algorithm: Tempering(every: 2),
    seed: 78,
    backend: Wgpu,
    checkpoint_every: 150,
)"#;

/// Run options writing into `out`, resuming from its checkpoint (`resume`) or not, halting at
/// the first checkpoint from `halt_after` sweeps on where given.
pub fn options(out: &Path, resume: bool, halt_after: Option<u64>) -> RunOptions {
    RunOptions {
        resume,
        halt_after,
        ..RunOptions::new(out)
    }
}

/// The names of the files in `dir`, sorted.
pub fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// Every output file but the summary (which carries timings) and those in `except` must be
/// byte-identical.
pub fn assert_same_outputs(a: &Path, b: &Path, except: &[&str]) {
    let mut names = file_names(a);
    names.retain(|n| n != "summary.json" && !except.contains(&n.as_str()));
    assert!(names.iter().any(|n| n == "final_state.npy"));
    let series = names
        .iter()
        .filter(|n| n.starts_with("timeseries_") && n.ends_with(".csv"));
    assert!(series.count() >= 2, "a time series per temperature");
    for name in names {
        let (x, y) = (
            std::fs::read(a.join(&name)).unwrap(),
            std::fs::read(b.join(&name)).unwrap(),
        );
        assert!(x == y, "{name} differs");
    }
}

/// The summary without timings and provenance (host, times, command line), as JSON (which also
/// compares NaN estimates as equal).
pub fn without_timing(mut summary: Summary) -> String {
    summary.flips_per_ns = 0.0;
    summary.ps_per_flip = 0.0;
    assert!(
        summary.origin.provenance.is_some(),
        "a finished run records its provenance"
    );
    summary.origin.provenance = None;
    serde_json::to_string(&summary).unwrap()
}

/// A run of the config `text` halted after its checkpoint at 450 sweeps (of 1000, a checkpoint
/// every 150) and resumed writes the uninterrupted run's summary and files.
pub fn resumed_equals_uninterrupted(text: &str) {
    let config = super::config(text);
    let (whole, parts) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let uninterrupted =
        super::completed(run(&config, &options(whole.path(), false, None)).unwrap());
    let halted = run(&config, &options(parts.path(), false, Some(400))).unwrap();
    assert_eq!(halted, RunOutcome::Halted { sweeps_done: 450 });
    assert!(
        !parts.path().join("summary.json").exists(),
        "a halted run has no summary"
    );
    let resumed = super::completed(run(&config, &options(parts.path(), true, None)).unwrap());
    assert_eq!(without_timing(uninterrupted), without_timing(resumed));
    assert_same_outputs(whole.path(), parts.path(), &[]);
}

/// The config `text` run on its device backend and on the CPU writes the same estimates and
/// files.
pub fn cpu_and_gpu_identical(text: &str) {
    let mut config = super::config(text);
    let (gpu, cpu) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let gpu_summary = super::completed(run(&config, &options(gpu.path(), false, None)).unwrap());
    config.backend = spinflip::config::Backend::Cpu;
    let cpu_summary = super::completed(run(&config, &options(cpu.path(), false, None)).unwrap());
    let estimates =
        |s: &Summary| serde_json::to_string(&(&s.runs, &s.spin_glass, &s.tempering)).unwrap();
    assert_eq!(estimates(&gpu_summary), estimates(&cpu_summary));
    // The config names the backend; the checkpoint's fingerprint, of the trajectory, does not.
    assert_same_outputs(gpu.path(), cpu.path(), &["config.ron"]);
}
