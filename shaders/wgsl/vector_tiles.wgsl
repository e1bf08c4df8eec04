// Paper 000's double checkerboard on one tile colour of every vector-spin lattice: workgroup q
// of system z (the dispatch's tiles from params.first_thread: a piece of a sweep runs some of
// them) takes the q-th tile of tile colour params.colour (cubes of TILE sites a side,
// coloured by the parity of the sum of their tile coordinates: model::vector::tiles), loads it
// with its one-site halo into workgroup memory, and for each of HITS hits updates the tile's
// sites of checkerboard colour 0, then of colour 1, one Metropolis hit each (vector_hit.wgsl)
// against neighbours read from workgroup memory, the halo held fixed; then writes the tile
// back. The tiles of a colour share no bond, so their order is immaterial. CPU twin:
// src/engine/cpu/vector_tiles.rs; the randoms those of vector_metropolis (tile_hit_words:
// vector_metropolis's hit_words, the words the hits leave kept in workgroup memory). Accepted
// moves are summed per workgroup, then added to the system's 64-bit count (counts words 0, 1).
// Threads take the sites of a colour in turn, so any workgroup size gives the same bits.

#import vector_hit
#import counters

// Proposals per site and sweep (VectorSweeps::hits).
override HITS: u32 = 1u;
// Sites along a side of a tile (Tiles::size).
override TILE: u32 = 16u;
// Sites along a side of a tile with its halo.
override PADDED: u32 = TILE + 2u;
// Sites of a tile with its halo, PADDED^DIMS (Tiles::padded_sites).
override PADDED_SITES: u32 = PADDED * PADDED * (1u + (DIMS - 2u) * (PADDED - 1u));
// Words of workgroup memory: the padded tile's spin components, component-major.
override TILE_WORDS: u32 = COMPONENTS * PADDED_SITES;
// Sites of a tile, TILE^DIMS (Tiles::sites).
override TILE_SITES: u32 = TILE * TILE * (1u + (DIMS - 2u) * (TILE - 1u));

var<workgroup> tile: array<i32, TILE_WORDS>;
// Words of workgroup memory XY's pairs of hits carry (tile_hit_words, Tiles::workgroup_bytes),
// two planes over the tile's sites, colour-major; one for other spins.
override SPARE_WORDS: u32 = select(1u, 2u * TILE_SITES, COMPONENTS == 2u);
var<workgroup> spares: array<u32, SPARE_WORDS>;

// Tiles of one colour (Tiles::per_colour).
fn tiles_per_colour() -> u32 {
    let side = L / TILE;
    var n = side * side;
    if DIMS == 3u {
        n *= side;
    }
    return n / 2u;
}

// Tiles::origin: the coordinates of the first site of tile q of colour `colour`, the q-th site
// of that colour on the lattice of tiles.
fn tile_origin(colour: u32, q: u32) -> vec3<u32> {
    return colour_coords(L / TILE, colour, q) * TILE;
}

// Tiles::site: the padded coordinates (the tile's sites from 1, its halo at 0 and TILE + 1;
// z 0 in 2D) of the ci-th site of colour `colour` of a tile.
fn padded_site(colour: u32, ci: u32) -> vec3<u32> {
    let c = colour_coords(TILE, colour, ci);
    return vec3<u32>(c.x + 1u, c.y + 1u, select(0u, c.z + 1u, DIMS == 3u));
}

// The padded coordinates of the w-th of the padded tile's sites.
fn padded_coords(w: u32) -> vec3<u32> {
    return vec3<u32>(w % PADDED, (w / PADDED) % PADDED, w / (PADDED * PADDED));
}

// Index of padded coordinates p among the padded tile's sites.
fn padded_index(p: vec3<u32>) -> u32 {
    return (p.z * PADDED + p.y) * PADDED + p.x;
}

// The lattice site at padded coordinates p of the tile at `origin`, periodic.
fn lattice_site(origin: vec3<u32>, p: vec3<u32>) -> u32 {
    let x = (origin.x + p.x + L - 1u) % L;
    let y = (origin.y + p.y + L - 1u) % L;
    let z = select(0u, (origin.z + p.z + L - 1u) % L, DIMS == 3u);
    return (z * L + y) * L + x;
}

fn tile_spin(at: u32) -> vec3<i32> {
    var s = vec3<i32>(0i);
    for (var a = 0u; a < COMPONENTS; a++) {
        s[a] = tile[a * PADDED_SITES + at];
    }
    return s;
}

fn store_tile_spin(at: u32, s: vec3<i32>) {
    for (var a = 0u; a < COMPONENTS; a++) {
        tile[a * PADDED_SITES + at] = s[a];
    }
}

// hit_words of the tile's site `site` (site i of the lattice), the words 2-3 an XY pair's first
// hit leaves for its second kept in `spares`.
fn tile_hit_words(z: u32, i: u32, colour: u32, hit: u32, heat_bath: bool, site: u32) -> vec4<u32> {
    if takes_spare(hit, heat_bath) {
        return pair_words(vec2<u32>(spares[site], spares[TILE_SITES + site]));
    }
    let words = hit_draw(z, i, colour, draw_of(hit, heat_bath));
    if in_pairs(heat_bath) {
        spares[site] = words.z;
        spares[TILE_SITES + site] = words.w;
        return pair_words(words.xy);
    }
    return words;
}

// SiteUpdate::local_field of site i at padded index `at` of system z, the neighbours' spins
// from workgroup memory.
fn tile_local_field(z: u32, i: u32, at: u32) -> vec3<i32> {
    let strides = vec3<u32>(1u, PADDED, PADDED * PADDED);
    var h = vec3<i32>(FIELD, 0i, 0i);
    let near = neighbours(i);
    for (var k = 0u; k < coordination(); k++) {
        let stride = strides[k / 2u];
        let neighbour = select(at + stride, at - stride, k % 2u == 0u);
        h += bond_field(coupling(z, neighbour_bond(i, near[k], k)), tile_spin(neighbour));
    }
    return h;
}

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let q = workgroup_in_system(thread) + params.first_thread;
    let z = layer(params, thread);
    // Whole workgroups return, before any barrier.
    if q >= tiles_per_colour() || !dispatched(params, q) {
        return;
    }
    let origin = tile_origin(params.colour, q);
    for (var w = thread.local; w < PADDED_SITES; w += WG_SIZE) {
        let i = lattice_site(origin, padded_coords(w));
        for (var a = 0u; a < COMPONENTS; a++) {
            tile[a * PADDED_SITES + w] = spins[spin_word(z, a, i)];
        }
    }
    load_quarter_turns(thread);
    workgroupBarrier();
    let t = temperature_of(z);
    let width = widths[t];
    let table = t * 4u * TABLE_BYTE;
    var accepted = 0u;
    for (var hit = 0u; hit < HITS; hit++) {
        for (var colour = 0u; colour < 2u; colour++) {
            for (var ci = thread.local; ci < TILE_SITES / 2u; ci += WG_SIZE) {
                let p = padded_site(colour, ci);
                let i = lattice_site(origin, p);
                let at = padded_index(p);
                var s = tile_spin(at);
                let h = tile_local_field(z, i, at);
                let site = colour * TILE_SITES / 2u + ci;
                let words = tile_hit_words(z, i, colour, hit, width == HEAT_BATH, site);
                if metropolis_hit(words, h, &s, width, table) {
                    store_tile_spin(at, s);
                    accepted += 1u;
                }
            }
            workgroupBarrier();
        }
    }
    for (var w = thread.local; w < TILE_SITES; w += WG_SIZE) {
        let p = vec3<u32>(
            w % TILE + 1u,
            (w / TILE) % TILE + 1u,
            select(0u, w / (TILE * TILE) + 1u, DIMS == 3u),
        );
        let i = lattice_site(origin, p);
        let at = padded_index(p);
        for (var a = 0u; a < COMPONENTS; a++) {
            spins[spin_word(z, a, i)] = tile[a * PADDED_SITES + at];
        }
    }
    atomicAdd(&workgroup_accepted, accepted);
    workgroupBarrier();
    if thread.local == 0u {
        add_u64(z * count_words(), atomicLoad(&workgroup_accepted));
    }
}
