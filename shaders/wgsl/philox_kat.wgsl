// Philox on the GPU for the known-answer tests: thread i maps (counter, key) pair i to 4 words.
// Layout of `philox_io`: 6 input words (counter x4, key x2) then 4 output words per pair.

#import dispatch
#import philox

@group(0) @binding(1) var<storage, read_write> philox_io: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let base = 10u * id.x;
    if base >= arrayLength(&philox_io) {
        return;
    }
    let counter = vec4<u32>(philox_io[base], philox_io[base + 1u], philox_io[base + 2u], philox_io[base + 3u]);
    let key = vec2<u32>(philox_io[base + 4u], philox_io[base + 5u]);
    let out = philox4x32_10(counter, key);
    for (var i = 0u; i < 4u; i++) {
        philox_io[base + 6u + i] = out[i];
    }
}
