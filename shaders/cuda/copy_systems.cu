// Population annealing's copies, the twin of copy_systems.wgsl (CPU twin:
// src/engine/cpu/copy_systems.rs): each warp of (word) system z (SYSTEM_THREADS threads a
// system, one after the other along the grid: one layer however many systems) writes WARP_RUNS
// runs of 32 consecutive words of system z from the snapshot of the spins taken before the copy, so chains
// of copies and swaps of two systems need no ordering, and each thread writes only its own words. The simple engine's int spins move
// as their bits. Offsets are 64-bit: all systems together may exceed 2^32 words.

#include "dispatch.cuh"
#include "bitslice.cuh"

// Words of one (word) system.
constexpr unsigned SYSTEM_WORDS = SPINFLIP_SYSTEM_WORDS;
// Copy bit by bit, each lane of a word from its own source lane (AMSC), else whole words.
constexpr bool LANE_COPIES = SPINFLIP_LANE_COPIES != 0u;
// Runs of 32 words per warp (see WARP_RUNS in src/engine/cuda/copy_systems.rs).
constexpr unsigned WARP_RUNS = SPINFLIP_WARP_RUNS;
// The (word) systems: the destinations.
constexpr unsigned SYSTEMS = SPINFLIP_SYSTEMS;
// Threads of one (word) system: whole warps of WARP_RUNS runs of 32 words each, so that no
// warp spans two systems.
constexpr unsigned SYSTEM_THREADS = (SYSTEM_WORDS + 32u * WARP_RUNS - 1u) / (32u * WARP_RUNS) * 32u;

// The warp's runs of 32 words from `first` (thread `lane` writes word first + 32 r + lane of
// run r), all of whose lanes come from the SPAN consecutive word systems from `g` (this thread's
// lane from g + `offset`): a run's words of each of them, transposed, give each thread a source
// lane's bits along the run; the thread of lane l takes those of its source lane, and the
// transpose back gives each thread its word.
template <unsigned SPAN>
__device__ __forceinline__ void window_copy(const unsigned* __restrict__ snapshot,
                                            unsigned* __restrict__ spins, unsigned long long at,
                                            unsigned g, unsigned offset, unsigned source_lane,
                                            unsigned first, unsigned lane) {
    const unsigned long long from = static_cast<unsigned long long>(g) * SYSTEM_WORDS + first;
    unsigned words[SPAN][WARP_RUNS];
#pragma unroll
    for (unsigned r = 0u; r < WARP_RUNS; r++) {
        const unsigned k = 32u * r + lane;
#pragma unroll
        for (unsigned s = 0u; s < SPAN; s++) {
            // Word systems past the last are no lane's source.
            const bool held = first + k < SYSTEM_WORDS && g + s < SYSTEMS;
            words[s][r] = held ? snapshot[from + s * SYSTEM_WORDS + k] : 0u;
        }
    }
#pragma unroll
    for (unsigned r = 0u; r < WARP_RUNS; r++) {
        unsigned mine = 0u;
#pragma unroll
        for (unsigned s = 0u; s < SPAN; s++) {
            const unsigned lanes = transpose_warp(words[s][r], lane);
            const unsigned taken = __shfl_sync(0xffffffffu, lanes, source_lane);
            mine = offset == s ? taken : mine;
        }
        mine = transpose_warp(mine, lane);
        if (first + 32u * r + lane < SYSTEM_WORDS) {
            spins[at + 32u * r + lane] = mine;
        }
    }
}

// Word `first + lane` of any run of 32: thread l reads its lane's source words for the whole
// run, and for each word of the run the warp's vote on the source bits is that word (lane l from
// thread l), kept by the thread that writes it.
__device__ __forceinline__ unsigned voted_copy(const unsigned* __restrict__ snapshot,
                                               unsigned source, unsigned first, unsigned lane) {
    const unsigned bit = 1u << (source & 31u);
    const unsigned* from =
        snapshot + static_cast<unsigned long long>(source >> 5u) * SYSTEM_WORDS + first;
    unsigned mine = 0u;
#pragma unroll
    for (unsigned k = 0u; k < 32u; k++) {
        const unsigned w = first + k < SYSTEM_WORDS ? from[k] : 0u;
        const unsigned voted = __ballot_sync(0xffffffffu, (w & bit) != 0u);
        mine = lane == k ? voted : mine;
    }
    return mine;
}

// `sources` holds one entry per destination: with LANE_COPIES, `[z][lane]` = source word
// system * 32 + source lane (AMSC); without, `[z]` = the source (word) system (simple engine,
// SMSC). Threads per system: whole warps, WARP_RUNS runs of 32 words each (blocks of whole
// warps: a warp never spans two systems).
extern "C" __global__ void copy_systems(const unsigned* __restrict__ sources,
                                        const unsigned* __restrict__ snapshot,
                                        unsigned* __restrict__ spins) {
    const unsigned lane = threadIdx.x % 32u;
    const unsigned thread = thread_in_system();
    const unsigned z = thread / SYSTEM_THREADS;
    if (z >= SYSTEMS) {
        return;  // the whole warp: past the last system
    }
    const unsigned first = (thread % SYSTEM_THREADS - lane) * WARP_RUNS;
    const unsigned long long at = static_cast<unsigned long long>(z) * SYSTEM_WORDS + first;
    if (!LANE_COPIES) {
        const unsigned long long from = static_cast<unsigned long long>(sources[z]) * SYSTEM_WORDS + first;
#pragma unroll
        for (unsigned r = 0u; r < WARP_RUNS; r++) {
            const unsigned k = 32u * r + lane;
            if (first + k < SYSTEM_WORDS) {
                spins[at + k] = snapshot[from + k];
            }
        }
        return;
    }
    // Lanes of a resampled population lie in replica order, so a warp's sources mostly lie in
    // a few consecutive word systems (the first lane's and on): then bit transposes move the
    // lanes, else each word is voted.
    const unsigned source = sources[z * 32u + lane];
    const unsigned g = __shfl_sync(0xffffffffu, source, 0u) >> 5u;
    const unsigned offset = (source >> 5u) - g;
    const unsigned lane_in_source = source & 31u;
    if (__all_sync(0xffffffffu, offset == 0u)) {
        window_copy<1u>(snapshot, spins, at, g, offset, lane_in_source, first, lane);
        return;
    }
    if (__all_sync(0xffffffffu, offset <= 1u)) {
        window_copy<2u>(snapshot, spins, at, g, offset, lane_in_source, first, lane);
        return;
    }
    if (__all_sync(0xffffffffu, offset <= 3u)) {
        window_copy<4u>(snapshot, spins, at, g, offset, lane_in_source, first, lane);
        return;
    }
    for (unsigned r = 0u; r < WARP_RUNS; r++) {
        const unsigned run = first + 32u * r;
        if (run >= SYSTEM_WORDS) {
            break;  // the whole warp
        }
        const unsigned mine = voted_copy(snapshot, source, run, lane);
        if (run + lane < SYSTEM_WORDS) {
            spins[at + 32u * r + lane] = mine;
        }
    }
}
