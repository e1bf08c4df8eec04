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

// Clock models of at most CLOCK_TABLE_STATES states keep the bisectors between neighbouring
// states and the states' spins in a table in workgroup memory, which the workgroup fills first
// (fill_clock_table): a search step is then a read, and a reflected spin one, where each is
// otherwise a point of cos_sin_turn's two polynomials, and a spin unit's inverse square root.
const CLOCK_TABLE_STATES: u32 = 256u;
override CLOCK_TABLED: bool = CLOCK <= CLOCK_TABLE_STATES;
override CLOCK_TABLE_LEN: u32 = select(1u, max(CLOCK, 1u), CLOCK_TABLED);
var<workgroup> clock_bisectors: array<vec2<i32>, CLOCK_TABLE_LEN>;
var<workgroup> clock_spins: array<vec2<i32>, CLOCK_TABLE_LEN>;

// The bisector between states m and m + 1, at turn clock_turn(m) + T / 2.
fn clock_bisector(m: u32) -> vec2<i32> {
    return cos_sin_turn(clock_turn(m) + CLOCK_TURN / 2u);
}

// The workgroup's table, where the model has one; every invocation calls it, in uniform
// control flow.
fn fill_clock_table(local: u32) {
    if CLOCK_TABLED {
        for (var m = local; m < CLOCK; m += WG_SIZE) {
            clock_bisectors[m] = clock_bisector(m);
            clock_spins[m] = clock_spin(m).xy;
        }
        workgroupBarrier();
    }
}

// The bisector between states m and m + 1, from the table where the model has one.
fn bisector_of(m: u32) -> vec3<i32> {
    var bisector: vec2<i32>;
    if CLOCK_TABLED {
        bisector = clock_bisectors[m];
    } else {
        bisector = clock_bisector(m);
    }
    return vec3<i32>(bisector.x, bisector.y, 0i);
}

// The number of bisectors between neighbouring states whose angle is below s's (a prefix of
// them), by bisection.
fn clock_search(s: vec3<i32>) -> u32 {
    var below = 0u;
    var above = CLOCK;
    while below < above {
        let middle = (below + above) / 2u;
        if angle_below(bisector_of(middle), s) {
            below = middle + 1u;
        } else {
            above = middle;
        }
    }
    return below;
}

// Clock models of at least CLOCK_GUESS_STATES states guess the count of bisectors below a spin
// from its angle (clock_index); fewer states go straight to the search, of at most three
// steps (the guess on an H100: the 6-state SW 34.4 -> 35.0 ps a site, 8 states 35.4 -> 34.8).
const CLOCK_GUESS_STATES: u32 = 8u;

// A whole turn, in radians.
const TURN_RADIANS: f32 = 6.28318531;

// The angle of s in [0, 2 pi), within 1e-5 (Abramowitz and Stegun 4.4.49 for the arctangent
// of the smaller component over the larger, then the octant); any value for the zero vector.
fn clock_angle(s: vec3<i32>) -> f32 {
    let x = f32(s.x);
    let y = f32(s.y);
    let z = min(abs(x), abs(y)) / max(abs(x), abs(y));
    let z2 = z * z;
    var angle = z * (0.9998660 +
        z2 * (-0.3302995 + z2 * (0.1801410 + z2 * (-0.0851330 + z2 * 0.0208351))));
    angle = select(angle, TURN_RADIANS / 4.0 - angle, abs(y) > abs(x));
    angle = select(angle, TURN_RADIANS / 2.0 - angle, x < 0.0);
    return select(angle, TURN_RADIANS - angle, y < 0.0);
}

// fixed::clock_index: the clock state whose spin is s, the count of bisectors below it
// (clock_search), guessed from s's angle in floating point where the model has many states:
// the guess g is the count where bisector g - 1 lies below s and bisector g does not, two
// independent reads where the search's are a chain; the search counts where the guess misses.
fn clock_index(s: vec3<i32>) -> u32 {
    var below: u32;
    if CLOCK >= CLOCK_GUESS_STATES {
        let turns = clock_angle(s) * (f32(CLOCK) / TURN_RADIANS);
        let guess = min(u32(max(turns + 0.5, 0.0)), CLOCK);
        let above_lower = guess == 0u || angle_below(bisector_of(guess - 1u), s);
        let below_upper = guess == CLOCK || !angle_below(bisector_of(guess), s);
        if above_lower && below_upper {
            below = guess;
        } else {
            below = clock_search(s);
        }
    } else {
        below = clock_search(s);
    }
    return select(below, 0u, below == CLOCK);
}

// The spin of the state that mirror m reflects s's state k into, (m - k) mod q
// (engine::clusters::reflected_state).
fn reflected(s: vec3<i32>, mirror: u32) -> vec3<i32> {
    let k = (mirror + CLOCK - clock_index(s)) % max(CLOCK, 1u);
    if CLOCK_TABLED {
        return vec3<i32>(clock_spins[k], 0i);
    }
    return clock_spin(k);
}
