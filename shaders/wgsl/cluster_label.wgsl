// The clusters of a cluster update's bonds, by union-find without iterations (Komura, Comput.
// Phys. Commun. 194, 54 (2015)): thread g of system z joins sites 4g .. 4g + 3 to their
// forward neighbours over their active bonds. A union links the larger of the two roots under
// the smaller with atomicMin, so parents only decrease and a cluster's root ends as its smallest
// site, whatever order the threads run in; where another thread linked that root first
// (atomicMin returns another parent), the union goes on from there. One pass; cluster_roots then
// points every site at its root. CPU twin: src/engine/cpu/cluster_label.rs.

#import dispatch
#import lattice
#import cluster

@group(0) @binding(0) var<uniform> params: DispatchParams;

// Join the clusters of sites a and b of system `base`.
fn join(base: u32, a0: u32, b0: u32) {
    var a = a0;
    var b = b0;
    loop {
        a = find_root(base, a);
        b = find_root(base, b);
        if a == b {
            return;
        }
        if a < b {
            let t = a;
            a = b;
            b = t;
        }
        let old = atomicMin(&labels[base + a], b);
        if old == a {
            return;
        }
        // a had been linked to old (< a) meanwhile: join old's cluster with b's.
        a = old;
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let g = thread_in_system(workgroup, workgroups, local);
    let z = workgroup.z;
    let n = lattice_sites();
    if 4u * g >= n {
        return;
    }
    let base = z * n;
    let word = bonds[z * (n / 4u) + g];
    if word == 0u {
        return;
    }
    for (var k = 0u; k < 4u; k++) {
        let site = 4u * g + k;
        let near = neighbours(site);
        for (var d = 0u; d < DIMS; d++) {
            if ((word >> (8u * k + d)) & 1u) == 1u {
                join(base, site, near[2u * d + 1u]);
            }
        }
    }
}
