// Checkerboard Metropolis, one spin (+1/-1) per int: the twin of metropolis_simple.wgsl.
// CPU twin: src/engine/cpu/metropolis_simple.rs. Thread g of system b updates colour sites
// 4g .. 4g+3 with the four words of Philox block (word g, sweep, METROPOLIS_SIMPLE, colour, b'),
// b' the run's index of system b (global_index).

#include "dispatch.cuh"
#include "philox.cuh"
#include "lattice.cuh"
#include "slice_constants.cuh"

extern "C" __global__ void metropolis_simple(DispatchParams params, int* spins,
                                             const unsigned* thresholds) {
    // A launch covers the groups from params.first_thread on (a piece of a sweep's pass).
    const unsigned group = update_thread(params);
    const unsigned batch = layer(params);
    const unsigned per_colour = lattice_sites() / 2u;
    if (4u * group >= per_colour || !dispatched(params, group)) {
        return;
    }
    const uint4 counter =
        philox_counter(group, params.sweep, PURPOSE_METROPOLIS_SIMPLE, params.colour, global_index(batch));
    const uint4 block = philox4x32_10(counter, make_uint2(params.seed_lo, params.seed_hi));
    const unsigned randoms[4] = {block.x, block.y, block.z, block.w};
    const unsigned z = coordination();
    // System b runs at temperature b / SLICE_BLOCK (samples x replicas per temperature).
    const unsigned* table = thresholds + (batch / SLICE_BLOCK) * 2u * (z + 1u);
    // 64-bit offset: all systems together may hold more than 2^32 spins on a large device.
    int* lattice = spins + static_cast<unsigned long long>(batch) * lattice_sites();
#pragma unroll
    for (unsigned j = 0u; j < 4u; j++) {
        const unsigned ci = 4u * group + j;
        if (ci >= per_colour) {
            break;
        }
        const unsigned site = colour_site(params.colour, ci);
        const int spin = lattice[site];
        const Neighbours near = neighbours(site);
        int neighbour_sum = 0;
        for (unsigned k = 0u; k < z; k++) {
            neighbour_sum += lattice[near.site[k]];
        }
        const unsigned entry =
            (spin > 0 ? z + 1u : 0u) + static_cast<unsigned>((neighbour_sum + int(z)) / 2);
        if (randoms[j] <= table[entry]) {
            lattice[site] = -spin;
        }
    }
}
