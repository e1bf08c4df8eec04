// The cluster updates' buffers (group 1; group 0 is the simple engine's) and what the kernels
// cluster_bonds, cluster_label, cluster_merge, cluster_roots and cluster_flip share. Keys and
// records: src/engine/clusters.rs; CPU twins: src/engine/cpu/cluster_*.rs.
//
// Per system z (N sites, base z N; Houdayer's move: per replica pair z, whose spins are those
// of systems pair_first(z) and pair_first(z) + REPLICAS / 2): bonds[z N / 4 + g] holds the
// forward bonds of sites 4g .. 4g + 3, byte k for site 4g + k, bit d for direction d
// (DIRECTIONS below); labels[z N + i] is site i's parent in the union-find (written by
// cluster_label as the root of its tile's union-find; its root, the cluster's smallest site,
// after cluster_roots); counts[z N + r] the sites of the cluster of root r (Swendsen-Wang, when
// recording; Houdayer: counts[z N] the pair's seed, NO_SEED for none, and counts[z N + 1] its
// relation, written by cluster_bonds before any move); sizes[2 (slot S + z)] the recorded
// statistic of system z as a (lo, hi) pair (Houdayer: sizes[4 z] the sites pair z's moves moved
// and sizes[4 z + 2] its moves that found a seed, added up over the moves).

@group(1) @binding(0) var<storage, read> activation: array<u32>;
@group(1) @binding(1) var<storage, read_write> bonds: array<u32>;
@group(1) @binding(2) var<storage, read_write> labels: array<atomic<u32>>;
@group(1) @binding(3) var<storage, read_write> counts: array<atomic<u32>>;
@group(1) @binding(4) var<storage, read_write> sizes: array<atomic<u32>>;

// 1 for Wolff (one cluster, of the seed, flips), 0 for Swendsen-Wang.
override WOLFF: u32 = 0u;
// The vector engine's discrete states q (Potts, diluted Ising; state q the vacancy of an empty
// site, which joins no bond and keeps its state), 0 for the simple engine's signs (no sign is
// 0): a Swendsen-Wang cluster then takes a drawn state, Wolff's moves by one or more states.
override STATES: u32 = 0u;

// Houdayer's move of replica pairs (the vector engine's discrete states): 1 the clusters of the
// sites where a pair disagrees, the seed's swapped between the two; 2 those where it agrees too
// (two states, no field), the seed's, if of agreement, taking the other state in both; 0 none.
override HOUDAYER: u32 = 0u;
// How a site of a replica pair holds its two states (engine::clusters::PairSite).
const DISAGREES: u32 = 0u;
const AGREES: u32 = 1u;
const EMPTY: u32 = 2u;
// Replicas per temperature and sample of the vector engine's systems (Houdayer's pairs).
override REPLICAS: u32 = 2u;
// A replica pair without a seed: no candidate site has the move's relation.
const NO_SEED: u32 = 0xffffffffu;

// The first system of Houdayer's replica pair z: replica p of its temperature and sample, whose
// partner is p + REPLICAS / 2 (model::systems::SystemIndex::overlap_systems).
fn pair_first(z: u32) -> u32 {
    let half = max(REPLICAS / 2u, 1u);
    return (z / half) * REPLICAS + z % half;
}

// STATES where there are states, else 1: the divisor of their arithmetic, which the pipeline's
// constant evaluation checks even on the signs' path.
fn state_count() -> u32 {
    return max(STATES, 1u);
}
// The open axes as bits (bit d: axis d open; config::Boundaries::open_axes): no bond crosses
// their edges.
override OPEN_AXES: u32 = 0u;
// The antiperiodic axes as bits (config::Boundaries::antiperiodic_axes): a bond across their
// edges joins opposite states (-J).
override TWISTED_AXES: u32 = 0u;
// Bond directions per site (lattice.wgsl's directions()) as a pipeline constant, so that the
// bond kernel's divisions by it fold at pipeline creation.
override DIRECTIONS: u32 = DIMS + TRIANGULAR;

// Whether bond direction d steps along axis a: direction d < DIMS along its own axis, the
// triangular lattice's diagonal (1, 1) (its direction 2, lattice.wgsl) along x and y.
fn steps_along(d: u32, a: u32) -> bool {
    if TRIANGULAR == 1u && d == 2u {
        return a < 2u;
    }
    return a == d;
}

// Whether the forward bond of `site` along direction d joins nothing (J = 0:
// model::lattices::is_missing_bond): it crosses the edge of an open axis it steps along, or is
// a honeycomb's gap.
fn missing_bond(site: u32, d: u32) -> bool {
    // Periodic and without gaps (every lattice but the honeycomb): nothing to compute.
    if OPEN_AXES == 0u && HONEYCOMB == 0u {
        return false;
    }
    for (var a = 0u; a < DIMS; a++) {
        let open = ((OPEN_AXES >> a) & 1u) == 1u;
        if open && steps_along(d, a) && coordinate(site, a) == L - 1u {
            return true;
        }
    }
    let odd = ((coordinate(site, 0u) + coordinate(site, 1u)) & 1u) == 1u;
    return HONEYCOMB == 1u && d == 1u && odd;
}

// Whether the forward bond of `site` along direction d is reversed (J < 0:
// model::lattices::bond_sign -1): it crosses the edges of an odd number of antiperiodic axes
// (the triangular diagonal from the corner crosses two).
fn twisted_bond(site: u32, d: u32) -> bool {
    var twisted = false;
    for (var a = 0u; a < DIMS; a++) {
        let antiperiodic = ((TWISTED_AXES >> a) & 1u) == 1u;
        if antiperiodic && steps_along(d, a) && coordinate(site, a) == L - 1u {
            twisted = !twisted;
        }
    }
    return twisted;
}

// Whether the occupied `spin` and its neighbour `near` along the forward bond of `site` in
// direction d may bond: equal, or across a reversed bond opposite (an occupied other state).
fn bondable(spin: i32, near: i32, site: u32, d: u32) -> bool {
    // Every axis periodic or open: nothing to compute.
    if TWISTED_AXES == 0u {
        return spin == near;
    }
    return near != i32(STATES) && (spin == near) != twisted_bond(site, d);
}

// A site's part of its Swendsen-Wang cluster's count (cluster_roots): 1; with an antiperiodic
// axis (two states), whose clusters hold both states across it, its spin's sign (+1 for state
// 0, -1 for state 1, as a u32), so that the count is the cluster's magnetisation, and 0 for the
// vacancy. CPU twin: magnetisation_weight in src/engine/cpu/vector.rs.
fn magnetisation_weight(spin: i32) -> u32 {
    if TWISTED_AXES == 0u {
        return 1u;
    }
    return select(select(1u, 0xffffffffu, spin == 1), 0u, u32(spin) == STATES);
}

// A dispatch's slot where its update records nothing (engine::dispatch::NO_SLOT).
const NO_SLOT: u32 = 0xffffffffu;

// The labelling's tile, sites along x, y and z (1 in 2D) (engine::clusters::tile_shape):
// cluster_label unites the bonds within each tile, cluster_merge those between tiles.
override TILE_X: u32;
override TILE_Y: u32;
override TILE_Z: u32;

// The tile's extent along axis d.
fn tile_extent(d: u32) -> u32 {
    return select(select(TILE_Z, TILE_Y, d == 1u), TILE_X, d == 0u);
}

// Tiles along axis d, the last clipped where the extent does not divide L (1 along z in 2D).
fn tiles_along(d: u32) -> u32 {
    if d >= DIMS {
        return 1u;
    }
    return (L + tile_extent(d) - 1u) / tile_extent(d);
}

// Whether the forward bond along d of a site at coordinate c joins it to a site of another
// tile: the neighbour's coordinate (c + 1, wrapping) lies in another tile along d.
fn leaves_tile(c: u32, d: u32) -> bool {
    let next = select(c + 1u, 0u, c + 1u == L);
    return next / tile_extent(d) != c / tile_extent(d);
}

// What thread g of a cluster kernel's system z handles: sites 4g .. 4g + 3 of the system, whose
// sites start at base = z N; none (`live` false) for the threads past the last quad.
struct Quad {
    g: u32,
    z: u32,
    base: u32,
    live: bool,
}

fn quad_of(thread: Thread) -> Quad {
    let g = thread_in_system(thread);
    let z = layer(params, thread);
    let n = lattice_sites();
    return Quad(g, z, z * n, 4u * g < n);
}

// The forward bonds of `site` (system z of n sites): bit d set where its bond along direction d
// is active.
fn bond_bits(z: u32, n: u32, site: u32) -> u32 {
    return bonds[z * (n / 4u) + site / 4u] >> (8u * (site % 4u));
}

// The root of `site` in system `base`, halving the path on the way: each site passed skips to
// its grandparent (atomicMin: parents only decrease, and a grandparent is in the same cluster),
// so the chains that concurrent unions build along the lattice stay short for the next walks.
// Parents only decrease, so the walk ends.
fn find_root(base: u32, site: u32) -> u32 {
    var x = site;
    var parent = atomicLoad(&labels[base + x]);
    while parent != x {
        let grandparent = atomicLoad(&labels[base + parent]);
        if grandparent == parent {
            return parent;
        }
        atomicMin(&labels[base + x], grandparent);
        x = grandparent;
        parent = atomicLoad(&labels[base + x]);
    }
    return x;
}

// The roots of sites 4g .. 4g + 3 of system `base`: one walk for a run of sites of equal
// parents (mostly one tile root). cluster_roots and cluster_flip read each parent in its site's
// turn; clock_flip, whose spins wait for the flips' decisions, reads the four first
// (`parents_first`), so that the reads overlap: that made its Swendsen-Wang updates 5-11% faster
// on an H100's Vulkan driver, and in cluster_roots and cluster_flip the Ising and Potts ones up
// to 1.5x slower. A halving walk may move a later site's parent meanwhile; the parent read first
// is then an ancestor of the same root.
fn quad_roots(base: u32, g: u32, parents_first: bool) -> vec4<u32> {
    var parents = vec4<u32>(0u);
    if parents_first {
        for (var k = 0u; k < 4u; k++) {
            parents[k] = atomicLoad(&labels[base + 4u * g + k]);
        }
    }
    var roots = vec4<u32>(0u);
    var walked = 0xffffffffu;
    var root = 0u;
    for (var k = 0u; k < 4u; k++) {
        var parent = parents[k];
        if !parents_first {
            parent = atomicLoad(&labels[base + 4u * g + k]);
        }
        if parent != walked {
            walked = parent;
            root = find_root(base, parent);
        }
        roots[k] = root;
    }
    return roots;
}

// Adds the 64-bit value (lo, hi) to the pair at words (i, i + 1) of `sizes`.
fn add_size(i: u32, lo: u32, hi: u32) {
    let old = atomicAdd(&sizes[i], lo);
    let carry = select(0u, 1u, old + lo < old);
    if hi + carry != 0u {
        atomicAdd(&sizes[i + 1u], hi + carry);
    }
}
