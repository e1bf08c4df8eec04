// mulhilo: the 64-bit product of two u32 as vec2(high, low), through the u64 type.
// Needs the SHADER_INT64 feature; mulhilo_u32.wgsl is the portable twin.

fn mulhilo(a: u32, b: u32) -> vec2<u32> {
    let product = u64(a) * u64(b);
    return vec2<u32>(u32(product >> 32u), u32(product));
}
