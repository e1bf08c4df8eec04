// Resampling, third kernel, the twin of resample_scatter.wgsl: every destination of a new
// population finds its source, the replica whose copies cover it (the last replica of the block
// whose first destination, its chunk's first from resample_scan plus its place in the chunk
// from resample_count, is not past it: a binary search), and writes its copy-map entry, so the
// new population lies in replica order. One thread per destination, so a replica with
// thousands of copies costs no longer chain than one with one. Destinations past the block's
// slots do not exist: the host refuses such a population before the copy kernel reads the map.

#include "dispatch.cuh"
#include "resample.cuh"

// `copies`: `[system]` the copies, then `[system]` the first destination within the chunk.
extern "C" __global__ void resample_scatter(const unsigned* positions, const unsigned* copies,
                                            const unsigned* chunks, const unsigned* sizes,
                                            unsigned* copy_map) {
    const unsigned destination = thread_in_system();
    if (destination >= SYSTEMS) {
        return;
    }
    const unsigned base = destination / SLOTS * SLOTS;
    const unsigned d = destination - base;
    if (d >= sizes[destination / SLOTS]) {
        return;
    }
    // The last replica j of the block whose first destination is not past d: replicas without
    // copies share their first destination with the next one, which comes later.
    unsigned lo = 0u;
    unsigned hi = SLOTS - 1u;
    while (lo < hi) {
        const unsigned mid = hi - (hi - lo) / 2u;
        const unsigned s = base + mid;
        if (chunks[s / CHUNK] + copies[SYSTEMS + s] <= d) {
            lo = mid;
        } else {
            hi = mid - 1u;
        }
    }
    copy_map[positions[destination]] = positions[base + lo];
}
