// Per lane of every word system: up spins and satisfied bonds (J s s' = +1, each bond once via
// the forward neighbours), counted with bit-sliced lane counters along lines of sites, summed per
// block and added to 64-bit counters; the twin of multispin_observables.wgsl. CPU twin:
// src/engine/cpu/multispin_observables.rs. Layout of `observations`: [slot][g][lane][up,
// satisfied] as 64-bit counters, added to with 64-bit atomics directly.

#include "dispatch.cuh"
#include "bitslice.cuh"
#include "multispin_lattice.cuh"

constexpr bool DISORDERED = SPINFLIP_DISORDERED != 0u;

// Satisfied-bond lanes of the bond in direction +d of the word at `cw` with spin `spin`.
__device__ __forceinline__ unsigned satisfied(const unsigned* bonds, unsigned spin,
                                              unsigned plus, unsigned d, unsigned cw) {
    const unsigned bond = DISORDERED ? bonds[d * direction_stride() + cw] : 0u;
    return ~(spin ^ plus ^ bond);
}

extern "C" __global__ void multispin_observables(DispatchParams params, const unsigned* spins,
                                                 const unsigned* couplings,
                                                 unsigned long long* observations) {
    // Per lane: up spins (0..31) and satisfied bonds (32..63) of the block. Shared memory starts
    // undefined in CUDA (WGSL zeroes workgroup memory).
    __shared__ unsigned lane_totals[64];
    for (unsigned i = threadIdx.x; i < 64u; i += blockDim.x) {
        lane_totals[i] = 0u;
    }
    __syncthreads();
    const unsigned line = thread_in_system();
    const unsigned g = blockIdx.z;
    if (line < lines()) {
        const unsigned wr = row_words();
        const unsigned group = coupling_group(g);
        unsigned up[COUNTER_PLANES] = {};
        unsigned bonds[COUNTER_PLANES] = {};
        for (unsigned y = 0u; y < L; y++) {
            const unsigned colour = line_colour(line, y);
            const uint2 word = line_word(line, y);
            const WordNeighbours n = word_neighbours(colour, word.x, word.y);
            const unsigned cw = word.x * wr + word.y;
            const unsigned* other = colour_array(spins, g, 1u - colour);
            const unsigned spin = colour_array(spins, g, colour)[cw];
            const unsigned* colour_couplings =
                DISORDERED ? colour_bonds(couplings, group, colour) : nullptr;
            lane_counter_add(up, spin);
            const uint2 x = x_neighbours(other[cw], other[n.adjacent], n.p);
            lane_counter_add(bonds, satisfied(colour_couplings, spin, x.y, 0u, cw));
#pragma unroll
            for (unsigned d = 1u; d < DIMS; d++) {
                const unsigned plus = other[n.plus[d - 1u]];
                lane_counter_add(bonds, satisfied(colour_couplings, spin, plus, d, cw));
            }
        }
        for (unsigned lane = 0u; lane < 32u; lane++) {
            atomicAdd(&lane_totals[lane], lane_count(up, lane));
            atomicAdd(&lane_totals[32u + lane], lane_count(bonds, lane));
        }
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < 64u; i += blockDim.x) {
        const unsigned lane = i % 32u;
        const unsigned long long word = static_cast<unsigned long long>(params.slot) * params.systems + g;
        atomicAdd(observations + 2ull * (word * 32u + lane) + i / 32u,
                  static_cast<unsigned long long>(lane_totals[i]));
    }
}
