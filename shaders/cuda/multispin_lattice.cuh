// Storage and neighbours of multispin words, the twin of multispin_lattice.wgsl and
// src/engine/multispin.rs. Word system g holds two colour arrays of rows() * row_words() words;
// row = z L + y; in a row of colour c the sites sit at x = 2k + p, p = (y + z + c) mod 2. Word
// systems are numbered g = (tw * SAMPLE_WORDS + sw) * REPLICA_WORDS + rw.

#include "lattice.cuh"
#include "multispin_layout.cuh"

constexpr unsigned REPLICA_WORDS = SPINFLIP_REPLICA_WORDS;
constexpr unsigned SAMPLE_WORDS = SPINFLIP_SAMPLE_WORDS;

struct WordSite {
    unsigned row;
    unsigned w;
    unsigned p;
    // w - 1 (p = 0) or w + 1 (p = 1): the word that supplies the shifted x-neighbour.
    unsigned adjacent;
    // Rows of the -y, -z (minus) and +y, +z (plus) neighbours.
    unsigned minus_rows[2];
    unsigned plus_rows[2];
};

__device__ constexpr unsigned rows() {
    return DIMS == 3u ? L * L : L;
}

__device__ constexpr unsigned colour_words() {
    return rows() * row_words();
}

__device__ __forceinline__ unsigned wrap_minus(unsigned v) {
    return v == 0u ? L - 1u : v - 1u;
}

__device__ __forceinline__ unsigned wrap_plus(unsigned v) {
    return v == L - 1u ? 0u : v + 1u;
}

__device__ __forceinline__ WordSite word_site(unsigned colour, unsigned row, unsigned w) {
    const unsigned wr = row_words();
    const unsigned y = row % L;
    const unsigned z = row / L;
    WordSite site;
    site.row = row;
    site.w = w;
    site.p = (y + z + colour) & 1u;
    site.adjacent = site.p == 0u ? (w + wr - 1u) % wr : (w + 1u) % wr;
    site.minus_rows[0] = z * L + wrap_minus(y);
    site.minus_rows[1] = wrap_minus(z) * L + y;
    site.plus_rows[0] = z * L + wrap_plus(y);
    site.plus_rows[1] = wrap_plus(z) * L + y;
    return site;
}

// The (-x, +x) neighbours from the other colour's words at w and at the adjacent word.
__device__ __forceinline__ uint2 x_neighbours(unsigned same, unsigned adjacent, unsigned p) {
    const unsigned shifted = shift_in(same, adjacent, p);
    return p == 0u ? make_uint2(shifted, same) : make_uint2(same, shifted);
}

// Lines run along y with fixed (z, w, p): line = (z * row_words() + w) * 2 + p.
__device__ constexpr unsigned lines() {
    return (DIMS == 3u ? L : 1u) * row_words() * 2u;
}

// (z, w, p) of a line.
__device__ __forceinline__ uint3 line_position(unsigned line) {
    return make_uint3((line >> 1u) / row_words(), (line >> 1u) % row_words(), line & 1u);
}

// The colour of the site visited at step y of a line.
__device__ __forceinline__ unsigned line_colour(unsigned line, unsigned y) {
    const uint3 position = line_position(line);
    return (position.z + y + position.x) & 1u;
}

__device__ __forceinline__ WordSite line_site(unsigned line, unsigned y) {
    const uint3 position = line_position(line);
    return word_site(line_colour(line, y), position.x * L + y, position.y);
}

// Start of colour `colour` of word system g. 64-bit: all word systems together may hold more
// than 2^32 words on a large device.
__device__ __forceinline__ unsigned long long colour_base(unsigned g, unsigned colour) {
    return (2ull * g + colour) * colour_words();
}

// Coupling group of word system g, and the start of its direction-d bonds of one colour.
__device__ __forceinline__ unsigned coupling_group(unsigned g) {
    return (g / REPLICA_WORDS) % SAMPLE_WORDS;
}

__device__ __forceinline__ unsigned long long bond_base(unsigned group, unsigned d,
                                                        unsigned colour) {
    return ((static_cast<unsigned long long>(group) * DIMS + d) * 2u + colour) * colour_words();
}
