//! Lattices beyond any machine's memory are refused when the engine opens, before anything is
//! allocated: every engine kind, with the capabilities that add buffers, on the CPU and on wgpu
//! (lavapipe in CI). The sizes ask for terabytes, so the refusal does not depend on the
//! machine: a missing check would abort on the allocation instead of exiting with status 1.

use std::process::Command;

/// A run of `model` and `rest` (the fields after the model) on `backend`.
fn config(model: &str, rest: &str, backend: &str) -> String {
    format!(
        "(model: {model}, temperatures: Betas([0.4, 0.5]), \
         sweeps: (thermalize: 10, measure: 100, every: 10), seed: 7, backend: {backend}, {rest})"
    )
}

/// `config` run by the command: refused with status 1 (no panic, no abort), its message naming
/// the memory needed and `largest`, the knob that fits.
fn refused(config: &str, largest: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.ron");
    std::fs::write(&path, config).unwrap();
    let out = dir.path().join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_spinflip"))
        .args([
            "run",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .env("WGPU_BACKEND", "vulkan")
        .output()
        .expect("spinflip runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{config}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for part in ["MiB of host memory", "more than the", largest] {
        assert!(stderr.contains(part), "{config}: no {part:?} in {stderr}");
    }
}

/// The simple engine: 1000 systems of 1290^3 sites, 8.6 TB of `i32` spins; with cluster
/// updates, their labels too.
fn simple_engine(backend: &str) {
    let model = "Ising(dims: 3, size: 1290, field: 0.0)";
    let size = "the largest size that fits is size: ";
    refused(
        &config(model, "replicas: 500, engine: Simple", backend),
        size,
    );
    let clusters = "replicas: 500, algorithm: Clusters(update: SwendsenWang)";
    refused(&config(model, clusters, backend), size);
}

/// The multispin engine: 2^30 sites in 2^17 systems, 16 TiB of spin words; with parallel
/// tempering; and population annealing of 2^27 replicas of 64^3 sites, 4 TiB (on the CPU its
/// check names the population that fits instead).
fn multispin_engine(backend: &str, annealing_knob: &str) {
    let model = "EdwardsAnderson(dims: 3, size: 1024, field: 0.0)";
    let amsc = "engine: Multispin(layout: Amsc(lanes: Replicas))";
    let size = "the largest size that fits is size: ";
    refused(
        &config(model, &format!("replicas: 65536, {amsc}"), backend),
        size,
    );
    let tempering = format!("replicas: 65536, {amsc}, algorithm: Tempering(every: 2)");
    refused(&config(model, &tempering, backend), size);
    let annealing = "replicas: 134217728, algorithm: Annealing(theta: 1, \
                     schedule: Linear(beta_max: 0.5, count: 2))";
    let annealing = config(&model.replace("1024", "64"), annealing, backend).replace(
        "temperatures: Betas([0.4, 0.5]), sweeps: (thermalize: 10, measure: 100, every: 10), ",
        "",
    );
    refused(&annealing, annealing_knob);
}

/// The vector-spin engine: 1000 Heisenberg systems of 2^30 sites, 12 TiB of components; and
/// the couplings of 2000 samples of a vector spin glass, 6 TiB drawn before the engine opens.
fn vector_engine(backend: &str) {
    let model = "Heisenberg(dims: 3, size: 1024)";
    let size = "the largest size that fits is size: ";
    refused(&config(model, "replicas: 500", backend), size);
    let tempering = "replicas: 500, algorithm: Tempering(every: 2)";
    refused(&config(model, tempering, backend), size);
    let glass = "Heisenberg(dims: 3, size: 1024, disorder: Bimodal)";
    let couplings = config(glass, "replicas: 2, samples: 2000", backend);
    refused(
        &couplings,
        "the couplings of 2000 samples of L = 1024 in 3D need",
    );
}

#[test]
fn an_oversize_simple_engine_is_refused_on_the_cpu() {
    simple_engine("Cpu");
}

#[test]
fn an_oversize_multispin_engine_is_refused_on_the_cpu() {
    multispin_engine("Cpu", "the largest population that fits is replicas: ");
}

#[test]
fn an_oversize_vector_engine_is_refused_on_the_cpu() {
    vector_engine("Cpu");
}

#[test]
fn an_oversize_simple_engine_is_refused_on_wgpu() {
    simple_engine("Wgpu");
}

#[test]
fn an_oversize_multispin_engine_is_refused_on_wgpu() {
    multispin_engine("Wgpu", "the largest size that fits is size: ");
}

#[test]
fn an_oversize_vector_engine_is_refused_on_wgpu() {
    vector_engine("Wgpu");
}
