//! Physics validation on the GPU (lavapipe in CI): the 2D Ising model against Kaufman's exact
//! finite-size solution, and the 3D Ising model against an independent long CPU-engine run.
//! Fixed seeds; bounds in units of the estimated error.

mod common;

use common::{assert_within, run_summary};

#[test]
fn ising_2d_matches_kaufman_exact_energy_and_specific_heat() {
    let summary = run_summary(
        r#"(
            model: Ising(dims: 2, size: 16, field: 0.0),
            temperatures: Betas([0.30, 0.4406868]),
            replicas: 8,
            sweeps: (thermalize: 1000, measure: 30000, every: 2),
            seed: 20261122,
            backend: Wgpu,
        )"#,
    );
    assert_eq!(summary.run.backend, "wgpu");
    for temperature in &summary.runs {
        let exact = temperature.exact.expect("2D zero field has exact values");
        let beta = temperature.estimates.beta;
        assert_within(
            &format!("e(beta={beta})"),
            temperature.estimates.e,
            exact.e,
            0.0,
            0.01,
        );
        assert_within(
            &format!("c(beta={beta})"),
            temperature.estimates.c,
            exact.c,
            0.0,
            0.1,
        );
    }
}

#[test]
fn ising_3d_on_gpu_matches_a_long_cpu_run() {
    let config = |seed: u64, measure: u64, backend: &str| {
        format!(
            r#"(
                model: Ising(dims: 3, size: 8, field: 0.0),
                temperatures: Betas([0.20, 0.2216546]),
                replicas: 8,
                sweeps: (thermalize: 1000, measure: {measure}, every: 2),
                seed: {seed},
                backend: {backend},
            )"#
        )
    };
    let gpu = run_summary(&config(1, 12000, "Wgpu"));
    let cpu = run_summary(&config(2, 36000, "Cpu"));
    assert_eq!(
        (gpu.run.backend.as_str(), cpu.run.backend.as_str()),
        ("wgpu", "cpu")
    );
    for (g, c) in gpu.runs.iter().zip(&cpu.runs) {
        let (g, c) = (&g.estimates, &c.estimates);
        let beta = g.beta;
        assert_within(&format!("3D e(beta={beta})"), g.e, c.e.mean, c.e.err, 0.01);
        assert_within(&format!("3D c(beta={beta})"), g.c, c.c.mean, c.c.err, 0.3);
        assert_within(
            &format!("3D |m|(beta={beta})"),
            g.abs_m,
            c.abs_m.mean,
            c.abs_m.err,
            0.05,
        );
        assert_within(
            &format!("3D U4(beta={beta})"),
            g.u4,
            c.u4.mean,
            c.u4.err,
            0.1,
        );
    }
}
