// The exact integer sums of every vector-spin lattice (engine::vector::VectorObservation):
// each thread sums the sites thread, thread + stride, ... in u32 pairs, then adds its sums to
// the system's 64-bit counts (any order gives the same sums) and its largest norm deviation by
// atomicMax. CPU twin: src/engine/cpu/vector_observables.rs.
// Counts of system z from word z * count_words() + OBSERVATION_WORD, in pairs: bonds[3],
// twists[3] (per bond class: on the honeycomb lattice the x bonds of sites of odd x + y are the
// third), magnetisation[3], fourier[d][a][cos, sin], staggered[3] (the magnetisation weighted
// by the sublattice sign), then the norm deviation (one word, saturated at 2^32 - 1 as the
// CPU's is).

#import vector_sums

const OBSERVATION_WORD: u32 = 8u;
const SUMS: u32 = 30u;
const BONDS: u32 = 0u;
const TWISTS: u32 = 3u;
const MAGNETISATION: u32 = 6u;
const FOURIER: u32 = 9u;
const STAGGERED: u32 = 27u;

// |s . s - 1| >> MEASURE_SHIFT, saturated to a u32; 0 for an empty site.
fn norm_deviation(s: vec3<i32>) -> u32 {
    if is_empty(s) {
        return 0u;
    }
    var deviation = wide_sub(dot_wide(s, s), vec2<u32>(0u, 1u << (2u * FRACTION_BITS - 32u)));
    if bitcast<i32>(deviation.y) < 0i {
        deviation = wide_neg(deviation);
    }
    let shifted = wide_shr(deviation, MEASURE_SHIFT);
    return select(0xffffffffu, shifted.x, shifted.y == 0u);
}

// CouplingScale::bond_measure: a measured bond product times the coupling c, floored by the
// coupling's fraction bits.
fn bond_measure(c: i32, product: vec2<u32>) -> vec2<u32> {
    return wide_shr(wide_mul(wide_shr(product, MEASURE_SHIFT), c), COUPLING_BITS);
}

// The site's forward bonds and twists along direction d and (along an axis) its Fourier terms,
// added to `sums`.
fn add_direction(z: u32, i: u32, d: u32, s: vec3<i32>, sums: ptr<function, array<vec2<u32>, 30>>) {
    let j = neighbours(i)[2u * d + 1u];
    let t = load_spin(z, j);
    let c = coupling(z, i * directions() + d);
    (*sums)[BONDS + d] = wide_add((*sums)[BONDS + d], bond_measure(c, dot_wide(s, t)));
    let twist = wide_sub(wide_mul_i32(s.x, t.y), wide_mul_i32(s.y, t.x));
    let twist_class = select(d, 2u, HONEYCOMB == 1u && d == 0u && sublattice_sign(i) < 0i);
    let slot = TWISTS + twist_class;
    (*sums)[slot] = wide_add((*sums)[slot], bond_measure(c, twist));
    if d >= DIMS {
        return;
    }
    let x = coordinate(i, d);
    let cos = phases[x];
    let sin = phases[L + x];
    for (var a = 0u; a < COMPONENTS; a++) {
        let f = FOURIER + 2u * (3u * d + a);
        (*sums)[f] = wide_add((*sums)[f], wide_shr(wide_mul_i32(s[a], cos), FRACTION_BITS));
        (*sums)[f + 1u] = wide_add((*sums)[f + 1u], wide_shr(wide_mul_i32(s[a], sin), FRACTION_BITS));
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let z = layer(params, thread);
    let stride = threads_per_system(thread);
    var sums: array<vec2<u32>, 30>;
    var deviation = 0u;
    for (var i = thread_in_system(thread); i < lattice_sites(); i += stride) {
        let s = load_spin(z, i);
        let sign = sublattice_sign(i);
        for (var a = 0u; a < COMPONENTS; a++) {
            sums[MAGNETISATION + a] = wide_add(sums[MAGNETISATION + a], wide_from_i32(s[a]));
            sums[STAGGERED + a] = wide_add(sums[STAGGERED + a], wide_from_i32(sign * s[a]));
        }
        for (var d = 0u; d < directions(); d++) {
            add_direction(z, i, d, s, &sums);
        }
        deviation = max(deviation, norm_deviation(s));
    }
    let out = z * count_words() + OBSERVATION_WORD;
    for (var k = 0u; k < SUMS; k++) {
        add_i64(out + 2u * k, sums[k]);
    }
    atomicMax(&observations[out + 2u * SUMS], deviation);
}
