// Metropolis on one checkerboard colour of every vector-spin lattice: update thread ci of system
// z (the dispatch's threads from params.first_thread: a piece of a sweep runs some of them)
// updates the ci-th site of params.colour, HITS proposals against its local field, in the
// fixed-point arithmetic of vector.wgsl, each hit vector_hit.wgsl's. CPU twin:
// src/engine/cpu/vector_metropolis.rs (the randoms: hit_words of site i, its draws the blocks
// (i, sweep, VectorMetropolis, draw, colour, z)).
// Accepted moves of the updated sites are summed per workgroup, then added to the system's
// 64-bit count (counts words 0, 1); where the systems lie flat along the grid (FLAT_SYSTEMS,
// pass_thread), each thread adds its own.

#import vector_hit

// Proposals per site (VectorSweeps::hits).
override HITS: u32 = 1u;

// HitWords::next: the words of hit `hit` of site i (its earlier hits asked for already;
// `spare` the words 2-3 an XY pair's first hit left for its second, in registers).
fn hit_words(z: u32, i: u32, colour: u32, hit: u32, heat_bath: bool, spare: ptr<function, vec2<u32>>) -> vec4<u32> {
    if takes_spare(hit, heat_bath) {
        return pair_words(*spare);
    }
    let words = hit_draw(z, i, colour, draw_of(hit, heat_bath));
    if in_pairs(heat_bath) {
        *spare = words.zw;
        return pair_words(words.xy);
    }
    return words;
}

// The hits of site i of system z from spin s; returns the moves accepted (spin updated).
fn update_site(z: u32, i: u32, h: vec3<i32>, s: ptr<function, vec3<i32>>) -> u32 {
    let t = temperature_of(z);
    let width = widths[t];
    let table = t * 4u * TABLE_BYTE;
    var accepted = 0u;
    var spare = vec2<u32>(0u);
    for (var hit = 0u; hit < HITS; hit++) {
        let words = hit_words(z, i, params.colour, hit, width == HEAT_BATH, &spare);
        accepted += u32(metropolis_hit(words, h, s, width, table));
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
