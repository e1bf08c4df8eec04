// One Metropolis hit of one vector spin, shared by vector_metropolis (the plain checkerboard)
// and vector_tiles (the double checkerboard): the twin of metropolis_hit and energy_change in
// src/engine/cpu/vector_metropolis.rs. Randoms: block (i, sweep, VectorMetropolis, hit, colour,
// global_index(z)), words 0 (and 1) the point of the sphere, word 3 the acceptance word.

#import vector_site

// vector_metropolis::energy_change: (s - v) . h, exactly; each s_a - v_a, a difference of unit
// vectors' components, fits an i32.
fn energy_change(s: vec3<i32>, v: vec3<i32>, h: vec3<i32>) -> vec2<u32> {
    var sum = vec2<u32>(0u, 0u);
    for (var a = 0u; a < COMPONENTS; a++) {
        sum = wide_add(sum, wide_mul_i32(s[a] - v[a], h[a]));
    }
    return sum;
}

// vector_metropolis::metropolis_hit: hit `hit` of site i (of checkerboard colour `colour`) of
// system z against its local field h, the proposal of the hit's block, with the proposal width and the acceptance table (its first word) of z's temperature; whether it was
// accepted (s replaced).
fn metropolis_hit(
    z: u32,
    i: u32,
    colour: u32,
    hit: u32,
    h: vec3<i32>,
    s: ptr<function, vec3<i32>>,
    width: i32,
    table: u32,
) -> bool {
    let key = vec2<u32>(params.seed_lo, params.seed_hi);
    let purpose = (hit << 1u) | colour;
    let counter = philox_counter(i, params.sweep, PURPOSE_VECTOR_METROPOLIS, purpose, global_index(z));
    let words = philox4x32_10(counter, key);
    let v = propose(words, *s, width);
    if v.ok && accepts(energy_change(*s, v.v, h), words.w, table) {
        *s = v.v;
        return true;
    }
    return false;
}
