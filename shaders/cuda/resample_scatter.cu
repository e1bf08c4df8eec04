// Resampling, third kernel, the twin of resample_scatter.wgsl: every chunk writes the copy-map
// entries of its replicas' copies, destinations numbered on from the chunk's first
// (resample_scan), so the new population lies in replica order. Destinations past the block's
// slots are dropped: the host refuses such a population before the copy kernel reads the map.

#include "dispatch.cuh"
#include "resample.cuh"

extern "C" __global__ void resample_scatter(const unsigned* positions, const unsigned* copies,
                                            const unsigned* chunks, unsigned* copy_map) {
    const unsigned c = thread_in_system();
    if (c >= CHUNKS) {
        return;
    }
    const unsigned first = c * CHUNK;
    const unsigned base = first / SLOTS * SLOTS;
    unsigned d = chunks[c];
    for (unsigned k = 0u; k < CHUNK; k++) {
        const unsigned s = first + k;
        const unsigned source = positions[s];
        const unsigned n = copies[s];
        for (unsigned i = 0u; i < n && d < SLOTS; i++) {
            copy_map[positions[base + d]] = source;
            d++;
        }
    }
}
