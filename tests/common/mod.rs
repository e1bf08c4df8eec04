//! Helpers shared by the integration tests.
#![allow(dead_code, reason = "each test binary uses a different subset")]

pub mod annealing;
pub mod backend;
pub mod pieces;
pub mod runs;
pub mod slabs;
pub mod slices;
pub mod tempering;

use spinflip::config::{Config, Disorder, Lanes, Layout, MultispinOptions, PhiloxPath, Randoms};
use spinflip::engine::multispin::MultispinLayout;
use spinflip::engine::wgpu::WgpuContext;
use spinflip::engine::{Engine, Measurements, Plan, SpinBits};
use spinflip::io::run_dir::RunOptions;
use spinflip::metropolis::Summary;
use spinflip::model::Lattice;
use spinflip::model::ising::IsingSystems;
use spinflip::run::RunOutcome;
use spinflip::run::run;
use spinflip::stats::Estimate;

/// A config from RON text, panicking with the parse error. Every test that opens wgpu starts
/// from one, so this is where the runtime directory is set up first.
pub fn config(ron: &str) -> Config {
    runtime_dir();
    Config::from_ron_str(ron).unwrap_or_else(|e| panic!("test config: {e}"))
}

/// Point `XDG_RUNTIME_DIR` at a directory of the tests' own where it names none, as the binary
/// does (see [`spinflip::runtime_dir`]): otherwise the Vulkan loader prints `error:
/// XDG_RUNTIME_DIR is invalid or not set` at every wgpu instance a test creates. One directory,
/// `0700` under Cargo's temporary directory for tests, shared by every test binary and kept.
#[allow(
    unsafe_code,
    reason = "setting a variable of the test process's own environment"
)]
fn runtime_dir() {
    use spinflip::runtime_dir::XDG_RUNTIME_DIR;
    static SET: std::sync::Once = std::sync::Once::new();
    SET.call_once(|| {
        let current = std::env::var_os(XDG_RUNTIME_DIR);
        if current.is_some_and(|dir| std::path::Path::new(&dir).is_dir()) {
            return;
        }
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("xdg-runtime");
        std::fs::create_dir_all(&dir).expect("a runtime directory for the tests");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let private = std::fs::Permissions::from_mode(0o700);
            std::fs::set_permissions(&dir, private).expect("a private runtime directory");
        }
        // SAFETY: every test opens wgpu (whose loader reads the environment) only after
        // `config`, which returns after this: no thread reads the environment meanwhile.
        unsafe { std::env::set_var(XDG_RUNTIME_DIR, &dir) };
    });
}

/// The GPU context CI tests run on (lavapipe there). GPU tests never skip: no adapter fails.
pub fn gpu(philox: PhiloxPath) -> WgpuContext {
    gpu_with_checks(philox, true)
}

/// [`gpu`] with wgpu's shader bounds checks on or off.
pub fn gpu_with_checks(philox: PhiloxPath, bounds_checks: bool) -> WgpuContext {
    let mut config = config(BASE);
    config.philox = philox;
    config.bounds_checks = bounds_checks;
    spinflip::engine::open::open_wgpu_context(&config)
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
        RunOutcome::Stopped { reason, .. } => panic!("stopped: {reason}"),
        RunOutcome::Annealed(_) => panic!("an annealing run"),
        RunOutcome::Vector(_) => panic!("a vector-spin run"),
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

/// The first site where two engines' lattices differ, named by system and coordinates
/// (compared a word of 64 spins at a time, never expanded).
pub fn first_difference(lattice: &Lattice, a: &SpinBits, b: &SpinBits) -> Option<String> {
    if (a.systems(), a.sites()) != (b.systems(), b.sites()) {
        return Some(format!(
            "shapes: {} x {} vs {} x {}",
            a.systems(),
            a.sites(),
            b.systems(),
            b.sites()
        ));
    }
    let n = lattice.sites();
    let word = a.words().iter().zip(b.words()).position(|(x, y)| x != y)?;
    let bit = 64 * word as u64 + u64::from((a.words()[word] ^ b.words()[word]).trailing_zeros());
    let (system, site) = ((bit / n) as u32, bit % n);
    Some(format!(
        "system {system} site {:?}: {} vs {}",
        lattice.coords(site),
        a.spin(system, site),
        b.spin(system, site)
    ))
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
        (AMSC_TEMPERATURES, Disorder::Ferromagnet) => (1, 1, 3),
        (AMSC_TEMPERATURES, _) => (2, 2, 5),
        (AMSC_REPLICAS, Disorder::Ferromagnet) => (1, 32, 2),
        (AMSC_REPLICAS, _) => (1, 64, 1),
        (Layout::Smsc, Disorder::Ferromagnet) => (1, 2, 2),
        (Layout::Smsc, _) => (2, 2, 1),
    }
}

/// The hot start kernel's cases: the simple engine's `i32` lattices (2D with `L mod 4 = 2`,
/// 3D, a field and three temperatures) and every multispin layout, AMSC lanes of every kind
/// (temperatures in lanes leave lanes idle) and SMSC in 2D and 3D.
pub fn hot_start_cases() -> (Vec<IsingSystems>, Vec<MultispinLayout>) {
    let simple = [(2, 6), (2, 8), (3, 4)]
        .into_iter()
        .map(|(dims, size)| {
            IsingSystems::ferromagnet(Lattice::new(dims, size), 0.1, vec![0.2, 0.4, 0.6], 2, 77)
        })
        .collect();
    let layouts = [
        (2, 6, AMSC_SAMPLES, Disorder::Bimodal),
        (3, 4, AMSC_TEMPERATURES, Disorder::Bimodal),
        (2, 4, AMSC_REPLICAS, Disorder::Ferromagnet),
        (2, 64, Layout::Smsc, Disorder::Bimodal),
        (3, 64, Layout::Smsc, Disorder::Ferromagnet),
    ]
    .into_iter()
    .map(|(dims, size, layout, disorder)| {
        let (samples, replicas, temperatures) = full_word_systems(layout, disorder);
        let betas = (0..temperatures).map(|t| 0.3 + 0.05 * t as f64).collect();
        let lattice = Lattice::new(dims, size);
        let systems = match disorder {
            Disorder::Ferromagnet => {
                IsingSystems::ferromagnet(lattice, 0.0, betas, replicas, 0x5eed)
            }
            _ => IsingSystems::spin_glass(lattice, 0.0, betas, samples, replicas, 0x5eed),
        };
        let randoms = Randoms::Exact;
        MultispinLayout::new(systems, MultispinOptions { layout, randoms })
    })
    .collect();
    (simple, layouts)
}

/// What `plans` measured, one after another, as one plan's slots: the observations, overlaps
/// and tempering labels.
pub fn execute_all(engine: &mut dyn Engine, plans: &[Plan]) -> Measurements {
    let mut all = Measurements::default();
    for plan in plans {
        let measured = engine.execute(plan).unwrap();
        all.observations.extend(measured.observations);
        all.overlap_planes.extend(measured.overlap_planes);
        all.link_overlaps.extend(measured.link_overlaps);
        all.labels.extend(measured.labels);
    }
    all
}
