// The reflections of a cluster update of clock spins after cluster_merge, the twin of
// clock_flip.wgsl: thread g of system z finds the roots of sites 4g .. 4g + 3 (quad_roots) and
// reflects the occupied ones whose cluster flips through the update's mirror (clock.cuh).
// Swendsen-Wang: cluster r flips iff the top bit of word r mod 4 of block (r / 4, update,
// CLUSTER_FLIP, 0, 0, b') is set; Wolff: the cluster of the seed site (w N) >> 32, w word 0 of
// block (0, update, WOLFF_SEED, 0, 0, b'). Nothing is recorded. CPU twin:
// src/engine/cpu/clock_flip.rs.

#include "clock.cuh"

// At most 32 registers: 8 blocks of the cluster passes' 256 threads (clusters::WORKGROUP_SIZE)
// on a multiprocessor at once, where the 42 registers the kernel took without the bound let 5
// run. It fits them without spilling; on an H100 the 6-state SW went from 37.3 to 36.8 ps a
// site, the 64-state from 45.4 to 44.9. cluster_flip, bound the same way, spills and was not
// faster.
extern "C" __global__ void __launch_bounds__(256, 8)
    clock_flip(DispatchParams params, int* spins, const unsigned* activation, unsigned* bonds,
               unsigned* labels, unsigned* counts, unsigned long long* sizes) {
    __shared__ ClockTable clock_table;
    const Quad quad = quad_of(params);
    const unsigned live_lanes = __ballot_sync(warp_lanes(), quad.live);
    const unsigned batch = global_index(quad.z);
    const uint4 words = wolff_block(params, batch);
    const unsigned mirror = clock_mirror(words);
    const unsigned wolff_root = WOLFF == 1u ? seed_root(labels + quad.base, words) : 0u;
    // The sites' flips first, then, where any flips, the four spins read and written in one
    // access a component (load_quad), so that the reads overlap (a read in each site's turn
    // waited for the last; clock_flip.wgsl keeps that order, which Vulkan runs faster).
    bool flips[4] = {false, false, false, false};
    if (quad.live) {
        FlipWords cache = {0xffffffffu, {0u, 0u, 0u, 0u}};
        unsigned roots[4];
        quad_roots<Walk::Settled>(labels + quad.base, quad.g, roots, live_lanes);
        for (unsigned k = 0u; k < 4u; k++) {
            flips[k] = WOLFF == 1u ? roots[k] == wolff_root
                                   : (flip_word(params, batch, roots[k], cache) >> 31u) == 1u;
        }
        // Lanes that drew a block for their root meet the others again (quad_roots).
        __syncwarp(live_lanes);
    }
    // The block fills the states' table only where one of its sites flips: Wolff's blocks off
    // the seed's cluster leave at once.
    const bool any = flips[0] || flips[1] || flips[2] || flips[3];
    if (__syncthreads_or(any) == 0) {
        return;
    }
    fill_clock_table(clock_table);
    if (!any) {
        return;
    }
    Vector quad_spins[4];
    load_quad(spins, quad.z, quad.g, quad_spins);
    for (unsigned k = 0u; k < 4u; k++) {
        const Vector spin = quad_spins[k];
        if (flips[k] && !is_empty(spin)) {
            quad_spins[k] = reflected(spin, mirror, clock_table);
        }
    }
    store_quad(spins, quad.z, quad.g, quad_spins);
}
