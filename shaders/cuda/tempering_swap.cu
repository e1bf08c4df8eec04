// One parallel-tempering swap round, the twin of tempering_swap.wgsl (CPU twin:
// src/engine/cpu/tempering_swap.rs): thread q decides the pairs (k, k + 1), k = parity mod 2, of
// the chain sets of group q from the counts measured into the scratch slot, swaps their labels,
// counts acceptances and round trips, writes the exchange masks [k][q], and clears the scratch
// records it read for the next round. Observation records are [up, satisfied] 64-bit counters.

#include "dispatch.cuh"
#include "philox.cuh"
#include "tempering.cuh"

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
    const uint4 u = philox4x32_10(philox_counter(k, params.sweep, PURPOSE_SWAP, 0u, c),
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

__device__ __forceinline__ void track_round_trips(unsigned* state, unsigned c) {
    const unsigned bottom = state[state_index(SECTION_LABELS, c, 0u)];
    const unsigned bottom_phase = state_index(SECTION_PHASES, c, bottom);
    if (state[bottom_phase] == AT_TOP) {
        state[state_index(SECTION_TRIPS, c, bottom)] += 1u;
    }
    state[bottom_phase] = AT_BOTTOM;
    const unsigned top = state[state_index(SECTION_LABELS, c, TEMPERATURES - 1u)];
    const unsigned top_phase = state_index(SECTION_PHASES, c, top);
    if (state[top_phase] == AT_BOTTOM) {
        state[top_phase] = AT_TOP;
    }
}

// Zero the scratch records of group q's walkers, read by this thread alone.
__device__ __forceinline__ void clear_scratch(unsigned long long* scratch, unsigned q) {
    const unsigned systems = EXCHANGE == EXCHANGE_WITHIN_WORDS ? 1u : TEMPERATURES;
    for (unsigned k = 0u; k < systems; k++) {
        const unsigned first =
            (EXCHANGE == EXCHANGE_WITHIN_WORDS ? q : k * GROUPS + q) * LANE_RECORDS;
        for (unsigned lane = 0u; lane < LANE_RECORDS; lane++) {
            scratch[2ull * (first + lane)] = 0ull;
            scratch[2ull * (first + lane) + 1ull] = 0ull;
        }
    }
}

extern "C" __global__ void tempering_swap(DispatchParams params,
                                          unsigned long long* observations,
                                          const unsigned* tables, unsigned* state,
                                          unsigned* masks) {
    const unsigned q = thread_in_system();
    if (q >= GROUPS) {
        return;
    }
    unsigned long long* scratch =
        observations + 2ull * static_cast<unsigned long long>(params.slot) * SLOT_RECORDS;
    unsigned within = 0u;
    for (unsigned k = params.colour; k + 1u < TEMPERATURES; k += 2u) {
        unsigned mask = 0u;
        for (unsigned j = 0u; j < group_lanes(); j++) {
            const unsigned c = chain_set(q, j);
            if (accept_swap(params, scratch, tables, k, q, j, c)) {
                swap_labels(state, c, k);
                mask |= 1u << j;
                within |= 1u << (k & 31u);
            }
        }
        if (EXCHANGE == EXCHANGE_SYSTEMS) {
            mask = mask != 0u ? 0xffffffffu : 0u;
        }
        masks[k * GROUPS + q] = mask;
    }
    if (EXCHANGE == EXCHANGE_WITHIN_WORDS) {
        masks[q] = within;
    }
    for (unsigned j = 0u; j < group_lanes(); j++) {
        track_round_trips(state, chain_set(q, j));
    }
    clear_scratch(scratch, q);
}
