// After cluster_merge, where a Swendsen-Wang update records, the twin of cluster_roots.wgsl:
// thread g of system z points sites 4g .. 4g + 3 at their roots and counts them
// (magnetisation_weight) into their roots' counts, one atomic per run of equal roots; sites of a
// run of equal parents (mostly one tile root) share one walk. CPU twin:
// src/engine/cpu/cluster_roots.rs.

#include "cluster.cuh"

extern "C" __global__ void cluster_roots(DispatchParams params, const int* spins,
                                         const unsigned* activation, unsigned* bonds,
                                         unsigned* labels, unsigned* counts,
                                         unsigned long long* sizes) {
    const Quad quad = quad_of(params);
    const unsigned live_lanes = __ballot_sync(warp_lanes(), quad.live);
    if (!quad.live) {
        return;
    }
    unsigned* system = labels + quad.base;
    unsigned* system_counts = counts + quad.base;
    unsigned roots[4];
    quad_roots<Walk::Halving>(system, quad.g, roots, live_lanes);
    unsigned run_root = 0xffffffffu;
    unsigned run = 0u;
    for (unsigned k = 0u; k < 4u; k++) {
        const unsigned root = roots[k];
        atomicExch(&system[4u * quad.g + k], root);
        if (root != run_root && run != 0u) {
            atomicAdd(&system_counts[run_root], run);
            run = 0u;
        }
        run_root = root;
        run += magnetisation_weight(spins[quad.base + 4u * quad.g + k]);
    }
    if (run != 0u) {
        atomicAdd(&system_counts[run_root], run);
    }
}
