// Resampling, first kernel, the twin of resample_count.wgsl: every replica's copies from its
// table entry and its Philox uniform (src/engine/annealing.rs), its first destination within
// its chunk, their sum per chunk, and the identity copy map entry of every system (the scatter
// kernel then points the new population's entries at their sources).

#include "dispatch.cuh"
#include "philox.cuh"
#include "resample_observations.cuh"

// `positions`: per system its copy-map entry, `g * 32 + lane` (AMSC) or `g` (SMSC); `copies`:
// `[system]` the copies, then `[system]` the first destination within the chunk.
// The buffers do not alias (`__restrict__`), so a thread's loads for the next replicas need not
// wait for its stores.
extern "C" __global__ void resample_count(ResampleParams params,
                                          const unsigned long long* __restrict__ observations,
                                          const unsigned* __restrict__ positions,
                                          const TableHead* __restrict__ heads,
                                          const uint2* __restrict__ entries,
                                          unsigned* __restrict__ copies,
                                          unsigned* __restrict__ chunks,
                                          unsigned* __restrict__ copy_map) {
    const unsigned c = thread_in_system();
    if (c >= CHUNKS) {
        return;
    }
    const unsigned first = c * CHUNK;
    const TableHead head = heads[first / SLOTS];
    const uint2 seed = make_uint2(params.seed_lo, params.seed_hi);
    uint4 uniforms = make_uint4(0u, 0u, 0u, 0u);
    unsigned total = 0u;
#pragma unroll
    for (unsigned k = 0u; k < CHUNK; k++) {
        const unsigned s = first + k;
        const unsigned j = s % SLOTS;
        const unsigned position = positions[s];
        copy_map[position] = position;
        unsigned n = 0u;
        if (j < head.size) {
            // One Philox block serves four replicas; a chunk starts at a multiple of four.
            if (j % 4u == 0u) {
                const uint4 counter =
                    philox_counter(j / 4u, params.step, PURPOSE_RESAMPLE, 0u, head.batch);
                uniforms = philox4x32_10(counter, seed);
            }
            const unsigned key = params.keyed == KEYED_REPLICA
                                     ? j
                                     : count_at(observations, params.observation_base,
                                                position, SATISFIED) - head.lo;
            // A level outside the table cannot come from its measurement: no copies.
            if (key < head.len) {
                const uint2 entry = entries[head.offset + key];
                const unsigned lanes[4] = {uniforms.x, uniforms.y, uniforms.z, uniforms.w};
                n = entry.x + (lanes[j % 4u] < entry.y ? 1u : 0u);
            }
        }
        copies[s] = n;
        // The replica's first destination within its chunk.
        copies[SYSTEMS + s] = total;
        total += n;
    }
    chunks[c] = total;
}
