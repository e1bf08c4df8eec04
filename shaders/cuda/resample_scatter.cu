// Resampling, third kernel, the twin of resample_scatter.wgsl: every replica writes the
// copy-map entries of its copies, at the destinations its chunk's first (resample_scan) and its
// place in the chunk (resample_count) give, so the new population lies in replica order.
// Destinations past the block's slots are dropped: the host refuses such a population before
// the copy kernel reads the map.

#include "dispatch.cuh"
#include "resample.cuh"

// `copies`: `[system]` the copies, then `[system]` the first destination within the chunk.
extern "C" __global__ void resample_scatter(const unsigned* positions, const unsigned* copies,
                                            const unsigned* chunks, unsigned* copy_map) {
    const unsigned s = thread_in_system();
    if (s >= SYSTEMS) {
        return;
    }
    const unsigned n = copies[s];
    const unsigned base = s / SLOTS * SLOTS;
    const unsigned first = chunks[s / CHUNK] + copies[SYSTEMS + s];
    const unsigned source = positions[s];
    for (unsigned i = 0u; i < n && first + i < SLOTS; i++) {
        copy_map[positions[base + first + i]] = source;
    }
}
