// One Metropolis hit of one vector spin, shared by vector_metropolis (the plain checkerboard)
// and vector_tiles (the double checkerboard): the twin of metropolis_hit and energy_change in
// src/engine/cpu/vector_metropolis.rs. Randoms: draw d of site i is the block (i, sweep,
// VectorMetropolis, d, colour, global_index(z)); a hit's words (HitWords in
// vector_metropolis.rs) are words 0 (and 1) the point of the sphere, word 3 the acceptance word:
// a Heisenberg hit's and a clock's heat bath's (word 0) of draw `hit`, XY's hits 2k and 2k + 1
// halves of draw k (pair_words).

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

// vector_metropolis::heat_bath: the first clock state whose cumulative Boltzmann weight
// (threshold of its alignment's shortfall from the best state's) exceeds floor(u W / 2^32), W
// the total weight (below 2^48: W_hi u + mulhi(W_lo, u)).
fn heat_bath(u: u32, h: vec3<i32>, table: u32) -> vec3<i32> {
    var best = dot_wide(clock_spin(0u), h);
    for (var k = 1u; k < CLOCK; k++) {
        let alignment = dot_wide(clock_spin(k), h);
        if wide_less(best, alignment) {
            best = alignment;
        }
    }
    var total = vec2<u32>(0u, 0u);
    for (var k = 0u; k < CLOCK; k++) {
        total = wide_add(total, vec2<u32>(clock_weight(k, h, best, table), 0u));
    }
    let pick = heat_bath_target(total, u);
    var cumulative = vec2<u32>(0u, 0u);
    for (var k = 0u; k < CLOCK; k++) {
        cumulative = wide_add(cumulative, vec2<u32>(clock_weight(k, h, best, table), 0u));
        if wide_less(pick, cumulative) {
            return clock_spin(k);
        }
    }
    return clock_spin(CLOCK - 1u);
}

// The Boltzmann weight of clock state k in the field h: the threshold of best - s_k . h, in
// table units.
fn clock_weight(k: u32, h: vec3<i32>, best: vec2<u32>, table: u32) -> u32 {
    let shortfall = wide_sub(best, dot_wide(clock_spin(k), h));
    return threshold(wide_shr(shortfall, ENERGY_SHIFT - FIELD_SHIFT).x, table);
}

// The block of draw d of site i (of checkerboard colour `colour`) of system z.
fn hit_draw(z: u32, i: u32, colour: u32, d: u32) -> vec4<u32> {
    let key = vec2<u32>(params.seed_lo, params.seed_hi);
    let purpose = (d << 1u) | colour;
    let counter = philox_counter(i, params.sweep, PURPOSE_VECTOR_METROPOLIS, purpose, global_index(z));
    return philox4x32_10(counter, key);
}

// HitWords::in_pairs: whether a site's hits share their blocks in pairs (XY's and a clock's
// Metropolis hits, not Heisenberg's or the heat bath's).
fn in_pairs(heat_bath: bool) -> bool {
    return COMPONENTS == 2u && !heat_bath;
}

// HitWords::next: whether hit `hit` of a site takes the words of the hit before it, the
// second of an XY pair.
fn takes_spare(hit: u32, heat_bath: bool) -> bool {
    return in_pairs(heat_bath) && hit % 2u == 1u;
}

// HitWords::next: the draw whose block hit `hit` of a site opens (an XY pair's first hit, any
// other hit but a pair's second).
fn draw_of(hit: u32, heat_bath: bool) -> u32 {
    return select(hit, hit / 2u, in_pairs(heat_bath));
}

// The words of an XY pair's hit from its half (a, b) of the pair's block: the point's word a at
// 0, the acceptance word b at 3.
fn pair_words(half: vec2<u32>) -> vec4<u32> {
    return vec4<u32>(half.x, 0u, 0u, half.y);
}

// vector_metropolis::metropolis_hit: a hit of spin s against its local field h, the proposal
// of the hit's words (hit_words), with the proposal width and the acceptance table (its first
// word) of its system's temperature; whether it was accepted (s replaced). A clock's heat bath
// (width HEAT_BATH) replaces s and counts where it changed.
fn metropolis_hit(words: vec4<u32>, h: vec3<i32>, s: ptr<function, vec3<i32>>, width: i32, table: u32) -> bool {
    if width == HEAT_BATH {
        let v = heat_bath(words.x, h, table);
        let changed = any(v != *s);
        *s = v;
        return changed;
    }
    let v = propose(words, *s, width);
    if v.ok && accepts(energy_change(*s, v.v, h), words.w, table) {
        *s = v.v;
        return true;
    }
    return false;
}
