//! The simple CUDA engine: one spin per `int`, kernels `metropolis_simple` and `observables`,
//! the twin of `engine::gpu::SimpleGpuEngine` with the same data layout.
//!
//! Layout: `spins[b N + site]` for system `b` (temperature-major, then replica) and site in
//! natural order; `thresholds[t][spin_up][(n + z) / 2]` from `IsingSystems::thresholds`;
//! `observations[slot][b]` as two 64-bit counters (up, satisfied). Each launch takes its
//! `DispatchParams` by value, so a plan needs no parameter buffer.
#![allow(
    unsafe_code,
    reason = "kernel launches and passing DispatchParams by value are unsafe in cudarc"
)]

use cudarc::driver::{
    CudaFunction, CudaSlice, DeviceRepr, LaunchConfig, PushKernelArg, ValidAsZeroBits,
};

use super::context::{CudaDevice, driver_error};
use crate::engine::gpu::plan::{Dispatch, DispatchParams, submissions};
use crate::engine::gpu::shaders::Kernel;
use crate::engine::{Engine, EngineInfo, Measurements, Observation, Plan, check_spin_count};
use crate::error::{Error, Result};
use crate::model::ising::IsingSystems;

/// Launches between synchronisations: waiting after each bounded batch surfaces a kernel fault
/// near its cause and keeps the queue short.
const MAX_LAUNCHES: usize = 1024;
/// Site updates between synchronisations.
const FLIP_BUDGET: u64 = 1 << 27;
/// Sites each thread of the observables kernel visits (bounds the block's 32-bit sums).
const SITES_PER_OBSERVER: u64 = 16;

/// Names of the geometry constants the kernels are compiled with (as `SPINFLIP_<name>`).
pub(super) const CONSTANTS: [&str; 3] = ["L", "DIMS", "REPLICAS"];

// SAFETY: `DispatchParams` is `#[repr(C)]` and `Pod`: eight `u32`s with no padding, laid out
// exactly as `struct DispatchParams` in shaders/cuda/dispatch.cuh, so its bytes are a valid
// kernel argument.
unsafe impl DeviceRepr for DispatchParams {}

/// The simple Ising engine on a CUDA device.
pub struct SimpleCudaEngine {
    device: CudaDevice,
    systems: IsingSystems,
    block_size: u32,
    spins: CudaSlice<i32>,
    thresholds: CudaSlice<u32>,
    sweep_kernel: CudaFunction,
    observe_kernel: CudaFunction,
    /// Two counters per slot and system; grown to the largest plan seen.
    observations: CudaSlice<u64>,
}

/// The geometry constants of `systems`, in the order of [`CONSTANTS`].
fn constants(systems: &IsingSystems) -> [(&'static str, u32); 3] {
    let [size, dims, replicas] = CONSTANTS;
    [
        (size, systems.lattice.size),
        (dims, systems.lattice.dims),
        (replicas, systems.replicas),
    ]
}

impl SimpleCudaEngine {
    /// Allocate `systems` on `device` (lattices zeroed until [`Engine::set_spins`]) with
    /// `block_size` threads per block; fails clearly where they exceed the device.
    pub fn new(mut device: CudaDevice, systems: IsingSystems, block_size: u32) -> Result<Self> {
        check_fits(&device, &systems, block_size)?;
        let constants = constants(&systems);
        let sweep_kernel = device.function(Kernel::MetropolisSimple, &constants)?;
        let observe_kernel = device.function(Kernel::Observables, &constants)?;
        let spins = allocate(&device, systems.spin_count(), "spins")?;
        let table = systems.thresholds();
        let thresholds = device
            .stream
            .clone_htod(&table)
            .map_err(driver_error("uploading the thresholds"))?;
        let observations = allocate(&device, 2 * systems.systems() as usize, "observations")?;
        device.synchronize("allocating the lattices")?;
        Ok(SimpleCudaEngine {
            device,
            systems,
            block_size,
            spins,
            thresholds,
            sweep_kernel,
            observe_kernel,
            observations,
        })
    }

    /// Zeroed observation counters for `slots` slots.
    fn clear_observations(&mut self, slots: u32) -> Result<()> {
        let needed = 2 * slots as usize * self.systems.systems() as usize;
        if self.observations.len() < needed {
            self.observations = allocate(&self.device, needed, "observations")?;
        }
        self.device
            .stream
            .memset_zeros(&mut self.observations)
            .map_err(driver_error("clearing the observations"))
    }

    /// Grid of blocks covering `threads` threads per system: x up to the device's limit,
    /// spilling into y; z is the system.
    fn launch_config(&self, threads: u64) -> LaunchConfig {
        let blocks = threads.div_ceil(u64::from(self.block_size)).max(1);
        let x = blocks.min(u64::from(self.device.max_grid[0]));
        LaunchConfig {
            grid_dim: (x as u32, blocks.div_ceil(x) as u32, self.systems.systems()),
            block_dim: (self.block_size, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    fn launch(&mut self, dispatch: &Dispatch) -> Result<()> {
        let params = *dispatch.params();
        let lattice = self.systems.lattice;
        let stream = &self.device.stream;
        let (kernel, config, mut launch) = match dispatch {
            Dispatch::Sweep(_) => {
                let config = self.launch_config(lattice.sites_per_colour().div_ceil(4));
                let mut launch = stream.launch_builder(&self.sweep_kernel);
                launch
                    .arg(&params)
                    .arg(&mut self.spins)
                    .arg(&self.thresholds);
                (Kernel::MetropolisSimple, config, launch)
            }
            Dispatch::Measure(_) => {
                let config = self.launch_config(lattice.sites().div_ceil(SITES_PER_OBSERVER));
                let mut launch = stream.launch_builder(&self.observe_kernel);
                launch
                    .arg(&params)
                    .arg(&self.spins)
                    .arg(&mut self.observations);
                (Kernel::Observables, config, launch)
            }
        };
        // SAFETY: the arguments match the kernel's parameters in order and type
        // (shaders/cuda/<kernel>.cu): DispatchParams by value, then device pointers to `int`
        // spins, `unsigned` thresholds or `unsigned long long` observations. The kernels stay
        // in bounds: threads past the last site return, every system's lattice holds
        // `lattice.sites()` spins, the threshold table has a row per temperature, and the
        // observation buffer was sized for this plan's slots by `clear_observations`.
        unsafe { launch.launch(config) }.map_err(driver_error(format!(
            "launching kernel {}",
            kernel.module()
        )))?;
        Ok(())
    }

    fn download_observations(&self, slots: u32) -> Result<Vec<Observation>> {
        let words = 2 * slots as usize * self.systems.systems() as usize;
        let counters = self
            .device
            .stream
            .clone_dtoh(&self.observations.slice(..words))
            .map_err(driver_error("downloading the observations"))?;
        self.device.synchronize("downloading the observations")?;
        Ok(counters
            .chunks_exact(2)
            .map(|c| Observation {
                up: c[0],
                satisfied: c[1],
            })
            .collect())
    }
}

impl Engine for SimpleCudaEngine {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            backend: "cuda".into(),
            engine: "simple".into(),
            adapter: self.device.description(),
        }
    }

    fn set_spins(&mut self, spins: &[i32]) -> Result<()> {
        check_spin_count(&self.systems, spins)?;
        self.device
            .stream
            .memcpy_htod(spins, &mut self.spins)
            .map_err(driver_error("uploading the lattices"))?;
        self.device.synchronize("uploading the lattices")
    }

    fn spins(&mut self) -> Result<Vec<i32>> {
        let spins = self
            .device
            .stream
            .clone_dtoh(&self.spins)
            .map_err(driver_error("downloading the lattices"))?;
        self.device.synchronize("downloading the lattices")?;
        Ok(spins)
    }

    fn execute(&mut self, plan: &Plan) -> Result<Measurements> {
        self.clear_observations(plan.slots)?;
        let flips_per_sweep = self.systems.lattice.sites() * u64::from(self.systems.systems());
        let sweeps_per_batch = (FLIP_BUDGET / flips_per_sweep).max(1);
        let (seed, systems) = (self.systems.seed, self.systems.systems());
        for batch in submissions(plan, seed, systems, MAX_LAUNCHES, sweeps_per_batch) {
            for dispatch in &batch {
                self.launch(dispatch)?;
            }
            self.device.synchronize("running the sweep kernels")?;
        }
        if plan.slots == 0 {
            return Ok(Measurements::default());
        }
        Ok(Measurements {
            observations: self.download_observations(plan.slots)?,
            overlap_planes: Vec::new(),
        })
    }
}

/// A zeroed device buffer of `len` elements; running out of device memory names the buffer and
/// its size.
fn allocate<T: DeviceRepr + ValidAsZeroBits>(
    device: &CudaDevice,
    len: usize,
    what: &str,
) -> Result<CudaSlice<T>> {
    let bytes = len.max(1) * std::mem::size_of::<T>();
    device
        .stream
        .alloc_zeros(len.max(1))
        .map_err(driver_error(format!(
            "allocating {bytes} bytes of {what} on {}",
            device.name
        )))
}

/// Refuse systems and block sizes beyond the device's grid and block limits.
fn check_fits(device: &CudaDevice, systems: &IsingSystems, block_size: u32) -> Result<()> {
    if block_size > device.max_threads_per_block {
        return Err(Error::Limits(format!(
            "workgroup_size {block_size} exceeds the {} threads per block of {}",
            device.max_threads_per_block, device.name
        )));
    }
    if systems.systems() > device.max_grid[2] {
        return Err(Error::Limits(format!(
            "{} systems exceed the grid's z limit of {} on {}",
            systems.systems(),
            device.max_grid[2],
            device.name
        )));
    }
    Ok(())
}
