// The first stage of the labelling of a cluster update's bonds (block-local union-find): block
// t of system z takes tile t (TILE_X x TILE_Y x TILE_Z sites, the last along an axis clipped at
// the lattice's edge), unites the sites of every active bond within the tile in shared memory,
// and writes each site's label: the global index of its root in the tile. Tile indices are
// row-major, x fastest, as site indices are, so a tile's root is the smallest site of its
// component in the tile and the labels form a forest whose parents only decrease;
// cluster_merge then joins the bonds between tiles. CPU twin: src/engine/cpu/cluster_label.rs
// (a plain union-find over all bonds: the final roots, each cluster's smallest site, do not
// depend on the scheme).
//
// The WGSL twin, cluster_label.wgsl, unites every bond of the tile (tile_join). Here a warp
// first takes its 32 sites' x bonds at once: its ballot of the bonds to the next site along x
// gives each site the first site of its run of x-bonded sites as its parent, with no atomics
// and no walks (runs end at a row's end: the last site of a row bonds out of the tile or
// around the lattice). The unions (join and find_root of cluster.cuh, on the tile) then take
// the other bonds, skipping those that runs and an earlier parallel bond already join; on a 3D
// tile and on the triangular lattice a site's unions run in one loop (join_each, unite_bonds).
// On an H200 (Swendsen-Wang, 2D 4096^2) this took the kernel from 426 to 264 us; every bond
// through the unions, as the WGSL twin, took CUDA 2.3x as long as Vulkan (186 us).

#include "cluster.cuh"

// A warp's 32 sites hold whole rows of the tile, or a run would break where a warp ends.
static_assert(32u % TILE_X == 0u, "the tile's rows must divide a warp");

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

// Whether tile index s is x-bonded to s + 1 in its run, from the warps' ballots `links` (bit
// s % 32 of word s / 32).
__device__ __forceinline__ bool linked_at(const unsigned* links, unsigned s) {
    return ((links[s / 32u] >> (s % 32u)) & 1u) == 1u;
}

// The tile index one step from tile coordinates `local` (lattice coordinates `at`) along bond
// direction k, back to the tile's start along an axis where the step wraps around a lattice
// that the tile covers. Direction 3 (the triangular diagonal, along x and y) comes from no
// caller, but with it NVRTC compiles unite_bonds' 3D loop to the code that was measured, and
// without it to other code (compared through NVRTC 12.9 and ptxas on 2026-12-06).
__device__ __forceinline__ unsigned tile_step(unsigned k, uint3 local, uint3 at) {
    uint3 next = local;
    for (unsigned a = 0u; a < 3u; a++) {
        if (k == a || (k == 3u && a < 2u)) {
            axis(next, a) = axis(at, a) + 1u == L ? 0u : axis(next, a) + 1u;
        }
    }
    return tile_index(next);
}

// Call unite(d, t) for each bond of tile index s (tile coordinates `local`, lattice
// coordinates `at`) that the runs leave, but the triangular diagonal (unite_bonds): d = 0
// for x's bond around the lattice (a tile that covers the lattice along x), d the axis of the
// others; t, its partner, is tile_step(d, local, at). A bond along y or z to t is implied, and
// skipped, where the site before s along x holds the same bond to the site before t and runs
// join both pairs (s - 1 to s, t - 1 to t). Each skipped bond leans on one whose sites are
// nearer the row's start, so the first of such a chain is united and the components are the
// same.
template <typename Unite>
__device__ __forceinline__ void bonds_left(const unsigned* bonds, const unsigned* links,
                                           unsigned s, uint3 local, uint3 at, Unite unite) {
    const unsigned site = site_at(at);
    const unsigned bits = bond_bits(bonds, site);
    if ((bits & 1u) == 1u && !leaves_tile(at.x, 0u) && at.x + 1u == L) {
        unite(0u, tile_step(0u, local, at));
    }
    const bool after_run = local.x > 0u && linked_at(links, s - 1u);
    const unsigned before = after_run ? bond_bits(bonds, site - 1u) : 0u;
    for (unsigned d = 1u; d < DIMS; d++) {
        const unsigned c = axis(at, d);
        if (((bits >> d) & 1u) == 1u && !leaves_tile(c, d)) {
            const unsigned t = tile_step(d, local, at);
            if (((before >> d) & 1u) == 0u || !linked_at(links, t - 1u)) {
                unite(d, t);
            }
        }
    }
}

// The tile index of the triangular lattice's diagonal neighbour (direction 2, one step along x
// and y) of tile coordinates `local` (lattice coordinates `at`), back to the tile's start along
// an axis where the step wraps around a lattice that the tile covers. Written out rather than
// taken from tile_step(3u, ...), with which NVRTC compiled the triangular update to other code
// than the one measured (compared on 2026-12-06).
__device__ __forceinline__ unsigned diagonal_step(uint3 local, uint3 at) {
    const unsigned x = at.x + 1u == L ? 0u : local.x + 1u;
    const unsigned y = at.y + 1u == L ? 0u : local.y + 1u;
    return tile_index(make_uint3(x, y, 0u));
}

// Unite the bonds of tile index s that the runs leave (bonds_left), and on the triangular
// lattice its diagonal where the diagonal stays in the tile (along neither x nor y out of it).
// A 3D site has up to three, a triangular site up to two, united in one loop (join_each), so
// that the lanes that end one union at different turns do not take the next apart: Swendsen-Wang
// at 3D 256^3 on an H100 went from 22.06 to 22.94 spins/ns (2026-12-06). The triangular
// diagonals, in rounds of their own after the other bonds before, run no slower in the same
// loop (35.37 -> 35.28 ps a site at 4098^2, an H100, 2026-12-07); as unions one after
// another in the same rounds they had been slower (38.2 -> 42.8).
// A square 2D site has one but on lattices that a tile covers, joined as found: its bonds
// gathered first (for join_each or for unions one after another) made the 2D updates 6-15%
// slower.
__device__ __forceinline__ void unite_bonds(const unsigned* bonds, unsigned* parents,
                                            const unsigned* links, unsigned s, uint3 local,
                                            uint3 at) {
    if (DIMS == 2u && TRIANGULAR == 0u) {
        bonds_left(bonds, links, s, local, at,
                   [&](unsigned, unsigned t) { join<Parents::Tile>(parents, s, t); });
        return;
    }
    unsigned partners = 0u;
    bonds_left(bonds, links, s, local, at, [&](unsigned d, unsigned) { partners |= 1u << d; });
    // The triangular diagonal is direction 2 (z's in 3D).
    const bool diagonal = TRIANGULAR == 1u && ((bond_bits(bonds, site_at(at)) >> 2u) & 1u) == 1u;
    if (diagonal && !leaves_tile(at.x, 0u) && !leaves_tile(at.y, 1u)) {
        partners |= 1u << 2u;
    }
    const unsigned across = diagonal_step(local, at);
    const auto partner = [&](unsigned d) {
        return TRIANGULAR == 1u && d == 2u ? across : tile_step(d, local, at);
    };
    join_each<Parents::Tile>(parents, s, partners, partner);
}

extern "C" __global__ void cluster_label(DispatchParams params, const int* spins,
                                         const unsigned* activation, unsigned* bonds,
                                         unsigned* labels, unsigned* counts,
                                         unsigned long long* sizes) {
    // The tile's union-find, tile indices.
    __shared__ unsigned parents[TILE_SITES];
    // A word per warp of the tile's sites (a tile of a small lattice has fewer than 32).
    __shared__ unsigned links[(TILE_SITES + 31u) / 32u];
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
    // The runs: a warp's lanes are 32 consecutive tile indices, from a multiple of 32 (blocks
    // are whole warps), so bit k of its ballot is lane k's bond to the next site.
    const unsigned lanes = warp_lanes();
    const unsigned lane = threadIdx.x % 32u;
    for (unsigned round = 0u; round < TILE_SITES; round += blockDim.x) {
        const unsigned s = round + threadIdx.x;
        const uint3 local = tile_coords(s);
        const uint3 at = make_uint3(origin.x + local.x, origin.y + local.y, origin.z + local.z);
        const bool inside = s < TILE_SITES && at.x < L && at.y < L && at.z < L;
        const unsigned bits = inside ? bond_bits(system_bonds, site_at(at)) : 0u;
        const bool linked = (bits & 1u) == 1u && !leaves_tile(at.x, 0u) && at.x + 1u != L;
        const unsigned mask = __ballot_sync(lanes, linked);
        // The run's first lane: the one after the highest lane below this one with no bond.
        const unsigned unlinked = ~mask & ((1u << lane) - 1u);
        const unsigned first = unlinked == 0u ? 0u : 32u - __clz(unlinked);
        if (s < TILE_SITES) {
            parents[s] = s - (lane - first);
        }
        if (lane == 0u && s < TILE_SITES) {
            links[s / 32u] = mask;
        }
    }
    __syncthreads();
    // The unions, every lane taking the same rounds of sites and meeting the others after each
    // (the unions' root walks differ in length; see quad_roots in cluster.cuh). Warp w takes
    // the tile's 32-site rows w rounds .. (w + 1) rounds - 1 in turn, so that the warps at work
    // together unite rows far apart and race less for the same roots; with the first pass's
    // rows, a warp apart, Swendsen-Wang at 2D 4096^2 on an H200 ran at 33.1 spins/ns instead
    // of 35.2. The y and z bonds in rounds of their own made 3D slower (25.4 -> 24.8 spins/ns at
    // 256^3).
    const unsigned rounds = (TILE_SITES + blockDim.x - 1u) / blockDim.x;
    for (unsigned round = 0u; round < rounds; round++) {
        const unsigned s = ((threadIdx.x / 32u) * rounds + round) * 32u + lane;
        const uint3 local = tile_coords(s);
        const uint3 at = make_uint3(origin.x + local.x, origin.y + local.y, origin.z + local.z);
        if (s < TILE_SITES && at.x < L && at.y < L && at.z < L) {
            unite_bonds(system_bonds, parents, links, s, local, at);
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
