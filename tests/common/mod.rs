//! Helpers shared by the integration tests.
#![allow(dead_code, reason = "each test binary uses a different subset")]

use spinflip::config::{Config, PhiloxPath};
use spinflip::engine::gpu::GpuContext;
use spinflip::sim::{RunOutcome, Summary};

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
    }
}
