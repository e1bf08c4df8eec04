// A cluster update's bonds, the twin of cluster_bonds.wgsl: thread g of system z draws the D
// Philox blocks (g D + j, update, CLUSTER_BOND, 0, 0, b') of the 4 D forward bonds of sites
// 4g .. 4g + 3 and writes their active bonds as bonds[g]; it clears those sites' counts when
// the update records (cluster_label writes every site's label whole). CPU twin:
// src/engine/cpu/cluster_bonds.rs.

#include "cluster.cuh"
#include "philox.cuh"
#include "slice_constants.cuh"

extern "C" __global__ void cluster_bonds(DispatchParams params, const int* spins,
                                         const unsigned* activation, unsigned* bonds,
                                         unsigned* labels, unsigned* counts,
                                         unsigned long long* sizes) {
    const unsigned g = thread_in_system();
    const unsigned z = blockIdx.z;
    const unsigned n = lattice_sites();
    if (4u * g >= n) {
        return;
    }
    const unsigned long long base = static_cast<unsigned long long>(z) * n;
    const int* lattice = spins + base;
    const unsigned threshold = activation[z / SLICE_BLOCK];
    const uint2 key = make_uint2(params.seed_lo, params.seed_hi);
    const unsigned batch = global_index(z);
    unsigned word = 0u;
    for (unsigned j = 0u; j < DIMS; j++) {
        const uint4 block = philox4x32_10(
            philox_counter(g * DIMS + j, params.sweep, PURPOSE_CLUSTER_BOND, 0u, batch), key);
        const unsigned randoms[4] = {block.x, block.y, block.z, block.w};
#pragma unroll
        for (unsigned w = 0u; w < 4u; w++) {
            const unsigned bond = 4u * j + w;
            const unsigned k = bond / DIMS;
            const unsigned d = bond % DIMS;
            const unsigned site = 4u * g + k;
            const Neighbours near = neighbours(site);
            if (lattice[site] == lattice[near.site[2u * d + 1u]] && randoms[w] < threshold) {
                word |= 1u << (8u * k + d);
            }
        }
    }
    bonds[static_cast<unsigned long long>(z) * (n / 4u) + g] = word;
    if (params.slot != NO_SLOT) {
        for (unsigned k = 0u; k < 4u; k++) {
            counts[base + 4u * g + k] = 0u;
        }
    }
}
