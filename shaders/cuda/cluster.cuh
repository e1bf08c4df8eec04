// What the cluster kernels share (cluster_bonds, cluster_label, cluster_roots, cluster_flip),
// the twin of cluster.wgsl. Keys and records: src/engine/clusters.rs; CPU twins:
// src/engine/cpu/cluster_*.rs. Every kernel takes the same arguments (DispatchParams by value,
// spins, activation thresholds, bonds, labels, counts, sizes), laid out as cluster.wgsl says;
// sizes are 64-bit counters added to with 64-bit atomics.

#include "dispatch.cuh"
#include "lattice.cuh"

// 1 for Wolff (one cluster, of the seed, flips), 0 for Swendsen-Wang (-DSPINFLIP_WOLFF).
constexpr unsigned WOLFF = SPINFLIP_WOLFF;
// A launch's slot where its update records nothing (engine::dispatch::NO_SLOT).
constexpr unsigned NO_SLOT = 0xffffffffu;

// The root of `site` among `labels` (one system's), halving the path on the way: each site
// passed skips to its grandparent (atomicMin: parents only decrease, and a grandparent is in the
// same cluster), so the chains that concurrent unions build along the lattice stay short.
// Volatile reads see the other threads' links; parents only decrease, so the walk ends.
__device__ __forceinline__ unsigned find_root(unsigned* labels, unsigned site) {
    const volatile unsigned* parents = labels;
    unsigned x = site;
    unsigned parent = parents[x];
    while (parent != x) {
        const unsigned grandparent = parents[parent];
        if (grandparent == parent) {
            return parent;
        }
        atomicMin(&labels[x], grandparent);
        x = grandparent;
        parent = parents[x];
    }
    return x;
}
