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
#include "tempering_decide.cuh"

// Records of the walkers of one group: every temperature's, or one word's with the temperatures
// in its lanes.
__device__ constexpr unsigned group_records() {
    return (EXCHANGE == EXCHANGE_WITHIN_WORDS ? 1u : TEMPERATURES) * LANE_RECORDS;
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
        accepted = accept_swap(params, scratch, tables, k, q, j, global_index(c));
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
