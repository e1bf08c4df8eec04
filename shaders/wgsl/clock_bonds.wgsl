// A cluster update's bonds of clock spins (src/engine/clusters.rs): thread g of system z draws
// the D Philox blocks (g D + j, update, CLUSTER_BOND, 0, 0, b'), D = DIRECTIONS, of the 4 D
// forward bonds of sites 4g .. 4g + 3, as cluster_bonds does, and writes their active bonds as
// bonds[g]. A bond (coupling 1, -1 across an antiperiodic edge; none across an open edge or a
// honeycomb's gap) of two occupied sites is active where its word is not below the acceptance
// threshold of dE = J (s - R s) . s', the energy it gains when its site's spin s alone is
// reflected through the update's mirror (clock.wgsl); the temperature's table starts at
// tables[t TABLE_WORDS], t = z / SLICE_BLOCK. CPU twin: src/engine/cpu/clock_bonds.rs.

#import clock

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    fill_clock_table(thread.local);
    let quad = quad_of(thread);
    if !quad.live {
        return;
    }
    let table = (quad.z / SLICE_BLOCK) * TABLE_WORDS;
    let key = vec2<u32>(params.seed_lo, params.seed_hi);
    let batch = global_index(quad.z);
    let mirror = clock_mirror(wolff_block(batch));
    var randoms: array<u32, 12>;
    for (var j = 0u; j < DIRECTIONS; j++) {
        let counter = philox_counter(quad.g * DIRECTIONS + j, params.sweep, PURPOSE_CLUSTER_BOND, 0u, batch);
        let block = philox4x32_10(counter, key);
        for (var w = 0u; w < 4u; w++) {
            randoms[4u * j + w] = block[w];
        }
    }
    var word = 0u;
    for (var k = 0u; k < 4u; k++) {
        let site = 4u * quad.g + k;
        let s = load_spin(quad.z, site);
        if is_empty(s) {
            continue;
        }
        let r = reflected(s, mirror);
        let change = vec3<i32>(s.x - r.x, s.y - r.y, 0i);
        let near = neighbours(site);
        for (var d = 0u; d < DIRECTIONS; d++) {
            let n = load_spin(quad.z, near[2u * d + 1u]);
            if missing_bond(site, d) || is_empty(n) {
                continue;
            }
            let gain = dot_wide(change, n);
            let signed_gain = select(gain, wide_neg(gain), twisted_bond(site, d));
            if !accepts(signed_gain, randoms[k * DIRECTIONS + d], table) {
                word |= 1u << (8u * k + d);
            }
        }
    }
    bonds[quad.z * (lattice_sites() / 4u) + quad.g] = word;
}
