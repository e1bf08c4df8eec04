// Paper 000's double checkerboard on one tile colour of every vector-spin lattice, the twin of
// vector_tiles.wgsl: block q of system z (the launch's tiles from params.first_thread: a piece
// of a sweep runs some of them) takes the q-th tile of tile colour params.colour
// (cubes of TILE sites a side, coloured by the parity of the sum of their tile coordinates:
// model::vector::tiles), loads it with its one-site halo into shared memory, and for each of
// HITS hits updates the tile's sites of checkerboard colour 0, then of colour 1, one Metropolis
// hit each (vector_hit.cuh) against neighbours read from shared memory, the halo held fixed;
// then writes the tile back. CPU twin: src/engine/cpu/vector_tiles.rs; the randoms those of
// vector_metropolis (tile_hit_words: vector_metropolis's hit_words, the words the hits leave
// kept in shared memory). Accepted moves are summed per block, then added to the system's
// counter 0. Threads take the sites of a colour in turn, so any block size gives the same bits.

#include "vector_hit.cuh"

// Proposals per site and sweep (VectorSweeps::hits).
constexpr unsigned HITS = SPINFLIP_HITS;
// Sites along a side of a tile (Tiles::size).
constexpr unsigned TILE = SPINFLIP_TILE;
// Sites along a side of a tile with its halo.
constexpr unsigned PADDED = TILE + 2u;
// Sites of a tile with its halo, PADDED^DIMS (Tiles::padded_sites).
constexpr unsigned PADDED_SITES = DIMS == 3u ? PADDED * PADDED * PADDED : PADDED * PADDED;
// Words of shared memory: the padded tile's spin components, component-major.
constexpr unsigned TILE_WORDS = COMPONENTS * PADDED_SITES;
// Sites of a tile (Tiles::sites).
constexpr unsigned TILE_SITES = DIMS == 3u ? TILE * TILE * TILE : TILE * TILE;
// Words of shared memory XY's pairs of hits carry (Tiles::workgroup_bytes); one for others.
constexpr unsigned SPARE_WORDS = COMPONENTS == 2u ? 2u * TILE_SITES : 1u;
// Tiles along a side of the lattice, and of one colour (Tiles::per_colour).
constexpr unsigned TILES_PER_SIDE = L / TILE;
constexpr unsigned TILES_PER_COLOUR =
    (DIMS == 3u ? TILES_PER_SIDE * TILES_PER_SIDE * TILES_PER_SIDE
                : TILES_PER_SIDE * TILES_PER_SIDE) / 2u;

// Tiles::origin: the coordinates of the first site of tile q of colour `colour`, the q-th site
// of that colour on the lattice of tiles.
__device__ __forceinline__ uint3 tile_origin(unsigned colour, unsigned q) {
    const uint3 t = colour_coords(TILES_PER_SIDE, colour, q);
    return make_uint3(t.x * TILE, t.y * TILE, t.z * TILE);
}

// Tiles::site: the padded coordinates (the tile's sites from 1, its halo at 0 and TILE + 1;
// z 0 in 2D) of the ci-th site of colour `colour` of a tile.
__device__ __forceinline__ uint3 padded_site(unsigned colour, unsigned ci) {
    const uint3 c = colour_coords(TILE, colour, ci);
    return make_uint3(c.x + 1u, c.y + 1u, DIMS == 3u ? c.z + 1u : 0u);
}

// The padded coordinates of the w-th of the padded tile's sites.
__device__ __forceinline__ uint3 padded_coords(unsigned w) {
    return make_uint3(w % PADDED, (w / PADDED) % PADDED, w / (PADDED * PADDED));
}

// Index of padded coordinates p among the padded tile's sites.
__device__ __forceinline__ unsigned padded_index(const uint3& p) {
    return (p.z * PADDED + p.y) * PADDED + p.x;
}

// The lattice site at padded coordinates p of the tile at `origin`, periodic.
__device__ __forceinline__ unsigned lattice_site(const uint3& origin, const uint3& p) {
    const unsigned x = (origin.x + p.x + L - 1u) % L;
    const unsigned y = (origin.y + p.y + L - 1u) % L;
    const unsigned z = DIMS == 3u ? (origin.z + p.z + L - 1u) % L : 0u;
    return (z * L + y) * L + x;
}

__device__ __forceinline__ Vector tile_spin(const int* tile, unsigned at) {
    Vector s = {{0, 0, 0}};
#pragma unroll
    for (unsigned a = 0u; a < COMPONENTS; a++) {
        s.c[a] = tile[a * PADDED_SITES + at];
    }
    return s;
}

__device__ __forceinline__ void store_tile_spin(int* tile, unsigned at, const Vector& s) {
#pragma unroll
    for (unsigned a = 0u; a < COMPONENTS; a++) {
        tile[a * PADDED_SITES + at] = s.c[a];
    }
}

// hit_words of the tile's site `site` (site i of the lattice), the words 2-3 an XY pair's first
// hit leaves for its second kept in `spares`.
__device__ __forceinline__ uint4 tile_hit_words(const DispatchParams& params, unsigned z,
                                                unsigned i, unsigned colour, unsigned hit,
                                                bool heat_bath, unsigned* spares,
                                                unsigned site) {
    if (takes_spare(hit, heat_bath)) {
        return pair_words(spares[site], spares[TILE_SITES + site]);
    }
    const uint4 words = hit_draw(params, z, i, colour, draw_of(hit, heat_bath));
    if (in_pairs(heat_bath)) {
        spares[site] = words.z;
        spares[TILE_SITES + site] = words.w;
        return pair_words(words.x, words.y);
    }
    return words;
}

// SiteUpdate::local_field of site i at padded index `at` of system z, the neighbours' spins
// from shared memory.
__device__ __forceinline__ Vector tile_local_field(const int* tile, const int* couplings,
                                                   unsigned z, unsigned i, unsigned at) {
    const unsigned strides[3] = {1u, PADDED, PADDED * PADDED};
    Vector h = {{FIELD, 0, 0}};
    const Neighbours near = neighbours(i);
#pragma unroll
    for (unsigned k = 0u; k < coordination(); k++) {
        const unsigned stride = strides[k / 2u];
        const unsigned neighbour = k % 2u == 0u ? at - stride : at + stride;
        const int J = coupling(couplings, z, neighbour_bond(i, near.site[k], k));
        const Vector s = tile_spin(tile, neighbour);
#pragma unroll
        for (unsigned a = 0u; a < COMPONENTS; a++) {
            h.c[a] += bond_field(J, s.c[a]);
        }
    }
    return h;
}

extern "C" __global__ void vector_tiles(DispatchParams params, int* spins, const unsigned* tables,
                                        unsigned long long* counts, const int* couplings,
                                        const int* widths, const int* lookups) {
    __shared__ int tile[TILE_WORDS];
    // The words XY pairs' first hits left for their second (tile_hit_words), two planes over
    // the tile's sites, colour-major.
    __shared__ unsigned spares[SPARE_WORDS];
    __shared__ unsigned block_accepted;
    const unsigned q = workgroup_in_system() + params.first_thread;
    const unsigned z = layer(params);
    // Whole blocks return, before any barrier.
    if (q >= TILES_PER_COLOUR || !dispatched(params, q)) {
        return;
    }
    if (threadIdx.x == 0u) {
        block_accepted = 0u;
    }
    const uint3 origin = tile_origin(params.colour, q);
    for (unsigned w = threadIdx.x; w < PADDED_SITES; w += blockDim.x) {
        const unsigned i = lattice_site(origin, padded_coords(w));
#pragma unroll
        for (unsigned a = 0u; a < COMPONENTS; a++) {
            tile[a * PADDED_SITES + w] = spins[spin_word(z, a, i)];
        }
    }
    load_quarter_turns(lookups);
    __syncthreads();
    const unsigned t = temperature_of(z);
    const unsigned* table = tables + t * 4u * TABLE_BYTE;
    const int width = widths[t];
    unsigned accepted = 0u;
    for (unsigned hit = 0u; hit < HITS; hit++) {
        for (unsigned colour = 0u; colour < 2u; colour++) {
            for (unsigned ci = threadIdx.x; ci < TILE_SITES / 2u; ci += blockDim.x) {
                const uint3 p = padded_site(colour, ci);
                const unsigned i = lattice_site(origin, p);
                const unsigned at = padded_index(p);
                Vector s = tile_spin(tile, at);
                const Vector h = tile_local_field(tile, couplings, z, i, at);
                const unsigned site = colour * (TILE_SITES / 2u) + ci;
                const uint4 words = tile_hit_words(params, z, i, colour, hit,
                                                   width == HEAT_BATH, spares, site);
                if (metropolis_hit(words, h, s, table, width)) {
                    store_tile_spin(tile, at, s);
                    accepted++;
                }
            }
            __syncthreads();
        }
    }
    for (unsigned w = threadIdx.x; w < TILE_SITES; w += blockDim.x) {
        const uint3 p = make_uint3(w % TILE + 1u, (w / TILE) % TILE + 1u,
                                   DIMS == 3u ? w / (TILE * TILE) + 1u : 0u);
        const unsigned i = lattice_site(origin, p);
        const unsigned at = padded_index(p);
#pragma unroll
        for (unsigned a = 0u; a < COMPONENTS; a++) {
            spins[spin_word(z, a, i)] = tile[a * PADDED_SITES + at];
        }
    }
    atomicAdd(&block_accepted, accepted);
    __syncthreads();
    if (threadIdx.x == 0u) {
        atomicAdd(counts + static_cast<unsigned long long>(z) * COUNTERS,
                  static_cast<unsigned long long>(block_accepted));
    }
}
