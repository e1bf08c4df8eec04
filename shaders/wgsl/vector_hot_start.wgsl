// The hot start of vector spins: site i of system z takes the first usable uniform proposal of
// blocks (i, 0, VectorInitialSpins, attempt, 0, global_index(z)), the unit vector along the
// first axis where none is. CPU twin: src/engine/cpu/vector_hot_start.rs. One thread per site.

#import vector_site

@compute @workgroup_size(WG_SIZE)
fn main(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_in_system(workgroup, workgroups, local);
    let z = workgroup.z;
    if i >= lattice_sites() {
        return;
    }
    let key = vec2<u32>(params.seed_lo, params.seed_hi);
    let batch = global_index(z);
    var s = vec3<i32>(ONE, 0i, 0i);
    for (var attempt = 0u; attempt < PROPOSAL_ATTEMPTS; attempt++) {
        let counter = philox_counter(i, 0u, PURPOSE_VECTOR_INITIAL_SPINS, attempt << 1u, batch);
        let proposed = propose(philox4x32_10(counter, key), s, UNIFORM);
        if proposed.ok {
            s = proposed.v;
            break;
        }
    }
    store_spin(z, i, s);
}
