// The first stage of the labelling of a cluster update's bonds (block-local union-find), the
// twin of cluster_label.wgsl: block t of system z takes tile t (TILE_X x TILE_Y x TILE_Z sites,
// the last along an axis clipped at the lattice's edge), unites the sites of every active bond
// within the tile in shared memory (join and find_root of cluster.cuh, on the tile), and writes
// each site's label: the global index of its root in the tile. Tile indices are row-major, x
// fastest, as site indices are, so a tile's root is the smallest site of its component in the
// tile and the labels form a forest whose parents only decrease; cluster_merge then joins the
// bonds between tiles. CPU twin: src/engine/cpu/cluster_label.rs (a plain union-find over all
// bonds: the final roots, each cluster's smallest site, do not depend on the scheme).

#include "cluster.cuh"

// Coordinates within a tile of tile index s.
__device__ __forceinline__ uint3 tile_coords(unsigned s) {
    return make_uint3(s % TILE_X, (s / TILE_X) % TILE_Y, s / (TILE_X * TILE_Y));
}

// The tile index of coordinates within a tile.
__device__ __forceinline__ unsigned tile_index(uint3 c) {
    return (c.z * TILE_Y + c.y) * TILE_X + c.x;
}

// The site of lattice coordinates c.
__device__ __forceinline__ unsigned site_at(uint3 c) {
    return (c.z * L + c.y) * L + c.x;
}

// Component d of c.
__device__ __forceinline__ unsigned& axis(uint3& c, unsigned d) {
    return d == 0u ? c.x : (d == 1u ? c.y : c.z);
}

extern "C" __global__ void cluster_label(DispatchParams params, const int* spins,
                                         const unsigned* activation, unsigned* bonds,
                                         unsigned* labels, unsigned* counts,
                                         unsigned long long* sizes) {
    // The tile's union-find, tile indices.
    __shared__ unsigned parents[TILE_SITES];
    const unsigned tile = workgroup_in_system();
    const unsigned across_x = tiles_along(0u);
    const unsigned across_y = tiles_along(1u);
    // Uniform over the block: a grid spilling into y has blocks past the last tile.
    if (tile >= across_x * across_y * tiles_along(2u)) {
        return;
    }
    const unsigned z = layer(params);
    const unsigned n = lattice_sites();
    const unsigned* system_bonds = bonds + static_cast<unsigned long long>(z) * (n / 4u);
    unsigned* system = labels + static_cast<unsigned long long>(z) * n;
    const uint3 origin = make_uint3(tile % across_x * TILE_X, tile / across_x % across_y * TILE_Y,
                                    tile / (across_x * across_y) * TILE_Z);
    for (unsigned s = threadIdx.x; s < TILE_SITES; s += blockDim.x) {
        parents[s] = s;
    }
    __syncthreads();
    // Every lane takes the same rounds of sites, meeting the others after each (the unions' root
    // walks differ in length; see quad_roots in cluster.cuh).
    const unsigned lanes = warp_lanes();
    for (unsigned round = 0u; round < TILE_SITES; round += blockDim.x) {
        const unsigned s = round + threadIdx.x;
        const uint3 local = tile_coords(s);
        uint3 at = make_uint3(origin.x + local.x, origin.y + local.y, origin.z + local.z);
        if (s < TILE_SITES && at.x < L && at.y < L && at.z < L) {
            const unsigned bits = bond_bits(system_bonds, site_at(at));
            for (unsigned d = 0u; d < DIMS; d++) {
                const unsigned c = axis(at, d);
                if (((bits >> d) & 1u) == 1u && !leaves_tile(c, d)) {
                    // The neighbour is in this tile: one step along d, or back to the tile's
                    // start where the bond wraps around a lattice that the tile covers along d.
                    uint3 next = local;
                    axis(next, d) = c + 1u == L ? 0u : axis(next, d) + 1u;
                    join<Parents::Tile>(parents, s, tile_index(next));
                }
            }
            // The triangular lattice's diagonal (direction 2): in the tile where it leaves it
            // along neither x nor y, one step along both.
            const bool diagonal = TRIANGULAR == 1u && ((bits >> 2u) & 1u) == 1u;
            if (diagonal && !leaves_tile(at.x, 0u) && !leaves_tile(at.y, 1u)) {
                const unsigned x = at.x + 1u == L ? 0u : local.x + 1u;
                const unsigned y = at.y + 1u == L ? 0u : local.y + 1u;
                join<Parents::Tile>(parents, s, tile_index(make_uint3(x, y, 0u)));
            }
        }
        __syncwarp(lanes);
    }
    __syncthreads();
    for (unsigned round = 0u; round < TILE_SITES; round += blockDim.x) {
        const unsigned s = round + threadIdx.x;
        const uint3 local = tile_coords(s);
        const uint3 at = make_uint3(origin.x + local.x, origin.y + local.y, origin.z + local.z);
        if (s < TILE_SITES && at.x < L && at.y < L && at.z < L) {
            const uint3 root = tile_coords(find_root<Parents::Tile, Walk::Settled>(parents, s));
            system[site_at(at)] =
                site_at(make_uint3(origin.x + root.x, origin.y + root.y, origin.z + root.z));
        }
        __syncwarp(lanes);
    }
}
