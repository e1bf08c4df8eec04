// The reflections of a cluster update of clock spins after cluster_merge
// (src/engine/clusters.rs): thread g of system z finds the roots of sites 4g .. 4g + 3
// (quad_roots) and reflects the occupied ones whose cluster flips through the update's mirror
// (clock.wgsl). Swendsen-Wang: cluster r flips iff the top bit of word r mod 4 of block (r / 4,
// update, CLUSTER_FLIP, 0, 0, b') is set; Wolff: the cluster of the seed site (w N) >> 32, w
// word 0 of block (0, update, WOLFF_SEED, 0, 0, b'). Nothing is recorded. CPU twin:
// src/engine/cpu/clock_flip.rs.

#import clock

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    fill_clock_table(thread.local);
    let quad = quad_of(thread);
    let batch = global_index(quad.z);
    let words = wolff_block(batch);
    let mirror = clock_mirror(words);
    var wolff_root = 0u;
    if WOLFF == 1u {
        wolff_root = seed_root(quad.base, words);
    }
    if !quad.live {
        return;
    }
    var cache = FlipWords(0xffffffffu, vec4<u32>(0u));
    let roots = quad_roots(quad.base, quad.g, true);
    for (var k = 0u; k < 4u; k++) {
        let site = 4u * quad.g + k;
        let root = roots[k];
        var flip = false;
        if WOLFF == 1u {
            flip = root == wolff_root;
        } else {
            flip = (flip_word(batch, root, &cache) >> 31u) == 1u;
        }
        if flip {
            let s = load_spin(quad.z, site);
            if !is_empty(s) {
                store_spin(quad.z, site, reflected(s, mirror));
            }
        }
    }
}
