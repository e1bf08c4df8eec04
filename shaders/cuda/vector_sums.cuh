// What the measuring kernels (vector_observables, vector_overlap) share, the twin of
// vector_sums.wgsl: a site's coordinate and the addition of a thread's exact 64-bit sums to the
// counters (two's complement: signed sums add as unsigned, exactly in any order).

#include "vector_site.cuh"

// Coordinate d of site i.
__device__ __forceinline__ unsigned coordinate(unsigned i, unsigned d) {
    return d == 0u ? i % L : d == 1u ? (i / L) % L : i / (L * L);
}

// Adds the `count` sums to the counters from `out` (zeros skipped).
__device__ __forceinline__ void add_sums(unsigned long long* out, const long long* sums,
                                         unsigned count) {
    for (unsigned k = 0u; k < count; k++) {
        if (sums[k] != 0) {
            atomicAdd(out + k, static_cast<unsigned long long>(sums[k]));
        }
    }
}
