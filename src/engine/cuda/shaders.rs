//! CUDA C kernel composition.
//!
//! Kernels are real files in `shaders/cuda/`, one per WGSL twin, embedded at build time. A kernel
//! names the headers it needs with `#include "name.cuh"` lines; [`compose`] inlines each header
//! once, depth first (as `engine::wgpu::shaders` does for WGSL `#import`s), so NVRTC needs no file
//! system. `#line` directives keep NVRTC's messages pointing at the original file and line.
//! `#include "multispin_layout.cuh"` resolves to the header of the kernel's word layout
//! (`multispin_layout_amsc.cuh` or `multispin_layout_smsc.cuh`), as WGSL's `multispin_layout`.
//! Geometry constants are preprocessor defines ([`defines`]) that the headers turn into
//! `constexpr` values, so the compiler folds them like WGSL override constants.

use crate::engine::kernels::{Kernel, WordLayout};
use crate::error::{Error, Result};

/// Prefix of the defines that carry the geometry constants (`L` becomes `SPINFLIP_L`): a bare
/// `-DL=64` would rewrite every identifier `L` in the source.
pub const DEFINE_PREFIX: &str = "SPINFLIP_";

/// Source of a file in `shaders/cuda/` by name.
fn file_source(name: &str) -> Option<&'static str> {
    macro_rules! files {
        ($($name:literal),* $(,)?) => {
            match name {
                $($name => Some(include_str!(concat!("../../../shaders/cuda/", $name))),)*
                _ => None,
            }
        };
    }
    files!(
        "bitslice.cuh",
        "clock.cuh",
        "clock_bonds.cu",
        "clock_flip.cu",
        "cluster.cuh",
        "cluster_bonds.cu",
        "cluster_draws.cuh",
        "cluster_flip.cu",
        "cluster_label.cu",
        "cluster_merge.cu",
        "cluster_roots.cu",
        "copy_systems.cu",
        "discrete_metropolis.cu",
        "discrete_observables.cu",
        "discrete_overlap.cu",
        "discrete_pack.cu",
        "discrete_planes.cuh",
        "discrete_planes_metropolis.cu",
        "discrete_unpack.cu",
        "dispatch.cuh",
        "hot_start.cu",
        "lattice.cuh",
        "metropolis_simple.cu",
        "multispin_decide.cuh",
        "multispin_lattice.cuh",
        "multispin_layout_amsc.cuh",
        "multispin_layout_smsc.cuh",
        "multispin_metropolis.cu",
        "multispin_observables.cu",
        "multispin_overlap.cu",
        "observables.cu",
        "philox.cuh",
        "philox_kat.cu",
        "resample.cuh",
        "resample_count.cu",
        "resample_histogram.cu",
        "resample_observations.cuh",
        "resample_scan.cu",
        "resample_scatter.cu",
        "slice.cuh",
        "slice_constants.cuh",
        "tempering.cuh",
        "tempering_decide.cuh",
        "tempering_exchange.cu",
        "tempering_history.cu",
        "tempering_swap.cu",
        "vector.cuh",
        "vector_exchange.cu",
        "vector_hit.cuh",
        "vector_hot_start.cu",
        "vector_metropolis.cu",
        "vector_observables.cu",
        "vector_overlap.cu",
        "vector_overrelaxation.cu",
        "vector_site.cuh",
        "vector_spins.cuh",
        "vector_sums.cuh",
        "vector_tiles.cu",
    )
}

/// The file of a kernel: the WGSL module's name with `.cu`.
pub fn file_name(kernel: Kernel) -> String {
    format!("{}.cu", kernel.module())
}

/// The composed CUDA C source of a kernel; its entry point is `extern "C"` and named
/// `kernel.module()`.
pub fn compose(kernel: Kernel) -> Result<String> {
    let mut out = String::new();
    let mut included = Vec::new();
    let words = kernel.word_layout();
    include_file(&file_name(kernel), words, &mut included, &mut out)?;
    Ok(out)
}

/// The file an `#include` of `name` opens in a kernel of word layout `words`.
fn resolved(name: &str, words: WordLayout) -> &str {
    match (name, words) {
        ("multispin_layout.cuh", WordLayout::Amsc) => "multispin_layout_amsc.cuh",
        ("multispin_layout.cuh", WordLayout::Smsc) => "multispin_layout_smsc.cuh",
        _ => name,
    }
}

fn include_file(
    name: &str,
    words: WordLayout,
    included: &mut Vec<String>,
    out: &mut String,
) -> Result<()> {
    let name = resolved(name, words);
    if included.iter().any(|f| f == name) {
        return Ok(());
    }
    included.push(name.to_string());
    let source = file_source(name)
        .ok_or_else(|| Error::Cuda(format!("CUDA source file `{name}` does not exist")))?;
    out.push_str(&format!("#line 1 \"{name}\"\n"));
    for (index, line) in source.lines().enumerate() {
        match included_name(line) {
            Some(header) => {
                include_file(header, words, included, out)?;
                out.push_str(&format!("#line {} \"{name}\"\n", index + 2));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Ok(())
}

/// `name` of an `#include "name"` line.
fn included_name(line: &str) -> Option<&str> {
    line.trim()
        .strip_prefix("#include")?
        .trim()
        .strip_prefix('"')?
        .strip_suffix('"')
}

/// NVRTC options defining the geometry `constants` (`("L", 64)` gives `-DSPINFLIP_L=64u`).
pub fn defines(constants: &[(&str, u32)]) -> Vec<String> {
    constants
        .iter()
        .map(|(name, value)| format!("-D{DEFINE_PREFIX}{name}={value}u"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `SPINFLIP_*` names a composed source uses.
    fn used_defines(source: &str) -> Vec<&str> {
        let mut names: Vec<&str> = source
            .match_indices(DEFINE_PREFIX)
            .map(|(at, _)| {
                let rest = &source[at + DEFINE_PREFIX.len()..];
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                &rest[..end]
            })
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    #[test]
    fn every_kernel_composes_with_no_unresolved_include() {
        for kernel in Kernel::ALL {
            let source = compose(kernel).unwrap();
            assert!(
                !source.lines().any(|l| l.trim().starts_with("#include")),
                "{kernel:?} has an unresolved include"
            );
            assert!(
                entry_points(&source).contains(&kernel.module()),
                "{kernel:?} lacks `extern \"C\" __global__ void {}(`",
                kernel.module()
            );
        }
    }

    /// The names of the `extern "C"` kernels of `source`, past a `__launch_bounds__(...)`.
    fn entry_points(source: &str) -> Vec<&str> {
        source
            .split("extern \"C\" __global__ void ")
            .skip(1)
            .filter_map(|rest| {
                let rest = match rest.strip_prefix("__launch_bounds__(") {
                    Some(bounds) => bounds.split_once(')')?.1.trim_start(),
                    None => rest,
                };
                rest.split_once('(').map(|(name, _)| name)
            })
            .collect()
    }

    #[test]
    fn each_header_is_included_once() {
        let source = compose(Kernel::MetropolisSimple).unwrap();
        for header in ["dispatch.cuh", "philox.cuh", "lattice.cuh"] {
            let opened = format!("#line 1 \"{header}\"");
            assert_eq!(source.matches(&opened).count(), 1, "{header}");
        }
    }

    #[test]
    fn multispin_kernels_include_the_header_of_their_word_layout() {
        for kernel in Kernel::ALL {
            let source = compose(kernel).unwrap();
            let opened = |header: &str| source.contains(&format!("#line 1 \"{header}\""));
            let (own, other) = match kernel.word_layout() {
                WordLayout::Amsc => ("multispin_layout_amsc.cuh", "multispin_layout_smsc.cuh"),
                WordLayout::Smsc => ("multispin_layout_smsc.cuh", "multispin_layout_amsc.cuh"),
            };
            let multispin = kernel.module().starts_with("multispin");
            assert_eq!(opened(own), multispin, "{kernel:?} and {own}");
            assert!(!opened(other), "{kernel:?} includes {other}");
        }
    }

    #[test]
    fn kernels_use_only_the_constants_the_engine_defines() {
        for kernel in Kernel::ALL {
            let source = compose(kernel).unwrap();
            for name in used_defines(&source) {
                let defined = super::super::simple::CONSTANTS.contains(&name)
                    || super::super::multispin::modules::CONSTANTS.contains(&name)
                    || super::super::copy_systems::CONSTANTS.contains(&name)
                    || super::super::resampling::CONSTANTS.contains(&name)
                    || name == super::super::multispin::modules::COLOUR
                    || name == super::super::multispin::modules::TALLY_BLOCK
                    || name == super::super::multispin::modules::COUNT_BONDS
                    || name == super::super::multispin::modules::PAIR_RUNS
                    || name == crate::engine::multispin::TALLY_RUNS
                    || name == crate::engine::multispin::COUNT_UP
                    || name == crate::engine::multispin::STAGGERED
                    || name == crate::engine::multispin::PACKED_OVERLAPS
                    || name == super::super::compile::COUNT_DRAWS
                    || crate::engine::clusters::KERNEL_CONSTANTS.contains(&name)
                    || crate::engine::tempering::KERNEL_CONSTANTS.contains(&name)
                    || crate::engine::tempering::CHAIN_SLICE_CONSTANTS.contains(&name)
                    || crate::engine::vector_gpu::KERNEL_CONSTANTS.contains(&name);
                assert!(
                    defined,
                    "{kernel:?} uses {DEFINE_PREFIX}{name}, which no engine defines"
                );
            }
        }
    }

    #[test]
    fn line_directives_return_to_the_including_file() {
        let source = compose(Kernel::Observables).unwrap();
        let original = file_source("observables.cu").unwrap();
        let first_include = original
            .lines()
            .position(|l| included_name(l).is_some())
            .unwrap();
        assert!(source.contains(&format!("#line {} \"observables.cu\"", first_include + 2)));
    }

    #[test]
    fn defines_are_prefixed_unsigned_literals() {
        assert_eq!(
            defines(&[("L", 64), ("DIMS", 3)]),
            ["-DSPINFLIP_L=64u", "-DSPINFLIP_DIMS=3u"]
        );
    }

    #[test]
    fn a_missing_file_is_an_error() {
        let mut out = String::new();
        let error =
            include_file("absent.cuh", WordLayout::Amsc, &mut Vec::new(), &mut out).unwrap_err();
        assert!(error.to_string().contains("absent.cuh"), "{error}");
    }
}
