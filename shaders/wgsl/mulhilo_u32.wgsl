// mulhilo: the 64-bit product of two u32 as vec2(high, low), from 16-bit limbs.
// For adapters without SHADER_INT64; bit-identical to mulhilo_int64.wgsl.

fn mulhilo(a: u32, b: u32) -> vec2<u32> {
    let a_lo = a & 0xffffu;
    let a_hi = a >> 16u;
    let b_lo = b & 0xffffu;
    let b_hi = b >> 16u;
    let lo_lo = a_lo * b_lo;
    let lo_hi = a_lo * b_hi;
    let hi_lo = a_hi * b_lo;
    // Carries out of the low 32 bits: at most three 16-bit terms, no overflow.
    let middle = (lo_lo >> 16u) + (lo_hi & 0xffffu) + (hi_lo & 0xffffu);
    let high = a_hi * b_hi + (lo_hi >> 16u) + (hi_lo >> 16u) + (middle >> 16u);
    return vec2<u32>(high, a * b);
}
