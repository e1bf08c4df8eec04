// The second stage of the labelling, after cluster_label, the twin of cluster_merge.wgsl: the
// bonds between tiles, by union-find without iterations in global memory (Komura, Comput. Phys.
// Commun. 194, 54 (2015); join of cluster.cuh). Along each axis d with more than one tile,
// thread t takes a site on a tile's forward face (coordinate f TILE + TILE - 1 along d, or
// L - 1 in the clipped last tile) of line t mod L^(D-1) (lines across d, x fastest where d is
// not x) and, where its forward bond along d is active, joins it to its neighbour; on the
// triangular lattice it joins its diagonal bond too, in the same loop, which leaves the tile
// with the bond along d (a corner site's, along x and y, is joined twice, which changes
// nothing). Threads per system: engine::clusters::merge_threads. No CPU twin: the CPU's
// union-find is one stage.

#include "cluster.cuh"

// The neighbour along +d among `near`, by constant indices: indexed by d (near.site[2 d + 1]),
// the loop over d (not unrolled: it returns) kept the six neighbours in local memory, 24
// bytes of stack a thread, and the Ising SW at 4096^2 ran 2% slower on an H100.
__device__ __forceinline__ unsigned forward_neighbour(const Neighbours& near, unsigned d) {
    return d == 0u ? near.site[1] : (d == 1u ? near.site[3] : near.site[5]);
}

extern "C" __global__ void cluster_merge(DispatchParams params, const int* spins,
                                         const unsigned* activation, unsigned* bonds,
                                         unsigned* labels, unsigned* counts,
                                         unsigned long long* sizes) {
    unsigned t = thread_in_system();
    const unsigned z = layer(params);
    const unsigned n = lattice_sites();
    const unsigned lines = n / L;
    const unsigned* system_bonds = bonds + static_cast<unsigned long long>(z) * (n / 4u);
    unsigned* system = labels + static_cast<unsigned long long>(z) * n;
    // Sites one step along d: 1, L, L^2.
    unsigned stride = 1u;
    for (unsigned d = 0u; d < DIMS; d++) {
        const unsigned tiles = tiles_along(d);
        if (tiles > 1u) {
            const unsigned faces = lines * tiles;
            if (t < faces) {
                const unsigned c = min((t / lines + 1u) * tile_extent(d) - 1u, L - 1u);
                const unsigned line = t % lines;
                const unsigned site = (line / stride * L + c) * stride + line % stride;
                const unsigned bits = bond_bits(system_bonds, site);
                const Neighbours near = neighbours(site);
                if (TRIANGULAR == 1u) {
                    // Both bonds in one loop (join_each), as cluster_label's unions: one union
                    // after the other parted the lanes that ended the first at different turns
                    // (the triangular update at 4098^2 on an H100: 35.35 -> 34.91 ps a site).
                    join_each(system, site, (bits & (1u << d)) | (bits & 4u), [&](unsigned k) {
                        return k == 2u ? near.site[5] : forward_neighbour(near, k);
                    });
                } else if (((bits >> d) & 1u) == 1u) {
                    join(system, site, forward_neighbour(near, d));
                }
                return;
            }
            t -= faces;
        }
        stride *= L;
    }
}
