// A swap round's decisions and bookkeeping for one pair of one chain set, shared by the swap
// kernel (tempering_swap.cu) and the CUDA paired update that decides the round it follows
// (multispin_metropolis.cu); the decisions are those of tempering_swap.wgsl and the CPU's
// src/engine/cpu/tempering_swap.rs. Observation records are [up, satisfied] 64-bit counters.

#include "dispatch.cuh"
#include "philox.cuh"
#include "tempering.cuh"
#include "slice_constants.cuh"

constexpr unsigned LANE_RECORDS = SPINFLIP_LANE_RECORDS;
constexpr unsigned SLOT_RECORDS = SPINFLIP_SLOT_RECORDS;
constexpr bool SUM_LANES = SPINFLIP_SUM_LANES != 0u;

// The word system and lane record of the walker at temperature k of group q, lane j.
__device__ __forceinline__ unsigned walker_record(unsigned k, unsigned q, unsigned j) {
    if (EXCHANGE == EXCHANGE_WITHIN_WORDS) {
        return q * LANE_RECORDS + k;
    }
    return (k * GROUPS + q) * LANE_RECORDS + j;
}

// Half 0 (up spins) or 1 (satisfied bonds) of a walker's counts.
__device__ __forceinline__ unsigned long long walker_count(const unsigned long long* scratch,
                                                           unsigned k, unsigned q, unsigned j,
                                                           unsigned half) {
    if (SUM_LANES) {
        const unsigned first = (k * GROUPS + q) * LANE_RECORDS;
        unsigned long long sum = 0ull;
        for (unsigned lane = 0u; lane < LANE_RECORDS; lane++) {
            sum += scratch[2ull * (first + lane) + half];
        }
        return sum;
    }
    return scratch[2ull * walker_record(k, q, j) + half];
}

// One factor of the filter (model::tempering::part_accepts).
__device__ __forceinline__ bool part_accepts(const unsigned* tables, bool positive,
                                             unsigned offset, unsigned len,
                                             unsigned long long lower, unsigned long long upper,
                                             unsigned u) {
    const bool uphill = positive ? lower < upper : upper < lower;
    if (len == 0u || !uphill) {
        return true;
    }
    const unsigned long long n = lower > upper ? lower - upper : upper - lower;
    const unsigned t = n < len ? tables[offset + static_cast<unsigned>(n)] : 0u;
    return u <= t;
}

// Whether pair k of chain set `batch` (the run's index of the chain set in lane j of group q)
// swaps.
__device__ __forceinline__ bool accept_swap(const DispatchParams& params,
                                            const unsigned long long* scratch,
                                            const unsigned* tables, unsigned k, unsigned q,
                                            unsigned j, unsigned batch) {
    const unsigned* header = tables + 5u * k;
    const uint4 u = philox4x32_10(philox_counter(k, params.sweep, PURPOSE_SWAP, 0u, batch),
                                  make_uint2(params.seed_lo, params.seed_hi));
    const bool bonds = part_accepts(tables, (header[0] & 1u) != 0u, header[1], header[2],
                                    walker_count(scratch, k, q, j, 1u),
                                    walker_count(scratch, k + 1u, q, j, 1u), u.x);
    const bool field = part_accepts(tables, (header[0] & 2u) != 0u, header[3], header[4],
                                    walker_count(scratch, k, q, j, 0u),
                                    walker_count(scratch, k + 1u, q, j, 0u), u.y);
    return bonds && field;
}

__device__ __forceinline__ void swap_labels(unsigned* state, unsigned c, unsigned k) {
    const unsigned a = state_index(SECTION_LABELS, c, k);
    const unsigned walker = state[a];
    state[a] = state[a + 1u];
    state[a + 1u] = walker;
    state[state_index(SECTION_ACCEPTED, c, k)] += 1u;
}

// Round trips at the bottom, once the round's label there is final: the walker there ends a
// trip if it came from the top.
__device__ __forceinline__ void track_bottom(unsigned* state, unsigned c) {
    const unsigned bottom = state[state_index(SECTION_LABELS, c, 0u)];
    const unsigned bottom_phase = state_index(SECTION_PHASES, c, bottom);
    if (state[bottom_phase] == AT_TOP) {
        state[state_index(SECTION_TRIPS, c, bottom)] += 1u;
    }
    state[bottom_phase] = AT_BOTTOM;
}

// ... and at the top: the walker there is on its way back if it came from the bottom.
__device__ __forceinline__ void track_top(unsigned* state, unsigned c) {
    const unsigned top = state[state_index(SECTION_LABELS, c, TEMPERATURES - 1u)];
    const unsigned top_phase = state_index(SECTION_PHASES, c, top);
    if (state[top_phase] == AT_BOTTOM) {
        state[top_phase] = AT_TOP;
    }
}

// Zero scratch record i of group q's walkers.
__device__ __forceinline__ void clear_record(unsigned long long* scratch, unsigned q, unsigned i) {
    const unsigned k = i / LANE_RECORDS;
    const unsigned lane = i % LANE_RECORDS;
    const unsigned first = (EXCHANGE == EXCHANGE_WITHIN_WORDS ? q : k * GROUPS + q) * LANE_RECORDS;
    scratch[2ull * (first + lane)] = 0ull;
    scratch[2ull * (first + lane) + 1ull] = 0ull;
}

// The mask word of pair k of group q, and the bits an accepted decision in lane j sets there.
__device__ __forceinline__ unsigned mask_index(unsigned k, unsigned q) {
    return EXCHANGE == EXCHANGE_WITHIN_WORDS ? q : k * GROUPS + q;
}

__device__ __forceinline__ unsigned mask_bits(unsigned k, unsigned j) {
    if (EXCHANGE == EXCHANGE_SYSTEMS) {
        return 0xffffffffu;
    }
    return EXCHANGE == EXCHANGE_WITHIN_WORDS ? 1u << (k & 31u) : 1u << j;
}

// Whether temperature k is the lower of a pair in a round of parity `parity`.
__device__ __forceinline__ bool pairs_up(unsigned k, unsigned parity) {
    return k >= parity && ((k - parity) & 1u) == 0u && k + 1u < TEMPERATURES;
}

// The OR of `value` over the warp.
__device__ __forceinline__ unsigned warp_or(unsigned value) {
#pragma unroll
    for (unsigned offset = 16u; offset > 0u; offset /= 2u) {
        value |= __shfl_xor_sync(0xffffffffu, value, offset);
    }
    return value;
}
