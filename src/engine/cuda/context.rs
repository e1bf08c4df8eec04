//! The CUDA device manager: loading the driver safely, listing and choosing devices, and the
//! kernels compiled for a device (cached per kernel and geometry constants).
//!
//! cudarc loads `libcuda.so` and `libnvrtc.so` on first use and panics where they are missing, so
//! every first call into a library is preceded by a probe for it and wrapped in `guarded`
//! (`driver.rs`): a machine without NVIDIA's driver gets an [`Error::Cuda`] that says so, never a
//! panic.
#![allow(
    unsafe_code,
    reason = "the library probe and the driver-version query are FFI calls without safe wrappers; \
              page-locked memory starts uninitialised"
)]

use std::collections::HashMap;
use std::ffi::c_int;
use std::sync::Arc;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{CUdevice_attribute, CUresult};
use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaModule, CudaStream, DeviceRepr, PinnedHostSlice, sys,
};
use serde::Serialize;

use super::compile::{architecture_for, compile};
use super::driver::{driver_error, guarded};
use super::streams::{ReadStream, SlabStreams, SystemSizes, SystemStreams};
use crate::engine::kernels::Kernel;
use crate::engine::memory::{Place, Room};
use crate::error::{Error, Result};

/// Key of a cached kernel: the kernel and its geometry constants.
type KernelKey = (Kernel, Vec<(&'static str, u32)>);

/// Whether the CUDA driver library (`libcuda.so`) can be loaded on this machine.
pub fn driver_loadable() -> bool {
    // SAFETY: `is_culib_present` only tries `dlopen` on the driver's library names and closes
    // what it opened; it calls nothing inside the library.
    unsafe { sys::is_culib_present() }
}

/// Number of CUDA devices; an error where there is no driver. A driver without a device
/// (`CUDA_ERROR_NO_DEVICE`) counts as zero devices.
pub fn device_count() -> Result<usize> {
    if !driver_loadable() {
        return Err(Error::Cuda(
            "CUDA driver not found (libcuda.so): no NVIDIA driver is installed, or its library \
             is not on the loader's path"
                .into(),
        ));
    }
    guarded(
        "loading the CUDA driver (libcuda.so)",
        || match CudaContext::device_count() {
            Ok(count) => Ok(count.max(0) as usize),
            Err(DriverError(CUresult::CUDA_ERROR_NO_DEVICE)) => Ok(0),
            Err(e) => Err(driver_error("initialising the CUDA driver")(e)),
        },
    )
}

/// The driver's CUDA version as `major.minor`.
fn driver_version() -> Result<String> {
    let mut version: c_int = 0;
    // SAFETY: the driver writes one int through the valid pointer it is given; callers have
    // loaded the driver through `device_count` first.
    unsafe { sys::cuDriverGetVersion(&mut version) }
        .result()
        .map_err(driver_error("asking the driver for its version"))?;
    Ok(format!("{}.{}", version / 1000, version % 1000 / 10))
}

/// What `spinflip devices` shows of a CUDA device.
#[derive(Debug, Clone, Serialize)]
pub struct CudaDeviceSummary {
    pub index: usize,
    pub name: String,
    pub compute_capability: String,
    pub memory_bytes: u64,
    pub multiprocessors: u32,
    pub driver_cuda_version: String,
}

/// Every CUDA device; an error where there is no driver.
pub fn devices() -> Result<Vec<CudaDeviceSummary>> {
    let count = device_count()?;
    guarded("listing CUDA devices", || {
        let driver = driver_version()?;
        (0..count)
            .map(|index| {
                let ctx = CudaContext::new(index)
                    .map_err(driver_error(format!("opening CUDA device {index}")))?;
                summarize(index, &ctx, &driver)
                    .map_err(driver_error(format!("querying CUDA device {index}")))
            })
            .collect()
    })
}

fn summarize(
    index: usize,
    ctx: &CudaContext,
    driver: &str,
) -> Result<CudaDeviceSummary, DriverError> {
    let (major, minor) = ctx.compute_capability()?;
    Ok(CudaDeviceSummary {
        index,
        name: ctx.name()?,
        compute_capability: format!("{major}.{minor}"),
        memory_bytes: ctx.total_mem()? as u64,
        multiprocessors: ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?
            as u32,
        driver_cuda_version: driver.to_string(),
    })
}

/// An open CUDA device: its context, its default stream (copies, measurements and every launch
/// but the multispin update's, see `engine/cuda/streams.rs`), its limits, and the kernels
/// compiled for it.
pub struct CudaDevice {
    ctx: Arc<CudaContext>,
    pub(super) stream: Arc<CudaStream>,
    pub name: String,
    pub compute_capability: (i32, i32),
    /// The `--gpu-architecture` NVRTC compiles for on this device.
    pub architecture: String,
    /// The driver's CUDA version, `major.minor`.
    pub driver_cuda_version: String,
    pub max_threads_per_block: u32,
    /// Largest grid: x, y, z.
    pub max_grid: [u32; 3],
    pub l2_bytes: u64,
    kernels: HashMap<KernelKey, (Arc<CudaModule>, CudaFunction)>,
}

impl CudaDevice {
    /// Open the device `selector` names (an index; device 0 without one). Fails clearly where
    /// there is no driver, no such device, or no NVRTC.
    pub fn open(selector: Option<&str>) -> Result<Self> {
        let count = device_count()?;
        let index = device_index(selector, count)?;
        guarded("opening a CUDA device", || open_device(index))
    }

    /// `name (CUDA, sm_XX)`.
    pub fn description(&self) -> String {
        format!("{} (CUDA, {})", self.name, self.architecture)
    }

    /// The driver, as [`crate::engine::EngineInfo::driver`] names it.
    pub fn driver(&self) -> String {
        format!("CUDA driver {}", self.driver_cuda_version)
    }

    /// The memory an engine may fill on this device and on the host: the device's free memory
    /// as its driver reports it now ([`crate::engine::memory`]).
    pub fn memory_room(&self) -> Result<Room> {
        let (free, _total) = (self.ctx.mem_get_info()).map_err(driver_error(format!(
            "reading the free memory of {}",
            self.name
        )))?;
        Ok(Room::device(Place::Cuda, free as u64, &self.name))
    }

    /// The function of `kernel` compiled with geometry `constants`, compiled once and cached.
    pub fn function(
        &mut self,
        kernel: Kernel,
        constants: &[(&'static str, u32)],
    ) -> Result<CudaFunction> {
        Ok(self.kernel(kernel, constants)?.1)
    }

    /// The module holding `kernel` compiled with `constants` and its function, loaded once per
    /// device: an engine owns its device, so the module's globals are that engine's alone.
    pub fn kernel(
        &mut self,
        kernel: Kernel,
        constants: &[(&'static str, u32)],
    ) -> Result<(Arc<CudaModule>, CudaFunction)> {
        let key: KernelKey = (kernel, constants.to_vec());
        if let Some(loaded) = self.kernels.get(&key) {
            return Ok(loaded.clone());
        }
        let ptx = compile(kernel, constants, &self.architecture)?;
        let what = format!("loading kernel {} on {}", kernel.module(), self.name);
        let module = self.ctx.load_module(ptx).map_err(driver_error(&what))?;
        let function = module
            .load_function(kernel.module())
            .map_err(driver_error(&what))?;
        self.kernels.insert(key, (module.clone(), function.clone()));
        Ok((module, function))
    }

    /// Copy `words` into the `__constant__` array `name` of `module`, which must hold exactly
    /// as many words.
    pub fn write_constant(
        &self,
        module: &Arc<CudaModule>,
        name: &str,
        words: &[u32],
    ) -> Result<()> {
        let what = format!("writing the constant array {name} on {}", self.name);
        let mut symbol = module
            .get_global(name, &self.stream)
            .map_err(driver_error(&what))?;
        let bytes: &[u8] = bytemuck::cast_slice(words);
        if symbol.len() != bytes.len() {
            return Err(Error::Cuda(format!(
                "{what}: it holds {} bytes, not {}",
                symbol.len(),
                bytes.len()
            )));
        }
        self.stream
            .memcpy_htod(bytes, &mut symbol)
            .map_err(driver_error(&what))
    }

    /// The `__device__` array `name` of `module`, as 64-bit words.
    pub fn read_global(&self, module: &Arc<CudaModule>, name: &str) -> Result<Vec<u64>> {
        let what = format!("reading the device array {name} on {}", self.name);
        let symbol = module
            .get_global(name, &self.stream)
            .map_err(driver_error(&what))?;
        let bytes = self
            .stream
            .clone_dtoh(&symbol)
            .map_err(driver_error(&what))?;
        Ok(bytes
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect())
    }

    /// Streams for independent systems of `sizes`, see `engine/cuda/streams.rs`.
    pub fn system_streams(&self, sizes: SystemSizes) -> Result<SystemStreams> {
        SystemStreams::new(&self.ctx, sizes)
    }

    /// Streams for a slab's sweeps.
    pub fn slab_streams(&self) -> Result<SlabStreams> {
        SlabStreams::new(&self.ctx)
    }

    /// A stream for downloads beside the running kernels.
    pub fn read_stream(&self) -> Result<ReadStream> {
        ReadStream::new(&self.ctx)
    }

    /// An event marking the work enqueued so far on the default stream and, the other streams
    /// being blocking streams, on every stream.
    pub fn mark(&self, what: &str) -> Result<CudaEvent> {
        self.stream
            .record_event(None)
            .map_err(driver_error(format!("{what} on {}", self.name)))
    }

    /// Wait until the work `mark` marked has run; a kernel fault surfaces here, described by
    /// `what`.
    pub fn wait_for(&self, mark: &CudaEvent, what: &str) -> Result<()> {
        mark.synchronize()
            .map_err(driver_error(format!("{what} on {}", self.name)))
    }

    /// `len` elements of page-locked host memory that the host reads fast (not write-combined),
    /// for downloads at the bus's speed; its contents are undefined until a download fills them.
    pub fn pinned<T: DeviceRepr>(&self, len: usize, what: &str) -> Result<PinnedHostSlice<T>> {
        // SAFETY: cuMemHostAlloc with no flags; the memory is uninitialised, and its users read
        // only what a download has written (see `launch::Staging`).
        unsafe { self.ctx.alloc_pinned_with_flags::<T>(len.max(1), 0) }.map_err(driver_error(
            format!("allocating {len} elements of page-locked memory for the {what}"),
        ))
    }

    /// Wait for every launch so far, on every stream; a kernel fault surfaces here, described
    /// by `what`.
    pub(super) fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    pub fn synchronize(&self, what: &str) -> Result<()> {
        self.ctx
            .synchronize()
            .map_err(driver_error(format!("{what} on {}", self.name)))
    }
}

/// The device index `selector` names, checked against the `count` devices present.
fn device_index(selector: Option<&str>, count: usize) -> Result<usize> {
    if count == 0 {
        return Err(Error::Cuda("the CUDA driver found no device".into()));
    }
    let Some(selector) = selector else {
        // Ranks of an MPI job share the node's devices.
        return Ok(crate::engine::placement::local_rank() % count);
    };
    match selector.trim().parse::<usize>() {
        Ok(index) if index < count => Ok(index),
        _ => Err(Error::Cuda(format!(
            "the CUDA backend takes a device index as `adapter`, 0..{count} here, got `{selector}` \
             (`spinflip devices` lists them)"
        ))),
    }
}

fn open_device(index: usize) -> Result<CudaDevice> {
    let ctx =
        CudaContext::new(index).map_err(driver_error(format!("opening CUDA device {index}")))?;
    let query = driver_error(format!("querying CUDA device {index}"));
    let name = ctx.name().map_err(&query)?;
    let compute_capability = ctx.compute_capability().map_err(&query)?;
    let attribute = |a| ctx.attribute(a).map(|v| v.max(0) as u32).map_err(&query);
    let max_threads_per_block =
        attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?;
    let max_grid = [
        attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
        attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
        attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
    ];
    let l2_bytes = attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?.into();
    let architecture = architecture_for(compute_capability)?;
    let driver_cuda_version = driver_version()?;
    let stream = ctx.default_stream();
    Ok(CudaDevice {
        ctx,
        stream,
        name,
        compute_capability,
        architecture,
        driver_cuda_version,
        max_threads_per_block,
        max_grid,
        l2_bytes,
        kernels: HashMap::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_devices_without_a_driver_is_an_error_not_a_panic() {
        match devices() {
            Ok(_) => assert!(driver_loadable(), "devices listed without a driver"),
            Err(error) if !driver_loadable() => {
                let message = error.to_string();
                assert!(
                    message.contains("CUDA driver not found (libcuda.so)"),
                    "{message}"
                );
            }
            Err(error) => assert!(matches!(error, Error::Cuda(_)), "{error}"),
        }
    }

    #[test]
    fn opening_a_device_without_a_driver_is_an_error_not_a_panic() {
        if let Err(error) = CudaDevice::open(None) {
            assert!(matches!(error, Error::Cuda(_)), "{error}");
        }
    }

    #[test]
    fn device_indices_are_checked() {
        assert_eq!(device_index(None, 2).unwrap(), 0);
        assert_eq!(device_index(Some("1"), 2).unwrap(), 1);
        for bad in ["2", "H100", "-1"] {
            let message = device_index(Some(bad), 2).unwrap_err().to_string();
            assert!(message.contains(&format!("`{bad}`")), "{message}");
        }
        assert!(device_index(None, 0).is_err());
    }
}
