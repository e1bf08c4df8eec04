// Resampling, first kernel, the twin of resample_count.wgsl: every replica's copies from its
// table entry and its Philox uniform (src/engine/annealing.rs), each one's first destination
// within its chunk and the chunk's sum, and the identity copy map entry of every system (the
// scatter kernel then points the new population's entries at their sources).

#include "philox.cuh"
#include "resample_observations.cuh"

// One block of CHUNK threads per chunk, one thread per system. `positions`: per system its
// copy-map entry, `g * 32 + lane` (AMSC) or `g` (SMSC); `copies`: `[system]` the copies, then
// `[system]` the first destination within the chunk.
extern "C" __global__ void resample_count(ResampleParams params,
                                          const unsigned long long* observations,
                                          const unsigned* positions, const TableHead* heads,
                                          const uint2* entries, unsigned* copies,
                                          unsigned* chunks, unsigned* copy_map) {
    __shared__ unsigned prefix[CHUNK];
    const unsigned c = blockIdx.x + blockIdx.y * gridDim.x;
    const unsigned k = threadIdx.x;
    // The same for the whole block, so its barriers are reached by every thread.
    const bool inside = c < CHUNKS;
    const unsigned s = c * CHUNK + k;
    unsigned n = 0u;
    if (inside) {
        const unsigned j = s % SLOTS;
        const TableHead head = heads[s / SLOTS];
        const unsigned position = positions[s];
        copy_map[position] = position;
        if (j < head.size) {
            // Replica j's word of the Philox block its group of four shares.
            const uint4 counter =
                philox_counter(j / 4u, params.step, PURPOSE_RESAMPLE, 0u, head.batch);
            const uint4 uniforms =
                philox4x32_10(counter, make_uint2(params.seed_lo, params.seed_hi));
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
    }
    prefix[k] = n;
    __syncthreads();
    // Inclusive scan of the chunk's copies (Hillis-Steele).
    for (unsigned offset = 1u; offset < CHUNK; offset *= 2u) {
        const unsigned before = k >= offset ? prefix[k - offset] : 0u;
        __syncthreads();
        prefix[k] += before;
        __syncthreads();
    }
    if (inside) {
        // The system's first destination within its chunk, after the copies.
        copies[SYSTEMS + s] = prefix[k] - n;
        if (k == CHUNK - 1u) {
            chunks[c] = prefix[k];
        }
    }
}
