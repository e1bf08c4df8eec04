// Storage and neighbours of multispin words, the twin of multispin_lattice.wgsl and
// src/engine/multispin/. Word system g holds two colour arrays of rows() * row_words() words;
// row = z L + y; in a row of colour c the sites sit at x = 2k + p, p = (y + z + c) mod 2. Word
// systems are numbered g = (tw * SAMPLE_WORDS + sw) * REPLICA_WORDS + rw.
// Slabs (src/engine/slabs.rs): of the slowest axis (y in 2D, z in 3D) the kernels update and
// measure PLANES planes and store STORED_PLANES (a slab's own planes, then its upper and lower
// halo), over which that axis wraps; both L for whole lattices. WORD_OFFSET is the lattice's
// index of a slab's colour word 0, which keys the Philox counters.

#include "lattice.cuh"
#include "multispin_layout.cuh"

constexpr unsigned REPLICA_WORDS = SPINFLIP_REPLICA_WORDS;
constexpr unsigned SAMPLE_WORDS = SPINFLIP_SAMPLE_WORDS;
constexpr unsigned PLANES = SPINFLIP_PLANES;
constexpr unsigned STORED_PLANES = SPINFLIP_STORED_PLANES;
constexpr unsigned WORD_OFFSET = SPINFLIP_WORD_OFFSET;

// The kagome lattice (KAGOME 1, drawn on the triangular lattice, TRIANGULAR 1): the sites of odd
// x and odd y are holes, which no pass updates (pass 2, colour 0's odd rows) and no measurement
// counts; the other sites keep four of their six bonds (has_bonds).
constexpr unsigned KAGOME = SPINFLIP_KAGOME;

// The neighbour words a site's update counts: 2 directions(), 3 on the brick wall (lattice.cuh);
// on the kagome lattice the six of the triangular lattice, the two of its holes counted as
// satisfied.
__device__ constexpr unsigned counted_bonds() {
    return HONEYCOMB == 1u ? 3u : 2u * directions();
}

// Bonds of a site, the thresholds' coordination: counted_bonds(), but 4 on the kagome lattice.
__device__ constexpr unsigned site_bonds() {
    return KAGOME == 1u ? 4u : counted_bonds();
}

// Whether a site at x parity p and y parity h has its bonds along direction d (0 x, 1 y, 2 the
// diagonal), both ways: every site's, but on the kagome lattice only bonds with no hole at
// either end: the x bonds of even rows, the y bonds of even columns, the diagonals of sites of
// odd x + y; a hole has none. As MultispinLayout::has_bonds.
__device__ __forceinline__ bool has_bonds(unsigned d, unsigned p, unsigned h) {
    if (KAGOME == 0u) {
        return true;
    }
    return d == 0u ? h == 0u : d == 1u ? p == 0u : p != h;
}

// Lanes of the bonds along d of a site at (p, h): every lane, or none (has_bonds).
__device__ __forceinline__ unsigned bond_lanes(unsigned d, unsigned p, unsigned h) {
    return has_bonds(d, p, h) ? ~0u : 0u;
}

// Whether a site at x parity p and y parity h is a kagome hole.
__device__ __forceinline__ bool is_hole(unsigned p, unsigned h) {
    return KAGOME == 1u && p == 1u && h == 1u;
}

// Whether the sites of `colour` have their +y bond: all but the honeycomb's colour 1.
__device__ __forceinline__ bool has_plus_y(unsigned colour) {
    return HONEYCOMB == 0u || colour == 0u;
}

// Rows of one plane of the slowest axis.
__device__ constexpr unsigned plane_rows() {
    return DIMS == 3u ? L : 1u;
}

// Open edges (OPEN_AXES, bit d for axis d): a site at coordinate 0 or L - 1 of an open axis lacks
// the bond across it, which the updates and measurements leave out.
constexpr unsigned OPEN_AXES = SPINFLIP_OPEN_AXES;

// The lattice's plane of the slowest axis of stored plane 0: a slab's first (WORD_OFFSET counts
// the words of the planes before it).
__device__ constexpr unsigned first_plane() {
    return WORD_OFFSET / (plane_rows() * row_words());
}

// The lattice's (y, z) of stored row `row` of the own planes.
__device__ __forceinline__ uint2 lattice_row_coords(unsigned row) {
    return DIMS == 3u ? make_uint2(row % L, row / L + first_plane())
                      : make_uint2(row + first_plane(), 0u);
}

// Lanes of word w (x parity p) of a row at lattice coordinates `coords` (y, z) on side `side`
// (0: -, 1: +) of axis `axis` where that axis is open.
__device__ __forceinline__ unsigned axis_open_lanes(unsigned axis, unsigned side, unsigned w,
                                                    unsigned p, uint2 coords) {
    if (((OPEN_AXES >> axis) & 1u) == 0u) {
        return 0u;
    }
    if (axis == 0u) {
        return p == side && w == side * (row_words() - 1u) ? x_edge_lanes(side) : 0u;
    }
    return (axis == 1u ? coords.x : coords.y) == side * (L - 1u) ? ~0u : 0u;
}

// Lanes of word w (x parity p) of a row at lattice coordinates `coords` (y, z) whose bond towards
// side `side` (0: -d, 1: +d) of direction d crosses an open edge: the edge of axis d, or on the
// triangular lattice, whose diagonal (d 2) steps along x and y, of either; as
// MultispinLayout::open_lanes.
__device__ __forceinline__ unsigned open_lanes(unsigned d, unsigned side, unsigned w, unsigned p,
                                               uint2 coords) {
    if (TRIANGULAR == 1u && d == 2u) {
        return axis_open_lanes(0u, side, w, p, coords) | axis_open_lanes(1u, side, w, p, coords);
    }
    return axis_open_lanes(d, side, w, p, coords);
}

// Lanes of word w (x parity p, y parity h) of a row at lattice coordinates `coords` (y, z) of
// colour `colour` whose bond in slot k of its counted bonds (-x, +x, -y, +y, then -z, +z or the
// diagonal's; on the honeycomb -x, +x and the one y bond, up from colour 0) crosses an open
// edge: none of a bond the site lacks (has_bonds).
__device__ __forceinline__ unsigned slot_open_lanes(unsigned k, unsigned colour, unsigned w,
                                                    unsigned p, unsigned h, uint2 coords) {
    const unsigned side = HONEYCOMB == 1u && k == 2u ? (colour == 0u ? 1u : 0u) : k & 1u;
    return open_lanes(k / 2u, side, w, p, coords) & bond_lanes(k / 2u, p, h);
}

// Rows stored per colour (a slab's halos included).
__device__ constexpr unsigned rows() {
    return STORED_PLANES * plane_rows();
}

__device__ constexpr unsigned colour_words() {
    return rows() * row_words();
}

// Words of one colour that are updated (a slab's own planes').
__device__ constexpr unsigned own_colour_words() {
    return PLANES * plane_rows() * row_words();
}

// The stored extent of y: the slowest axis in 2D.
__device__ constexpr unsigned y_size() {
    return DIMS == 3u ? L : STORED_PLANES;
}

// Sites of a line of the observables and overlap kernels: L, or in 2D the own planes.
__device__ constexpr unsigned line_length() {
    return DIMS == 3u ? L : PLANES;
}

// The triangular lattice (TRIANGULAR 1): the diagonal bond from (x, y) to (x + 1, y + 1) joins
// sites of one colour, which update in two passes each, the rows of even y, then of odd y:
// pass = colour + 2 half is the dispatch's colour (src/engine/multispin/update.rs).
__device__ __forceinline__ unsigned pass_colour(unsigned pass) {
    return pass & 1u;
}

__device__ constexpr unsigned row_halves() {
    return TRIANGULAR == 1u ? 2u : 1u;
}

// Stored row of the r-th row a pass updates: every row, or every other from the pass's half.
__device__ __forceinline__ unsigned pass_row(unsigned pass, unsigned r) {
    return r * row_halves() + (pass >> 1u);
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
    const unsigned y = DIMS == 3u ? row % L : row;
    const unsigned z = DIMS == 3u ? row / L : 0u;
    WordNeighbours n;
    n.p = (y + z + colour) & 1u;
    if (n.p == 0u) {
        n.adjacent = w == 0u ? cw + (wr - 1u) : cw - 1u;
    } else {
        n.adjacent = w == wr - 1u ? cw - (wr - 1u) : cw + 1u;
    }
    n.minus[0] = y == 0u ? cw + (y_size() - 1u) * wr : cw - wr;
    n.plus[0] = y == y_size() - 1u ? cw - (y_size() - 1u) * wr : cw + wr;
    n.minus[1] = z == 0u ? cw + (STORED_PLANES - 1u) * plane : cw - plane;
    n.plus[1] = z == STORED_PLANES - 1u ? cw - (STORED_PLANES - 1u) * plane : cw + plane;
    return n;
}

// The (-x, +x) neighbours from the other colour's words at w and at the adjacent word.
__device__ __forceinline__ uint2 x_neighbours(unsigned same, unsigned adjacent, unsigned p) {
    const unsigned shifted = shift_in(same, adjacent, p);
    return p == 0u ? make_uint2(shifted, same) : make_uint2(same, shifted);
}

// Lines run along y with fixed (z, w, p): line = (z * row_words() + w) * 2 + p, over the own
// planes.
__device__ constexpr unsigned lines() {
    return (DIMS == 3u ? PLANES : 1u) * row_words() * 2u;
}

// Lines per thread of the observables and overlap kernels (MultispinLayout::line_run): strip s
// walks lines s, s + strips(), ..., all of one (w, p) since strips() is a multiple of
// 2 row_words().
constexpr unsigned LINE_RUN = SPINFLIP_LINE_RUN;

__device__ constexpr unsigned strips() {
    return lines() / LINE_RUN;
}

__device__ __forceinline__ unsigned strip_line(unsigned strip, unsigned r) {
    return strip + r * strips();
}

// Wide planes of a strip's lane tallies (bitslice.cuh): a strip adds at most directions() bonds
// for each of its LINE_RUN * line_length() sites.
__device__ constexpr unsigned bit_length(unsigned v) {
    return v == 0u ? 0u : 1u + bit_length(v >> 1u);
}

__device__ constexpr unsigned strip_planes() {
    return bit_length(directions() * LINE_RUN * line_length()) > TALLY_PLANES
               ? bit_length(directions() * LINE_RUN * line_length())
               : TALLY_PLANES;
}

// (z, w, p) of a line.
__device__ __forceinline__ uint3 line_position(unsigned line) {
    return make_uint3((line >> 1u) / row_words(), (line >> 1u) % row_words(), line & 1u);
}

// A line (z, w, p) seen from its first site. Along the line y advances the row by one and the
// colour alternates, while the x-offset of the sites' row stays p (p = (y + z + colour) mod 2 with
// colour = (z + y + p) mod 2): the adjacent word and the +z neighbour lie a constant distance
// from each site's word (word_neighbours' offsets, found once per line).
struct LineWalk {
    unsigned first;
    unsigned colour;
    unsigned p;
    unsigned adjacent;
    unsigned plus_z;
};

__device__ __forceinline__ LineWalk line_walk(unsigned line) {
    constexpr unsigned wr = row_words();
    constexpr unsigned plane = L * wr;
    const uint3 position = line_position(line);
    const unsigned z = position.x;
    const unsigned w = position.y;
    LineWalk walk;
    walk.p = position.z;
    walk.first = z * plane + w;
    walk.colour = (z + walk.p) & 1u;
    if (walk.p == 0u) {
        walk.adjacent = w == 0u ? wr - 1u : 0u - 1u;
    } else {
        walk.adjacent = w == wr - 1u ? 0u - (wr - 1u) : 1u;
    }
    walk.plus_z = z == STORED_PLANES - 1u ? 0u - (STORED_PLANES - 1u) * plane : plane;
    return walk;
}

// Lanes whose forward bonds (+x, +y, then +z or the diagonal) join two sites, of the site at step
// y of the line at `position` (z, w, p): bond_lanes, less those across an open edge.
__device__ __forceinline__ uint3 forward_lanes(const uint3& position, unsigned y) {
    const unsigned h = y & 1u;
    const unsigned w = position.y;
    const unsigned p = position.z;
    const uint2 coords = DIMS == 3u ? make_uint2(y, position.x + first_plane())
                                    : make_uint2(y + first_plane(), 0u);
    return make_uint3(bond_lanes(0u, p, h) & ~open_lanes(0u, 1u, w, p, coords),
                      bond_lanes(1u, p, h) & ~open_lanes(1u, 1u, w, p, coords),
                      bond_lanes(2u, p, h) & ~open_lanes(2u, 1u, w, p, coords));
}

// Word, colour and +y neighbour of the site at step y of a walk.
__device__ __forceinline__ unsigned walk_word(const LineWalk& walk, unsigned y) {
    return walk.first + y * row_words();
}

__device__ __forceinline__ unsigned walk_colour(const LineWalk& walk, unsigned y) {
    return (walk.colour + y) & 1u;
}

__device__ __forceinline__ unsigned walk_plus_y(unsigned y, unsigned cw) {
    return y == y_size() - 1u ? cw - (y_size() - 1u) * row_words() : cw + row_words();
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

// The colour-`colour` bonds of coupling group `group` in direction 0 (layout [group][d][colour];
// the triangular lattice's diagonal is direction 2); direction d starts direction_stride() * d
// words further.
__device__ __forceinline__ const unsigned* colour_bonds(const unsigned* couplings, unsigned group,
                                                        unsigned colour) {
    return opaque(couplings + (2ull * directions() * group + colour) * colour_words());
}

__device__ constexpr unsigned direction_stride() {
    return 2u * colour_words();
}

// The index in the observations, [slot][g][lane][up, satisfied] 64-bit counters of `systems` word
// systems a slot, of `half` (0 up spins, 1 satisfied bonds) of lane `lane` of word system g.
__device__ __forceinline__ unsigned long long observation_index(unsigned slot, unsigned systems,
                                                               unsigned g, unsigned lane,
                                                               unsigned half) {
    const unsigned long long word = static_cast<unsigned long long>(slot) * systems + g;
    return 2ull * (word * 32u + lane) + half;
}
