//! The smallest helpers of the CUDA engine, below every other file of it: a panic inside cudarc
//! (a library or symbol that cannot be loaded) turned into an error ([`guarded`]), and driver
//! errors named ([`driver_error`]).

use std::panic::{AssertUnwindSafe, catch_unwind};

use cudarc::driver::result::DriverError;

use crate::error::{Error, Result};

/// Run `f`, turning a panic inside cudarc (a library or symbol that cannot be loaded) into an
/// error about `what`.
pub fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let reason = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("unknown panic");
        Err(Error::Cuda(format!("{what}: {reason}")))
    })
}

/// A driver error as `what: CUDA_ERROR_NAME (description)`.
pub fn driver_error(what: impl std::fmt::Display) -> impl Fn(DriverError) -> Error {
    move |error| {
        let name = error
            .error_name()
            .map_or_else(|_| format!("{:?}", error.0), |n| n.to_string_lossy().into());
        let description = error
            .error_string()
            .map_or_else(|_| String::new(), |s| format!(" ({})", s.to_string_lossy()));
        Error::Cuda(format!("{what}: {name}{description}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guarded_turns_a_panic_into_an_error() {
        let error = guarded("probing", || -> Result<()> { panic!("library missing") })
            .unwrap_err()
            .to_string();
        assert_eq!(error, "CUDA: probing: library missing");
    }
}
