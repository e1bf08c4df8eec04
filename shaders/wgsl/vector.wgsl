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

// fixed::unit: v scaled by 2^k to put v . v into [2^60, 2^62), each component
// (v_a 2^k 2^28) / floor(sqrt(v . v 4^k)), truncated.
fn unit(v: vec3<i32>) -> Unit {
    let square = dot_wide(v, v);
    if square.x == 0u && square.y == 0u {
        return Unit(v, false);
    }
    let k = (max(wide_leading_zeros(square), 2u) - 2u) / 2u;
    let root = wide_isqrt(wide_shl(square, 2u * k));
    var u = vec3<i32>(0i);
    for (var c = 0u; c < COMPONENTS; c++) {
        u[c] = wide_div(wide_shl(wide_from_i32(v[c]), k + FRACTION_BITS), root);
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
// delta >> ENERGY_SHIFT (the high word of a positive delta).
fn accepts(delta: vec2<u32>, u: u32, table: u32) -> bool {
    if !wide_less(vec2<u32>(0u, 0u), delta) {
        return true;
    }
    return u < threshold(wide_shr(delta, ENERGY_SHIFT).x, table);
}
