// The reflections of a cluster update of clock spins after cluster_merge, the twin of
// clock_flip.wgsl: thread g of system z finds the roots of sites 4g .. 4g + 3 (quad_roots) and
// reflects the occupied ones whose cluster flips through the update's mirror (clock.cuh).
// Swendsen-Wang: cluster r flips iff the top bit of word r mod 4 of block (r / 4, update,
// CLUSTER_FLIP, 0, 0, b') is set; Wolff: the cluster of the seed site (w N) >> 32, w word 0 of
// block (0, update, WOLFF_SEED, 0, 0, b'). Nothing is recorded. CPU twin:
// src/engine/cpu/clock_flip.rs.

#include "clock.cuh"

extern "C" __global__ void clock_flip(DispatchParams params, int* spins,
                                      const unsigned* activation, unsigned* bonds,
                                      unsigned* labels, unsigned* counts,
                                      unsigned long long* sizes) {
    __shared__ ClockTable clock_table;
    fill_clock_table(clock_table);
    const Quad quad = quad_of(params);
    const unsigned live_lanes = __ballot_sync(warp_lanes(), quad.live);
    const unsigned batch = global_index(quad.z);
    const uint4 words = wolff_block(params, batch);
    const unsigned mirror = clock_mirror(words);
    const unsigned wolff_root = WOLFF == 1u ? seed_root(labels + quad.base, words) : 0u;
    if (!quad.live) {
        return;
    }
    FlipWords cache = {0xffffffffu, {0u, 0u, 0u, 0u}};
    unsigned roots[4];
    quad_roots<Walk::Settled>(labels + quad.base, quad.g, roots, live_lanes);
    for (unsigned k = 0u; k < 4u; k++) {
        const unsigned site = 4u * quad.g + k;
        const unsigned root = roots[k];
        const bool flip = WOLFF == 1u ? root == wolff_root
                                      : (flip_word(params, batch, root, cache) >> 31u) == 1u;
        if (flip) {
            const Vector s = load_spin(spins, quad.z, site);
            if (!is_empty(s)) {
                store_spin(spins, quad.z, site, reflected(s, mirror, clock_table));
            }
        }
        // Lanes that reflected a spin meet the others again (quad_roots).
        __syncwarp(live_lanes);
    }
}
