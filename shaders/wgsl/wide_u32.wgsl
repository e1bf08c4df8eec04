// wide: 64-bit integers as vec2<u32>(low word, high word), two's complement, in u32
// arithmetic, for adapters without SHADER_INT64; wide_int64.wgsl is the twin through i64. Each
// function is one exactly defined operation of src/model/vector/fixed.rs (Rust's i64/u64
// arithmetic modulo 2^64, the arithmetic shift, the leading zeros), so a kernel built from them
// computes the CPU's integers.

#import mulhilo

// i64::from(a).
fn wide_from_i32(a: i32) -> vec2<u32> {
    return vec2<u32>(bitcast<u32>(a), select(0u, 0xffffffffu, a < 0i));
}

// a + b (wrapping).
fn wide_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let low = a.x + b.x;
    return vec2<u32>(low, a.y + b.y + select(0u, 1u, low < a.x));
}

// -a (wrapping).
fn wide_neg(a: vec2<u32>) -> vec2<u32> {
    return wide_add(~a, vec2<u32>(1u, 0u));
}

// a - b (wrapping).
fn wide_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return wide_add(a, wide_neg(b));
}

// i64::from(a) * i64::from(b), exact: the unsigned product less the other factor in the high
// word for each negative factor.
fn wide_mul_i32(a: i32, b: i32) -> vec2<u32> {
    let p = mulhilo(bitcast<u32>(a), bitcast<u32>(b));
    var high = p.x;
    if a < 0i {
        high -= bitcast<u32>(b);
    }
    if b < 0i {
        high -= bitcast<u32>(a);
    }
    return vec2<u32>(p.y, high);
}

// a * i64::from(c) (wrapping).
fn wide_mul(a: vec2<u32>, c: i32) -> vec2<u32> {
    let p = mulhilo(a.x, bitcast<u32>(c));
    var high = p.x + a.y * bitcast<u32>(c);
    if c < 0i {
        high -= a.x;
    }
    return vec2<u32>(p.y, high);
}

// a >> s, arithmetic (floor division by 2^s), 0 <= s < 64.
fn wide_shr(a: vec2<u32>, s: u32) -> vec2<u32> {
    let high = bitcast<i32>(a.y);
    if s >= 32u {
        return vec2<u32>(bitcast<u32>(high >> (s - 32u)), bitcast<u32>(high >> 31u));
    }
    if s == 0u {
        return a;
    }
    return vec2<u32>((a.x >> s) | (a.y << (32u - s)), bitcast<u32>(high >> s));
}

// a << s (wrapping), 0 <= s < 64.
fn wide_shl(a: vec2<u32>, s: u32) -> vec2<u32> {
    if s >= 32u {
        return vec2<u32>(0u, a.x << (s - 32u));
    }
    if s == 0u {
        return a;
    }
    return vec2<u32>(a.x << s, (a.y << s) | (a.x >> (32u - s)));
}

// a < b as i64.
fn wide_less(a: vec2<u32>, b: vec2<u32>) -> bool {
    if a.y != b.y {
        return bitcast<i32>(a.y) < bitcast<i32>(b.y);
    }
    return a.x < b.x;
}

// a.leading_zeros() as u64.
fn wide_leading_zeros(a: vec2<u32>) -> u32 {
    if a.y != 0u {
        return countLeadingZeros(a.y);
    }
    return 32u + countLeadingZeros(a.x);
}
