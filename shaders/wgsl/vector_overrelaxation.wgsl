// Over-relaxation of one checkerboard colour of every vector-spin lattice: each spin reflected
// about its local field and normalised again; no randoms. CPU twin:
// src/engine/cpu/vector_overrelaxation.rs. One thread per site of the colour: update thread ci
// (the dispatch's threads from params.first_thread: a piece of a sweep runs some of them) takes
// the ci-th site.

#import vector_site

// vector_overrelaxation::reflect: unit(2 ((s . d) >> 28) d - s) with d = unit(h); s where h or
// the reflection is zero.
fn reflect(s: vec3<i32>, h: vec3<i32>) -> vec3<i32> {
    let direction = unit(h);
    if !direction.ok {
        return s;
    }
    let twice_projection = wide_shl(wide_shr(dot_wide(s, direction.v), FRACTION_BITS), 1u);
    var v = vec3<i32>(0i);
    for (var a = 0u; a < COMPONENTS; a++) {
        let along = wide_shr(wide_mul(twice_projection, direction.v[a]), FRACTION_BITS);
        v[a] = bitcast<i32>(along.x) - s[a];
    }
    let reflected = unit(v);
    return select(s, reflected.v, reflected.ok);
}

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let ci = thread_in_system(thread) + params.first_thread;
    let z = layer(params, thread);
    if ci >= lattice_sites() / 2u || !dispatched(params, ci) {
        return;
    }
    let i = colour_site(params.colour, ci);
    store_spin(z, i, reflect(load_spin(z, i), local_field(z, i)));
}
