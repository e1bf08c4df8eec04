// The first stage of the labelling of a cluster update's bonds (block-local union-find, Komura,
// Comput. Phys. Commun. 194, 54 (2015); Playne and Hawick, IEEE TPDS 29, 1217 (2018)):
// workgroup t of system z takes tile t (TILE_X x TILE_Y x TILE_Z sites, the last along an axis
// clipped at the lattice's edge), unites the sites of every active bond within the tile in
// workgroup memory, and writes each site's label: the global index of its root in the tile.
// cluster_merge then joins the bonds between tiles in global memory.
//
// The tile's union-find works as the global one (cluster_merge.wgsl's join): a union links the
// larger root under the smaller with atomicMin, so its roots end as the smallest tile index of
// each component. Tile indices are row-major, x fastest, as site indices are, so the order of
// two sites of a tile is the same in both: the tile's root is the smallest site of its
// component in the tile, and the labels form a forest whose parents only decrease, as the
// global union-find needs. A 3D site's bonds are united in one loop (tile_join_each), a 2D
// site's one by one (tile_join). It replaces each site's label whole, so the labels need no
// start.
// CPU twin: src/engine/cpu/cluster_label.rs (a plain union-find over all bonds: the final
// roots, each cluster's smallest site, do not depend on the scheme). The CUDA twin sets the x
// bonds first as runs, from each warp's ballot, and unites only the other bonds
// (docs/design/cluster.md, "Runs on CUDA"); WGSL's subgroups are an optional feature of any
// size, and the runs built through workgroup memory made this kernel slower.

#import dispatch
#import lattice
#import cluster

@group(0) @binding(0) var<uniform> params: DispatchParams;

override TILE_SITES: u32 = TILE_X * TILE_Y * TILE_Z;

// The tile's union-find, tile indices (x fastest).
var<workgroup> parents: array<atomic<u32>, TILE_SITES>;

// One step of a halving root walk from *x, whose parent *px (!= *x) was read: *x moves to its
// grandparent (linking *x there, atomicMin: parents only decrease) or, where *px is a root, to
// *px.
fn tile_halving_step(x: ptr<function, u32>, px: ptr<function, u32>) {
    let grandparent = atomicLoad(&parents[*px]);
    if grandparent == *px {
        *x = *px;
        return;
    }
    atomicMin(&parents[*x], grandparent);
    *x = grandparent;
    *px = atomicLoad(&parents[grandparent]);
}

// The root of tile index `s`, halving the path: find_root (cluster.wgsl) on `parents` (WGSL
// passes no workgroup pointer to a function, so the tile has its own copy). Its steps are
// tile_halving_step's, written out: walking by that function, with the neighbour step below a
// function as well (0da429c, a15fc36), every 2D row through NVIDIA's Vulkan driver was 3-11%
// slower on an H100 (docs/BENCHMARKS.md, 2026-12-07).
fn tile_root(s: u32) -> u32 {
    var x = s;
    var parent = atomicLoad(&parents[x]);
    while parent != x {
        let grandparent = atomicLoad(&parents[parent]);
        if grandparent == parent {
            return parent;
        }
        atomicMin(&parents[x], grandparent);
        x = grandparent;
        parent = atomicLoad(&parents[x]);
    }
    return x;
}

// Join the components of tile indices a and b: cluster_merge.wgsl's join on `parents`.
fn tile_join(a0: u32, b0: u32) {
    var a = a0;
    var b = b0;
    loop {
        a = tile_root(a);
        b = tile_root(b);
        if a == b {
            return;
        }
        if a < b {
            let t = a;
            a = b;
            b = t;
        }
        let old = atomicMin(&parents[a], b);
        if old == a {
            return;
        }
        // a had been linked to old (< a) meanwhile: join old's component with b's.
        a = old;
    }
}

// Component k of `partners` (selects, not an index into the vector).
fn partner_at(partners: vec3<u32>, k: u32) -> u32 {
    return select(select(partners.x, partners.y, k == 1u), partners.z, k == 2u);
}

// Join the component of tile index s with that of partners[k] for each set bit k of `bonds`,
// lowest first, in one loop for all of them (CUDA's join_each, cluster.cuh): each turn a
// halving step of both walks not yet at a root, or the link; each union after the first starts
// from the root the one before reached. tile_join for each bond instead waits, at each loop's
// end, for the lane with the longest union: Swendsen-Wang at 3D 256^3 through Vulkan on an H100
// went from 26.0 to 26.5 spins/ns. In 2D, where a site has at most two bonds in its tile (three
// on the triangular lattice), this loop made the updates 14-19% slower.
fn tile_join_each(s: u32, bonds: u32, partners: vec3<u32>) {
    var left = bonds;
    if left == 0u {
        return;
    }
    var a = s;
    var b = partner_at(partners, firstTrailingBit(left));
    var pa = atomicLoad(&parents[a]);
    var pb = atomicLoad(&parents[b]);
    loop {
        if a != b {
            if pa != a || pb != b {
                if pa != a {
                    tile_halving_step(&a, &pa);
                }
                if pb != b {
                    tile_halving_step(&b, &pb);
                }
                continue;
            }
            // Both at their roots: the larger under the smaller, as tile_join links them.
            let high = max(a, b);
            let low = min(a, b);
            let old = atomicMin(&parents[high], low);
            if old != high {
                a = old;
                b = low;
                pa = atomicLoad(&parents[a]);
                pb = atomicLoad(&parents[b]);
                continue;
            }
        }
        left &= left - 1u;
        if left == 0u {
            return;
        }
        a = min(a, b);
        b = partner_at(partners, firstTrailingBit(left));
        pa = atomicLoad(&parents[a]);
        pb = atomicLoad(&parents[b]);
    }
}

// Coordinates within a tile of tile index s.
fn tile_coords(s: u32) -> vec3<u32> {
    return vec3<u32>(s % TILE_X, (s / TILE_X) % TILE_Y, s / (TILE_X * TILE_Y));
}

// The tile index of coordinates within a tile.
fn tile_index(c: vec3<u32>) -> u32 {
    return (c.z * TILE_Y + c.y) * TILE_X + c.x;
}

// The site of lattice coordinates c.
fn site_at(c: vec3<u32>) -> u32 {
    return (c.z * L + c.y) * L + c.x;
}

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let tile = workgroup_in_system(thread);
    let across = vec3<u32>(tiles_along(0u), tiles_along(1u), tiles_along(2u));
    // Uniform over the workgroup: a grid spilling into y has workgroups past the last tile.
    if tile >= across.x * across.y * across.z {
        return;
    }
    let z = layer(params, thread);
    let n = lattice_sites();
    let base = z * n;
    let shape = vec3<u32>(TILE_X, TILE_Y, TILE_Z);
    let origin = vec3<u32>(tile % across.x, (tile / across.x) % across.y, tile / (across.x * across.y)) * shape;
    for (var s = thread.local; s < TILE_SITES; s += WG_SIZE) {
        atomicStore(&parents[s], s);
    }
    workgroupBarrier();
    // Each 32 invocations take the tile's 32-site rows g rounds .. (g + 1) rounds - 1 in turn (g
    // = local / 32; WG_SIZE is a multiple of 32), so that the subgroups at work together unite
    // rows far apart and race less for the same roots: through Vulkan on an H200, Swendsen-Wang
    // at 2D 4096^2 went from 32.8 spins/ns (each invocation's sites WG_SIZE apart) to 34.9.
    let rounds = (TILE_SITES + WG_SIZE - 1u) / WG_SIZE;
    for (var round = 0u; round < rounds; round++) {
        let s = ((thread.local / 32u) * rounds + round) * 32u + thread.local % 32u;
        let at = origin + tile_coords(s);
        if s >= TILE_SITES || any(at >= vec3<u32>(L)) {
            continue;
        }
        let bits = bond_bits(z, n, site_at(at));
        if DIMS == 3u {
            var bonds = 0u;
            var partners = vec3<u32>(0u);
            for (var d = 0u; d < 3u; d++) {
                if ((bits >> d) & 1u) == 1u && !leaves_tile(at[d], d) {
                    // The neighbour's tile index, as the 2D loop's below.
                    var next = at - origin;
                    next[d] = select(next[d] + 1u, 0u, at[d] + 1u == L);
                    bonds |= 1u << d;
                    partners[d] = tile_index(next);
                }
            }
            tile_join_each(s, bonds, partners);
            continue;
        }
        for (var d = 0u; d < DIMS; d++) {
            if ((bits >> d) & 1u) == 1u && !leaves_tile(at[d], d) {
                // The neighbour is in this tile: one step along d, or back to the tile's start
                // where the bond wraps around a lattice that the tile covers along d.
                var next = at - origin;
                next[d] = select(next[d] + 1u, 0u, at[d] + 1u == L);
                tile_join(s, tile_index(next));
            }
        }
        // The triangular lattice's diagonal (direction 2): in the tile where it leaves it along
        // neither x nor y, one step along both.
        let diagonal = TRIANGULAR == 1u && ((bits >> 2u) & 1u) == 1u;
        if diagonal && !leaves_tile(at.x, 0u) && !leaves_tile(at.y, 1u) {
            let local = at - origin;
            let x = select(local.x + 1u, 0u, at.x + 1u == L);
            let y = select(local.y + 1u, 0u, at.y + 1u == L);
            tile_join(s, tile_index(vec3<u32>(x, y, 0u)));
        }
    }
    workgroupBarrier();
    for (var s = thread.local; s < TILE_SITES; s += WG_SIZE) {
        let at = origin + tile_coords(s);
        if any(at >= vec3<u32>(L)) {
            continue;
        }
        let root = tile_root(s);
        atomicStore(&labels[base + site_at(at)], site_at(origin + tile_coords(root)));
    }
}
