// One parallel-tempering swap round, the twin of tempering_swap.wgsl (CPU twin:
// src/engine/cpu/tempering_swap.rs), from the counts measured into the scratch slot. A warp (a
// block of 32 threads) decides each unit of the round: a pair (k, k + 1), k = parity mod 2, of
// group q, lane j the pair of chain set j (whole word systems exchanged: lane 0 alone); a
// temperature in no pair; or, with temperatures in the lanes of a word, group q's word, lane i
// its pair k = parity + 2 i. It swaps the labels of the accepted pairs and counts them, writes
// the unit's mask from a warp reduction, counts round trips where the unit holds an end of the
// ladder, and clears the unit's scratch records for the next round. Each decision has its own
// Philox block and a round's pairs are disjoint, so the units go in parallel; the ends of the
// ladder touch different walkers. A warp per unit needs no barrier, zeroed masks or atomics, as
// a block per group did (3D spin glass, L = 16, 32 temperatures, 64 groups, H200: 5.3-6.8 us a
// round against 8.3-10.3, and a PT sweep 2% shorter).
// Observation records are [up, satisfied] 64-bit counters.

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

__device__ __forceinline__ bool accept_swap(const DispatchParams& params,
                                            const unsigned long long* scratch,
                                            const unsigned* tables, unsigned k, unsigned q,
                                            unsigned j, unsigned c) {
    const unsigned* header = tables + 5u * k;
    // The batch is the run's index of the chain set.
    const uint4 u =
        philox4x32_10(philox_counter(k, params.sweep, PURPOSE_SWAP, 0u, global_index(c)),
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

// Records of the walkers of one group: every temperature's, or one word's with the temperatures
// in its lanes.
__device__ constexpr unsigned group_records() {
    return (EXCHANGE == EXCHANGE_WITHIN_WORDS ? 1u : TEMPERATURES) * LANE_RECORDS;
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

// Units of a round: one per word system k GROUPS + q (those of the upper temperature of a pair
// have nothing to do), or, within words, one per group.
__device__ constexpr unsigned round_units() {
    return EXCHANGE == EXCHANGE_WITHIN_WORDS ? GROUPS : TEMPERATURES * GROUPS;
}

extern "C" __global__ void tempering_swap(DispatchParams params,
                                          unsigned long long* observations,
                                          const unsigned* tables, unsigned* state,
                                          unsigned* masks) {
    // Blocks of one warp: the unit is the block.
    const unsigned unit = thread_in_system() / 32u;
    const unsigned lane = threadIdx.x;
    const bool within = EXCHANGE == EXCHANGE_WITHIN_WORDS;
    const unsigned parity = params.colour;
    const unsigned low = within ? 0u : unit / GROUPS;
    if (unit >= round_units() || (!within && low > 0u && pairs_up(low - 1u, parity))) {
        return;
    }
    unsigned long long* scratch =
        observations + 2ull * static_cast<unsigned long long>(params.slot) * SLOT_RECORDS;
    const unsigned q = within ? unit : unit % GROUPS;
    const bool paired = within || pairs_up(low, parity);
    const unsigned k = within ? parity + 2u * lane : low;
    const unsigned j = within ? 0u : lane;
    bool accepted = false;
    if (paired && k + 1u < TEMPERATURES && j < group_lanes()) {
        const unsigned c = chain_set(q, j);
        accepted = accept_swap(params, scratch, tables, k, q, j, c);
        if (accepted) {
            swap_labels(state, c, k);
        }
    }
    const unsigned mask = warp_or(accepted ? mask_bits(k, j) : 0u);
    if (lane == 0u && paired) {
        masks[mask_index(k, q)] = mask;
    }
    // The labels at the ends are final once the unit holding them has decided.
    __syncwarp();
    const unsigned high = within ? TEMPERATURES - 1u : (paired ? low + 1u : low);
    if (lane < group_lanes()) {
        if (low == 0u) {
            track_bottom(state, chain_set(q, lane));
        }
        if (high == TEMPERATURES - 1u) {
            track_top(state, chain_set(q, lane));
        }
    }
    const unsigned records_end = within ? group_records() : (high + 1u) * LANE_RECORDS;
    for (unsigned i = low * LANE_RECORDS + lane; i < records_end; i += 32u) {
        clear_record(scratch, q, i);
    }
}
