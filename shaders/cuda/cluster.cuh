// What the cluster kernels share (cluster_bonds, cluster_label, cluster_merge, cluster_roots,
// cluster_flip), the twin of cluster.wgsl. Keys and records: src/engine/clusters.rs; CPU twins:
// src/engine/cpu/cluster_*.rs. Every kernel takes the same arguments (DispatchParams by value,
// spins, activation thresholds, bonds, labels, counts, sizes), laid out as cluster.wgsl says;
// sizes are 64-bit counters added to with 64-bit atomics.

#include "dispatch.cuh"
#include "lattice.cuh"

// 1 for Wolff (one cluster, of the seed, flips), 0 for Swendsen-Wang (-DSPINFLIP_WOLFF).
constexpr unsigned WOLFF = SPINFLIP_WOLFF;
// The vector engine's discrete states q (Potts, diluted Ising; state q the vacancy of an empty
// site, which joins no bond and keeps its state), 0 for the simple engine's signs (no sign is
// 0; -DSPINFLIP_STATES, which only the vector engine defines): a Swendsen-Wang cluster then
// takes a drawn state, Wolff's moves by one or more states.
#ifdef SPINFLIP_STATES
constexpr unsigned STATES = SPINFLIP_STATES;
#else
constexpr unsigned STATES = 0u;
#endif
// Houdayer's move of replica pairs (the vector engine's discrete states; -DSPINFLIP_HOUDAYER):
// 1 the clusters of the sites where a pair disagrees, the seed's swapped between the two; 2
// those where it agrees too (two states, no field), the seed's, if of agreement, taking the
// other state in both; 0 none.
constexpr unsigned HOUDAYER = SPINFLIP_HOUDAYER;
// How a site of a replica pair holds its two states (engine::clusters::PairSite).
constexpr unsigned DISAGREES = 0u;
constexpr unsigned AGREES = 1u;
constexpr unsigned EMPTY = 2u;
// Replicas per temperature and sample of the vector engine's systems (Houdayer's pairs;
// -DSPINFLIP_REPLICAS, which only the vector engine defines).
#ifdef SPINFLIP_REPLICAS
constexpr unsigned REPLICAS = SPINFLIP_REPLICAS;
#else
constexpr unsigned REPLICAS = 2u;
#endif
// A replica pair without a seed: no candidate site has the move's relation. Houdayer's record:
// sizes[2 z] the sites pair z's moves moved, sizes[2 z + 1] its moves that found a seed.
constexpr unsigned NO_SEED = 0xffffffffu;
// STATES where there are states, else 1: the divisor of their arithmetic on every path.
constexpr unsigned STATE_COUNT = STATES > 0u ? STATES : 1u;
// The open axes as bits (bit d: axis d open; config::Boundaries::open_axes,
// -DSPINFLIP_OPEN_AXES): no bond crosses their edges.
constexpr unsigned OPEN_AXES = SPINFLIP_OPEN_AXES;
// The antiperiodic axes as bits (config::Boundaries::antiperiodic_axes,
// -DSPINFLIP_TWISTED_AXES): a bond across their edges joins opposite states (-J).
constexpr unsigned TWISTED_AXES = SPINFLIP_TWISTED_AXES;

// Whether bond direction d steps along axis a: direction d < DIMS along its own axis, the
// triangular lattice's diagonal (1, 1) (its direction 2, lattice.cuh) along x and y.
__device__ __forceinline__ bool steps_along(unsigned d, unsigned a) {
    return TRIANGULAR == 1u && d == 2u ? a < 2u : a == d;
}

// Whether the forward bond of `site` along direction d joins nothing (J = 0:
// model::lattices::is_missing_bond): it crosses the edge of an open axis it steps along, or is
// a honeycomb's gap.
__device__ __forceinline__ bool missing_bond(unsigned site, unsigned d) {
    // Periodic and without gaps (every lattice but the honeycomb): nothing to compute.
    if (OPEN_AXES == 0u && HONEYCOMB == 0u) {
        return false;
    }
    for (unsigned a = 0u; a < DIMS; a++) {
        const bool open = ((OPEN_AXES >> a) & 1u) == 1u;
        if (open && steps_along(d, a) && coordinate(site, a) == L - 1u) {
            return true;
        }
    }
    const bool odd = ((coordinate(site, 0u) + coordinate(site, 1u)) & 1u) == 1u;
    return HONEYCOMB == 1u && d == 1u && odd;
}

// Whether the forward bond of `site` along direction d is reversed (J < 0:
// model::lattices::bond_sign -1): it crosses the edges of an odd number of antiperiodic axes
// (the triangular diagonal from the corner crosses two).
__device__ __forceinline__ bool twisted_bond(unsigned site, unsigned d) {
    bool twisted = false;
    for (unsigned a = 0u; a < DIMS; a++) {
        const bool antiperiodic = ((TWISTED_AXES >> a) & 1u) == 1u;
        if (antiperiodic && steps_along(d, a) && coordinate(site, a) == L - 1u) {
            twisted = !twisted;
        }
    }
    return twisted;
}

// A site's part of its Swendsen-Wang cluster's count (cluster_roots): 1; with an antiperiodic
// axis (two states), whose clusters hold both states across it, its spin's sign (+1 for state
// 0, -1 for state 1, as an unsigned), so that the count is the cluster's magnetisation, and 0
// for the vacancy (magnetisation_weight in cluster.wgsl and src/engine/cpu/vector.rs).
__device__ __forceinline__ unsigned magnetisation_weight(int spin) {
    if (TWISTED_AXES == 0u) {
        return 1u;
    }
    if (static_cast<unsigned>(spin) == STATES) {
        return 0u;
    }
    return spin == 1 ? 0xffffffffu : 1u;
}

// The square of a cluster's count: its size's, or with an antiperiodic axis its
// magnetisation's (the count as an int).
__device__ __forceinline__ unsigned long long count_square(unsigned count) {
    const unsigned long long magnitude =
        TWISTED_AXES == 0u ? count : static_cast<unsigned>(abs(static_cast<int>(count)));
    return magnitude * magnitude;
}

// Whether the occupied `spin` and its neighbour `near` along the forward bond of `site` in
// direction d may bond: equal, or across a reversed bond opposite (an occupied other state).
__device__ __forceinline__ bool bondable(int spin, int near, unsigned site, unsigned d) {
    // Every axis periodic or open: nothing to compute.
    if (TWISTED_AXES == 0u) {
        return spin == near;
    }
    return near != static_cast<int>(STATES) && (spin == near) != twisted_bond(site, d);
}

// A launch's slot where its update records nothing (engine::dispatch::NO_SLOT).
constexpr unsigned NO_SLOT = 0xffffffffu;

// The labelling's tile, sites along x, y and z (1 in 2D) (engine::clusters::tile_shape,
// -DSPINFLIP_TILE_X ...): cluster_label unites the bonds within each tile, cluster_merge those
// between tiles.
constexpr unsigned TILE_X = SPINFLIP_TILE_X;
constexpr unsigned TILE_Y = SPINFLIP_TILE_Y;
constexpr unsigned TILE_Z = SPINFLIP_TILE_Z;
constexpr unsigned TILE_SITES = TILE_X * TILE_Y * TILE_Z;

// The tile's extent along axis d.
__device__ __forceinline__ unsigned tile_extent(unsigned d) {
    return d == 0u ? TILE_X : (d == 1u ? TILE_Y : TILE_Z);
}

// Tiles along axis d, the last clipped where the extent does not divide L (1 along z in 2D).
__device__ __forceinline__ unsigned tiles_along(unsigned d) {
    return d >= DIMS ? 1u : (L + tile_extent(d) - 1u) / tile_extent(d);
}

// Whether the forward bond along d of a site at coordinate c joins it to a site of another
// tile: the neighbour's coordinate (c + 1, wrapping) lies in another tile along d.
__device__ __forceinline__ bool leaves_tile(unsigned c, unsigned d) {
    const unsigned next = c + 1u == L ? 0u : c + 1u;
    return next / tile_extent(d) != c / tile_extent(d);
}

// What thread g of a cluster kernel's system z handles: sites 4g .. 4g + 3 of the system, whose
// sites start at base = z N; none (`live` false) for the threads past the last quad.
struct Quad {
    unsigned g;
    unsigned z;
    unsigned long long base;
    bool live;
};

__device__ __forceinline__ Quad quad_of(const DispatchParams& params) {
    const unsigned g = thread_in_system();
    const unsigned z = layer(params);
    const unsigned n = lattice_sites();
    return {g, z, static_cast<unsigned long long>(z) * n, 4u * g < n};
}

// The first system of Houdayer's replica pair z: replica p of its temperature and sample, whose
// partner is p + REPLICAS / 2 (model::systems::SystemIndex::overlap_systems).
__device__ __forceinline__ unsigned pair_first(unsigned z) {
    constexpr unsigned half = REPLICAS / 2u > 0u ? REPLICAS / 2u : 1u;
    return (z / half) * REPLICAS + z % half;
}

// The forward bonds of `site` among `bonds` (one system's): bit d set where its bond along
// direction d is active.
__device__ __forceinline__ unsigned bond_bits(const unsigned* bonds, unsigned site) {
    return bonds[site / 4u] >> (8u * (site % 4u));
}

// Where a union-find's parents lie: a tile's in shared memory (cluster_label), or one system's
// in global memory (every other caller).
enum class Parents { Tile, System };

// How a root walk treats the forest. Halving: other threads still link and halve it, so its
// reads see their writes and it halves the path it takes. Settled: no thread of the kernel
// changes it (a tile's after its unions, a system's in the flips after the labelling), so its
// reads are plain ones (a system's through the read-only data cache) and it writes nothing.
// Settled walks took CUDA's Swendsen-Wang at 4096^2 on an H200 from 22.2 to 25.1 spins/ns. The
// WGSL twin halves in every walk: it reads a system's parents only by atomic loads, which that
// cache does not serve, and its flips without halving measured slower (32.5 -> 30.1 through
// Vulkan; its tile's last walks no faster). The roots found are the same either way.
enum class Walk { Halving, Settled };

// Parent x among `labels`. Halving, as the other threads' links have left it: a tile's by a
// volatile shared-memory read; a system's by a relaxed load at the device's scope, what the
// WGSL twin's atomicLoad is (a volatile global read would be a load at the system's scope,
// which the hardware serves more slowly: Swendsen-Wang at 4096^2 on an H200, 19.9 -> 22.2
// spins/ns).
template <Parents P, Walk W>
__device__ __forceinline__ unsigned parent_of(const unsigned* labels, unsigned x) {
    if constexpr (W == Walk::Settled) {
        return P == Parents::Tile ? labels[x] : __ldg(labels + x);
    } else if constexpr (P == Parents::Tile) {
        return static_cast<const volatile unsigned*>(labels)[x];
    } else {
        unsigned parent;
        asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];"
                     : "=r"(parent)
                     : "l"(labels + x)
                     : "memory");
        return parent;
    }
}

// One step of a halving root walk from x, whose parent px (!= x) was read: x moves to its
// grandparent (linking x there, atomicMin: parents only decrease) or, where px is a root, to px.
template <Parents P>
__device__ __forceinline__ void halving_step(unsigned* labels, unsigned& x, unsigned& px) {
    const unsigned grandparent = parent_of<P, Walk::Halving>(labels, px);
    if (grandparent == px) {
        x = px;
        return;
    }
    atomicMin(&labels[x], grandparent);
    x = grandparent;
    px = parent_of<P, Walk::Halving>(labels, x);
}

// The root of `site` among `labels` (one system's in global memory, or a tile's in shared
// memory). Halving (W), each site passed skips to its grandparent on the way (atomicMin:
// parents only decrease, and a grandparent is in the same cluster), so the chains that
// concurrent unions build along the lattice stay short; its reads see the other threads'
// links, and parents only decrease, so the walk ends. Settled: a plain walk up the parents.
template <Parents P = Parents::System, Walk W = Walk::Halving>
__device__ __forceinline__ unsigned find_root(unsigned* labels, unsigned site) {
    unsigned x = site;
    unsigned parent = parent_of<P, W>(labels, x);
    while (parent != x) {
        if constexpr (W == Walk::Settled) {
            x = parent;
            parent = parent_of<P, W>(labels, x);
        } else {
            halving_step<P>(labels, x, parent);
        }
    }
    return x;
}

// The lanes of the caller's warp that exist: all 32 but in a block's last warp where the block
// size is no multiple of 32 (blocks are one-dimensional).
__device__ __forceinline__ unsigned warp_lanes() {
    const unsigned lanes = min(32u, blockDim.x - (threadIdx.x & ~31u));
    return lanes == 32u ? 0xffffffffu : (1u << lanes) - 1u;
}

// The roots of sites 4g .. 4g + 3 among `labels` (one system's), into `roots`: one walk (W)
// for a run of sites of equal parents (mostly one tile root). cluster_roots (halving: it points
// sites at their roots meanwhile) and the flips (settled).
// `lanes`: the lanes of the warp that call it. Root walks differ in length, and lanes that
// leave a loop apart stay apart (independent thread scheduling), so every later instruction
// would run once per group of lanes; they meet again after each site (__syncwarp), as the
// structured control flow of the WGSL twin makes them through Vulkan.
template <Walk W>
__device__ __forceinline__ void quad_roots(unsigned* labels, unsigned g, unsigned roots[4],
                                           unsigned lanes) {
    // The four parents in one read (a system's sites are a multiple of 4).
    const uint4* quads = reinterpret_cast<const uint4*>(labels);
    const uint4 first = W == Walk::Settled ? __ldg(quads + g) : quads[g];
    const unsigned parents[4] = {first.x, first.y, first.z, first.w};
    unsigned walked = 0xffffffffu;
    unsigned root = 0u;
    for (unsigned k = 0u; k < 4u; k++) {
        const unsigned parent = parents[k];
        if (parent != walked) {
            walked = parent;
            root = find_root<Parents::System, W>(labels, parent);
        }
        roots[k] = root;
        __syncwarp(lanes);
    }
}

// A halving step of each of a union's two walks (at sites a and b, whose parents pa and pb were
// read) not yet at a root.
template <Parents P>
__device__ __forceinline__ void walk_on(unsigned* labels, unsigned& a, unsigned& b, unsigned& pa,
                                        unsigned& pb) {
    if (pa != a) {
        halving_step<P>(labels, a, pa);
    }
    if (pb != b) {
        halving_step<P>(labels, b, pb);
    }
}

// The link of a union whose walks are at their roots a and b: the larger under the smaller by
// atomicMin, so parents only decrease and a cluster's root ends as its smallest site whatever
// order the threads run in. False where atomicMin returns another parent (another thread
// linked that root first): the union goes on from that parent and the smaller root.
template <Parents P>
__device__ __forceinline__ bool link(unsigned* labels, unsigned& a, unsigned& b, unsigned& pa,
                                     unsigned& pb) {
    const unsigned high = max(a, b);
    const unsigned low = min(a, b);
    const unsigned old = atomicMin(&labels[high], low);
    if (old == high) {
        return true;
    }
    a = old;
    b = low;
    pa = parent_of<P, Walk::Halving>(labels, a);
    pb = parent_of<P, Walk::Halving>(labels, b);
    return false;
}

// Join the clusters of sites a and b among `labels` (one system's, or a tile's): walk both to
// their roots and link them. One loop, each turn a step of both walks (those not yet at a
// root) or the link: the lanes of a warp that join stay together in it. With a loop per walk,
// lanes that left a walk apart stayed apart (independent thread scheduling) and the tile's
// unions ran with 2-5 of 32 lanes; one loop took Swendsen-Wang on an H100 from 19.1 to 21.6
// spins/ns at 3D 256^3 and the triangular lattice's update from 43.8 to 38.2 ps a site.
template <Parents P = Parents::System>
__device__ __forceinline__ void join(unsigned* labels, unsigned a, unsigned b) {
    unsigned pa = parent_of<P, Walk::Halving>(labels, a);
    unsigned pb = parent_of<P, Walk::Halving>(labels, b);
    while (a != b) {
        if (pa != a || pb != b) {
            walk_on<P>(labels, a, b, pa, pb);
            continue;
        }
        if (link<P>(labels, a, b, pa, pb)) {
            return;
        }
    }
}

// Join the cluster of site s among `labels` with that of `partner(k)` for each set bit k of
// `partners`, lowest first, as join does, in one loop for all of them: lanes with different
// numbers of unions, or whose unions end at different turns, take every turn together. Each
// union after the first starts from the root the one before reached (the smaller of its two
// sites when it ended, a root when it was read).
template <Parents P = Parents::System, typename Partner>
__device__ __forceinline__ void join_each(unsigned* labels, unsigned s, unsigned partners,
                                          Partner partner) {
    if (partners == 0u) {
        return;
    }
    unsigned a = s;
    unsigned b = partner(__ffs(partners) - 1u);
    unsigned pa = parent_of<P, Walk::Halving>(labels, a);
    unsigned pb = parent_of<P, Walk::Halving>(labels, b);
    while (true) {
        if (a != b) {
            if (pa != a || pb != b) {
                walk_on<P>(labels, a, b, pa, pb);
                continue;
            }
            if (!link<P>(labels, a, b, pa, pb)) {
                continue;
            }
        }
        partners &= partners - 1u;
        if (partners == 0u) {
            return;
        }
        a = min(a, b);
        b = partner(__ffs(partners) - 1u);
        pa = parent_of<P, Walk::Halving>(labels, a);
        pb = parent_of<P, Walk::Halving>(labels, b);
    }
}
