// Checkerboard Metropolis on multispin words: 32 lanes (AMSC) or 32 sites (SMSC) per word, exact
// independent decisions; the twin of multispin_metropolis.wgsl. CPU twin:
// src/engine/cpu/multispin_metropolis.rs. The threads of word system g = first_system +
// blockIdx.z each update WORD_RUN words of one row of colour COLOUR, one after the other.

#include "dispatch.cuh"
#include "bitslice.cuh"
#include "multispin_lattice.cuh"
#include "multispin_decide.cuh"

// Edwards-Anderson couplings to read (the ferromagnet has none).
constexpr bool DISORDERED = SPINFLIP_DISORDERED != 0u;

// The colour this module updates (params.colour of its dispatches).
constexpr unsigned COLOUR = SPINFLIP_COLOUR;

// Words per thread: WORD_RUN words of one row (it divides the words of a row), row_words() /
// WORD_RUN apart so that each load of a warp stays coalesced, share the row's geometry and array
// pointers, and their loads differ by constant offsets (in the SASS of the 3D update, about 50
// instructions before a word's draws instead of about 140).
constexpr unsigned WORD_RUN = SPINFLIP_WORD_RUN;

// The per-lane unsatisfied-bond counts of word cw (spin `spin`) of row `row`.
__device__ __forceinline__ BondCount word_count(const unsigned* other, const unsigned* own_bonds,
                                                const unsigned* other_bonds, unsigned spin,
                                                unsigned colour, unsigned row, unsigned w) {
    const WordNeighbours n = word_neighbours(colour, row, w);
    const unsigned cw = row * row_words() + w;
    // Unsatisfied bonds per lane: -x, +x, then -y, +y (and -z, +z).
    unsigned unsatisfied[2u * DIMS];
    const uint2 x = x_neighbours(other[cw], other[n.adjacent], n.p);
    uint2 x_bonds = make_uint2(0u, 0u);
    if (DISORDERED) {
        const unsigned minus = x_neighbours(other_bonds[cw], other_bonds[n.adjacent], n.p).x;
        x_bonds = make_uint2(minus, own_bonds[cw]);
    }
    unsatisfied[0] = spin ^ x.x ^ x_bonds.x;
    unsatisfied[1] = spin ^ x.y ^ x_bonds.y;
#pragma unroll
    for (unsigned d = 1u; d < DIMS; d++) {
        uint2 bonds = make_uint2(0u, 0u);
        if (DISORDERED) {
            bonds = make_uint2(other_bonds[d * direction_stride() + n.minus[d - 1u]],
                               own_bonds[d * direction_stride() + cw]);
        }
        unsatisfied[2u * d] = spin ^ other[n.minus[d - 1u]] ^ bonds.x;
        unsatisfied[2u * d + 1u] = spin ^ other[n.plus[d - 1u]] ^ bonds.y;
    }
    return bond_count_of(unsatisfied);
}

// Update word w of row `row` (colour `colour` of word system g).
__device__ __forceinline__ void update_word(const DispatchParams& params, unsigned* own,
                                            const unsigned* other, const unsigned* own_bonds,
                                            const unsigned* other_bonds,
                                            const unsigned* thresholds, unsigned g,
                                            unsigned colour, unsigned row, unsigned w) {
    const unsigned cw = row * row_words() + w;
    const unsigned spin = own[cw];
    const BondCount count = word_count(other, own_bonds, other_bonds, spin, colour, row, w);
    // The lattice's word index keys the randoms (a slab's words are offset).
    own[cw] = spin ^ accepted_lanes(params, thresholds, spin, count, cw + WORD_OFFSET, colour, g);
}

// Update the run of words w + j stride (j < WORD_RUN) of row `row` with the packed tail.
__device__ __forceinline__ void update_packed_run(const DispatchParams& params, unsigned* own,
                                                  const unsigned* other,
                                                  const unsigned* own_bonds,
                                                  const unsigned* other_bonds,
                                                  const unsigned* thresholds, unsigned g,
                                                  unsigned colour, unsigned row, unsigned w) {
    constexpr unsigned stride = row_words() / WORD_RUN;
    const unsigned* table = threshold_table(thresholds, g);
    const unsigned batch = global_index(g);
    const unsigned first_cw = row * row_words() + w;
    PackedTail tail = {};
    unsigned spins[WORD_RUN];
    PackedWord packed[WORD_RUN];
#pragma unroll
    for (unsigned j = 0u; j < WORD_RUN; j++) {
        const unsigned cw = first_cw + j * stride;
        spins[j] = own[cw];
        const BondCount count =
            word_count(other, own_bonds, other_bonds, spins[j], colour, row, w + j * stride);
        packed[j] = pack_word(tail, params, table, spins[j], count, cw + WORD_OFFSET, colour, batch);
    }
    const unsigned tail_accepted =
        finish_tail(tail, params, table, first_cw + WORD_OFFSET, colour, batch);
#pragma unroll
    for (unsigned j = 0u; j < WORD_RUN; j++) {
        own[first_cw + j * stride] = spins[j] ^ packed_lanes(packed[j], tail_accepted);
    }
}

extern "C" __global__ void multispin_metropolis(DispatchParams params, unsigned first_system,
                                                unsigned* spins, const unsigned* thresholds,
                                                const unsigned* couplings) {
    // Launches update groups of word systems (see src/engine/cuda/streams.rs).
    const unsigned g = first_system + blockIdx.z;
    constexpr unsigned stride = row_words() / WORD_RUN;
    const unsigned thread = update_thread(params);
    if (thread >= own_colour_words() / WORD_RUN || !dispatched(params, thread)) {
        return;
    }
    // The colour is compiled in (a module per colour): the other colour's arrays then lie a
    // constant distance away and loads take it as an offset; the Philox counters and the x
    // parity fold too.
    constexpr unsigned colour = COLOUR;
    constexpr long long apart =
        colour == 0u ? colour_words() : -static_cast<long long>(colour_words());
    unsigned* own = colour_array(spins, g, colour);
    const unsigned* other = own + apart;
    // Bonds: a site's minus-side bonds are stored with its neighbour (the other colour).
    const unsigned* own_bonds = nullptr;
    const unsigned* other_bonds = nullptr;
    if (DISORDERED) {
        own_bonds = colour_bonds(couplings, coupling_group(g), colour);
        other_bonds = own_bonds + apart;
    }
    const unsigned row = thread / stride;
    const unsigned w = thread % stride;
    if (PACK_ROTATIONS != 0u) {
        update_packed_run(params, own, other, own_bonds, other_bonds, thresholds, g, colour, row,
                          w);
        return;
    }
#pragma unroll
    for (unsigned j = 0u; j < WORD_RUN; j++) {
        update_word(params, own, other, own_bonds, other_bonds, thresholds, g, colour, row,
                    w + j * stride);
    }
}
