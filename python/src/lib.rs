//! The `spinflip` Python module: run a simulation from a config (RON text, a file or a dict),
//! load a run directory as NumPy arrays, and Kaufman's and Onsager's exact values. Everything is
//! the library's: the run is `spinflip::run::run`, the files are read by the library's readers
//! where it has them, and errors carry the library's messages.

mod config;
mod directory;
mod errors;
mod tables;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use spinflip::config::{Backend, Config};
use spinflip::exact::ExactIsing2d;
use spinflip::io::run_dir::{ProgressHook, RunOptions};
use spinflip::run::RunOutcome;
use spinflip::runtime_dir::PrivateRuntimeDir;

use errors::{ConfigError, RunStopped, SpinflipError, to_py};

/// Run the simulation `config` into the directory `out` and return its results as `load` does.
#[pyfunction]
#[pyo3(signature = (config, out, *, force = false, resume = false, progress = None, backend = None, adapter = None, wall_time = None))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments, one per command-line option.
fn run(
    py: Python<'_>,
    config: &Bound<'_, PyAny>,
    out: PathBuf,
    force: bool,
    resume: bool,
    progress: Option<&Bound<'_, PyAny>>,
    backend: Option<&str>,
    adapter: Option<String>,
    wall_time: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyDict>> {
    let started = Instant::now();
    let mut config = config::from_python(config)?;
    if let Some(backend) = backend {
        config.backend = parse_backend(backend)?;
    }
    if adapter.is_some() {
        config.adapter = adapter;
    }
    let callback_error = Arc::new(Mutex::new(None));
    let (progress, on_progress) = progress_of(progress, &callback_error)?;
    let options = RunOptions {
        resume,
        overwrite: force,
        progress,
        on_progress,
        deadline: wall_time
            .map(wall_time_of)
            .transpose()?
            .map(|limit| started + limit),
        ..RunOptions::new(&out)
    };
    let outcome = py
        .detach(|| spinflip::run::run(&config, &options))
        .map_err(to_py)?;
    if let Some(error) = callback_error.lock().expect("never poisoned").take() {
        return Err(error);
    }
    match outcome {
        RunOutcome::Completed(_) | RunOutcome::Annealed(_) | RunOutcome::Vector(_) => {
            directory::load(py, &out, true)
        }
        RunOutcome::Stopped {
            sweeps_done,
            reason,
        } => Err(stopped(sweeps_done, &format!(" ({reason})"), &out)),
        // Only where the options ask for it, which these never do.
        RunOutcome::Halted { sweeps_done } => Err(stopped(sweeps_done, "", &out)),
    }
}

/// The exception of a run that stopped early with a checkpoint to resume.
fn stopped(sweeps_done: u64, reason: &str, out: &std::path::Path) -> PyErr {
    RunStopped::new_err(format!(
        "stopped after {sweeps_done} sweeps{reason} with a checkpoint in {}: continue with \
         spinflip.run(config, out, resume=True)",
        out.display()
    ))
}

/// `progress` as the library's options: `None` or `True` (the default) prints the library's
/// progress lines on standard error, `False` nothing, a callable is called `(done, total)` in
/// sweeps after every plan (its first exception is raised when the run ends; the run goes on).
fn progress_of(
    progress: Option<&Bound<'_, PyAny>>,
    callback_error: &Arc<Mutex<Option<PyErr>>>,
) -> PyResult<(bool, Option<ProgressHook>)> {
    let Some(progress) = progress else {
        return Ok((true, None));
    };
    if progress.is_callable() {
        let callback = progress.clone().unbind();
        let error = Arc::clone(callback_error);
        let hook = move |done: u64, total: u64| {
            Python::attach(|py| {
                if let Err(raised) = callback.call1(py, (done, total)) {
                    error.lock().expect("never poisoned").get_or_insert(raised);
                }
            })
        };
        return Ok((false, Some(ProgressHook(Arc::new(hook)))));
    }
    Ok((progress.extract::<bool>()?, None))
}

/// `wall_time` as a duration: a number of seconds (0 included), or text as the command line's
/// `--wall-time` takes it (`23h50m`, `0-23:50:00`), read by its parser.
fn wall_time_of(wall_time: &Bound<'_, PyAny>) -> PyResult<Duration> {
    if let Ok(text) = wall_time.extract::<String>() {
        return spinflip::stop::parse_wall_time(&text).map_err(PyValueError::new_err);
    }
    let seconds: f64 = wall_time.extract()?;
    Duration::try_from_secs_f64(seconds).map_err(|_| {
        PyValueError::new_err(format!(
            "wall_time must be a number of seconds >= 0, got {seconds}"
        ))
    })
}

/// A backend by its name, as the command line's `--backend` takes it.
fn parse_backend(name: &str) -> PyResult<Backend> {
    match name.to_ascii_lowercase().as_str() {
        "auto" => Ok(Backend::Auto),
        "cpu" => Ok(Backend::Cpu),
        "wgpu" => Ok(Backend::Wgpu),
        "cuda" => Ok(Backend::Cuda),
        _ => Err(PyValueError::new_err(format!(
            "backend must be one of 'auto', 'cpu', 'wgpu', 'cuda', got {name:?}"
        ))),
    }
}

/// The private runtime directory of this interpreter, while it lasts.
static RUNTIME_DIR: Mutex<Option<PrivateRuntimeDir>> = Mutex::new(None);

/// Point `XDG_RUNTIME_DIR` at a private directory where it names none, as the command does
/// (see [`spinflip::runtime_dir`]): otherwise the Vulkan loader prints `error: XDG_RUNTIME_DIR
/// is invalid or not set` before every run. The interpreter removes it at its exit (`atexit`).
#[allow(
    unsafe_code,
    reason = "setting a variable of the process's own environment"
)]
fn private_runtime_dir(py: Python<'_>) -> PyResult<()> {
    let mut dir = RUNTIME_DIR.lock().unwrap_or_else(|e| e.into_inner());
    if dir.is_some() {
        return Ok(());
    }
    // SAFETY: at the module's import, under the GIL, before anything of the module opens wgpu;
    // Python reads the environment into `os.environ` at its start, not again.
    *dir = unsafe { spinflip::runtime_dir::set_private_unless_set() };
    if dir.is_some() {
        let remove = wrap_pyfunction!(remove_runtime_dir, py)?;
        py.import("atexit")?.call_method1("register", (remove,))?;
    }
    Ok(())
}

/// Remove the private runtime directory, at the interpreter's exit.
#[pyfunction]
fn remove_runtime_dir() {
    RUNTIME_DIR.lock().unwrap_or_else(|e| e.into_inner()).take();
}

/// Load the finished run in `dir`: its summary, config, tables and lattices.
#[pyfunction]
#[pyo3(signature = (dir, *, lattices = true))]
fn load(py: Python<'_>, dir: PathBuf, lattices: bool) -> PyResult<Py<PyDict>> {
    directory::load(py, &dir, lattices)
}

/// The built-in default config, as commented RON text.
#[pyfunction]
fn default_config() -> &'static str {
    Config::default_source()
}

/// A config (RON text, a path or a dict) as the dict `run` takes, every field present.
#[pyfunction]
fn config_dict<'py>(py: Python<'py>, config: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    config::to_python(py, &config::from_python(config)?)
}

/// A config (RON text, a path or a dict) as RON text, as a run writes it into `config.ron`.
#[pyfunction]
fn config_ron(config: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(config::from_python(config)?.to_ron_string())
}

/// The exact e, c, f per site of the 2D Ising model at `beta`: Kaufman's on the periodic
/// `size x size` lattice, Onsager's on the infinite one where `size` is `None`.
#[pyfunction]
#[pyo3(signature = (beta, size = None))]
fn exact<'py>(
    py: Python<'py>,
    beta: &Bound<'py, PyAny>,
    size: Option<u32>,
) -> PyResult<Bound<'py, PyDict>> {
    if let Some(size) = size
        && (size < 2 || !size.is_multiple_of(2))
    {
        return Err(PyValueError::new_err(format!(
            "size must be even and >= 2, got {size}"
        )));
    }
    let values = |beta: f64| {
        if !(beta.is_finite() && beta > 0.0) {
            return Err(PyValueError::new_err(format!(
                "beta must be finite and > 0, got {beta}"
            )));
        }
        Ok(match size {
            Some(size) => spinflip::exact::kaufman(size, beta),
            None => spinflip::exact::onsager(beta),
        })
    };
    let result = PyDict::new(py);
    if let Ok(beta) = beta.extract::<f64>() {
        let exact = values(beta)?;
        result.set_item("e", exact.e)?;
        result.set_item("c", exact.c)?;
        result.set_item("f", exact.f)?;
        return Ok(result);
    }
    let betas: Vec<f64> = beta.extract()?;
    let exact = betas
        .into_iter()
        .map(values)
        .collect::<PyResult<Vec<_>>>()?;
    let column = |value: fn(&ExactIsing2d) -> f64| {
        numpy::PyArray1::from_vec(py, exact.iter().map(value).collect())
    };
    result.set_item("e", column(|x| x.e))?;
    result.set_item("c", column(|x| x.c))?;
    result.set_item("f", column(|x| x.f))?;
    Ok(result)
}

/// The backends of this build, as `run`'s `backend` names them.
fn backends() -> Vec<&'static str> {
    let mut backends = vec!["auto", "cpu", "wgpu"];
    if cfg!(feature = "cuda") {
        backends.push("cuda");
    }
    backends
}

#[pymodule(name = "spinflip")]
fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
    private_runtime_dir(m.py())?;
    // The library's warnings (an equilibration check that fails, the engine `Auto` chose with
    // RUST_LOG=info) on standard error, as the command prints them.
    let _ = env_logger::Builder::from_env(
        env_logger::Env::default().default_filter_or("warn,wgpu_hal::gles=off"),
    )
    .try_init();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("BACKENDS", PyTuple::new(m.py(), backends())?)?;
    m.add("SpinflipError", m.py().get_type::<SpinflipError>())?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("RunStopped", m.py().get_type::<RunStopped>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(exact, m)?)?;
    m.add_function(wrap_pyfunction!(default_config, m)?)?;
    m.add_function(wrap_pyfunction!(config_dict, m)?)?;
    m.add_function(wrap_pyfunction!(config_ron, m)?)?;
    Ok(())
}
