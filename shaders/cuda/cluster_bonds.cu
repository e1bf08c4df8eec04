// A cluster update's bonds, the twin of cluster_bonds.wgsl: thread g of system z draws the D
// Philox blocks (g D + j, update, CLUSTER_BOND, 0, 0, b'), D = directions(), of the 4 D forward
// bonds of sites 4g .. 4g + 3 and writes their active bonds (equal spins, opposite across an
// antiperiodic edge, not empty, not missing: across an open edge or a honeycomb's gap) as
// bonds[g]; when the update records, Swendsen-Wang clears those sites' counts (cluster_label
// writes every site's label whole) and Wolff writes the state of its seed into counts[z N]. Houdayer's move
// (HOUDAYER = 1, or 2 where clusters of agreement move too; thread g of replica pair z, systems
// a and b): no randoms in the bonds. Thread 0 of each block picks the move's relation and seed
// from the candidate sites; a bond is active where its temperature takes moves and both its
// sites have the relation, so only the clusters that can move are labelled. Thread 0 of the
// pair writes the seed into counts[z N] and the relation into counts[z N + 1] before
// cluster_flip moves anything, counting the move in sizes[2 z + 1] where it has a seed. CPU
// twin: src/engine/cpu/cluster_bonds.rs (the seed: cluster_flip.rs).

#include "cluster_draws.cuh"

// How replica pair (first, second) holds `site`: DISAGREES, AGREES or EMPTY (the vacancy in
// both).
__device__ unsigned pair_site(const int* first, const int* second, unsigned site) {
    const int a = first[site];
    if (a != second[site]) {
        return DISAGREES;
    }
    return a == static_cast<int>(STATES) ? EMPTY : AGREES;
}

// The seed of replica pair (first, second)'s move (whose first system is a) and its relation,
// from its candidate sites.
__device__ uint2 pair_seed(const DispatchParams& params, unsigned a, const int* first,
                           const int* second, bool acts) {
    const unsigned n = lattice_sites();
    unsigned candidates[8];
    unsigned relations[8];
    unsigned agree = 0u;
    unsigned disagree = 0u;
    const uint2 key = make_uint2(params.seed_lo, params.seed_hi);
    for (unsigned j = 0u; j < 2u; j++) {
        const uint4 block = philox4x32_10(
            philox_counter(j, params.sweep, PURPOSE_HOUDAYER_SEED, 0u, global_index(a)), key);
        const unsigned words[4] = {block.x, block.y, block.z, block.w};
        for (unsigned w = 0u; w < 4u; w++) {
            const unsigned site = __umulhi(words[w], n);
            const unsigned relation = pair_site(first, second, site);
            candidates[4u * j + w] = site;
            relations[4u * j + w] = relation;
            agree += relation == AGREES ? 1u : 0u;
            disagree += relation == DISAGREES ? 1u : 0u;
        }
    }
    const unsigned wanted = HOUDAYER == 2u && agree < disagree ? AGREES : DISAGREES;
    unsigned seed = NO_SEED;
    for (unsigned j = 0u; j < 8u && acts && seed == NO_SEED; j++) {
        if (relations[j] == wanted) {
            seed = candidates[j];
        }
    }
    return make_uint2(seed, wanted);
}

// Houdayer's bonds of sites 4g .. 4g + 3 of replica pair z and, from thread 0, its seed; every
// thread of the block calls it.
__device__ void pair_bonds(const DispatchParams& params, const Quad& quad, const int* spins,
                           const unsigned* activation, unsigned* bonds, unsigned* counts,
                           unsigned long long* sizes) {
    __shared__ uint2 block_seed;
    const unsigned n = lattice_sites();
    const unsigned a = pair_first(quad.z);
    const int* first = spins + static_cast<unsigned long long>(a) * n;
    const int* second = spins + static_cast<unsigned long long>(a + REPLICAS / 2u) * n;
    const bool acts = activation[a / SLICE_BLOCK] != 0u;
    if (threadIdx.x == 0u) {
        block_seed = pair_seed(params, a, first, second, acts);
    }
    __syncthreads();
    if (!quad.live) {
        return;
    }
    const uint2 seed = block_seed;
    const unsigned wanted = seed.y;
    unsigned word = 0u;
    for (unsigned k = 0u; k < 4u && acts; k++) {
        const unsigned site = 4u * quad.g + k;
        if (pair_site(first, second, site) != wanted) {
            continue;
        }
        const Neighbours near = neighbours(site);
        for (unsigned d = 0u; d < directions(); d++) {
            if (!missing_bond(site, d) &&
                pair_site(first, second, near.site[2u * d + 1u]) == wanted) {
                word |= 1u << (8u * k + d);
            }
        }
    }
    bonds[static_cast<unsigned long long>(quad.z) * (n / 4u) + quad.g] = word;
    if (quad.g != 0u) {
        return;
    }
    counts[quad.base] = seed.x;
    counts[quad.base + 1u] = wanted;
    if (seed.x != NO_SEED) {
        atomicAdd(&sizes[2ull * quad.z + 1ull], 1ull);
    }
}

extern "C" __global__ void cluster_bonds(DispatchParams params, const int* spins,
                                         const unsigned* activation, unsigned* bonds,
                                         unsigned* labels, unsigned* counts,
                                         unsigned long long* sizes) {
    const Quad quad = quad_of(params);
    if (HOUDAYER != 0u) {
        pair_bonds(params, quad, spins, activation, bonds, counts, sizes);
        return;
    }
    if (!quad.live) {
        return;
    }
    const int* lattice = spins + quad.base;
    const unsigned threshold = activation[quad.z / SLICE_BLOCK];
    const uint2 key = make_uint2(params.seed_lo, params.seed_hi);
    const unsigned batch = global_index(quad.z);
    unsigned word = 0u;
    constexpr unsigned per_site = directions();
    for (unsigned j = 0u; j < per_site; j++) {
        const uint4 block = philox4x32_10(
            philox_counter(quad.g * per_site + j, params.sweep, PURPOSE_CLUSTER_BOND, 0u, batch),
            key);
        const unsigned randoms[4] = {block.x, block.y, block.z, block.w};
#pragma unroll
        for (unsigned w = 0u; w < 4u; w++) {
            const unsigned bond = 4u * j + w;
            const unsigned k = bond / per_site;
            const unsigned d = bond % per_site;
            const unsigned site = 4u * quad.g + k;
            const Neighbours near = neighbours(site);
            const int spin = lattice[site];
            const bool joins = spin != static_cast<int>(STATES) &&
                               bondable(spin, lattice[near.site[2u * d + 1u]], site, d) &&
                               !missing_bond(site, d);
            if (joins && randoms[w] < threshold) {
                word |= 1u << (8u * k + d);
            }
        }
    }
    bonds[static_cast<unsigned long long>(quad.z) * (lattice_sites() / 4u) + quad.g] = word;
    if (params.slot == NO_SLOT) {
        return;
    }
    if (WOLFF == 1u) {
        // cluster_flip weighs the cluster's sites by the seed's state, which it flips.
        const unsigned seed = wolff_seed(wolff_block(params, batch));
        if (seed / 4u == quad.g) {
            counts[quad.base] = static_cast<unsigned>(lattice[seed]);
        }
        return;
    }
    for (unsigned k = 0u; k < 4u; k++) {
        counts[quad.base + 4u * quad.g + k] = 0u;
    }
}
