// Resampling, first kernel: every replica's copies from its table entry and its Philox
// uniform (src/engine/annealing.rs), its first destination within its chunk, their sum per
// chunk, and the identity copy map entry of every system (the scatter kernel then points the
// new population's entries at their sources).

#import dispatch
#import philox
#import resample_observations

@group(0) @binding(3) var<storage, read> heads: array<TableHead>;
@group(0) @binding(4) var<storage, read> entries: array<vec2<u32>>;
// `[system]` the copies, then `[system]` the first destination within the chunk.
@group(0) @binding(5) var<storage, read_write> copies: array<u32>;
@group(0) @binding(6) var<storage, read_write> chunks: array<u32>;
@group(0) @binding(7) var<storage, read_write> copy_map: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let c = thread_in_system(thread);
    if c >= CHUNKS {
        return;
    }
    let first = c * CHUNK;
    let head = heads[first / SLOTS];
    let seed = vec2<u32>(params.seed_lo, params.seed_hi);
    var uniforms = vec4<u32>();
    var total = 0u;
    for (var k = 0u; k < CHUNK; k++) {
        let s = first + k;
        let j = s % SLOTS;
        let position = positions[s];
        copy_map[position] = position;
        var n = 0u;
        if j < head.size {
            // One Philox block serves four replicas; a chunk starts at a multiple of four.
            if j % 4u == 0u {
                let counter = philox_counter(j / 4u, params.step, PURPOSE_RESAMPLE, 0u, head.batch);
                uniforms = philox4x32_10(counter, seed);
            }
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
        // The replica's first destination within its chunk.
        copies[SYSTEMS + s] = total;
        total += n;
    }
    chunks[c] = total;
}
