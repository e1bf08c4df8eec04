//! Helpers shared by the integration tests.
#![allow(dead_code, reason = "each test binary uses a different subset")]

pub mod annealing;
pub mod tempering;

use spinflip::config::{Config, Lanes, Layout, PhiloxPath};
use spinflip::engine::Plan;
use spinflip::engine::gpu::GpuContext;
use spinflip::model::Lattice;
use spinflip::model::couplings::Disorder;
use spinflip::sim::{RunOptions, RunOutcome, Summary, run};
use spinflip::stats::Estimate;

/// A config from RON text, panicking with the parse error.
pub fn config(ron: &str) -> Config {
    Config::from_ron_str(ron).unwrap_or_else(|e| panic!("test config: {e}"))
}

/// The GPU context CI tests run on (lavapipe there). GPU tests never skip: no adapter fails.
pub fn gpu(philox: PhiloxPath) -> GpuContext {
    gpu_with_checks(philox, true)
}

/// [`gpu`] with wgpu's shader bounds checks on or off.
pub fn gpu_with_checks(philox: PhiloxPath, bounds_checks: bool) -> GpuContext {
    let mut config = config(BASE);
    config.philox = philox;
    config.bounds_checks = bounds_checks;
    spinflip::sim::open_gpu_context(&config)
        .unwrap_or_else(|e| panic!("GPU tests need an adapter (install mesa-vulkan-drivers): {e}"))
}

/// A small valid config to derive test configs from.
pub const BASE: &str = r#"(
    model: Ising(dims: 2, size: 8, field: 0.0),
    temperatures: Betas([0.4]),
    replicas: 2,
    sweeps: (thermalize: 10, measure: 100, every: 10),
    seed: 7,
    backend: Wgpu,
)"#;

/// The summary of a run that must have completed.
pub fn completed(outcome: RunOutcome) -> Summary {
    match outcome {
        RunOutcome::Completed(summary) => *summary,
        RunOutcome::Halted { sweeps_done } => panic!("halted after {sweeps_done}"),
        RunOutcome::Annealed(_) => panic!("an annealing run"),
    }
}

/// The summary of a completed run of the config `ron` into a temporary directory.
pub fn run_summary(ron: &str) -> Summary {
    let dir = tempfile::tempdir().unwrap();
    completed(run(&config(ron), &RunOptions::new(dir.path())).unwrap())
}

/// |measured - expected| <= 4 sigma, with sigma itself small enough that the check can fail.
pub fn assert_within(
    what: &str,
    measured: Estimate,
    expected: f64,
    expected_err: f64,
    max_err: f64,
) {
    let sigma = (measured.err.powi(2) + expected_err.powi(2)).sqrt();
    let deviation = (measured.mean - expected) / sigma;
    eprintln!(
        "{what}: {:.6} ± {:.6} vs {expected:.6} ± {expected_err:.6}: {deviation:+.2} sigma",
        measured.mean, measured.err
    );
    assert!(
        sigma > 0.0 && sigma < max_err,
        "{what}: error {sigma} is not in (0, {max_err})"
    );
    assert!(
        deviation.abs() <= 4.0,
        "{what}: {deviation:+.2} sigma from {expected}"
    );
}

/// `sweeps` sweeps from sweep `first` on, measuring after every sweep that is a multiple of
/// `every`.
pub fn sweep_plan(first: u32, sweeps: u32, every: u32) -> Plan {
    let mut plan = Plan::default();
    for sweep in first..first + sweeps {
        plan.sweep(sweep);
        if sweep % every == 0 {
            plan.measure();
        }
    }
    plan
}

/// The first site where two engines' lattices differ, named by system and coordinates.
pub fn first_difference(lattice: &Lattice, a: &[i32], b: &[i32]) -> Option<String> {
    let n = lattice.sites() as usize;
    a.iter().zip(b).position(|(x, y)| x != y).map(|i| {
        format!(
            "system {} site {:?}: {} vs {}",
            i / n,
            lattice.coords((i % n) as u64),
            a[i],
            b[i]
        )
    })
}

/// The multispin word layouts of the equality tests.
pub const AMSC_SAMPLES: Layout = Layout::Amsc {
    lanes: Lanes::Samples,
};
pub const AMSC_TEMPERATURES: Layout = Layout::Amsc {
    lanes: Lanes::Temperatures,
};
pub const AMSC_REPLICAS: Layout = Layout::Amsc {
    lanes: Lanes::Replicas,
};

/// (samples, replicas, temperatures) of a multispin equality case: full words of `layout`, and
/// replica pairs for the overlaps of the spin glass.
pub fn full_word_systems(layout: Layout, disorder: Disorder) -> (u32, u32, usize) {
    match (layout, disorder) {
        (AMSC_SAMPLES, _) => (32, 2, 2),
        (AMSC_TEMPERATURES, Disorder::Bimodal) => (2, 2, 5),
        (AMSC_TEMPERATURES, Disorder::Ferromagnet) => (1, 1, 3),
        (AMSC_REPLICAS, Disorder::Bimodal) => (1, 64, 1),
        (AMSC_REPLICAS, Disorder::Ferromagnet) => (1, 32, 2),
        (Layout::Smsc, Disorder::Bimodal) => (2, 2, 1),
        (Layout::Smsc, Disorder::Ferromagnet) => (1, 2, 2),
    }
}
