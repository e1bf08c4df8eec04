// Resampling, third kernel: every chunk writes the copy-map entries of its replicas' copies,
// destinations numbered on from the chunk's first (resample_scan), so the new population lies
// in replica order. Destinations past the block's slots are dropped: the host refuses such a
// population before the copy kernel reads the map.

#import dispatch
#import resample

@group(0) @binding(0) var<storage, read> positions: array<u32>;
@group(0) @binding(1) var<storage, read> copies: array<u32>;
@group(0) @binding(2) var<storage, read> chunks: array<u32>;
@group(0) @binding(3) var<storage, read_write> copy_map: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let c = thread_in_system(workgroup, workgroups, local);
    if c >= CHUNKS {
        return;
    }
    let first = c * CHUNK;
    let base = first / SLOTS * SLOTS;
    var d = chunks[c];
    for (var k = 0u; k < CHUNK; k++) {
        let s = first + k;
        let source = positions[s];
        let n = copies[s];
        for (var i = 0u; i < n && d < SLOTS; i++) {
            copy_map[positions[base + d]] = source;
            d++;
        }
    }
}
