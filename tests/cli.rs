//! The `spinflip` command: exact values, devices, and clear failures on bad input (a message
//! naming the problem, a non-zero exit, no half-written outputs).

/// Oversize lattices refused before anything is allocated.
#[path = "cli/memory.rs"]
mod memory;

use std::path::Path;
use std::process::{Command, Output};

fn spinflip(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_spinflip"));
    command.args(args);
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("spinflip runs")
}

fn write_config(dir: &Path, text: &str) -> String {
    let path = dir.join("config.ron");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

const GOOD: &str = r#"(
    model: Ising(dims: 2, size: 8, field: 0.0),
    temperatures: Betas([0.4]),
    replicas: 2,
    sweeps: (thermalize: 10, measure: 100, every: 10),
    seed: 5,
    backend: BACKEND,
)"#;

/// Runs a config that must fail; returns stderr after checking the exit code and that the
/// output directory holds no results.
fn failing_run(config: &str, env: &[(&str, &str)]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), config);
    let out = dir.path().join("out");
    let output = spinflip(&["run", &path, "--out", out.to_str().unwrap()], env);
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(!output.status.success(), "must fail: {config}");
    assert!(stderr.contains("error"), "{stderr}");
    assert!(!out.join("summary.json").exists() && !out.join("checkpoint.bin").exists());
    stderr
}

#[test]
fn exact_prints_kaufman_json() {
    let output = spinflip(&["exact", "--size", "128", "--beta", "0.4"], &[]);
    assert!(output.status.success());
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!((value["e"].as_f64().unwrap() + 1.1060792038).abs() < 1e-9);
    assert!((value["c"].as_f64().unwrap() - 0.8616983618).abs() < 1e-9);
    assert!(value["f"].is_f64());
    let bad = spinflip(&["exact", "--size", "7", "--beta", "0.4"], &[]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("even"));
}

/// `--antiperiodic 1`: the torus twisted along one axis (Kaufman's terms with the twist's
/// signs, which CI checks against enumeration); refused past two axes, and where the twisted
/// terms cancel past a double's digits.
#[test]
fn exact_prints_the_twisted_torus() {
    let exact = |size: &str, beta: &str, axes: &str| {
        let args = [
            "exact",
            "--size",
            size,
            "--beta",
            beta,
            "--antiperiodic",
            axes,
        ];
        spinflip(&args, &[])
    };
    let output = exact("8", "0.5", "1");
    assert!(output.status.success());
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let twisted = spinflip::exact::kaufman_twisted(8, 0.5, 1).unwrap();
    let periodic = spinflip::exact::kaufman(8, 0.5);
    assert_eq!(value["e"].as_f64().unwrap(), twisted.e);
    assert!(twisted.e > periodic.e + 0.05, "the wall costs energy");
    assert!(!exact("8", "0.5", "3").status.success());
    let lost = exact("512", "0.6", "1");
    assert!(!lost.status.success());
    assert!(String::from_utf8_lossy(&lost.stderr).contains("cancel"));
}

#[test]
fn devices_lists_the_adapter_with_limits() {
    let output = spinflip(&["devices", "--json"], &[]);
    assert!(output.status.success());
    let list: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let first = &list.as_array().expect("a list")[0];
    assert!(first["max_storage_buffer_binding_size"].as_u64().unwrap() > 0);
}

#[test]
fn bad_configs_fail_with_the_reason() {
    let cases: [(&str, &str, &str); 7] = [
        ("size: 8", "size: 9", "even"),
        ("size: 8", "sizee: 8", "sizee"),
        ("Betas([0.4])", "Betas([NaN])", "beta"),
        ("Betas([0.4])", "Betas([0.4, -1.0])", "beta"),
        ("Betas([0.4])", "Betas([0.4, 0.4])", "both 0.4"),
        ("measure: 100", "measure: 0", "measure"),
        ("replicas: 2", "replicas: \"2\"", "replicas"),
    ];
    for (from, to, needle) in cases {
        let config = GOOD.replace("BACKEND", "Cpu").replace(from, to);
        let stderr = failing_run(&config, &[]);
        assert!(stderr.contains(needle), "`{to}` gave: {stderr}");
    }
    let stderr = failing_run(
        &GOOD
            .replace("BACKEND", "Cpu")
            .replace("size: 8", "sizee: 8"),
        &[],
    );
    assert!(stderr.contains(":2:"), "the line of the field: {stderr}");
}

/// The simple engine indexes fewer than 2^31 sites per system; SMSC takes 65536^2 = 2^32.
#[test]
fn site_limit_depends_on_the_engine() {
    let big = GOOD
        .replace("BACKEND", "Cpu")
        .replace("size: 8", "size: 65536");
    let simple = big.replace("replicas: 2", "replicas: 2, engine: Simple");
    let stderr = failing_run(&simple, &[]);
    assert!(stderr.contains("65536^2 has 4294967296 sites"), "{stderr}");
    assert!(
        stderr.contains("the simple engine takes fewer than 2147483648 = 2^31 sites"),
        "{stderr}"
    );
    // Without an engine, Auto would take 65536^2 with SMSC; 65534 is no multiple of 64, so it
    // falls back to the simple engine, and the message says so and what would take the size.
    let stderr = failing_run(&big.replace("size: 65536", "size: 65534"), &[]);
    assert!(
        stderr.contains("engine: Auto chose Simple")
            && stderr.contains("Multispin(layout: Smsc) takes up to 2^34 sites"),
        "{stderr}"
    );
    let too_big = big.replace("size: 65536", "size: 131072").replace(
        "replicas: 2",
        "replicas: 2, engine: Multispin(layout: Smsc)",
    );
    let stderr = failing_run(&too_big, &[]);
    assert!(stderr.contains("2^34"), "{stderr}");
    // Validation lets SMSC at 65536^2 through to the engine; the benchmark skips only the
    // simple engine there (neither allocates anything: `--sizes` 64 runs, 65536 is refused).
    let output = spinflip(
        &[
            "bench",
            "--backend",
            "cpu",
            "--engine",
            "simple",
            "--sizes",
            "65536,64",
            "--seconds",
            "0.001",
        ],
        &[],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains("skipped Simple L=65536") && stdout.contains("2^31"),
        "{stdout}"
    );
    assert!(stdout.contains("simple"), "{stdout}");
}

#[test]
fn lattice_beyond_device_limits_names_the_limit_and_largest_size() {
    let limit = spinflip(&["devices", "--json"], &[]);
    let list: serde_json::Value = serde_json::from_slice(&limit.stdout).unwrap();
    let binding = list[0]["max_storage_buffer_binding_size"].as_u64().unwrap();
    let size = ((binding / 4) as f64).sqrt() as u64 / 2 * 2 + 2; // just too big in 2D
    let config = GOOD
        .replace("BACKEND", "Wgpu")
        .replace("size: 8", &format!("size: {size}"))
        .replace("replicas: 2", "replicas: 1");
    let stderr = failing_run(&config, &[("WGPU_BACKEND", "vulkan")]);
    assert!(
        stderr.contains("max_storage_buffer_binding_size"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("the largest size that fits is size: {}", size - 2)),
        "{stderr}"
    );
}

#[test]
fn multispin_lattice_beyond_device_limits_names_the_limit_and_largest_size() {
    let limit = spinflip(&["devices", "--json"], &[]);
    let list: serde_json::Value = serde_json::from_slice(&limit.stdout).unwrap();
    let binding = list[0]["max_storage_buffer_binding_size"].as_u64().unwrap();
    // SMSC: one bit per spin, so 32 times the sites of the simple engine; sizes step by 64.
    let largest = ((binding * 8) as f64).sqrt() as u64 / 64 * 64;
    let size = largest + 64;
    let config = GOOD
        .replace("BACKEND", "Wgpu")
        .replace("size: 8", &format!("size: {size}"))
        .replace(
            "replicas: 2",
            "replicas: 1, engine: Multispin(layout: Smsc)",
        );
    let stderr = failing_run(&config, &[("WGPU_BACKEND", "vulkan")]);
    assert!(stderr.contains("1 bit per spin"), "{stderr}");
    assert!(
        stderr.contains("max_storage_buffer_binding_size"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("the largest size that fits is size: {largest}")),
        "{stderr}"
    );
}

#[test]
fn layouts_that_cannot_pack_the_config_fail_with_the_reason() {
    let config = GOOD.replace("BACKEND", "Cpu").replace(
        "replicas: 2",
        "replicas: 2, engine: Multispin(layout: Amsc(lanes: Replicas))",
    );
    let stderr = failing_run(&config, &[]);
    assert!(
        stderr.contains("replicas must be a multiple of 32, got 2"),
        "{stderr}"
    );
    let config = GOOD.replace("BACKEND", "Cpu").replace(
        "replicas: 2",
        "replicas: 2, engine: Multispin(layout: Smsc)",
    );
    let stderr = failing_run(&config, &[]);
    assert!(
        stderr.contains("size must be a multiple of 64, got 8"),
        "{stderr}"
    );
}

#[test]
fn missing_adapter_fails_for_wgpu_and_falls_back_for_auto() {
    // No adapter of a backend that does not exist on Linux.
    let no_gpu = [("WGPU_BACKEND", "metal")];
    let stderr = failing_run(&GOOD.replace("BACKEND", "Wgpu"), &no_gpu);
    assert!(stderr.contains("no GPU adapter"), "{stderr}");
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), &GOOD.replace("BACKEND", "Auto"));
    let out = dir.path().join("out");
    let output = spinflip(&["run", &path, "--out", out.to_str().unwrap()], &no_gpu);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["backend"], "cpu");
}

#[test]
fn unwritable_output_directory_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let path = write_config(dir.path(), &GOOD.replace("BACKEND", "Cpu"));
    let out = file.join("out");
    let output = spinflip(&["run", &path, "--out", out.to_str().unwrap()], &[]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("a-file"), "{stderr}");
}

#[test]
fn corrupt_checkpoint_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), &GOOD.replace("BACKEND", "Cpu"));
    let out = dir.path().join("out");
    let out_arg = out.to_str().unwrap();
    assert!(
        spinflip(&["run", &path, "--out", out_arg], &[])
            .status
            .success()
    );
    let checkpoint = out.join("checkpoint.bin");
    let mut bytes = std::fs::read(&checkpoint).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&checkpoint, &bytes).unwrap();
    let output = spinflip(&["run", &path, "--out", out_arg, "--resume"], &[]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("checkpoint"), "{stderr}");
    assert_eq!(
        std::fs::read(&checkpoint).unwrap(),
        bytes,
        "the checkpoint is left as it was"
    );
    let missing = spinflip(
        &[
            "run",
            &path,
            "--out",
            dir.path().join("none").to_str().unwrap(),
            "--resume",
        ],
        &[],
    );
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no checkpoint"));
}

/// `bench --pipeline-statistics` on the software adapter: either its driver has
/// `VK_KHR_pipeline_executable_properties` and each kernel's report is written (registers and
/// all), or the run is refused naming the extension, before anything is written.
#[test]
fn pipeline_statistics_are_written_or_refused_naming_the_extension() {
    let dir = tempfile::tempdir().unwrap();
    let stats = dir.path().join("stats");
    let args = [
        "bench",
        "--backend",
        "wgpu",
        "--adapter",
        "vulkan",
        "--engine",
        "smsc",
        "--sizes",
        "64",
        "--seconds",
        "0.01",
        "--pipeline-statistics",
        stats.to_str().unwrap(),
    ];
    let output = spinflip(&args, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.success() {
        let report = std::fs::read_to_string(stats.join("multispin_metropolis-0.txt")).unwrap();
        assert!(report.contains("kernel multispin_metropolis"), "{report}");
        assert!(report.contains("executable 0"), "{report}");
    } else {
        assert!(
            stderr.contains("the driver lacks VK_KHR_pipeline_executable_properties"),
            "{stderr}"
        );
        assert!(!stats.exists());
    }
}

/// `bench --slabs` beyond what the lattice's planes can hold (two planes a slab) is refused
/// naming the option, with a non-zero exit.
#[test]
fn bench_refuses_more_slabs_than_plane_pairs() {
    let args = [
        "bench",
        "--backend",
        "cpu",
        "--engine",
        "smsc",
        "--sizes",
        "64",
        "--seconds",
        "0.01",
        "--slabs",
        "33",
    ];
    let output = spinflip(&args, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("--slabs 33: a slab needs two planes of the 64 planes at least"),
        "{stderr}"
    );
}

/// A run says on standard error what runs, why and its plan; run again into the same
/// directory it says to add --force or --resume; resumed, it says from which sweep; without a
/// checkpoint, --resume says to drop it.
#[test]
fn a_run_says_what_runs_and_what_to_do_next() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), &GOOD.replace("BACKEND", "Cpu"));
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    let stderr = |output: &Output| String::from_utf8_lossy(&output.stderr).to_string();
    let first = spinflip(&["run", &path, "--out", out], &[]);
    assert!(first.status.success());
    let start = stderr(&first);
    assert!(start.contains("spinflip: Ising 2D L=8 on CPU ("), "{start}");
    assert!(
        start.contains("(cpu), engine simple (engine: Auto, as too few systems"),
        "{start}"
    );
    assert!(
        start.contains(
            "10 sweeps thermalising, then 100 measuring, a measurement every 10 (10 in all)"
        ),
        "{start}"
    );
    assert!(
        start.contains("hint: engine: Auto fell back to the simple engine"),
        "{start}"
    );
    let again = stderr(&spinflip(&["run", &path, "--out", out], &[]));
    assert!(
        again.contains("continue it with --resume, or start over with --force"),
        "{again}"
    );
    let resumed = spinflip(&["run", &path, "--out", out, "--resume"], &[]);
    assert!(stderr(&resumed).contains("spinflip: resuming from sweep 110 of 110"));
    let elsewhere = dir.path().join("empty");
    let missing = stderr(&spinflip(
        &[
            "run",
            &path,
            "--out",
            elsewhere.to_str().unwrap(),
            "--resume",
        ],
        &[],
    ));
    assert!(
        missing.contains("run the same command without --resume"),
        "{missing}"
    );
}

/// Without XDG_RUNTIME_DIR the Vulkan loader's complaint is not printed: the binary gives the
/// process a private runtime directory before wgpu starts.
#[test]
fn no_runtime_directory_warning_without_xdg_runtime_dir() {
    let output = Command::new(env!("CARGO_BIN_EXE_spinflip"))
        .args(["devices"])
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .expect("spinflip runs");
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("XDG_RUNTIME_DIR"), "{stderr}");
}

/// `--out` naming an existing file is refused as not a directory, naming it, and the file is
/// left as it was.
#[test]
fn output_directory_that_is_a_file_is_refused_as_not_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("results.txt");
    std::fs::write(&file, "kept").unwrap();
    let path = write_config(dir.path(), &GOOD.replace("BACKEND", "Cpu"));
    let output = spinflip(&["run", &path, "--out", file.to_str().unwrap()], &[]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let expected = format!(
        "{}: cannot use it: it exists and is not a directory",
        file.display()
    );
    assert!(stderr.contains(&expected), "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept");
}

/// A misspelt field inside the algorithm stops the run at its line, as one in the model does.
#[test]
fn unknown_field_inside_the_algorithm_is_refused_with_its_line() {
    let config = GOOD
        .replace("BACKEND", "Cpu")
        .replace(
            "seed: 5,",
            "seed: 5,\n    algorithm: Tempering(every: 1, tuen: true),",
        )
        .replace("Betas([0.4])", "Betas([0.4, 0.5])");
    let stderr = failing_run(&config, &[]);
    assert!(
        stderr.contains(":7:") && stderr.contains("unknown field `tuen` in `Tempering`"),
        "{stderr}"
    );
}

/// The stderr and stdout of a completed run of `config` (on the CPU).
fn completed_run(config: &str) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), config);
    let out = dir.path().join("out");
    let output = spinflip(&["run", &path, "--out", out.to_str().unwrap()], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "{stderr}");
    (stderr, String::from_utf8_lossy(&output.stdout).to_string())
}

/// A small XY run of `disorder` with `replicas` (and two samples of a glass).
fn xy(disorder: &str, replicas: u32) -> String {
    let samples = if disorder == "Ferromagnet" { 1 } else { 2 };
    format!(
        "(model: XY(dims: 2, size: 4, field: 0.0, disorder: {disorder}), \
         temperatures: Betas([0.5, 1.0]), replicas: {replicas}, samples: {samples}, \
         sweeps: (thermalize: 20, measure: 1000, every: 1), seed: 3, backend: Cpu, plots: false)"
    )
}

/// Every kind of run prints the same progress lines on standard error (no terminal here):
/// Metropolis sweeps of Ising spins, vector spins (measuring every sweep, yet a line per
/// percent at most), population annealing on a schedule of known length, and an adaptive one,
/// whose length is found as it goes.
#[test]
fn every_run_prints_progress_lines() {
    let lines = |stderr: &str| -> Vec<String> {
        (stderr.lines())
            .filter(|l| l.contains(" sweeps (") && l.contains("flips/ns"))
            .map(str::to_string)
            .collect()
    };
    let (ising, _) = completed_run(&GOOD.replace("BACKEND", "Cpu"));
    let ising = lines(&ising);
    assert!(
        ising[0].starts_with("spinflip: 1/110 sweeps (1%, thermalising), "),
        "{ising:?}"
    );
    assert!(
        ising
            .last()
            .unwrap()
            .starts_with("spinflip: 110/110 sweeps (100%, measuring)")
    );
    let (vector, _) = completed_run(&xy("Ferromagnet", 2));
    let vector = lines(&vector);
    assert!((50..=101).contains(&vector.len()), "{vector:?}");
    assert!(vector[0].starts_with("spinflip: 1/1020 sweeps (0%, thermalising), "));
    assert!(
        vector
            .last()
            .unwrap()
            .starts_with("spinflip: 1020/1020 sweeps (100%, measuring)")
    );
    let anneal = |schedule: &str| {
        let config = format!(
            "(model: Ising(dims: 2, size: 4, field: 0.0), replicas: 16, \
             algorithm: Annealing(theta: 5, schedule: {schedule}), seed: 8, backend: Cpu, \
             plots: false)"
        );
        lines(&completed_run(&config).0)
    };
    let linear = anneal("Linear(beta_max: 0.5, count: 4)");
    assert_eq!(linear.len(), 4, "{linear:?}");
    assert!(linear[3].starts_with("spinflip: 20/20 sweeps (100%, measuring), "));
    assert!(linear[3].ends_with(" left"), "{}", linear[3]);
    let adaptive = anneal("Adaptive(overlap: 0.8, beta_max: 0.5)");
    assert!(adaptive[0].starts_with("spinflip: 5 sweeps (measuring), "));
    assert!(adaptive[0].ends_with(" flips/ns"), "{}", adaptive[0]);
}

/// A spin glass run with one replica has no overlaps: its table leaves their columns out and
/// says why, rather than print NaN; the vector table has the Ising table's format.
#[test]
fn tables_say_why_overlaps_are_missing() {
    let glass = "(model: EdwardsAnderson(dims: 2, size: 4, field: 0.0), \
                 temperatures: Betas([0.5]), replicas: 1, samples: 4, \
                 sweeps: (thermalize: 20, measure: 100, every: 1), seed: 3, backend: Cpu, \
                 plots: false)";
    let (_, ising) = completed_run(glass);
    assert!(!ising.contains("NaN"), "{ising}");
    let heading = format!("{:>9} {:>24} {:>22}\n 0.500000 ", "beta", "e", "c");
    assert!(ising.contains(&heading), "{ising}");
    assert!(
        ising.contains("q2, g, xi_L/L: not estimated: overlaps need two replicas"),
        "{ising}"
    );
    let (_, vector) = completed_run(&xy("Bimodal", 1));
    assert!(
        vector.contains("chi_SG, g, xi_L/L: not estimated: overlaps need two replicas"),
        "{vector}"
    );
    let (_, vector) = completed_run(&xy("Bimodal", 2));
    assert!(
        !vector.contains("not estimated") && !vector.contains(" +- "),
        "{vector}"
    );
    let heading = format!("{:>9} {:>24} {:>20} ", "beta", "e", "|m|");
    assert!(vector.contains(&heading), "{vector}");
    assert!(vector.contains(" ± "), "{vector}");
}
