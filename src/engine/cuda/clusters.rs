//! Cluster updates on a CUDA device, for the simple engine ([`crate::engine::clusters`]): kernels
//! `cluster_bonds`, `cluster_label`, `cluster_roots` and `cluster_flip`, the twins of the WGSL
//! ones (see `engine::wgpu::clusters`), one after the other on the engine's stream for each
//! update, over every system (the grid's z).
#![allow(
    unsafe_code,
    reason = "kernel launches and passing DispatchParams by value are unsafe in cudarc"
)]

use cudarc::driver::{CudaFunction, CudaSlice, PushKernelArg};

use super::context::CudaDevice;
use super::driver::driver_error;
use super::launch::{allocate, clear, download, launch_config, upload};
use crate::config::ClusterUpdate;
use crate::engine::clusters::cluster_passes;
use crate::engine::dispatch::DispatchParams;
use crate::engine::kernels::Kernel;
use crate::error::Result;
use crate::model::ising::IsingSystems;

/// The constant that makes the kernels Wolff's (1) or Swendsen-Wang's (0), as `SPINFLIP_WOLFF`.
pub(super) const WOLFF: &str = "WOLFF";

/// The cluster buffers and kernels of the simple CUDA engine.
pub struct CudaClusters {
    block_size: u32,
    /// Threads per system of every pass (one per four sites), and the systems.
    threads: u64,
    systems: u32,
    activation: CudaSlice<u32>,
    bonds: CudaSlice<u32>,
    labels: CudaSlice<u32>,
    counts: CudaSlice<u32>,
    /// `[slot][system]`, grown to the largest plan seen.
    sizes: CudaSlice<u64>,
    /// The passes of one update, in order: bonds, label, roots, flip.
    passes: [(Kernel, CudaFunction); 4],
    update: ClusterUpdate,
}

impl CudaClusters {
    /// Buffers for the lattices of `systems` and the kernels of `update`, compiled with the
    /// simple engine's `constants`.
    pub fn new(
        device: &mut CudaDevice,
        systems: &IsingSystems,
        update: ClusterUpdate,
        constants: &[(&'static str, u32)],
        block_size: u32,
    ) -> Result<Self> {
        let mut constants = constants.to_vec();
        constants.push((WOLFF, u32::from(update == ClusterUpdate::Wolff)));
        let mut pass = |kernel| -> Result<(Kernel, CudaFunction)> {
            Ok((kernel, device.function(kernel, &constants)?))
        };
        let passes = [
            pass(Kernel::ClusterBonds)?,
            pass(Kernel::ClusterLabel)?,
            pass(Kernel::ClusterRoots)?,
            pass(Kernel::ClusterFlip)?,
        ];
        let sites = systems.spin_count();
        let activation = systems.activation_thresholds();
        Ok(CudaClusters {
            block_size,
            threads: systems.lattice.sites() / 4,
            systems: systems.systems(),
            activation: upload(device, &activation, "activation thresholds")?,
            bonds: allocate(device, sites / 4, "bonds")?,
            labels: allocate(device, sites, "cluster labels")?,
            counts: allocate(device, sites, "cluster counts")?,
            sizes: allocate(device, systems.systems() as usize, "cluster sizes")?,
            passes,
            update,
        })
    }

    /// Zeroed sizes with room for `slots` slots of `systems` systems.
    pub fn prepare_sizes(&mut self, device: &CudaDevice, slots: u32, systems: u32) -> Result<()> {
        let needed = slots as usize * systems as usize;
        if self.sizes.len() < needed {
            self.sizes = allocate(device, needed, "cluster sizes")?;
        }
        clear(device, &mut self.sizes, "cluster sizes")
    }

    /// Enqueue the passes of the update of `params` (its number in `sweep`) on `spins`
    /// ([`cluster_passes`]).
    pub fn launch(
        &mut self,
        device: &CudaDevice,
        params: &DispatchParams,
        spins: &mut CudaSlice<i32>,
    ) -> Result<()> {
        let config = launch_config(device, self.block_size, self.threads, self.systems);
        let passes = cluster_passes(self.update, params);
        for ((kernel, function), _) in self.passes.iter().zip(passes).filter(|(_, on)| *on) {
            let mut launch = device.stream.launch_builder(function);
            launch
                .arg(params)
                .arg(&mut *spins)
                .arg(&self.activation)
                .arg(&mut self.bonds)
                .arg(&mut self.labels)
                .arg(&mut self.counts)
                .arg(&mut self.sizes);
            // SAFETY: the arguments match every cluster kernel's parameters in order and type
            // (shaders/cuda/cluster.cuh): DispatchParams by value, `int` spins, `unsigned`
            // activation thresholds, bonds, labels and counts, `unsigned long long` sizes. The
            // kernels stay in bounds: threads past the last four sites return, the buffers hold
            // a word per site (the bonds one per four) of every system, a threshold per
            // temperature, and `prepare_sizes` sized the sizes for this plan's slots.
            unsafe { launch.launch(config) }.map_err(driver_error(format!(
                "launching kernel {}",
                kernel.module()
            )))?;
        }
        Ok(())
    }

    /// The sizes of the first `slots` slots, `[slot][system]`.
    pub fn read_sizes(&self, device: &CudaDevice, slots: u32, systems: u32) -> Result<Vec<u64>> {
        let mut sizes = download(device, &self.sizes, "cluster sizes")?;
        sizes.truncate(slots as usize * systems as usize);
        Ok(sizes)
    }
}
