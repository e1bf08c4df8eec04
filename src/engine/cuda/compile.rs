//! NVRTC: composed kernels to PTX for the device's architecture.
//!
//! The target is the device's own `sm_XX` where this NVRTC knows it. An older NVRTC that does not
//! know the device gets `compute_XX` of the newest architecture it knows below the device, and the
//! driver JIT-compiles that PTX for the device.
#![allow(
    unsafe_code,
    reason = "cudarc has no safe wrapper for NVRTC's list of supported architectures"
)]

use std::ffi::c_int;

use cudarc::nvrtc::{CompileError, CompileOptions, Ptx, compile_ptx_with_opts, sys};

use super::driver::guarded;
use super::shaders::{DEFINE_PREFIX, compose, defines, file_name};
use crate::engine::kernels::Kernel;
use crate::error::{Error, Result};

/// Fail clearly where NVRTC's library cannot be loaded.
pub fn require_nvrtc() -> Result<()> {
    // SAFETY: `is_culib_present` only tries `dlopen` on NVRTC's library names and closes what
    // it opened; it calls nothing inside the library.
    if unsafe { sys::is_culib_present() } {
        return Ok(());
    }
    Err(Error::Cuda(
        "NVRTC not found (libnvrtc.so or libnvrtc.so.12): the CUDA engine compiles its kernels \
         at run time; install the CUDA toolkit's NVRTC and put the folder holding libnvrtc.so \
         on LD_LIBRARY_PATH (for a toolkit that ships only libnvrtc.so.13, link libnvrtc.so to \
         it there)"
            .into(),
    ))
}

/// The architectures (`major * 10 + minor`) this NVRTC can compile for.
fn supported_architectures() -> Result<Vec<i32>> {
    guarded("asking NVRTC for its architectures", || {
        let mut count: c_int = 0;
        // SAFETY: NVRTC writes one int through the valid pointer it is given.
        unsafe { sys::nvrtcGetNumSupportedArchs(&mut count) }
            .result()
            .map_err(|e| Error::Cuda(format!("nvrtcGetNumSupportedArchs: {e:?}")))?;
        let mut archs = vec![0 as c_int; count.max(0) as usize];
        // SAFETY: `archs` holds exactly the `count` ints NVRTC said it would write.
        unsafe { sys::nvrtcGetSupportedArchs(archs.as_mut_ptr()) }
            .result()
            .map_err(|e| Error::Cuda(format!("nvrtcGetSupportedArchs: {e:?}")))?;
        Ok(archs)
    })
}

/// The `--gpu-architecture` for a device of compute capability `(major, minor)`, given the
/// architectures NVRTC supports: `sm_XX` for the device itself, else PTX (`compute_XX`) of the
/// newest supported architecture below it.
pub fn target_architecture(capability: (i32, i32), supported: &[i32]) -> Result<String> {
    let device = capability.0 * 10 + capability.1;
    if supported.contains(&device) {
        return Ok(format!("sm_{device}"));
    }
    match supported.iter().filter(|&&a| a < device).max() {
        Some(older) => Ok(format!("compute_{older}")),
        None => Err(Error::Cuda(format!(
            "this NVRTC supports architectures {supported:?}, none of them at or below the \
             device's compute capability {}.{}",
            capability.0, capability.1
        ))),
    }
}

/// The target architecture of this NVRTC for a device of compute capability `capability`.
pub fn architecture_for(capability: (i32, i32)) -> Result<String> {
    require_nvrtc()?;
    target_architecture(capability, &supported_architectures()?)
}

/// Whether the multispin update counts its draws (environment variable `SPINFLIP_COUNT_DRAWS=1`,
/// read when kernels compile): a debug build of the update that tallies word updates, lanes that
/// needed a uniform and Philox blocks drawn, logged after each plan (see
/// `MultispinCudaEngine::log_draw_counts`). The atomics slow it down; off by default.
pub fn counting_draws() -> bool {
    std::env::var_os(format!("{DEFINE_PREFIX}{COUNT_DRAWS}")).is_some_and(|v| v == "1")
}

/// The define of the update's debug build, and the environment variable that sets it (both with
/// the prefix `SPINFLIP_`).
pub(super) const COUNT_DRAWS: &str = "COUNT_DRAWS";

/// Compile `kernel` with geometry `constants` for `architecture`; a failure carries NVRTC's log,
/// whose lines name the original `shaders/cuda/` files.
pub fn compile(kernel: Kernel, constants: &[(&str, u32)], architecture: &str) -> Result<Ptx> {
    let source = compose(kernel)?;
    let mut options = vec![format!("--gpu-architecture={architecture}")];
    options.extend(defines(constants));
    if counting_draws() {
        options.push(format!("-D{DEFINE_PREFIX}{COUNT_DRAWS}=1"));
    }
    let compile_options = CompileOptions {
        name: Some(file_name(kernel)),
        options,
        ..Default::default()
    };
    guarded(&format!("compiling kernel {}", kernel.module()), || {
        compile_ptx_with_opts(&source, compile_options)
            .map_err(|e| compile_error(kernel, architecture, e))
    })
}

fn compile_error(kernel: Kernel, architecture: &str, error: CompileError) -> Error {
    let detail = match error {
        CompileError::CompileError {
            nvrtc,
            options,
            log,
        } => format!(
            "{:?} with options {options:?}:\n{}",
            nvrtc.0,
            log.to_string_lossy().trim_end()
        ),
        other => format!("{other:?}"),
    };
    Error::Cuda(format!(
        "NVRTC failed to compile kernel {} for {architecture}: {detail}",
        kernel.module()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cuda::multispin::modules::CONSTANTS as MULTISPIN_CONSTANTS;
    use crate::model::vector::fixed::clock_split;

    #[test]
    fn the_device_architecture_is_used_where_nvrtc_knows_it() {
        let supported = [75, 80, 86, 89, 90, 100, 120];
        assert_eq!(target_architecture((9, 0), &supported).unwrap(), "sm_90");
        assert_eq!(target_architecture((8, 6), &supported).unwrap(), "sm_86");
    }

    #[test]
    fn a_device_newer_than_nvrtc_gets_ptx_of_the_newest_older_architecture() {
        assert_eq!(
            target_architecture((12, 1), &[75, 80, 90, 100, 120]).unwrap(),
            "compute_120"
        );
        assert_eq!(
            target_architecture((10, 3), &[75, 80, 90, 100]).unwrap(),
            "compute_100"
        );
    }

    #[test]
    fn a_device_older_than_every_supported_architecture_is_refused() {
        let error = target_architecture((6, 1), &[75, 80]).unwrap_err();
        assert!(error.to_string().contains("6.1"), "{error}");
    }

    /// Constants for every kernel: the simple engine's, the multispin engine's, the tempering
    /// kernels' and the copy kernel's, for an Edwards-Anderson spin glass in 3D with exact
    /// (`shared` 0) or shared randoms and two threshold tables in constant (`constant` 1) or
    /// global memory, or thresholds compiled in (`fixed` 1), and tempering exchanges of kind
    /// `exchange`, and the packed tail's `packed` rotations (0: none).
    fn all_constants(
        shared: u32,
        constant: u32,
        fixed: u32,
        exchange: u32,
        packed: u32,
    ) -> Vec<(&'static str, u32)> {
        let mut constants = vec![
            ("L", 64),
            ("DIMS", 3),
            ("SLICE_BLOCK", 2),
            ("RUN_BLOCK", 6),
            ("SLICE_FIRST", 4),
            ("WOLFF", fixed),
            // No replica move, the disagreement move and the agreement move.
            ("HOUDAYER", exchange),
            ("TILE_X", 16),
            ("TILE_Y", 8),
            ("TILE_Z", 8),
            // Open x and z edges (the cluster kernels' bonds across them skipped), an
            // antiperiodic y edge (its bonds join opposite states).
            ("OPEN_AXES", 0b101),
            ("TWISTED_AXES", 0b010),
            ("HONEYCOMB", 0),
            ("KAGOME", 0),
            ("REPLICA_WORDS", 2),
            ("SAMPLE_WORDS", 1),
            ("WORDS_PER_TABLE", 2),
            ("CLASSES_LO", 0xffff_f210),
            ("CLASSES_HI", 0xff01_2fff),
            ("CLASSES_ODD_LO", 0xffff_f210),
            ("CLASSES_ODD_HI", 0xffff_012f),
            ("CLASS_COUNT", 3),
            ("SHARED_RANDOMS", shared),
            ("DISORDERED", 1),
            ("TABLE_WORDS", 192),
            ("CONSTANT_THRESHOLDS", constant),
            ("FIXED_THRESHOLDS", fixed),
            ("WORD_RUN", 4),
            ("PACK_ROTATIONS", packed),
            ("LINE_RUN", 2),
            // A slab of 20 planes from plane 20 (engine/slabs.rs).
            ("PLANES", 20),
            ("STORED_PLANES", 22),
            ("WORD_OFFSET", 20 * 64),
            ("SEED_LO", 0x5eed),
            ("SEED_HI", 0x0123_4567),
            ("COLOUR", 1),
            // The swap round's tally (four runs per thread), with and without the packed tail.
            ("TALLY_RUNS", if exchange == 1 { 4 } else { 0 }),
            ("TALLY_BLOCK", 256),
            ("PAIR_RUNS", 2),
            // The chain sets' slice in the paired update that decides a round.
            ("CHAIN_SLICE_BLOCK", 4),
            ("CHAIN_RUN_BLOCK", 8),
            ("CHAIN_SLICE_FIRST", 4),
            ("COUNT_UP", 1),
            ("STAGGERED", exchange),
            ("PACKED_OVERLAPS", packed),
            // A measurement with the satisfied bonds from a tally, and one counting them.
            ("COUNT_BONDS", u32::from(exchange != 1)),
            ("TEMPERATURES", 8),
            ("CHAIN_SETS", 64),
            ("GROUPS", if exchange == 1 { 2 } else { 64 }),
            ("CHAIN_REPLICAS", 2),
            ("EXCHANGE", exchange),
            ("SAMPLE_LANES", 1),
            ("LANE_RECORDS", 32),
            ("SLOT_RECORDS", 512),
            ("SUM_LANES", 0),
            ("SYSTEM_WORDS", 1024),
            // The copy kernel's lanes (AMSC) with the word-system exchange, whole words else.
            ("LANE_COPIES", u32::from(exchange == 1)),
            ("WARP_RUNS", 8),
            ("SLOTS", 1024),
            ("CHUNKS", 64),
            ("SYSTEMS", 4096),
            ("BOND_BINS", 8193),
            ("SITE_BINS", 4097),
            // The vector-spin kernels: Heisenberg spins, glass or ferromagnet, in a negative
            // field, with the double checkerboard's tiles of 8^3.
            ("COMPONENTS", 3),
            ("SAMPLES", 2),
            ("REPLICAS", 2),
            ("UNIFORM_COUPLINGS", fixed),
            // The Gaussian glass's fixed point where the couplings are per bond.
            ("COUPLING_BITS", 24 * (1 - fixed)),
            ("FIELD_SHIFT", 3 * (1 - fixed)),
            ("FIELD_BITS", (-(1i32 << 26)) as u32),
            ("HITS", 2),
            ("TILE", 8),
            // Unit vectors of every direction, or a 6-state clock; 3 discrete states where the
            // randoms are shared (the cluster kernels' states, else their signs).
            ("CLOCK", 6 * fixed),
            ("CLOCK_TURN", clock_split(6).0 * fixed),
            ("CLOCK_REMAINDER", clock_split(6).1 * fixed),
            ("STATES", 3 * shared),
            ("COUNTERS", 64),
            // The discrete states' kernel of two sites a thread, by the heat bath where the
            // thresholds are fixed; the Metropolis kernels' systems flat along the grid where
            // the randoms are shared.
            ("HEAT_BATH_SWEEPS", fixed),
            ("SITES_PER_THREAD", 2),
            ("FLAT_SYSTEMS", shared),
            // The bit planes' classes of the Blume-Capel model where the randoms are shared.
            ("BLUME_CAPEL", shared),
        ];
        // THRESHOLD_0.. in the engine's order: three classes, the rest unused.
        let thresholds = [0x2a3b_4c5d, 0x07f1_e2d3, 0x0123_4567];
        let names = MULTISPIN_CONSTANTS
            .iter()
            .filter(|name| name.starts_with("THRESHOLD_"));
        for (k, name) in names.enumerate() {
            constants.push((name, thresholds.get(k).copied().unwrap_or(0)));
        }
        constants
    }

    /// One case of the kernels' constants for [`compile_every_kernel`]: the architecture,
    /// [`all_constants`]'s shared, constant, fixed, exchange and packed, and the lattice's
    /// constants over its cubic lattice's.
    type KernelCase<'a> = (&'a str, u32, u32, u32, u32, u32, &'a [(&'a str, u32)]);

    /// Every kernel through the real NVRTC with the constants of each of `cases`.
    fn compile_every_kernel(cases: &[KernelCase]) {
        for &(architecture, shared, constant, fixed, exchange, packed, lattice) in cases {
            let mut constants = all_constants(shared, constant, fixed, exchange, packed);
            constants.retain(|&(name, _)| !lattice.iter().any(|&(given, _)| given == name));
            constants.extend(lattice);
            for kernel in Kernel::ALL {
                let ptx = compile(kernel, &constants, architecture)
                    .unwrap_or_else(|e| panic!("{kernel:?} {architecture}: {e}"));
                assert!(ptx.to_src().contains(kernel.module()));
            }
        }
    }

    /// Every kernel through the real NVRTC on the cubic lattice of [`all_constants`], for
    /// Hopper and an older architecture. Needs libnvrtc.so (no GPU): `cargo test --features
    /// cuda -- --ignored nvrtc`. Without a CUDA toolkit, NVIDIA's wheel has one: `pip download
    /// --no-deps nvidia-cuda-nvrtc-cu12`, unzip it, link `libnvrtc.so` to its `libnvrtc.so.12`
    /// and put that folder on LD_LIBRARY_PATH, as `.ci/run` does. The other lattices have a
    /// test of their own, so that CI's two cores compile both halves at once.
    #[test]
    #[ignore = "needs NVRTC (libnvrtc.so on LD_LIBRARY_PATH), which .ci/run brings"]
    fn every_kernel_compiles_with_nvrtc_on_the_cubic_lattice() {
        compile_every_kernel(&[
            ("sm_90", 0, 1, 0, 1, 0, &[]),
            ("compute_75", 0, 1, 0, 1, 4, &[]),
            ("sm_90", 1, 1, 0, 0, 0, &[]),
            ("sm_90", 0, 0, 0, 2, 1, &[]),
            ("sm_90", 0, 1, 1, 1, 4, &[]),
        ]);
    }

    /// Every kernel through the real NVRTC on the other lattices: the triangular lattice (2D, a
    /// size that is a multiple of 3) and the kagome lattice drawn on it; the honeycomb's brick
    /// wall; the 2D lattices with both axes open.
    #[test]
    #[ignore = "needs NVRTC (libnvrtc.so on LD_LIBRARY_PATH), which .ci/run brings"]
    fn every_kernel_compiles_with_nvrtc_on_the_other_lattices() {
        let triangular: &[(&str, u32)] = &[("L", 66), ("DIMS", 2), ("TRIANGULAR", 1)];
        let kagome: &[(&str, u32)] = &[("L", 66), ("DIMS", 2), ("TRIANGULAR", 1), ("KAGOME", 1)];
        let honeycomb: &[(&str, u32)] = &[("L", 64), ("DIMS", 2), ("HONEYCOMB", 1)];
        let open = ("OPEN_AXES", 0b11);
        let open_kagome = &[kagome, &[open]].concat();
        let open_honeycomb = &[honeycomb, &[open]].concat();
        compile_every_kernel(&[
            ("sm_90", 0, 1, 0, 1, 0, triangular),
            ("sm_90", 0, 1, 0, 1, 4, triangular),
            ("sm_90", 0, 1, 0, 1, 0, kagome),
            ("sm_90", 0, 1, 0, 1, 4, honeycomb),
            ("sm_90", 0, 1, 0, 1, 4, open_kagome),
            ("sm_90", 0, 1, 0, 1, 0, open_honeycomb),
        ]);
    }

    /// The cluster kernels through the real NVRTC with the constants the engine gives them, in
    /// 2D and 3D (their tiles differ), on lattices that the tiles divide and clip, open and
    /// antiperiodic edges, and (discrete states) on the triangular lattice's three directions and
    /// the honeycomb's gaps.
    #[test]
    #[ignore = "needs NVRTC (libnvrtc.so on LD_LIBRARY_PATH), which .ci/run brings"]
    fn cluster_kernels_compile_with_nvrtc_in_2d_and_3d() {
        use crate::config::{Boundaries, Boundary, ClusterUpdate};
        use crate::engine::clusters::{ClusterLattices, ClusterMove, kernel_constants};
        use crate::engine::cuda::clusters::TILES;
        use crate::engine::kernels::ClusterSpins;
        use crate::model::{Lattice, Shape};
        let square = Shape::Hypercubic;
        for (shape, dims, size) in [
            (square, 2, 4096),
            (square, 2, 50),
            (square, 3, 256),
            (square, 3, 12),
            (Shape::Triangular, 2, 48),
            (Shape::Honeycomb, 2, 36),
        ] {
            let sw = ClusterMove::Update(ClusterUpdate::SwendsenWang);
            let wolff = ClusterMove::Update(ClusterUpdate::Wolff);
            for (update, spins) in [
                (sw, ClusterSpins::Signs),
                (wolff, ClusterSpins::Signs),
                (sw, ClusterSpins::States),
                (wolff, ClusterSpins::States),
                (ClusterMove::Houdayer, ClusterSpins::States),
                (sw, ClusterSpins::Clock),
                (wolff, ClusterSpins::Clock),
            ] {
                let mut constants = vec![
                    ("L", size),
                    ("DIMS", dims),
                    ("SLICE_BLOCK", 1),
                    ("RUN_BLOCK", 1),
                    ("SLICE_FIRST", 0),
                ];
                let lattice = Lattice::shaped(shape, dims, size);
                match spins {
                    ClusterSpins::States => constants.extend([
                        ("STATES", 3),
                        ("REPLICAS", 4),
                        ("TRIANGULAR", u32::from(lattice.is_triangular())),
                    ]),
                    ClusterSpins::Clock => constants.extend([
                        ("COMPONENTS", 2),
                        ("CLOCK", 6),
                        ("CLOCK_TURN", 715827882),
                        ("CLOCK_REMAINDER", 4),
                        ("FIELD_SHIFT", 0),
                        ("TRIANGULAR", u32::from(lattice.is_triangular())),
                    ]),
                    ClusterSpins::Signs if shape != square => continue,
                    ClusterSpins::Signs => {}
                }
                let lattices = ClusterLattices {
                    lattice,
                    systems: 1,
                    activation: vec![1],
                    spins,
                    pair_agreement: true,
                    boundaries: Boundaries::new(&[
                        Boundary::Open,
                        Boundary::Antiperiodic,
                        Boundary::Open,
                    ]),
                };
                constants.extend(kernel_constants(update, &lattices, TILES));
                for kernel in Kernel::cluster_passes(spins) {
                    compile(kernel, &constants, "sm_90")
                        .unwrap_or_else(|e| panic!("{kernel:?} {shape:?} {dims}D L={size}: {e}"));
                }
            }
        }
    }

    #[test]
    #[ignore = "needs NVRTC (libnvrtc.so on LD_LIBRARY_PATH), which .ci/run brings"]
    fn an_nvrtc_failure_names_the_kernel_and_shows_the_log() {
        // Without the geometry defines the headers do not compile.
        let error = compile(Kernel::Observables, &[], "compute_75").unwrap_err();
        let message = error.to_string();
        assert!(message.contains("kernel observables"), "{message}");
        assert!(message.contains("SPINFLIP_L"), "{message}");
        assert!(message.contains("lattice.cuh"), "{message}");
    }
}
