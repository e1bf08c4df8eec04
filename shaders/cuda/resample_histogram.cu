// Population annealing's measurement as histograms, the twin of resample_histogram.wgsl: every
// replica of a population (replica j of block b with j below the population's size) adds one
// to the bins of its satisfied-bond count and of its up-spin count, so the host reads two
// histograms per population instead of the counts of every system.

#include "dispatch.cuh"
#include "resample_observations.cuh"

// Bonds + 1 and sites + 1 of one lattice.
constexpr unsigned BOND_BINS = SPINFLIP_BOND_BINS;
constexpr unsigned SITE_BINS = SPINFLIP_SITE_BINS;

// Add one to `bin` for every thread of `warp` (the threads that count) on it, in one atomic
// per bin: neighbouring replicas (copies of one) often share a level, and a population's bins
// are few, so single atomics queue on them.
__device__ __forceinline__ void add_to_bin(unsigned warp, unsigned* bin) {
    const unsigned peers = __match_any_sync(warp, reinterpret_cast<unsigned long long>(bin));
    if (threadIdx.x % 32u == __ffs(peers) - 1u) {
        atomicAdd(bin, static_cast<unsigned>(__popc(peers)));
    }
}

// `satisfied_bins`: `[block][satisfied]`; `up_bins`: `[block][up]`.
extern "C" __global__ void resample_histogram(ResampleParams params,
                                              const unsigned long long* observations,
                                              const unsigned* positions, const unsigned* sizes,
                                              unsigned* satisfied_bins, unsigned* up_bins) {
    const unsigned s = thread_in_system();
    const unsigned b = s / SLOTS;
    const bool counts = s < SYSTEMS && s % SLOTS < sizes[b];
    const unsigned warp = __ballot_sync(0xffffffffu, counts);
    if (!counts) {
        return;
    }
    const unsigned position = positions[s];
    const unsigned base = params.observation_base;
    const unsigned satisfied = count_at(observations, base, position, SATISFIED);
    add_to_bin(warp, &satisfied_bins[b * BOND_BINS + satisfied]);
    add_to_bin(warp, &up_bins[b * SITE_BINS + count_at(observations, base, position, UP)]);
}
