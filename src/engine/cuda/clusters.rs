//! Cluster updates on a CUDA device, for the simple engine and the vector engine's discrete
//! states ([`crate::engine::clusters`]): kernels
//! `cluster_bonds`, `cluster_label`, `cluster_merge`, `cluster_roots` and `cluster_flip`, the
//! twins of the WGSL ones (see `engine::wgpu::clusters`), one after the other on the engine's
//! stream for each update, over every system (the grid's z).
#![allow(
    unsafe_code,
    reason = "kernel launches and passing DispatchParams by value are unsafe in cudarc"
)]

use cudarc::driver::{CudaSlice, PushKernelArg};

use super::context::CudaDevice;
use super::launch::{
    FittedKernel, allocate, clear, download, launch_config, launch_kernel, launch_layers, upload,
};
use crate::engine::clusters::{
    ClusterLattices, ClusterMove, KERNEL_CONSTANTS, LabelTiles, WORKGROUP_SIZE, cluster_passes,
    kernel_constants, pass_threads, record_slots,
};
use crate::engine::dispatch::DispatchParams;
use crate::engine::kernels::Kernel;
use crate::error::Result;

/// `cluster_label`'s largest tiles on CUDA: 2048 sites, whose fewer bonds between tiles left to
/// `cluster_merge` outweigh the longer unions in shared memory (H100, ps a site against tiles
/// of 1024, 32 x 32 and 16 x 8 x 8: Swendsen-Wang 2D 4096^2 25.8 against 26.6, triangular
/// 35.3 against 36.2, 3D 256^3 33.7 against 35.2).
pub const TILES: LabelTiles = LabelTiles {
    plane: [32, 64, 1],
    space: [32, 8, 8],
};

/// The cluster buffers and kernels of a CUDA engine.
pub struct CudaClusters {
    /// Threads per system of each pass ([`pass_threads`] at its block size), and the systems.
    threads: [u64; 5],
    systems: u32,
    activation: CudaSlice<u32>,
    bonds: CudaSlice<u32>,
    labels: CudaSlice<u32>,
    counts: CudaSlice<u32>,
    /// `[slot][system]`, grown to the largest plan seen.
    sizes: CudaSlice<u64>,
    /// The passes of one update, in order: bonds, label, merge, roots, flip, each with its block
    /// size.
    passes: [(Kernel, FittedKernel); 5],
    update: ClusterMove,
}

impl CudaClusters {
    /// Buffers for `lattices` and the kernels of `update`, compiled with their engine's
    /// `constants`, in blocks of [`WORKGROUP_SIZE`] (or the most threads a kernel's registers
    /// allow; their results do not depend on it).
    pub fn new(
        device: &mut CudaDevice,
        lattices: &ClusterLattices,
        update: ClusterMove,
        constants: &[(&'static str, u32)],
    ) -> Result<Self> {
        let mut constants = constants.to_vec();
        // The engine's HONEYCOMB is the same as the clusters'.
        constants.retain(|(name, _)| !KERNEL_CONSTANTS.contains(name));
        constants.extend(kernel_constants(update, lattices, TILES));
        let mut passes = Vec::with_capacity(5);
        for kernel in Kernel::cluster_passes(lattices.spins) {
            let function = device.function(kernel, &constants)?;
            passes.push((kernel, FittedKernel::new(function, WORKGROUP_SIZE)?));
        }
        let passes: [(Kernel, FittedKernel); 5] = passes.try_into().ok().expect("five passes");
        let sites = lattices.sites() as usize;
        let threads = std::array::from_fn(|i| {
            pass_threads(&lattices.lattice, TILES, passes[i].1.block_size)[i]
        });
        Ok(CudaClusters {
            threads,
            systems: lattices.systems,
            activation: upload(device, &lattices.activation, "activation thresholds")?,
            bonds: allocate(device, sites / 4, "bonds")?,
            labels: allocate(device, sites, "cluster labels")?,
            counts: allocate(device, sites, "cluster counts")?,
            // Room for Houdayer's record (two words a pair); a plan's slots grow it.
            sizes: allocate(device, 2 * lattices.systems as usize, "cluster sizes")?,
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
        let passes = cluster_passes(self.update, params);
        let launches = self.passes.iter().zip(self.threads).zip(passes);
        for (((kernel, fitted), threads), _) in launches.filter(|(_, on)| *on) {
            let config = launch_config(device, fitted.block_size, threads, self.systems);
            launch_layers(device, (params, config), |params, config| {
                let mut launch = device.stream.launch_builder(&fitted.function);
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
                // temperature, and `prepare_sizes` sized the sizes for this plan's slots;
                // `cluster_label`'s blocks past the last tile return and its tiles' sites past the
                // lattice's edge are skipped, and `cluster_merge`'s threads past the faces return;
                // each piece's layers (from params.first_layer) are systems or pairs it holds.
                unsafe { launch_kernel(&mut launch, config, *kernel) }
            })?;
        }
        Ok(())
    }

    /// The vector engine's record since the last call ([`record_slots`]), read and zeroed.
    pub fn take_record(&mut self, device: &CudaDevice) -> Result<Vec<u64>> {
        let record = self.read_sizes(device, record_slots(self.update), self.systems)?;
        clear(device, &mut self.sizes, "cluster sizes")?;
        Ok(record)
    }

    /// The sizes of the first `slots` slots, `[slot][system]`.
    pub fn read_sizes(&self, device: &CudaDevice, slots: u32, systems: u32) -> Result<Vec<u64>> {
        let mut sizes = download(device, &self.sizes, "cluster sizes")?;
        sizes.truncate(slots as usize * systems as usize);
        Ok(sizes)
    }
}
