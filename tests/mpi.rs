//! Runs split over MPI ranks (`mpirun -np N spinflip run`, feature `mpi`) write exactly the
//! files of the same run on one rank: Metropolis sweeps, parallel tempering and population
//! annealing of the spin glass, in several layouts, population annealing of discrete states,
//! and the Heisenberg glass's vector spins (with parallel tempering), on the CPU and on the GPU
//! (lavapipe in CI). A rank that dies ends the job and leaves the last
//! checkpoint, which resumes on another rank count to the uninterrupted run's files; ranks with
//! different configs, more ranks than the samples allow (Ising and vector spins) and the
//! ferromagnet on several ranks are refused with a message. SIGUSR1 to `mpirun` stops a job
//! with a checkpoint (status 75) that resumes to the files of one rank (Ising and vector spins,
//! the latter on another rank count), and the job script of docs/batch.md turns a batch
//! system's SIGTERM into that stop, status 75 and a resubmission. Jobs stopped inside a sweep
//! (slabs, and vector spins split by sample), and the triangular lattice's slabs at a sweep's
//! end, resume on other rank counts and as one process, and the reverse, to the files of one.
//!
//! These tests need OpenMPI's `mpirun` (`.ci/run` installs it); they fail without it.

#![cfg(feature = "mpi")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use tempfile::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_spinflip");

/// `mpirun -np ranks spinflip args...` as CI runs it: as root, more ranks than cores, shared
/// memory without the cross-memory-attach that containers forbid, and a session directory of
/// its own: OpenMPI's shared one under the system's temporary directory is created by
/// whichever of the tests' concurrent jobs comes first, and one that finds it made between its
/// check and its `mkdir` fails ("File exists").
fn mpirun(ranks: u32) -> Command {
    static SESSIONS: OnceLock<TempDir> = OnceLock::new();
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let sessions = SESSIONS.get_or_init(|| TempDir::new().unwrap());
    let session = sessions
        .path()
        .join(NEXT.fetch_add(1, Ordering::Relaxed).to_string());
    std::fs::create_dir(&session).unwrap();
    let mut command = Command::new("mpirun");
    command
        .args(["--oversubscribe", "--bind-to", "none", "-np"])
        .arg(ranks.to_string())
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .env("OMPI_MCA_orte_tmpdir_base", &session);
    command
}

fn output(command: &mut Command) -> Output {
    command
        .output()
        .unwrap_or_else(|e| panic!("cannot start {command:?} (is OpenMPI installed?): {e}"))
}

fn text(output: &Output) -> String {
    format!(
        "status {}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Write `config` into `dir` and return its path.
fn config_file(dir: &Path, config: &str) -> PathBuf {
    let path = dir.join("config.ron");
    std::fs::write(&path, config).unwrap();
    path
}

/// The command that runs `config` on `ranks` ranks (1: the plain binary, no `mpirun`) into
/// `out`.
fn run_command(config: &Path, out: &Path, ranks: u32, extra: &[&str]) -> Command {
    let mut command = match ranks {
        1 => Command::new(BIN),
        n => {
            let mut command = mpirun(n);
            command.arg(BIN);
            command
        }
    };
    command
        .arg("run")
        .arg(config)
        .arg("--out")
        .arg(out)
        .args(extra);
    command
}

/// Run `config` on `ranks` ranks (1: the plain binary, no `mpirun`) into `out`.
fn run(config: &Path, out: &Path, ranks: u32, extra: &[&str]) -> Output {
    output(&mut run_command(config, out, ranks, extra))
}

fn run_ok(config: &Path, out: &Path, ranks: u32) {
    let result = run(config, out, ranks, &[]);
    assert!(
        result.status.success(),
        "{} ranks: {}",
        ranks,
        text(&result)
    );
}

/// JSON without the keys that depend on the machine, the time taken and the command line.
fn without_timing(path: &Path) -> serde_json::Value {
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    for key in [
        "flips_per_ns",
        "updates_per_ns",
        "ps_per_flip",
        "engine",
        "adapter",
        "seconds",
        "provenance",
    ] {
        strip(&mut json, key);
    }
    json
}

fn strip(json: &mut serde_json::Value, key: &str) {
    match json {
        serde_json::Value::Object(map) => {
            map.remove(key);
            map.values_mut().for_each(|v| strip(v, key));
        }
        serde_json::Value::Array(values) => values.iter_mut().for_each(|v| strip(v, key)),
        _ => {}
    }
}

/// Every file of two runs is byte-identical, the JSON summaries but for their timings.
fn assert_same_outputs(a: &Path, b: &Path) {
    let mut names: Vec<_> = std::fs::read_dir(a)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert!(names.len() >= 4, "too few outputs: {names:?}");
    for name in names {
        let (x, y) = (a.join(&name), b.join(&name));
        if name.ends_with(".json") {
            assert_eq!(without_timing(&x), without_timing(&y), "{name} differs");
        } else {
            let same = std::fs::read(&x).unwrap() == std::fs::read(&y).unwrap();
            assert!(same, "{name} differs between {a:?} and {b:?}");
        }
    }
}

/// The run of `config` on one rank and on each of `rank_counts` write the same files.
fn ranks_write_the_files_of_one(config: &str, rank_counts: &[u32]) {
    let dir = TempDir::new().unwrap();
    let path = config_file(dir.path(), config);
    let one = dir.path().join("one");
    run_ok(&path, &one, 1);
    for &ranks in rank_counts {
        let out = dir.path().join(format!("np{ranks}"));
        run_ok(&path, &out, ranks);
        assert_same_outputs(&one, &out);
    }
}

/// Three samples of the 2D spin glass in SMSC words (one sample per word system), overlaps.
const SMSC_GLASS: &str = r#"(
    model: EdwardsAnderson(dims: 2, size: 64, field: 0.0),
    temperatures: Betas([0.5, 1.0]),
    replicas: 2,
    samples: 3,
    engine: Multispin(layout: Smsc),
    sweeps: (thermalize: 20, measure: 40, every: 2),
    seed: 11,
    backend: Cpu,
    plots: false,
)"#;

#[test]
fn smsc_spin_glass_on_two_and_three_ranks_writes_the_files_of_one() {
    ranks_write_the_files_of_one(SMSC_GLASS, &[2, 3]);
}

/// 64 samples in the lanes of AMSC words (32 per rank at least), parallel tempering, an
/// antiperiodic axis (its reversed bonds in every rank's coupling words).
const LANES_TEMPERING: &str = r#"(
    model: EdwardsAnderson(dims: 3, size: 4, field: 0.0,
        boundaries: (Periodic, Antiperiodic, Periodic)),
    temperatures: LinearBeta(min: 0.4, max: 0.7, count: 4),
    replicas: 2,
    samples: 64,
    engine: Multispin(layout: Amsc(lanes: Samples)),
    sweeps: (thermalize: 20, measure: 60, every: 3),
    algorithm: Tempering(every: 2),
    seed: 12,
    backend: Cpu,
    plots: false,
)"#;

#[test]
fn tempering_with_samples_in_lanes_on_two_ranks_writes_the_files_of_one() {
    ranks_write_the_files_of_one(LANES_TEMPERING, &[2]);
}

/// Population annealing of two samples, replicas in lanes, overlaps between runs.
const ANNEALING: &str = r#"(
    model: EdwardsAnderson(dims: 2, size: 4, field: 0.0),
    replicas: 64,
    samples: 2,
    engine: Multispin(layout: Amsc(lanes: Replicas), randoms: Exact),
    algorithm: Annealing(theta: 2, schedule: Adaptive(overlap: 0.8, beta_max: 1.5),
        resampling: Multinomial, runs: 2, overlaps: true, reweighting: Some(7)),
    seed: 13,
    backend: Cpu,
    plots: false,
)"#;

#[test]
fn population_annealing_on_two_ranks_writes_the_files_of_one() {
    ranks_write_the_files_of_one(ANNEALING, &[2]);
}

/// Population annealing of the vector engine's discrete states: three samples of the diluted
/// 3-state Potts +-J glass, split by sample, every replica its own table entry.
#[test]
fn discrete_state_annealing_on_two_and_three_ranks_writes_the_files_of_one() {
    let config = r#"(
    model: Potts(q: 3, dims: 2, size: 4, disorder: Bimodal, dilution: 0.1),
    replicas: 50,
    samples: 3,
    algorithm: Annealing(theta: 2, schedule: Adaptive(overlap: 0.7, beta_max: 1.2),
        resampling: Multinomial, runs: 2),
    seed: 31,
    backend: Cpu,
    plots: false,
)"#;
    ranks_write_the_files_of_one(config, &[2, 3]);
}

/// Population annealing on the GPU engine (lavapipe in CI) with the populations counted as
/// histograms on each rank's device (zero field, no multinomial resampling, no overlaps):
/// two samples, two runs.
const GPU_ANNEALING: &str = r#"(
    model: EdwardsAnderson(dims: 2, size: 4, field: 0.0),
    replicas: 64,
    samples: 2,
    engine: Multispin(layout: Amsc(lanes: Replicas), randoms: Exact),
    algorithm: Annealing(theta: 2, schedule: Adaptive(overlap: 0.8, beta_max: 1.5), runs: 2),
    seed: 13,
    backend: Wgpu,
    plots: false,
)"#;

#[test]
fn gpu_population_annealing_with_histograms_on_two_ranks_writes_the_files_of_one() {
    ranks_write_the_files_of_one(GPU_ANNEALING, &[2]);
}

/// The GPU engine (lavapipe in CI): two samples in SMSC words with temperatures in tempering.
const GPU_GLASS: &str = r#"(
    model: EdwardsAnderson(dims: 2, size: 64, field: 0.0),
    temperatures: LinearBeta(min: 0.4, max: 0.9, count: 3),
    replicas: 2,
    samples: 2,
    engine: Multispin(layout: Smsc),
    sweeps: (thermalize: 10, measure: 20, every: 2),
    algorithm: Tempering(every: 1),
    seed: 14,
    backend: Wgpu,
    plots: false,
)"#;

#[test]
fn gpu_ranks_write_the_files_of_one() {
    ranks_write_the_files_of_one(GPU_GLASS, &[2]);
}

/// One lattice of the ferromagnet in slabs: SMSC words, a field, two temperatures and
/// replicas; 2 and 3 ranks (uneven slabs of plane pairs).
const SLABS_FERROMAGNET: &str = r#"(
    model: Ising(dims: 2, size: 64, field: 0.1),
    temperatures: Betas([0.4, 0.45]),
    replicas: 2,
    engine: Multispin(layout: Smsc),
    sweeps: (thermalize: 20, measure: 40, every: 2),
    seed: 16,
    backend: Cpu,
    plots: false,
)"#;

#[test]
fn ferromagnet_slabs_on_two_and_three_ranks_write_the_files_of_one() {
    ranks_write_the_files_of_one(SLABS_FERROMAGNET, &[2, 3]);
}

/// The twisted torus in slabs: the bonds across both antiperiodic edges reversed in the
/// coupling words, the y edge's between the last slab and the first.
#[test]
fn twisted_ferromagnet_slabs_on_two_ranks_write_the_files_of_one() {
    let twisted = SLABS_FERROMAGNET.replace(
        "field: 0.1)",
        "field: 0.1, boundaries: (Antiperiodic, Antiperiodic))",
    );
    assert_ne!(twisted, SLABS_FERROMAGNET);
    ranks_write_the_files_of_one(&twisted, &[2]);
}

/// Slabs along an open axis: the edge sites leave out the bonds across it, the y edge's between
/// the last slab and the first, whose halos the ranks still trade.
#[test]
fn open_edged_slabs_on_three_ranks_write_the_files_of_one() {
    let open = SLABS_FERROMAGNET.replace("field: 0.1)", "field: 0.1, boundaries: (Open, Open))");
    assert_ne!(open, SLABS_FERROMAGNET);
    ranks_write_the_files_of_one(&open, &[3]);
}

/// The honeycomb's brick wall in slabs: its colour-1 sites' y bonds point down, across the
/// lower slab edge.
#[test]
fn honeycomb_slabs_on_three_ranks_write_the_files_of_one() {
    let honeycomb = SLABS_FERROMAGNET.replace("field: 0.1)", "field: 0.1, lattice: Honeycomb)");
    assert_ne!(honeycomb, SLABS_FERROMAGNET);
    ranks_write_the_files_of_one(&honeycomb, &[3]);
}

/// The triangular lattice in slabs: each colour updates in two passes of alternate rows, whose
/// diagonal bonds reach the next slab's rows of the same colour, so the slabs trade a colour's
/// boundary planes after each pass; the kagome antiferromagnet's holes pass trades nothing.
#[test]
fn triangular_and_kagome_slabs_on_two_and_three_ranks_write_the_files_of_one() {
    // A size that both the rows' 64-site words and the lattices' three colours divide.
    let shaped = |lattice: &str| {
        let shaped = SLABS_FERROMAGNET
            .replace("size: 64, field: 0.1)", lattice)
            .replace("measure: 40", "measure: 10");
        assert_ne!(shaped, SLABS_FERROMAGNET);
        shaped
    };
    let triangular = shaped("size: 192, field: 0.1, lattice: Triangular)");
    ranks_write_the_files_of_one(&triangular, &[3]);
    let kagome = shaped("size: 192, field: 0.0, lattice: Kagome, antiferromagnet: true)");
    ranks_write_the_files_of_one(&kagome, &[2]);
}

/// The 3D spin glass in slabs (more ranks than samples), overlaps and link overlaps across
/// the slabs' boundaries, shared randoms.
const SLABS_GLASS_3D: &str = r#"(
    model: EdwardsAnderson(dims: 3, size: 64, field: 0.0),
    temperatures: Betas([0.9]),
    replicas: 2,
    samples: 1,
    engine: Multispin(layout: Smsc, randoms: Shared),
    sweeps: (thermalize: 2, measure: 4, every: 2),
    seed: 17,
    backend: Cpu,
    plots: false,
)"#;

#[test]
fn spin_glass_slabs_in_3d_on_three_ranks_write_the_files_of_one() {
    ranks_write_the_files_of_one(SLABS_GLASS_3D, &[3]);
}

#[test]
fn gpu_slabs_on_two_ranks_write_the_files_of_one() {
    ranks_write_the_files_of_one(&SLABS_FERROMAGNET.replace("Cpu", "Wgpu"), &[2]);
}

/// The ferromagnet's slabs on CUDA devices, one per rank, on 2 and 4 ranks where the machine
/// has the GPUs (skipped, with a notice, where it has fewer than two): halos device to device
/// through NCCL, and host-staged (`SPINFLIP_HALOS=host`); both write the files of one rank,
/// and each names its path in the log. 128^2 in 4 slabs of 32 planes: every slab has a bulk;
/// and the triangular lattice, 192^2, whose slabs trade after each of a sweep's four passes.
#[cfg(feature = "cuda")]
#[test]
fn cuda_slabs_through_nccl_and_the_host_write_the_files_of_one() {
    let test = "cuda_slabs_through_nccl_and_the_host_write_the_files_of_one";
    let gpus = match spinflip::engine::cuda::device_count() {
        Ok(count) if count >= 2 => count as u32,
        other => return eprintln!("SKIPPED {test}: needs two CUDA devices ({other:?})"),
    };
    let square = SLABS_FERROMAGNET.replace("size: 64", "size: 128");
    let triangular = SLABS_FERROMAGNET.replace("size: 64,", "size: 192, lattice: Triangular,");
    for config in [square, triangular] {
        cuda_slabs_write_the_files_of_one(&config.replace("Cpu", "Cuda"), gpus);
    }
}

/// [`cuda_slabs_through_nccl_and_the_host_write_the_files_of_one`] of `config` on `gpus`.
#[cfg(feature = "cuda")]
fn cuda_slabs_write_the_files_of_one(config: &str, gpus: u32) {
    let dir = TempDir::new().unwrap();
    let path = config_file(dir.path(), config);
    let one = dir.path().join("one");
    run_ok(&path, &one, 1);
    for ranks in [2, 4].into_iter().filter(|&ranks| ranks <= gpus) {
        for (path_env, named) in [("device", "through NCCL"), ("host", "host-staged")] {
            let out = dir.path().join(format!("np{ranks}-{path_env}"));
            let mut command = mpirun(ranks);
            command
                .env("SPINFLIP_HALOS", path_env)
                .env("RUST_LOG", "spinflip=info")
                .arg(BIN)
                .arg("run")
                .arg(&path)
                .arg("--out")
                .arg(&out);
            let result = output(&mut command);
            assert!(result.status.success(), "{ranks} ranks: {}", text(&result));
            let log = String::from_utf8_lossy(&result.stderr);
            assert!(
                log.contains(named),
                "{ranks} ranks, {path_env}: {}",
                text(&result)
            );
            assert_same_outputs(&one, &out);
        }
    }
}

/// Five samples of the Heisenberg Gaussian glass (vector spins, split by sample: 2 + 3 samples on
/// two ranks, 1 + 2 + 2 on three), cones, over-relaxation, overlaps, parallel tempering (each
/// rank exchanges its own samples' lattices).
const HEISENBERG_GLASS: &str = r#"(
    model: Heisenberg(dims: 2, size: 4, disorder: Gaussian),
    temperatures: Betas([0.5, 1.0, 2.0]),
    replicas: 2,
    samples: 5,
    algorithm: Tempering(every: 1),
    updates: (proposal: Cone(acceptance: 0.5), overrelaxation: 1),
    sweeps: (thermalize: 20, measure: 40, every: 2),
    seed: 19,
    backend: Cpu,
    plots: false,
)"#;

#[test]
fn heisenberg_glass_on_two_and_three_ranks_writes_the_files_of_one() {
    ranks_write_the_files_of_one(HEISENBERG_GLASS, &[2, 3]);
}

/// Five samples of the diluted Gaussian Edwards-Anderson glass (two discrete states, split by
/// sample: each rank holds its samples' couplings and empty sites), overlaps, parallel
/// tempering.
const DILUTED_GAUSSIAN_GLASS: &str = r#"(
    model: EdwardsAnderson(dims: 2, size: 4, disorder: Gaussian, dilution: 0.2),
    temperatures: Betas([0.5, 1.0, 2.0]),
    replicas: 2,
    samples: 5,
    algorithm: Tempering(every: 1),
    sweeps: (thermalize: 20, measure: 40, every: 2),
    seed: 23,
    backend: Cpu,
    plots: false,
)"#;

/// With an open and an antiperiodic edge: each rank holds its samples' couplings, edges
/// closed.
#[test]
fn diluted_gaussian_glass_on_two_ranks_writes_the_files_of_one() {
    let edges = DILUTED_GAUSSIAN_GLASS.replace(
        "dilution: 0.2)",
        "dilution: 0.2, boundaries: (Open, Antiperiodic))",
    );
    assert_ne!(edges, DILUTED_GAUSSIAN_GLASS);
    ranks_write_the_files_of_one(&edges, &[2]);
}

/// Five samples of the +-J Edwards-Anderson glass with Houdayer's replica moves (two discrete
/// states), split by sample: the moves' record merges with its samples' systems.
#[test]
fn houdayer_moves_on_two_and_three_ranks_write_the_files_of_one() {
    let config = DILUTED_GAUSSIAN_GLASS
        .replace(
            "EdwardsAnderson(dims: 2, size: 4, disorder: Gaussian, dilution: 0.2)",
            "EdwardsAnderson(dims: 2, size: 4)",
        )
        .replace(
            "Tempering(every: 1)",
            "Tempering(every: 1, moves: Houdayer())",
        );
    ranks_write_the_files_of_one(&config, &[2, 3]);
}

/// Three samples of the diluted 3-state Potts ferromagnet by Swendsen-Wang steps with a
/// Metropolis sweep each, split by sample.
#[test]
fn diluted_potts_cluster_steps_on_two_ranks_write_the_files_of_one() {
    let config = DILUTED_GAUSSIAN_GLASS
        .replace(
            "EdwardsAnderson(dims: 2, size: 4, disorder: Gaussian, dilution: 0.2)",
            "Potts(q: 3, dims: 2, size: 8, dilution: 0.1)",
        )
        .replace("samples: 5", "samples: 3")
        .replace(
            "Tempering(every: 1)",
            "Clusters(update: SwendsenWang, metropolis: 1)",
        );
    ranks_write_the_files_of_one(&config, &[2]);
}

/// The vector spins' GPU engine (lavapipe in CI): the +-J glass on the double checkerboard.
#[test]
fn gpu_vector_ranks_write_the_files_of_one() {
    let config = HEISENBERG_GLASS
        .replace("Gaussian", "Bimodal")
        .replace(
            "overrelaxation: 1",
            "metropolis: DoubleCheckerboard(tile: 2, hits: 2)",
        )
        .replace("Cpu", "Wgpu");
    ranks_write_the_files_of_one(&config, &[2]);
}

/// A run long enough to be killed after its first checkpoints.
const LONG: &str = r#"(
    model: EdwardsAnderson(dims: 2, size: 128, field: 0.0),
    temperatures: Betas([0.5, 1.0]),
    replicas: 2,
    samples: 3,
    engine: Multispin(layout: Smsc),
    sweeps: (thermalize: 100, measure: 6000, every: 10),
    seed: 15,
    backend: Cpu,
    checkpoint_every: 100,
    plots: false,
)"#;

/// The process of MPI rank `rank` among the children of `mpirun`'s process `parent` (OpenMPI
/// tells each its rank in `OMPI_COMM_WORLD_RANK`).
fn rank_process(parent: u32, rank: u32) -> Option<u32> {
    let wanted = format!("OMPI_COMM_WORLD_RANK={rank}");
    std::fs::read_dir("/proc").ok()?.find_map(|entry| {
        let pid: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The parent is the fourth field, after the command name in parentheses.
        let ppid: u32 = stat
            .rsplit(')')
            .next()?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()?;
        let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
        let has_rank = environ
            .split(|&b| b == 0)
            .any(|var| var == wanted.as_bytes());
        (ppid == parent && has_rank).then_some(pid)
    })
}

#[test]
fn a_killed_rank_ends_the_job_and_its_checkpoint_resumes_on_three_ranks() {
    let dir = TempDir::new().unwrap();
    let path = config_file(dir.path(), LONG);
    let out = dir.path().join("killed");
    let child = mpirun(2)
        .arg(BIN)
        .arg("run")
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("mpirun starts");
    let checkpoint = out.join("checkpoint.bin");
    let started = std::time::Instant::now();
    while !checkpoint.exists() {
        assert!(
            started.elapsed().as_secs() < 120,
            "no checkpoint after 120 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let rank_0 = rank_process(child.id(), 0).expect("rank 0 runs under mpirun");
    let rank_1 = rank_process(child.id(), 1).expect("rank 1 runs under mpirun");
    let killed = Command::new("kill")
        .args(["-9", &rank_1.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let ended = child.wait_with_output().unwrap();
    let report = text(&ended);
    assert!(!ended.status.success(), "the job must fail: {report}");
    assert!(
        report.contains("rank 1") && report.contains("signal 9"),
        "mpirun names the dead rank: {report}"
    );
    assert!(
        !out.join("summary.json").exists(),
        "the killed run ended before its end: {report}"
    );
    // Rank 0 takes the SIGTERM with which mpirun ends the job as a request to stop, and may
    // outlive mpirun until its SIGKILL follows; until then it holds the directory's lock.
    let started = std::time::Instant::now();
    while Path::new(&format!("/proc/{rank_0}")).exists() {
        assert!(started.elapsed().as_secs() < 60, "rank 0 still runs");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // The last checkpoint is whole: the run resumes from it on three ranks and ends with the
    // files of the run never interrupted, on one.
    let resumed = run(&path, &out, 3, &["--resume"]);
    assert!(resumed.status.success(), "{}", text(&resumed));
    let one = dir.path().join("one");
    run_ok(&path, &one, 1);
    assert_same_outputs(&one, &out);
}

/// Three samples of the spin glass for a few seconds, with no checkpoint before the end but the
/// one a stop writes.
const STOPPABLE: &str = r#"(
    model: EdwardsAnderson(dims: 2, size: 64, field: 0.0),
    temperatures: Betas([0.5, 1.0]),
    replicas: 2,
    samples: 3,
    engine: Multispin(layout: Smsc),
    sweeps: (thermalize: 200, measure: 3000, every: 4),
    seed: 18,
    backend: Cpu,
    checkpoint_every: 0,
    plots: false,
)"#;

/// SIGUSR1 to `mpirun`, which hands it to every rank: rank 0 stops after a plan, with a
/// checkpoint, and every rank exits with 75 (the job too); resumed on two ranks, the run writes
/// the files of the uninterrupted run on one.
#[test]
fn sigusr1_stops_a_job_of_two_ranks_and_it_resumes_to_the_files_of_one() {
    stopped_by_sigusr1_resumes_to_the_files_of_one(STOPPABLE, " sweeps (", (2, 2));
}

/// The job script of docs/batch.md (`assets/batch/mpi_job.sh`) run on two ranks, as SLURM would
/// run it, gets the batch system's SIGTERM: it passes it on to `mpirun` as SIGUSR1, every rank
/// stops with a checkpoint, and the job ends with 75 and resubmits itself (`sbatch`, here a
/// stand-in that notes its call). The job it submitted resumes the run and ends with 0, the
/// files of the run on one rank, and no further submission.
#[test]
fn the_mpi_job_script_turns_a_sigterm_into_75_and_a_resubmission() {
    use std::io::{BufRead, BufReader, Read};
    let dir = TempDir::new().unwrap();
    let config = config_file(dir.path(), STOPPABLE);
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(BIN, bin.join("spinflip")).unwrap();
    let submitted = dir.path().join("submitted");
    let sbatch = format!("#!/bin/sh\necho \"$@\" >> {}\n", submitted.display());
    std::fs::write(bin.join("sbatch"), sbatch).unwrap();
    let executable = std::os::unix::fs::PermissionsExt::from_mode(0o755);
    std::fs::set_permissions(bin.join("sbatch"), executable).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/batch/mpi_job.sh");
    let out = dir.path().join("job");
    let job = || {
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
        let mut command = mpirun(2);
        let envs: Vec<_> = (command.get_envs())
            .filter_map(|(k, v)| Some((k.to_owned(), v?.to_owned())))
            .collect();
        command = Command::new("bash");
        command
            .arg(&script)
            .envs(envs)
            .env("OMPI_MCA_hwloc_base_binding_policy", "none")
            .env("CONFIG", &config)
            .env("OUT", &out)
            .env("RANKS", "2")
            .env("PATH", path);
        command
    };
    let mut child = job()
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("bash starts");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut report = String::new();
    while !report.contains(" sweeps (") {
        let read = stderr.read_line(&mut report).unwrap();
        assert!(
            read > 0,
            "the job ended before reporting progress: {report}"
        );
    }
    let signalled = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(signalled.success());
    stderr.read_to_string(&mut report).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(75), "{report}");
    assert!(report.contains("(SIGUSR1)"), "{report}");
    let calls = std::fs::read_to_string(&submitted).unwrap();
    assert_eq!(calls.trim(), script.display().to_string());
    let resumed = output(&mut job());
    assert!(resumed.status.success(), "{}", text(&resumed));
    assert!(text(&resumed).contains("resuming from sweep"));
    assert_eq!(std::fs::read_to_string(&submitted).unwrap(), calls);
    let one = dir.path().join("one");
    run_ok(&config, &one, 1);
    assert_same_outputs(&one, &out);
}

/// Five samples of the Heisenberg glass for a second or two, checkpointed only where stopped.
const VECTOR_STOPPABLE: &str = r#"(
    model: Heisenberg(dims: 2, size: 4, disorder: Gaussian),
    temperatures: Betas([0.5, 2.0]),
    replicas: 2,
    samples: 5,
    updates: (proposal: Cone(acceptance: 0.5)),
    sweeps: (thermalize: 100, measure: 20000, every: 100),
    seed: 20,
    backend: Cpu,
    checkpoint_every: 0,
    plots: false,
)"#;

/// Vector spins stopped on two ranks resume on three (their lattices sliced anew from the
/// checkpoint's) to the files of one.
#[test]
fn a_vector_job_stopped_on_two_ranks_resumes_on_three_to_the_files_of_one() {
    stopped_by_sigusr1_resumes_to_the_files_of_one(VECTOR_STOPPABLE, "measuring every", (2, 3));
}

/// `config` on `stopped` ranks gets SIGUSR1 once rank 0 prints `started` (its loop runs, every
/// rank's handlers are in place): every rank exits with 75, leaving a checkpoint, from which
/// the run resumes on `resumed` ranks to the files of the uninterrupted run on one.
fn stopped_by_sigusr1_resumes_to_the_files_of_one(
    config: &str,
    started: &str,
    (stopped_ranks, resumed_ranks): (u32, u32),
) {
    use std::io::{BufRead, BufReader, Read};
    let dir = TempDir::new().unwrap();
    let path = config_file(dir.path(), config);
    let out = dir.path().join("stopped");
    let mut child = mpirun(stopped_ranks)
        .arg(BIN)
        .arg("run")
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("mpirun starts");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut report = String::new();
    while !report.contains(started) {
        let read = stderr.read_line(&mut report).unwrap();
        assert!(
            read > 0,
            "the job ended before reporting progress: {report}"
        );
    }
    let signalled = Command::new("kill")
        .args(["-USR1", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(signalled.success());
    stderr.read_to_string(&mut report).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(75), "{report}");
    assert!(
        report.contains("spinflip: stopped after") && report.contains("(SIGUSR1)"),
        "{report}"
    );
    assert!(out.join("checkpoint.bin").exists() && !out.join("summary.json").exists());
    let resumed = run(&path, &out, resumed_ranks, &["--resume"]);
    assert!(resumed.status.success(), "{}", text(&resumed));
    let one = dir.path().join("one");
    run_ok(&path, &one, 1);
    assert_same_outputs(&one, &out);
}

/// Whether process `pid` has a handler of SIGUSR1 (signal 10: bit 9 of `SigCgt`).
fn catches_sigusr1(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let caught = status.lines().find_map(|line| line.strip_prefix("SigCgt:"));
    caught
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << 9) != 0)
}

/// The format of the checkpoint in `out` ([`INSIDE_A_SWEEP`]: written inside a sweep).
fn checkpoint_format(out: &Path) -> u32 {
    let bytes = std::fs::read(out.join("checkpoint.bin")).unwrap();
    u32::from_le_bytes(bytes[8..12].try_into().unwrap())
}

/// One invocation of `config` on `ranks` ranks (at least 2), resuming from `out` where it holds
/// a checkpoint, stopped after its first plan, one unit (a pass over one plane): SIGUSR1 goes
/// to `mpirun` once every rank handles it, while rank 0 still starts MPI, before its loop.
fn stop_after_one_unit_on_ranks(config: &Path, out: &Path, ranks: u32) {
    let resume = out.join("checkpoint.bin").exists();
    let extra: &[&str] = if resume { &["--resume"] } else { &[] };
    let child = run_command(config, out, ranks, extra)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("mpirun starts");
    let started = std::time::Instant::now();
    let handling = || (0..ranks).all(|k| rank_process(child.id(), k).is_some_and(catches_sigusr1));
    while !handling() {
        assert!(started.elapsed().as_secs() < 60, "the ranks did not start");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let signalled = Command::new("kill")
        .args(["-USR1", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(signalled.success());
    let ended = child.wait_with_output().unwrap();
    assert_eq!(ended.status.code(), Some(75), "{}", text(&ended));
}

/// One invocation of `config` as one process, resuming from `out` where it holds a checkpoint,
/// stopped after its first plan, one unit: its deadline has passed as it starts.
fn stop_after_one_unit_in_this_process(config: &Path, out: &Path) {
    let config = spinflip::config::Config::from_path(config).unwrap();
    let options = spinflip::io::run_dir::RunOptions {
        resume: out.join("checkpoint.bin").exists(),
        deadline: Some(std::time::Instant::now()),
        ..spinflip::io::run_dir::RunOptions::new(out)
    };
    let outcome = spinflip::run::run(&config, &options).unwrap();
    let stopped = matches!(outcome, spinflip::run::RunOutcome::Stopped { .. });
    assert!(stopped, "{outcome:?}");
}

/// Checkpoint formats written inside a sweep: Ising (`metropolis::checkpoint`) and vector spins.
const INSIDE_A_SWEEP: [u32; 2] = [10, 28];

/// `config` stopped by `invocations` in turn, `(ranks, stops)`: `stops` invocations on `ranks`
/// ranks (1: one process) of one unit each, each writing a checkpoint of one of `formats`
/// (inside the first sweep, [`INSIDE_A_SWEEP`], where a unit is a pass over a plane) that the
/// next resumes on its own rank count; then resumed to the end on `last` ranks: the files of
/// the uninterrupted run on one.
fn stopped_after_units_resumes_to_the_files_of_one(
    config: &str,
    invocations: &[(u32, u32)],
    (last, formats): (u32, &[u32]),
) {
    let dir = TempDir::new().unwrap();
    let path = config_file(dir.path(), config);
    let out = dir.path().join("stopped");
    for &(ranks, stops) in invocations {
        for _ in 0..stops {
            match ranks {
                1 => stop_after_one_unit_in_this_process(&path, &out),
                _ => stop_after_one_unit_on_ranks(&path, &out, ranks),
            }
            let format = checkpoint_format(&out);
            assert!(
                formats.contains(&format),
                "format {format} on {ranks} ranks"
            );
        }
    }
    let resumed = run(&path, &out, last, &["--resume"]);
    assert!(resumed.status.success(), "{}", text(&resumed));
    let one = dir.path().join("one");
    run_ok(&path, &one, 1);
    assert_same_outputs(&one, &out);
}

/// The ferromagnet in slabs of AMSC words (32 replicas in the lanes), 16 units a sweep: stops
/// inside its first sweep on 2 ranks, as one process (through the end of the first colour),
/// on 3 ranks, as one process and on 2 ranks, then resumed on 3, and on the GPU (lavapipe in
/// CI) on 2 ranks and as one process; the triangular lattice in slabs, whose units are whole
/// sweeps, stopped after one on 2 ranks, as one process and on 3 ranks; and vector spins split
/// by sample, stopped inside a sweep on 2 ranks, as one process and on 3 ranks.
#[test]
fn jobs_stopped_after_a_unit_resume_on_other_rank_counts_to_the_files_of_one() {
    let slabs = r#"(
        model: Ising(dims: 2, size: 8, field: 0.1),
        temperatures: Betas([0.4, 0.45]),
        replicas: 32,
        engine: Multispin(layout: Amsc(lanes: Replicas)),
        sweeps: (thermalize: 4, measure: 8, every: 2),
        seed: 21,
        backend: Cpu,
        checkpoint_every: 0,
        plots: false,
    )"#;
    let stops = [(2, 1), (1, 7), (3, 1), (1, 1), (2, 1)];
    stopped_after_units_resumes_to_the_files_of_one(slabs, &stops, (3, &INSIDE_A_SWEEP));
    let gpu = slabs.replace("Cpu", "Wgpu");
    let (two, one) = ((2, 1), (1, 8));
    stopped_after_units_resumes_to_the_files_of_one(&gpu, &[two, one], (2, &INSIDE_A_SWEEP));
    let triangular = slabs.replace("size: 8,", "size: 6, lattice: Triangular,");
    assert_ne!(triangular, slabs);
    // Its stops come at a sweep's end: checkpoint format 5.
    let stops = [(2, 1), (1, 2), (3, 1)];
    stopped_after_units_resumes_to_the_files_of_one(&triangular, &stops, (2, &[5]));
    let vector = HEISENBERG_GLASS.replace("measure: 40", "measure: 8");
    stopped_after_units_resumes_to_the_files_of_one(&vector, &stops, (2, &INSIDE_A_SWEEP));
}

#[test]
fn ranks_running_different_configs_are_refused() {
    let dir = TempDir::new().unwrap();
    let a = config_file(dir.path(), SMSC_GLASS);
    let b = dir.path().join("other.ron");
    std::fs::write(&b, SMSC_GLASS.replace("seed: 11", "seed: 12")).unwrap();
    let out = dir.path().join("out");
    let mut command = mpirun(1);
    command
        .arg(BIN)
        .arg("run")
        .arg(&a)
        .arg("--out")
        .arg(&out)
        .args([":", "-np", "1"])
        .arg(BIN)
        .arg("run")
        .arg(&b)
        .arg("--out")
        .arg(&out);
    let result = output(&mut command);
    let report = text(&result);
    assert!(!result.status.success(), "{report}");
    assert!(
        report.contains("every rank must run the same command") && report.contains("rank 1"),
        "{report}"
    );
    assert!(!out.join("summary.json").exists());
}

#[test]
fn runs_that_neither_samples_nor_slabs_split_over_the_ranks_are_refused() {
    let dir = TempDir::new().unwrap();
    // Tempering splits by sample only: 64 samples in lanes are two groups of 32.
    let path = config_file(dir.path(), LANES_TEMPERING);
    let result = run(&path, &dir.path().join("three"), 3, &[]);
    let report = text(&result);
    assert!(!result.status.success(), "{report}");
    assert!(
        report.contains("3 MPI ranks for 64 disorder sample(s)")
            && report.contains("at most 2 ranks"),
        "{report}"
    );
    // The ferromagnet has one sample, and slabs take the multispin engine, not the simple one.
    let ferromagnet = dir.path().join("ferromagnet.ron");
    std::fs::write(
        &ferromagnet,
        r#"(model: Ising(dims: 2, size: 16, field: 0.0), temperatures: Betas([0.4]), replicas: 1,
            seed: 1, engine: Simple, sweeps: (thermalize: 10, measure: 10, every: 1),
            backend: Cpu, plots: false)"#,
    )
    .unwrap();
    let result = run(&ferromagnet, &dir.path().join("ferro"), 2, &[]);
    let report = text(&result);
    assert!(!result.status.success(), "{report}");
    assert!(
        report.contains("slabs of planes") && report.contains("not Simple"),
        "{report}"
    );
    assert!(!dir.path().join("ferro").join("summary.json").exists());
    // Vector spins split by sample only, and the ferromagnet has one.
    let heisenberg = dir.path().join("heisenberg.ron");
    std::fs::write(
        &heisenberg,
        r#"(model: Heisenberg(dims: 2, size: 8), temperatures: Betas([0.4]), replicas: 1,
            seed: 1, sweeps: (thermalize: 10, measure: 10, every: 1), backend: Cpu,
            plots: false)"#,
    )
    .unwrap();
    let result = run(&heisenberg, &dir.path().join("vector"), 2, &[]);
    let report = text(&result);
    assert!(!result.status.success(), "{report}");
    assert!(
        report.contains("Heisenberg 2D: 2 MPI ranks for 1 disorder sample(s)")
            && report.contains("the ferromagnet has one sample"),
        "{report}"
    );
    assert!(!dir.path().join("vector").join("summary.json").exists());
}
