// The hot start of vector spins: site i of system z takes the uniform proposal of block
// (i, 0, VectorInitialSpins, 0, 0, global_index(z)) (the unit vector along the first axis where
// none is: never, a sphere point is no zero vector); a discrete state the state mulhi(w0, q) of
// its word 0. CPU twin: src/engine/cpu/vector_hot_start.rs.
// One thread per site.

#import vector_site

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    load_quarter_turns(thread);
    workgroupBarrier();
    let i = thread_in_system(thread);
    let z = layer(params, thread);
    if i >= lattice_sites() {
        return;
    }
    let key = vec2<u32>(params.seed_lo, params.seed_hi);
    let counter = philox_counter(i, 0u, PURPOSE_VECTOR_INITIAL_SPINS, 0u, global_index(z));
    let words = philox4x32_10(counter, key);
    if STATES > 0u {
        spins[z * lattice_sites() + i] = bitcast<i32>(mulhilo(words.x, STATES).x);
        return;
    }
    let proposed = propose(words, vec3<i32>(0i), UNIFORM);
    let s = select(vec3<i32>(ONE, 0i, 0i), proposed.v, proposed.ok);
    store_spin(z, i, s);
}
