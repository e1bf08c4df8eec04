// Sites where the replicas of an overlap pair differ, per x-plane (and lane for AMSC), counted
// with bit-sliced lane counters along lines; the twin of multispin_overlap.wgsl. blockIdx.z is
// the pair pw = ts * (REPLICA_WORDS / 2) + rw of word systems (ts * REPLICA_WORDS + rw, that +
// REPLICA_WORDS / 2). CPU twin: src/engine/cpu/multispin_overlap.rs. Layout of `overlaps`:
// [slot][pair][overlap_slot] as u32 counts.

#include "dispatch.cuh"
#include "bitslice.cuh"
#include "multispin_lattice.cuh"

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
    unsigned differ[COUNTER_PLANES] = {};
    for (unsigned y = 0u; y < L; y++) {
        const unsigned colour = line_colour(line, y);
        const uint2 word = line_word(line, y);
        const unsigned cw = word.x * wr + word.y;
        lane_counter_add(differ, colour_array(spins, a, colour)[cw] ^ colour_array(spins, b, colour)[cw]);
    }
    const uint3 position = line_position(line);
    unsigned* base =
        overlaps + (static_cast<unsigned long long>(params.slot) * gridDim.z + pair) * overlap_slots();
    for (unsigned j = 0u; j < 32u; j++) {
        const unsigned count = lane_count(differ, j);
        if (count != 0u) {
            atomicAdd(base + overlap_slot(position.y, position.z, j), count);
        }
    }
}
