// A cluster update's bonds (src/engine/clusters.rs): thread g of system z draws the D Philox
// blocks (g D + j, update, CLUSTER_BOND, 0, 0, b'), b' = global_index(z), of the 4 D forward
// bonds of sites 4g .. 4g + 3 (bond k D + d of the group is site 4g + k's along axis d), and
// writes their active bonds (equal spins, not empty, word below the temperature's activation
// threshold) as bonds[g]; it also clears their counts when the update records (cluster_label writes every
// site's label whole). CPU twin: src/engine/cpu/cluster_bonds.rs.

#import dispatch
#import philox
#import lattice
#import slice
#import cluster

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(1) var<storage, read_write> spins: array<i32>;

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let quad = quad_of(thread);
    if !quad.live {
        return;
    }
    let threshold = activation[quad.z / SLICE_BLOCK];
    let key = vec2<u32>(params.seed_lo, params.seed_hi);
    let batch = global_index(quad.z);
    var word = 0u;
    for (var j = 0u; j < DIMS; j++) {
        let counter = philox_counter(quad.g * DIMS + j, params.sweep, PURPOSE_CLUSTER_BOND, 0u, batch);
        let randoms = philox4x32_10(counter, key);
        for (var w = 0u; w < 4u; w++) {
            let bond = 4u * j + w;
            let k = bond / DIMS;
            let d = bond % DIMS;
            let site = 4u * quad.g + k;
            let near = neighbours(site);
            let spin = spins[quad.base + site];
            let joins = spin != i32(STATES) && spin == spins[quad.base + near[2u * d + 1u]];
            if joins && randoms[w] < threshold {
                word |= 1u << (8u * k + d);
            }
        }
    }
    bonds[quad.z * (lattice_sites() / 4u) + quad.g] = word;
    if params.slot != NO_SLOT {
        for (var k = 0u; k < 4u; k++) {
            atomicStore(&counts[quad.base + 4u * quad.g + k], 0u);
        }
    }
}
