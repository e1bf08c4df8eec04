// The fixed-point arithmetic of vector spins, function by function the twin of
// src/model/vector/fixed.rs: a spin component is an i32 in units of 2^-28, and every 64-bit
// quantity a u32 pair of wide.wgsl. Vectors are vec3<i32>, components past COMPONENTS zero.

#import wide

// Spin components n: 2 (XY) or 3 (Heisenberg).
override COMPONENTS: u32 = 3u;

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

// fixed::threshold: the product of the four bytes' table entries of k, byte 0 first, each
// product's high word; `table` the first word of the temperature's table.
fn threshold(k: u32, table: u32) -> u32 {
    var t = tables[table + (k & 0xffu)];
    for (var byte = 1u; byte < 4u; byte++) {
        t = mulhilo(t, tables[table + byte * TABLE_BYTE + ((k >> (8u * byte)) & 0xffu)]).x;
    }
    return t;
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
