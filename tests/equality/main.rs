//! Bit equality of the GPU engines with the CPU engines, one test binary for every backend: each
//! test is written once, generic over the backend ([`common::backend::Gpu`]), and instantiated
//! per backend by [`backends!`] as `<module>::wgpu::<test>` and `<module>::cuda::<test>` (the
//! latter with the `cuda` feature); a test only one backend has sits beside them in that
//! backend's module, and tests of the CPU engines alone at the module's top.
//!
//! wgpu runs on the adapter wgpu finds (lavapipe in CI) and fails without one. The CUDA tests
//! SKIP, printing a notice, where the machine has no CUDA driver or device: the one place
//! spinflip's tests may skip (`cargo test --features cuda --test equality cuda::` in CI, which
//! has no NVIDIA GPU). `cargo test --test equality multispin::` runs one module, `wgpu::` one
//! backend.

#[path = "../common/mod.rs"]
mod common;

/// The tests of the enclosing module on each backend: those in `both`, generic functions of the
/// module over [`common::backend::Gpu`], as `wgpu::name` and `cuda::name`, and those of one
/// backend alone (functions of the module without parameters, the CUDA ones built with the
/// `cuda` feature only). Every CUDA test first asks [`common::backend::Gpu::present`], and skips
/// with a notice where it says no.
macro_rules! backends {
    (
        both: [$($both:ident),* $(,)?],
        wgpu: [$($wgpu:ident),* $(,)?],
        cuda: [$($cuda:ident),* $(,)?] $(,)?
    ) => {
        pub mod wgpu {
            instances!(crate::common::backend::Wgpu; [$($both),*]; [$($wgpu),*]);
        }

        #[cfg(feature = "cuda")]
        pub mod cuda {
            instances!(crate::common::backend::Cuda; [$($both),*]; [$($cuda),*]);
        }
    };
}

/// The `#[test]` functions of [`backends!`] for the backend `$gpu`.
macro_rules! instances {
    ($gpu:ty; [$($both:ident),*]; [$($own:ident),*]) => {
        use crate::common::backend::Gpu as _;
        $(
            #[test]
            fn $both() {
                if <$gpu>::present(concat!(module_path!(), "::", stringify!($both))) {
                    super::$both::<$gpu>();
                }
            }
        )*
        $(
            #[test]
            fn $own() {
                if <$gpu>::present(concat!(module_path!(), "::", stringify!($own))) {
                    super::$own();
                }
            }
        )*
    };
}

mod annealing;
mod cluster;
mod hot_start;
mod multispin;
mod philox;
mod simple;
mod slabs;
mod slices;
mod tempering;
mod vector;
