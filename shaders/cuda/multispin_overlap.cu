// Sites where the replicas of an overlap pair differ, and the forward bonds of those sites whose
// two ends differ differently (D = a ^ b differs across the bond: q_i q_j = -1, the link
// overlap), per x-plane (and lane for AMSC), counted with bit-sliced lane counters along lines;
// the twin of multispin_overlap.wgsl. blockIdx.z is the pair pw = ts * (REPLICA_WORDS / 2) + rw
// of word systems (ts * REPLICA_WORDS + rw, that + REPLICA_WORDS / 2). CPU twin:
// src/engine/cpu/multispin_overlap.rs. Layout of `overlaps`: [slot][pair][sites,
// bonds][overlap_slot] as u32 counts.

#include "dispatch.cuh"
#include "bitslice.cuh"
#include "multispin_lattice.cuh"

// Word i of one colour array of D = a ^ b. Shifting commutes with XOR, so D's x-neighbours are
// x_neighbours of D's words.
__device__ __forceinline__ unsigned differ(const unsigned* a, const unsigned* b, unsigned i) {
    return a[i] ^ b[i];
}

extern "C" __global__ void multispin_overlap(DispatchParams params, const unsigned* spins,
                                             unsigned* overlaps) {
    const unsigned line = thread_in_system();
    if (line >= lines()) {
        return;
    }
    const unsigned pair = blockIdx.z;
    const unsigned half = REPLICA_WORDS / 2u;
    const unsigned a = (pair / half) * REPLICA_WORDS + pair % half;
    const unsigned b = a + half;
    const unsigned wr = row_words();
    unsigned sites[COUNTER_PLANES] = {};
    unsigned links[COUNTER_PLANES] = {};
    for (unsigned y = 0u; y < L; y++) {
        const unsigned colour = line_colour(line, y);
        const uint2 word = line_word(line, y);
        const WordNeighbours n = word_neighbours(colour, word.x, word.y);
        const unsigned cw = word.x * wr + word.y;
        const unsigned own =
            differ(colour_array(spins, a, colour), colour_array(spins, b, colour), cw);
        const unsigned* other_a = colour_array(spins, a, 1u - colour);
        const unsigned* other_b = colour_array(spins, b, 1u - colour);
        lane_counter_add(sites, own);
        const uint2 x = x_neighbours(differ(other_a, other_b, cw),
                                     differ(other_a, other_b, n.adjacent), n.p);
        lane_counter_add(links, own ^ x.y);
#pragma unroll
        for (unsigned d = 1u; d < DIMS; d++) {
            lane_counter_add(links, own ^ differ(other_a, other_b, n.plus[d - 1u]));
        }
    }
    const uint3 position = line_position(line);
    unsigned* base = overlaps + (static_cast<unsigned long long>(params.slot) * gridDim.z + pair) *
                                    2u * overlap_slots();
    for (unsigned j = 0u; j < 32u; j++) {
        unsigned* slot = base + overlap_slot(position.y, position.z, j);
        const unsigned count = lane_count(sites, j);
        if (count != 0u) {
            atomicAdd(slot, count);
        }
        const unsigned link_count = lane_count(links, j);
        if (link_count != 0u) {
            atomicAdd(slot + overlap_slots(), link_count);
        }
    }
}
