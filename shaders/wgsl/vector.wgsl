// The fixed-point arithmetic of vector spins, function by function the twin of
// src/model/vector/fixed.rs: a spin component is an i32 in units of 2^-28, and every 64-bit
// quantity a u32 pair of the module wide (wide_int64.wgsl or wide_u32.wgsl). Vectors are
// vec3<i32>, components past COMPONENTS zero.

#import wide

// Spin components n: 2 (XY, clock) or 3 (Heisenberg).
override COMPONENTS: u32 = 3u;
// A clock model's states q (fixed::Directions::clock; 0 for every angle), and T and R of
// 2^32 = T q + R (fixed::clock_split).
override CLOCK: u32 = 0u;
override CLOCK_TURN: u32 = 0u;
override CLOCK_REMAINDER: u32 = 0u;

const FRACTION_BITS: u32 = 28u;
const ONE: i32 = 268435456i;
const ENERGY_SHIFT: u32 = 32u;
const TABLE_BYTE: u32 = 256u;
const MEASURE_SHIFT: u32 = 24u;
// Bits by which the local field is coarser than a spin unit (CouplingScale::field_shift): 0,
// or 3 for the Gaussian glass.
override FIELD_SHIFT: u32 = 0u;

// A unit vector, or none (`ok` false) for the zero vector: fixed::unit's Option.
struct Unit {
    v: vec3<i32>,
    ok: bool,
}

// a . b of the first COMPONENTS components, exactly.
fn dot_wide(a: vec3<i32>, b: vec3<i32>) -> vec2<u32> {
    var sum = vec2<u32>(0u, 0u);
    for (var c = 0u; c < COMPONENTS; c++) {
        sum = wide_add(sum, wide_mul_i32(a[c], b[c]));
    }
    return sum;
}

// fixed::SEED_HIGH and fixed::SEED_LOW: inverse_sqrt's seed polynomials, (c0, c1, c2).
const SEED_HIGH = vec3<u32>(0x8ef8f371u, 0x843cba9bu, 0x35780865u);
const SEED_LOW = vec3<u32>(0xca318fadu, 0xbb02fd07u, 0x4b9dcd36u);

// fixed::inverse_sqrt: 2^46 / sqrt(t) for t in [2^30, 2^32), within 2^-29: the seed
// polynomial of t's octave, then two Newton steps.
fn inverse_sqrt(t: u32) -> u32 {
    let low = t < 0x80000000u;
    let z = select(t, t << 1u, low);
    let seed = select(SEED_HIGH, SEED_LOW, low);
    let y = seed.x - mulhilo(z, seed.y - mulhilo(z, seed.z).x).x;
    return newton_step(newton_step(y, t), t);
}

// fixed::newton_step: y (3 - t y^2 2^-92) / 2 with y^2 >> 31, its product with t and the
// result floored to words.
fn newton_step(y: u32, t: u32) -> u32 {
    let square = mulhilo(y, y);
    let correction = (3u << 29u) - mulhilo((square.x << 1u) | (square.y >> 31u), t).x;
    let product = mulhilo(y, correction);
    return (product.x << 2u) | (product.y >> 30u);
}

// fixed::mulhi_signed: the high word of a * b for a signed a, floor(a b / 2^32).
fn mulhi_signed(a: i32, b: u32) -> i32 {
    return bitcast<i32>(mulhilo(bitcast<u32>(a), b).x - select(0u, b, a < 0i));
}

// fixed::unit: v scaled by 2^k to put v . v into [2^60, 2^62) (v . v below 2^62), its top 32
// bits t give y = inverse_sqrt(t), and each component is v_a 2^k y / 2^33 rounded half up.
fn unit(v: vec3<i32>) -> Unit {
    let square = dot_wide(v, v);
    if square.x == 0u && square.y == 0u {
        return Unit(v, false);
    }
    let k = (max(wide_leading_zeros(square), 2u) - 2u) / 2u;
    let scaled = wide_shl(square, 2u * k);
    let y = inverse_sqrt((scaled.y << 2u) | (scaled.x >> 30u));
    var u = vec3<i32>(0i);
    for (var c = 0u; c < COMPONENTS; c++) {
        u[c] = (mulhi_signed(v[c] << k, y) + 1i) >> 1u;
    }
    return Unit(u, true);
}

// fixed::SINE_COEFFICIENTS and fixed::COSINE_COEFFICIENTS, units of 2^-30, lowest first.
const SINE_COEFFICIENTS = array<i32, 8>(
    1686629713i, -693598668i, 85569306i, -5026995i, 172272i, -3864i, 61i, -1i,
);
const COSINE_COEFFICIENTS = array<i32, 8>(
    1073741824i, -1324675879i, 272375560i, -22401992i, 987048i, -27060i, 506i, -7i,
);

// fixed::polynomial: sum_k c_k y^k in units of 2^-30 for y in units of 2^-32 (Horner's rule,
// each product floored to its high word). Each accumulator multiplied has its coefficient's
// sign (fixed::polynomial says why), so mulhi_signed's correction is the coefficient's.
fn polynomial(c: array<i32, 8>, y: u32) -> i32 {
    var coefficients = c;
    var acc = coefficients[7];
    for (var k = 6i; k >= 0i; k--) {
        let correction = select(0u, y, coefficients[k + 1] < 0i);
        acc = coefficients[k] + bitcast<i32>(mulhilo(bitcast<u32>(acc), y).x - correction);
    }
    return acc;
}

// fixed::cos_sin_turn: (cos, sin) of 2 pi w / 2^32 in spin units, the quadrant from the top two
// bits, the quarter turn's fraction x / 2^30 through the two polynomials in its square.
fn cos_sin_turn(w: u32) -> vec2<i32> {
    let x = w & 0x3fffffffu;
    let square = mulhilo(x, x);
    let y = (square.x << 4u) | (square.y >> 28u);
    let sine = mulhi_signed(polynomial(SINE_COEFFICIENTS, y), x);
    let cosine = polynomial(COSINE_COEFFICIENTS, y) >> 2u;
    return quadrant_turn(cosine, sine, w >> 30u);
}

// fixed::quadrant_turn: the point (c, s) of a first-quadrant angle turned by `quadrant` quarter
// turns: the components swapped in odd quadrants, the first negated in quadrants 1 and 2, the
// second in 2 and 3. Selects, not branches: the quadrant is random, so a subgroup's invocations
// would take every branch in turn.
fn quadrant_turn(c: i32, s: i32, quadrant: u32) -> vec2<i32> {
    let v = select(vec2<i32>(c, s), vec2<i32>(s, c), (quadrant & 1u) != 0u);
    let negated = vec2<bool>(((quadrant + 1u) & 2u) != 0u, (quadrant & 2u) != 0u);
    return select(v, -v, negated);
}

// fixed::sqrt_square: sqrt(t) in spin units for t < 2^62 in units of 2^-56: t scaled by 4^k into
// [2^60, 2^62) as unit scales, its top word T, and T inverse_sqrt(T) / 2^(31 + k).
fn sqrt_square(t: vec2<u32>) -> i32 {
    if t.x == 0u && t.y == 0u {
        return 0i;
    }
    let k = (max(wide_leading_zeros(t), 2u) - 2u) / 2u;
    let scaled = wide_shl(t, 2u * k);
    let top = (scaled.y << 2u) | (scaled.x >> 30u);
    let product = mulhilo(top, inverse_sqrt(top));
    return bitcast<i32>(wide_shr(vec2<u32>(product.y, product.x), 31u + k).x);
}

// (rho c) >> 28: a sphere point's component in the plane.
fn scaled_component(rho: i32, c: i32) -> i32 {
    return bitcast<i32>(wide_shr(wide_mul_i32(rho, c), FRACTION_BITS).x);
}

// fixed::clock_turn: the turn of clock state k, floor(k 2^32 / q) = k T + (k R) / q.
fn clock_turn(k: u32) -> u32 {
    // max: naga refuses a division by an override that is 0, even where it is never reached.
    return k * CLOCK_TURN + (k * CLOCK_REMAINDER) / max(CLOCK, 1u);
}

// vector_metropolis::clock_spin: the unit vector of clock state k's turn.
fn clock_spin(k: u32) -> vec3<i32> {
    let circle = cos_sin_turn(clock_turn(k));
    return unit(vec3<i32>(circle.x, circle.y, 0i)).v;
}

// fixed::angle_below: whether the angle of plane vector a in [0, 2 pi) is below b's: a in the
// upper half plane and b in the lower, or both in one half and a x b positive.
fn angle_below(a: vec3<i32>, b: vec3<i32>) -> bool {
    let a_lower = a.y < 0i || (a.y == 0i && a.x < 0i);
    let b_lower = b.y < 0i || (b.y == 0i && b.x < 0i);
    if a_lower != b_lower {
        return b_lower;
    }
    let cross = wide_sub(wide_mul_i32(a.x, b.y), wide_mul_i32(a.y, b.x));
    return wide_less(vec2<u32>(0u, 0u), cross);
}

// fixed::threshold: the product of the four bytes' table entries of k, byte 0 first, each
// product's high word; `table` the first word of the temperature's table.
fn threshold(k: u32, table: u32) -> u32 {
    var t = tables[table + (k & 0xffu)];
    for (var byte = 1u; byte < 4u; byte++) {
        t = mulhilo(t, tables[table + byte * TABLE_BYTE + ((k >> (8u * byte)) & 0xffu)]).x;
    }
    return t;
}

// fixed::heat_bath_target: floor(u W / 2^32) for the total weight W < 2^48 of a heat bath's
// states, W_hi u + mulhi(W_lo, u).
fn heat_bath_target(total: vec2<u32>, u: u32) -> vec2<u32> {
    let high = mulhilo(total.y, u);
    return wide_add(vec2<u32>(high.y, high.x), vec2<u32>(mulhilo(total.x, u).x, 0u));
}

// fixed::accepts: downhill always, else the random word u below the threshold of
// delta >> (ENERGY_SHIFT - FIELD_SHIFT) (CouplingScale::energy_shift; for the integer couplings
// the high word of a positive delta).
fn accepts(delta: vec2<u32>, u: u32, table: u32) -> bool {
    if !wide_less(vec2<u32>(0u, 0u), delta) {
        return true;
    }
    return u < threshold(wide_shr(delta, ENERGY_SHIFT - FIELD_SHIFT).x, table);
}
