// The exact integer sums of the tensor overlap of every replica pair of a spin glass
// (engine::vector::VectorOverlap): pair p of a temperature and sample joins replicas p and
// p + REPLICAS/2. Workgroups of z = system with replica r < REPLICAS/2 sum the pair of r (the
// others return); each thread sums the sites thread, thread + stride, ... in u32 pairs, then
// adds its sums to the pair's 64-bit counts (any order gives the same sums). The counts are the
// systems' (2 count_words() per pair, two systems' worth). CPU twin:
// src/engine/cpu/vector_overlap.rs.
// Counts of pair k from word k * 2 count_words(), in pairs: q[mu][nu] (3 mu + nu), then
// fourier[d][mu][nu][cos, sin] from FOURIER.

#import vector_sums

const SUMS: u32 = 63u;
const FOURIER: u32 = 9u;

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let z = layer(params, thread);
    let replicas = replica_pair(z);
    if !replicas.sums {
        return;
    }
    let stride = threads_per_system(thread);
    var sums: array<vec2<u32>, 63>;
    for (var i = thread_in_system(thread); i < lattice_sites(); i += stride) {
        let s = load_spin(z, i);
        let t = load_spin(replicas.partner, i);
        for (var mu = 0u; mu < COMPONENTS; mu++) {
            for (var nu = 0u; nu < COMPONENTS; nu++) {
                let k = 3u * mu + nu;
                let q = wide_shr(wide_mul_i32(s[mu], t[nu]), MEASURE_SHIFT);
                sums[k] = wide_add(sums[k], q);
                for (var d = 0u; d < DIMS; d++) {
                    let x = coordinate(i, d);
                    let f = FOURIER + 2u * (9u * d + k);
                    sums[f] = wide_add(sums[f], wide_shr(wide_mul(q, phases[x]), FRACTION_BITS));
                    sums[f + 1u] = wide_add(sums[f + 1u], wide_shr(wide_mul(q, phases[L + x]), FRACTION_BITS));
                }
            }
        }
    }
    let out = replicas.pair * 2u * count_words();
    for (var k = 0u; k < SUMS; k++) {
        add_i64(out + 2u * k, sums[k]);
    }
}
