//! A config from Python: RON text, a path to a RON file, or a dict. A dict is the config's JSON
//! form, serde's: enums are externally tagged, e.g. `{"model": {"Ising": {"dims": 2, "size":
//! 16}}, "temperatures": {"Betas": [0.4, 0.44]}, "engine": "Auto", ...}`; `config_dict` gives it.

use std::path::PathBuf;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

use spinflip::config::Config;

use crate::errors::{ConfigError, to_py};

/// The config that `config` describes: a `dict`, a path (`os.PathLike`, or a `str` without a
/// `(`), or RON text (a `str` with one: RON's outermost parenthesis).
pub fn from_python(config: &Bound<'_, PyAny>) -> PyResult<Config> {
    if let Ok(dict) = config.cast::<PyDict>() {
        return from_dict(dict);
    }
    if let Ok(text) = config.cast::<PyString>() {
        let text = text.to_cow()?;
        if text.contains('(') {
            return Config::from_ron_str(&text).map_err(|e| to_py(e.into()));
        }
    }
    match config.extract::<PathBuf>() {
        Ok(path) => Config::from_path(&path).map_err(|e| to_py(e.into())),
        Err(_) => Err(PyTypeError::new_err(format!(
            "config must be RON text, a path or a dict, got {}",
            config.get_type().name()?
        ))),
    }
}

/// `config` in its JSON form, as Python objects.
pub fn to_python<'py>(py: Python<'py>, config: &Config) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(config).expect("a Config holds only plain data");
    py.import("json")?.call_method1("loads", (text,))
}

fn from_dict(dict: &Bound<'_, PyDict>) -> PyResult<Config> {
    let value = json_value(dict.as_any())?;
    serde_json::from_value(value).map_err(|e| ConfigError::new_err(format!("config dict: {e}")))
}

/// A Python value of a config dict as JSON: dicts with string keys, lists and tuples, strings,
/// booleans, integers and floats (NumPy's scalars among them), `None`.
fn json_value(value: &Bound<'_, PyAny>) -> PyResult<Value> {
    if value.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(flag) = value.cast::<PyBool>() {
        return Ok(Value::Bool(flag.is_true()));
    }
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(Value::String(text.to_cow()?.into_owned()));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let mut fields = Map::new();
        for (key, item) in dict.iter() {
            let key = key.extract::<String>().map_err(|_| {
                ConfigError::new_err(format!("config dict: a key that is not a string: {key}"))
            })?;
            fields.insert(key, json_value(&item)?);
        }
        return Ok(Value::Object(fields));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let items = value.try_iter()?.map(|item| json_value(&item?));
        return Ok(Value::Array(items.collect::<PyResult<_>>()?));
    }
    // Python's int and NumPy's integers (which have `__index__`), then floats.
    if value.is_instance_of::<PyInt>() || value.hasattr("__index__")? {
        if let Ok(n) = value.extract::<u64>() {
            return Ok(Value::Number(n.into()));
        }
        if let Ok(n) = value.extract::<i64>() {
            return Ok(Value::Number(n.into()));
        }
    }
    if value.is_instance_of::<PyFloat>() || value.hasattr("__float__")? {
        let x = value.extract::<f64>()?;
        return Number::from_f64(x).map(Value::Number).ok_or_else(|| {
            ConfigError::new_err(format!(
                "config dict: {x} is not a number a config can hold"
            ))
        });
    }
    Err(ConfigError::new_err(format!(
        "config dict: a value of type {} (take str, int, float, bool, None, list, dict)",
        value.get_type().name()?
    )))
}
