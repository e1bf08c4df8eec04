// The flips of a cluster update after cluster_merge (and cluster_roots where a Swendsen-Wang
// update records), the twin of cluster_flip.wgsl: thread g of system z finds the roots of sites
// 4g .. 4g + 3 (one walk for a run of sites of equal parents, mostly one tile root) and flips
// them where their cluster flips. Swendsen-Wang: cluster r flips iff the top bit of word r mod 4
// of block (r / 4, update, CLUSTER_FLIP, 0, 0, b') is set; recording, each root adds |C|^2 to the
// system's statistic (with an antiperiodic axis M_C^2, its count the cluster's magnetisation).
// Wolff: the cluster of the seed site (w N) >> 32, w word 0 of block (0,
// update, WOLFF_SEED, 0, 0, b'), flips; recording, its sites add up to s_seed M_C (|C| without an
// antiperiodic axis: each site 1 in the seed's state, -1 in the other, a wrapping sum; the seed's
// state from counts[z N]). Empty sites, each its own cluster, add nothing. Sums go through the block, one 64-bit atomic per block. Discrete
// states (STATES = q): Swendsen-Wang gives cluster r the state mulhi(w, q) of its word instead
// (with an antiperiodic axis, two states, moves each site of it by that state), Wolff moves the seed's cluster from s to (s + 1 + mulhi(w1, q - 1)) mod q, w1 word 1 of the
// seed's block; empty sites keep their vacancy. Houdayer's move (HOUDAYER = 1 or 2; replica pair
// z, systems a and b): the sites of the cluster of the seed that cluster_bonds wrote into
// counts[z N] swap their states between a and b where its relation (counts[z N + 1]) is
// disagreement, take the other of the two states in both where it is agreement; none without a
// seed; the moved sites add up in sizes[2 z], through the block. CPU twin:
// src/engine/cpu/cluster_flip.rs.

#include "cluster_draws.cuh"

// Houdayer's move of sites 4g .. 4g + 3 of replica pair z where they lie in the seed's cluster;
// returns how many. `lanes`: the warp's live lanes (the seed is the block's).
__device__ unsigned move_pair(const Quad& quad, int* spins, unsigned* labels,
                              const unsigned* counts, unsigned lanes) {
    const unsigned seed = counts[quad.base];
    if (seed == NO_SEED || !quad.live) {
        return 0u;
    }
    const bool agreement = counts[quad.base + 1u] == AGREES;
    const unsigned n = lattice_sites();
    const unsigned a = pair_first(quad.z);
    int* first = spins + static_cast<unsigned long long>(a) * n;
    int* second = spins + static_cast<unsigned long long>(a + REPLICAS / 2u) * n;
    const unsigned root = find_root<Parents::System, Walk::Settled>(labels + quad.base, seed);
    unsigned roots[4];
    quad_roots<Walk::Settled>(labels + quad.base, quad.g, roots, lanes);
    unsigned moved = 0u;
    for (unsigned k = 0u; k < 4u; k++) {
        const unsigned site = 4u * quad.g + k;
        if (roots[k] == root) {
            const int state = first[site];
            if (agreement) {
                first[site] = 1 - state;
                second[site] = 1 - state;
            } else {
                first[site] = second[site];
                second[site] = state;
            }
            moved++;
        }
    }
    return moved;
}

extern "C" __global__ void cluster_flip(DispatchParams params, int* spins,
                                        const unsigned* activation, unsigned* bonds,
                                        unsigned* labels, unsigned* counts,
                                        unsigned long long* sizes) {
    __shared__ unsigned long long block_sum;
    if (threadIdx.x == 0u) {
        block_sum = 0ull;
    }
    __syncthreads();
    const Quad quad = quad_of(params);
    const unsigned live_lanes = __ballot_sync(warp_lanes(), quad.live);
    if (HOUDAYER != 0u) {
        atomicAdd(&block_sum,
                  static_cast<unsigned long long>(move_pair(quad, spins, labels, counts, live_lanes)));
        __syncthreads();
        if (threadIdx.x == 0u) {
            atomicAdd(&sizes[2ull * quad.z], block_sum);
        }
        return;
    }
    const unsigned batch = global_index(quad.z);
    unsigned wolff_root = 0u;
    unsigned wolff_shift = 0u;
    // The seed's state before the flips, which cluster_bonds wrote where the update records.
    unsigned seed_state = 0u;
    if (WOLFF == 1u) {
        const uint4 words = wolff_block(params, batch);
        wolff_root = seed_root(labels + quad.base, words);
        if (STATES > 0u) {
            wolff_shift = __umulhi(words.y, STATE_COUNT - 1u);
        }
        if (params.slot != NO_SLOT) {
            seed_state = counts[quad.base];
        }
    }
    unsigned long long sum = 0ull;
    if (quad.live) {
        FlipWords cache = {0xffffffffu, {0u, 0u, 0u, 0u}};
        unsigned word = 0u;
        // The four spins in one read, and in one write where any changed (a system's sites are
        // a multiple of 4): Swendsen-Wang's before the walks, Wolff's after them and only where
        // one of the four lies in the seed's cluster.
        int4* quad_spins = reinterpret_cast<int4*>(spins + quad.base) + quad.g;
        int4 read = make_int4(0, 0, 0, 0);
        if (WOLFF == 0u) {
            read = *quad_spins;
        }
        unsigned roots[4];
        quad_roots<Walk::Settled>(labels + quad.base, quad.g, roots, live_lanes);
        if (WOLFF == 1u && (roots[0] == wolff_root || roots[1] == wolff_root ||
                            roots[2] == wolff_root || roots[3] == wolff_root)) {
            read = *quad_spins;
        }
        int states[4] = {read.x, read.y, read.z, read.w};
        bool changed = false;
        for (unsigned k = 0u; k < 4u; k++) {
            const unsigned site = 4u * quad.g + k;
            const unsigned root = roots[k];
            const int spin = states[k];
            const bool occupied = STATES == 0u || static_cast<unsigned>(spin) != STATES;
            bool flip;
            if (WOLFF == 1u) {
                flip = root == wolff_root;
                if (flip && occupied) {
                    // s_seed s: 1, or -1 (wrapping) for the other state across an antiperiodic edge.
                    sum += static_cast<unsigned>(spin) == seed_state ? 1ull : ~0ull;
                }
            } else {
                word = flip_word(params, batch, root, cache);
                flip = (word >> 31u) == 1u;
                if (params.slot != NO_SLOT && root == site && occupied) {
                    sum += count_square(counts[quad.base + site]);
                }
            }
            if (STATES == 0u) {
                if (flip) {
                    states[k] = -spin;
                }
            } else if (static_cast<unsigned>(spin) != STATES) {
                if (WOLFF == 0u) {
                    const unsigned drawn = __umulhi(word, STATES);
                    const unsigned moved = (static_cast<unsigned>(spin) + drawn) % STATE_COUNT;
                    states[k] = static_cast<int>(TWISTED_AXES != 0u ? moved : drawn);
                } else if (flip) {
                    states[k] =
                        static_cast<int>((static_cast<unsigned>(spin) + 1u + wolff_shift) % STATE_COUNT);
                }
            }
            changed = changed || states[k] != spin;
            // Lanes that drew a block for their root meet the others again (quad_roots).
            __syncwarp(live_lanes);
        }
        if (changed) {
            *quad_spins = make_int4(states[0], states[1], states[2], states[3]);
        }
    }
    if (params.slot == NO_SLOT) {
        return;
    }
    atomicAdd(&block_sum, sum);
    __syncthreads();
    if (threadIdx.x == 0u) {
        atomicAdd(&sizes[static_cast<unsigned long long>(params.slot) * params.systems + quad.z],
                  block_sum);
    }
}
