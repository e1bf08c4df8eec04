// What the resampling kernels that read a measurement share (resample_count,
// resample_histogram), the twin of resample_observations.wgsl: the counts of one system.

#include "resample.cuh"

// Which count of an observation pair: the up spins or the satisfied bonds.
constexpr unsigned UP = 0u;
constexpr unsigned SATISFIED = 1u;

// SMSC: a system's counts are the sum of its word system's 32 site lanes.
constexpr bool SUM_LANES = SPINFLIP_SUM_LANES != 0u;

// Count `which` (UP or SATISFIED) of the measurement at observation pair `base` of
// `observations` (`[slot][g][lane]` (up, satisfied), as the observables kernel counts) for the
// system at `position`; annealed lattices have fewer than 2^32 bonds.
__device__ __forceinline__ unsigned count_at(const unsigned long long* observations,
                                             unsigned base, unsigned position, unsigned which) {
    if (!SUM_LANES) {
        return static_cast<unsigned>(
            observations[(static_cast<unsigned long long>(base) + position) * 2u + which]);
    }
    unsigned sum = 0u;
    for (unsigned lane = 0u; lane < 32u; lane++) {
        const unsigned long long pair =
            static_cast<unsigned long long>(base) + position * 32ull + lane;
        sum += static_cast<unsigned>(observations[pair * 2u + which]);
    }
    return sum;
}
