// Exact integer observables per system: up spins and satisfied bonds (forward neighbours), the
// twin of observables.wgsl. CPU twin: src/engine/cpu/observables.rs.
// Layout of `observations`: [slot][system][up, satisfied] as 64-bit counters; CUDA adds to them
// with 64-bit atomics directly, where WGSL carries between two u32 words by hand.

#include "dispatch.cuh"
#include "lattice.cuh"

extern "C" __global__ void observables(DispatchParams params, const int* spins,
                                       unsigned long long* observations) {
    // Block sums fit 32 bits: a block visits at most blockDim * 16 sites (see the host's grid).
    __shared__ unsigned block_up;
    __shared__ unsigned block_satisfied;
    if (threadIdx.x == 0u) {
        block_up = 0u;
        block_satisfied = 0u;
    }
    __syncthreads();
    const unsigned batch = layer(params);
    const unsigned n = lattice_sites();
    const int* lattice = spins + static_cast<unsigned long long>(batch) * n;
    const unsigned stride = threads_per_system();
    unsigned up = 0u;
    unsigned satisfied = 0u;
    for (unsigned site = thread_in_system(); site < n; site += stride) {
        const int spin = lattice[site];
        up += spin > 0 ? 1u : 0u;
        const Neighbours near = neighbours(site);
        for (unsigned d = 0u; d < DIMS; d++) {
            satisfied += lattice[near.site[2u * d + 1u]] == spin ? 1u : 0u;
        }
    }
    atomicAdd(&block_up, up);
    atomicAdd(&block_satisfied, satisfied);
    __syncthreads();
    if (threadIdx.x == 0u) {
        unsigned long long* out =
            observations + 2ull * (static_cast<unsigned long long>(params.slot) * params.systems + batch);
        atomicAdd(out, static_cast<unsigned long long>(block_up));
        atomicAdd(out + 1, static_cast<unsigned long long>(block_satisfied));
    }
}
