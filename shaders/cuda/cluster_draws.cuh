// The random words of a cluster update's flips that cluster_flip and clock_flip share, the twin
// of cluster_draws.wgsl (keys: src/engine/clusters.rs).

#include "cluster.cuh"
#include "philox.cuh"
#include "slice_constants.cuh"

// Update params.sweep's Wolff block (0, update, WOLFF_SEED, 0, 0, b') of the run's system
// `batch`: word 0 picks the seed site, word 1 the discrete states' shift, word 2 the clock's
// mirror.
__device__ __forceinline__ uint4 wolff_block(const DispatchParams& params, unsigned batch) {
    return philox4x32_10(philox_counter(0u, params.sweep, PURPOSE_WOLFF_SEED, 0u, batch),
                         make_uint2(params.seed_lo, params.seed_hi));
}

// The Wolff seed (w N) >> 32, w word 0 of `words`.
__device__ __forceinline__ unsigned wolff_seed(const uint4& words) {
    return __umulhi(words.x, lattice_sites());
}

// The root of the Wolff seed among `labels` (one system's, settled).
__device__ __forceinline__ unsigned seed_root(unsigned* labels, const uint4& words) {
    return find_root<Parents::System, Walk::Settled>(labels, wolff_seed(words));
}

// The last flip block a thread drew: roots 4 block_of .. 4 block_of + 3.
struct FlipWords {
    unsigned block_of;
    unsigned words[4];
};

// Swendsen-Wang's word of cluster `root`: word root mod 4 of block (root / 4, update,
// CLUSTER_FLIP, 0, 0, b'), drawn where it is not the block in `cache` (a thread's sites mostly
// share their root).
__device__ __forceinline__ unsigned flip_word(const DispatchParams& params, unsigned batch,
                                              unsigned root, FlipWords& cache) {
    if (root / 4u != cache.block_of) {
        cache.block_of = root / 4u;
        const uint4 block = philox4x32_10(
            philox_counter(cache.block_of, params.sweep, PURPOSE_CLUSTER_FLIP, 0u, batch),
            make_uint2(params.seed_lo, params.seed_hi));
        cache.words[0] = block.x;
        cache.words[1] = block.y;
        cache.words[2] = block.z;
        cache.words[3] = block.w;
    }
    return cache.words[root % 4u];
}
