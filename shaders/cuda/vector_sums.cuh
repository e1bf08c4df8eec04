// What the measuring kernels (vector_observables, vector_overlap and their discrete twins)
// share, the twin of vector_sums.wgsl: a site's sublattice sign, the replica pair of an overlap,
// and the addition of a thread's exact 64-bit sums to the counters (two's complement: signed
// sums add as unsigned, exactly in any order).

#include "vector_site.cuh"

// The sublattice sign (-1)^(x + y + z) of site i (Lattice::sublattice_sign), the staggered
// magnetisation's weight.
__device__ __forceinline__ int sublattice_sign(unsigned i) {
    unsigned parity = 0u;
    for (unsigned d = 0u; d < DIMS; d++) {
        parity += coordinate(i, d);
    }
    return 1 - 2 * static_cast<int>(parity & 1u);
}

// Adds the `count` sums to the counters from `out` (zeros skipped).
// Blocks of whole warps first add up each warp's sums by shuffles, so that one lane a warp adds
// to the counters: the threads of a large lattice would otherwise queue at the same few counters.
// Every thread of the block calls it.
__device__ __forceinline__ void add_sums(unsigned long long* out, const long long* sums,
                                         unsigned count) {
    const bool whole_warps = blockDim.x % 32u == 0u;
    for (unsigned k = 0u; k < count; k++) {
        long long sum = sums[k];
        if (whole_warps) {
            for (unsigned offset = 16u; offset > 0u; offset /= 2u) {
                sum += __shfl_down_sync(0xffffffffu, sum, offset);
            }
            if (threadIdx.x % 32u != 0u) {
                continue;
            }
        }
        if (sum != 0) {
            atomicAdd(out + k, static_cast<unsigned long long>(sum));
        }
    }
}

// The replica pair that the blocks of system z sum, replicas r and r + REPLICAS/2 of its
// temperature and sample: `sums` false for the second half's systems (which return), the
// partner system and the pair's index.
struct ReplicaPair {
    bool sums;
    unsigned partner;
    unsigned pair;
};

__device__ __forceinline__ ReplicaPair replica_pair(unsigned z) {
    const unsigned half = REPLICAS / 2u;
    const unsigned replica = z % REPLICAS;
    return ReplicaPair{replica < half, z + half, (z / REPLICAS) * half + replica};
}
