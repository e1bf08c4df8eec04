// wide: 64-bit integers as vec2<u32>(low word, high word), two's complement, through the i64
// type (the SHADER_INT64 feature), so that the driver compiles each operation to its 64-bit
// instructions (a signed product is one wide multiply, where wide_u32.wgsl corrects an
// unsigned one for each negative factor). The same functions and integers as wide_u32.wgsl.

// The i64 of the words a.
fn wide_join(a: vec2<u32>) -> i64 {
    return bitcast<i64>((u64(a.y) << 32u) | u64(a.x));
}

// The words of x.
fn wide_split(x: i64) -> vec2<u32> {
    let bits = bitcast<u64>(x);
    return vec2<u32>(u32(bits & 0xfffffffflu), u32(bits >> 32u));
}

// i64::from(a).
fn wide_from_i32(a: i32) -> vec2<u32> {
    return wide_split(i64(a));
}

// a + b (wrapping).
fn wide_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return wide_split(wide_join(a) + wide_join(b));
}

// -a (wrapping).
fn wide_neg(a: vec2<u32>) -> vec2<u32> {
    return wide_split(-wide_join(a));
}

// a - b (wrapping).
fn wide_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return wide_split(wide_join(a) - wide_join(b));
}

// i64::from(a) * i64::from(b), exact.
fn wide_mul_i32(a: i32, b: i32) -> vec2<u32> {
    return wide_split(i64(a) * i64(b));
}

// a * i64::from(c) (wrapping).
fn wide_mul(a: vec2<u32>, c: i32) -> vec2<u32> {
    return wide_split(wide_join(a) * i64(c));
}

// a >> s, arithmetic (floor division by 2^s), 0 <= s < 64.
fn wide_shr(a: vec2<u32>, s: u32) -> vec2<u32> {
    return wide_split(wide_join(a) >> s);
}

// a << s (wrapping), 0 <= s < 64.
fn wide_shl(a: vec2<u32>, s: u32) -> vec2<u32> {
    return wide_split(wide_join(a) << s);
}

// a < b as i64.
fn wide_less(a: vec2<u32>, b: vec2<u32>) -> bool {
    return wide_join(a) < wide_join(b);
}

// a.leading_zeros() as u64, from the words (naga's SPIR-V has no 64-bit countLeadingZeros).
fn wide_leading_zeros(a: vec2<u32>) -> u32 {
    return select(32u + countLeadingZeros(a.x), countLeadingZeros(a.y), a.y != 0u);
}
