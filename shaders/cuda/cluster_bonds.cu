// A cluster update's bonds, the twin of cluster_bonds.wgsl: thread g of system z draws the D
// Philox blocks (g D + j, update, CLUSTER_BOND, 0, 0, b') of the 4 D forward bonds of sites
// 4g .. 4g + 3 and writes their active bonds (equal spins, not empty) as bonds[g]; it clears those sites' counts when
// the update records (cluster_label writes every site's label whole). CPU twin:
// src/engine/cpu/cluster_bonds.rs.

#include "cluster.cuh"
#include "philox.cuh"
#include "slice_constants.cuh"

extern "C" __global__ void cluster_bonds(DispatchParams params, const int* spins,
                                         const unsigned* activation, unsigned* bonds,
                                         unsigned* labels, unsigned* counts,
                                         unsigned long long* sizes) {
    const Quad quad = quad_of();
    if (!quad.live) {
        return;
    }
    const int* lattice = spins + quad.base;
    const unsigned threshold = activation[quad.z / SLICE_BLOCK];
    const uint2 key = make_uint2(params.seed_lo, params.seed_hi);
    const unsigned batch = global_index(quad.z);
    unsigned word = 0u;
    for (unsigned j = 0u; j < DIMS; j++) {
        const uint4 block = philox4x32_10(
            philox_counter(quad.g * DIMS + j, params.sweep, PURPOSE_CLUSTER_BOND, 0u, batch), key);
        const unsigned randoms[4] = {block.x, block.y, block.z, block.w};
#pragma unroll
        for (unsigned w = 0u; w < 4u; w++) {
            const unsigned bond = 4u * j + w;
            const unsigned k = bond / DIMS;
            const unsigned d = bond % DIMS;
            const unsigned site = 4u * quad.g + k;
            const Neighbours near = neighbours(site);
            const int spin = lattice[site];
            const bool joins =
                spin != static_cast<int>(STATES) && spin == lattice[near.site[2u * d + 1u]];
            if (joins && randoms[w] < threshold) {
                word |= 1u << (8u * k + d);
            }
        }
    }
    bonds[static_cast<unsigned long long>(quad.z) * (lattice_sites() / 4u) + quad.g] = word;
    if (params.slot != NO_SLOT) {
        for (unsigned k = 0u; k < 4u; k++) {
            counts[quad.base + 4u * quad.g + k] = 0u;
        }
    }
}
