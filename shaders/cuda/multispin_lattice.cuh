// Storage and neighbours of multispin words, the twin of multispin_lattice.wgsl and
// src/engine/multispin.rs. Word system g holds two colour arrays of rows() * row_words() words;
// row = z L + y; in a row of colour c the sites sit at x = 2k + p, p = (y + z + c) mod 2. Word
// systems are numbered g = (tw * SAMPLE_WORDS + sw) * REPLICA_WORDS + rw.

#include "lattice.cuh"
#include "multispin_layout.cuh"

constexpr unsigned REPLICA_WORDS = SPINFLIP_REPLICA_WORDS;
constexpr unsigned SAMPLE_WORDS = SPINFLIP_SAMPLE_WORDS;

__device__ constexpr unsigned rows() {
    return DIMS == 3u ? L * L : L;
}

__device__ constexpr unsigned colour_words() {
    return rows() * row_words();
}

// Word cw = row * row_words() + w of a colour array and the other colour's words next to it:
// `adjacent` supplies the shifted x-neighbour, minus/plus the -y, -z / +y, +z neighbours. Found
// from cw by offsets with one wrap test each (fewer ALU instructions than rebuilding them from
// rows). Offsets wrap modulo 2^32 (in 2D the z ones are never used); every true index fits.
struct WordNeighbours {
    unsigned p;
    unsigned adjacent;
    unsigned minus[2];
    unsigned plus[2];
};

__device__ __forceinline__ WordNeighbours word_neighbours(unsigned colour, unsigned row,
                                                          unsigned w) {
    constexpr unsigned wr = row_words();
    constexpr unsigned plane = L * wr;
    const unsigned cw = row * wr + w;
    const unsigned y = row % L;
    const unsigned z = row / L;
    WordNeighbours n;
    n.p = (y + z + colour) & 1u;
    if (n.p == 0u) {
        n.adjacent = w == 0u ? cw + (wr - 1u) : cw - 1u;
    } else {
        n.adjacent = w == wr - 1u ? cw - (wr - 1u) : cw + 1u;
    }
    n.minus[0] = y == 0u ? cw + (L - 1u) * wr : cw - wr;
    n.plus[0] = y == L - 1u ? cw - (L - 1u) * wr : cw + wr;
    n.minus[1] = z == 0u ? cw + (L - 1u) * plane : cw - plane;
    n.plus[1] = z == L - 1u ? cw - (L - 1u) * plane : cw + plane;
    return n;
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

// Row and word of the site visited at step y of a line.
__device__ __forceinline__ uint2 line_word(unsigned line, unsigned y) {
    const uint3 position = line_position(line);
    return make_uint2(position.x * L + y, position.y);
}

// Kernels index word-system and coupling arrays with 32-bit offsets from these pointers: one word
// system or coupling group holds fewer than 2^32 words, all of them together may not. The empty
// asm makes the pointer opaque; otherwise the compiler folds each 32-bit offset back into 64-bit
// index arithmetic, four instructions per load instead of one (seen in the update kernel's SASS).
// The assumption keeps its loads global loads.
template <typename T>
__device__ __forceinline__ T* opaque(T* pointer) {
    asm("" : "+l"(pointer));
    __builtin_assume(__isGlobal(pointer));
    return pointer;
}

// Colour `colour` of word system g.
template <typename T>
__device__ __forceinline__ T* colour_array(T* spins, unsigned g, unsigned colour) {
    return opaque(spins + (2ull * g + colour) * colour_words());
}

// Coupling group of word system g.
__device__ __forceinline__ unsigned coupling_group(unsigned g) {
    return (g / REPLICA_WORDS) % SAMPLE_WORDS;
}

// The colour-`colour` bonds of coupling group `group` in direction 0 (layout [group][d][colour]);
// direction d starts direction_stride() * d words further.
__device__ __forceinline__ const unsigned* colour_bonds(const unsigned* couplings, unsigned group,
                                                        unsigned colour) {
    return opaque(couplings + (2ull * DIMS * group + colour) * colour_words());
}

__device__ constexpr unsigned direction_stride() {
    return 2u * colour_words();
}
