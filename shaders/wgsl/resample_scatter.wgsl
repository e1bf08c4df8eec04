// Resampling, third kernel: every destination of a new population finds its source, the
// replica whose copies cover it (the last replica of the block whose first destination, its
// chunk's first from resample_scan plus its place in the chunk from resample_count, is not
// past it: a binary search), and writes its copy-map entry, so the new population lies in
// replica order. One invocation per destination, so a replica with thousands of copies (a
// large temperature step) costs no longer chain than one with one. Destinations past the
// block's slots do not exist: the host refuses such a population before the copy kernel reads
// the map.

#import dispatch
#import resample

@group(0) @binding(0) var<storage, read> positions: array<u32>;
// `[system]` the copies, then `[system]` the first destination within the chunk.
@group(0) @binding(1) var<storage, read> copies: array<u32>;
@group(0) @binding(2) var<storage, read> chunks: array<u32>;
@group(0) @binding(3) var<storage, read> sizes: array<u32>;
@group(0) @binding(4) var<storage, read_write> copy_map: array<u32>;

// The first destination of system `s` within its block.
fn first_destination(s: u32) -> u32 {
    return chunks[s / CHUNK] + copies[SYSTEMS + s];
}

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let destination = thread_in_system(thread);
    if destination >= SYSTEMS {
        return;
    }
    let base = destination / SLOTS * SLOTS;
    let d = destination - base;
    if d >= sizes[destination / SLOTS] {
        return;
    }
    // The last replica j of the block with first_destination(base + j) <= d: replicas without
    // copies share their first destination with the next one, which comes later.
    var lo = 0u;
    var hi = SLOTS - 1u;
    while lo < hi {
        let mid = hi - (hi - lo) / 2u;
        if first_destination(base + mid) <= d {
            lo = mid;
        } else {
            hi = mid - 1u;
        }
    }
    copy_map[positions[destination]] = positions[base + lo];
}
