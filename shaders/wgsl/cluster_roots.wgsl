// After cluster_merge, where a Swendsen-Wang update records (its statistic needs each cluster's
// size, or with an antiperiodic axis its magnetisation): thread g of system z points sites
// 4g .. 4g + 3 at their roots (a root is an ancestor, so other threads' walks stay right) and
// counts them (magnetisation_weight) into their roots' counts, one atomic per run of equal
// roots. Sites of a run of equal parents (mostly one tile root) share one walk.
// CPU twin: src/engine/cpu/cluster_roots.rs.

#import dispatch
#import lattice
#import cluster

// Only its first_layer: the pass reads no other parameter.
@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(1) var<storage, read_write> spins: array<i32>;

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let quad = quad_of(thread);
    if !quad.live {
        return;
    }
    let roots = quad_roots(quad.base, quad.g, false);
    var run_root = 0xffffffffu;
    var run = 0u;
    for (var k = 0u; k < 4u; k++) {
        let root = roots[k];
        atomicStore(&labels[quad.base + 4u * quad.g + k], root);
        if root != run_root && run != 0u {
            atomicAdd(&counts[quad.base + run_root], run);
            run = 0u;
        }
        run_root = root;
        run += magnetisation_weight(spins[quad.base + 4u * quad.g + k]);
    }
    if run != 0u {
        atomicAdd(&counts[quad.base + run_root], run);
    }
}
