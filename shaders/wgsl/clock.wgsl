// What the clock spins' cluster kernels share (clock_bonds, clock_flip), the twin of clock.cuh:
// Wolff's embedding of the clock model (src/engine/clusters.rs). Group 0 is the vector engine's
// (its spins, two components a site: component a of site i of system z at (2 z + a) N + i, and
// its temperatures' acceptance tables), group 1 the cluster buffers (cluster.wgsl).

#import dispatch
#import philox
#import lattice
#import slice
#import cluster
#import cluster_draws
#import vector
#import vector_spins

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(1) var<storage, read_write> spins: array<i32>;
@group(0) @binding(2) var<storage, read> tables: array<u32>;

// Words of a temperature's acceptance table (fixed::TABLE_LEN).
const TABLE_WORDS: u32 = 1024u;

// engine::clusters::clock_mirror: m = mulhi(w, q), w word 2 of the update's Wolff block
// `words` (wolff_block).
fn clock_mirror(words: vec4<u32>) -> u32 {
    return mulhilo(words.z, CLOCK).x;
}

// The spin of the state that mirror m reflects s's state k into, (m - k) mod q
// (engine::clusters::reflected_state; the spin as vector_metropolis::clock_spin makes it).
fn reflected(s: vec3<i32>, mirror: u32) -> vec3<i32> {
    let k = clock_index(s);
    let point = cos_sin_turn(clock_turn((mirror + CLOCK - k) % max(CLOCK, 1u)));
    return unit(vec3<i32>(point.x, point.y, 0i)).v;
}
