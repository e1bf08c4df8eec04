// Metropolis on one checkerboard colour of every vector-spin lattice: update thread ci of system
// z (the dispatch's threads from params.first_thread: a piece of a sweep runs some of them)
// updates the ci-th site of params.colour, HITS proposals against its local field, in the
// fixed-point arithmetic of vector.wgsl, each hit vector_hit.wgsl's. CPU twin:
// src/engine/cpu/vector_metropolis.rs (the randoms: block (i, sweep, VectorMetropolis, hit,
// colour, z), words 0 and 1 the point of the sphere, word 3 the acceptance word).
// Accepted moves of the updated sites are summed per workgroup, then added to the system's
// 64-bit count (counts words 0, 1); where the systems lie flat along the grid (FLAT_SYSTEMS,
// pass_thread), each thread adds its own.

#import vector_hit

// Proposals per site (VectorSweeps::hits).
override HITS: u32 = 1u;

// The hits of site i of system z from spin s; returns the moves accepted (spin updated).
fn update_site(z: u32, i: u32, h: vec3<i32>, s: ptr<function, vec3<i32>>) -> u32 {
    let t = temperature_of(z);
    let width = widths[t];
    let table = t * 4u * TABLE_BYTE;
    var accepted = 0u;
    for (var hit = 0u; hit < HITS; hit++) {
        accepted += u32(metropolis_hit(z, i, params.colour, hit, h, s, width, table));
    }
    return accepted;
}

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    load_quarter_turns(thread);
    workgroupBarrier();
    let at = pass_thread(thread, select(lattice_sites() / 2u, params.threads, params.threads != 0u));
    let ci = at.t + params.first_thread;
    let z = at.z;
    var accepted = 0u;
    if at.live && ci < lattice_sites() / 2u && dispatched(params, ci) {
        let i = colour_site(params.colour, ci);
        var s = load_spin(z, i);
        if !is_empty(s) {
            accepted = update_site(z, i, local_field(z, i), &s);
            store_spin(z, i, s);
        }
    }
    count_accepted(thread, z, accepted);
}
