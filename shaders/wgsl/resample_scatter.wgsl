// Resampling, third kernel: every replica writes the copy-map entries of its copies, at the
// destinations its chunk's first (resample_scan) and its place in the chunk (resample_count)
// give, so the new population lies in replica order. Destinations past the block's slots are
// dropped: the host refuses such a population before the copy kernel reads the map.

#import dispatch
#import resample

@group(0) @binding(0) var<storage, read> positions: array<u32>;
// `[system]` the copies, then `[system]` the first destination within the chunk.
@group(0) @binding(1) var<storage, read> copies: array<u32>;
@group(0) @binding(2) var<storage, read> chunks: array<u32>;
@group(0) @binding(3) var<storage, read_write> copy_map: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let s = thread_in_system(workgroup, workgroups, local);
    if s >= SYSTEMS {
        return;
    }
    let n = copies[s];
    let base = s / SLOTS * SLOTS;
    let first = chunks[s / CHUNK] + copies[SYSTEMS + s];
    let source = positions[s];
    for (var i = 0u; i < n && first + i < SLOTS; i++) {
        copy_map[positions[base + first + i]] = source;
    }
}
