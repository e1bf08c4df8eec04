// The second stage of the labelling, after cluster_label: the bonds between tiles, by
// union-find without iterations in global memory (Komura, Comput. Phys. Commun. 194, 54
// (2015)). Along each axis d with more than one tile, thread t takes a site on a tile's forward
// face (coordinate f TILE + TILE - 1 along d, or L - 1 in the clipped last tile) of line
// t mod L^(D-1) (lines across d, x fastest where d is not x, so neighbouring threads read
// neighbouring sites) and, where its forward bond along d is active, joins it to its neighbour;
// on the triangular lattice it joins its diagonal bond too, which leaves the tile with the bond
// along d (a corner site's, along x and y, is joined twice, which changes nothing).
// A union links the larger of the two roots under the smaller with atomicMin, so parents only
// decrease and a cluster's root ends as its smallest site, whatever order the threads run in;
// where another thread linked that root first (atomicMin returns another parent), the union
// goes on from there. The tiles' roots start the trees short: one step from every site.
// Threads per system: engine::clusters::merge_threads. No CPU twin: the CPU's union-find
// (src/engine/cpu/cluster_label.rs) is one stage.

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
fn main(thread: Thread) {
    var t = thread_in_system(thread);
    let z = layer(params, thread);
    let n = lattice_sites();
    let lines = n / L;
    // Sites one step along d: 1, L, L^2.
    var stride = 1u;
    for (var d = 0u; d < DIMS; d++) {
        let tiles = tiles_along(d);
        if tiles > 1u {
            let faces = lines * tiles;
            if t < faces {
                let c = min((t / lines + 1u) * tile_extent(d) - 1u, L - 1u);
                let line = t % lines;
                let site = (line / stride * L + c) * stride + line % stride;
                let bits = bond_bits(z, n, site);
                if ((bits >> d) & 1u) == 1u {
                    let near = neighbours(site);
                    join(z * n, site, near[2u * d + 1u]);
                }
                if TRIANGULAR == 1u && ((bits >> 2u) & 1u) == 1u {
                    let near = neighbours(site);
                    join(z * n, site, near[5u]);
                }
                return;
            }
            t -= faces;
        }
        stride *= L;
    }
}
