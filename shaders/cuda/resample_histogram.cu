// Population annealing's measurement as histograms, the twin of resample_histogram.wgsl: every
// replica of a population (replica j of block b with j below the population's size) adds one
// to the bins of its satisfied-bond count and of its up-spin count, so the host reads two
// histograms per population instead of the counts of every system.

#include "dispatch.cuh"
#include "resample_observations.cuh"

// Bonds + 1 and sites + 1 of one lattice.
constexpr unsigned BOND_BINS = SPINFLIP_BOND_BINS;
constexpr unsigned SITE_BINS = SPINFLIP_SITE_BINS;

// `satisfied_bins`: `[block][satisfied]`; `up_bins`: `[block][up]`.
extern "C" __global__ void resample_histogram(ResampleParams params,
                                              const unsigned long long* observations,
                                              const unsigned* positions, const unsigned* sizes,
                                              unsigned* satisfied_bins, unsigned* up_bins) {
    const unsigned s = thread_in_system();
    if (s >= SYSTEMS) {
        return;
    }
    const unsigned b = s / SLOTS;
    if (s % SLOTS >= sizes[b]) {
        return;
    }
    const unsigned position = positions[s];
    const unsigned base = params.observation_base;
    atomicAdd(&satisfied_bins[b * BOND_BINS + count_at(observations, base, position, SATISFIED)],
              1u);
    atomicAdd(&up_bins[b * SITE_BINS + count_at(observations, base, position, UP)], 1u);
}
