// One site of a vector-spin lattice, the twin of SiteUpdate and propose in
// src/engine/cpu/vector_metropolis.rs, and the bindings every vector kernel shares
// (engine::wgpu::vector): 0 dispatch parameters, 1 spins (component a of site i of system b at
// (b n + a) N + i), 2 acceptance tables (fixed::TABLE_LEN words per temperature), 3 counts
// (count_words() per system: accepted moves, then the observation), 4 couplings (one i32 per bond
// site * directions() + d and sample, or the one uniform J; fixed point for the Gaussian glass), 5
// proposal widths per temperature, 6 phases (cos then sin of 2 pi x / L, spin units; then a
// discrete model's P(a, b), V(a) and s(a), or unit vectors' quarter turn table,
// engine::vector_gpu::lookup_words). System z draws the randoms of batch global_index(z), the
// run's index of the system (slice.wgsl: z itself but in an engine of a sample slice, whose
// couplings are its samples').

#import dispatch
#import lattice
#import philox
#import slice
#import vector
#import vector_spins
#import counters

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(1) var<storage, read_write> spins: array<i32>;
@group(0) @binding(2) var<storage, read> tables: array<u32>;
@group(0) @binding(3) var<storage, read_write> observations: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> couplings: array<i32>;
@group(0) @binding(5) var<storage, read> widths: array<i32>;
@group(0) @binding(6) var<storage, read> phases: array<i32>;

override SAMPLES: u32 = 1u;
override REPLICAS: u32 = 1u;
// Whether couplings holds one J for every bond (the ferromagnet) instead of one per bond.
override UNIFORM_COUPLINGS: bool = true;
// Fractional bits of a coupling (CouplingScale::fraction_bits): 0 for J = 1 and J = +-1 (then
// FIELD_SHIFT is 0 too), 24 for the Gaussian glass.
override COUPLING_BITS: u32 = 0u;
// The uniform field along the first component, local-field units as i32 bits (overrides of
// the host are unsigned).
override FIELD_BITS: u32 = 0u;
override FIELD: i32 = i32(FIELD_BITS);

const PURPOSE_VECTOR_METROPOLIS: u32 = 11u;
const PURPOSE_VECTOR_INITIAL_SPINS: u32 = 12u;
const UNIFORM: i32 = 0i;
const HEAT_BATH: i32 = -1i;
// 64-bit counters per system (engine::vector_gpu::counters): accepted (1), spare (3), the
// observation (31); for discrete states then their counts, Fourier components and staggered
// counts (8 q).
override COUNTERS: u32 = 35u;

// Words of counts per system, the counters as (low, high) pairs.
fn count_words() -> u32 {
    return 2u * COUNTERS;
}
// A discrete model's states q (0 for unit vectors), a state a word; their tables follow the
// phases. State q is the vacancy of an empty site.
override STATES: u32 = 0u;

// The states in the tables: the vacancy too (States::table_words).
fn table_states() -> u32 {
    return STATES + 1u;
}

fn temperature_of(system: u32) -> u32 {
    return system / (SAMPLES * REPLICAS);
}

// Whether the Metropolis kernels lay the systems' threads one after another along the grid
// (MetropolisLaunch::flat, for lattices whose threads fill less than a workgroup), each thread
// adding its accepted moves to its system's count, instead of a grid layer a system whose
// workgroup adds them once.
override FLAT_SYSTEMS: u32 = 0u;

// A Metropolis kernel's thread: its system z, its index t among the `threads` threads a system
// of its pass (from 0, before params.first_thread), and whether z is a system (a flat grid's
// last workgroup runs past the last one).
struct PassThread {
    z: u32,
    t: u32,
    live: bool,
}

fn pass_thread(thread: Thread, threads: u32) -> PassThread {
    if FLAT_SYSTEMS == 1u {
        let g = thread_in_system(thread);
        return PassThread(g / threads, g % threads, g / threads < params.systems);
    }
    return PassThread(layer(params, thread), thread_in_system(thread), true);
}

// The moves a Metropolis kernel's workgroup accepted (zero at the workgroup's start).
var<workgroup> workgroup_accepted: atomic<u32>;

// Add a Metropolis thread's `accepted` moves to system z's count (counts words 0, 1): at once
// where the systems lie flat along the grid (FLAT_SYSTEMS), else summed over the workgroup,
// which thread 0 adds; the twin of count_accepted in vector_site.cuh. Every thread of the
// workgroup calls it.
fn count_accepted(thread: Thread, z: u32, accepted: u32) {
    if FLAT_SYSTEMS == 1u {
        if accepted != 0u {
            add_u64(z * count_words(), accepted);
        }
        return;
    }
    atomicAdd(&workgroup_accepted, accepted);
    workgroupBarrier();
    if thread.local == 0u {
        add_u64(z * count_words(), atomicLoad(&workgroup_accepted));
    }
}

// J of bond `bond` (site * directions() + d) of system b's sample.
fn coupling(b: u32, bond: u32) -> i32 {
    if UNIFORM_COUPLINGS {
        return couplings[0];
    }
    let sample = (b / REPLICAS) % SAMPLES;
    return couplings[sample * directions() * lattice_sites() + bond];
}

// The bond between site i and its k-th neighbour j (site * directions() + d of the site whose
// +d neighbour the other is).
fn neighbour_bond(i: u32, j: u32, k: u32) -> u32 {
    let d = k / 2u;
    return select(i * directions() + d, j * directions() + d, k % 2u == 0u);
}

// CouplingScale::bond_field of each component of s: J s, exactly in 32 bits for the integer
// couplings (no 64-bit product where it is not needed), else the 64-bit product floored to
// local-field units.
fn bond_field(j: i32, s: vec3<i32>) -> vec3<i32> {
    if COUPLING_BITS == 0u {
        return j * s;
    }
    var h = vec3<i32>(0i);
    for (var a = 0u; a < COMPONENTS; a++) {
        h[a] = bitcast<i32>(wide_shr(wide_mul_i32(j, s[a]), COUPLING_BITS + FIELD_SHIFT).x);
    }
    return h;
}

// SiteUpdate::local_field: sum_j J_ij s_j plus the uniform field, in local-field units.
fn local_field(b: u32, i: u32) -> vec3<i32> {
    var h = vec3<i32>(FIELD, 0i, 0i);
    let near = neighbours(i);
    for (var k = 0u; k < coordination(); k++) {
        let j = near[k];
        h += bond_field(coupling(b, neighbour_bond(i, j, k)), load_spin(b, j));
    }
    return h;
}

// StateUpdate::energy's P(a, b) in the units a coupling word multiplies: table units for the
// integer couplings, whole units for the Gaussian words (their 2^-24 steps the table's); 0
// where either is the vacancy, state STATES.
fn state_pair(a: u32, b: u32) -> i32 {
    return phases[2u * L + a * table_states() + b] >> COUPLING_BITS;
}

// States::site: V(a) in table units.
fn state_site(a: u32) -> i32 {
    return phases[2u * L + table_states() * table_states() + a];
}

// States::value: s(a).
fn state_value(a: u32) -> i32 {
    return phases[2u * L + table_states() * (table_states() + 1u) + a];
}

// The state of site i of system b.
fn load_state(b: u32, i: u32) -> u32 {
    return bitcast<u32>(spins[b * lattice_sites() + i]);
}

// fixed::quarter_turn_table, from the lookup words after the phases (unit vectors only:
// lookup_words), copied by load_quarter_turns for cos_sin_tabulated.
var<workgroup> quarter_turns: array<vec2<u32>, QUARTER_TURNS>;

// fixed::QUARTER_TURNS, QUARTER_TURN_SHIFT, PI_BITS and SIXTH_BITS: the table's entries, the
// bits of a quarter turn's fraction below an entry, round(pi 2^30) and round(2^18 / 6).
const QUARTER_TURNS: u32 = 256u;
const QUARTER_TURN_SHIFT: u32 = 22u;
const PI_BITS: u32 = 3373259426u;
const SIXTH_BITS: u32 = 43691u;

// Copy the quarter turn's table into workgroup memory where the proposals of unit vectors
// take their angles from it. Every thread of the workgroup calls it, before a barrier that
// precedes the first proposal.
fn load_quarter_turns(thread: Thread) {
    if STATES != 0u || CLOCK != 0u {
        return;
    }
    for (var e = thread.local; e < QUARTER_TURNS; e += WG_SIZE) {
        let at = 2u * (L + e);
        quarter_turns[e] = bitcast<vec2<u32>>(vec2<i32>(phases[at], phases[at + 1u]));
    }
}

// fixed::cos_sin_tabulated: (cos, sin) of 2 pi w / 2^32 in spin units, the quadrant from the
// top two bits, the table's entry (C, S) from the next 8, turned by the angle delta of the 22
// below: C - C delta^2 / 2 - S sin delta and S - S delta^2 / 2 + C sin delta in units of 2^-30,
// sin delta = delta - delta^3 / 6 (delta in units of 2^-39, its square of 2^-46).
fn cos_sin_tabulated(w: u32) -> vec2<i32> {
    let x = w & 0x3fffffffu;
    let entry = quarter_turns[x >> QUARTER_TURN_SHIFT];
    let delta = mulhilo(x << (32u - QUARTER_TURN_SHIFT), PI_BITS).x;
    let square = mulhilo(delta, delta).x;
    let sine_delta = delta - mulhilo(mulhilo(delta, square).x, SIXTH_BITS).x;
    let c = bitcast<i32>(entry.x - (mulhilo(entry.x, square).x >> 15u) - (mulhilo(entry.y, sine_delta).x >> 7u));
    let s = bitcast<i32>(entry.y - (mulhilo(entry.y, square).x >> 15u) + (mulhilo(entry.x, sine_delta).x >> 7u));
    return quadrant_turn((c + 2i) >> 2u, (s + 2i) >> 2u, w >> 30u);
}

// fixed::sphere_point: a point of the unit circle (the angle from word 0; a clock's, the turn
// of the state mulhi(w0, q) it picks, fixed::clock_state) or sphere (z from word 0's top 29
// bits, signed; the angle about the axis from word 1), not normalised.
fn sphere_point(words: vec4<u32>) -> vec3<i32> {
    if COMPONENTS == 2u {
        if CLOCK != 0u {
            let state = cos_sin_turn(clock_turn(mulhilo(words.x, CLOCK).x));
            return vec3<i32>(state.x, state.y, 0i);
        }
        let circle = cos_sin_tabulated(words.x);
        return vec3<i32>(circle.x, circle.y, 0i);
    }
    let z = bitcast<i32>(words.x) >> 3u;
    let one_squared = vec2<u32>(0u, 1u << (2u * FRACTION_BITS - 32u));
    let rho = sqrt_square(wide_sub(one_squared, wide_mul_i32(z, z)));
    let angle = cos_sin_tabulated(words.y);
    return vec3<i32>(scaled_component(rho, angle.x), scaled_component(rho, angle.y), z);
}

// propose: the spin a block's point r of the unit circle or sphere gives: r itself for UNIFORM
// (unit(r), the state's spin, for a clock), else unit(s + (r width) >> 28); none where that is
// the zero vector.
fn propose(words: vec4<u32>, s: vec3<i32>, width: i32) -> Unit {
    let r = sphere_point(words);
    if width == UNIFORM {
        if CLOCK == 0u {
            return Unit(r, true);
        }
        return unit(r);
    }
    var v = vec3<i32>(0i);
    for (var a = 0u; a < COMPONENTS; a++) {
        v[a] = s[a] + bitcast<i32>(wide_shr(wide_mul_i32(r[a], width), FRACTION_BITS).x);
    }
    return unit(v);
}
