// Resampling, first kernel: every replica's copies from its table entry and its Philox
// uniform (src/engine/annealing.rs), each one's first destination within its chunk and the
// chunk's sum, and the identity copy map entry of every system (the scatter kernel then points
// the new population's entries at their sources).

#import philox
#import resample_observations

@group(0) @binding(3) var<storage, read> heads: array<TableHead>;
@group(0) @binding(4) var<storage, read> entries: array<vec2<u32>>;
// `[system]` the copies, then `[system]` the first destination within the chunk.
@group(0) @binding(5) var<storage, read_write> copies: array<u32>;
@group(0) @binding(6) var<storage, read_write> chunks: array<u32>;
@group(0) @binding(7) var<storage, read_write> copy_map: array<u32>;

// The chunk's copies, scanned: after the scan, entry k holds the copies of systems 0 ..= k.
var<workgroup> prefix: array<u32, CHUNK>;

// One workgroup per chunk, one invocation per system.
@compute @workgroup_size(CHUNK)
fn main(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) k: u32,
) {
    let c = workgroup.x + workgroup.y * workgroups.x;
    // The same for the whole workgroup, so its barriers stay in uniform control flow.
    let inside = c < CHUNKS;
    let s = c * CHUNK + k;
    var n = 0u;
    if inside {
        let j = s % SLOTS;
        let head = heads[s / SLOTS];
        let position = positions[s];
        copy_map[position] = position;
        if j < head.size {
            // Replica j's word of the Philox block its group of four shares.
            let counter = philox_counter(j / 4u, params.step, PURPOSE_RESAMPLE, 0u, head.batch);
            let uniforms = philox4x32_10(counter, vec2<u32>(params.seed_lo, params.seed_hi));
            var key = j;
            if params.keyed != KEYED_REPLICA {
                key = count_at(position, SATISFIED) - head.lo;
            }
            // A level outside the table cannot come from its measurement: no copies.
            if key < head.len {
                let entry = entries[head.offset + key];
                n = entry.x + select(0u, 1u, uniforms[j % 4u] < entry.y);
            }
        }
        copies[s] = n;
    }
    prefix[k] = n;
    workgroupBarrier();
    // Inclusive scan of the chunk's copies (Hillis-Steele).
    for (var offset = 1u; offset < CHUNK; offset *= 2u) {
        var before = 0u;
        if k >= offset {
            before = prefix[k - offset];
        }
        workgroupBarrier();
        prefix[k] += before;
        workgroupBarrier();
    }
    if inside {
        // The system's first destination within its chunk, after the copies.
        copies[SYSTEMS + s] = prefix[k] - n;
        if k == CHUNK - 1u {
            chunks[c] = prefix[k];
        }
    }
}
