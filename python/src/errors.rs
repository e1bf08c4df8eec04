//! The module's exceptions: the library's errors with their messages.

use pyo3::PyErr;
use pyo3::create_exception;
use pyo3::exceptions::PyException;

create_exception!(
    spinflip,
    SpinflipError,
    PyException,
    "A run, a run directory or a device failed; the message is the command's."
);
create_exception!(
    spinflip,
    ConfigError,
    SpinflipError,
    "The config cannot be read or describes nothing that can run; a parse error names \
     file:line:col (`<config>` for text) and the field."
);
create_exception!(
    spinflip,
    RunStopped,
    SpinflipError,
    "The run stopped before its end (its wall time) with a checkpoint: continue it with \
     `run(config, out, resume=True)`."
);

/// The exception of a library error: [`ConfigError`] for the config's, [`SpinflipError`] else.
pub fn to_py(error: spinflip::Error) -> PyErr {
    match error {
        spinflip::Error::Config(error) => ConfigError::new_err(error.to_string()),
        error => SpinflipError::new_err(error.to_string()),
    }
}
