"""The Python package against the command line and the files it writes.

Run from the repository with ``python/ci.sh``, which builds the module and the command;
``SPINFLIP_BIN`` names the command ``spinflip`` of the same source.
"""

import csv
import json
import os
import shutil
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import spinflip

# A run of seconds on the CPU: two temperatures, four replicas of an 8x8 lattice.
FERROMAGNET = """(
    model: Ising(dims: 2, size: 8, field: 0.0),
    temperatures: Betas([0.4, 0.44]),
    replicas: 4,
    sweeps: (thermalize: 100, measure: 400, every: 2),
    seed: 7,
    backend: Cpu,
    plots: false,
)"""

# The spin glass with samples in the lanes of multispin words: overlaps, samples, couplings.
SPIN_GLASS = """(
    model: EdwardsAnderson(dims: 2, size: 4, field: 0.0),
    temperatures: Temperatures([1.0, 1.5]),
    replicas: 2,
    samples: 32,
    sweeps: (thermalize: 50, measure: 200, every: 5),
    seed: 11,
    backend: Cpu,
    plots: false,
)"""

# What two runs of one config may differ in: the rates and the provenance (host, times, command).
TIMING_FIELDS = ("flips_per_ns", "ps_per_flip", "provenance")


def files_of(directory):
    return sorted(name for name in os.listdir(directory))


def summary_without(directory, fields):
    with open(os.path.join(directory, "summary.json")) as f:
        summary = json.load(f)
    for field in fields:
        summary.pop(field)
    return summary


def assert_same_run(a, b, files=(), fields=()):
    """The run directories `a` and `b` hold the same files, byte for byte but the summary's
    rates and provenance, and but the `files` and the summary's `fields` named."""
    assert files_of(a) == files_of(b)
    for name in files_of(a):
        if name in files:
            continue
        if name == "summary.json":
            fields = TIMING_FIELDS + tuple(fields)
            assert summary_without(a, fields) == summary_without(b, fields)
            continue
        with open(os.path.join(a, name), "rb") as x, open(os.path.join(b, name), "rb") as y:
            assert x.read() == y.read(), f"{name} differs"


def read_csv(path):
    """A CSV file as columns of floats, parsed here without the package."""
    with open(path) as f:
        rows = list(csv.reader(f))
    return {name: np.array([float(row[i]) for row in rows[1:]]) for i, name in enumerate(rows[0])}


@pytest.fixture(scope="module")
def ferromagnet(tmp_path_factory):
    out = tmp_path_factory.mktemp("ferromagnet")
    return out, spinflip.run(FERROMAGNET, out, progress=False)


@pytest.fixture(scope="module")
def spin_glass(tmp_path_factory):
    out = tmp_path_factory.mktemp("spin_glass")
    return out, spinflip.run(SPIN_GLASS, out, progress=False)


def test_run_writes_what_the_command_writes(tmp_path):
    command = os.environ.get("SPINFLIP_BIN")
    if not command:
        pytest.skip("SPINFLIP_BIN does not name the spinflip command (python/ci.sh sets it)")
    config = tmp_path / "config.ron"
    config.write_text(FERROMAGNET.replace("plots: false", "plots: true"))
    subprocess.run([command, "run", str(config), "--out", str(tmp_path / "cli")], check=True)
    spinflip.run(config, tmp_path / "python", progress=False)
    assert "plot_u4.svg" in files_of(tmp_path / "cli")
    assert_same_run(tmp_path / "cli", tmp_path / "python")


def test_loaded_values_equal_the_files(ferromagnet):
    out, run = ferromagnet
    with open(out / "summary.json") as f:
        assert run["summary"] == json.load(f)
    assert run["config"] == (out / "config.ron").read_text()
    assert list(run["betas"]) == [0.4, 0.44]
    for kind in ("timeseries", "thermalization"):
        assert len(run[kind]) == 2
        for t, beta in enumerate(run["betas"]):
            table = run[kind][t]
            expected = read_csv(out / f"{kind}_t{t:02}_beta{beta:.4f}.csv")
            assert list(table) == list(expected)
            for name, column in expected.items():
                assert np.array_equal(table[name], column), f"{kind} {t} {name}"
    # 400 sweeps measured every 2, four replicas; the counts are integers.
    series = run["timeseries"][0]
    assert series["E"].shape == (800,) and series["E"].dtype == np.int64
    assert series["e"].dtype == np.float64
    assert set(series["replica"]) == {0, 1, 2, 3}
    assert run["final_state"].dtype == np.int8
    assert np.array_equal(run["final_state"], np.load(out / "final_state.npy"))
    assert run["final_state"].shape == (2, 4, 8, 8)
    assert set(np.unique(run["final_state"])) <= {-1, 1}


def test_packed_lattices_are_unpacked(ferromagnet, tmp_path):
    out, run = ferromagnet
    packed = spinflip.run(
        FERROMAGNET.replace("plots: false", "final_state: Packed"), tmp_path, progress=False
    )
    stored = np.load(tmp_path / "final_state.npy")
    assert stored.dtype == np.uint8 and stored.shape == (2, 4, 8, 1)
    # The README's recipe for the packed form, and the int8 run of the same config.
    spins = 2 * np.unpackbits(stored, axis=-1, count=8).astype(np.int8) - 1
    assert np.array_equal(packed["final_state"], spins)
    assert np.array_equal(packed["final_state"], run["final_state"])


def test_spin_glass_tables_and_couplings(spin_glass):
    out, run = spin_glass
    assert [len(run[kind]) for kind in ("timeseries", "overlaps", "samples")] == [2, 2, 2]
    # 40 measurements of 32 samples, one pair of replicas each.
    overlaps = run["overlaps"][1]
    assert list(overlaps) == ["measurement", "sweep", "sample", "pair", "q", "q2_kmin", "q_link"]
    assert overlaps["q"].shape == (40 * 32,)
    assert np.array_equal(overlaps["q"], read_csv(out / "overlaps_t01_T1.500.csv")["q"])
    assert run["samples"][0]["sample"].tolist() == list(range(32))
    assert run["final_state"].shape == (2, 32, 2, 4, 4)
    assert run["couplings"].shape == (32, 4, 4, 2)
    assert np.array_equal(run["couplings"], np.load(out / "couplings.npy"))
    assert list(run["betas"]) == [1.0, 1 / 1.5]


def test_a_gaussian_vector_glass_loads_its_float_couplings_and_lattices(tmp_path):
    config = """(
        model: Heisenberg(dims: 2, size: 4, disorder: Gaussian),
        temperatures: Betas([0.5, 1.0]),
        replicas: 2,
        samples: 2,
        sweeps: (thermalize: 20, measure: 40, every: 2),
        seed: 3,
        backend: Cpu,
        plots: false,
    )"""
    run = spinflip.run(config, tmp_path, progress=False)
    couplings = run["couplings"]
    assert couplings.dtype == np.float64 and couplings.shape == (2, 4, 4, 2)
    assert np.array_equal(couplings, np.load(tmp_path / "couplings.npy"))
    assert np.array_equal(run["final_state"], np.load(tmp_path / "final_state.npy"))
    assert run["final_state"].dtype == np.float32
    assert len(np.unique(couplings)) > 2, "Gaussian couplings, not +-1"


def test_a_dict_config_runs_as_its_ron(ferromagnet, tmp_path):
    out, _ = ferromagnet
    config = spinflip.config_dict(FERROMAGNET)
    assert config["model"] == {"Ising": {"dims": 2, "size": 8, "field": 0.0}}
    # NumPy's scalars are numbers too.
    config["replicas"] = np.int64(4)
    config["temperatures"] = {"Betas": list(np.array([0.4, 0.44]))}
    spinflip.run(config, tmp_path, progress=False)
    assert_same_run(out, tmp_path)
    ron = spinflip.config_ron(config)
    assert ron == spinflip.config_ron(FERROMAGNET)
    assert spinflip.config_dict(ron) == spinflip.config_dict(FERROMAGNET)


def test_default_config_is_the_commands():
    text = spinflip.default_config()
    assert text.startswith("// spinflip run configuration")
    assert spinflip.config_dict(text)["model"] == {"Ising": {"dims": 2, "size": 64, "field": 0.0}}


def test_bad_configs_raise_the_commands_message(tmp_path):
    with pytest.raises(spinflip.ConfigError, match=r"^<config>:1:\d+: .*replicaz"):
        spinflip.run("(model: Ising(dims: 2, size: 8), replicaz: 2, seed: 1)", tmp_path)
    path = tmp_path / "bad.ron"
    path.write_text("(\n    model: Ising(dims: 2, size: 7),\n    replicas: 2,\n    seed: 1,\n)\n")
    with pytest.raises(spinflip.ConfigError, match=r"invalid config: .*even"):
        spinflip.run(path, tmp_path / "out")
    path.write_text("(\n    model: Isin(dims: 2, size: 8),\n)\n")
    with pytest.raises(spinflip.ConfigError, match=rf"^{path}:2:\d+: .*Isin"):
        spinflip.run(str(path), tmp_path / "out")
    with pytest.raises(spinflip.ConfigError, match="config dict: unknown field `replicaz`"):
        spinflip.config_dict({"model": {"Ising": {"dims": 2, "size": 8}}, "replicaz": 2})
    with pytest.raises(spinflip.ConfigError, match=r"No such file"):
        spinflip.run(tmp_path / "missing.ron", tmp_path / "out")
    with pytest.raises(TypeError, match="RON text, a path or a dict"):
        spinflip.run(42, tmp_path / "out")
    with pytest.raises(ValueError, match="backend must be one of"):
        spinflip.run(FERROMAGNET, tmp_path / "out", backend="gpu")
    assert issubclass(spinflip.ConfigError, spinflip.SpinflipError)


def test_an_earlier_run_is_kept_unless_forced(ferromagnet, tmp_path):
    spinflip.run(FERROMAGNET, tmp_path, progress=False)
    with pytest.raises(spinflip.SpinflipError, match="already holds a run .*--force"):
        spinflip.run(FERROMAGNET, tmp_path, progress=False)
    spinflip.run(FERROMAGNET, tmp_path, progress=False, force=True)
    assert_same_run(ferromagnet[0], tmp_path)


def test_every_csv_file_is_a_table_of_typed_columns(ferromagnet, tmp_path):
    out, _ = ferromagnet
    shutil.copytree(out, tmp_path, dirs_exist_ok=True)
    (tmp_path / "extra.csv").write_text("sweep,E,q\n10,-8,NaN\n20,-4.5,0.25\n")
    extra = spinflip.load(tmp_path)["extra"]
    assert extra["sweep"].dtype == np.int64 and extra["sweep"].tolist() == [10, 20]
    assert extra["E"].dtype == np.float64 and extra["E"].tolist() == [-8.0, -4.5]
    assert np.isnan(extra["q"][0]) and extra["q"][1] == 0.25
    (tmp_path / "extra.csv").write_text("sweep,E\n10,-8\n20,x\n")
    with pytest.raises(spinflip.SpinflipError, match=r"extra.csv:3: E: \"x\" is not a number"):
        spinflip.load(tmp_path)
    (tmp_path / "extra.csv").write_text("sweep,E\n10\n")
    with pytest.raises(spinflip.SpinflipError, match=r"extra.csv:2: 1 fields, the header has 2"):
        spinflip.load(tmp_path)


def test_load_refuses_a_directory_without_a_run(tmp_path):
    with pytest.raises(spinflip.SpinflipError, match="no finished run here"):
        spinflip.load(tmp_path)


def test_progress_reaches_every_sweep_and_callback_errors_are_raised(tmp_path):
    seen = []
    spinflip.run(FERROMAGNET, tmp_path / "a", progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1] == (500, 500)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)

    def failing(done, total):
        raise RuntimeError(f"at {done}")

    with pytest.raises(RuntimeError, match="at "):
        spinflip.run(FERROMAGNET, tmp_path / "b", progress=failing)


def test_a_stopped_run_resumes_to_the_uninterrupted_files(ferromagnet, tmp_path):
    # No time at all: the run stops at its first plan boundary, with a checkpoint.
    with pytest.raises(spinflip.RunStopped, match="resume=True"):
        spinflip.run(FERROMAGNET, tmp_path, progress=False, wall_time=0.0)
    assert "checkpoint.bin" in files_of(tmp_path)
    spinflip.run(FERROMAGNET, tmp_path, progress=False, resume=True)
    assert_same_run(ferromagnet[0], tmp_path)


def test_wall_time_takes_the_commands_forms(tmp_path):
    # A day is far beyond this run: it completes, as without a wall time.
    for k, limit in enumerate(("23h50m", "0-23:50:00", "86400", 86400)):
        spinflip.run(FERROMAGNET, tmp_path / str(k), progress=False, wall_time=limit)
    with pytest.raises(ValueError, match="is not a wall time"):
        spinflip.run(FERROMAGNET, tmp_path / "bad", progress=False, wall_time="23 hours")


def test_wgpu_runs_print_no_runtime_directory_error(tmp_path):
    script = (
        "import spinflip, sys; "
        "spinflip.run(sys.argv[1], sys.argv[2], progress=False, backend='wgpu')"
    )
    environment = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    ran = subprocess.run(
        [sys.executable, "-c", script, FERROMAGNET, str(tmp_path)],
        env=environment,
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stderr
    assert "XDG_RUNTIME_DIR" not in ran.stderr


def test_the_private_runtime_directory_is_removed_at_exit():
    # The directory the import makes: `spinflip-runtime-<pid>`, or `-<pid>-<n>` where a process
    # killed earlier under the same pid left its own.
    script = (
        "import glob, os, tempfile; "
        "mine = os.path.join(tempfile.gettempdir(), f'spinflip-runtime-{os.getpid()}*'); "
        "before = set(glob.glob(mine)); "
        "import spinflip; "
        "made = set(glob.glob(mine)) - before; "
        "assert len(made) == 1, made; d = made.pop(); "
        "assert os.path.isdir(d), d; print(d)"
    )
    environment = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    ran = subprocess.run(
        [sys.executable, "-c", script], env=environment, capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr
    private = ran.stdout.strip()
    assert "spinflip-runtime-" in private, private
    assert not os.path.exists(private), private


def test_every_backend_gives_the_same_bits(ferromagnet, tmp_path):
    for backend in spinflip.BACKENDS:
        if backend in ("auto", "cpu"):
            continue
        run = spinflip.run(FERROMAGNET, tmp_path / backend, progress=False, backend=backend)
        assert run["summary"]["backend"] == backend
        # The config names the backend, and the checkpoint carries the config's fingerprint.
        different = ("config.ron", "checkpoint.bin")
        assert_same_run(ferromagnet[0], tmp_path / backend, different, ("backend", "adapter"))


def test_the_gil_is_released_while_a_run_goes(tmp_path):
    longer = FERROMAGNET.replace("measure: 400", "measure: 2000")
    worker = threading.Thread(target=spinflip.run, args=(longer, tmp_path), kwargs={"progress": False})
    started = time.perf_counter()
    worker.start()
    gaps, last = [], time.perf_counter()
    while worker.is_alive():
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    took = time.perf_counter() - started
    assert took > 0.2, "the run must last long enough to tell"
    # With the GIL held, this loop would stall for the whole run.
    assert max(gaps) < took / 2, (max(gaps), took)


def test_population_annealing_loads_its_summary(tmp_path):
    config = (
        "(model: Ising(dims: 2, size: 8, field: 0.0), replicas: 64, engine: Simple, "
        "algorithm: Annealing(theta: 2, schedule: Linear(beta_max: 0.5, count: 4)), "
        "seed: 3, backend: Cpu, plots: false)"
    )
    run = spinflip.run(config, tmp_path, progress=False)
    with open(tmp_path / "annealing.json") as f:
        assert run["summary"] == json.load(f)
    assert "betas" not in run and "final_state" not in run
    assert np.array_equal(run["annealing"]["beta"], read_csv(tmp_path / "annealing.csv")["beta"])
    assert len(run["annealing_populations"]["beta"]) > 0


def test_exact_gives_kaufmans_values():
    # The guide's reference values at L = 128, beta = 0.4 (src/exact/kaufman.rs checks the same).
    exact = spinflip.exact(0.4, 128)
    assert exact["e"] == pytest.approx(-1.1060792038, abs=1e-9)
    assert exact["c"] == pytest.approx(0.8616983618, abs=1e-9)
    many = spinflip.exact(np.array([0.4, 0.5]), 128)
    assert many["e"].shape == (2,) and many["e"][0] == exact["e"]
    # Deep in the ordered phase every bond is satisfied: e = -2.
    assert spinflip.exact(5.0, 16)["e"] == pytest.approx(-2.0, abs=1e-12)
    # The infinite lattice: Onsager's e = -sqrt 2 and -beta f = ln 2 / 2 + 2 G / pi at beta_c.
    beta_c = np.log1p(np.sqrt(2)) / 2
    critical = spinflip.exact(beta_c)
    assert critical["e"] == pytest.approx(-np.sqrt(2), abs=1e-12)
    catalan = 0.915965594177219
    assert -beta_c * critical["f"] == pytest.approx(np.log(2) / 2 + 2 * catalan / np.pi, abs=1e-12)
    assert critical["c"] == np.inf
    assert spinflip.exact(0.3)["e"] == pytest.approx(spinflip.exact(0.3, 1024)["e"], abs=1e-12)
    with pytest.raises(ValueError, match="even"):
        spinflip.exact(0.4, 7)
    with pytest.raises(ValueError, match="beta must be finite and > 0"):
        spinflip.exact([0.4, -1.0], 8)
