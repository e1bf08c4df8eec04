//! WGSL shader composition and validation.
//!
//! Shaders are real files in `shaders/wgsl/`, embedded at build time. WGSL has no `#include`, so
//! a kernel names the modules it needs with `#import name` lines; [`compose`] inlines each module
//! once, depth first. The modules `mulhilo` and `wide` have two implementations each (64-bit
//! integer types, or 32-bit words), picked by [`MulhiloPath`]. Every composed kernel is
//! validated by naga in a test that needs no GPU.

use crate::engine::kernels::{ClusterSpins, Kernel, KernelEngine, WordLayout};
use crate::error::{Error, Result};

/// How WGSL does 64-bit integer arithmetic: Philox's 32x32->64 multiply (`mulhilo`) and the
/// fixed-point kernels' 64-bit integers (`wide`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MulhiloPath {
    /// Through `u64` and `i64` (needs the SHADER_INT64 feature).
    Int64,
    /// From 16-bit limbs and word pairs in `u32` arithmetic (every adapter).
    U32,
}

/// The binding layouts kernels share: the simple engine's (0 dispatch parameters, 1 spins,
/// 2 thresholds, 3 observations) and the multispin engine's (the same plus 4 couplings,
/// 5 overlaps); with tempering, either of them as group 0 and the tempering buffers as group 1
/// (0 swap tables, 1 state, 2 masks, 3 history); with cluster updates, the simple engine's as
/// group 0 and the cluster buffers as group 1 (0 activation thresholds, 1 bonds, 2 labels,
/// 3 counts, 4 sizes); the vector-spin kernels' (the simple engine's with acceptance tables at
/// 2 and counts at 3, plus 4 couplings, 5 proposal widths, 6 phases, 7 tempering partners),
/// and theirs as group 0 of the cluster kernels on discrete states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bindings {
    Simple,
    Multispin,
    SimpleTempering,
    MultispinTempering,
    SimpleClusters,
    Vector,
    VectorClusters,
}

/// The shared binding layout of `kernel`; `None` derives it from the shader (the kernels with
/// buffers of their own: Philox's known answers, the copies, the hot start, resampling).
pub fn bindings(kernel: Kernel) -> Option<Bindings> {
    match kernel {
        Kernel::MetropolisSimple | Kernel::Observables => Some(Bindings::Simple),
        Kernel::PhiloxKat
        | Kernel::CopySystems
        | Kernel::HotStart
        | Kernel::ResampleCount
        | Kernel::ResampleScan
        | Kernel::ResampleScatter
        | Kernel::ResampleHistogram => None,
        Kernel::VectorHotStart
        | Kernel::VectorMetropolis
        | Kernel::VectorTiles
        | Kernel::VectorOverrelaxation
        | Kernel::VectorObservables
        | Kernel::VectorOverlap
        | Kernel::VectorExchange
        | Kernel::DiscreteMetropolis
        | Kernel::DiscreteObservables
        | Kernel::DiscreteOverlap
        | Kernel::DiscretePack
        | Kernel::DiscreteUnpack
        | Kernel::DiscretePlanesMetropolis => Some(Bindings::Vector),
        Kernel::TemperingSwap(engine)
        | Kernel::TemperingExchange(engine)
        | Kernel::TemperingHistory(engine) => Some(match engine {
            KernelEngine::Simple => Bindings::SimpleTempering,
            KernelEngine::Multispin => Bindings::MultispinTempering,
        }),
        Kernel::ClusterBonds(spins)
        | Kernel::ClusterLabel(spins)
        | Kernel::ClusterMerge(spins)
        | Kernel::ClusterRoots(spins)
        | Kernel::ClusterFlip(spins) => Some(match spins {
            ClusterSpins::Signs => Bindings::SimpleClusters,
            ClusterSpins::States | ClusterSpins::Clock => Bindings::VectorClusters,
        }),
        _ => Some(Bindings::Multispin),
    }
}

/// Source of a module by name (file stem in `shaders/wgsl/`).
pub(super) fn module_source(name: &str) -> Option<&'static str> {
    macro_rules! modules {
        ($($name:literal),* $(,)?) => {
            match name {
                $($name => Some(include_str!(concat!("../../../shaders/wgsl/", $name, ".wgsl"))),)*
                _ => None,
            }
        };
    }
    modules!(
        "bitslice",
        "clock",
        "clock_bonds",
        "clock_flip",
        "cluster",
        "cluster_bonds",
        "cluster_draws",
        "cluster_flip",
        "cluster_label",
        "cluster_merge",
        "cluster_roots",
        "copy_systems",
        "counters",
        "discrete_metropolis",
        "discrete_observables",
        "discrete_overlap",
        "discrete_pack",
        "discrete_planes",
        "discrete_planes_metropolis",
        "discrete_unpack",
        "dispatch",
        "hot_start",
        "lattice",
        "metropolis_simple",
        "mulhilo_int64",
        "mulhilo_u32",
        "multispin_decide",
        "multispin_lattice",
        "multispin_layout_amsc",
        "multispin_layout_smsc",
        "multispin_metropolis",
        "multispin_observables",
        "multispin_overlap",
        "observables",
        "philox",
        "philox_kat",
        "resample",
        "resample_count",
        "resample_histogram",
        "resample_observations",
        "resample_scan",
        "resample_scatter",
        "slice",
        "tempering",
        "tempering_exchange",
        "tempering_history",
        "tempering_swap",
        "vector",
        "vector_exchange",
        "vector_hit",
        "vector_hot_start",
        "vector_metropolis",
        "vector_observables",
        "vector_overlap",
        "vector_overrelaxation",
        "vector_site",
        "vector_spins",
        "vector_sums",
        "vector_tiles",
        "wide_int64",
        "wide_u32",
    )
}

/// The composed WGSL source of a kernel.
pub fn compose(kernel: Kernel, mulhilo: MulhiloPath) -> Result<String> {
    let mut out = String::new();
    let mut included = Vec::new();
    let variant = Variant {
        mulhilo,
        words: kernel.word_layout(),
    };
    include_module(kernel.module(), variant, &mut included, &mut out)?;
    Ok(out)
}

/// What the modules with several implementations resolve to.
#[derive(Debug, Clone, Copy)]
struct Variant {
    mulhilo: MulhiloPath,
    words: WordLayout,
}

impl Variant {
    fn resolve(self, name: &str) -> &str {
        match (name, self.mulhilo, self.words) {
            ("mulhilo", MulhiloPath::Int64, _) => "mulhilo_int64",
            ("mulhilo", MulhiloPath::U32, _) => "mulhilo_u32",
            ("wide", MulhiloPath::Int64, _) => "wide_int64",
            ("wide", MulhiloPath::U32, _) => "wide_u32",
            ("multispin_layout", _, WordLayout::Amsc) => "multispin_layout_amsc",
            ("multispin_layout", _, WordLayout::Smsc) => "multispin_layout_smsc",
            _ => name,
        }
    }
}

fn include_module(
    name: &str,
    variant: Variant,
    included: &mut Vec<String>,
    out: &mut String,
) -> Result<()> {
    let resolved = variant.resolve(name);
    if included.iter().any(|m| m == resolved) {
        return Ok(());
    }
    included.push(resolved.to_string());
    let source = module_source(resolved)
        .ok_or_else(|| Error::Gpu(format!("shader module `{resolved}` does not exist")))?;
    for line in source.lines() {
        match line.trim().strip_prefix("#import ") {
            Some(import) => include_module(import.trim(), variant, included, out)?,
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Ok(())
}

/// Parse and validate composed WGSL with naga, as wgpu would; errors are shown against the
/// composed source.
pub fn validate(
    source: &str,
    mulhilo: MulhiloPath,
) -> Result<(naga::Module, naga::valid::ModuleInfo)> {
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| Error::Gpu(format!("WGSL parse error:\n{}", e.emit_to_string(source))))?;
    let mut capabilities = naga::valid::Capabilities::default();
    if mulhilo == MulhiloPath::Int64 {
        capabilities |= naga::valid::Capabilities::SHADER_INT64;
    }
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
        .validate(&module)
        .map_err(|e| {
            Error::Gpu(format!(
                "WGSL validation error:\n{}",
                e.emit_to_string(source)
            ))
        })?;
    Ok((module, info))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_composes_and_validates_on_both_mulhilo_paths() {
        for kernel in Kernel::ALL {
            for path in [MulhiloPath::Int64, MulhiloPath::U32] {
                let source = compose(kernel, path).unwrap();
                assert!(
                    !source.contains("#import"),
                    "{kernel:?} has an unresolved import"
                );
                validate(&source, path).unwrap_or_else(|e| panic!("{kernel:?} {path:?}: {e}"));
            }
        }
    }

    #[test]
    fn u32_path_needs_no_int64_capability() {
        let source = compose(Kernel::PhiloxKat, MulhiloPath::U32).unwrap();
        assert!(!source.contains("u64"));
        let int64 = compose(Kernel::PhiloxKat, MulhiloPath::Int64).unwrap();
        assert!(
            validate(&int64, MulhiloPath::U32).is_err(),
            "u64 must need SHADER_INT64"
        );
    }

    #[test]
    fn dispatch_params_offsets_match_the_rust_struct() {
        use crate::engine::dispatch::DispatchParams;
        let source = compose(Kernel::MetropolisSimple, MulhiloPath::U32).unwrap();
        let (module, _) = validate(&source, MulhiloPath::U32).unwrap();
        let (_, ty) = module
            .types
            .iter()
            .find(|(_, t)| t.name.as_deref() == Some("DispatchParams"))
            .expect("DispatchParams in the shader");
        let naga::TypeInner::Struct { members, span } = &ty.inner else {
            panic!("not a struct")
        };
        assert_eq!(*span as usize, std::mem::size_of::<DispatchParams>());
        let rust_offsets = [
            std::mem::offset_of!(DispatchParams, seed_lo),
            std::mem::offset_of!(DispatchParams, seed_hi),
            std::mem::offset_of!(DispatchParams, sweep),
            std::mem::offset_of!(DispatchParams, colour),
            std::mem::offset_of!(DispatchParams, slot),
            std::mem::offset_of!(DispatchParams, systems),
            std::mem::offset_of!(DispatchParams, first_thread),
            std::mem::offset_of!(DispatchParams, threads),
            std::mem::offset_of!(DispatchParams, first_layer),
        ];
        assert_eq!(members.len(), rust_offsets.len());
        for (member, offset) in members.iter().zip(rust_offsets) {
            assert_eq!(member.offset as usize, offset, "{:?}", member.name);
        }
    }
}
